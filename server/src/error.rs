//! A refusal of the dice server: a status (the HTTP one its answer
//! carries), a word a client can match, a message, and with a decision the
//! rules refuse, the kind of refusal. Every refusal writes nothing.

use rollcall_core::log::{Head, LogError};
use rollcall_core::refusal::RefusalKind;
use rollcall_core::ruleset::Refusal;
use serde_json::{json, Value};

/// A refusal, with the HTTP status it is answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    /// A word a client can match: `unauthorized`, `not-your-decision`, …
    pub code: &'static str,
    pub message: String,
    /// The game's head, with a stale-head refusal.
    pub head: Option<Head>,
    /// The kind of refusal, with a decision the rules refuse (boxed: an
    /// error stays small).
    pub refusal: Option<Box<RefusalKind>>,
}

impl ApiError {
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), head: None, refusal: None }
    }

    /// A refused decision's error, naming the kind of refusal.
    pub fn refused(status: u16, code: &'static str, message: impl Into<String>, refusal: &Refusal) -> ApiError {
        ApiError { refusal: Some(Box::new(refusal.kind())), ..ApiError::new(status, code, message) }
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({"error": self.code, "message": self.message});
        if let Some(head) = &self.head {
            v["head"] = json!(head);
        }
        if let Some(kind) = &self.refusal {
            v["refusal"] = refusal_json(**kind);
        }
        v
    }
}

pub(crate) fn storage(e: LogError) -> ApiError {
    match e {
        LogError::UnknownGame(g) => ApiError::new(404, "not-found", format!("no game {g:?} on this server")),
        other => ApiError::new(500, "storage", other.to_string()),
    }
}

pub(crate) fn not_found(game: &str) -> ApiError {
    ApiError::new(404, "not-found", format!("no game {game:?} on this server"))
}

/// A kind of refusal as the server's answers show it, `{"kind", "about"}`:
/// the document `rollcall … --json` prints for a refused decision.
fn refusal_json(kind: RefusalKind) -> Value {
    json!({"kind": kind.name, "about": kind.about})
}
