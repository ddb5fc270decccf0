//! One given / when / then harness for every ruleset's unit tests:
//!
//! ```text
//! given::<LeaderActivation>(state)
//!     .decided(json!({"type": "begin-turn", "first": "allies"}))
//!     .when(json!({"type": "activate", "leader": "vogel"}))
//!     .then_refused_saying(Shared::NotYourTurn, "it is for allies to activate a leader");
//! ```
//!
//! - `given` starts from a state (a scenario's initial one, usually), and
//!   takes what has happened: facts (`facts`), folded in as replay folds
//!   them, or decisions (`decided`, `decided_rolling`), each decided and its
//!   facts folded in, as a game would.
//! - `when` decides one decision on that state. Every decision, given or
//!   not, is numbered as in a game (the first is 1), and its table dice are
//!   handed out under that number, so a rule that looks at the decision's
//!   dice sees what a real game shows; dice the test gives and the decision
//!   does not roll are refused, as at the table.
//! - `then` demands the facts, `then_refused` a refusal of a kind (a
//!   ruleset's `Refused` or a [`Shared`] kind), `then_refused_saying` one of a
//!   kind whose message says a part the test expects; `facts` and
//!   `refusal_of(kind)` (the message of a refusal that must be of that kind)
//!   hand either over for a closer look.
//!
//! Every assertion reports the test's own line (`#[track_caller]`).

use std::fmt::Debug;

use serde_json::Value;

use crate::dice::{Dice, TableDice};
use crate::refusal::{RefusalKind, Shared};
use crate::ruleset::Ruleset;

/// A game of ruleset `R` so far: its state and how many decisions made it.
pub(crate) struct Given<R: Ruleset> {
    state: R::State,
    decisions: u64,
}

impl<R: Ruleset> Clone for Given<R> {
    fn clone(&self) -> Self {
        Given { state: self.state.clone(), decisions: self.decisions }
    }
}

/// A game reads as its state: `unit(&game, "t-72")`, `game.turn`.
impl<R: Ruleset> std::ops::Deref for Given<R> {
    type Target = R::State;

    fn deref(&self) -> &R::State {
        &self.state
    }
}

/// A game of ruleset `R` from `state`, before any decision.
pub(crate) fn given<R: Ruleset>(state: R::State) -> Given<R> {
    Given { state, decisions: 0 }
}

/// Table dice as a test writes them: `&[("rally", &[4, 2])]`.
pub(crate) type Rolls<'a> = &'a [(&'a str, &'a [u32])];

fn table(rolls: Rolls) -> TableDice {
    rolls.iter().map(|(label, faces)| (label.to_string(), faces.to_vec())).collect()
}

impl<R: Ruleset> Given<R> {
    /// The game after these facts, folded in (no decision is counted).
    pub(crate) fn facts<'f>(mut self, facts: impl IntoIterator<Item = &'f R::Fact>) -> Self
    where
        R::Fact: 'f,
    {
        for fact in facts {
            R::evolve(&mut self.state, fact);
        }
        self
    }

    /// The game after one more decision, which rolls no dice and must be
    /// accepted.
    #[track_caller]
    pub(crate) fn decided(self, decision: Value) -> Self {
        self.decided_rolling(decision, &[])
    }

    /// The game after one more decision, with its table dice; it must be
    /// accepted.
    #[track_caller]
    pub(crate) fn decided_rolling(self, decision: Value, rolls: Rolls) -> Self {
        let when = self.when_rolling(decision, rolls);
        let facts = match when.result {
            Ok(facts) => facts,
            Err(e) => panic!("given {} was refused: {e}", when.decision),
        };
        let mut next = self.facts(&facts);
        next.decisions += 1;
        next
    }

    /// The game after each of these decisions, in order.
    #[track_caller]
    pub(crate) fn decided_all(self, decisions: &[Value]) -> Self {
        decisions.iter().fold(self, |g, d| g.decided(d.clone()))
    }

    /// One more decision, rolling no dice, decided on the game as it is.
    pub(crate) fn when(&self, decision: Value) -> When<R> {
        self.when_rolling(decision, &[])
    }

    /// One more decision with its table dice, decided on the game as it is.
    pub(crate) fn when_rolling(&self, decision: Value, rolls: Rolls) -> When<R> {
        let result = (|| {
            let typed: R::Decision = serde_json::from_value(decision.clone())
                .map_err(|e| Refused { kind: Shared::Malformed.kind(), message: format!("malformed: {e}") })?;
            let table = table(rolls);
            let mut dice = Dice::table(&table, self.decisions + 1);
            let facts = R::decide(&self.state, &typed, &mut dice)
                .map_err(|e| Refused { kind: e.kind(), message: e.to_string() })?;
            dice.finish().map_err(|e| Refused { kind: Shared::Dice.kind(), message: e.to_string() })?;
            Ok(facts)
        })();
        When { decision, result }
    }

    /// The state the next decision is decided on.
    pub(crate) fn state(&self) -> &R::State {
        &self.state
    }

    /// The state, to set up by hand what no decision or fact reaches.
    pub(crate) fn state_mut(&mut self) -> &mut R::State {
        &mut self.state
    }

    /// How many decisions made this game: the next is number `decisions() + 1`.
    pub(crate) fn decisions(&self) -> u64 {
        self.decisions
    }
}

/// A refusal as a test sees it: its kind and its message.
#[derive(Debug)]
struct Refused {
    kind: RefusalKind,
    message: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.kind)
    }
}

/// What one decision led to: its facts, or the refusal.
pub(crate) struct When<R: Ruleset> {
    decision: Value,
    result: Result<Vec<R::Fact>, Refused>,
}

impl<R: Ruleset> When<R>
where
    R::Fact: Debug + PartialEq,
{
    /// The decision was accepted, with exactly these facts.
    #[track_caller]
    pub(crate) fn then(self, expected: impl IntoIterator<Item = R::Fact>) {
        let expected: Vec<R::Fact> = expected.into_iter().collect();
        assert_eq!(self.facts(), expected);
    }

    /// The decision was refused, with a refusal of `kind`.
    #[track_caller]
    pub(crate) fn then_refused(self, kind: impl Into<RefusalKind>) {
        let (actual, message) = self.refused();
        let kind = kind.into();
        assert_eq!(actual, kind, "the refusal {message:?} is {actual}, not {kind}");
    }

    /// The decision was refused, with a refusal of `kind` saying `needle`.
    #[track_caller]
    pub(crate) fn then_refused_saying(self, kind: impl Into<RefusalKind>, needle: &str) {
        let (actual, message) = self.refused();
        let kind = kind.into();
        assert_eq!(actual, kind, "the refusal {message:?} is {actual}, not {kind}");
        assert!(message.contains(needle), "the refusal {message:?} does not say {needle:?}");
    }

    /// The facts of a decision that must be accepted.
    #[track_caller]
    pub(crate) fn facts(self) -> Vec<R::Fact> {
        match self.result {
            Ok(facts) => facts,
            Err(e) => panic!("expected {} to be accepted, but it was refused: {e}", self.decision),
        }
    }

    /// The kind and message of a decision that must be refused.
    #[track_caller]
    fn refused(self) -> (RefusalKind, String) {
        match self.result {
            Err(e) => (e.kind, e.message),
            Ok(facts) => panic!("expected {} to be refused, but it gave the facts {facts:?}", self.decision),
        }
    }

    /// The message of a decision that must be refused with a refusal of `kind`.
    #[track_caller]
    pub(crate) fn refusal_of(self, kind: impl Into<RefusalKind>) -> String {
        let (actual, message) = self.refused();
        let kind = kind.into();
        assert_eq!(actual, kind, "the refusal {message:?} is {actual}, not {kind}");
        message
    }

    /// The facts or the refusal's message, as they are.
    pub(crate) fn result(self) -> Result<Vec<R::Fact>, String> {
        self.result.map_err(|e| e.message)
    }
}

mod tests {
    use serde_json::json;

    use super::*;
    use crate::rulesets::leader_activation::{Fact, LeaderActivation};

    fn table() -> Given<LeaderActivation> {
        let scenario = json!({
            "sides": ["allies", "axis"],
            "leaders": [{"id": "adams", "side": "allies", "at": [0, 0]}, {"id": "vogel", "side": "axis", "at": [0, 1000]}],
            "units": [{"id": "able", "side": "allies", "at": [10, 0]}]
        });
        let rules = LeaderActivation::versions().remove(0).defaults();
        given(LeaderActivation::initial(serde_json::from_value(scenario).unwrap(), &rules).unwrap())
    }

    #[test]
    fn given_decisions_are_counted_and_their_facts_folded_in() {
        let g = table().decided(json!({"type": "begin-turn", "first": "allies"}));
        assert_eq!(g.decisions(), 1);
        assert_eq!(g.state().turn.as_ref().map(|t| t.number), Some(1));
        let g = g.decided(json!({"type": "activate", "leader": "adams"}));
        assert_eq!(g.decisions(), 2);
        g.when(json!({"type": "activate", "leader": "vogel"}))
            .then_refused_saying(Shared::StillActive, "adams is still being activated");
    }

    #[test]
    fn given_facts_are_folded_in_without_a_decision() {
        let began = table().when(json!({"type": "begin-turn", "first": "axis"})).facts();
        assert!(matches!(began[..], [Fact::TurnBegan { .. }]));
        let g = table().facts(&began);
        assert_eq!(g.decisions(), 0);
        g.when(json!({"type": "begin-turn", "first": "axis"}))
            .then_refused_saying(Shared::TurnNotOver, "turn 1 is not over");
    }

    #[test]
    fn a_malformed_decision_and_dice_not_rolled_are_refusals() {
        table().when(json!({"type": "no-such-decision"})).then_refused_saying(Shared::Malformed, "malformed");
        table()
            .when_rolling(json!({"type": "begin-turn", "first": "axis"}), &[("rally", &[6])])
            .then_refused_saying(Shared::Dice, "rally");
    }

    #[test]
    #[should_panic(expected = "was refused")]
    fn a_given_decision_the_rules_refuse_fails_the_test() {
        table().decided(json!({"type": "activate", "leader": "adams"}));
    }

    #[test]
    #[should_panic(expected = "is turn-not-over, not still-active")]
    fn then_refused_fails_on_a_refusal_of_another_kind() {
        let g = table().decided(json!({"type": "begin-turn", "first": "allies"}));
        g.when(json!({"type": "begin-turn", "first": "axis"})).then_refused(Shared::StillActive);
    }

    #[test]
    #[should_panic(expected = "does not say")]
    fn then_refused_saying_fails_on_another_message() {
        let g = table().decided(json!({"type": "begin-turn", "first": "allies"}));
        g.when(json!({"type": "begin-turn", "first": "axis"})).then_refused_saying(Shared::TurnNotOver, "turn 2");
    }

    #[test]
    #[should_panic(expected = "to be refused")]
    fn then_refused_fails_on_facts() {
        table().when(json!({"type": "begin-turn", "first": "axis"})).then_refused(Shared::TurnNotOver);
    }
}
