//! Impact: what a rule change does over a corpus of recorded games.
//!
//! Each game is [`crate::diff`]ed under its own rules (A) and under B, one
//! at a time, as it streams; this module keeps what a rules author asks of
//! the corpus as a whole, not only of one game:
//! - per game ([`GameImpact`]): whether A and B agree, part on outcome, or
//!   part only in the reasoning the facts record; the first divergence in
//!   outcome; and how far the final states differ ([`EndDifference`]: every
//!   place whose value differs, leaving the rule configuration aside);
//! - per decision type ([`DecisionCount`]): how many decisions of that type
//!   part on outcome, or only in reasoning, or are refused under one version;
//! - per fact type ([`FactCount`]): how many facts of that type A records,
//!   how many of them record another verdict under B (a check that passes
//!   under one and fails under the other, units rallied or not), and how many
//!   one version records and the other does not;
//! - over the corpus ([`Impact`]): the sums, and per *field* of the final
//!   states (`/pieces/*/broken`: a place with its entity ids written `*`) in
//!   how many games and at how many places A and B end differently.
//!
//! Facts are matched within a decision by type and order: the first fact of
//! a type under A with the first of that type under B, and so on. A pair is
//! the same fact, *changed* when its yes-or-no values differ (as diff judges
//! verdicts); a fact with no counterpart is *gone* under B (A's) or *new*
//! under B (B's).

use std::collections::BTreeMap;
use std::fmt::Display;

use serde::Serialize;
use serde_json::Value;

use crate::diff::{
    changes, decided_state, diff_observed, verdicts, Compared, DiffError, Divergence, Observer, Verdict,
};
use crate::game::Game;
use crate::record::{Event, Header, Kind};
use crate::rules::RuleVersion;
use crate::ruleset::Registry;

/// How many sample places a game's [`EndDifference`] keeps.
pub const PLACES_KEPT: usize = 5;

/// How the two versions compare on one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// The same outcome of every decision, and the same reasoning.
    Agree,
    /// The same outcomes; some facts record other reasoning (a target, a modifier).
    Reasoning,
    /// A decision, or the set-up, has another outcome.
    Outcome,
}

/// Decisions of one type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DecisionCount {
    /// How many were compared (both versions had the game to run them in).
    pub decisions: u64,
    /// How many part on outcome.
    pub outcome: u64,
    /// How many part only in the reasoning their facts record.
    pub reasoning: u64,
    /// How many are refused under A and not under B.
    pub refused_under_a_only: u64,
    /// How many are refused under B and not under A.
    pub refused_under_b_only: u64,
}

/// Facts of one type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FactCount {
    /// How many A records.
    pub a: u64,
    /// How many B records.
    pub b: u64,
    /// Of A's, how many B records with another verdict (its yes-or-no values differ).
    pub changed: u64,
    /// Of A's, how many B does not record (fewer of the type in the decision).
    pub gone: u64,
    /// Of B's, how many A does not record.
    pub new: u64,
}

impl FactCount {
    fn add(&mut self, other: &FactCount) {
        self.a += other.a;
        self.b += other.b;
        self.changed += other.changed;
        self.gone += other.gone;
        self.new += other.new;
    }
}

impl DecisionCount {
    fn add(&mut self, other: &DecisionCount) {
        self.decisions += other.decisions;
        self.outcome += other.outcome;
        self.reasoning += other.reasoning;
        self.refused_under_a_only += other.refused_under_a_only;
        self.refused_under_b_only += other.refused_under_b_only;
    }
}

/// A place whose value differs at the end: its value under A and under B
/// (none where the place is not there).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Place {
    pub path: String,
    pub field: String,
    pub a: Option<Value>,
    pub b: Option<Value>,
}

/// How far the final states of A and B are apart (the rule configuration aside).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EndDifference {
    /// How many places (leaf values, or whole lists of another length) differ.
    pub places: u64,
    /// Per field (a place with its entity ids as `*`): how many places differ.
    pub fields: BTreeMap<String, u64>,
    /// The first [`PLACES_KEPT`] places, in path order.
    pub sample: Vec<Place>,
}

/// The tallies of one game, gathered as diff compares it.
#[derive(Debug, Default)]
pub struct Tallies {
    pub by_decision: BTreeMap<String, DecisionCount>,
    pub by_fact: BTreeMap<String, FactCount>,
    pub end: EndDifference,
}

fn fact_type(event: &Event) -> String {
    event.body["fact"]["type"].as_str().unwrap_or("(untyped)").to_string()
}

fn facts(events: Option<&[Event]>) -> Vec<&Event> {
    events.map(|es| es.iter().filter(|e| e.kind == Kind::Fact).collect()).unwrap_or_default()
}

impl Observer for Tallies {
    fn decision(&mut self, c: &Compared) {
        let kind = c.decision["type"].as_str().unwrap_or("(untyped)").to_string();
        let count = self.by_decision.entry(kind).or_default();
        count.decisions += 1;
        match c.verdict {
            Verdict::Agree => {}
            Verdict::Reasoning => count.reasoning += 1,
            Verdict::Outcome => count.outcome += 1,
        }
        count.refused_under_a_only += u64::from(c.a.is_none() && c.b.is_some());
        count.refused_under_b_only += u64::from(c.b.is_none() && c.a.is_some());
        let (fa, fb) = (facts(c.a), facts(c.b));
        for f in &fa {
            self.by_fact.entry(fact_type(f)).or_default().a += 1;
        }
        for f in &fb {
            self.by_fact.entry(fact_type(f)).or_default().b += 1;
        }
        if c.verdict == Verdict::Agree {
            return; // the same rolls and facts, or refused alike
        }
        let mut types: Vec<String> = fa.iter().chain(&fb).map(|f| fact_type(f)).collect();
        types.sort();
        types.dedup();
        for kind in types {
            let xs: Vec<&Event> = fa.iter().filter(|f| fact_type(f) == kind).copied().collect();
            let ys: Vec<&Event> = fb.iter().filter(|f| fact_type(f) == kind).copied().collect();
            let count = self.by_fact.entry(kind).or_default();
            for (x, y) in xs.iter().zip(&ys) {
                if verdicts(std::slice::from_ref(*x)) != verdicts(std::slice::from_ref(*y)) {
                    count.changed += 1;
                }
            }
            count.gone += xs.len().saturating_sub(ys.len()) as u64;
            count.new += ys.len().saturating_sub(xs.len()) as u64;
        }
    }

    fn end(&mut self, a: Option<&Game>, b: Option<&Game>) {
        let (Some(a), Some(b)) = (a, b) else { return };
        let (a, b) = (decided_state(a), decided_state(b));
        for (path, _) in changes(&a, &b) {
            let field = field(&path, &a, &b);
            self.end.places += 1;
            *self.end.fields.entry(field.clone()).or_default() += 1;
            if self.end.sample.len() < PLACES_KEPT {
                let (va, vb) = (a.pointer(&path).cloned(), b.pointer(&path).cloned());
                self.end.sample.push(Place { path, field, a: va, b: vb });
            }
        }
    }
}

/// The child of a JSON value at one step of a path.
fn child<'v>(value: &'v Value, step: &str) -> Option<&'v Value> {
    match value {
        Value::Object(map) => map.get(step),
        Value::Array(items) => step.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    }
}

/// Whether a value is a collection of entities: a list, or a map of two or
/// more entries whose values are maps with the same keys (pieces by id).
fn entities(value: &Value) -> bool {
    match value {
        Value::Array(_) => true,
        Value::Object(map) => {
            let mut shapes =
                map.values().map(|v| v.as_object().map(|m| m.keys().collect::<Vec<_>>()).ok_or(())).take(2);
            match (shapes.next(), shapes.next()) {
                (Some(Ok(x)), Some(Ok(y))) => x == y,
                _ => false,
            }
        }
        _ => false,
    }
}

/// The field a place belongs to: its path with each step into a collection
/// of entities written `*` (`/pieces/adams/broken` → `/pieces/*/broken`).
pub fn field(path: &str, a: &Value, b: &Value) -> String {
    let mut out = String::new();
    let (mut x, mut y) = (Some(a), Some(b));
    for step in path.split('/').skip(1) {
        let generic = [x, y].into_iter().flatten().any(entities);
        out.push('/');
        out.push_str(if generic { "*" } else { step });
        x = x.and_then(|v| child(v, step));
        y = y.and_then(|v| child(v, step));
    }
    out
}

/// One game of the corpus under A (its own rules) and B.
#[derive(Debug, Clone, Serialize)]
pub struct GameImpact {
    /// How the corpus names it (a file, or a game id in the store).
    pub game: String,
    pub a: String,
    pub b: String,
    pub class: Class,
    pub decisions: u64,
    /// Decisions that part on outcome.
    pub divergent: u64,
    pub reasoning_only: u64,
    pub refused_under_a: u64,
    pub refused_under_b: u64,
    pub setup: crate::diff::Setup,
    /// The first divergence in outcome.
    pub first: Option<Divergence>,
    /// How far the final states are apart.
    pub end: EndDifference,
    #[serde(skip)]
    pub by_decision: BTreeMap<String, DecisionCount>,
    #[serde(skip)]
    pub by_fact: BTreeMap<String, FactCount>,
}

/// Runs one game (proven under its own rules as it streams) under `a` and
/// `b`, versions of its ruleset in `registry`.
pub fn game<E: Display>(
    label: &str,
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
    a: &RuleVersion,
    b: &RuleVersion,
    registry: &Registry,
) -> Result<GameImpact, DiffError> {
    let mut tallies = Tallies::default();
    let report = diff_observed(header, events, a, b, false, registry, &mut tallies)?;
    let class = if !report.agree() {
        Class::Outcome
    } else if report.reasoning_only > 0 {
        Class::Reasoning
    } else {
        Class::Agree
    };
    Ok(GameImpact {
        game: label.to_string(),
        a: report.a,
        b: report.b,
        class,
        decisions: report.decisions,
        divergent: report.divergent,
        reasoning_only: report.reasoning_only,
        refused_under_a: report.refused_under_a,
        refused_under_b: report.refused_under_b,
        setup: report.setup,
        first: report.divergences.into_iter().next(),
        end: tallies.end,
        by_decision: tallies.by_decision,
        by_fact: tallies.by_fact,
    })
}

/// A field of the final states over the corpus.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FieldCount {
    /// In how many games A and B end differently there.
    pub games: u64,
    /// At how many places in all.
    pub places: u64,
}

/// A game not compared, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Left {
    pub game: String,
    pub reason: String,
}

/// The corpus so far: games are added one at a time, in corpus order.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Impact {
    /// Games compared.
    pub games: u64,
    pub agreeing: u64,
    pub part_on_outcome: u64,
    pub part_in_reasoning_only: u64,
    pub decisions: u64,
    pub divergent_decisions: u64,
    /// Every game that parts, on outcome or in reasoning only, in corpus order.
    pub parting: Vec<GameImpact>,
    pub by_decision: BTreeMap<String, DecisionCount>,
    pub by_fact: BTreeMap<String, FactCount>,
    pub end_fields: BTreeMap<String, FieldCount>,
    /// Records that do not verify under their own rules: not compared.
    pub unproven: Vec<Left>,
    /// Games B does not apply to (another ruleset, an option it lacks) or
    /// that diff cannot yet run (sealed records): not compared.
    pub skipped: Vec<Left>,
}

impl Impact {
    pub fn add(&mut self, g: GameImpact) {
        self.games += 1;
        self.decisions += g.decisions;
        self.divergent_decisions += g.divergent;
        for (kind, count) in &g.by_decision {
            self.by_decision.entry(kind.clone()).or_default().add(count);
        }
        for (kind, count) in &g.by_fact {
            self.by_fact.entry(kind.clone()).or_default().add(count);
        }
        for (field, places) in &g.end.fields {
            let f = self.end_fields.entry(field.clone()).or_default();
            f.games += 1;
            f.places += places;
        }
        match g.class {
            Class::Agree => self.agreeing += 1,
            Class::Reasoning => self.part_in_reasoning_only += 1,
            Class::Outcome => self.part_on_outcome += 1,
        }
        if g.class != Class::Agree {
            self.parting.push(g);
        }
    }

    /// Whether no game parts on outcome (exit 0).
    pub fn agree(&self) -> bool {
        self.part_on_outcome == 0
    }

    /// One line saying how it went.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "{} games compared: {} agree, {} part on outcome, {} part only in reasoning",
            self.games, self.agreeing, self.part_on_outcome, self.part_in_reasoning_only
        );
        if !self.unproven.is_empty() {
            out.push_str(&format!("; {} do not verify (not compared)", self.unproven.len()));
        }
        if !self.skipped.is_empty() {
            out.push_str(&format!("; {} skipped", self.skipped.len()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_field_writes_entity_ids_as_stars() {
        let a = json!({"pieces": {"adams": {"broken": true, "at": [1, 2]}, "baker": {"broken": false, "at": [3, 4]}},
            "turn": 2, "sides": {"allies": 1, "axis": 2}});
        let b = a.clone();
        assert_eq!(field("/pieces/adams/broken", &a, &b), "/pieces/*/broken");
        assert_eq!(field("/pieces/adams/at/1", &a, &b), "/pieces/*/at/*");
        assert_eq!(field("/turn", &a, &b), "/turn");
        assert_eq!(field("/sides/axis", &a, &b), "/sides/axis", "a map of numbers is not of entities");
        let c = json!({"pieces": {}});
        assert_eq!(field("/pieces/new/broken", &c, &a), "/pieces/*/broken", "B's shape where A has none");
    }

    fn fact(kind: &str, body: Value) -> Event {
        let mut fact = body;
        fact["type"] = json!(kind);
        Event { seq: 0, kind: Kind::Fact, body: json!({"decision": 1, "fact": fact}), hash: crate::Digest::of(b"") }
    }

    #[test]
    fn facts_are_matched_by_type_and_order_and_judged_by_their_verdicts() {
        let decision = json!({"type": "rally"});
        let a = [fact("rally", json!({"passed": false, "target": 5})), fact("broken", json!({}))];
        let b = [fact("rally", json!({"passed": true, "target": 4})), fact("activated", json!({}))];
        let mut t = Tallies::default();
        t.decision(&Compared { decision: &decision, verdict: Verdict::Outcome, a: Some(&a), b: Some(&b) });
        let rally = &t.by_fact["rally"];
        assert_eq!((rally.a, rally.b, rally.changed, rally.gone, rally.new), (1, 1, 1, 0, 0));
        assert_eq!(t.by_fact["broken"].gone, 1);
        assert_eq!(t.by_fact["activated"].new, 1);
        assert_eq!(t.by_decision["rally"].outcome, 1);
        // A fact B adds shifts no other: the rest are matched by type.
        let a = [fact("rally", json!({"passed": false})), fact("ended", json!({}))];
        let b = [fact("rally", json!({"passed": true})), fact("rallied", json!({})), fact("ended", json!({}))];
        let mut t = Tallies::default();
        t.decision(&Compared { decision: &decision, verdict: Verdict::Outcome, a: Some(&a), b: Some(&b) });
        assert_eq!(t.by_fact["ended"], FactCount { a: 1, b: 1, changed: 0, gone: 0, new: 0 });
        assert_eq!(t.by_fact["rallied"], FactCount { a: 0, b: 1, changed: 0, gone: 0, new: 1 });
        let a = [fact("rally", json!({"passed": false, "target": 5}))];
        // The same verdict with other reasoning is not a change.
        let c = [fact("rally", json!({"passed": false, "target": 6}))];
        let mut t = Tallies::default();
        t.decision(&Compared { decision: &decision, verdict: Verdict::Reasoning, a: Some(&a), b: Some(&c) });
        assert_eq!(t.by_fact["rally"].changed, 0);
        assert_eq!(t.by_decision["rally"].reasoning, 1);
        // Refused under B: A's facts are gone.
        let a = [fact("rally", json!({"passed": false})), fact("broken", json!({}))];
        let mut t = Tallies::default();
        t.decision(&Compared { decision: &decision, verdict: Verdict::Outcome, a: Some(&a), b: None });
        assert_eq!(t.by_fact["rally"].gone, 1);
        assert_eq!(t.by_decision["rally"].refused_under_b_only, 1);
    }
}
