//! Exit codes a script can use, and the error document `--json` prints.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | fine |
//! | 1 | verification failed, the versions part, golden files differ, a turn is refused or forks |
//! | 2 | bad input or usage: the message names the file, line and field; nothing is written |
//! | 3 | a well-formed decision the rules refuse (or that is not the deciding side's to make); nothing is written |
//!
//! With `--json`, a failure that exits 2 or 3 also prints one JSON document
//! on standard output, `{"ok": false, "error": {"kind", "exit", "message"}}`,
//! whose `kind` is `"input"` (exit 2) or `"refused"` (exit 3). A decision
//! the rules refuse also carries `"refusal": {"kind", "about"}`: the kind's
//! stable kebab-case name (`rules refusals RULESET` lists them) and what it
//! means. When the failure comes part way through a streamed document
//! (`log --json` or `replay --json` on a record bad at event N), that
//! document is ended instead, its array closed and these two fields after
//! it: standard output is still one JSON document.

use std::process::ExitCode;

use rollcall_core::refusal::RefusalKind;
use rollcall_core::ruleset::Refusal;
use serde_json::json;
use serde_json::Value;

use crate::fail::Fail;
use crate::output::Mode;

/// A verification failed (a record, a server's signature), or versions part.
pub const FAILED: u8 = 1;
/// Bad input or usage.
pub const INPUT: u8 = 2;
/// A decision the rules refuse.
pub const REFUSED: u8 = 3;

fn fail(kind: &str, code: u8, message: &str, refusal: Option<RefusalKind>, mode: Mode) -> ExitCode {
    eprintln!("error: {message}");
    if mode == Mode::Json {
        let mut error = json!({"kind": kind, "exit": code, "message": message});
        if let Some(refusal) = refusal {
            error["refusal"] = refusal_json(refusal);
        }
        crate::output::print_error_json(&json!({"ok": false, "error": error}));
    }
    ExitCode::from(code)
}

/// A kind of refusal as `--json` and serve show it: `{"kind", "about"}`.
pub fn refusal_json(kind: RefusalKind) -> Value {
    json!({"kind": kind.name, "about": kind.about})
}

/// Bad input: says so (and, with `--json`, prints the error document); exit 2.
pub fn input(message: &str, mode: Mode) -> ExitCode {
    fail("input", INPUT, message, None, mode)
}

/// A decision the rules refuse, of a kind where it is known: says so (and,
/// with `--json`, prints the error document); exit 3. The caller has
/// written nothing.
pub fn refused(message: &str, refusal: Option<RefusalKind>, mode: Mode) -> ExitCode {
    fail("refused", REFUSED, message, refusal, mode)
}

/// The one mapping of a refused decision to an outcome: a malformed decision
/// is bad input (an error naming the field, exit 2), any other refusal is the
/// rules' (exit 3). `message` says the refusal where it was made (file, line,
/// field; [`placed`] for most inputs). The caller has written nothing.
pub fn refusal(refusal: Refusal, message: impl FnOnce(Refusal) -> String, mode: Mode) -> Result<ExitCode, Fail> {
    let kind = refusal.kind();
    let malformed = matches!(refusal, Refusal::Malformed { .. });
    let message = message(refusal);
    if malformed {
        Err(Fail::msg(message))
    } else {
        Ok(refused(&message, Some(kind), mode))
    }
}

/// A refusal said where `at(field)` places it (file, line, field; "" for the
/// decision as a whole).
pub fn placed(refusal: Refusal, at: impl Fn(&str) -> String) -> String {
    match refusal {
        Refusal::Malformed { field, message } => format!("{}: {message}", at(&field)),
        other => format!("{}: refused: {other}", at("")),
    }
}
