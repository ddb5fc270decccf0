//! Scenario validation: every error names the field that is wrong.

use serde_json::{json, Value};

use super::{rules, table};
use crate::ruleset::Ruleset;
use crate::rulesets::phoenix_command::{PhoenixCommand, Scenario};

fn error(scenario: Value) -> String {
    let s: Scenario = serde_json::from_value(scenario).expect("parses");
    match PhoenixCommand::initial(s, &rules(&[])) {
        Ok(_) => panic!("expected a scenario error"),
        Err(e) => e.to_string(),
    }
}

fn base() -> Value {
    table(&[("alex", "a", 1, 3, 2, [0, 0]), ("jason", "j", 1, 3, 2, [0, 600])])
}

#[test]
fn sides_and_initiative() {
    let mut s = base();
    s["sides"] = json!(["alex", "alex"]);
    assert_eq!(error(s), "sides: name exactly two different sides");
    let mut s = base();
    s["initiative"] = json!("bob");
    assert_eq!(error(s), "initiative: \"bob\" is not one of the sides (alex, jason)");
}

#[test]
fn organisations_form_one_tree_per_side() {
    let mut s = base();
    s["organisations"][1]["side"] = json!("bob");
    assert_eq!(error(s), "organisations[1].side: \"bob\" is not one of the sides (alex, jason)");
    let mut s = base();
    s["organisations"][1]["parent"] = json!("nowhere");
    assert_eq!(error(s), "organisations[1].parent: there is no organisation \"nowhere\"");
    let mut s = base();
    s["organisations"][1]["parent"] = json!("a");
    assert_eq!(
        error(s),
        "organisations[1].side: \"j\" is jason's but its parent is alex's: an organisation tree belongs to one side"
    );
    let mut s = base();
    s["organisations"][0]["parent"] = json!("a");
    s["organisations"][0]["side"] = Value::Null;
    assert_eq!(error(s), "organisations[0].parent: \"a\" is its own ancestor");
    let mut s = base();
    s["organisations"][1]["id"] = json!("a");
    assert_eq!(error(s), "organisations[1].id: \"a\" is used twice");
}

#[test]
fn leaders_lead_from_within_with_a_command_rating() {
    let mut s = base();
    s["organisations"][0]["leader"] = json!("j-lead");
    assert_eq!(error(s), "organisations[0].leader: \"j-lead\" is in \"j\", which is not part of \"a\": a leader leads from within his organisation");
    let mut s = base();
    s["figures"][0]["command_rating"] = Value::Null;
    assert_eq!(error(s), "figures[0].command_rating: \"a-lead\" leads \"a\", so he needs a command rating");
    let mut s = base();
    s["figures"][0]["command_rating"] = json!(0);
    assert_eq!(error(s), "figures[0].command_rating: must be at least 1");
}

#[test]
fn figures_belong_to_the_lowest_level_and_to_a_unit() {
    let mut s = base();
    s["organisations"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "sub", "parent": "a", "kind": "fire team", "leader": "a-1"}));
    assert_eq!(error(s), "figures[0].team: \"a\" has sub-units: a figure belongs to the lowest level (\"Units cannot be subdivided below the level of fire-team\")");
    let mut s = base();
    s["units"].as_array_mut().unwrap().remove(1);
    assert_eq!(
        error(s),
        "figures[2].team: \"j-lead\" is in no unit: list \"j\" or an organisation above it under units"
    );
    let mut s = base();
    s["figures"][1]["id"] = json!("a-lead");
    assert_eq!(error(s), "figures[1].id: \"a-lead\" is used twice");
    let mut s = base();
    s["figures"][1]["team"] = json!("z");
    assert_eq!(error(s), "figures[1].team: there is no organisation \"z\"");
}

#[test]
fn units_start_within_their_leaders_command_rating() {
    let mut s = base();
    s["units"][0]["cp"] = json!(4);
    assert_eq!(error(s), "units[0].cp: 4 CP is more than a-lead's command rating of 3: \"A leader cannot accumulate more CP than his Command Rating.\"");
    let mut s = base();
    s["units"][1]["organisation"] = json!("a");
    assert_eq!(error(s), "units[1].organisation: \"a\" is listed twice");
}

#[test]
fn a_hero_is_one_figure_on_his_own() {
    let mut s = base();
    s["organisations"][0]["kind"] = json!("hero");
    assert_eq!(error(s), "organisations[0].kind: \"a\" is a hero: \"an individual figure able to move and act independent of any larger unit\" — no parent, no sub-units, one figure");
}

/// Figures' weapons are scenario data (the Weapons Tables are not in the text).
#[test]
fn weapons_are_scenario_data() {
    let mut s = base();
    s["figures"][0]["weapons"] = json!(["m16"]);
    assert_eq!(error(s.clone()), "figures[0].weapons[0]: there is no weapon \"m16\" under weapons");
    s["weapons"] = json!({"m16": {"max_shots": 3, "pen": 20, "sdm": 3}, "law": {"max_shots": 3, "one_use": true, "pen": 400, "explosive": true, "sdm": 10}});
    assert_eq!(
        error(s.clone()),
        "weapons.law.blast: an explosive weapon needs its blast ranges (the Explosive Injury Table is not in the text)"
    );
    s["weapons"]["law"]["blast"] =
        json!([{"within_tenths": 20, "effect": "critical-wound"}, {"within_tenths": 10, "effect": "graze"}]);
    assert_eq!(error(s.clone()), "weapons.law.blast[1].within_tenths: blast ranges go nearest first");
    s["weapons"]["law"]["blast"] =
        json!([{"within_tenths": 10, "effect": "critical-wound"}, {"within_tenths": 30, "effect": "graze"}]);
    assert_eq!(error(s.clone()), "weapons.law.max_shots: a 1 Shot/Action or 1 Use weapon fires 1 shot per action: \"A Shooter, even if willing, cannot use the 2 shot or 3 shot lines\"");
    s["weapons"]["law"]["max_shots"] = json!(1);
    let parsed: Scenario = serde_json::from_value(s).unwrap();
    let state = PhoenixCommand::initial(parsed, &rules(&[])).unwrap();
    assert_eq!(state.figures["a-lead"].weapons, ["m16"]);
    assert_eq!(state.weapons["m16"].hits_per_shot, 1);
}

/// Found by the random games (`properties_phoenix`, seed 7): a blast read a
/// Light Wound on a figure without a knockout chance, and the fire order was
/// refused after its dice were rolled — telling the player how they fell,
/// and letting him order something else. When the scenario's own tables can
/// give a Light Wound, every figure needs his Knockout Chance.
#[test]
fn tables_that_give_light_wounds_need_every_knockout_chance() {
    let light = json!([{"from": 5, "effect": "light-wound"}]);
    let mut s = base();
    s["figures"][1]["knockout_chance"] = json!(3);
    s["injury_table"] = json!([{"pen_over_pf": 0, "rows": light}]);
    assert_eq!(
        error(s.clone()),
        "figures[0].knockout_chance: \"a-lead\" needs a knockout chance: injury_table gives Light Wounds, and \"A Light Wound Result requires the target to make a 0-9 roll against his Knockout Chance\""
    );
    s["injury_table"] = Value::Null;
    s["melee_injury_table"] = json!({"unarmoured": [], "armoured": light});
    assert!(error(s.clone())
        .starts_with("figures[0].knockout_chance: \"a-lead\" needs a knockout chance: melee_injury_table gives"));
    s["melee_injury_table"] = Value::Null;
    s["weapons"] = json!({"m79": {"max_shots": 1, "pen": 30, "explosive": true, "sdm": 5,
        "blast": [{"within_tenths": 10, "effect": "critical-wound"}, {"within_tenths": 25, "effect": "light-wound"}]}});
    assert!(error(s.clone())
        .starts_with("figures[0].knockout_chance: \"a-lead\" needs a knockout chance: weapons.m79.blast gives"));
    // Tables without Light Wounds, or no tables (the referee gives effects), need none.
    s["weapons"]["m79"]["blast"][1]["effect"] = json!("graze");
    let parsed: crate::rulesets::phoenix_command::Scenario = serde_json::from_value(s).unwrap();
    assert!(PhoenixCommand::initial(parsed, &rules(&[])).is_ok());
}
