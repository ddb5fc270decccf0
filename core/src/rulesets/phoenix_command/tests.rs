//! Tests of the phoenix-command rules, in given / when / then shape: given a
//! scenario and the decisions played so far, when one more decision is
//! decided, then these facts — or this refusal. One helper, [`check`], keeps
//! the tests independent of the engine's API. Dice are table dice: each test
//! says which faces were rolled.
//!
//! One file per section of the text, as in the module itself.

mod actions;
mod command;
mod fire;
mod games;
mod interrupts;
mod melee;
mod morale;
mod organisation;
mod refusals;
mod scenario;
mod turn;

use serde_json::{json, Value};

use crate::dice::{Dice, TableDice};
use crate::rules::RuleVersion;
use crate::ruleset::Ruleset;

use super::{versions, Fact, PhoenixCommand, Scenario, State};

/// `phoenix-command@1` with the named options on.
pub(super) fn rules(options: &[&str]) -> RuleVersion {
    let mut r = versions()[0].defaults();
    for o in options {
        assert!(r.options.contains_key(*o), "no option {o}");
        r.options.insert(o.to_string(), true);
    }
    r
}

/// A game so far.
pub(super) struct Given {
    pub state: State,
    decisions: u64,
}

pub(super) fn given(scenario: Value) -> Given {
    given_with(scenario, &[])
}

pub(super) fn given_with(scenario: Value, options: &[&str]) -> Given {
    let s: Scenario = serde_json::from_value(scenario).expect("the scenario parses");
    Given { state: PhoenixCommand::initial(s, &rules(options)).expect("the scenario is valid"), decisions: 0 }
}

/// Table dice from `[("check:alan", &[3])]`.
fn table_dice(dice: &[(&str, &[u32])]) -> TableDice {
    dice.iter().map(|(label, faces)| (label.to_string(), faces.to_vec())).collect()
}

impl Given {
    /// Plays a decision that must be accepted.
    pub fn then(self, decision: Value) -> Self {
        self.then_rolling(decision, &[])
    }

    /// Plays a decision that must be accepted, with the dice the table rolled.
    pub fn then_rolling(mut self, decision: Value, dice: &[(&str, &[u32])]) -> Self {
        let facts =
            check(&self, decision.clone(), dice).unwrap_or_else(|e| panic!("given {decision} was refused: {e}"));
        for f in &facts {
            PhoenixCommand::evolve(&mut self.state, f);
        }
        self.decisions += 1;
        self
    }

    /// Plays several decisions that must be accepted, none rolling dice.
    pub fn then_all(self, decisions: &[Value]) -> Self {
        decisions.iter().fold(self, |g, d| g.then(d.clone()))
    }
}

/// When `decision` is decided on the game so far, with these table dice:
/// its facts, or the refusal as text. Every die handed over must be used.
pub(super) fn check(given: &Given, decision: Value, dice: &[(&str, &[u32])]) -> Result<Vec<Fact>, String> {
    let decision = serde_json::from_value(decision).map_err(|e| format!("malformed: {e}"))?;
    let table = table_dice(dice);
    let mut rolled = Dice::table(&table, given.decisions + 1);
    let facts = PhoenixCommand::decide(&given.state, &decision, &mut rolled).map_err(|e| e.to_string())?;
    rolled.finish().map_err(|e| e.to_string())?;
    Ok(facts)
}

/// The refusal of a decision that must be refused.
pub(super) fn refusal(result: Result<Vec<Fact>, String>) -> String {
    match result {
        Err(e) => e,
        Ok(facts) => panic!("expected a refusal, got {facts:?}"),
    }
}

/// The facts of a decision that must be accepted.
pub(super) fn accepted(result: Result<Vec<Fact>, String>) -> Vec<Fact> {
    result.unwrap_or_else(|e| panic!("expected facts, got the refusal: {e}"))
}

/// The narrative of facts, one line each.
pub(super) fn told(facts: &[Fact]) -> Vec<String> {
    facts.iter().map(PhoenixCommand::narrate).collect()
}

/// A fire team for [`table`]: side, id, CP, its leader's command rating,
/// how many figures, and where its leader stands. The leader is `{id}-lead`,
/// the others `{id}-1`, `{id}-2`, … standing 2" apart along x; all troop
/// quality 3.
pub(super) type Team<'a> = (&'a str, &'a str, u32, i64, usize, [i64; 2]);

/// A scenario of two sides, alex (initiative on a turn-1 tie) and jason,
/// each fire team its own unit, a 6" command distance.
pub(super) fn table(teams: &[Team]) -> Value {
    let mut organisations = Vec::new();
    let mut units = Vec::new();
    let mut figures = Vec::new();
    for &(side, id, cp, rating, size, [x, y]) in teams {
        organisations.push(json!({"id": id, "side": side, "kind": "fire team", "leader": format!("{id}-lead")}));
        units.push(json!({"organisation": id, "cp": cp}));
        figures.push(
            json!({"id": format!("{id}-lead"), "team": id, "troop_quality": 3, "command_rating": rating, "at": [x, y]}),
        );
        for i in 1..size {
            figures
                .push(json!({"id": format!("{id}-{i}"), "team": id, "troop_quality": 3, "at": [x + 20 * i as i64, y]}));
        }
    }
    json!({
        "sides": ["alex", "jason"],
        "initiative": "alex",
        "command_distance_tenths": 60,
        "organisations": organisations,
        "units": units,
        "figures": figures,
    })
}

/// Sets a field of one figure of a scenario built by [`table`].
pub(super) fn with_figure(mut scenario: Value, figure: &str, field: &str, value: Value) -> Value {
    let f = scenario["figures"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|f| f["id"] == figure)
        .unwrap_or_else(|| panic!("no figure {figure}"));
    f[field] = value;
    scenario
}

/// Gives every figure without one a knockout chance, as a scenario whose
/// tables give Light Wounds must.
pub(super) fn with_knockout_chances(mut scenario: Value, chance: i64) -> Value {
    for f in scenario["figures"].as_array_mut().unwrap() {
        if f.get("knockout_chance").is_none() {
            f["knockout_chance"] = json!(chance);
        }
    }
    scenario
}

/// Operations of turn 1 have begun.
pub(super) fn in_operations(scenario: Value) -> Given {
    given(scenario).then_all(&[json!({"type": "begin-turn"}), json!({"type": "begin-operations"})])
}
