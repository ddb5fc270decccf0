//! Tests of the phoenix-command rules, in given / when / then shape: given a
//! scenario and the decisions played so far, when one more decision is
//! decided, then these facts — or this refusal: the one harness of every
//! ruleset, `crate::testing`. Dice are table dice: each test says which
//! faces were rolled.
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

use crate::rules::RuleVersion;
use crate::ruleset::Ruleset;
use crate::testing;

use super::{versions, Fact, PhoenixCommand, Scenario};

/// `phoenix-command@3`, the default version, with the named options on.
pub(super) fn rules(options: &[&str]) -> RuleVersion {
    let mut r = versions()[0].defaults();
    for o in options {
        assert!(r.options.contains_key(*o), "no option {o}");
        r.options.insert(o.to_string(), true);
    }
    r
}

/// A game so far.
/// Phoenix Command's games, in the one harness of every ruleset.
pub(super) type Given = testing::Given<PhoenixCommand>;

pub(super) fn given(scenario: Value) -> Given {
    given_with(scenario, &[])
}

pub(super) fn given_with(scenario: Value, options: &[&str]) -> Given {
    let s: Scenario = serde_json::from_value(scenario).expect("the scenario parses");
    testing::given(PhoenixCommand::initial(s, &rules(options)).expect("the scenario is valid"))
}

/// A game under `version` (`"1"`, `"2"` or `"3"`) with some of its constants set
/// otherwise, as a house-rules file sets them.
pub(super) fn given_with_constants(scenario: Value, version: &str, constants: &[(&str, i64)]) -> Given {
    let s: Scenario = serde_json::from_value(scenario).expect("the scenario parses");
    let mut r = versions().into_iter().find(|v| v.version == version).expect("the version").defaults();
    for (name, value) in constants {
        assert!(r.constants.contains_key(*name), "no constant {name}");
        r.constants.insert(name.to_string(), *value);
    }
    testing::given(PhoenixCommand::initial(s, &r).expect("the scenario is valid"))
}

/// A game under `phoenix-command@1`, the first reading, which its records
/// were played under.
pub(super) fn given_under_version_1(scenario: Value) -> Given {
    let s: Scenario = serde_json::from_value(scenario).expect("the scenario parses");
    let v1 = versions().into_iter().find(|v| v.version == "1").expect("version 1").defaults();
    testing::given(PhoenixCommand::initial(s, &v1).expect("the scenario is valid"))
}

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
    given(scenario).decided_all(&[json!({"type": "begin-turn"}), json!({"type": "begin-operations"})])
}
