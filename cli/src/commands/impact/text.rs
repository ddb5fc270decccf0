//! The impact report in words (text) and as one JSON document: the summary,
//! each game that parts with its first divergence, and what changed per
//! decision type, per fact type and per field of the final states.

use rollcall_core::diff::Setup;
use rollcall_core::impact::{Class, GameImpact, Impact};
use serde_json::{json, Value};

use crate::args::ImpactArgs;

pub(super) fn end_text(g: &GameImpact) -> String {
    if matches!(g.setup, Setup::Refused { .. }) {
        return "no final states to compare (a version refuses the scenario)".into();
    }
    if g.end.places == 0 {
        return "the final states are the same".into();
    }
    let fields: Vec<String> = g.end.fields.iter().map(|(f, n)| format!("{f} ×{n}")).collect();
    format!("the final states differ at {} place(s): {}", g.end.places, fields.join(", "))
}

/// The report's lines, and the index of its verdict line.
pub(super) fn text_of(args: &ImpactArgs, impact: &Impact) -> (Vec<String>, usize) {
    let mut lines = Vec::new();
    lines.push(format!("impact of --b {} over {}", args.b, args.targets.join(" ")));
    match args.b.starts_with('+') {
        true => lines.push(format!("A = each game's own rules, B = the same with {}", args.b)),
        false => lines.push(format!("A = each game's own rules, B = {}", args.b)),
    }
    lines.push(impact.summary());
    let outcome: Vec<&GameImpact> = impact.parting.iter().filter(|g| g.class == Class::Outcome).collect();
    if !outcome.is_empty() {
        lines.push("\ngames that part on outcome:".to_string());
        for g in outcome {
            lines.push(format!("{} (A = {}, B = {})", g.game, g.a, g.b));
            match (&g.first, &g.setup) {
                (_, Setup::Refused { a, b }) => {
                    for (label, reason) in [("A", a), ("B", b)] {
                        if let Some(reason) = reason {
                            lines.push(format!("  {label} refuses the scenario: {reason}"));
                        }
                    }
                }
                (Some(first), setup) => {
                    if matches!(setup, Setup::Differs) {
                        lines.push("  the versions set the game up differently".to_string());
                    }
                    for line in crate::commands::diff::divergence_text(first).lines() {
                        lines.push(format!("  {line}"));
                    }
                }
                (None, _) => lines.push(
                    "  the versions set the game up differently; every decision has the same outcome".to_string(),
                ),
            }
            lines.push(format!("  {} of {} decisions differ in outcome; {}", g.divergent, g.decisions, end_text(g)));
        }
    }
    let reasoning: Vec<&GameImpact> = impact.parting.iter().filter(|g| g.class == Class::Reasoning).collect();
    if !reasoning.is_empty() {
        lines.push("\ngames that part only in the reasoning their facts record (the same outcomes):".to_string());
        for g in reasoning {
            lines.push(format!("{}: {} of {} decisions", g.game, g.reasoning_only, g.decisions));
        }
    }
    tallies(impact, &mut lines);
    for (title, list) in [
        ("do not verify under their own rules (not compared)", &impact.unproven),
        ("skipped (B does not apply, or diff cannot run them)", &impact.skipped),
    ] {
        if list.is_empty() {
            continue;
        }
        lines.push(format!("\n{} {title}:", list.len()));
        let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
        for left in list {
            match reasons.iter_mut().find(|(r, _)| *r == left.reason) {
                Some((_, games)) => games.push(&left.game),
                None => reasons.push((&left.reason, vec![&left.game])),
            }
        }
        for (reason, games) in reasons {
            let more = if games.len() > 3 { format!(" and {} more", games.len() - 3) } else { String::new() };
            let shown: Vec<&str> = games.iter().take(3).copied().collect();
            lines.push(format!("  {reason}: {}{more}", shown.join(", ")));
        }
    }
    lines.push(String::new());
    lines.push(impact.summary());
    let verdict = lines.len() - 1;
    (lines, verdict)
}

/// What changed, per decision type, per fact type and per field of the final states.
fn tallies(impact: &Impact, lines: &mut Vec<String>) {
    if impact.by_decision.is_empty() {
        return;
    }
    lines.push(
        "\nby decision type: compared, part on outcome, only in reasoning, refused under A only, under B only"
            .to_string(),
    );
    for (kind, c) in &impact.by_decision {
        lines.push(format!(
            "  {kind:<28} {:>7} {:>7} {:>7} {:>7} {:>7}",
            c.decisions, c.outcome, c.reasoning, c.refused_under_a_only, c.refused_under_b_only
        ));
    }
    if !impact.by_fact.is_empty() {
        lines.push(
            "\nby fact type: under A, under B, A's with another verdict under B, A's gone under B, new under B"
                .to_string(),
        );
        for (kind, c) in &impact.by_fact {
            lines.push(format!("  {kind:<28} {:>7} {:>7} {:>7} {:>7} {:>7}", c.a, c.b, c.changed, c.gone, c.new));
        }
        let changed: Vec<String> = impact
            .by_fact
            .iter()
            .filter(|(_, c)| c.changed + c.gone + c.new > 0)
            .map(|(kind, c)| {
                let mut parts = vec![format!("{} of {} change verdict", c.changed, c.a)];
                if c.gone > 0 {
                    parts.push(format!("{} no longer recorded", c.gone));
                }
                if c.new > 0 {
                    parts.push(format!("{} recorded only under B", c.new));
                }
                format!("  {kind}: {}", parts.join(", "))
            })
            .collect();
        if !changed.is_empty() {
            lines.push("what changes:".to_string());
            for line in changed {
                lines.push(line.to_string());
            }
        }
    }
    if !impact.end_fields.is_empty() {
        lines.push("\nfinal states, where A and B end differently (field: games, places):".to_string());
        for (field, c) in &impact.end_fields {
            lines.push(format!("  {field:<40} {:>5} game(s) {:>6} place(s)", c.games, c.places));
        }
    }
}

pub(super) fn json_of(args: &ImpactArgs, impact: &Impact) -> Value {
    let mut value = serde_json::to_value(impact).expect("serialises");
    if let Value::Object(map) = &mut value {
        map.insert("targets".into(), json!(args.targets));
        map.insert("b".into(), json!(args.b));
        map.insert("agree".into(), json!(impact.agree()));
        map.insert("summary".into(), json!(impact.summary()));
    }
    value
}
