//! The dice server over real HTTP on loopback: a sealed game played by two
//! clients, verified turn by turn, whose chain values never leak before
//! their turn ends; every refusal with its status and nothing written; many
//! games at once; kills and restarts with nothing acknowledged lost.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rollcall_core::keys::SecretKey;
use serde_json::{json, Value};

#[path = "support/postgres.rs"]
mod postgres_support;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn seed() -> u64 {
    let seed = std::env::var("ROLLCALL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
    });
    println!("ROLLCALL_SEED={seed}");
    seed
}

fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[path = "support/server.rs"]
mod server;
use server::Server;

/// How many sealed turns a game on these servers holds.
const TURNS: u32 = 100;

/// Every answer a client got, in order: what the leak test reads.
#[derive(Default, Clone)]
struct Transcript(Arc<Mutex<Vec<String>>>);

impl Transcript {
    fn keep(&self, text: &str) {
        self.0.lock().unwrap().push(text.to_string());
    }
}

fn call(request: ureq::Request, body: Option<&Value>, transcript: &Transcript) -> (u16, Value) {
    let result = match body {
        Some(b) => request.set("Content-Type", "application/json").send_string(&b.to_string()),
        None => request.call(),
    };
    let (status, text) = match result {
        Ok(r) => (r.status(), r.into_string().unwrap()),
        Err(ureq::Error::Status(s, r)) => (s, r.into_string().unwrap_or_default()),
        Err(e) => panic!("transport: {e}"),
    };
    transcript.keep(&text);
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

fn get(url: &str, t: &Transcript) -> (u16, Value) {
    call(ureq::get(url), None, t)
}

fn post(url: &str, token: Option<&str>, body: &Value, t: &Transcript) -> (u16, Value) {
    let mut r = ureq::post(url);
    if let Some(token) = token {
        r = r.set("Authorization", &format!("Bearer {token}"));
    }
    call(r, Some(body), t)
}

fn scenario() -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("examples/pbem/scenario.json")).unwrap()).unwrap()
}

/// Creates a leader-activation game and gives both shares: the two tokens.
fn sealed_game(server: &Server, game: &str, t: &Transcript) -> (String, String) {
    let body = json!({"game": game, "rules": "leader-activation@1", "scenario": scenario(), "sides": [
        {"name": "allies", "key": SecretKey::from_bytes([1; 32]).public().to_hex()},
        {"name": "axis", "key": SecretKey::from_bytes([2; 32]).public().to_hex()}]});
    let (status, created) = post(&server.url("/games"), None, &body, t);
    assert_eq!(status, 201, "{created}");
    let allies = created["tokens"]["allies"].as_str().unwrap().to_string();
    let axis = created["tokens"]["axis"].as_str().unwrap().to_string();
    let share = |n: u8| json!({"share": rollcall_core::digest::hex32(&[n; 32])});
    let (s, v) = post(&server.url(&format!("/games/{game}/share")), Some(&allies), &share(7), t);
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["started"], false);
    let (s, v) = post(&server.url(&format!("/games/{game}/share")), Some(&axis), &share(8), t);
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["started"], true);
    (allies, axis)
}

fn head(server: &Server, game: &str, t: &Transcript) -> String {
    let (_, v) = get(&server.url(&format!("/games/{game}")), t);
    v["head"]["hash"].as_str().unwrap().to_string()
}

fn decide(server: &Server, game: &str, token: &str, decision: Value, t: &Transcript) -> (u16, Value) {
    let expected = head(server, game, t);
    post(
        &server.url(&format!("/games/{game}/decisions")),
        Some(token),
        &json!({"expected_head": expected, "decision": decision}),
        t,
    )
}

/// A client of `GET /games/{id}/heads` (server-sent events): every line
/// of the stream as it comes, read on a thread of its own until it ends.
struct Heads {
    lines: Arc<Mutex<Vec<String>>>,
    ended: Arc<std::sync::atomic::AtomicBool>,
}

impl Heads {
    fn watch(server: &Server, game: &str) -> Heads {
        let response = ureq::get(&server.url(&format!("/games/{game}/heads"))).call().unwrap();
        assert_eq!(response.content_type(), "text/event-stream");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (sink, done) = (lines.clone(), ended.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(response.into_reader()).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
            done.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        Heads { lines, ended }
    }

    /// The `head` events so far, each checked to be `event: head` and
    /// `data: {"seq", "hash", "ended"}` and nothing else.
    fn heads(&self) -> Vec<Value> {
        let lines = self.lines.lock().unwrap().clone();
        let mut heads = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if let Some(data) = line.strip_prefix("data: ") {
                assert_eq!(lines[i - 1], "event: head", "{lines:?}");
                let head: Value = serde_json::from_str(data).unwrap();
                let keys: Vec<&String> = head.as_object().unwrap().keys().collect();
                assert_eq!(keys, ["ended", "hash", "seq"], "{data}");
                heads.push(head);
            } else {
                assert!(line.is_empty() || line == "event: head" || line.starts_with(':'), "{line:?}");
            }
        }
        heads
    }

    /// Waits (up to 10 s) until a head satisfies `what`.
    fn until(&self, what: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            if let Some(head) = self.heads().into_iter().find(|h| what(h)) {
                return head;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "no such head came: {:?}", self.heads());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn text(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }
}

fn record(server: &Server, game: &str) -> String {
    ureq::get(&server.url(&format!("/games/{game}/record"))).call().unwrap().into_string().unwrap()
}

/// The decisions of one turn of the rally scenario: allies rally rifles-2
/// (broken again first if a rally mended it), then every leader activates.
fn a_turn(state: &Value) -> Vec<(&'static str, Value)> {
    let broken = state["pieces"]["rifles-2"]["broken"].as_bool().unwrap_or(true);
    let mut turn = vec![("allies", json!({"type": "begin-turn", "first": "allies"}))];
    if !broken {
        turn.push(("allies", json!({"type": "break", "piece": "rifles-2", "reason": "fire"})));
    }
    turn.extend([
        ("allies", json!({"type": "activate", "leader": "lt-adams"})),
        ("allies", json!({"type": "rally", "units": ["rifles-2"]})),
        ("axis", json!({"type": "activate", "leader": "lt-vogel"})),
        ("axis", json!({"type": "end-activation"})),
        ("allies", json!({"type": "activate", "leader": "capt-baker"})),
        ("allies", json!({"type": "end-activation"})),
        ("axis", json!({"type": "activate", "leader": "fw-weber"})),
        ("axis", json!({"type": "end-activation"})),
    ]);
    turn
}

#[test]
fn a_sealed_game_by_two_clients_proves_each_turn_and_never_leaks_a_turn_before_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let server = Server::start(&db, TURNS);
    let t = Transcript::default();
    let (allies, axis) = sealed_game(&server, "friday", &t);
    let heads = Heads::watch(&server, "friday");
    let mut proven_before = 0;
    for turn in 1..=5 {
        let (_, state) = get(&server.url("/games/friday/state"), &t);
        for (side, decision) in a_turn(&state["state"]) {
            let token = if side == "allies" { &allies } else { &axis };
            let (status, v) = decide(&server, "friday", token, decision, &t);
            assert_eq!(status, 200, "turn {turn}: {v}");
        }
        let (_, report) = get(&server.url("/games/friday/verify"), &t);
        let proven = report["sealed"]["turns"].as_array().unwrap().iter().filter(|x| x["status"] == "proven").count();
        assert!(proven > proven_before || turn == 1, "each new turn reveals the one before: {report}");
        proven_before = proven;
        assert_eq!(
            report["sealed"]["turns"].as_array().unwrap().last().unwrap()["status"],
            "sealed until the turn ends"
        );
    }
    let (status, end) = post(&server.url("/games/friday/end"), Some(&axis), &json!({}), &t);
    assert_eq!(status, 200, "{end}");
    // The stream of heads told every head as it was written, and the end.
    heads.until(|h| h["ended"] == true && h["hash"] == end["head"]["hash"]);
    let text = record(&server, "friday");
    let hashes: Vec<Value> =
        text.lines().skip(1).map(|l| serde_json::from_str::<Value>(l).unwrap()["hash"].clone()).collect();
    for head in heads.heads().iter().filter(|h| h["seq"] != 0) {
        assert_eq!(hashes[head["seq"].as_u64().unwrap() as usize - 1], head["hash"], "a head written: {head}");
    }
    assert!(heads.heads().len() > 25, "a head for each answer: {:?}", heads.heads());
    // Offline, with the binary: every roll proven.
    let path = dir.path().join("friday.jsonl");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall")).arg("verify").arg(&path).arg("--json").output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["dice_proven"], true, "{report}");
    assert!(report["sealed"]["turns"].as_array().unwrap().iter().all(|x| x["status"] == "proven"));
    // The chain values: none appears in anything the server sent or logged
    // before the answer that revealed it; an unrevealed one never appears.
    let log = server.stop();
    let answers = t.0.lock().unwrap().clone();
    let store = rollcall_store::SledLog::open(&db).unwrap();
    let chain = rollcall_core::sealed::Chain::from_bytes(
        &rollcall_core::log::EventLog::secret(&store, "chain/friday").unwrap().unwrap(),
    )
    .unwrap();
    let revealed = report["sealed"]["turns"].as_array().unwrap().len() as u64;
    for k in 1..=chain.length() {
        let value = chain.value(k).unwrap().to_string();
        let first = answers.iter().position(|a| a.contains(&value));
        assert!(log.iter().all(|l| !l.contains(&value)), "x_{k} in the server's log");
        assert!(!heads.text().contains(&value), "x_{k} in the stream of heads");
        if k > revealed {
            assert_eq!(first, None, "the never-revealed x_{k} was sent");
            continue;
        }
        let reveal = format!("\"turn\":{k},\"value\":\"{value}\"");
        let revealing = answers.iter().position(|a| a.contains(&reveal)).unwrap_or_else(|| panic!("x_{k} revealed"));
        assert_eq!(first, Some(revealing), "x_{k} appeared before the answer that revealed it");
    }
    assert!(log.iter().any(|l| l.contains("POST /games/friday/decisions 200")), "one log line per request");
    // The server stopped cleanly with the stream open, and ended it.
    let start = Instant::now();
    while !heads.ended.load(std::sync::atomic::Ordering::SeqCst) {
        assert!(start.elapsed() < Duration::from_secs(10), "the stream of heads outlived the server");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The moves route with a token lists for the token's side, and refuses a
/// token that is no side's of the game, begun or not; the stream of heads
/// of a game waiting for its shares sends its first head when it begins;
/// the play page is served for a game begun or waiting, with a policy that
/// lets it reach this server alone.
#[test]
fn a_token_names_its_side_to_the_moves_route_and_the_play_page_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), TURNS);
    let t = Transcript::default();
    let body = json!({"game": "friday", "rules": "leader-activation@2", "scenario": scenario(), "sides": [
        {"name": "allies", "key": SecretKey::from_bytes([1; 32]).public().to_hex()},
        {"name": "axis", "key": SecretKey::from_bytes([2; 32]).public().to_hex()}]});
    let (status, created) = post(&server.url("/games"), None, &body, &t);
    assert_eq!(status, 201, "{created}");
    let allies = created["tokens"]["allies"].as_str().unwrap().to_string();
    let axis = created["tokens"]["axis"].as_str().unwrap().to_string();
    let moves = |token: Option<&str>, query: &str| {
        let mut request = ureq::get(&server.url(&format!("/games/friday/moves{query}")));
        if let Some(token) = token {
            request = request.set("Authorization", token);
        }
        call(request, None, &t)
    };
    let bearer = |token: &str| format!("Bearer {token}");
    // Waiting for its shares: a good token is told so, a wrong one is refused.
    let (status, v) = moves(Some(&bearer(&allies)), "");
    assert_eq!((status, v["error"].as_str()), (409, Some("not-started")), "{v}");
    let (status, v) = moves(Some(&bearer(&"0".repeat(64))), "");
    assert_eq!((status, v["error"].as_str()), (401, Some("unauthorized")), "{v}");
    let page = ureq::get(&server.url("/games/friday/play")).call().unwrap();
    assert_eq!(page.content_type(), "text/html");
    assert_eq!(page.header("Cache-Control"), Some("no-store"));
    let html = page.into_string().unwrap();
    assert!(html.contains("connect-src 'self'") && html.contains("\"game\":\"friday\""));
    let heads = Heads::watch(&server, "friday");
    let share = |n: u8| json!({"share": rollcall_core::digest::hex32(&[n; 32])});
    post(&server.url("/games/friday/share"), Some(&allies), &share(7), &t);
    post(&server.url("/games/friday/share"), Some(&axis), &share(8), &t);
    assert_eq!(heads.until(|h| h["seq"] == 0)["ended"], false);
    // Begun: each token lists for its side, whoever is awaited.
    for (token, side) in [(&allies, "allies"), (&axis, "axis")] {
        let (status, v) = moves(Some(&bearer(token)), "");
        assert_eq!((status, v["side"].as_str(), v["awaited"].as_str()), (200, Some(side), Some("referee")), "{v}");
    }
    let (status, v) = moves(Some(&bearer(&axis)), "?side=referee");
    assert_eq!((status, v["side"].clone()), (200, Value::Null), "{v}");
    let (status, v) = moves(None, "");
    assert_eq!((status, v["side"].clone()), (200, Value::Null), "no token: the side awaited, the referee: {v}");
    for wrong in [bearer(&"0".repeat(64)), "Basic YWxsaWVz".to_string(), "Bearer".to_string()] {
        let (status, v) = moves(Some(&wrong), "");
        assert_eq!((status, v["error"].as_str()), (401, Some("unauthorized")), "{wrong}: {v}");
    }
    let (status, _) = get(&server.url("/games/nowhere/play"), &t);
    assert_eq!(status, 404);
    let (status, _) = get(&server.url("/games/nowhere/heads"), &t);
    assert_eq!(status, 404);
    let log = server.stop();
    assert!(!log.iter().any(|l| l.contains(&allies) || l.contains(&axis)), "a token in the log");
}

#[test]
fn every_refusal_has_its_status_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), TURNS);
    let t = Transcript::default();
    let url = server.url("/games/g/decisions");
    // Before the shares are in.
    let body = json!({"game": "g", "rules": "leader-activation@1", "scenario": scenario(), "sides": [
        {"name": "allies", "key": SecretKey::from_bytes([1; 32]).public().to_hex()},
        {"name": "axis", "key": SecretKey::from_bytes([2; 32]).public().to_hex()}]});
    let (_, created) = post(&server.url("/games"), None, &body, &t);
    let allies = created["tokens"]["allies"].as_str().unwrap().to_string();
    let axis = created["tokens"]["axis"].as_str().unwrap().to_string();
    let zero = "0".repeat(64);
    let (s, v) = post(&url, Some(&allies), &json!({"expected_head": zero, "decision": {}}), &t);
    assert_eq!((s, v["error"].as_str()), (409, Some("not-started")), "{v}");
    let share = |n: u8| json!({"share": rollcall_core::digest::hex32(&[n; 32])});
    post(&server.url("/games/g/share"), Some(&allies), &share(1), &t);
    let (s, v) = post(&server.url("/games/g/share"), Some(&allies), &share(2), &t);
    assert_eq!((s, v["error"].as_str()), (409, Some("share-given")), "{v}");
    post(&server.url("/games/g/share"), Some(&axis), &share(3), &t);
    let (s, v) = post(&server.url("/games"), None, &body, &t);
    assert_eq!((s, v["error"].as_str()), (409, Some("exists")), "{v}");
    let begin = json!({"type": "begin-turn", "first": "allies"});
    let before = record(&server, "g");
    let h = head(&server, "g", &t);
    let cases: Vec<(u16, &str, &str, Option<&str>, Value)> = vec![
        (401, "unauthorized", "no credentials", None, json!({"expected_head": h, "decision": begin})),
        (401, "unauthorized", "not a token of game", Some("nope"), json!({"expected_head": h, "decision": begin})),
        (
            403,
            "not-your-decision",
            "this decision is allies' to make, not axis'",
            Some(&axis),
            json!({"expected_head": h, "decision": {"type": "activate", "leader": "lt-adams"}}),
        ),
        (
            409,
            "stale-head",
            "not the 000000000000 you expected",
            Some(&allies),
            json!({"expected_head": zero, "decision": begin}),
        ),
        (
            422,
            "refused",
            "refused: no turn has begun",
            Some(&allies),
            json!({"expected_head": h, "decision": {"type": "activate", "leader": "lt-adams"}}),
        ),
        (
            400,
            "malformed",
            "decision.type: unknown variant `fly`",
            Some(&allies),
            json!({"expected_head": h, "decision": {"type": "fly"}}),
        ),
        (400, "malformed", "expected_head", Some(&allies), json!({"expected_head": "XYZ", "decision": begin})),
        (400, "malformed", "unknown field `decison`", Some(&allies), json!({"expected_head": h, "decison": begin})),
    ];
    for (status, code, needle, token, body) in cases {
        let (s, v) = post(&url, token, &body, &t);
        assert_eq!((s, v["error"].as_str()), (status, Some(code)), "{v}");
        assert!(v["message"].as_str().unwrap().contains(needle), "{needle:?} in {v}");
        if status == 409 {
            assert_eq!(v["head"]["hash"], h, "a stale head is answered with the new head");
        }
        // A refused decision names the kind of refusal; other errors do not.
        let refusal = match status {
            403 => Some("not-the-sides"),
            422 => Some("no-turn-begun"),
            _ => None,
        };
        assert_eq!(v["refusal"]["kind"].as_str(), refusal, "{v}");
        assert_eq!(record(&server, "g"), before, "nothing written on a {status}");
    }
    // Not JSON, and too large.
    let raw = |body: String| {
        let r = ureq::post(&url).set("Authorization", &format!("Bearer {allies}")).send_string(&body);
        match r {
            Ok(r) => Ok((r.status(), r.into_string().unwrap())),
            Err(ureq::Error::Status(s, r)) => Ok((s, r.into_string().unwrap())),
            Err(ureq::Error::Transport(t)) => Err(t.kind()),
        }
    };
    let (s, text) = raw("{\"expected_head\": ".into()).unwrap();
    assert_eq!(s, 400, "{text}");
    // The server answers 413 as soon as the body passes its limit and closes
    // the connection: a client still writing the rest may see its write
    // fail (a broken pipe) instead of the answer. Either way nothing is written.
    match raw(format!(
        "{{\"expected_head\":\"{h}\",\"decision\":{{\"type\":\"move\",\"piece\":\"{}\"}}}}",
        "x".repeat(400_000)
    )) {
        Ok((s, text)) => assert_eq!(s, 413, "{text}"),
        Err(kind) => assert_eq!(kind, ureq::ErrorKind::Io),
    }
    assert_eq!(record(&server, "g"), before);
    let (s, _) = get(&server.url("/games/nope"), &t);
    assert_eq!(s, 404);
    // And then the decision, properly.
    let (s, v) = post(&url, Some(&allies), &json!({"expected_head": h, "decision": begin}), &t);
    assert_eq!(s, 200, "{v}");
    server.stop();
}

/// A batch whose second decision is legal only if the first one's die
/// fell one way: the answer tells which only with that die written and
/// signed. Through the server's API, and through `play --server`, which
/// says how many decisions were written and exits 3 when the rest was refused.
#[test]
fn a_batch_refused_after_a_die_keeps_the_die_written_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), TURNS);
    let t = Transcript::default();
    let (mut partial, mut whole) = (0, 0);
    for g in 0..6 {
        let game = format!("probe-{g}");
        // rifles-2 begins the scenario broken.
        let (allies, _) = sealed_game(&server, &game, &t);
        for d in [json!({"type": "begin-turn", "first": "allies"}), json!({"type": "activate", "leader": "lt-adams"})] {
            let (s, v) = decide(&server, &game, &allies, d, &t);
            assert_eq!(s, 200, "{v}");
        }
        let batch = json!([{"type": "rally", "units": ["rifles-2"]}, {"type": "rally", "units": ["rifles-2"]}]);
        let file = dir.path().join(format!("{game}.json"));
        std::fs::write(&file, batch.to_string()).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_rollcall"))
            .args(["--db", dir.path().join("local").to_str().unwrap(), "play", "--server", &server.url(""), "--token"])
            .args([&allies, &game, file.to_str().unwrap(), "--json"])
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let answer = &report["answer"];
        assert_eq!(report["head_signature_valid"], true, "{report}");
        let kept = record(&server, &game);
        assert!(kept.contains("\"kind\":\"roll\""), "the first rally's die is written: {kept}");
        match out.status.code() {
            Some(3) => {
                partial += 1;
                assert_eq!((answer["written"].as_u64(), answer["complete"].as_bool()), (Some(1), Some(false)));
                assert_eq!(answer["refused"]["index"], 1, "{answer}");
                // A rally that succeeded ends the activation (axis to
                // activate: 403); one that failed leaves rifles-2 broken (422).
                let status = answer["refused"]["status"].as_u64();
                assert!(matches!(status, Some(403 | 422)), "{answer}");
                assert_eq!(report["ok"], false);
            }
            Some(0) => {
                whole += 1;
                assert_eq!((answer["written"].as_u64(), answer["complete"].as_bool()), (Some(2), Some(true)));
            }
            other => panic!("exit {other:?}: {report}"),
        }
        assert_eq!(
            head(&server, &game, &t),
            answer["head"]["hash"].as_str().unwrap(),
            "the answer's head is the game's"
        );
    }
    eprintln!("{partial} batches refused after the die, {whole} played whole");
    server.stop();
}

/// A side's key that no signature can be checked against (a point of small
/// order) is refused naming the side; a request with no credentials is a
/// 401 that names the scheme, before its body is read.
#[test]
fn a_weak_key_and_a_missing_token_are_refused_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), TURNS);
    let t = Transcript::default();
    let identity = format!("01{}", "0".repeat(62));
    let body = json!({"game": "weak", "rules": "leader-activation@1", "scenario": scenario(), "sides": [
        {"name": "allies", "key": SecretKey::from_bytes([1; 32]).public().to_hex()},
        {"name": "axis", "key": identity}]});
    let (s, v) = post(&server.url("/games"), None, &body, &t);
    assert_eq!((s, v["error"].as_str()), (400, Some("malformed")), "{v}");
    let message = v["message"].as_str().unwrap();
    assert!(message.starts_with("sides[1].key (side \"axis\"): "), "{message}");
    assert!(message.contains("small order"), "{message}");
    assert_eq!(get(&server.url("/games/weak"), &t).0, 404, "nothing was created");
    sealed_game(&server, "g", &t);
    for body in [r#"{"expected_head": "00", "decision": {}}"#, "not json"] {
        for path in ["/games/g/decisions", "/games/g/share", "/games/g/end"] {
            let answer = ureq::post(&server.url(path)).send_string(body);
            let Err(ureq::Error::Status(401, r)) = answer else { panic!("{path}: {answer:?}") };
            assert_eq!(r.header("WWW-Authenticate"), Some("Bearer realm=\"rollcall\""), "{path}");
            let v: Value = serde_json::from_str(&r.into_string().unwrap()).unwrap();
            assert_eq!(v["error"], "unauthorized", "{v}");
        }
    }
    server.stop();
}

/// A referee move by `token`, on the head it expects; `None` when it lost a race.
fn move_piece(server: &Server, game: &str, token: &str, expected: &str, i: u64) -> Option<(u64, String)> {
    let body = json!({"expected_head": expected, "decision": {"type": "move", "piece": "rifles-1", "to": [i, 0]}});
    let t = Transcript::default();
    let (s, v) = post(&server.url(&format!("/games/{game}/decisions")), Some(token), &body, &t);
    match s {
        200 => Some((v["head"]["seq"].as_u64().unwrap(), v["head"]["hash"].as_str().unwrap().to_string())),
        409 => None,
        _ => panic!("{s}: {v}"),
    }
}

#[test]
fn fifty_games_at_once_lose_nothing_duplicate_nothing_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let server = Arc::new(Server::start(&dir.path().join("db"), TURNS));
    let t = Transcript::default();
    let games: Vec<(String, String, String)> = (0..50)
        .map(|i| {
            let id = format!("g{i}");
            let (a, b) = sealed_game(&server, &id, &t);
            (id, a, b)
        })
        .collect();
    let start = Instant::now();
    let per_game = 200u64;
    let handles: Vec<_> = games
        .clone()
        .into_iter()
        .map(|(id, a, b)| {
            let server = server.clone();
            std::thread::spawn(move || {
                let mut expected = head(&server, &id, &Transcript::default());
                for i in 0..per_game {
                    let token = if i % 2 == 0 { &a } else { &b };
                    let (_, hash) =
                        move_piece(&server, &id, token, &expected, i).expect("no race on a game of one client");
                    expected = hash;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let elapsed = start.elapsed();
    // Two clients race on one game: one wins, the other is told the new head.
    let (id, a, b) = &games[0];
    let expected = head(&server, id, &t);
    let racers: Vec<_> = [a.clone(), b.clone()]
        .into_iter()
        .map(|token| {
            let (server, id, expected) = (server.clone(), id.clone(), expected.clone());
            std::thread::spawn(move || move_piece(&server, &id, &token, &expected, 999))
        })
        .collect();
    let results: Vec<_> = racers.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(results.iter().filter(|r| r.is_some()).count(), 1, "exactly one of two racing appends lands");
    for (i, (id, _, _)) in games.iter().enumerate() {
        let text = record(&server, id);
        let mut lines = text.lines();
        let header =
            rollcall_core::record::parse_header(lines.next().unwrap(), rollcall_core::registry::builtin()).unwrap();
        let events = lines.map(|l| rollcall_core::record::parse_event(l).map_err(|e| e.to_string()));
        let v = rollcall_core::game::verify(&header, events, rollcall_core::registry::builtin()).unwrap();
        assert_eq!(v.decisions, per_game + u64::from(i == 0), "game {id}: nothing lost or duplicated");
    }
    let server = Arc::try_unwrap(server).ok().unwrap();
    let log = server.stop();
    let figures = log.iter().find(|l| l.contains("made durable in")).cloned().unwrap_or_default();
    println!(
        "{} decisions in {:.2}s: {:.0} decisions/s across 50 games (debug build; the benchmark measures release); {figures}",
        50 * per_game,
        elapsed.as_secs_f64(),
        (50 * per_game) as f64 / elapsed.as_secs_f64()
    );
}

#[test]
fn killed_fifty_times_the_server_loses_nothing_it_acknowledged() {
    let mut rng = seed();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let server = Server::start(&db, TURNS);
    let (allies, _) = sealed_game(&server, "k", &Transcript::default());
    server.kill();
    let mut acknowledged: Option<(u64, String)> = None;
    let mut i = 0u64;
    for round in 0..50 {
        let server = Server::start(&db, TURNS);
        // Everything acknowledged before is there, whole.
        recovered_whole(&server, round, &acknowledged, "the store");
        // A client plays until the kill.
        let acks = Arc::new(Mutex::new(acknowledged.clone()));
        let client = {
            let (base, acks, token) = (server.url(""), acks.clone(), allies.clone());
            let start_i = i;
            std::thread::spawn(move || {
                let mut j = start_i;
                loop {
                    let expected = match ureq::get(&format!("{base}/games/k")).call() {
                        Ok(r) => serde_json::from_str::<Value>(&r.into_string().unwrap()).unwrap()["head"]["hash"]
                            .as_str()
                            .unwrap()
                            .to_string(),
                        Err(_) => break,
                    };
                    let body = json!({"expected_head": expected, "decision": {"type": "move", "piece": "rifles-1", "to": [j, 0]}});
                    let answer = ureq::post(&format!("{base}/games/k/decisions"))
                        .set("Authorization", &format!("Bearer {token}"))
                        .send_string(&body.to_string());
                    match answer {
                        Ok(r) => {
                            let v: Value = serde_json::from_str(&r.into_string().unwrap()).unwrap();
                            *acks.lock().unwrap() = Some((
                                v["head"]["seq"].as_u64().unwrap(),
                                v["head"]["hash"].as_str().unwrap().to_string(),
                            ));
                        }
                        Err(_) => break,
                    }
                    j += 1;
                }
                j
            })
        };
        std::thread::sleep(Duration::from_millis(20 + next(&mut rng) % 300));
        server.kill();
        i = client.join().unwrap();
        acknowledged = acks.lock().unwrap().clone();
    }
    assert!(acknowledged.is_some_and(|(seq, _)| seq > 50), "the game went on between the kills");
}

// Several servers over one PostgreSQL database.

/// Plays `per_game` referee moves in each game, one client thread per game,
/// each move sent to the servers in turn (a server learns of the moves the
/// others made from the database): decisions/s. A 409 (the other client of
/// a game, or a race) is answered by reading the head again.
fn play_across(servers: &[Arc<Server>], games: &[(String, String, String)], per_game: u64) -> f64 {
    let start = Instant::now();
    let handles: Vec<_> = games
        .iter()
        .cloned()
        .enumerate()
        .map(|(g, (id, a, b))| {
            let servers: Vec<Arc<Server>> = servers.to_vec();
            std::thread::spawn(move || {
                let mut expected = head(&servers[0], &id, &Transcript::default());
                let mut i = 0;
                while i < per_game {
                    let server = &servers[(g + i as usize) % servers.len()];
                    let token = if i % 2 == 0 { &a } else { &b };
                    match move_piece(server, &id, token, &expected, i) {
                        Some((_, hash)) => {
                            expected = hash;
                            i += 1;
                        }
                        None => expected = head(server, &id, &Transcript::default()),
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    (games.len() as u64 * per_game) as f64 / start.elapsed().as_secs_f64()
}

/// Every game's record, read from `server`, verifies and holds `decisions` decisions.
fn all_verify(server: &Server, games: &[(String, String, String)], decisions: impl Fn(usize) -> u64) {
    for (i, (id, _, _)) in games.iter().enumerate() {
        let text = record(server, id);
        let mut lines = text.lines();
        let header =
            rollcall_core::record::parse_header(lines.next().unwrap(), rollcall_core::registry::builtin()).unwrap();
        let events = lines.map(|l| rollcall_core::record::parse_event(l).map_err(|e| e.to_string()));
        let v = rollcall_core::game::verify(&header, events, rollcall_core::registry::builtin())
            .unwrap_or_else(|f| panic!("game {id}: {f}"));
        assert_eq!(v.decisions, decisions(i), "game {id}: nothing lost or duplicated");
    }
}

fn postgres_games(servers: &[Arc<Server>], n: usize, prefix: &str) -> Vec<(String, String, String)> {
    let t = Transcript::default();
    (0..n)
        .map(|i| {
            let id = format!("{prefix}{i}");
            let (a, b) = sealed_game(&servers[i % servers.len()], &id, &t);
            (id, a, b)
        })
        .collect()
}

#[test]
fn two_servers_over_one_postgres_database_serialise_appends_and_lose_nothing() {
    let Some(db) = postgres_support::Database::new("two_servers_over_one_postgres_database") else { return };
    let servers = [Arc::new(Server::on_postgres(&db.url, TURNS)), Arc::new(Server::on_postgres(&db.url, TURNS))];
    let per_game = std::env::var("ROLLCALL_SERVE_DECISIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(200u64);
    // One server, then two, over the same database: the figures.
    let one = postgres_games(&servers, 25, "one-");
    let rate_one = play_across(&servers[..1], &one, per_game);
    let two = postgres_games(&servers, 25, "two-");
    let rate_two = play_across(&servers, &two, per_game);
    // Two clients race on one head through the two servers: one lands, the
    // other is refused with 409 and told the head that won.
    let (id, a, b) = &two[0];
    let expected = head(&servers[0], id, &Transcript::default());
    let racers: Vec<_> = [(0, a.clone()), (1, b.clone())]
        .into_iter()
        .map(|(s, token)| {
            let (server, id, expected) = (servers[s].clone(), id.clone(), expected.clone());
            std::thread::spawn(move || {
                let body = json!({"expected_head": expected, "decision": {"type": "move", "piece": "rifles-1", "to": [999, s]}});
                post(&server.url(&format!("/games/{id}/decisions")), Some(&token), &body, &Transcript::default())
            })
        })
        .collect();
    let answers: Vec<(u16, Value)> = racers.into_iter().map(|h| h.join().unwrap()).collect();
    let won: Vec<&Value> = answers.iter().filter(|(s, _)| *s == 200).map(|(_, v)| v).collect();
    let lost: Vec<&Value> = answers.iter().filter(|(s, _)| *s == 409).map(|(_, v)| v).collect();
    assert_eq!((won.len(), lost.len()), (1, 1), "one of two racing appends lands, the other gets 409: {answers:?}");
    assert_eq!(lost[0]["error"], "stale-head", "{}", lost[0]);
    assert_eq!(lost[0]["head"]["hash"], won[0]["head"]["hash"], "the loser is told the new head");
    // Every record, read through either server, verifies whole.
    for server in &servers {
        all_verify(server, &one, |_| per_game);
        all_verify(server, &two, |i| per_game + u64::from(i == 0));
    }
    for server in servers {
        Arc::try_unwrap(server).ok().unwrap().stop();
    }
    println!(
        "PostgreSQL, 25 games × {per_game} decisions: one server {rate_one:.0} decisions/s, two servers {rate_two:.0} decisions/s (debug build, a shared machine)"
    );
}

#[test]
fn a_server_over_postgres_killed_mid_append_loses_nothing_it_acknowledged() {
    let Some(db) = postgres_support::Database::new("a_server_over_postgres_killed_mid_append") else { return };
    let mut rng = seed();
    let server = Server::on_postgres(&db.url, TURNS);
    let (allies, _) = sealed_game(&server, "k", &Transcript::default());
    server.kill();
    let mut acknowledged: Option<(u64, String)> = None;
    for round in 0..10 {
        let server = Server::on_postgres(&db.url, TURNS);
        recovered_whole(&server, round, &acknowledged, "the database");
        let acks = Arc::new(Mutex::new(acknowledged.clone()));
        let client = {
            let (base, acks, token) = (server.url(""), acks.clone(), allies.clone());
            std::thread::spawn(move || {
                for j in 0.. {
                    let Ok(r) = ureq::get(&format!("{base}/games/k")).call() else { break };
                    let expected = serde_json::from_str::<Value>(&r.into_string().unwrap()).unwrap()["head"]["hash"]
                        .as_str()
                        .unwrap()
                        .to_string();
                    let body = json!({"expected_head": expected, "decision": {"type": "move", "piece": "rifles-1", "to": [j, round]}});
                    let Ok(r) = ureq::post(&format!("{base}/games/k/decisions"))
                        .set("Authorization", &format!("Bearer {token}"))
                        .send_string(&body.to_string())
                    else {
                        break;
                    };
                    let v: Value = serde_json::from_str(&r.into_string().unwrap()).unwrap();
                    *acks.lock().unwrap() =
                        Some((v["head"]["seq"].as_u64().unwrap(), v["head"]["hash"].as_str().unwrap().to_string()));
                }
            })
        };
        std::thread::sleep(Duration::from_millis(50 + next(&mut rng) % 400));
        server.kill();
        client.join().unwrap();
        acknowledged = acks.lock().unwrap().clone();
    }
    assert!(acknowledged.is_some_and(|(seq, _)| seq > 10), "the game went on between the kills");
}

#[test]
fn two_servers_ride_out_a_restart_of_the_database_under_load() {
    let Some(db) = postgres_support::Database::new("two_servers_ride_out_a_restart") else { return };
    let servers = [Arc::new(Server::on_postgres(&db.url, TURNS)), Arc::new(Server::on_postgres(&db.url, TURNS))];
    let games = postgres_games(&servers, 6, "r");
    // Enough decisions that the restart, which comes as soon as the games
    // are under way, finds them still being played on a fast, idle machine.
    let per_game = 300;
    let players = {
        let (servers, games) = (servers.to_vec(), games.clone());
        std::thread::spawn(move || play_across(&servers, &games, per_game))
    };
    let (first, t) = (&games[0].0, Transcript::default());
    while get(&servers[0].url(&format!("/games/{first}")), &t).1["head"]["seq"].as_u64().unwrap() < 20 {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(!players.is_finished(), "the restart comes under load: play more decisions");
    let what = postgres_support::restart(&db);
    players.join().expect("every decision answered, through the restart");
    for server in &servers {
        all_verify(server, &games, |_| per_game);
    }
    for server in servers {
        Arc::try_unwrap(server).ok().unwrap().stop();
    }
    println!("{what} while two servers played {} games; every record verifies", games.len());
}

/// After a kill and restart: game "k" as served verifies, and the last
/// acknowledged event (seq, hash) is in it unchanged.
fn recovered_whole(server: &Server, round: u32, acknowledged: &Option<(u64, String)>, what: &str) {
    let text = record(server, "k");
    let mut lines = text.lines();
    let header =
        rollcall_core::record::parse_header(lines.next().unwrap(), rollcall_core::registry::builtin()).unwrap();
    let events: Vec<_> = lines.map(|l| rollcall_core::record::parse_event(l).unwrap()).collect();
    rollcall_core::game::verify(
        &header,
        events.iter().cloned().map(Ok::<_, String>),
        rollcall_core::registry::builtin(),
    )
    .unwrap_or_else(|f| panic!("round {round}: {what} does not verify after a kill: {f}"));
    if let Some((seq, hash)) = acknowledged {
        let at = events
            .iter()
            .find(|e| e.seq == *seq)
            .unwrap_or_else(|| panic!("round {round}: acknowledged seq {seq} lost"));
        assert_eq!(&at.hash.to_string(), hash, "round {round}: acknowledged seq {seq} changed");
    }
}

/// A whole game of `ruleset` against the server: two clients, each with its
/// side's token, play what a random legal player would (the simulator's
/// policy, following the served record's facts, since no client can draw a
/// sealed die); a decision the server calls the other side's (403) is that
/// side's client's to make, one it refuses by the rules (422) is followed by
/// the next candidate. It plays until the generator calls the game over or
/// for 150 decisions. Every turn is proven once revealed; the record
/// verifies offline with every roll proven.
fn a_whole_sealed_game_of(ruleset: &str, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), TURNS);
    let t = Transcript::default();
    let sim = rollcall_core::sim::simulator(ruleset).unwrap();
    let version = rollcall_core::registry::version(ruleset).unwrap().id();
    let header = sim.random_header(seed, &version);
    let game = format!("{ruleset}-whole");
    let (body, sides) = server::terms_of(&header, &game);
    let (status, created) = post(&server.url("/games"), None, &body, &t);
    assert_eq!(status, 201, "{created}");
    let tokens: Vec<String> = sides.iter().map(|s| created["tokens"][s].as_str().unwrap().to_string()).collect();
    for (i, token) in tokens.iter().enumerate() {
        let share = json!({"share": rollcall_core::digest::hex32(&[i as u8 + 40; 32])});
        let (s, v) = post(&server.url(&format!("/games/{game}/share")), Some(token), &share, &t);
        assert_eq!(s, 200, "{v}");
    }
    // The served game has the random game's rules and scenario: the follower starts from them.
    let mut follower = sim.follower(&header, "random", rollcall_core::sim::play_rng(seed)).unwrap();

    let (mut seen, mut decisions, mut by, mut reveals) = (0u64, 0u64, 0usize, 0u64);
    let mut refused_by_the_rules = 0;
    while decisions < 150 && !follower.over() {
        let mut played = false;
        for decision in follower.candidates() {
            let (mut status, mut v) = decide(&server, &game, &tokens[by], decision.clone(), &t);
            if status == 403 {
                by = 1 - by; // the other side's decision: its client makes it
                (status, v) = decide(&server, &game, &tokens[by], decision.clone(), &t);
            }
            match status {
                200 => {
                    played = true;
                    break;
                }
                422 => refused_by_the_rules += 1,
                // The random player writes mistakes on purpose: malformed, refused, nothing written.
                400 if v["error"] == "malformed" => refused_by_the_rules += 1,
                other => panic!("{ruleset} #{}: {decision} got {other}: {v}", decisions + 1),
            }
        }
        assert!(played, "{ruleset}: no candidate was legal after {decisions} decisions");
        decisions += 1;
        let (_, page) = get(&server.url(&format!("/games/{game}/events?since={}", seen + 1)), &t);
        for e in page["events"].as_array().unwrap() {
            seen = e["seq"].as_u64().unwrap();
            match e["kind"].as_str().unwrap() {
                "fact" => {
                    let event = rollcall_core::record::Event {
                        seq: seen,
                        kind: rollcall_core::record::Kind::Fact,
                        body: e["body"].clone(),
                        hash: e["hash"].as_str().unwrap().parse().unwrap(),
                    };
                    follower.observe(&event).unwrap();
                }
                "reveal" => {
                    reveals += 1;
                    let (_, report) = get(&server.url(&format!("/games/{game}/verify")), &t);
                    let turns = report["sealed"]["turns"].as_array().unwrap();
                    let proven = turns.iter().filter(|x| x["status"] == "proven").count() as u64;
                    assert_eq!(proven, reveals, "{ruleset}: every revealed turn is proven: {report}");
                }
                _ => {}
            }
        }
    }
    assert!(reveals >= 2, "{ruleset}: {reveals} turns revealed in {decisions} decisions");
    let (status, end) = post(&server.url(&format!("/games/{game}/end")), Some(&tokens[0]), &json!({}), &t);
    assert_eq!(status, 200, "{end}");
    let path = dir.path().join("whole.jsonl");
    std::fs::write(&path, record(&server, &game)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall")).arg("verify").arg(&path).arg("--json").output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["dice_proven"], true, "{report}");
    assert_eq!(report["decisions"], decisions, "{report}");
    assert!(report["sealed"]["turns"].as_array().unwrap().iter().all(|x| x["status"] == "proven"), "{report}");
    eprintln!("{ruleset}: {decisions} decisions, {reveals} reveals, {refused_by_the_rules} refused");
    server.stop();
}

#[test]
fn a_whole_sealed_game_of_leader_activation() {
    a_whole_sealed_game_of("leader-activation", 11);
}

#[test]
fn a_whole_sealed_game_of_phoenix_command() {
    a_whole_sealed_game_of("phoenix-command", 12);
}

#[test]
fn a_whole_sealed_game_of_combat_hq() {
    a_whole_sealed_game_of("combat-hq", 13);
}

#[test]
fn a_whole_sealed_game_of_formation_activation() {
    a_whole_sealed_game_of("formation-activation", 14);
}

/// `rollcall store copy`, by the binary, with no store in the environment.
fn copy_store(from: &str, to: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .env_remove("ROLLCALL_DB")
        .env_remove("ROLLCALL_STORE")
        .args(["store", "copy", "--from", from, "--to", to])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "store copy {from} → {to}: {text}");
    text
}

/// Ends `game` on `server` (by the side whose token is `token`), stops the
/// server, and verifies the game's record offline: `verify --json`'s report.
fn ended_and_verified(server: Server, game: &str, token: &str, dir: &Path, t: &Transcript) -> Value {
    let (status, end) = post(&server.url(&format!("/games/{game}/end")), Some(token), &json!({}), t);
    assert_eq!(status, 200, "{end}");
    let path = dir.join(format!("{game}.jsonl"));
    std::fs::write(&path, record(&server, game)).unwrap();
    server.stop();
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall")).arg("verify").arg(&path).arg("--json").output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Plays one turn of the rally scenario on `server`.
fn play_a_turn(server: &Server, game: &str, allies: &str, axis: &str, t: &Transcript) {
    let (_, state) = get(&server.url(&format!("/games/{game}/state")), t);
    for (side, decision) in a_turn(&state["state"]) {
        let (status, v) = decide(server, game, if side == "allies" { allies } else { axis }, decision, t);
        assert_eq!(status, 200, "{v}");
    }
}

/// Given a sealed game served from sled, when it is copied to PostgreSQL
/// (`store copy`), then a server over PostgreSQL goes on with it (same
/// tokens, same chain, heads signed by the key its header names); copied
/// back to a new sled store, a server there finishes it; every turn's
/// reveal verifies offline; and no chain value appears in what `store copy`
/// prints or in what a server sends before its turn ends.
#[test]
fn a_sealed_game_copied_between_sled_and_postgres_is_served_on_and_its_reveals_verify() {
    let Some(db) = postgres_support::Database::new("a_sealed_game_copied_between_sled_and_postgres") else { return };
    let dir = tempfile::tempdir().unwrap();
    let (first, back) = (dir.path().join("db"), dir.path().join("back"));
    let t = Transcript::default();
    let server = Server::start(&first, TURNS);
    let (allies, axis) = sealed_game(&server, "copied", &t);
    play_a_turn(&server, "copied", &allies, &axis, &t);
    server.stop();
    let mut printed = copy_store(first.to_str().unwrap(), &db.url);
    let server = Server::on_postgres(&db.url, TURNS);
    play_a_turn(&server, "copied", &allies, &axis, &t);
    let signed = {
        let (_, status) = get(&server.url("/games/copied"), &t);
        let key = status["header"]["seed"]["server"]["key"].as_str().unwrap().to_string();
        let (s, v) = decide(&server, "copied", &allies, json!({"type": "begin-turn", "first": "allies"}), &t);
        assert_eq!(s, 200, "{v}");
        (key, v)
    };
    let log = server.stop();
    printed += &copy_store(&db.url, back.to_str().unwrap());
    let server = Server::start(&back, TURNS);
    let report = ended_and_verified(server, "copied", &axis, dir.path(), &t);
    assert_eq!(report["dice_proven"], true, "{report}");
    let turns = report["sealed"]["turns"].as_array().unwrap();
    assert!(turns.len() >= 3 && turns.iter().all(|x| x["status"] == "proven"), "{report}");
    // The head the PostgreSQL server signed is signed by the header's key.
    let key = rollcall_core::keys::PublicKey::from_hex(&signed.0).unwrap();
    let head: rollcall_core::log::Head = serde_json::from_value(signed.1["head"].clone()).unwrap();
    let signature = signed.1["head_signature"].as_str().and_then(|s| rollcall_core::keys::Signature::from_hex(s).ok());
    assert!(
        signature.is_some_and(|sig| key.verifies(&rollcall_core::sealed::head_message("copied", &head), &sig)),
        "a head signed by the key the header names: {}",
        signed.1
    );
    // No chain value in what the copies printed or what the PostgreSQL server logged.
    let store = rollcall_store::SledLog::open(&back).unwrap();
    let chain = rollcall_core::sealed::Chain::from_bytes(
        &rollcall_core::log::EventLog::secret(&store, "chain/copied").unwrap().unwrap(),
    )
    .unwrap();
    for k in 1..=chain.length() {
        let value = chain.value(k).unwrap().to_string();
        assert!(!printed.contains(&value) && log.iter().all(|l| !l.contains(&value)), "x_{k} leaked");
    }
}

/// Given a server that has just said where it listens, when it is sent
/// SIGTERM at once (as a supervisor may), then it stops cleanly, exit 0,
/// every time: it handles the signal before it says it is up.
#[test]
fn a_server_stopped_as_soon_as_it_listens_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..20 {
        let log = Server::start(&dir.path().join("db"), TURNS).stop();
        assert!(log.iter().any(|l| l.contains("stopped cleanly")), "{log:?}");
    }
}

/// Given a game a server waits on for its shares (one of two given), when
/// the store is copied (`store copy`) to a new store, then a server over
/// the copy takes the last share with the token handed out before, begins
/// the game and plays it, and its record verifies with every die proven; a
/// second copy skips it; and a copy into a store whose server signs with
/// another key is refused, exit 2, leaving no trace of the game there.
#[test]
fn a_game_waiting_for_its_shares_is_carried_by_store_copy_and_begins_in_the_copy() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second, other) = (dir.path().join("db"), dir.path().join("copy"), dir.path().join("other"));
    let t = Transcript::default();
    let server = Server::start(&first, TURNS);
    let body = json!({"game": "invited", "rules": "leader-activation@1", "scenario": scenario(), "sides": [
        {"name": "allies", "key": SecretKey::from_bytes([1; 32]).public().to_hex()},
        {"name": "axis", "key": SecretKey::from_bytes([2; 32]).public().to_hex()}]});
    let (status, created) = post(&server.url("/games"), None, &body, &t);
    assert_eq!(status, 201, "{created}");
    let token = |side: &str| created["tokens"][side].as_str().unwrap().to_string();
    let (allies, axis) = (token("allies"), token("axis"));
    let share = |n: u8| json!({"share": rollcall_core::digest::hex32(&[n; 32])});
    let (s, v) = post(&server.url("/games/invited/share"), Some(&allies), &share(7), &t);
    assert_eq!((s, &v["started"]), (200, &json!(false)), "{v}");
    server.stop();

    let printed = copy_store(first.to_str().unwrap(), second.to_str().unwrap());
    assert!(printed.contains("copied invited: waiting for its sides' shares (1 of 2 given)"), "{printed}");
    let again = copy_store(first.to_str().unwrap(), second.to_str().unwrap());
    assert!(again.contains("skipped invited: the target's server waits on it already"), "{again}");

    let server = Server::start(&second, TURNS);
    let (s, v) = post(&server.url("/games/invited/share"), Some(&allies), &share(9), &t);
    assert_eq!(s, 409, "a share given in the source is given in the copy: {v}");
    let (s, v) = post(&server.url("/games/invited/share"), Some(&axis), &share(8), &t);
    assert_eq!((s, &v["started"]), (200, &json!(true)), "{v}");
    play_a_turn(&server, "invited", &allies, &axis, &t);
    let report = ended_and_verified(server, "invited", &axis, dir.path(), &t);
    assert_eq!(report["dice_proven"], true, "{report}");

    // A store whose server has a key of its own: refused, nothing written.
    Server::start(&other, TURNS).stop();
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .env_remove("ROLLCALL_DB")
        .env_remove("ROLLCALL_STORE")
        .args(["store", "copy", "--from", first.to_str().unwrap(), "--to", other.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("invited") && said.contains("is not the key the target's servers sign with"), "{said}");
    let store = rollcall_store::SledLog::open(&other).unwrap();
    use rollcall_core::log::EventLog;
    assert_eq!(store.note("serve/waiting/invited").unwrap(), None);
    assert_eq!(store.secret("chain/invited").unwrap(), None);
    assert!(store.notes("serve/token/invited/").unwrap().is_empty());
}

/// A stand-in dice server on loopback for `play --server`: it says the
/// game's head and server key, and answers a decision with `answer`; one
/// request a connection, for `requests` requests.
fn stand_in_server(key: &rollcall_core::keys::PublicKey, answer: Value, requests: usize) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let status =
        json!({"head": {"seq": 0, "hash": "0".repeat(64)}, "header": {"seed": {"server": {"key": key.to_hex()}}}});
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut request, mut length) = (String::new(), 0);
            reader.read_line(&mut request).unwrap();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = n.trim().parse().unwrap();
                }
                if line.trim().is_empty() {
                    break;
                }
            }
            reader.read_exact(&mut vec![0; length]).unwrap();
            let body = if request.starts_with("POST") { answer.to_string() } else { status.to_string() };
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(reply.as_bytes()).unwrap();
        }
    });
    url
}

/// Given a server whose answer's head is signed by its key, or by another
/// (forged), when `play --server` plays on it in text and in JSON, then a
/// good signature exits 0 and a forged one 1 (a failed verification) in
/// either mode, and says so.
#[test]
fn play_on_a_server_whose_head_signature_is_forged_fails_in_text_and_json() {
    use rollcall_core::log::Head;
    let dir = tempfile::tempdir().unwrap();
    let decision = dir.path().join("decision.json");
    std::fs::write(&decision, r#"{"type": "begin-turn", "first": "allies"}"#).unwrap();
    let server = SecretKey::from_bytes([9; 32]);
    let head = json!({"seq": 1, "hash": "ab".repeat(32)});
    let message = rollcall_core::sealed::head_message("g", &serde_json::from_value::<Head>(head.clone()).unwrap());
    for (signer, code, said) in [(&server, 0, "checked"), (&SecretKey::from_bytes([8; 32]), 1, "NOT VALID")] {
        let answer = json!({"game": "g", "head": head, "head_signature": signer.sign(&message).to_hex(),
            "events": [{"kind": "decision", "narrative": "Turn 1 begins."}]});
        let url = stand_in_server(&server.public(), answer, 4);
        for json in [false, true] {
            let db = dir.path().join("db");
            let mut args = vec!["--db", db.to_str().unwrap(), "play", "--server", &url, "--token", "t", "g"];
            args.extend([decision.to_str().unwrap()].into_iter().chain(json.then_some("--json")));
            let out = Command::new(env!("CARGO_BIN_EXE_rollcall")).args(&args).output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(code), "{args:?}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
            if json {
                let v: Value = serde_json::from_str(&stdout).unwrap();
                assert_eq!(
                    (v["ok"].as_bool(), v["head_signature_valid"].as_bool()),
                    (Some(code == 0), Some(code == 0))
                );
                assert_eq!(v["answer"]["head"], head);
            } else {
                assert!(
                    stdout.contains(&format!("head {} (signed by the server: {said})", "ab".repeat(32))),
                    "{stdout}"
                );
                assert!(stdout.starts_with("Turn 1 begins.\n"), "{stdout}");
            }
        }
    }
}

/// `GET /games/{id}/moves`: what a side may do now, read without a token,
/// from the written state alone — the same listing `rollcall moves --json`
/// makes of the record. A short sealed game is played from it alone: each
/// time the side awaited sends the first of its own entries (else the
/// referee's), filled with its examples, and every one is accepted.
#[test]
fn the_moves_route_lists_what_a_side_may_do_and_each_entry_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), TURNS);
    let t = Transcript::default();
    let (allies, axis) = sealed_game(&server, "friday", &t);
    for _ in 0..12 {
        let (status, listing) = get(&server.url("/games/friday/moves"), &t);
        assert_eq!(status, 200, "{listing}");
        let entries: Vec<&Value> =
            listing["groups"].as_array().unwrap().iter().flat_map(|g| g["entries"].as_array().unwrap()).collect();
        let entry = entries.iter().find(|e| e["referee"] == false).or(entries.first()).expect("something is legal");
        let mut decision = entry["decision"].clone();
        for field in entry["fields"].as_array().unwrap() {
            decision[field["name"].as_str().unwrap()] = field["example"].clone();
        }
        let token = if listing["awaited"] == "axis" { &axis } else { &allies };
        let (status, v) = decide(&server, "friday", token, decision.clone(), &t);
        assert_eq!(status, 200, "{} listed {decision}: {v}", listing["awaited"]);
    }
    let (status, listing) = get(&server.url("/games/friday/moves?side=axis"), &t);
    assert_eq!((status, listing["side"].as_str()), (200, Some("axis")));
    // The record's listing, by the binary, is the same document.
    let path = dir.path().join("friday.jsonl");
    std::fs::write(&path, record(&server, "friday")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .args(["moves", path.to_str().unwrap(), "--side", "axis", "--json"])
        .output()
        .unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), listing);
    let (status, referee) = get(&server.url("/games/friday/moves?side=referee"), &t);
    assert_eq!(status, 200);
    assert!(referee["groups"].as_array().unwrap().iter().all(|g| g["referee"] == true), "{referee}");
    let (status, v) = get(&server.url("/games/friday/moves?side=neutrals"), &t);
    assert_eq!((status, v["error"].as_str()), (400, Some("malformed")), "{v}");
    assert!(v["message"].as_str().unwrap().contains("\"neutrals\" is not a side of this game"), "{v}");
    let (status, _) = get(&server.url("/games/nowhere/moves"), &t);
    assert_eq!(status, 404);
    server.stop();
}

/// `rollcall` run with `args`, against no store of its own that matters.
fn rollcall_cli(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rollcall")).arg("--db").arg(dir.join("local")).args(args).output().unwrap()
}

#[test]
fn a_player_lists_and_picks_moves_on_the_server_without_writing_json() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("db"), TURNS);
    let t = Transcript::default();
    let (allies, axis) = sealed_game(&server, "pick", &t);
    let url = server.url("");
    let (s, v) = decide(&server, "pick", &allies, json!({"type": "begin-turn", "first": "allies"}), &t);
    assert_eq!(s, 200, "{v}");
    // Given allies to activate, when allies lists its moves through the
    // server, then it sees the route's own listing, in words or in JSON.
    let out = rollcall_cli(dir.path(), &["moves", "pick", "--server", &url, "--token", &allies, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let route = ureq::get(&server.url("/games/pick/moves")).set("Authorization", &format!("Bearer {allies}"));
    assert_eq!(listed, call(route, None, &t).1, "moves --server prints the server's listing");
    assert_eq!(listed["side"], "allies");
    let first = &listed["groups"][0]["entries"][0];
    assert_eq!(first["decision"]["type"], "activate", "{listed}");
    // The token from the environment, as the guide has a player export it;
    // set, it does not stand in the way of a game in the player's own store.
    let with_env = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_rollcall"))
            .env("ROLLCALL_TOKEN", &allies)
            .arg("--db")
            .arg(dir.path().join("local"))
            .args(args)
            .output()
            .unwrap()
    };
    let out = with_env(&["moves", "pick", "--server", &url]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("What allies may do now:"), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let out = with_env(&["moves", "pick"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code() == Some(2) && err.contains("no store at"), "the local store is read: {err}");
    let out = rollcall_cli(dir.path(), &["moves", "pick", "--server", &url, "--token", &allies]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("What allies may do now:") && text.contains("--server URL --token T"), "{text}");
    // Neither a file nor a pick: told both ways to play, and the page's address.
    let out = rollcall_cli(dir.path(), &["play", "pick", "--server", &url, "--token", &allies]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--pick N") && err.contains(&format!("{}/games/pick/play", url.trim_end_matches('/'))),
        "{err}"
    );
    // A pick that names no entry, or a token not of the game: exit 2, nothing sent.
    let before = head(&server, "pick", &t);
    let out = rollcall_cli(dir.path(), &["play", "pick", "--server", &url, "--token", &allies, "--pick", "99"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--pick 99") && err.contains("rollcall moves pick --server"), "{err}");
    let out = rollcall_cli(dir.path(), &["play", "pick", "--server", &url, "--token", &"0".repeat(64), "--pick", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(head(&server, "pick", &t), before, "nothing was written");
    // When allies picks the first entry, then the server decides it and
    // signs the new head, as for a decision file.
    let out =
        rollcall_cli(dir.path(), &["play", "pick", "--server", &url, "--token", &allies, "--pick", "1", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((report["ok"].as_bool(), report["head_signature_valid"].as_bool()), (Some(true), Some(true)));
    assert_eq!(report["answer"]["events"][0]["body"]["decision"], first["decision"], "{report}");
    assert_ne!(head(&server, "pick", &t), before);
    // Axis's token lists axis's moves: with allies' leader active, axis
    // has nothing of its own, and a pick of an own move names that.
    let out = rollcall_cli(dir.path(), &["moves", "pick", "--server", &url, "--token", &axis, "--json"]);
    let axis_list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(axis_list["side"], "axis", "{axis_list}");
    let own = axis_list["groups"].as_array().unwrap().iter().filter(|g| g["referee"] != true).count();
    assert_eq!(own, 0, "{axis_list}");
    let out = rollcall_cli(dir.path(), &["play", "pick", "--server", &url, "--token", &axis, "--pick", "activate"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--pick activate"), "{err}");
    server.stop();
}
