//! Reports printed one after another, as a command makes them (`verify` of
//! several records): in text each as it comes, a blank line between, then a
//! closing verdict line; in JSON one document at the end, the reports'
//! documents in a list. A report that could not be made is an error, said
//! on standard error in its place.

use serde_json::{json, Value};

use super::colour::{self, Verdict};
use super::{print, print_json, say, Mode, Report};

/// Reports printed one after another (see the module).
pub struct Series {
    mode: Mode,
    /// Reports printed so far, in text: each after the first, and the
    /// verdict, follows a blank line.
    printed: usize,
    /// Each report's document, in JSON.
    documents: Vec<Value>,
}

impl Series {
    pub fn new(mode: Mode) -> Series {
        Series { mode, printed: 0, documents: Vec::new() }
    }

    /// Prints `report` (in text), or keeps its document (in JSON).
    pub fn push(&mut self, report: &dyn Report) {
        match self.mode {
            Mode::Text => {
                if self.printed > 0 {
                    say("");
                }
                print(report, Mode::Text);
                self.printed += 1;
            }
            Mode::Json => self.documents.push(report.json()),
        }
    }

    /// A report that could not be made: `message` said on standard error;
    /// in JSON, `document` in its place.
    pub fn push_error(&mut self, message: &str, document: Value) {
        eprintln!("error: {}", rollcall_core::text::escape_lines(message));
        if self.mode == Mode::Json {
            self.documents.push(document);
        }
    }

    /// Ends the series: in text, `verdict`'s line in its colour; in JSON,
    /// one document, `{"ok": ok, key: [each document]}`.
    pub fn finish(self, key: &str, verdict: &str, ok: bool) {
        match self.mode {
            Mode::Text => {
                if self.printed > 0 {
                    say("");
                }
                colour::say(verdict, if ok { Verdict::Good } else { Verdict::Bad })
            }
            Mode::Json => {
                let mut document = json!({"ok": ok});
                document[key] = Value::Array(self.documents);
                print_json(&document)
            }
        }
    }
}
