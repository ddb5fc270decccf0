//! The HTTP face of the dice server: routes, bodies, statuses, one log line
//! per request. The logic is [`rollcall_server::Service`]'s; a refusal is
//! its [`ApiError`], answered with its status ([`Refused`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::{Json, Router};
use rollcall_core::digest::Digest;
use rollcall_core::seed::Share;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use rollcall_server::{ApiError, CreateGame, Service};

/// The largest request body taken (a decision, a scenario).
pub const BODY_LIMIT: usize = 256 * 1024;

/// The OpenAPI description of these routes (checked in as docs/openapi.json).
pub const OPENAPI: &str = include_str!("../../../docs/openapi.json");

type Shared = Arc<Service>;

/// A refusal as an HTTP answer: the [`ApiError`]'s status and its JSON.
struct Refused(ApiError);

impl From<ApiError> for Refused {
    fn from(e: ApiError) -> Refused {
        Refused(e)
    }
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        let Refused(e) = self;
        let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status == StatusCode::UNAUTHORIZED {
            // RFC 9110 §11.6.1: a 401 names the scheme the credential is sent in.
            let challenge = [(header::WWW_AUTHENTICATE, "Bearer realm=\"rollcall\"")];
            return (status, challenge, Json(e.to_json())).into_response();
        }
        (status, Json(e.to_json())).into_response()
    }
}

/// Every route: its path, its methods, its handlers. The router is built
/// from this table, and a test holds it to docs/openapi.json.
fn routes() -> Vec<(&'static str, &'static [&'static str], MethodRouter<Shared>)> {
    vec![
        ("/openapi.json", &["get"], get(openapi)),
        ("/games", &["get", "post"], get(list).post(create)),
        ("/games/{id}", &["get"], get(status)),
        ("/games/{id}/share", &["post"], post(share)),
        ("/games/{id}/decisions", &["post"], post(decide)),
        ("/games/{id}/end", &["post"], post(end)),
        ("/games/{id}/events", &["get"], get(events)),
        ("/games/{id}/state", &["get"], get(state)),
        ("/games/{id}/moves", &["get"], get(moves)),
        ("/games/{id}/narrative", &["get"], get(narrative)),
        ("/games/{id}/record", &["get"], get(record)),
        ("/games/{id}/turn", &["get"], get(turn)),
        ("/games/{id}/verify", &["get"], get(verify)),
        ("/games/{id}/view", &["get"], get(view)),
        ("/games/{id}/play", &["get"], get(play)),
        ("/games/{id}/heads", &["get"], get(heads)),
    ]
}

pub fn router(service: Shared) -> Router {
    let mut router = Router::new();
    for (path, _, handlers) in routes() {
        router = router.route(path, handlers);
    }
    router.layer(DefaultBodyLimit::max(BODY_LIMIT)).layer(middleware::from_fn(log_request)).with_state(service)
}

/// One line per request on standard error: time, method, path, status,
/// milliseconds. Never a body, a header, or a query string.
async fn log_request(request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    eprintln!(
        "{} {method} {path} {} {:.1}ms",
        now_utc(),
        response.status().as_u16(),
        start.elapsed().as_secs_f64() * 1000.0
    );
    response
}

/// The time now, `2026-11-30T13:01:02.345Z`.
fn now_utc() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = now.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

/// The bearer token of `Authorization: Bearer TOKEN` (the scheme's name in
/// any case, RFC 9110 §11.1), or the 401 a request without one is answered
/// with, before its body is read.
fn bearer(headers: &HeaderMap) -> Result<String, ApiError> {
    let missing = || {
        ApiError::new(401, "unauthorized", "no credentials: send `Authorization: Bearer TOKEN`, the token of your side")
    };
    let value = headers.get(header::AUTHORIZATION).ok_or_else(missing)?.to_str().map_err(|_| missing())?;
    let (scheme, token) = value.split_once(' ').ok_or_else(missing)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(missing());
    }
    Ok(token.to_string())
}

/// A JSON body, its errors naming the field (400) or its size (413).
fn body<T: DeserializeOwned>(bytes: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = bytes.map_err(|r| {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(413, "too-large", format!("the body is over {BODY_LIMIT} bytes"))
        } else {
            ApiError::new(400, "malformed", r.body_text())
        }
    })?;
    let mut de = serde_json::Deserializer::from_slice(&bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { "body".to_string() } else { path };
        ApiError::new(400, "malformed", format!("{field}: {}", e.inner()))
    })?;
    de.end().map_err(|e| ApiError::new(400, "malformed", format!("body: text after the JSON value ({e})")))?;
    Ok(value)
}

/// A refused field of `sides[i]` names the side too: `sides[1].key (side
/// "axis"): ...`, read from the body as sent.
fn naming_the_side(mut e: ApiError, raw: Option<&[u8]>) -> ApiError {
    let Some(rest) = e.message.strip_prefix("sides[") else { return e };
    let Some(index) = rest.split(']').next().and_then(|i| i.parse::<usize>().ok()) else { return e };
    let name = raw
        .and_then(|b| serde_json::from_slice::<Value>(b).ok())
        .and_then(|v| v["sides"][index]["name"].as_str().map(str::to_string));
    if let (Some(name), Some((field, message))) = (name, e.message.split_once(": ")) {
        e.message = format!("{field} (side {name:?}): {message}");
    }
    e
}

fn random() -> [u8; 32] {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).expect("the operating system gives randomness");
    bytes
}

/// Runs a blocking read on the blocking pool.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError::new(500, "internal", e.to_string()))?
}

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

async fn list(State(s): State<Shared>) -> Result<Json<Value>, Refused> {
    Ok(Json(blocking(move || s.list()).await?))
}

async fn create(State(s): State<Shared>, bytes: Result<Bytes, BytesRejection>) -> Result<Response, Refused> {
    let raw = bytes.as_ref().ok().cloned();
    let request: CreateGame = body(bytes).map_err(|e| naming_the_side(e, raw.as_deref()))?;
    let created = s.create(request, random).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

async fn status(State(s): State<Shared>, Path(id): Path<String>) -> Result<Json<Value>, Refused> {
    Ok(Json(s.status(&id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShareBody {
    share: Share,
}

async fn share(
    State(s): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, Refused> {
    let token = Some(bearer(&headers)?);
    let request: ShareBody = body(bytes)?;
    Ok(Json(s.share(&id, token.as_deref(), request.share).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DecisionsBody {
    expected_head: Digest,
    #[serde(default)]
    decision: Option<Value>,
    #[serde(default)]
    decisions: Option<Vec<Value>>,
}

async fn decide(
    State(s): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, Refused> {
    let token = Some(bearer(&headers)?);
    let request: DecisionsBody = body(bytes)?;
    let decisions = match (request.decision, request.decisions) {
        (Some(one), None) => vec![one],
        (None, Some(many)) if !many.is_empty() => many,
        _ => {
            return Err(ApiError::new(
                400,
                "malformed",
                "body: give `decision` (one) or `decisions` (a non-empty list)",
            )
            .into())
        }
    };
    Ok(Json(s.decide(&id, token.as_deref(), request.expected_head, &decisions).await?))
}

async fn end(State(s): State<Shared>, Path(id): Path<String>, headers: HeaderMap) -> Result<Json<Value>, Refused> {
    let token = Some(bearer(&headers)?);
    Ok(Json(s.end(&id, token.as_deref()).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Page {
    #[serde(default)]
    since: Option<u64>,
    #[serde(default)]
    limit: Option<u64>,
}

async fn events(
    State(s): State<Shared>,
    Path(id): Path<String>,
    Query(page): Query<Page>,
) -> Result<Json<Value>, Refused> {
    Ok(Json(blocking(move || s.events(&id, page.since.unwrap_or(1), page.limit.unwrap_or(1000))).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct At {
    #[serde(default)]
    at: Option<u64>,
}

async fn state(State(s): State<Shared>, Path(id): Path<String>, Query(at): Query<At>) -> Result<Json<Value>, Refused> {
    Ok(Json(blocking(move || s.state(&id, at.at)).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForSide {
    #[serde(default)]
    side: Option<String>,
}

/// The moves route takes a token, when sent, to list for its side.
async fn moves(
    State(s): State<Shared>,
    Path(id): Path<String>,
    Query(side): Query<ForSide>,
    headers: HeaderMap,
) -> Result<Json<Value>, Refused> {
    let token = headers.contains_key(header::AUTHORIZATION).then(|| bearer(&headers)).transpose()?;
    Ok(Json(blocking(move || s.moves(&id, side.side.as_deref(), token.as_deref())).await?))
}

async fn narrative(State(s): State<Shared>, Path(id): Path<String>) -> Result<Response, Refused> {
    let text = blocking(move || s.narrative(&id)).await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

async fn record(State(s): State<Shared>, Path(id): Path<String>) -> Result<Response, Refused> {
    let text = blocking(move || s.record(&id)).await?;
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], text).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Since {
    #[serde(default)]
    since: Option<Digest>,
}

async fn turn(
    State(s): State<Shared>,
    Path(id): Path<String>,
    Query(since): Query<Since>,
) -> Result<Response, Refused> {
    let text = blocking(move || s.turn(&id, since.since)).await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

async fn view(State(s): State<Shared>, Path(id): Path<String>) -> Result<Response, Refused> {
    let (header, events) = blocking(move || s.whole(&id)).await?;
    let html = crate::output::view::render(&header, &events, &crate::output::view::ViewOptions::default())
        .map_err(|e| ApiError::new(500, "view", e.to_string()))?;
    Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response())
}

/// The play page: self-contained; it reaches nothing but this server
/// (its Content-Security-Policy says so), and keeps the side's token in the
/// tab's session storage, never in a URL.
async fn play(State(s): State<Shared>, Path(id): Path<String>) -> Result<Response, Refused> {
    let html = blocking(move || s.known(&id).map(|()| super::page::render(&id))).await?;
    let headers = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ];
    Ok((headers, html).into_response())
}

/// Server-sent events: `head`, the game's head (`seq`, `hash`, `ended`)
/// now and each time it moves. Read-only; a head is of events written, so
/// nothing sent depends on a die not written. A game waiting for its
/// shares sends its first head when it begins. Over a store other servers
/// write too, the store's head is read every two seconds.
async fn heads(State(s): State<Shared>, Path(id): Path<String>) -> Result<Response, Refused> {
    let watch = s.watch(&id).await?;
    let stream = futures_util::stream::unfold((watch, None, s, id), |(mut w, mut sent, s, id)| async move {
        loop {
            if let Some(now) = w.now.take().filter(|now| Some(*now) != sent) {
                sent = Some(now);
                let event = SseEvent::default().event("head").json_data(now).expect("a head serialises");
                return Some((Ok::<_, std::convert::Infallible>(event), (w, sent, s, id)));
            }
            if *w.stopping.borrow() {
                return None;
            }
            tokio::select! {
                stopping = w.stopping.changed() => if stopping.is_err() {
                    return None;
                },
                changed = w.heads.changed() => match changed {
                    Ok(()) => w.now = *w.heads.borrow_and_update(),
                    Err(_) => return None,
                },
                _ = tokio::time::sleep(Duration::from_secs(2)), if !s.writes_alone() => {
                    let (s, id) = (s.clone(), id.clone());
                    w.now = tokio::task::spawn_blocking(move || s.stored(&id)).await.ok().flatten();
                }
            }
        }
    });
    let headers = [(header::CACHE_CONTROL, "no-store")];
    Ok((headers, Sse::new(stream).keep_alive(KeepAlive::default())).into_response())
}

async fn verify(State(s): State<Shared>, Path(id): Path<String>) -> Result<Json<Value>, Refused> {
    let (verified, header) = blocking(move || s.verify(&id)).await?;
    Ok(Json(crate::output::record::verified_json(&header.game, &verified, &header)))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    /// The routes served are the routes described, method for method.
    #[test]
    fn the_routes_are_the_openapi_description() {
        let spec: serde_json::Value = serde_json::from_str(super::OPENAPI).unwrap();
        let described: BTreeSet<(String, String)> = spec["paths"]
            .as_object()
            .unwrap()
            .iter()
            .flat_map(|(path, ops)| ops.as_object().unwrap().keys().map(move |m| (path.clone(), m.clone())))
            .collect();
        let served: BTreeSet<(String, String)> = super::routes()
            .into_iter()
            .flat_map(|(path, methods, _)| methods.iter().map(move |m| (path.to_string(), m.to_string())))
            .collect();
        assert_eq!(served, described);
    }
}
