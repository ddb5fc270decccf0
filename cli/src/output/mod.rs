//! What the commands print, and the one printer that prints it: a command
//! returns a [`Report`], and [`print()`] renders it once, as human text or as
//! one JSON document (`--json`). A command that prints as it goes (`log`,
//! `replay`, `run`, `play --stream`) hands each [`Item`] to a [`Stream`]
//! ([`stream`]), which holds no more than a line. Beside the printer: the
//! exit codes and the error document ([`exit`]), colour for verdicts
//! ([`colour`]), progress bars on standard error ([`progress`]), and "did
//! you mean" for a misspelt word ([`suggest`]).

pub mod colour;
pub mod exit;
pub mod files;
pub mod listing;
pub mod progress;
pub mod record;
mod series;
mod stream;
pub mod suggest;
pub mod view;

pub use series::Series;
pub use stream::{print_error_json, Item, Stream};

use std::io::Write;
use std::process::ExitCode;

use rollcall_core::text;
use serde_json::Value;

use crate::fail::{Context, Fail};

use crate::output::colour::Verdict;

/// How a command prints what it found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Lines for a person.
    Text,
    /// One JSON document for a program (`--json`).
    Json,
}

impl Mode {
    /// The mode a command's `--json` flag asks for.
    pub fn of(json: bool) -> Mode {
        if json {
            Mode::Json
        } else {
            Mode::Text
        }
    }
}

/// What a command found, which [`print()`] renders in either mode.
pub trait Report {
    /// The lines a person reads (escaped as `say!` escapes them when printed).
    fn text(&self) -> Vec<String>;

    /// The JSON document.
    fn json(&self) -> Value;

    /// The line of [`Report::text`] that is a verdict, and how it went:
    /// that line is printed in the verdict's colour.
    fn verdict(&self) -> Option<(Line, Verdict)> {
        None
    }

    /// The exit code the command ends with.
    fn code(&self) -> ExitCode {
        ExitCode::SUCCESS
    }
}

/// A report whose lines and document are made together, when the command
/// has done its work (`pbem`, `turn`, `fork show`, the store commands).
pub struct Said {
    /// The lines a person reads.
    pub lines: Vec<String>,
    /// The JSON document.
    pub json: Value,
    /// The exit code.
    pub code: ExitCode,
    /// The line that is a verdict, and how it went.
    pub verdict: Option<(Line, Verdict)>,
}

impl Said {
    /// A report of work done: exit 0.
    pub fn done(lines: Vec<String>, json: Value) -> Said {
        Said { lines, json, code: ExitCode::SUCCESS, verdict: None }
    }
}

impl Report for Said {
    fn text(&self) -> Vec<String> {
        self.lines.clone()
    }

    fn json(&self) -> Value {
        self.json.clone()
    }

    fn code(&self) -> ExitCode {
        self.code
    }

    fn verdict(&self) -> Option<(Line, Verdict)> {
        self.verdict
    }
}

/// A line of a report's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// The line at this index.
    At(usize),
    /// The last line.
    Last,
}

/// Prints `report` in `mode`; returns its exit code.
pub fn print(report: &dyn Report, mode: Mode) -> ExitCode {
    match mode {
        Mode::Json => print_json(&report.json()),
        Mode::Text => {
            let lines = report.text();
            let verdict = report.verdict().map(|(line, verdict)| match line {
                Line::At(i) => (i, verdict),
                Line::Last => (lines.len().saturating_sub(1), verdict),
            });
            for (i, line) in lines.iter().enumerate() {
                match verdict {
                    Some((at, verdict)) if at == i => crate::output::colour::say(line, verdict),
                    _ => say!("{line}"),
                }
            }
        }
    }
    report.code()
}

/// Prints `report` in `mode` on standard error (when standard output
/// carries what the command wrote, as `export -o -`); returns its exit code.
pub fn print_on_stderr(report: &dyn Report, mode: Mode) -> ExitCode {
    match mode {
        Mode::Json => {
            let text = serde_json::to_string_pretty(&report.json()).expect("JSON values print");
            eprintln!("{}", text::escape_json(&text));
        }
        Mode::Text => report.text().iter().for_each(|line| eprintln!("{}", text::escape_lines(line))),
    }
    report.code()
}

/// A line only a person reads: printed in text, not in JSON.
pub fn note(mode: Mode, line: impl FnOnce() -> String) {
    if mode == Mode::Text {
        say!("{}", line());
    }
}

/// A line of text on standard output, every control character but the
/// newline escaped (`rollcall_core::text::escape_lines`): what the `say!`
/// macro prints, for a command whose text has no JSON form (the demo's
/// tour, a file written).
pub fn say(line: &str) {
    println!("{}", text::escape_lines(line));
}

/// [`say`] without the line's end.
pub fn show(text: &str) {
    print!("{}", text::escape_lines(text));
}

/// A document written to standard output as it is, byte for byte (a shell's
/// completion script, which is rollcall's own text, not a record's).
pub fn document(bytes: &[u8]) -> Result<(), Fail> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush()).context("stdout")
}

/// Prints one JSON document; characters serde_json leaves raw that a
/// terminal would act on are escaped (the same JSON value).
pub fn print_json(value: &Value) {
    let text = serde_json::to_string_pretty(value).expect("JSON values print");
    println!("{}", text::escape_json(&text));
}

/// Whether standard output holds a document whose streamed array
#[cfg(test)]
mod tests {
    use super::*;

    struct Found(u32);

    impl Report for Found {
        fn text(&self) -> Vec<String> {
            vec![format!("found {}", self.0)]
        }
        fn json(&self) -> Value {
            serde_json::json!({"found": self.0})
        }
        fn code(&self) -> ExitCode {
            ExitCode::from(if self.0 == 0 { 1 } else { 0 })
        }
    }

    #[test]
    fn the_printer_returns_the_reports_exit_code_in_either_mode() {
        assert_eq!(print(&Found(0), Mode::Json), ExitCode::from(1));
        assert_eq!(print(&Found(2), Mode::Text), ExitCode::SUCCESS);
        assert_eq!(Mode::of(true), Mode::Json);
        assert_eq!(Mode::of(false), Mode::Text);
    }
}
