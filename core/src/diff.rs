//! Diff: one record's decisions under two rule versions, side by side.
//!
//! The record is first proven under its own rules, as `verify` proves it and
//! as it streams: a record that does not verify is not diffed, and the
//! failure is reported as verify reports it ([`DiffError::Unproven`]). Its
//! decisions are then run under version A and under version B, each on its
//! own state. Dice are drawn by address — the record's decision number, the
//! label, the index — so a die both versions roll has the same face under
//! both, and a version that rolls one more die changes no other roll. In a
//! table game the dice come from the record, as its own rules drew them: a
//! die is reused only at the same address, of the same kind and size and,
//! for a pick, from the same cup; any other die a version needs is a
//! divergence ("the die is unknown"), never invented.
//!
//! **Outcomes first.** A decision's *outcome* is whether it is refused, and
//! otherwise what it decided: the change it makes to the state, leaving the
//! rule configuration aside (every ruleset keeps its settings in its state's
//! `config`, and nowhere else; a test holds each ruleset to it), and the
//! verdicts its facts record — the kind of each fact, in order, and every
//! yes or no (a check passed, a shot hit, units rallied). Two versions agree
//! on a decision when both refuse it, or both decide it with the same rolls
//! and facts, or both decide it with the same verdicts and the same change
//! to the state (the same values at the same places). A decision whose facts
//! differ only in the numbers and words of their reasoning — a target
//! number, a range, a modifier, a reason — is listed apart
//! ([`Report::reasoning`]) and does not part the versions. The first divergence and the verdict are about outcomes:
//! a decision refused under one version only, or a change that differs; and
//! before any decision, a scenario one version refuses or sets up otherwise.
//!
//! A decision one version refuses is skipped under that version (keeping its
//! number, so later dice keep their addresses) and reported with the reason.

use std::fmt::Display;

use serde::Serialize;
use serde_json::Value;

use serde::Deserialize;

use crate::dice::{Drawn, TableDice};
use crate::game::{describe_decision, Decide, Decided, Game, Linked, OpenError, Verifier, VerifyFailure};
use crate::record::{DecisionBody, DecisionSeen, Event, Header, Kind, LinkProof, RollBodyV1, SeedMode};
use crate::rules::RuleVersion;
use crate::ruleset::{DecisionReader, KeptDecision, Refusal, Registry, Violation};

/// What one version made of a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Outcome {
    /// The rolls and facts it led to, each narrated.
    Decided { rolls: Vec<String>, facts: Vec<String> },
    /// Refused, and why; the decision is skipped under this version.
    Refused { reason: String },
}

/// A decision on which the two versions part, in outcome or in reasoning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// The decision's seq in the record.
    pub seq: u64,
    /// The decision's number (its dice address).
    pub number: u64,
    /// The turn the decision belongs to: the record's turn once the
    /// decision's rolls and facts are folded in, as the narrative numbers
    /// it (the decision that begins turn 1 is in turn 1).
    pub turn: u32,
    pub decision: String,
    pub a: Outcome,
    pub b: Outcome,
}

/// How the two versions set the game up from the record's scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "setup", rename_all = "kebab-case")]
pub enum Setup {
    /// The same table under both (the rule configuration aside).
    Same,
    /// Both accept the scenario, but set it up differently: the states
    /// before the first decision differ.
    Differs,
    /// A version refuses the scenario (each reason, if it does). No
    /// decision is compared: one version has no game to play them in.
    Refused { a: Option<String>, b: Option<String> },
}

impl Setup {
    /// Whether the versions part before the first decision.
    pub fn parts(&self) -> bool {
        match self {
            Setup::Same => false,
            Setup::Differs => true,
            Setup::Refused { a, b } => a != b,
        }
    }
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub a: String,
    pub b: String,
    /// Settings in which B differs from A: (name, value under A, value under B).
    pub settings: Vec<(String, String, String)>,
    pub setup: Setup,
    pub decisions: u64,
    /// How many decisions part in outcome (all of them are in
    /// `divergences` with `all`).
    pub divergent: u64,
    pub refused_under_a: u64,
    pub refused_under_b: u64,
    /// The first divergence in outcome, or all of them (in record order) when asked.
    pub divergences: Vec<Divergence>,
    /// How many decisions differ only in the reasoning their facts record
    /// (or, both refused, in the reason).
    pub reasoning_only: u64,
    /// The first [`REASONING_KEPT`] of them, or all of them when asked.
    pub reasoning: Vec<Divergence>,
    /// The rendered states just after the first divergence, under A and B.
    pub at_first: Option<(String, String)>,
    /// The rendered states at the end, under A and B.
    pub at_end: (String, String),
}

/// How many reasoning-only decisions a report keeps, unless asked for all.
pub const REASONING_KEPT: usize = 10;

impl Report {
    /// Whether the versions agree on every outcome (exit 0).
    pub fn agree(&self) -> bool {
        !self.setup.parts() && self.divergent == 0
    }

    /// One line saying how it went.
    pub fn summary(&self) -> String {
        let (a, b) = (&self.a, &self.b);
        let reasoning = match self.reasoning_only {
            0 => String::new(),
            1 => "; 1 decision differs only in the reasoning its facts record".to_string(),
            n => format!("; {n} decisions differ only in the reasoning their facts record"),
        };
        if let Setup::Refused { a: ra, b: rb } = &self.setup {
            let which = match (ra, rb) {
                (Some(r), None) => format!("A refuses it: {r}"),
                (None, Some(r)) => format!("B refuses it: {r}"),
                (Some(_), Some(_)) if self.setup.parts() => "both refuse it, for other reasons".into(),
                _ => "both refuse it alike".into(),
            };
            let verdict = if self.setup.parts() { "part at the scenario" } else { "agree at the scenario" };
            return format!("{a} and {b} {verdict}: {which}; no decision was compared");
        }
        let setup = if self.setup.parts() { " (and they set the game up differently)" } else { "" };
        match self.divergences.first() {
            None if self.setup.parts() => format!(
                "{a} and {b} part at the set-up: the table before the first decision differs, though all {} decisions make the same changes under both{reasoning}",
                self.decisions
            ),
            None => format!("{a} and {b} agree on every outcome of all {} decisions{reasoning}", self.decisions),
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
                    "{a} and {b} part at seq {} (decision {}, turn {}): {} of {} decisions differ in outcome{refused}{setup}{reasoning}",
                    first.seq, first.number, first.turn, self.divergent, self.decisions
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
    /// The rule version itself is bad (a setting out of its range).
    #[error("{0}: {1}")]
    Open(String, OpenError),
    /// The record does not verify under its own rules: it is not diffed.
    #[error("{0}")]
    Unproven(VerifyFailure),
    #[error("this is a sealed record: diff does not yet replay dice revealed turn by turn (verify it; diff an open or table record)")]
    Sealed,
}

/// The game under `rules`: `Ok(Err(reason))` when `rules` refuses the
/// record's scenario (the versions part there), an error when the rules
/// themselves are bad input.
fn under(header: &Header, rules: &RuleVersion, registry: &Registry) -> Result<Result<Game, String>, DiffError> {
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
    match Game::open(h, registry) {
        Ok(mut game) => {
            game.tolerate_unused_table_dice();
            game.leave_links_unhashed();
            Ok(Ok(game))
        }
        // A setting out of range is the user's input, not the scenario.
        Err(OpenError::Scenario(e)) if e.field != "rules" && !e.field.starts_with("rules.") => {
            Ok(Err(format!("{}: {}", e.field, e.message)))
        }
        Err(e) => Err(DiffError::Open(rules.label(), e)),
    }
}

/// What one version made of a decision, before it is folded in.
enum Ran {
    Decided(Decided),
    Refused(String),
}

fn decide(
    game: &Game,
    body: &DecisionSeen,
    decision: &Value,
    dice: Option<&TableDice>,
    recorded: Option<&[Drawn]>,
) -> Ran {
    ran(game.decide_linked(decision, Decide { dice, by: body.by.as_deref(), as_drawn: recorded }), decision, dice)
}

/// What a version made of a decision, as events (none when refused).
fn ran(linked: Result<Linked, Refusal>, decision: &Value, dice: Option<&TableDice>) -> Ran {
    match linked {
        Ok(linked) => Ran::Decided(linked.into_events(decision, dice)),
        Err(Refusal::Violation(Violation::Dice(e))) => Ran::Refused(e.to_string()),
        Err(other) => Ran::Refused(other.to_string()),
    }
}

/// Folds what a version decided into its game (or skips the decision).
fn fold(game: &mut Game, ran: &mut Ran) {
    match ran {
        Ran::Decided(decided) => game.adopt_decided(decided),
        Ran::Refused(_) => game.pass_decision(),
    }
}

/// The rolls and facts narrated, for the report.
fn outcome(game: &Game, ran: &Ran) -> Outcome {
    match ran {
        Ran::Refused(reason) => Outcome::Refused { reason: reason.clone() },
        Ran::Decided(decided) => {
            let mut rolls = Vec::new();
            let mut facts = Vec::new();
            for e in &decided.events[1..] {
                match e.kind {
                    Kind::Roll => {
                        let r: RollBodyV1 = serde_json::from_value(e.body.clone()).expect("our own roll");
                        rolls.push(format!("{} {}#{} = {}", r.die, r.label, r.index, r.value));
                    }
                    Kind::Fact => facts.push(game.narrate(e).trim().to_string()),
                    Kind::Decision | Kind::Checkpoint | Kind::Reveal => {}
                }
            }
            Outcome::Decided { rolls, facts }
        }
    }
}
/// What the facts of a decision say happened, beyond the state: the kind
/// of each fact, in order, and every yes or no they record (a check passed,
/// a shot hit, units rallied), each at its place.
pub(crate) fn verdicts(events: &[Event]) -> Vec<(String, Value)> {
    fn walk(path: &mut String, value: &Value, out: &mut Vec<(String, Value)>) {
        match value {
            Value::Bool(_) => out.push((path.clone(), value.clone())),
            Value::Object(map) => {
                for (key, v) in map {
                    let len = path.len();
                    path.push('/');
                    path.push_str(key);
                    walk(path, v, out);
                    path.truncate(len);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("/{i}"));
                    walk(path, v, out);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (i, e) in events.iter().filter(|e| e.kind == Kind::Fact).enumerate() {
        let fact = &e.body["fact"];
        out.push((format!("{i}/type"), fact.get("type").cloned().unwrap_or(Value::Null)));
        walk(&mut i.to_string(), fact, &mut out);
    }
    out
}

/// What the rules decided so far: the state without the rule configuration
/// (each ruleset's `config`), which differs between versions by design.
pub fn decided_state(game: &Game) -> Value {
    let mut state = game.state();
    if let Value::Object(map) = &mut state {
        map.remove("config");
    }
    state
}

/// The change from `before` to `after`: each place whose value changed,
/// with its new value (none where it is gone). Lists of another length
/// change as a whole.
pub(crate) fn changes(before: &Value, after: &Value) -> Vec<(String, Option<Value>)> {
    fn walk(path: &mut String, before: &Value, after: &Value, out: &mut Vec<(String, Option<Value>)>) {
        match (before, after) {
            (Value::Object(x), Value::Object(y)) => {
                for (key, new) in y {
                    let len = path.len();
                    path.push('/');
                    path.push_str(key);
                    match x.get(key) {
                        Some(old) => walk(path, old, new, out),
                        None => out.push((path.clone(), Some(new.clone()))),
                    }
                    path.truncate(len);
                }
                for key in x.keys().filter(|k| !y.contains_key(*k)) {
                    out.push((format!("{path}/{key}"), None));
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (old, new)) in x.iter().zip(y).enumerate() {
                    let len = path.len();
                    path.push_str(&format!("/{i}"));
                    walk(path, old, new, out);
                    path.truncate(len);
                }
            }
            (old, new) if old != new => out.push((path.clone(), Some(new.clone()))),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&mut String::new(), before, after, &mut out);
    out.sort_by(|x, y| x.0.cmp(&y.0));
    out
}

/// How the versions compare on one decision: they agree, they part only in
/// the reasoning the facts record, or they part on its outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Agree,
    Reasoning,
    Outcome,
}

/// One decision of the record as both versions decided it, for a caller
/// that tallies more than a [`Report`] keeps (`crate::impact`).
pub struct Compared<'a> {
    /// The decision, as the record has it.
    pub decision: &'a Value,
    pub verdict: Verdict,
    /// The rolls and facts under A (after the decision event), or none when A refused it.
    pub a: Option<&'a [Event]>,
    /// The same under B.
    pub b: Option<&'a [Event]>,
}

/// Sees what a diff compares: each decision both versions could run, and
/// the two games at the end (none for a version that refused the scenario).
pub trait Observer {
    /// Whether it is shown each decision: the versions' rolls and facts are
    /// then built as events for every decision, not only where they part.
    fn sees_decisions(&self) -> bool {
        true
    }
    fn decision(&mut self, _compared: &Compared) {}
    fn end(&mut self, _a: Option<&Game>, _b: Option<&Game>) {}
}

impl Observer for () {
    fn sees_decisions(&self) -> bool {
        false
    }
}

/// The diff in progress: the versions' games, and what was found so far.
struct Run<'o> {
    /// Version A's game, when it is played apart from the proof (none
    /// while A is the proven game, and when A refuses the scenario).
    a: Option<Game>,
    /// A is the record's own rules in an open game: each decision's rolls
    /// and facts under A are the ones the proof just re-decided and checked
    /// against the record, and A's game is the proven game. A is then not
    /// decided again: B is compared with what the proof expects.
    a_is_proven: bool,
    b: Option<Game>,
    /// In a table game, the record's own rules, run alongside to know each
    /// die as they drew it (for a pick, its cup).
    record: Option<Game>,
    all: bool,
    report: Report,
    /// The divergences kept for the last decision, whose turn is known once
    /// its facts are folded in (at the next decision, or the end).
    pending: Vec<(bool, usize)>,
    observer: &'o mut dyn Observer,
}

/// What [`Run::decision_as_proven`] did with a decision.
enum AsProven {
    /// B folded it in.
    Taken,
    /// It is left for [`Run::decision`], with what B made of it if B
    /// decided it.
    Left(Option<Result<Linked, Refusal>>),
}

/// Folds what each version decided into its game, and says how the two
/// compare (`facts_differ`: both decided, with other rolls or facts): the
/// states are read (and compared by their changes) only when the rolls and
/// facts differ.
fn compare(a: &mut Game, b: &mut Game, ran_a: &mut Ran, ran_b: &mut Ran, facts_differ: bool) -> Verdict {
    // Facts that differ with the same verdicts part only in reasoning if
    // they change the state alike: only then are the states needed.
    let same_verdicts = facts_differ
        && matches!((&*ran_a, &*ran_b), (Ran::Decided(x), Ran::Decided(y)) if verdicts(&x.events) == verdicts(&y.events));
    // Most often both versions stand on the same table before the decision
    // (compared typed, no value built): the changes are then the same
    // exactly when the tables after it are (a change names each place that
    // differs from the same table, and its new value). Only tables that
    // differ are written as values (the costliest step of a diff), to
    // compare their changes.
    let before = match same_verdicts {
        false => Before::Unread,
        true if a.same_decided_state(b) => Before::Same,
        true => Before::States(decided_state(a), decided_state(b)),
    };
    fold(a, ran_a);
    fold(b, ran_b);
    match (&*ran_a, &*ran_b, before) {
        (Ran::Decided(_), Ran::Decided(_), Before::Unread) if !facts_differ => Verdict::Agree,
        (Ran::Decided(_), Ran::Decided(_), Before::Unread) => Verdict::Outcome,
        (Ran::Decided(_), Ran::Decided(_), Before::Same) if a.same_decided_state(b) => Verdict::Reasoning,
        (Ran::Decided(_), Ran::Decided(_), Before::Same) => Verdict::Outcome,
        (Ran::Decided(_), Ran::Decided(_), Before::States(state_a, state_b)) => {
            let same = changes(&state_a, &decided_state(a)) == changes(&state_b, &decided_state(b));
            if same {
                Verdict::Reasoning
            } else {
                Verdict::Outcome
            }
        }
        (Ran::Refused(x), Ran::Refused(y), _) if x == y => Verdict::Agree,
        (Ran::Refused(_), Ran::Refused(_), _) => Verdict::Reasoning,
        _ => Verdict::Outcome,
    }
}

/// The versions' tables before a decision, as far as they are read.
enum Before {
    /// Not needed: the rolls and facts settle the verdict.
    Unread,
    /// The same under both (the rule configuration aside).
    Same,
    /// Different: each, to compare the changes the decision makes.
    States(Value, Value),
}

/// Whether both versions decided, with other rolls or facts (in kind and
/// body, byte for byte).
fn facts_differ(ran_a: &Ran, ran_b: &Ran) -> bool {
    matches!((ran_a, ran_b), (Ran::Decided(x), Ran::Decided(y)) if !x.rolls_and_facts().eq(y.rolls_and_facts()))
}

impl Run<'_> {
    /// In a table game, the dice of a decision as the record's own rules
    /// drew them (each pick with its cup); none in an open game.
    fn recorded_dice(&mut self, decision: &Value, dice: Option<&TableDice>, by: Option<&str>) -> Option<Vec<Drawn>> {
        let record = self.record.as_mut()?;
        Some(match record.decide(decision, Decide { dice, by, as_drawn: None }) {
            Ok(decided) => {
                record.adopt(&decided.events);
                decided.drawn
            }
            Err(_) => {
                // Cannot happen on a proven record; verify reports it if it does.
                record.pass_decision();
                Vec::new()
            }
        })
    }

    /// The turn of the divergences kept for the last decision: the record's
    /// turn once that decision's rolls and facts are folded in.
    fn settle_pending(&mut self, turn: u32) {
        for &(reasoning, i) in &self.pending {
            let list = if reasoning { &mut self.report.reasoning } else { &mut self.report.divergences };
            list[i].turn = turn;
        }
        self.pending.clear();
    }

    /// A decision of the record taken from its line's canonical `body`,
    /// when B decides it as the proof expects and nothing else is asked of
    /// it (A is the proven game, nothing observes each decision): B folds
    /// in its rolls and facts, decided from the decision as the proof read
    /// and checked it, and no value is built. `false`, and nothing changed,
    /// otherwise: the decision is compared from its event
    /// ([`Run::decision`]), and what B made of it, if B decided it, is
    /// handed back for that (it is what B decides from the event).
    fn decision_as_proven(&mut self, proof: &Verifier, body: &[u8]) -> AsProven {
        if !self.a_is_proven || self.observer.sees_decisions() {
            return AsProven::Left(None);
        }
        // Kept only when it brought no dice (an open game's decision brings
        // none: the proof refuses any).
        let (Some(b), Some((kept, by))) = (self.b.as_ref(), proof.kept_decision()) else { return AsProven::Left(None) };
        let linked = match b.decide_linked_kept(kept, body, proof.game().decisions(), by) {
            Some(Ok(linked)) if linked.rolls_and_facts().eq(proof.expected()) => linked,
            decided => return AsProven::Left(decided),
        };
        self.settle_pending(proof.game().turn());
        self.report.decisions += 1;
        self.b.as_mut().expect("decided above").adopt_linked(linked);
        AsProven::Taken
    }

    /// A decision of the record, just proven and folded into the proof's
    /// game (its rolls and facts are what the proof now expects); what B
    /// made of it, if B decided it already ([`Run::decision_as_proven`]).
    fn decision(&mut self, proof: &Verifier, event: &Event, decided_b: Option<Result<Linked, Refusal>>) {
        let proven = proof.game();
        self.settle_pending(proven.turn());
        let Ok(body) = DecisionSeen::deserialize(&event.body) else {
            return; // verify has read it; it cannot be unreadable here
        };
        let table_dice = match &body.dice {
            Some(_) => match DecisionBody::deserialize(&event.body) {
                Ok(read) => read.dice,
                Err(_) => return, // as above
            },
            None => None,
        };
        let (decision, dice) = (&event.body["decision"], table_dice.as_ref());
        self.report.decisions += 1;
        let recorded = self.recorded_dice(decision, dice, body.by.as_deref());
        let Some(b) = self.b.as_mut() else {
            return; // B refused the scenario: nothing to compare
        };
        let linked_b = match decided_b {
            Some(decided) => decided,
            None => b.decide_linked(decision, Decide { dice, by: body.by.as_deref(), as_drawn: recorded.as_deref() }),
        };
        let sees = self.observer.sees_decisions();
        // A decides as the proof did: B is compared with what the proof
        // expects, and when they are the same (nearly every decision of a
        // rule change) only B's game moves, its events never built; A's is
        // the proof's.
        let linked_b = match linked_b {
            Ok(linked) if self.a_is_proven && !sees && linked.rolls_and_facts().eq(proof.expected()) => {
                b.adopt_linked(linked);
                return;
            }
            other => other,
        };
        let mut ran_b = ran(linked_b, decision, dice);
        let mut proven_a;
        let (a, ran_a, verdict) = if self.a_is_proven {
            // A's rolls and facts as events, and (unless they agree) A's
            // game apart from the proof's, to fold them into and read.
            let mut ran_a = Ran::Decided(proof.expected_events(event));
            let differ = facts_differ(&ran_a, &ran_b);
            if matches!(ran_b, Ran::Decided(_)) && !differ {
                fold(b, &mut ran_b);
                (None, ran_a, Verdict::Agree)
            } else {
                proven_a = proven.clone();
                let verdict = compare(&mut proven_a, b, &mut ran_a, &mut ran_b, differ);
                (Some(&proven_a), ran_a, verdict)
            }
        } else {
            let Some(a) = self.a.as_mut() else {
                return; // A refused the scenario: nothing to compare
            };
            let mut ran_a = decide(a, &body, decision, dice, recorded.as_deref());
            let differ = facts_differ(&ran_a, &ran_b);
            let verdict = compare(a, b, &mut ran_a, &mut ran_b, differ);
            (Some(&*a), ran_a, verdict)
        };
        let report = &mut self.report;
        report.refused_under_a += u64::from(matches!(ran_a, Ran::Refused(_)));
        report.refused_under_b += u64::from(matches!(ran_b, Ran::Refused(_)));
        fn events(ran: &Ran) -> Option<&[Event]> {
            match ran {
                Ran::Decided(decided) => Some(&decided.events[1..]),
                Ran::Refused(_) => None,
            }
        }
        if sees {
            let (events_a, events_b) = (events(&ran_a), events(&ran_b));
            self.observer.decision(&Compared { decision, verdict, a: events_a, b: events_b });
        }
        // A's game is at hand whenever the versions part.
        let Some(a) = a else { return };
        if report.count(verdict, self.all, || (a.render(), b.render())) {
            let divergence = Divergence {
                seq: event.seq,
                number: body.number,
                turn: proven.turn(),
                decision: describe_decision(decision),
                a: outcome(a, &ran_a),
                b: outcome(b, &ran_b),
            };
            let reasoning = verdict == Verdict::Reasoning;
            let list = if reasoning { &mut report.reasoning } else { &mut report.divergences };
            list.push(divergence);
            self.pending.push((reasoning, list.len() - 1));
        }
    }
}

impl Report {
    /// Counts a decision the versions decided as `verdict` says, and
    /// whether its divergence is kept: every one with `all`, else the
    /// first in outcome and the first [`REASONING_KEPT`] in reasoning. The
    /// games just after the first divergence in outcome are rendered then
    /// (`at_first`).
    fn count(&mut self, verdict: Verdict, all: bool, at_first: impl FnOnce() -> (String, String)) -> bool {
        match verdict {
            Verdict::Agree => false,
            Verdict::Reasoning => {
                self.reasoning_only += 1;
                all || self.reasoning.len() < REASONING_KEPT
            }
            Verdict::Outcome => {
                self.divergent += 1;
                if self.at_first.is_none() {
                    self.at_first = Some(at_first());
                }
                all || self.divergences.is_empty()
            }
        }
    }
}

fn render_or(game: &Option<Game>, refused: &str) -> String {
    game.as_ref().map_or_else(|| format!("({refused} refuses the scenario)\n"), Game::render)
}

/// Diffs a record's decisions under `a` and `b`, once it is proven under
/// its own rules. With `all`, every divergence is kept; otherwise only the
/// first (all are counted).
pub fn diff<E: Display>(
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
    a: &RuleVersion,
    b: &RuleVersion,
    all: bool,
    registry: &Registry,
) -> Result<Report, DiffError> {
    diff_observed(header, events, a, b, all, registry, &mut ())
}

/// [`diff`], showing `observer` each decision compared and the games at the end.
pub fn diff_observed<E: Display>(
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
    a: &RuleVersion,
    b: &RuleVersion,
    all: bool,
    registry: &Registry,
    observer: &mut dyn Observer,
) -> Result<Report, DiffError> {
    let mut diff = Diff::new(header, a, b, all, registry, observer)?;
    for event in events {
        let event = event.map_err(|e| diff.unreadable(e))?;
        diff.push(&event)?;
    }
    diff.finish()
}

/// A diff fed one event (or one line of a record file) at a time, as the
/// record streams: what [`diff`] runs.
pub struct Diff<'o> {
    proof: Verifier,
    run: Run<'o>,
}

impl<'o> Diff<'o> {
    /// A diff of the record `header` begins, under `a` and `b` (versions
    /// of its ruleset in `registry`).
    pub fn new(
        header: &Header,
        a: &RuleVersion,
        b: &RuleVersion,
        all: bool,
        registry: &Registry,
        observer: &'o mut dyn Observer,
    ) -> Result<Diff<'o>, DiffError> {
        Diff::start(header, a, b, all, registry, observer, true)
    }

    /// [`Diff::new`]; with `a_may_be_proven` false, A is decided on its own
    /// game even when it is the record's rules (the tests hold the two ways
    /// to the same report).
    fn start(
        header: &Header,
        a: &RuleVersion,
        b: &RuleVersion,
        all: bool,
        registry: &Registry,
        observer: &'o mut dyn Observer,
        a_may_be_proven: bool,
    ) -> Result<Diff<'o>, DiffError> {
        // A header that does not open fails as verify fails, before anything else.
        let mut proof = Verifier::new(header, registry).map_err(DiffError::Unproven)?;
        let game_a = under(header, a, registry)?;
        let game_b = under(header, b, registry)?;
        let setup = match (&game_a, &game_b) {
            (Ok(x), Ok(y)) if decided_state(x) == decided_state(y) => Setup::Same,
            (Ok(_), Ok(_)) => Setup::Differs,
            (x, y) => Setup::Refused { a: x.as_ref().err().cloned(), b: y.as_ref().err().cloned() },
        };
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
        let record = match header.mode {
            SeedMode::Table => Some(Game::open(header.clone(), registry).expect("opened above")),
            SeedMode::Open => None,
            // A sealed turn's dice are known only once the server reveals it, after
            // the turn's decisions: diff would have to hold each turn back, as
            // verify does. Until it does, it says so rather than compare
            // decisions neither version could roll for.
            SeedMode::Sealed => return Err(DiffError::Sealed),
        };
        // In an open game, A with the record's own rules (the same hash, and
        // the same table set up) draws every die as the record did and
        // decides every decision as the proof does.
        let a_is_proven = a_may_be_proven
            && header.mode == SeedMode::Open
            && a.hash() == header.rules_hash
            && game_a.as_ref().is_ok_and(|game| game.state() == proof.game().state());
        let run = Run {
            // While A is the proven game, the proof holds it (until the end).
            a: if a_is_proven { None } else { game_a.ok() },
            a_is_proven,
            b: game_b.ok(),
            record,
            all,
            pending: Vec::new(),
            observer,
            report: Report {
                a: a.label(),
                b: b.label(),
                settings,
                setup,
                decisions: 0,
                divergent: 0,
                refused_under_a: 0,
                refused_under_b: 0,
                divergences: Vec::new(),
                reasoning_only: 0,
                reasoning: Vec::new(),
                at_first: None,
                at_end: (String::new(), String::new()),
            },
        };
        if run.a_is_proven {
            // B decides each decision as the proof read it (`Run::decision_as_proven`).
            proof.keep_decisions();
        }
        Ok(Diff { proof, run })
    }

    /// Folds in the next event from its line as read, as the proof takes it
    /// ([`Verifier::take_line`]): a roll or fact byte for byte the one the
    /// proof expects next (compared when its decision is, not line by
    /// line), or the decision due next, read once from its line and then
    /// compared under both versions as [`Diff::push`] compares it.
    pub fn take_line(&mut self, line: &[u8]) -> bool {
        self.take_line_proven(line, None)
    }

    /// [`Diff::take_line`], given what a reader ahead proved of the line
    /// ([`LinkProof`]): a line proven from the head is not hashed again.
    pub fn take_line_proven(&mut self, line: &[u8], link: Option<&LinkProof>) -> bool {
        self.take_line_read(line, link, None)
    }

    /// [`Diff::take_line_proven`], given too the decision a reader ahead
    /// read from the line with the reader [`Diff::decision_reader`] gave
    /// ([`Verifier::take_line_read`]).
    pub fn take_line_read(&mut self, line: &[u8], link: Option<&LinkProof>, read: Option<KeptDecision>) -> bool {
        if self.proof.take_decided_line(line, link) {
            return true;
        }
        // A decision the proof takes from its line is compared as a pushed one is.
        let Some(body) = self.proof.take_decision(line, link, read) else { return false };
        if let AsProven::Left(decided_b) = self.run.decision_as_proven(&self.proof, body) {
            let game = self.proof.game();
            let body = serde_json::from_slice(body).expect("the proof read this body");
            let event = Event { seq: game.seq(), kind: Kind::Decision, body, hash: game.head() };
            self.run.decision(&self.proof, &event, decided_b);
        }
        true
    }

    /// How the record's ruleset reads a decision's text on no state, for a
    /// reader ahead ([`Diff::take_line_read`]).
    pub fn decision_reader(&self) -> DecisionReader {
        self.proof.decision_reader()
    }

    /// Proves the next event and, for a decision, compares the versions on it.
    pub fn push(&mut self, event: &Event) -> Result<(), DiffError> {
        self.proof.push(event).map_err(DiffError::Unproven)?;
        if event.kind == Kind::Decision {
            self.run.decision(&self.proof, event, None);
        }
        Ok(())
    }

    /// The failure for an event that could not be read where the next is due.
    pub fn unreadable(&self, e: impl Display) -> DiffError {
        DiffError::Unproven(self.proof.unreadable(e))
    }

    /// The end of the record: the report, once the whole record is proven.
    pub fn finish(self) -> Result<Report, DiffError> {
        let Diff { proof, mut run } = self;
        let (_, proven) = proof.finish().map_err(DiffError::Unproven)?;
        run.settle_pending(proven.turn());
        if run.a_is_proven {
            run.a = Some(proven);
        }
        run.report.at_end = (render_or(&run.a, "A"), render_or(&run.b, "B"));
        run.observer.end(run.a.as_ref(), run.b.as_ref());
        Ok(run.report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{SettingKind, SettingValue};

    /// A scenario of each ruleset, from the fixtures.
    fn scenarios() -> Vec<(&'static str, Value)> {
        let scripts = [
            include_str!("../../fixtures/leader-activation/rally.json"),
            include_str!("../../fixtures/phoenix-command/three-turns.json"),
            include_str!("../../fixtures/combat-hq/showcase.json"),
            include_str!("../../fixtures/combat-hq/example-all-in-reserve.json"),
            include_str!("../../fixtures/formation-activation/three-turns.json"),
        ];
        scripts
            .iter()
            .map(|text| {
                let script: Value = serde_json::from_str(text).unwrap();
                let rules = script["rules"].as_str().or_else(|| script["rules"]["version"].as_str()).unwrap();
                let ruleset = crate::registry::find(rules.split('@').next().unwrap()).unwrap().id;
                (ruleset, script["scenario"].clone())
            })
            .collect()
    }

    /// What diff compares as "the state" leaves out only the rule
    /// configuration; that is sound because every ruleset keeps its settings
    /// in its state's `config` and nowhere else: changing any one option or
    /// constant of any version changes nothing else of the state a scenario
    /// sets up.
    #[test]
    fn every_ruleset_keeps_its_settings_in_its_states_config_alone() {
        let mut checked = 0;
        for (ruleset, scenario) in scenarios() {
            let info = crate::registry::find(ruleset).unwrap();
            for spec in (info.versions)() {
                let defaults = spec.defaults();
                let Ok(plain) = (info.load)(&scenario, &defaults) else { continue };
                assert!(plain.state().get("config").is_some(), "{}: the state has no config", spec.id());
                for setting in &spec.settings {
                    let mut changed = defaults.clone();
                    match (setting.kind, setting.default) {
                        (SettingKind::Option, SettingValue::Flag(on)) => {
                            changed.options.insert(setting.name.to_string(), !on);
                        }
                        (SettingKind::Constant, SettingValue::Integer(n)) => {
                            changed.constants.insert(setting.name.to_string(), n + 1);
                        }
                        _ => unreachable!(),
                    }
                    let Ok(other) = (info.load)(&scenario, &changed) else { continue };
                    let strip = |mut v: Value| {
                        v.as_object_mut().unwrap().remove("config");
                        v
                    };
                    assert_ne!(plain.state()["config"], other.state()["config"], "{} {}", spec.id(), setting.name);
                    assert_eq!(
                        strip(plain.state()),
                        strip(other.state()),
                        "{}: {} changes the state outside its config",
                        spec.id(),
                        setting.name
                    );
                    // The typed comparison leaves out the config, and only it.
                    assert!(plain.same_decided(&*other), "{}: {} is compared typed", spec.id(), setting.name);
                    checked += 1;
                }
            }
        }
        assert!(checked >= 40, "only {checked} settings were checked");
    }

    /// Every fixture script played into a record: its header and events.
    fn fixture_records() -> Vec<(&'static str, Header, Vec<Event>)> {
        let scripts = [
            ("fixtures/combat-hq/artillery-alone.json", include_str!("../../fixtures/combat-hq/artillery-alone.json")),
            (
                "fixtures/combat-hq/command-failure-base.json",
                include_str!("../../fixtures/combat-hq/command-failure-base.json"),
            ),
            (
                "fixtures/combat-hq/command-failure-multi-bg.json",
                include_str!("../../fixtures/combat-hq/command-failure-multi-bg.json"),
            ),
            (
                "fixtures/combat-hq/example-all-in-reserve.json",
                include_str!("../../fixtures/combat-hq/example-all-in-reserve.json"),
            ),
            (
                "fixtures/combat-hq/example-four-companies-deployed.json",
                include_str!("../../fixtures/combat-hq/example-four-companies-deployed.json"),
            ),
            ("fixtures/combat-hq/showcase.json", include_str!("../../fixtures/combat-hq/showcase.json")),
            (
                "fixtures/combat-hq/showcase.multi-bg.json",
                include_str!("../../fixtures/combat-hq/showcase.multi-bg.json"),
            ),
            (
                "fixtures/formation-activation/62nd-regiment.json",
                include_str!("../../fixtures/formation-activation/62nd-regiment.json"),
            ),
            (
                "fixtures/formation-activation/hq-destroyed.json",
                include_str!("../../fixtures/formation-activation/hq-destroyed.json"),
            ),
            (
                "fixtures/formation-activation/out-of-command.json",
                include_str!("../../fixtures/formation-activation/out-of-command.json"),
            ),
            (
                "fixtures/formation-activation/rally-leadership-adds-to-rating.json",
                include_str!("../../fixtures/formation-activation/rally-leadership-adds-to-rating.json"),
            ),
            (
                "fixtures/formation-activation/rally-per-hex.json",
                include_str!("../../fixtures/formation-activation/rally-per-hex.json"),
            ),
            (
                "fixtures/formation-activation/rally.json",
                include_str!("../../fixtures/formation-activation/rally.json"),
            ),
            (
                "fixtures/formation-activation/three-turns.json",
                include_str!("../../fixtures/formation-activation/three-turns.json"),
            ),
            (
                "fixtures/formation-activation/two-chits.json",
                include_str!("../../fixtures/formation-activation/two-chits.json"),
            ),
            (
                "fixtures/formation-activation/two-operations.json",
                include_str!("../../fixtures/formation-activation/two-operations.json"),
            ),
            (
                "fixtures/leader-activation/casualties.json",
                include_str!("../../fixtures/leader-activation/casualties.json"),
            ),
            ("fixtures/leader-activation/rally.json", include_str!("../../fixtures/leader-activation/rally.json")),
            (
                "fixtures/leader-activation/self-rally.json",
                include_str!("../../fixtures/leader-activation/self-rally.json"),
            ),
            ("fixtures/leader-activation/skips.json", include_str!("../../fixtures/leader-activation/skips.json")),
            (
                "fixtures/phoenix-command/abandonment.json",
                include_str!("../../fixtures/phoenix-command/abandonment.json"),
            ),
            (
                "fixtures/phoenix-command/accumulate-at-cap.json",
                include_str!("../../fixtures/phoenix-command/accumulate-at-cap.json"),
            ),
            (
                "fixtures/phoenix-command/activation-order.json",
                include_str!("../../fixtures/phoenix-command/activation-order.json"),
            ),
            ("fixtures/phoenix-command/ambush.json", include_str!("../../fixtures/phoenix-command/ambush.json")),
            ("fixtures/phoenix-command/breveting.json", include_str!("../../fixtures/phoenix-command/breveting.json")),
            (
                "fixtures/phoenix-command/command-check.json",
                include_str!("../../fixtures/phoenix-command/command-check.json"),
            ),
            (
                "fixtures/phoenix-command/consolidation.json",
                include_str!("../../fixtures/phoenix-command/consolidation.json"),
            ),
            (
                "fixtures/phoenix-command/farmhouse-assault.json",
                include_str!("../../fixtures/phoenix-command/farmhouse-assault.json"),
            ),
            (
                "fixtures/phoenix-command/five-turns.json",
                include_str!("../../fixtures/phoenix-command/five-turns.json"),
            ),
            (
                "fixtures/phoenix-command/reorganisation.json",
                include_str!("../../fixtures/phoenix-command/reorganisation.json"),
            ),
            (
                "fixtures/phoenix-command/stragglers.json",
                include_str!("../../fixtures/phoenix-command/stragglers.json"),
            ),
            (
                "fixtures/phoenix-command/stray-fire.json",
                include_str!("../../fixtures/phoenix-command/stray-fire.json"),
            ),
            (
                "fixtures/phoenix-command/three-turns.json",
                include_str!("../../fixtures/phoenix-command/three-turns.json"),
            ),
            (
                "fixtures/phoenix-command/unused-cp-lost.json",
                include_str!("../../fixtures/phoenix-command/unused-cp-lost.json"),
            ),
        ];
        let mut records = Vec::new();
        for (name, text) in scripts {
            let script = crate::script::Script::parse(text, "fixture", crate::registry::builtin()).unwrap();
            let mut game = Game::open(script.header.clone(), crate::registry::builtin()).unwrap();
            let played: Result<Vec<Vec<Event>>, _> =
                script.decisions.iter().map(|(decision, dice)| game.play(decision, dice.as_ref())).collect();
            records.push((name, script.header, played.unwrap().concat()));
        }
        records
    }

    /// A diff run to its end, A decided on its own game or not.
    fn run(
        header: &Header,
        events: &[Event],
        b: &RuleVersion,
        all: bool,
        a_may_be_proven: bool,
    ) -> Result<Value, DiffError> {
        let unobserved = &mut ();
        let mut diff =
            Diff::start(header, &header.rules, b, all, crate::registry::builtin(), unobserved, a_may_be_proven)?;
        for event in events {
            diff.push(event)?;
        }
        Ok(serde_json::to_value(diff.finish()?).unwrap())
    }

    /// [`run`] as `diff FILE` runs: each event's line taken as read when it
    /// can be ([`Diff::take_line_read`]), else pushed; with `ahead`, its
    /// link proven, and a decision read and its body scanned, ahead as the
    /// file's reader does.
    fn run_lines(
        header: &Header,
        events: &[Event],
        b: &RuleVersion,
        all: bool,
        ahead: bool,
    ) -> Result<Value, DiffError> {
        let unobserved = &mut ();
        let mut diff = Diff::new(header, &header.rules, b, all, crate::registry::builtin(), unobserved)?;
        let header_line = crate::record::encode_header(header).unwrap();
        let mut chain = ahead.then(|| crate::record::LinkChain::new(header_line.as_bytes()).scanning_decisions());
        let reader = diff.decision_reader();
        for event in events {
            let line = crate::record::encode_event(event).unwrap();
            let proof = chain.as_mut().and_then(|chain| chain.prove(line.as_bytes()));
            let text = proof.as_ref().and_then(|proof| proof.decision_text(line.as_bytes()));
            let read = text.and_then(|text| reader.read(text));
            if !diff.take_line_read(line.as_bytes(), proof.as_ref(), read) {
                diff.push(event)?;
            }
        }
        Ok(serde_json::to_value(diff.finish()?).unwrap())
    }

    /// A that is the record's own rules is the proven game, and B is
    /// compared with what the proof expects: the report is the one diff
    /// gives deciding A on its own game, for every fixture and every
    /// setting of its version changed in B; and so it is with the lines
    /// taken as read (B deciding each decision as the proof read it).
    #[test]
    fn a_as_the_proven_game_reports_as_a_decided_on_its_own() {
        let mut compared = 0;
        let mut parted = 0;
        for (name, header, events) in fixture_records() {
            let spec = crate::registry::version(&header.rules.version).unwrap();
            for setting in &spec.settings {
                let mut b = header.rules.clone();
                match (setting.kind, setting.default) {
                    (SettingKind::Option, SettingValue::Flag(_)) => {
                        let on = b.options.get(setting.name).copied().unwrap_or_default();
                        b.options.insert(setting.name.to_string(), !on);
                    }
                    (SettingKind::Constant, SettingValue::Integer(_)) => {
                        let n = b.constants.get(setting.name).copied().unwrap_or_default();
                        b.constants.insert(setting.name.to_string(), n + 1);
                    }
                    _ => unreachable!(),
                }
                for all in [false, true] {
                    let proven = run(&header, &events, &b, all, true);
                    let own = run(&header, &events, &b, all, false);
                    assert_eq!(proven, own, "{name}, B changes {}", setting.name);
                    let taken = run_lines(&header, &events, &b, all, false);
                    assert_eq!(taken, own, "{name}, B changes {}, lines taken as read", setting.name);
                    let ahead = run_lines(&header, &events, &b, all, true);
                    assert_eq!(ahead, own, "{name}, B changes {}, lines read ahead", setting.name);
                    if let Ok(report) = proven {
                        compared += 1;
                        parted += u64::from(report["divergent"] != 0 || report["reasoning_only"] != 0);
                    }
                }
            }
        }
        assert!(compared >= 100 && parted >= 10, "only {compared} diffs compared, {parted} parting");
    }

    /// The typed comparison of two games' states says what comparing their
    /// decided states (as values, the config aside) says: each state of
    /// every fixture against itself, a copy, and the state one decision
    /// before.
    #[test]
    fn the_typed_comparison_is_that_of_the_decided_states() {
        for (name, header, events) in fixture_records() {
            let mut game = Game::open(header, crate::registry::builtin()).unwrap();
            let mut before = game.clone();
            for event in &events {
                game.apply(event).unwrap();
                if event.kind == Kind::Decision {
                    let same = decided_state(&game) == decided_state(&before);
                    assert_eq!(game.same_decided_state(&before), same, "{name}, seq {}", event.seq);
                    assert!(game.same_decided_state(&game.clone()), "{name}, seq {}", event.seq);
                    before = game.clone();
                }
            }
        }
    }

    #[test]
    fn changes_name_each_place_and_its_new_value() {
        let before =
            serde_json::json!({"units": {"u1": {"broken": true, "at": [1, 2]}, "u2": {"broken": false}}, "log": [1]});
        let after = serde_json::json!({"units": {"u1": {"broken": false, "at": [1, 2]}, "u3": {}}, "log": [1, 2]});
        assert_eq!(
            changes(&before, &after),
            vec![
                ("/log".to_string(), Some(serde_json::json!([1, 2]))),
                ("/units/u1/broken".to_string(), Some(Value::Bool(false))),
                ("/units/u2".to_string(), None),
                ("/units/u3".to_string(), Some(serde_json::json!({}))),
            ]
        );
        assert!(changes(&before, &before).is_empty());
    }
}
