//! `rollcall diff`: a record under two rule versions, where they part and why.

use std::path::Path;
use std::process::ExitCode;

use rollcall_core::diff::{diff, Divergence, Outcome, Report};
use rollcall_core::log::EventLog;
use rollcall_core::record::{Event, Header};
use rollcall_core::rules::RuleVersion;
use serde_json::json;
use similar::TextDiff;

use crate::commands::rule_version;
use crate::store::{self, Fail};

/// Versions A and B of a record: A by default the record's own; a B written
/// `+option…` is A with those settings changed.
pub fn versions(header: &Header, a: Option<&str>, b: &str) -> Result<(RuleVersion, RuleVersion), Fail> {
    let a = match a {
        Some(a) => rule_version(a)?.0,
        None => header.rules.clone(),
    };
    let b = match b.strip_prefix('+') {
        Some(_) => rollcall_core::ruleset::relative_version(&a, b).map_err(|e| Fail(format!("--b: {e}")))?,
        None => rule_version(b)?.0,
    };
    Ok((a, b))
}

/// Reads the target's header and runs the diff over its events, streaming.
fn load_and_diff(
    db: &Option<std::path::PathBuf>,
    target: &str,
    a: Option<&str>,
    b: &str,
    all: bool,
) -> Result<(Header, Report), Fail> {
    let path = Path::new(target);
    let from_file = path.is_file() || target.ends_with(".jsonl");
    let resolve = |header: &Header| versions(header, a, b);
    if from_file {
        let (header, events) = rollcall_store::file::read(path)?;
        let (a, b) = resolve(&header)?;
        let report = diff(&header, events, &a, &b, all).map_err(|e| Fail(format!("{target}: {e}")))?;
        Ok((header, report))
    } else {
        let log = store::open_read(db)?;
        let header = log.header(target)?;
        let (a, b) = resolve(&header)?;
        let events: Box<dyn Iterator<Item = Result<Event, rollcall_core::log::LogError>>> = log.events(target, 1)?;
        let report = diff(&header, events, &a, &b, all).map_err(|e| Fail(format!("{target}: {e}")))?;
        Ok((header, report))
    }
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

fn divergence_text(d: &Divergence) -> String {
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

pub fn run(
    db: &Option<std::path::PathBuf>,
    target: &str,
    a: Option<&str>,
    b: &str,
    all: bool,
    json: bool,
) -> Result<ExitCode, Fail> {
    let (header, report) = load_and_diff(db, target, a, b, all)?;
    let code = if report.agree() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    if json {
        let value = json!({
            "game": header.game, "a": report.a, "b": report.b, "agree": report.agree(),
            "settings": report.settings.iter().map(|(n, a, b)| json!({"name": n, "a": a, "b": b})).collect::<Vec<_>>(),
            "decisions": report.decisions, "divergent": report.divergent,
            "refused_under_a": report.refused_under_a, "refused_under_b": report.refused_under_b,
            "first": report.divergences.first(),
            "divergences": if all { json!(report.divergences) } else { json!(null) },
            "state_diff_at_first": report.at_first.as_ref().map(|s| state_diff("at the first divergence", s)),
            "state_diff_at_end": state_diff("at the end", &report.at_end),
            "summary": report.summary(),
        });
        crate::commands::print_json(&value);
        return Ok(code);
    }
    print_report(&header.game, &report, all);
    Ok(code)
}

/// The human report: what B changes, the first (or every) divergence, the
/// state diffs, the summary.
pub fn print_report(game: &str, report: &Report, all: bool) {
    say!("diff of {game}: A = {}, B = {}", report.a, report.b);
    if report.settings.is_empty() {
        say!("B has the same settings as A");
    } else {
        let changes: Vec<String> = report.settings.iter().map(|(n, a, b)| format!("{n} {a} → {b}")).collect();
        say!("B changes: {}", changes.join(", "));
    }
    if let Some(first) = report.divergences.first() {
        if all {
            let mut turn = None;
            say!("\nevery divergence, by turn:");
            for d in &report.divergences {
                if turn != Some(d.turn) {
                    say!("turn {}:", d.turn);
                    turn = Some(d.turn);
                }
                show!("{}", divergence_text(d));
            }
        } else {
            show!("\nfirst divergence: {}", divergence_text(first));
        }
        if let Some(states) = &report.at_first {
            show!("\n{}", state_diff("state just after the first divergence (--- A, +++ B)", states));
        }
        show!("\n{}", state_diff("state at the end (--- A, +++ B)", &report.at_end));
    }
    say!("\n{}", report.summary());
}
