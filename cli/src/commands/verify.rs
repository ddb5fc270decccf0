//! `rollcall verify TARGET...`: what a record proves (seeds, legality,
//! facts, chain), or the first place where it fails.

use std::process::ExitCode;

use rollcall_core::fault::Fault;
use rollcall_core::game::{Verified, Verifier, VerifyFailure};
use rollcall_core::log::EventLog;
use rollcall_core::record::Header;
use rollcall_core::Digest;
use serde_json::{json, Value};

use crate::fail::Fail;
use crate::input;
use crate::input::checked::Checked;
use crate::input::source::Target;
use crate::output::colour::Verdict;
use crate::output::record::verified_json;
use crate::output::{self, Line, Mode, Report, Series};

/// `rollcall verify TARGET`: what a record proves, or the first place where
/// it fails.
struct VerifyReport {
    target: String,
    outcome: Result<(Verified, Header), VerifyFailure>,
    /// The transport noise normalised away in a record file, described.
    normalised: Option<String>,
}

impl VerifyReport {
    fn new(
        target: &str,
        header: Header,
        result: Result<Verified, VerifyFailure>,
        expect_head: Option<&str>,
        normalised: Option<String>,
    ) -> VerifyReport {
        let outcome = result.and_then(|v| match expect_head {
            Some(want) if want != v.head.to_string() => Err(VerifyFailure {
                seq: Some(v.events),
                kind: Fault::HeadDiffers,
                reason: format!(
                    "the record ends at head {}, not the expected {want}: events were dropped or added at the end",
                    v.head
                ),
            }),
            _ => Ok((v, header)),
        });
        VerifyReport { target: target.to_string(), outcome, normalised }
    }
}

impl Report for VerifyReport {
    fn text(&self) -> Vec<String> {
        let what = &self.target;
        let mut lines = Vec::new();
        if let Some(noise) = &self.normalised {
            lines.push(format!(
                "normalised transport noise in {what}: {noise} (not content: the hashes are over the lines without it)"
            ));
        }
        match &self.outcome {
            Ok((v, header)) => {
                lines.push(format!(
                    "verified {what}: {}, {} events, {} decisions, turn {}",
                    header.rules.label(),
                    v.events,
                    v.decisions,
                    v.turn
                ));
                lines.push(format!("head {}", v.head));
                lines.push(format!("proven: {}.", v.guarantee()));
                lines.extend(v.signatures().map(|signatures| format!("{signatures}.")));
                lines.extend(v.sealed.as_ref().map(|sealed| format!("dice: {}.", sealed.describe())));
            }
            Err(f) => lines.push(format!("verification FAILED for {what}: {f}")),
        }
        lines
    }

    fn verdict(&self) -> Option<(Line, Verdict)> {
        let at = Line::At(usize::from(self.normalised.is_some()));
        Some((at, if self.outcome.is_ok() { Verdict::Good } else { Verdict::Bad }))
    }

    fn json(&self) -> Value {
        match &self.outcome {
            Ok((v, header)) => {
                let mut out = verified_json(&self.target, v, header);
                out["normalised"] = json!(self.normalised);
                out
            }
            Err(f) => json!({"ok": false, "target": self.target, "seq": f.seq, "fault": f.kind, "reason": f.reason,
                "normalised": self.normalised}),
        }
    }

    fn code(&self) -> ExitCode {
        ExitCode::from(if self.outcome.is_ok() { 0 } else { 1 })
    }
}

/// `rollcall verify TARGET...`. One target prints its report (or fails
/// with its error, exit 2). Several are verified in turn: each report
/// printed as it comes (a target that cannot be read as a record prints its
/// error in its place, and the next is verified), then a tally; with
/// `--json`, one document listing each record's. The exit code is the
/// worst: 2 when a target could not be read, else 1 when a record failed.
pub fn verify_each_target(cx: &Checked, targets: &[String], expect_head: Option<String>) -> Result<ExitCode, Fail> {
    if let [target] = targets {
        return Ok(output::print(&verify(cx, target, expect_head)?, cx.mode));
    }
    if expect_head.is_some() {
        return Err(fail!(
            "--expect-head: it names one record's head, and {} targets were given: verify that record alone",
            targets.len()
        ));
    }
    let (mut failed, mut unreadable) = (Vec::new(), Vec::new());
    let mut series = Series::new(cx.mode);
    for target in targets {
        match verify(cx, target, None) {
            Ok(report) => {
                if report.outcome.is_err() {
                    failed.push(target.as_str());
                }
                series.push(&report);
            }
            Err(e) => {
                // Named, unless the error names it already.
                let message = match e.message() {
                    m if m.contains(target.as_str()) => m,
                    m => format!("{target}: {m}"),
                };
                let document = json!({"ok": false, "target": target,
                    "error": {"kind": "input", "exit": crate::output::exit::INPUT, "message": message}});
                series.push_error(&message, document);
                unreadable.push(target.as_str());
            }
        }
    }
    let proven = targets.len() - failed.len() - unreadable.len();
    let mut tally = format!("{} records: {proven} proven", targets.len());
    if !failed.is_empty() {
        tally += &format!(", {} FAILED ({})", failed.len(), failed.join(", "));
    }
    if !unreadable.is_empty() {
        tally += &format!(", {} not read ({})", unreadable.len(), unreadable.join(", "));
    }
    series.finish("records", &tally, failed.is_empty() && unreadable.is_empty());
    let code = match (unreadable.is_empty(), failed.is_empty()) {
        (false, _) => crate::output::exit::INPUT,
        (true, false) => crate::output::exit::FAILED,
        (true, true) => 0,
    };
    Ok(ExitCode::from(code))
}

fn verify(cx: &Checked, target: &str, expect_head: Option<String>) -> Result<VerifyReport, Fail> {
    let (db, mode) = (&cx.db, cx.mode);
    if let Some(h) = &expect_head {
        h.parse::<Digest>().map_err(|e| fail!("--expect-head: {e}"))?;
    }
    let quiet = mode == Mode::Json;
    let downloaded;
    let mut target = target;
    if target.starts_with("http://") || target.starts_with("https://") {
        downloaded = crate::serve::client::download(target)?;
        target = downloaded.path().to_str().unwrap_or_default();
    }
    if let Target::File(path) = Target::of(target) {
        if !path.is_file() {
            return Err(fail!("{target}: no such record file"));
        }
        let (header, events) = match rollcall_store::file::read(path) {
            Ok(read) => read,
            Err(e @ (rollcall_store::file::FileError::Io { .. } | rollcall_store::file::FileError::Refused { .. })) => {
                return Err(e.into())
            }
            Err(e) => {
                crate::input::source::refuse_script(path)?;
                let failure = VerifyFailure::at(None, Fault::Unreadable.because(e.to_string()));
                return Ok(VerifyReport { target: target.to_string(), outcome: Err(failure), normalised: None });
            }
        };
        let mut events = events;
        let bar = crate::output::progress::file("verify", path, quiet);
        let result = rollcall_store::file::verify(&header, &mut events, || crate::output::progress::tick(&bar));
        crate::output::progress::done(bar);
        let normalised = events.normalised().describe();
        return Ok(VerifyReport::new(target, header, result, expect_head.as_deref(), normalised));
    }
    let log = input::store::open_read(db)?;
    let header = log.header(target)?;
    let bar = crate::output::progress::events("verify", log.head(target)?.seq, quiet);
    let result = verify_lines(&header, target, log.lines(target, 1)?, || crate::output::progress::tick(&bar));
    crate::output::progress::done(bar);
    Ok(VerifyReport::new(target, header, result, expect_head.as_deref(), None))
}

/// Verifies the stored game `id` from its record lines, as verify of a
/// record file does ([`crate::input::source::take_stored_lines`]).
fn verify_lines(
    header: &Header,
    id: &str,
    lines: impl Iterator<Item = Result<String, rollcall_core::log::LogError>>,
    tick: impl FnMut(),
) -> Result<Verified, VerifyFailure> {
    let mut verifier = Verifier::new(header, rollcall_core::registry::builtin())?;
    crate::input::source::take_stored_lines(&mut verifier, id, lines, tick)?;
    verifier.finish().map(|(verified, _)| verified)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rollcall_core::log::LogError;
    use rollcall_core::record::Event;
    use rollcall_core::script::Script;

    /// A fixture's record: its header and its lines.
    fn record(fixture: &str) -> (Header, Vec<String>) {
        let path = format!("{}/../fixtures/leader-activation/{fixture}.json", env!("CARGO_MANIFEST_DIR"));
        let script =
            Script::parse(&std::fs::read_to_string(path).unwrap(), fixture, rollcall_core::registry::builtin())
                .unwrap();
        let mut lines = Vec::new();
        script.play(|_, e| lines.push(rollcall_core::record::encode_event(e).unwrap())).unwrap();
        (script.header, lines)
    }

    /// Verify of a stored game's lines gives what verify of its events, as
    /// the store reads them, gives: for the whole record, and with each line
    /// changed in turn (a number in it, or its JSON broken).
    #[test]
    fn verify_of_lines_is_verify_of_events() {
        let (header, lines) = record("rally");
        let of_events = |lines: &[String]| {
            let events: Vec<Result<Event, LogError>> = (1u64..)
                .zip(lines)
                .map(|(seq, l)| {
                    // As the store reads an event (`read_event`).
                    let corrupt = |reason: String| LogError::Corrupt { game: "rally".into(), seq, reason };
                    let event = rollcall_core::record::parse_event(l).map_err(|e| corrupt(e.to_string()))?;
                    if event.seq != seq {
                        return Err(corrupt(format!("stored under seq {seq} but says seq {}", event.seq)));
                    }
                    Ok(event)
                })
                .collect();
            rollcall_core::game::verify(&header, events, rollcall_core::registry::builtin()).map(|v| v.head)
        };
        let of_lines =
            |lines: &[String]| verify_lines(&header, "rally", lines.iter().cloned().map(Ok), || {}).map(|v| v.head);
        assert!(of_lines(&lines).is_ok());
        assert_eq!(of_lines(&lines), of_events(&lines));
        for i in 0..lines.len() {
            for changed in [lines[i].replacen('1', "2", 1), lines[i].replacen('{', "[", 1)] {
                let mut damaged = lines.clone();
                damaged[i] = changed;
                let (a, b) = (of_lines(&damaged), of_events(&damaged));
                assert!(a.is_err(), "line {i} changed was taken");
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "line {i}");
            }
        }
    }
}
