//! `rollcall play --server URL --token T GAME FILE|-` (or `--pick N`):
//! decisions made through a dice server instead of this store.

use std::process::ExitCode;

use rollcall_core::keys::{PublicKey, Signature};
use rollcall_core::log::Head;
use rollcall_core::moves::FillError;
use rollcall_core::sealed::head_message;
use serde_json::{json, Value};

use crate::args::PlayArgs;
use crate::fail::Fail;
use crate::input::store::read_text;
use crate::output::colour::Verdict;
use crate::output::{print_json, Line, Mode, Report};
use crate::serve::client::{base, get, post};

/// `rollcall play --server URL --token T GAME FILE|-`: the decisions (one, or
/// a JSON array played all or nothing) on the game's head, through the server.
pub fn play(args: &PlayArgs, mode: Mode) -> Result<ExitCode, Fail> {
    let source = args.decision.as_deref().unwrap_or("-");
    let name = if source == "-" { "<stdin>" } else { source };
    let text = read_text(source)?;
    let value: Value = serde_json::from_str(&text).map_err(|e| fail!("{name}:{}: not JSON: {e}", e.line()))?;
    send(args, value, name, mode)
}

/// `rollcall play --server URL --token T GAME --pick N [FIELD=VALUE…]`: the
/// entry picked from the server's listing for the token's side (or
/// `--side`), its fields filled in as `play --pick` fills them, sent as a
/// decision file's would be. A pick or field that does not read exits 2
/// and sends nothing.
pub fn play_picked(args: &PlayArgs, mode: Mode) -> Result<ExitCode, Fail> {
    let (url, token) = (args.server.as_deref().unwrap_or_default(), args.token.as_deref());
    let (game, picked) = (args.game.as_str(), args.pick.as_deref().unwrap_or_default());
    let typed: Vec<String> = args.decision.iter().chain(&args.fields).cloned().collect();
    let given = super::pick::given_fields(&typed)?;
    let (listing, _) = crate::commands::moves::server_listing(url, game, args.side.as_deref(), token)?;
    let see = format!("see `rollcall moves {game} --server {url}`");
    let entry = listing.pick(picked).map_err(|e| fail!("--pick {picked}: {e} ({see})"))?;
    let decision = entry.fill(&given, false).map_err(|e| {
        let hint = if matches!(e, FillError::Missing { .. }) { ": give each as FIELD=VALUE" } else { "" };
        fail!("--pick {picked} ({}): {e}{hint}", entry.pick)
    })?;
    send(args, decision, &format!("--pick {picked} ({})", entry.pick), mode)
}

/// Sends `value` (one decision, or an array played in order) on the game's
/// head, and reports the server's answer; `name` says where it came from.
fn send(args: &PlayArgs, value: Value, name: &str, mode: Mode) -> Result<ExitCode, Fail> {
    let json_out = mode == Mode::Json;
    let (url, token) = (args.server.as_deref().unwrap_or_default(), args.token.as_deref().unwrap_or_default());
    let game = args.game.as_str();
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
        let (kind, code) =
            if refused { ("refused", crate::output::exit::REFUSED) } else { ("input", crate::output::exit::INPUT) };
        if json_out {
            print_json(&json!({"ok": false, "status": answer.status, "answer": answer.json(),
                "error": {"kind": kind, "exit": code, "message": answer.message()}}));
            return Ok(ExitCode::from(code));
        }
        let message = format!("{name}: {} (nothing was written)", answer.message());
        return if refused {
            Ok(crate::output::exit::refused(&message, None, Mode::Text))
        } else {
            Err(Fail::msg(message))
        };
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
            ExitCode::from(crate::output::exit::FAILED)
        } else if self.answer.get("refused").is_some() {
            ExitCode::from(crate::output::exit::REFUSED)
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// Whether the server's `head_signature` in `answer` is `key`'s over its `head`.
pub(super) fn check_head_signature(key: Option<&PublicKey>, game: &str, answer: &Value) -> bool {
    let (Some(key), Ok(head), Some(sig)) = (
        key,
        serde_json::from_value::<Head>(answer["head"].clone()),
        answer["head_signature"].as_str().and_then(|s| Signature::from_hex(s).ok()),
    ) else {
        return false;
    };
    key.verifies(&head_message(game, &head), &sig)
}
