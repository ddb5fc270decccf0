//! Diff: one record's decisions under two rule versions, side by side.
//!
//! The record's decisions are taken alone (its rolls and facts are only
//! checked for the chain) and run under version A and under version B, each
//! on its own state. Dice are drawn by address — the record's decision
//! number, the label, the index — so a die both versions roll has the same
//! face under both, and a version that rolls one more die changes no other
//! roll. In a table game the dice come from the record; a die a version
//! needs that the table never rolled is a divergence ("the die is unknown"),
//! never invented.
//!
//! A decision one version refuses is skipped under that version (keeping its
//! number, so later dice keep their addresses) and reported with the reason.
//! The two runs advance event by event; only divergences are kept.

use serde::Serialize;
use serde_json::Value;

use crate::canon;
use crate::digest::Digest;
use crate::game::{describe_decision, Game, OpenError};
use crate::record::{self, DecisionBody, Event, FactBody, Header, Kind, RollBodyV1};
use crate::rules::RuleVersion;
use crate::ruleset::{Refusal, Violation};

/// What one version made of a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Outcome {
    /// The rolls and facts it led to, each narrated.
    Decided { rolls: Vec<String>, facts: Vec<String> },
    /// Refused, and why; the decision is skipped under this version.
    Refused { reason: String },
}

/// A decision on which the two versions part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// The decision's seq in the record.
    pub seq: u64,
    /// The decision's number (its dice address).
    pub number: u64,
    /// The turn under A when the decision was made.
    pub turn: u32,
    pub decision: String,
    pub a: Outcome,
    pub b: Outcome,
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub a: String,
    pub b: String,
    /// Settings in which B differs from A: (name, value under A, value under B).
    pub settings: Vec<(String, String, String)>,
    pub decisions: u64,
    /// How many decisions part (all of them are in `divergences` with `all`).
    pub divergent: u64,
    pub refused_under_a: u64,
    pub refused_under_b: u64,
    /// The first divergence, or all of them (in record order) when asked.
    pub divergences: Vec<Divergence>,
    /// The rendered states just after the first divergence, under A and B.
    pub at_first: Option<(String, String)>,
    /// The rendered states at the end, under A and B.
    pub at_end: (String, String),
}

impl Report {
    pub fn agree(&self) -> bool {
        self.divergent == 0
    }

    /// One line saying how it went.
    pub fn summary(&self) -> String {
        match self.divergences.first() {
            None => format!("{} and {} agree on all {} decisions", self.a, self.b, self.decisions),
            Some(first) => {
                let mut refused = Vec::new();
                if self.refused_under_a > 0 {
                    refused.push(format!("{} refused under A", self.refused_under_a));
                }
                if self.refused_under_b > 0 {
                    refused.push(format!("{} refused under B", self.refused_under_b));
                }
                let refused = if refused.is_empty() { String::new() } else { format!(", {}", refused.join(", ")) };
                format!(
                    "{} and {} part at seq {} (decision {}, turn {}): {} of {} decisions differ{refused}",
                    self.a, self.b, first.seq, first.number, first.turn, self.divergent, self.decisions
                )
            }
        }
    }
}

/// Why a diff could not be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiffError {
    #[error("{0} is a version of {1}, but the record is a {2} game")]
    OtherRuleset(String, String, String),
    #[error("{0}: {1}")]
    Open(String, OpenError),
    #[error("the record is damaged at seq {0}: {1} (run verify)")]
    Record(u64, String),
}

fn under(header: &Header, rules: &RuleVersion) -> Result<Game, DiffError> {
    if rules.ruleset() != header.rules.ruleset() {
        return Err(DiffError::OtherRuleset(
            rules.label(),
            rules.ruleset().to_string(),
            header.rules.ruleset().to_string(),
        ));
    }
    let mut h = header.clone();
    h.rules = rules.clone();
    h.rules_hash = rules.hash();
    let mut game = Game::open(h).map_err(|e| DiffError::Open(rules.label(), e))?;
    game.tolerate_unused_table_dice();
    Ok(game)
}

/// Runs one decision under one version: its outcome, and the events to fold in.
fn run(game: &mut Game, body: &DecisionBody) -> (Outcome, Vec<Value>) {
    match game.decide_as(&body.decision, body.dice.as_ref(), body.by.as_deref()) {
        Ok(events) => {
            let mut rolls = Vec::new();
            let mut facts = Vec::new();
            let mut canonical = Vec::new();
            for e in &events[1..] {
                canonical.push(serde_json::json!({"kind": e.kind, "body": e.body}));
                match e.kind {
                    Kind::Roll => {
                        let r: RollBodyV1 = serde_json::from_value(e.body.clone()).expect("our own roll");
                        rolls.push(format!("{} {}#{} = {}", r.die, r.label, r.index, r.value));
                    }
                    Kind::Fact => facts.push(game.narrate(e).trim().to_string()),
                    Kind::Decision | Kind::Checkpoint | Kind::Reveal => {}
                }
            }
            game.adopt(&events);
            (Outcome::Decided { rolls, facts }, canonical)
        }
        Err(refusal) => {
            game.pass_decision();
            let reason = match refusal {
                Refusal::Violation(Violation::Dice(e)) => e.to_string(),
                other => other.to_string(),
            };
            (Outcome::Refused { reason }, Vec::new())
        }
    }
}

/// Diffs a record's decisions under `a` and `b`. With `all`, every
/// divergence is kept; otherwise only the first (all are counted).
pub fn diff<E: std::fmt::Display>(
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
    a: &RuleVersion,
    b: &RuleVersion,
    all: bool,
) -> Result<Report, DiffError> {
    let mut game_a = under(header, a)?;
    let mut game_b = under(header, b)?;
    let mut settings = Vec::new();
    for (name, value) in &b.options {
        let before = a.options.get(name).map(|v| v.to_string()).unwrap_or_else(|| "-".into());
        if before != value.to_string() {
            settings.push((name.clone(), before, value.to_string()));
        }
    }
    for (name, value) in &b.constants {
        let before = a.constants.get(name).map(|v| v.to_string()).unwrap_or_else(|| "-".into());
        if before != value.to_string() {
            settings.push((name.clone(), before, value.to_string()));
        }
    }
    let mut report = Report {
        a: a.label(),
        b: b.label(),
        settings,
        decisions: 0,
        divergent: 0,
        refused_under_a: 0,
        refused_under_b: 0,
        divergences: Vec::new(),
        at_first: None,
        at_end: (String::new(), String::new()),
    };
    let mut head: Digest = record::header_hash(header).map_err(|e| DiffError::Record(0, e.to_string()))?;
    for (expected_seq, event) in (1u64..).zip(events) {
        let event = event.map_err(|e| DiffError::Record(expected_seq, e.to_string()))?;
        if event.seq != expected_seq {
            return Err(DiffError::Record(event.seq, format!("expected seq {expected_seq}")));
        }
        let link = record::link(&head, event.seq, event.kind, &event.body)
            .map_err(|e| DiffError::Record(event.seq, e.to_string()))?;
        if link != event.hash {
            return Err(DiffError::Record(event.seq, "the hash does not chain".into()));
        }
        head = link;
        if event.kind != Kind::Decision {
            if event.kind == Kind::Fact {
                serde_json::from_value::<FactBody>(event.body.clone())
                    .map_err(|e| DiffError::Record(event.seq, e.to_string()))?;
            }
            continue;
        }
        let body: DecisionBody =
            serde_json::from_value(event.body.clone()).map_err(|e| DiffError::Record(event.seq, e.to_string()))?;
        report.decisions += 1;
        let turn = game_a.turn();
        let (outcome_a, bytes_a) = run(&mut game_a, &body);
        let (outcome_b, bytes_b) = run(&mut game_b, &body);
        let refused_a = matches!(outcome_a, Outcome::Refused { .. });
        let refused_b = matches!(outcome_b, Outcome::Refused { .. });
        report.refused_under_a += u64::from(refused_a);
        report.refused_under_b += u64::from(refused_b);
        let same = !refused_a && !refused_b && canonical_eq(&bytes_a, &bytes_b);
        let both_refused_alike = refused_a && refused_b && outcome_a == outcome_b;
        if same || both_refused_alike {
            continue;
        }
        report.divergent += 1;
        if report.at_first.is_none() {
            report.at_first = Some((game_a.render(), game_b.render()));
        }
        if all || report.divergences.is_empty() {
            report.divergences.push(Divergence {
                seq: event.seq,
                number: body.number,
                turn,
                decision: describe_decision(&body.decision),
                a: outcome_a,
                b: outcome_b,
            });
        }
    }
    report.at_end = (game_a.render(), game_b.render());
    Ok(report)
}

fn canonical_eq(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| canon::to_bytes(x).ok() == canon::to_bytes(y).ok())
}
