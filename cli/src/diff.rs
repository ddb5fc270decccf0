//! `rollcall diff`: a record under two rule versions, where they part and why.

use std::process::ExitCode;

use rollcall_core::diff::{diff, DiffError, Divergence, Outcome, Report, Setup};
use rollcall_core::game::VerifyFailure;
use rollcall_core::record::Header;
use rollcall_core::rules::RuleVersion;
use serde_json::json;
use similar::TextDiff;

use crate::source;
use crate::source::rule_version;
use crate::store::Fail;

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
/// The inner error is a record that does not verify: reported as verify
/// reports it, with exit 1.
fn load_and_diff(
    db: &crate::store::StoreSpec,
    target: &str,
    a: Option<&str>,
    b: &str,
    all: bool,
    json: bool,
) -> Result<(Header, Result<Report, VerifyFailure>), Fail> {
    let mut record = source::open(db, target)?;
    let header = record.header().clone();
    let (a, b) = versions(&header, a, b)?;
    let bar = record.progress("diff", target, json)?;
    let events = record.events()?.inspect(|_| crate::progress::tick(&bar));
    let result = diff(&header, events, &a, &b, all);
    crate::progress::done(bar);
    let report = match result {
        Ok(report) => Ok(report),
        Err(DiffError::Unproven(failure)) => Err(failure),
        Err(e) => return Err(fail!("{target}: {e}")),
    };
    Ok((header, report))
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

pub fn run(
    db: &crate::store::StoreSpec,
    target: &str,
    a: Option<&str>,
    b: &str,
    all: bool,
    json: bool,
) -> Result<ExitCode, Fail> {
    let (header, report) = load_and_diff(db, target, a, b, all, json)?;
    let report = match report {
        Ok(report) => report,
        Err(failure) => {
            // Only a proven record is diffed; one that is not fails as verify fails.
            if json {
                let value = json!({"ok": false, "target": target, "seq": failure.seq, "fault": failure.kind, "reason": failure.reason,
                    "diff": "not run: the record does not verify under its own rules"});
                crate::output::print_json(&value);
            } else {
                crate::colour::say(
                    &format!("verification FAILED for {target}: {failure}"),
                    crate::colour::Verdict::Bad,
                );
                say!("(diff compares the versions only on a record that verifies under its own rules)");
            }
            return Ok(ExitCode::from(1));
        }
    };
    let code = if report.agree() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    if json {
        let value = json!({
            "game": header.game, "a": report.a, "b": report.b, "agree": report.agree(),
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
        });
        crate::output::print_json(&value);
        return Ok(code);
    }
    print_report(&header.game, &report, all);
    Ok(code)
}

/// The human report: what B changes, where the versions part in outcome
/// (the first divergence, or every one), the state diffs, the decisions
/// that differ only in reasoning, the summary.
pub fn print_report(game: &str, report: &Report, all: bool) {
    say!("diff of {game}: A = {}, B = {}", report.a, report.b);
    if report.settings.is_empty() {
        say!("B has the same settings as A");
    } else {
        let changes: Vec<String> = report.settings.iter().map(|(n, a, b)| format!("{n} {a} → {b}")).collect();
        say!("B changes: {}", changes.join(", "));
    }
    match &report.setup {
        Setup::Same => {}
        Setup::Differs => {
            say!("\nthe versions set the game up differently: the table before the first decision differs");
        }
        Setup::Refused { a, b } => {
            say!();
            for (label, reason) in [("A", a), ("B", b)] {
                match reason {
                    Some(reason) => say!("{label} refuses the record's scenario: {reason}"),
                    None => say!("{label} accepts the record's scenario"),
                }
            }
        }
    }
    if let Some(first) = report.divergences.first() {
        if all {
            let mut turn = None;
            say!("\nevery divergence in outcome, by turn:");
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
    }
    let refused = matches!(report.setup, Setup::Refused { .. });
    if !refused && (report.setup.parts() || !report.divergences.is_empty()) {
        show!("\n{}", state_diff("state at the end (--- A, +++ B)", &report.at_end));
    } else if matches!(report.setup, Setup::Same) {
        say!("\nevery outcome is the same under A and B: the same refusals, and the same state after every decision");
    }
    print_reasoning(report, all);
    say!();
    let verdict = if report.agree() { crate::colour::Verdict::Good } else { crate::colour::Verdict::Bad };
    crate::colour::say(&report.summary(), verdict);
}

/// The decisions whose facts differ only in the reasoning they record.
fn print_reasoning(report: &Report, all: bool) {
    let Some(first) = report.reasoning.first() else { return };
    say!(
        "\n{} decision(s) differ only in the reasoning their facts record (a target, a range, a modifier), with the same outcome:",
        report.reasoning_only
    );
    if all {
        for d in &report.reasoning {
            show!("{}", divergence_text(d));
        }
        return;
    }
    show!("{}", divergence_text(first));
    for d in &report.reasoning[1..] {
        say!("seq {} · decision {} · turn {}: {}", d.seq, d.number, d.turn, d.decision);
    }
    let shown = report.reasoning.len() as u64;
    if report.reasoning_only > shown {
        say!("… and {} more (--all lists every one in full)", report.reasoning_only - shown);
    }
}
