//! `rollcall diff`: a record under two rule versions, where they part and why.

use std::process::ExitCode;

use rollcall_core::diff::{Diff, DiffError, Divergence, Outcome, Report as DiffReport, Setup};
use rollcall_core::game::VerifyFailure;
use rollcall_core::log::EventLog;
use rollcall_core::record::Header;
use rollcall_core::rules::RuleVersion;
use rollcall_store::file::Events;
use serde_json::json;
use similar::TextDiff;

use crate::args::DiffArgs;
use crate::fail::Fail;
use crate::input::source;
use crate::input::source::{rule_version, Record};
use crate::output::colour::Verdict;
use crate::output::{Line, Mode, Report};

/// Versions A and B of a record: A by default the record's own; a B written
/// `+option…` is A with those settings changed.
pub fn versions(header: &Header, a: Option<&str>, b: &str) -> Result<(RuleVersion, RuleVersion), Fail> {
    let a = match a {
        Some(a) => rule_version(a)?.0,
        None => header.rules.clone(),
    };
    let b = match b.strip_prefix('+') {
        Some(_) => rollcall_core::registry::relative_version(&a, b).map_err(|e| fail!("--b: {e}"))?,
        None => rule_version(b)?.0,
    };
    Ok((a, b))
}

/// Reads the target's header and runs the diff over its events, streaming.
/// A record that does not verify is reported as verify reports it, with
/// exit 1.
fn load_and_diff(db: &crate::input::store::StoreSpec, args: &DiffArgs, mode: Mode) -> Result<Diffed, Fail> {
    let target = args.target.as_str();
    let mut record = source::open(db, target)?;
    let header = record.header().clone();
    let (a, b) = versions(&header, args.a.as_deref(), &args.b)?;
    let bar = record.progress("diff", target, mode == Mode::Json)?;
    let result = match &mut record {
        // A record file is proven as `verify FILE` proves it: a roll or fact
        // line that is byte for byte the one the proof expects is not parsed.
        Record::File(_, events) => diff_file(&header, events, &a, &b, args.all, || crate::output::progress::tick(&bar)),
        // A stored game's lines too (`EventLog::lines`).
        Record::Stored(_, log, id) => {
            diff_stored(&header, id, log.lines(id, 1)?, &a, &b, args.all, || crate::output::progress::tick(&bar))
        }
    };
    crate::output::progress::done(bar);
    match result {
        Ok(report) => Ok(Diffed::Compared(Box::new(Compared { game: header.game, report, all: args.all }))),
        Err(DiffError::Unproven(failure)) => Ok(Diffed::Unproven { target: target.to_string(), failure }),
        Err(e) => Err(fail!("{target}: {e}")),
    }
}

/// [`rollcall_core::diff::diff`] of a record file, each line offered to the proof as it was read
/// ([`Diff::take_line`]), calling `tick` after each.
fn diff_file(
    header: &Header,
    events: &mut Events,
    a: &RuleVersion,
    b: &RuleVersion,
    all: bool,
    mut tick: impl FnMut(),
) -> Result<DiffReport, DiffError> {
    let unobserved = &mut ();
    let mut diff = Diff::new(header, a, b, all, rollcall_core::registry::builtin(), unobserved)?;
    // diff's fold is the busier thread by far: its reader reads each
    // decision, and proves each decision's body canonical too.
    events.read_decisions(diff.decision_reader());
    events.scan_decisions();
    while let Some(read) = events.next_taking(|line, proof, read| diff.take_line_read(line, proof, read)) {
        match read {
            Ok(None) => {}
            Ok(Some(event)) => diff.push(&event)?,
            Err(e) => return Err(diff.unreadable(e)),
        }
        tick();
    }
    diff.finish()
}

/// [`rollcall_core::diff::diff`] of a stored game from its lines ([`source::take_stored_lines`]).
fn diff_stored(
    header: &Header,
    id: &str,
    lines: impl Iterator<Item = Result<String, rollcall_core::log::LogError>>,
    a: &RuleVersion,
    b: &RuleVersion,
    all: bool,
    tick: impl FnMut(),
) -> Result<DiffReport, DiffError> {
    let unobserved = &mut ();
    let mut diff = Diff::new(header, a, b, all, rollcall_core::registry::builtin(), unobserved)?;
    source::take_stored_lines(&mut diff, id, lines, tick)?;
    diff.finish()
}

fn outcome_lines(label: &str, outcome: &Outcome) -> String {
    let mut out = String::new();
    match outcome {
        Outcome::Decided { rolls, facts } => {
            let mut first = true;
            for line in rolls.iter().map(|r| format!("roll {r}")).chain(facts.iter().cloned()) {
                out.push_str(&format!("  {}  {line}\n", if first { label } else { " " }));
                first = false;
            }
            if first {
                out.push_str(&format!("  {label}  (no facts)\n"));
            }
        }
        Outcome::Refused { reason } => out.push_str(&format!("  {label}  REFUSED: {reason} (skipped under {label})\n")),
    }
    out
}

pub(crate) fn divergence_text(d: &Divergence) -> String {
    format!(
        "seq {} · decision {} · turn {}: {}\n{}{}",
        d.seq,
        d.number,
        d.turn,
        d.decision,
        outcome_lines("A", &d.a),
        outcome_lines("B", &d.b)
    )
}

fn state_diff(title: &str, (a, b): &(String, String)) -> String {
    if a == b {
        return format!("{title}: the same under A and B\n");
    }
    let diff =
        TextDiff::from_lines(a.as_str(), b.as_str()).unified_diff().context_radius(2).header("A", "B").to_string();
    format!("{title}:\n{diff}")
}

pub fn run(cx: &crate::input::checked::Checked, args: &DiffArgs) -> Result<ExitCode, Fail> {
    Ok(crate::output::print(&load_and_diff(&cx.db, args, cx.mode)?, cx.mode))
}

/// What diff found: where the versions part, or that the record is not
/// proven under its own rules (only a proven record is diffed).
enum Diffed {
    Compared(Box<Compared>),
    Unproven { target: String, failure: VerifyFailure },
}

impl Report for Diffed {
    fn text(&self) -> Vec<String> {
        match self {
            Diffed::Compared(c) => c.text(),
            Diffed::Unproven { target, failure } => vec![
                format!("verification FAILED for {target}: {failure}"),
                "(diff compares the versions only on a record that verifies under its own rules)".into(),
            ],
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            Diffed::Compared(c) => c.json(),
            Diffed::Unproven { target, failure } => json!({"ok": false, "target": target, "seq": failure.seq,
                "fault": failure.kind, "reason": failure.reason,
                "diff": "not run: the record does not verify under its own rules"}),
        }
    }

    fn verdict(&self) -> Option<(Line, Verdict)> {
        match self {
            Diffed::Compared(c) => c.verdict(),
            Diffed::Unproven { .. } => Some((Line::At(0), Verdict::Bad)),
        }
    }

    fn code(&self) -> ExitCode {
        match self {
            Diffed::Compared(c) => c.code(),
            Diffed::Unproven { .. } => ExitCode::from(1),
        }
    }
}

/// A record compared under two versions.
pub struct Compared {
    pub game: String,
    pub report: DiffReport,
    /// Every divergence (`--all`), or the first.
    pub all: bool,
}

impl Report for Compared {
    /// What B changes, where the versions part in outcome (the first
    /// divergence, or every one), the state diffs, the decisions that differ
    /// only in reasoning, the summary.
    fn text(&self) -> Vec<String> {
        let mut text = String::new();
        report_text(&mut text, &self.game, &self.report, self.all);
        text.strip_suffix('\n').unwrap_or(&text).split('\n').map(String::from).collect()
    }

    fn json(&self) -> serde_json::Value {
        let (report, all) = (&self.report, self.all);
        json!({
            "game": self.game, "a": report.a, "b": report.b, "agree": report.agree(),
            "settings": report.settings.iter().map(|(n, a, b)| json!({"name": n, "a": a, "b": b})).collect::<Vec<_>>(),
            "setup": report.setup,
            "decisions": report.decisions, "divergent": report.divergent,
            "refused_under_a": report.refused_under_a, "refused_under_b": report.refused_under_b,
            "first": report.divergences.first(),
            "divergences": if all { json!(report.divergences) } else { json!(null) },
            "reasoning_only": report.reasoning_only,
            "reasoning": report.reasoning,
            "state_diff_at_first": report.at_first.as_ref().map(|s| state_diff("at the first divergence", s)),
            "state_diff_at_end": match report.setup {
                Setup::Refused { .. } => None,
                _ => Some(state_diff("at the end", &report.at_end)),
            },
            "summary": report.summary(),
        })
    }

    /// The summary, last.
    fn verdict(&self) -> Option<(Line, Verdict)> {
        Some((Line::Last, if self.report.agree() { Verdict::Good } else { Verdict::Bad }))
    }

    fn code(&self) -> ExitCode {
        if self.report.agree() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        }
    }
}

/// The human report, written to `out` line by line.
fn report_text(out: &mut String, game: &str, report: &DiffReport, all: bool) {
    use std::fmt::Write;
    let _ = writeln!(out, "diff of {game}: A = {}, B = {}", report.a, report.b);
    if report.settings.is_empty() {
        let _ = writeln!(out, "B has the same settings as A");
    } else {
        let changes: Vec<String> = report.settings.iter().map(|(n, a, b)| format!("{n} {a} → {b}")).collect();
        let _ = writeln!(out, "B changes: {}", changes.join(", "));
    }
    match &report.setup {
        Setup::Same => {}
        Setup::Differs => {
            let _ = writeln!(
                out,
                "\nthe versions set the game up differently: the table before the first decision differs"
            );
        }
        Setup::Refused { a, b } => {
            out.push('\n');
            for (label, reason) in [("A", a), ("B", b)] {
                match reason {
                    Some(reason) => writeln!(out, "{label} refuses the record's scenario: {reason}"),
                    None => writeln!(out, "{label} accepts the record's scenario"),
                }
                .expect("writing to a String");
            }
        }
    }
    if let Some(first) = report.divergences.first() {
        if all {
            let mut turn = None;
            let _ = writeln!(out, "\nevery divergence in outcome, by turn:");
            for d in &report.divergences {
                if turn != Some(d.turn) {
                    let _ = writeln!(out, "turn {}:", d.turn);
                    turn = Some(d.turn);
                }
                out.push_str(&divergence_text(d));
            }
        } else {
            let _ = write!(out, "\nfirst divergence: {}", divergence_text(first));
        }
        if let Some(states) = &report.at_first {
            let _ = write!(out, "\n{}", state_diff("state just after the first divergence (--- A, +++ B)", states));
        }
    }
    let refused = matches!(report.setup, Setup::Refused { .. });
    if !refused && (report.setup.parts() || !report.divergences.is_empty()) {
        let _ = write!(out, "\n{}", state_diff("state at the end (--- A, +++ B)", &report.at_end));
    } else if matches!(report.setup, Setup::Same) {
        out.push_str(
            "\nevery outcome is the same under A and B: the same refusals, and the same state after every decision\n",
        );
    }
    reasoning_text(out, report, all);
    out.push('\n');
    out.push_str(&report.summary());
    out.push('\n');
}

/// Prints a diff's human report (the demo shows one).
pub fn print_report(game: &str, report: &DiffReport, all: bool) {
    let compared = Compared { game: game.to_string(), report: report.clone(), all };
    crate::output::print(&compared, Mode::Text);
}

/// The decisions whose facts differ only in the reasoning they record.
fn reasoning_text(out: &mut String, report: &DiffReport, all: bool) {
    use std::fmt::Write;
    let Some(first) = report.reasoning.first() else { return };
    let _ = writeln!(
        out,
        "\n{} decision(s) differ only in the reasoning their facts record (a target, a range, a modifier), with the same outcome:",
        report.reasoning_only
    );
    if all {
        for d in &report.reasoning {
            out.push_str(&divergence_text(d));
        }
        return;
    }
    out.push_str(&divergence_text(first));
    for d in &report.reasoning[1..] {
        let _ = writeln!(out, "seq {} · decision {} · turn {}: {}", d.seq, d.number, d.turn, d.decision);
    }
    let shown = report.reasoning.len() as u64;
    if report.reasoning_only > shown {
        let _ = writeln!(out, "… and {} more (--all lists every one in full)", report.reasoning_only - shown);
    }
}
