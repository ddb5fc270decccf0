//! The CLI against a dice server: `play --server`, `turn fetch`, `verify URL`.

use std::process::ExitCode;
use std::time::Duration;

use rollcall_core::keys::{PublicKey, Signature};
use rollcall_core::log::{EventLog, Head};
use rollcall_core::pbem::exchange;
use rollcall_core::sealed::head_message;
use serde_json::{json, Value};

use crate::colour::Verdict;
use crate::output::{print_json, Line, Mode, Report};
use crate::store::{self, read_text, Fail};

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().timeout(Duration::from_secs(60)).build()
}

/// A server's answer: its status and JSON (or text) body.
pub struct Answer {
    pub status: u16,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The server's message, for a refusal.
    fn message(&self) -> String {
        let v = self.json();
        match v["message"].as_str() {
            Some(m) => format!("{m} ({} {})", self.status, v["error"].as_str().unwrap_or("")),
            None => format!("HTTP {}: {}", self.status, self.body.trim()),
        }
    }
}

fn send(request: ureq::Request, body: Option<&Value>) -> Result<Answer, Fail> {
    let url = request.url().to_string();
    let result = match body {
        Some(b) => request.set("Content-Type", "application/json").send_string(&b.to_string()),
        None => request.call(),
    };
    match result {
        Ok(r) => Ok(Answer { status: r.status(), body: r.into_string().map_err(|e| fail!("{url}: {e}"))? }),
        Err(ureq::Error::Status(status, r)) => Ok(Answer { status, body: r.into_string().unwrap_or_default() }),
        Err(ureq::Error::Transport(t)) => Err(fail!("{url}: cannot reach the server: {t}")),
    }
}

pub fn get(url: &str) -> Result<Answer, Fail> {
    send(agent().get(url), None)
}

pub fn post(url: &str, token: Option<&str>, body: &Value) -> Result<Answer, Fail> {
    let mut request = agent().post(url);
    if let Some(t) = token {
        request = request.set("Authorization", &format!("Bearer {t}"));
    }
    send(request, Some(body))
}

fn base(url: &str) -> &str {
    url.trim_end_matches('/')
}

/// `rollcall play --server URL --token T GAME FILE|-`: the decisions (one, or
/// a JSON array played all or nothing) on the game's head, through the server.
pub fn play(args: &crate::args::PlayArgs, mode: Mode) -> Result<ExitCode, Fail> {
    let json_out = mode == Mode::Json;
    let (url, token) = (args.server.as_deref().unwrap_or_default(), args.token.as_deref().unwrap_or_default());
    let (game, source) = (args.game.as_str(), args.decision.as_deref().unwrap_or("-"));
    let name = if source == "-" { "<stdin>" } else { source };
    let text = read_text(source)?;
    let value: Value = serde_json::from_str(&text).map_err(|e| fail!("{name}:{}: not JSON: {e}", e.line()))?;
    let status = get(&format!("{}/games/{game}", base(url)))?;
    if status.status != 200 {
        return Err(fail!("{url}: game {game}: {}", status.message()));
    }
    let status = status.json();
    let head = status["head"]["hash"].as_str().ok_or_else(|| fail!("game {game} has not begun"))?;
    let body = match value {
        Value::Array(many) => json!({"expected_head": head, "decisions": many}),
        one => json!({"expected_head": head, "decision": one}),
    };
    let answer = post(&format!("{}/games/{game}/decisions", base(url)), Some(token), &body)?;
    if answer.status != 200 {
        // 403 (not your side's decision) and 422 (the rules refuse it) are
        // refusals of a well-formed decision: exit 3, as a local `play`.
        let refused = matches!(answer.status, 403 | 422);
        let (kind, code) = if refused { ("refused", crate::exit::REFUSED) } else { ("input", crate::exit::INPUT) };
        if json_out {
            print_json(&json!({"ok": false, "status": answer.status, "answer": answer.json(),
                "error": {"kind": kind, "exit": code, "message": answer.message()}}));
            return Ok(ExitCode::from(code));
        }
        let message = format!("{name}: {} (nothing was written)", answer.message());
        return if refused { Ok(crate::exit::refused(&message, None, Mode::Text)) } else { Err(Fail::msg(message)) };
    }
    let v = answer.json();
    let server_key = status["header"]["seed"]["server"]["key"].as_str().and_then(|k| PublicKey::from_hex(k).ok());
    let signed = check_head_signature(server_key.as_ref(), game, &v);
    Ok(crate::output::print(&Played { answer: v, signed }, mode))
}

/// `play --server`: the server's answer, and whether its head signature
/// is the server's. A signature that is not is a failed verification
/// (exit 1) in either mode.
struct Played {
    answer: Value,
    signed: bool,
}

impl Report for Played {
    fn text(&self) -> Vec<String> {
        let events = self.answer["events"].as_array().into_iter().flatten();
        let mut lines: Vec<String> = events
            .map(|e| {
                let line = e["narrative"].as_str().unwrap_or_default();
                if e["kind"] == "decision" {
                    line.to_string()
                } else {
                    format!("    {line}")
                }
            })
            .collect();
        if let Some(refused) = self.answer.get("refused") {
            lines.push(format!(
                "{} (the {} decision(s) before it drew a sealed die, so they are written and signed; the rest is not)",
                refused["message"].as_str().unwrap_or_default(),
                self.answer["written"]
            ));
        }
        lines.push(format!(
            "head {} (signed by the server: {})",
            self.answer["head"]["hash"].as_str().unwrap_or_default(),
            if self.signed { "checked" } else { "NOT VALID" }
        ));
        lines
    }

    fn verdict(&self) -> Option<(Line, Verdict)> {
        Some((Line::Last, if self.signed { Verdict::Good } else { Verdict::Bad }))
    }

    fn json(&self) -> Value {
        let complete = self.answer.get("refused").is_none();
        json!({"ok": self.signed && complete, "complete": complete, "answer": self.answer, "head_signature_valid": self.signed})
    }

    /// A forged head signature fails (1); a batch refused part-way, its
    /// first decisions written, is a refusal (3).
    fn code(&self) -> ExitCode {
        if !self.signed {
            ExitCode::from(crate::exit::FAILED)
        } else if self.answer.get("refused").is_some() {
            ExitCode::from(crate::exit::REFUSED)
        } else {
            ExitCode::SUCCESS
        }
    }
}

fn check_head_signature(key: Option<&PublicKey>, game: &str, answer: &Value) -> bool {
    let (Some(key), Ok(head), Some(sig)) = (
        key,
        serde_json::from_value::<Head>(answer["head"].clone()),
        answer["head_signature"].as_str().and_then(|s| Signature::from_hex(s).ok()),
    ) else {
        return false;
    };
    key.verifies(&head_message(game, &head), &sig)
}

/// `rollcall turn fetch URL GAME`: the events this store lacks, as a turn
/// file the server signs, verified and applied like an opponent's turn.
pub fn fetch(cx: &crate::checked::Checked, url: &str, game: &str) -> Result<ExitCode, Fail> {
    let log = store::open(&cx.db)?;
    let since = log.head(game).ok().map(|h| h.hash);
    let mut request = format!("{}/games/{game}/turn", base(url));
    if let Some(h) = since {
        request.push_str(&format!("?since={h}"));
    }
    let answer = get(&request)?;
    if answer.status != 200 {
        return Err(fail!("{request}: {}", answer.message()));
    }
    let applied = match exchange::apply(&log, &answer.body, rollcall_core::registry::builtin()) {
        Ok(a) => a,
        Err(e) => return crate::pbem::outcome(e, cx.mode),
    };
    let mut g = applied.before.clone();
    let mut lines = Vec::new();
    for e in &applied.events {
        g.apply(e).map_err(|e| Fail::msg(e.to_string()))?;
        lines.push(g.narrate(e));
    }
    lines.push(format!(
        "fetched {} events of {game} from {url}, verified (chain, legality; the dice of every revealed turn); head {}",
        applied.events.len(),
        applied.head.hash
    ));
    let json = json!({"ok": true, "game": game, "events": applied.events.len(), "head": applied.head, "created": applied.created});
    Ok(crate::output::print(&crate::output::Said::done(lines, json), cx.mode))
}

/// A record at a URL, downloaded to a temporary file for `verify`.
pub fn download(url: &str) -> Result<tempfile::NamedTempFile, Fail> {
    let answer = get(url)?;
    if answer.status != 200 {
        return Err(fail!("{url}: {}", answer.message()));
    }
    let mut file = tempfile::Builder::new().suffix(".jsonl").tempfile().map_err(|e| Fail::msg(e.to_string()))?;
    std::io::Write::write_all(&mut file, answer.body.as_bytes()).map_err(|e| Fail::msg(e.to_string()))?;
    Ok(file)
}
