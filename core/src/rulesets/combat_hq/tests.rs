//! Tests of the Combat HQ rules, under both versions.
//!
//! Given a game (a version, a scenario, and the decisions so far with their
//! table dice), when one more decision is made, then these facts — or this
//! refusal, in the one harness of every ruleset (`crate::testing`); the
//! helpers here build scenarios.

use serde_json::{json, Value};

use super::*;
use crate::dice::{Dice, Seed};
use crate::refusal::{RefusalKind, Shared};
use crate::registry;
use crate::testing;

const BASE: &str = "combat-hq@base";
const MULTI: &str = "combat-hq@multi-bg";
/// Multi-bg with CN9's option: the example's artillery sentence as a rule.
const MULTI_ARTILLERY_WAITS: &str = "combat-hq@multi-bg+artillery-waits-for-a-command-group";

/// Combat HQ's games, in the one harness of every ruleset.
type Given = testing::Given<CombatHq>;

/// The rules of `version`: a version id, with options written inline.
fn rules(version: &str) -> crate::rules::RuleVersion {
    registry::inline_version(version).unwrap().0
}

fn given(version: &str, scenario: Value) -> Given {
    let rules = rules(version);
    let scenario: Scenario = serde_json::from_value(scenario).unwrap();
    testing::given::<CombatHq>(CombatHq::initial(scenario, &rules).unwrap())
}

fn narrative(facts: &[Fact]) -> Vec<String> {
    facts.iter().map(text::narrate).collect()
}

// ---------------------------------------------------------------- scenarios

/// The scenario of a fixture script.
fn fixture_scenario(script: &str) -> Value {
    let script: Value = serde_json::from_str(script).unwrap();
    script["scenario"].clone()
}

/// Max's battle group (three rifle companies and the weapons company on the
/// table; pak, stug and art in reserve) against Hart's (a-coy on the table;
/// b-coy and carriers in reserve).
fn four_deployed() -> Value {
    fixture_scenario(include_str!("../../../../fixtures/combat-hq/example-four-companies-deployed.json"))
}

/// As [`four_deployed`], with every German unit in reserve.
fn all_in_reserve() -> Value {
    fixture_scenario(include_str!("../../../../fixtures/combat-hq/example-all-in-reserve.json"))
}

/// As [`four_deployed`], the British CO commanding a second battle group,
/// bg-lane (c-coy on the table, d-coy in reserve; 3 dice, 3 Staff Orders).
fn two_british_battle_groups() -> Value {
    fixture_scenario(include_str!("../../../../fixtures/combat-hq/command-failure-multi-bg.json"))
}

/// The command group `id` of a scenario, to change it.
fn group<'a>(scenario: &'a mut Value, id: &str) -> &'a mut Value {
    for side in scenario["sides"].as_array_mut().unwrap() {
        for bg in side["battle_groups"].as_array_mut().unwrap() {
            for cg in bg["command_groups"].as_array_mut().unwrap() {
                if cg["id"] == id {
                    return cg;
                }
            }
        }
    }
    panic!("no command group {id}")
}

fn with_start(mut scenario: Value, starts: &[(&str, &str)]) -> Value {
    for (id, start) in starts {
        group(&mut scenario, id)["start"] = json!(start);
    }
    scenario
}

fn begin(first: &str) -> Value {
    json!({"type": "begin-turn", "first": first})
}

fn pulse(bg: &str, number: u32, orders: Value) -> Value {
    json!({"type": "pulse", "battle_group": bg, "number": number, "orders": orders})
}

fn activate(group: &str, units: &[&str]) -> Value {
    json!({"do": "activate", "command_group": group, "units": units})
}

fn enter(group: &str) -> Value {
    json!({"do": "enter", "command_group": group})
}

fn end_turn() -> Value {
    json!({"type": "end-turn"})
}

fn enter_reserve(group: &str) -> Value {
    json!({"type": "enter-reserve", "command_group": group})
}

/// Turn 1 of [`four_deployed`] begun with these dice (Germans roll first).
fn turn_one(version: &str, kg_max: &[u32], bg_hart: &[u32]) -> Given {
    given(version, four_deployed())
        .decided_rolling(begin("germans"), &[("command-dice:kg-max", kg_max), ("command-dice:bg-hart", bg_hart)])
}

fn rolled(facts: &[Fact], bg: &str) -> Fact {
    facts
        .iter()
        .find(|f| {
            matches!(f, Fact::CommandDiceRolled { battle_group, .. } | Fact::CommandDiceNotRolled { battle_group, .. } if battle_group == bg)
        })
        .cloned()
        .unwrap_or_else(|| panic!("{bg} neither rolled nor did not"))
}

// ------------------------------------------------------------------ versions

#[test]
fn both_versions_are_selectable_by_name_and_base_is_the_default() {
    let default = registry::version("combat-hq").unwrap();
    assert_eq!(default.id(), BASE);
    assert_eq!(registry::version(MULTI).unwrap().id(), MULTI);
    let err = registry::version("combat-hq@advanced").unwrap_err().to_string();
    assert_eq!(err, "combat-hq has no version \"advanced\" (known: combat-hq@base, combat-hq@multi-bg)");
}

#[test]
fn only_multi_bg_declares_the_cost_of_reserves_after_a_failure() {
    let base = registry::version(BASE).unwrap().defaults();
    let multi = registry::version(MULTI).unwrap().defaults();
    assert!(!base.constants.contains_key("reserve-entry-staff-orders-after-failure"));
    assert_eq!(multi.int("reserve-entry-staff-orders-after-failure"), 2);
    for rules in [&base, &multi] {
        assert_eq!(rules.int("activation-range-tenths"), 60);
        assert_eq!(rules.int("units-per-activation"), 3);
        assert_eq!(rules.int("reserve-entry-staff-orders"), 1);
    }
    assert_ne!(base.hash(), multi.hash());
}

// ------------------------------------------------------------------ scenario

fn load_error(version: &str, scenario: Value) -> String {
    let rules = rules(version);
    let info = registry::find("combat-hq").unwrap();
    match (info.load)(&scenario, &rules) {
        Ok(_) => panic!("the scenario loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_scenario_names_the_field_it_is_wrong_in() {
    let mut s = four_deployed();
    s["sides"].as_array_mut().unwrap().pop();
    assert_eq!(load_error(BASE, s), "sides: name exactly two sides, not 1");

    let mut s = four_deployed();
    group(&mut s, "b-coy")["units"][1]["id"] = json!("1-kp-hq");
    assert_eq!(
        load_error(BASE, s),
        "sides[1].battle_groups[0].command_groups[1].units[1].id: \"1-kp-hq\" is already the id of sides[0].battle_groups[0].command_groups[0].units[0].id: every id in the scenario is different"
    );

    let mut s = four_deployed();
    s["sides"][0]["co"]["id"] = json!("");
    assert_eq!(load_error(BASE, s), "sides[0].co.id: an id may not be empty");

    let mut s = four_deployed();
    s["sides"][1]["battle_groups"] = json!([]);
    assert_eq!(load_error(MULTI, s), "sides[1].battle_groups: a side has at least one battle group");

    let mut s = four_deployed();
    s["sides"][0]["battle_groups"][0]["command_dice"] = json!(0);
    assert_eq!(
        load_error(BASE, s),
        "sides[0].battle_groups[0].command_dice: a battle group has at least one Command Die"
    );

    let mut s = four_deployed();
    s["sides"][0]["battle_groups"][0]["command_groups"] = json!([]);
    assert_eq!(
        load_error(BASE, s),
        "sides[0].battle_groups[0].command_groups: a battle group has at least one command group"
    );

    let mut s = four_deployed();
    group(&mut s, "pak")["units"] = json!([]);
    assert_eq!(
        load_error(BASE, s),
        "sides[0].battle_groups[0].command_groups[4].units: a command group has at least one unit, its command unit"
    );

    let mut s = four_deployed();
    group(&mut s, "pak")["command_unit"] = json!("stug-1");
    assert_eq!(
        load_error(BASE, s),
        "sides[0].battle_groups[0].command_groups[4].command_unit: \"stug-1\" is not one of the group's units (pak-hq, pak-1, pak-2)"
    );

    let mut s = four_deployed();
    group(&mut s, "art")["kind"] = json!("battery");
    assert!(
        load_error(BASE, s).starts_with("sides[0].battle_groups[0].command_groups[6].kind: unknown variant `battery`")
    );
}

/// "Cap: one Staff Order per Command Die." The starting number is scenario data.
#[test]
fn a_battle_group_starts_with_no_more_staff_orders_than_command_dice() {
    let mut s = four_deployed();
    s["sides"][1]["battle_groups"][0]["staff_orders"] = json!(5);
    assert_eq!(
        load_error(BASE, s),
        "sides[1].battle_groups[0].staff_orders: 5 Staff Orders is more than its 4 Command Dice: a battle group never holds more Staff Orders than it has Command Dice"
    );
}

/// Base: "each side has one battle group"; multi-bg: "He may have Command
/// Groups from any or all of battle groups present on the table".
#[test]
fn only_multi_bg_lets_a_co_command_several_battle_groups() {
    assert_eq!(
        load_error(BASE, two_british_battle_groups()),
        "sides[1].battle_groups: combat-hq@base is the single-battle-group game: each side has one battle group, not 2 (combat-hq@multi-bg lets a CO command several)"
    );
    let g = given(MULTI, two_british_battle_groups());
    assert_eq!(g.state().sides[1].battle_groups, ["bg-hart", "bg-lane"]);
}

/// "Its artillery is held in reserve until one command
/// group enters the table." describes Max's battle group in the text's
/// example, not every battle group (CN9): by default a battle group may
/// deploy its artillery alone. It then does not roll, as "If all of its
/// units (excluding artillery) are held in Reserve, it doesn't roll any
/// Command Dice." says, until a command group enters.
#[test]
fn under_multi_bg_artillery_may_start_on_the_table_alone_and_does_not_roll() {
    let alone = with_start(all_in_reserve(), &[("art", "table")]);
    let g = given(MULTI, alone.clone());
    assert_eq!((kg_max(&g).active_pool, kg_max(&g).dice_held_by_reserves), (2, 6));
    let g = g.decided_rolling(begin("germans"), &[("command-dice:bg-hart", &[4, 4])]);
    let t = g.state().turn.as_ref().unwrap();
    assert!(!t.dice.contains_key("kg-max"), "kg-max rolled: {t:?}");
    let facts =
        (given(MULTI, alone.clone())).when_rolling(begin("germans"), &[("command-dice:bg-hart", &[4, 4])]).facts();
    assert_eq!(
        rolled(&facts, "kg-max"),
        Fact::CommandDiceNotRolled {
            battle_group: "kg-max".into(),
            side: "germans".into(),
            active_pool: 2,
            held_by_reserves: 6,
            reason: NoRoll::AllInReserve,
        }
    );
    // "When it enters a Command Group onto the table, it gains its Active
    // Dice Pool (plus that unit's Command Dice) for use in subsequent turns."
    let g = g.decided_rolling(enter_reserve("1-kp"), &[]).decided_rolling(json!({"type": "end-turn"}), &[]);
    let facts = g
        .when_rolling(begin("germans"), &[("command-dice:kg-max", &[5, 4, 3]), ("command-dice:bg-hart", &[4, 4])])
        .facts();
    assert!(matches!(rolled(&facts, "kg-max"), Fact::CommandDiceRolled { active_pool: 3, held_by_reserves: 5, .. }));
    given(BASE, alone);
}

/// CN9's option reads the example's sentence as a rule: artillery starts on
/// the table only with another of its battle group's command groups.
#[test]
fn with_artillery_waits_artillery_starts_on_the_table_only_with_another_group() {
    let alone = with_start(all_in_reserve(), &[("art", "table")]);
    assert_eq!(
        load_error(MULTI_ARTILLERY_WAITS, alone.clone()),
        "sides[0].battle_groups[0].command_groups[6].start: \"Its artillery is held in reserve until one command group enters the table.\": artillery starts on the table only with another of its battle group's command groups"
    );
    given(MULTI_ARTILLERY_WAITS, with_start(all_in_reserve(), &[("art", "table"), ("pak", "table")]));
    assert!(registry::inline_version("combat-hq@base+artillery-waits-for-a-command-group").is_err());
}

// ---------------------------------------------------------------- allocation

fn kg_max(g: &Given) -> &BattleGroup {
    &g.state().battle_groups["kg-max"]
}

/// "if all of Max's infantry battle group units were used as Reserves, only
/// one of its eight Command Dice would form its Active Dice Pool."
#[test]
fn all_in_reserve_leaves_one_die_of_eight_in_the_pool() {
    let g = given(MULTI, all_in_reserve());
    assert_eq!((kg_max(&g).active_pool, kg_max(&g).dice_held_by_reserves), (1, 7));
    assert_eq!(g.state().units.len(), 24 + 8);
    assert_eq!(kg_max(&g).command_groups.len(), 7);
    assert_eq!(kg_max(&g).staff_orders, 6);
}

/// "If at the start of the game, Max deploys three rifle companies and his
/// weapons company, he would have five Command Dice in his Active Dice Pool.
/// Three Command Dice would be allocated to his three reserve battle groups."
/// (C1: reserve command groups.)
#[test]
fn four_companies_deployed_leave_five_dice_in_the_pool_and_three_held() {
    let g = given(MULTI, four_deployed());
    assert_eq!((kg_max(&g).active_pool, kg_max(&g).dice_held_by_reserves), (5, 3));
}

/// C5: base is the single-battle-group game, "all dice active from turn 1".
#[test]
fn under_base_reserves_hold_no_die() {
    let g = given(BASE, four_deployed());
    assert_eq!((kg_max(&g).active_pool, kg_max(&g).dice_held_by_reserves), (8, 0));
}

/// C4: more reserve groups than dice: the pool floors at 0, surplus groups
/// hold no die; with an empty pool the battle group has nothing to roll.
#[test]
fn more_reserve_groups_than_dice_leave_an_empty_pool() {
    let mut s = four_deployed();
    s["sides"][1]["battle_groups"][0]["command_dice"] = json!(1);
    s["sides"][1]["battle_groups"][0]["staff_orders"] = json!(1);
    let g = given(MULTI, s);
    let hart = &g.state().battle_groups["bg-hart"];
    assert_eq!((hart.active_pool, hart.dice_held_by_reserves), (0, 1));
    let facts = g.when_rolling(begin("germans"), &[("command-dice:kg-max", &[2, 3, 4, 5, 6])]).facts();
    assert_eq!(
        rolled(&facts, "bg-hart"),
        Fact::CommandDiceNotRolled {
            battle_group: "bg-hart".into(),
            side: "british".into(),
            active_pool: 0,
            held_by_reserves: 1,
            reason: NoRoll::EmptyPool,
        }
    );
    // b-coy enters, but the other reserve still holds the one die.
    let g = g
        .decided_rolling(begin("germans"), &[("command-dice:kg-max", &[2, 3, 4, 5, 6])])
        .decided_rolling(enter_reserve("b-coy"), &[]);
    assert_eq!(g.state().battle_groups["bg-hart"].dice_held_by_reserves, 1);
}

// ------------------------------------------------------------------- rolling

/// "If all of its units (excluding artillery) are held in Reserve, it
/// doesn't roll any Command Dice." A table die offered for it is refused as
/// one the rules do not need.
#[test]
fn under_multi_bg_a_battle_group_all_in_reserve_does_not_roll() {
    let g = given(MULTI, all_in_reserve());
    let facts = g.when_rolling(begin("germans"), &[("command-dice:bg-hart", &[4, 4])]).facts();
    assert_eq!(
        rolled(&facts, "kg-max"),
        Fact::CommandDiceNotRolled {
            battle_group: "kg-max".into(),
            side: "germans".into(),
            active_pool: 1,
            held_by_reserves: 7,
            reason: NoRoll::AllInReserve,
        }
    );
    let refused =
        g.when_rolling(begin("germans"), &[("command-dice:bg-hart", &[4, 4]), ("command-dice:kg-max", &[6])]).result();
    assert_eq!(refused.unwrap_err(), "the table rolled 1 more 'command-dice:kg-max' die than the rules need");
}

/// C5: under base every Command Die is rolled every turn, reserves or not.
#[test]
fn under_base_a_battle_group_all_in_reserve_rolls_every_die() {
    let g = given(BASE, all_in_reserve());
    let dice: &[u32] = &[2, 3, 4, 5, 2, 3, 4, 5];
    let facts = g
        .when_rolling(begin("germans"), &[("command-dice:bg-hart", &[4, 4, 3, 3]), ("command-dice:kg-max", dice)])
        .facts();
    assert!(matches!(rolled(&facts, "kg-max"), Fact::CommandDiceRolled { active_pool: 8, held_by_reserves: 0, .. }));
}

/// "When it enters a Command Group onto the table, it gains its Active Dice
/// Pool (plus that unit's Command Dice) for use in subsequent turns." (C3)
/// "All six of its Staff Orders would be usable by the CO."
#[test]
fn a_group_entering_from_all_in_reserve_brings_the_pool_in_next_turn() {
    let g = given(MULTI, all_in_reserve()).decided_rolling(begin("germans"), &[("command-dice:bg-hart", &[4, 4])]);
    let facts = g.when_rolling(enter_reserve("1-kp"), &[]).facts();
    assert_eq!(
        facts,
        [Fact::ReserveEntered {
            battle_group: "kg-max".into(),
            command_group: "1-kp".into(),
            paid: Payment::StaffOrders { count: 1, from: "kg-max".into(), left: 5 },
            die_released: true,
            held_by_reserves: 6,
            pool_from_next_turn: 2,
        }]
    );
    let g = g.decided_rolling(enter_reserve("1-kp"), &[]).decided_rolling(end_turn(), &[]);
    let facts = g
        .when_rolling(begin("germans"), &[("command-dice:kg-max", &[3, 4]), ("command-dice:bg-hart", &[5, 5])])
        .facts();
    assert!(matches!(rolled(&facts, "kg-max"), Fact::CommandDiceRolled { active_pool: 2, held_by_reserves: 6, .. }));
}

/// "Command Dice are rolled at the start of each turn, per battle group, COs
/// alternating."
#[test]
fn the_cos_roll_alternately() {
    let g = given(MULTI, two_british_battle_groups());
    let facts = g
        .when_rolling(
            begin("british"),
            &[
                ("command-dice:bg-hart", &[2, 3]),
                ("command-dice:kg-max", &[2, 3, 4, 5, 5]),
                ("command-dice:bg-lane", &[4, 4]),
            ],
        )
        .facts();
    let order: Vec<&str> = facts
        .iter()
        .filter_map(|f| match f {
            Fact::CommandDiceRolled { battle_group, .. } => Some(battle_group.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["bg-hart", "kg-max", "bg-lane"]);
}

/// Each battle group's dice are addressed by its own label, so the versions
/// agree on every die they share: base rolls kg-max's 8 dice, multi-bg the
/// first 5 of them.
#[test]
fn the_versions_roll_the_same_dice_where_they_share_them() {
    let seed = Seed([7; 32]);
    let roll = |version: &str| {
        let g = given(version, four_deployed());
        let mut dice = Dice::seeded(&seed, 1);
        let facts = CombatHq::decide(g.state(), &serde_json::from_value(begin("germans")).unwrap(), &mut dice).unwrap();
        match rolled(&facts, "kg-max") {
            Fact::CommandDiceRolled { dice, .. } => dice,
            other => panic!("{other:?}"),
        }
    };
    let (base, multi) = (roll(BASE), roll(MULTI));
    assert_eq!((base.len(), multi.len()), (8, 5));
    assert_eq!(base[..5], multi[..]);
}

#[test]
fn a_die_is_wanted_under_its_battle_groups_label() {
    let g = given(MULTI, four_deployed());
    let refused = g
        .when_rolling(begin("germans"), &[("command-dice", &[6, 5, 4, 3, 2]), ("command-dice:bg-hart", &[2, 2])])
        .result();
    assert_eq!(
        refused.unwrap_err(),
        "the rules need d6 'command-dice:kg-max' #0, which the table did not roll (the die is unknown)"
    );
}

/// "If a roll shows more 1s than 6s it is a Command Failure ... (on a normal
/// roll, 1s are discarded)": as many 1s as 6s is a normal roll.
#[test]
fn as_many_ones_as_sixes_is_no_failure_and_the_ones_are_discarded() {
    let g = given(BASE, four_deployed());
    let facts = g
        .when_rolling(
            begin("british"),
            &[("command-dice:bg-hart", &[1, 6, 3, 3]), ("command-dice:kg-max", &[1, 1, 6, 6, 5, 4, 3, 2])],
        )
        .facts();
    assert_eq!(
        rolled(&facts, "bg-hart"),
        Fact::CommandDiceRolled {
            battle_group: "bg-hart".into(),
            side: "british".into(),
            active_pool: 4,
            held_by_reserves: 0,
            dice: vec![1, 6, 3, 3],
            ones: 1,
            sixes: 1,
            command_failure: false,
            kept: vec![6, 3, 3],
        }
    );
    assert!(!facts.iter().any(|f| matches!(f, Fact::WildDiceGiven { .. })));
}

/// Base: on a Command Failure "the 1s go to the opponent as Wild Dice".
#[test]
fn under_base_a_command_failure_gives_the_opponent_wild_dice() {
    let g = given(BASE, four_deployed());
    let facts = g
        .when_rolling(
            begin("british"),
            &[("command-dice:bg-hart", &[1, 1, 6, 1]), ("command-dice:kg-max", &[5, 5, 4, 3, 2, 2, 3, 4])],
        )
        .facts();
    assert_eq!(
        facts[2],
        Fact::WildDiceGiven { from_battle_group: "bg-hart".into(), to_side: "germans".into(), wild_dice: 3, total: 3 }
    );
    assert!(!facts.iter().any(|f| matches!(f, Fact::StaffOrdersCaptured { .. } | Fact::ReservesHeldBack { .. })));
}

/// Multi-bg: "the failing group's 1s go to the enemy CO as Staff Orders, and
/// the failure stops that group's reserves from entering unless the CO pays
/// 2 Staff Orders per Reserve Command Group."
#[test]
fn under_multi_bg_a_command_failure_gives_the_enemy_co_staff_orders_and_holds_reserves_back() {
    let g = given(MULTI, four_deployed());
    let facts = g
        .when_rolling(begin("british"), &[("command-dice:bg-hart", &[1, 1]), ("command-dice:kg-max", &[5, 5, 4, 3, 2])])
        .facts();
    assert_eq!(
        facts[2..4],
        [
            Fact::StaffOrdersCaptured {
                from_battle_group: "bg-hart".into(),
                to_side: "germans".into(),
                co: "max".into(),
                staff_orders: 2,
                total: 2,
            },
            Fact::ReservesHeldBack {
                battle_group: "bg-hart".into(),
                reserve_groups: vec!["b-coy".into(), "carriers".into()],
                staff_orders_per_group: 2,
            }
        ]
    );
    assert!(!facts.iter().any(|f| matches!(f, Fact::WildDiceGiven { .. })));
}

#[test]
fn begin_turn_refusals_say_what_is_allowed() {
    let g = given(BASE, four_deployed());
    assert_eq!(
        g.when_rolling(begin("french"), &[]).refusal_of(Shared::NotASide),
        "\"french\" is not a side of this game (germans, british): name the side whose CO rolls first"
    );
    let g = g.decided_rolling(
        begin("germans"),
        &[("command-dice:kg-max", &[6, 5, 4, 3, 2, 2, 3, 4]), ("command-dice:bg-hart", &[2, 2, 3, 3])],
    );
    assert_eq!(
        g.when_rolling(begin("germans"), &[]).refusal_of(Shared::TurnNotOver),
        "turn 1 has not ended: end it first (end-turn), though germans may still play a Command Pulse"
    );
}

// --------------------------------------------------------------- first pulse

fn first_pulse(facts: &[Fact]) -> Fact {
    facts.iter().find(|f| matches!(f, Fact::FirstPulse { .. })).cloned().unwrap()
}

/// "The first Command Pulse goes to the side with most 6s, then most 5s, and
/// so on".
#[test]
fn the_first_pulse_goes_to_most_sixes_then_most_fives() {
    let g = given(MULTI, four_deployed());
    let facts = g
        .when_rolling(begin("germans"), &[("command-dice:kg-max", &[6, 5, 4, 3, 2]), ("command-dice:bg-hart", &[6, 6])])
        .facts();
    assert_eq!(
        first_pulse(&facts),
        Fact::FirstPulse {
            side: Some("british".into()),
            decided: FirstPulseBy::MostDice { face: 6, counts: [("germans".into(), 1), ("british".into(), 2)].into() },
        }
    );
    let facts = g
        .when_rolling(begin("germans"), &[("command-dice:kg-max", &[6, 5, 5, 1, 2]), ("command-dice:bg-hart", &[6, 5])])
        .facts();
    assert_eq!(
        narrative(&[first_pulse(&facts)]),
        ["First Command Pulse: germans, with most 5s (british 1, germans 2; higher faces level)."]
    );
}

/// When one side has no dice to chain, the other has every pulse; when
/// neither has, there are none.
#[test]
fn a_side_without_dice_has_no_pulse() {
    let g = given(MULTI, all_in_reserve());
    let facts = g.when_rolling(begin("germans"), &[("command-dice:bg-hart", &[3, 2])]).facts();
    assert_eq!(
        first_pulse(&facts),
        Fact::FirstPulse { side: Some("british".into()), decided: FirstPulseBy::OnlySideWithDice }
    );
    let facts = g.when_rolling(begin("germans"), &[("command-dice:bg-hart", &[1, 6])]).facts();
    assert_eq!(
        first_pulse(&facts),
        Fact::FirstPulse { side: Some("british".into()), decided: FirstPulseBy::OnlySideWithDice }
    );
    let facts = g.when_rolling(begin("germans"), &[("command-dice:bg-hart", &[1, 1])]).facts();
    assert_eq!(first_pulse(&facts), Fact::FirstPulse { side: None, decided: FirstPulseBy::NoDice });
}

/// The text does not say who has the first pulse when the sides rolled
/// alike: a D6 each, again until they differ.
#[test]
fn sides_that_rolled_alike_roll_off_for_the_first_pulse() {
    let mut s = four_deployed();
    s["sides"][0]["battle_groups"][0]["command_dice"] = json!(5);
    s["sides"][0]["battle_groups"][0]["staff_orders"] = json!(5);
    let g = given(BASE, s);
    let facts = g
        .when_rolling(
            begin("germans"),
            &[
                ("command-dice:kg-max", &[4, 3, 1, 6, 2]),
                ("command-dice:bg-hart", &[6, 3, 2, 4]),
                ("first-pulse-roll-off:germans", &[5, 2]),
                ("first-pulse-roll-off:british", &[5, 4]),
            ],
        )
        .facts();
    assert_eq!(
        first_pulse(&facts),
        Fact::FirstPulse {
            side: Some("british".into()),
            decided: FirstPulseBy::RollOff {
                rolls: vec![
                    [("germans".into(), 5), ("british".into(), 5)].into(),
                    [("germans".into(), 2), ("british".into(), 4)].into(),
                ]
            },
        }
    );
}

// -------------------------------------------------------------------- pulses

/// "Dice showing the same number form a Dice Chain; 6s are wild and may join
/// any chain." — "each die activates one command group (a command unit and up
/// to 3 units within 6")" — "sides alternate pulses, one chain per pulse".
#[test]
fn a_chain_takes_every_die_of_its_number_and_the_sixes_named() {
    let g = turn_one(MULTI, &[6, 5, 5, 3, 2], &[4, 2]);
    g.when_rolling(
        json!({"type": "pulse", "battle_group": "kg-max", "number": 5, "sixes": 1, "orders": [
            activate("1-kp", &["1-kp-1zug", "1-kp-2zug", "1-kp-3zug"]),
            activate("2-kp", &[]),
        ]}),
        &[],
    )
    .then([
        Fact::ChainPlayed {
            side: "germans".into(),
            battle_group: "kg-max".into(),
            number: 5,
            dice: vec![5, 5, 6],
            wild_dice: 0,
            dice_left: vec![3, 2],
            wild_dice_left: 0,
        },
        Fact::CommandGroupActivated {
            battle_group: "kg-max".into(),
            command_group: "1-kp".into(),
            command_unit: "1-kp-hq".into(),
            units: vec![
                UnitInRange { unit: "1-kp-1zug".into(), distance_tenths: 43 },
                UnitInRange { unit: "1-kp-2zug".into(), distance_tenths: 43 },
                UnitInRange { unit: "1-kp-3zug".into(), distance_tenths: 55 },
            ],
            range_tenths: 60,
        },
        Fact::CommandGroupActivated {
            battle_group: "kg-max".into(),
            command_group: "2-kp".into(),
            command_unit: "2-kp-hq".into(),
            units: vec![],
            range_tenths: 60,
        },
        Fact::StaffOrdersRestocked {
            battle_group: "kg-max".into(),
            chain_dice: 3,
            earned: 2,
            restocked: 2,
            at_once: false,
            cap: 8,
            staff_orders: 6,
            staff_orders_next_turn: 2,
        },
        Fact::PulseEnded { side: "germans".into(), unused_dice: 1, next: Some("british".into()) },
    ]);
}

/// Pulses alternate; a side whose opponent has no dice left takes the next
/// pulse too; when neither has dice, no pulse is left.
#[test]
fn pulses_alternate_while_both_sides_have_dice() {
    let g = turn_one(MULTI, &[5, 4, 3, 2, 2], &[4, 1]);
    let g = g.decided_rolling(pulse("kg-max", 5, json!([])), &[]);
    let facts = g.when_rolling(pulse("bg-hart", 4, json!([])), &[]).facts();
    assert_eq!(
        facts.last().unwrap(),
        &Fact::PulseEnded { side: "british".into(), unused_dice: 1, next: Some("germans".into()) }
    );
    let g = g.decided_rolling(pulse("bg-hart", 4, json!([])), &[]).decided_rolling(pulse("kg-max", 4, json!([])), &[]);
    assert_eq!(g.state().turn.as_ref().unwrap().pulse.as_deref(), Some("germans"));
    let g = g.decided_rolling(pulse("kg-max", 3, json!([])), &[]);
    let facts = g.when_rolling(pulse("kg-max", 2, json!([])), &[]).facts();
    assert_eq!(facts.last().unwrap(), &Fact::PulseEnded { side: "germans".into(), unused_dice: 2, next: None });
    let g = g.decided_rolling(pulse("kg-max", 2, json!([])), &[]);
    assert_eq!(
        g.when_rolling(pulse("kg-max", 2, json!([])), &[]).refusal_of(Refused::NoPulseLeft),
        "no Command Pulse is left in turn 1: no side has dice to chain; end the turn"
    );
}

#[test]
fn pulse_refusals_say_what_is_wrong_and_what_is_allowed() {
    let g = given(MULTI, four_deployed());
    assert_eq!(
        g.when_rolling(pulse("kg-max", 5, json!([])), &[]).refusal_of(Shared::NoTurnBegun),
        "no turn has begun: begin a turn first"
    );
    let g = turn_one(MULTI, &[6, 5, 5, 3, 2], &[4, 2]);
    let refused = |kind: RefusalKind, decision: Value| g.when_rolling(decision, &[]).refusal_of(kind);
    assert_eq!(
        refused(Shared::NotYourTurn.kind(), pulse("bg-hart", 4, json!([]))),
        "the Command Pulse is for germans, not british: germans may play a chain (kg-max: 6 5 5 3 2)"
    );
    assert_eq!(
        refused(Shared::Unknown.kind(), pulse("kg-hans", 4, json!([]))),
        "there is no battle group \"kg-hans\" in this game (battle groups: bg-hart, kg-max)"
    );
    assert_eq!(
        refused(Refused::OnesFormNoChain.kind(), pulse("kg-max", 1, json!([]))),
        "1s form no chain: on a normal roll they are discarded, and on a Command Failure they go to the enemy"
    );
    assert_eq!(
        refused(Refused::ChainNumber.kind(), pulse("kg-max", 7, json!([]))),
        "a chain is of one number a D6 shows, 2 to 6, not 7"
    );
    assert_eq!(
        refused(Refused::NoDiceToChain.kind(), pulse("kg-max", 4, json!([]))),
        "kg-max has no 4 left to chain (dice left: 6 5 5 3 2)"
    );
    assert_eq!(
        refused(
            Refused::SixesJoinAnotherChain.kind(),
            json!({"type": "pulse", "battle_group": "kg-max", "number": 6, "sixes": 1})
        ),
        "a chain of 6s already takes every 6 left: sixes adds wild 6s to a chain of another number"
    );
    assert_eq!(
        refused(
            Refused::NoDiceToChain.kind(),
            json!({"type": "pulse", "battle_group": "kg-max", "number": 5, "sixes": 2})
        ),
        "kg-max has 1 six(es) left to join the chain, not 2 (dice left: 6 5 5 3 2)"
    );
    assert_eq!(
        refused(Refused::WildDiceLimit.kind(), json!({"type": "pulse", "battle_group": "kg-max", "number": 3, "wild_dice": 1})),
        "germans may add up to 0 Wild Dice to a chain this turn, not 1 (under combat-hq@multi-bg a Command Failure gives the enemy CO Staff Orders, not Wild Dice)"
    );
    assert_eq!(
        refused(
            Refused::OneGroupPerDie.kind(),
            pulse("kg-max", 3, json!([activate("1-kp", &[]), activate("2-kp", &[])]))
        ),
        "a chain of 1 die gives at most 1 order, not 2: each die activates one command group"
    );
    assert_eq!(
        refused(Refused::OtherBattleGroup.kind(), pulse("kg-max", 5, json!([activate("a-coy", &[])]))),
        "a-coy belongs to bg-hart, not kg-max: a chain activates its own battle group's command groups"
    );
    assert_eq!(
        refused(Refused::InReserve.kind(), pulse("kg-max", 5, json!([activate("pak", &[])]))),
        "pak is in reserve: it enters the table before it is activated (a die of the chain may enter it)"
    );
    assert_eq!(
        refused(Shared::Unknown.kind(), pulse("kg-max", 5, json!([activate("9-kp", &[])]))),
        "there is no command group \"9-kp\" in this game"
    );
    assert_eq!(
        refused(
            Refused::OneGroupPerDie.kind(),
            pulse("kg-max", 5, json!([activate("1-kp", &[]), activate("1-kp", &[])]))
        ),
        "1-kp is already activated by this chain: each die activates a different command group"
    );
}

#[test]
fn under_base_wild_dice_join_a_chain_and_are_used_up() {
    let g = given(BASE, four_deployed()).decided_rolling(
        begin("british"),
        &[("command-dice:bg-hart", &[1, 1, 1, 6]), ("command-dice:kg-max", &[6, 6, 2, 4, 3, 2, 1, 3])],
    );
    let facts = g
        .when_rolling(
            json!({"type": "pulse", "battle_group": "kg-max", "number": 2, "wild_dice": 2, "orders": []}),
            &[],
        )
        .facts();
    assert_eq!(
        facts[0],
        Fact::ChainPlayed {
            side: "germans".into(),
            battle_group: "kg-max".into(),
            number: 2,
            dice: vec![2, 2],
            wild_dice: 2,
            dice_left: vec![6, 6, 4, 3, 3],
            wild_dice_left: 1,
        }
    );
    assert_eq!(
        g.when_rolling(json!({"type": "pulse", "battle_group": "kg-max", "number": 2, "wild_dice": 4}), &[])
            .refusal_of(Refused::WildDiceLimit),
        "germans may add up to 3 Wild Dice to a chain this turn, not 4"
    );
}

/// "each die activates one command group (a command unit and up to 3 units
/// within 6")": the units are the group's own, within 60 tenths of its
/// command unit, exactly and inclusively.
#[test]
fn a_die_activates_a_command_unit_and_up_to_three_of_its_units_within_six_inches() {
    let mut s = four_deployed();
    // 36² + 48² = 60²: exactly 6"; 36² + 49² is just over.
    group(&mut s, "1-kp")["units"][1]["at_tenths"] = json!([136, 168]);
    group(&mut s, "1-kp")["units"][2]["at_tenths"] = json!([136, 169]);
    let g = given(MULTI, s).decided_rolling(
        begin("germans"),
        &[("command-dice:kg-max", &[5, 5, 4, 3, 2]), ("command-dice:bg-hart", &[3, 2])],
    );
    let refused = |kind: RefusalKind, units: &[&str]| {
        g.when_rolling(pulse("kg-max", 5, json!([activate("1-kp", units)])), &[]).refusal_of(kind)
    };
    let facts = g.when_rolling(pulse("kg-max", 5, json!([activate("1-kp", &["1-kp-1zug"])])), &[]).facts();
    assert_eq!(
        narrative(&facts[1..2]),
        ["1-kp is activated: 1-kp-hq with 1-kp-1zug at 60 tenths of an inch (within 60)."]
    );
    assert_eq!(
        refused(Refused::OutOfCommandRange.kind(), &["1-kp-2zug"]),
        "1-kp-2zug is 61 tenths of an inch from 1-kp-hq (rounded up): a unit activates with its command unit only within 60 tenths"
    );
    assert_eq!(
        refused(Refused::CommandGroupSize.kind(), &["1-kp-1zug", "1-kp-3zug", "1-kp-2zug", "1-kp-hq"]),
        "a die activates a command unit and up to 3 units, not 4 (1-kp-1zug, 1-kp-3zug, 1-kp-2zug, 1-kp-hq)"
    );
    assert_eq!(
        refused(Refused::NotInCommandGroup.kind(), &["2-kp-1zug"]),
        "2-kp-1zug is not in 1-kp: a die activates units of one command group (1-kp-hq, 1-kp-1zug, 1-kp-2zug, 1-kp-3zug)"
    );
    assert_eq!(
        refused(Refused::CommandUnitNamed.kind(), &["1-kp-hq"]),
        "1-kp-hq is 1-kp's command unit, activated with it: name up to 3 other units"
    );
    assert_eq!(refused(Shared::NamedTwice.kind(), &["1-kp-1zug", "1-kp-1zug"]), "1-kp-1zug is named twice");
    assert_eq!(refused(Shared::Unknown.kind(), &["1-kp-9zug"]), "there is no unit \"1-kp-9zug\" in this game");
}

/// A different range is a constant a group may change.
#[test]
fn the_activation_range_is_a_constant() {
    let mut rules = registry::version(MULTI).unwrap().defaults();
    rules.constants.insert("activation-range-tenths".into(), 40);
    let scenario: Scenario = serde_json::from_value(four_deployed()).unwrap();
    let g = testing::given::<CombatHq>(CombatHq::initial(scenario, &rules).unwrap()).decided_rolling(
        begin("germans"),
        &[("command-dice:kg-max", &[5, 5, 4, 3, 2]), ("command-dice:bg-hart", &[3, 2])],
    );
    assert_eq!(
        g.when_rolling(pulse("kg-max", 5, json!([activate("1-kp", &["1-kp-1zug"])])), &[]).refusal_of(Refused::OutOfCommandRange),
        "1-kp-1zug is 43 tenths of an inch from 1-kp-hq (rounded up): a unit activates with its command unit only within 40 tenths"
    );
}

// -------------------------------------------------------------- staff orders

fn restocked(facts: &[Fact]) -> Option<Fact> {
    facts.iter().find(|f| matches!(f, Fact::StaffOrdersRestocked { .. })).cloned()
}

/// "a double chain restocks 1, a triple 2, …; restocked orders are usable
/// from the next turn"; a single die restocks nothing.
#[test]
fn a_chain_restocks_one_staff_order_per_die_after_the_first_usable_next_turn() {
    let mut s = four_deployed();
    s["sides"][0]["battle_groups"][0]["staff_orders"] = json!(2);
    let g = given(MULTI, s).decided_rolling(
        begin("germans"),
        &[("command-dice:kg-max", &[4, 4, 3, 3, 3]), ("command-dice:bg-hart", &[2, 2])],
    );
    let facts = g.when_rolling(pulse("kg-max", 4, json!([])), &[]).facts();
    assert!(matches!(
        restocked(&facts),
        Some(Fact::StaffOrdersRestocked {
            earned: 1,
            restocked: 1,
            at_once: false,
            staff_orders: 2,
            staff_orders_next_turn: 1,
            ..
        })
    ));
    let facts = g.when_rolling(pulse("kg-max", 3, json!([])), &[]).facts();
    assert!(matches!(
        restocked(&facts),
        Some(Fact::StaffOrdersRestocked {
            earned: 2,
            restocked: 2,
            at_once: false,
            staff_orders: 2,
            staff_orders_next_turn: 2,
            ..
        })
    ));
    let g = g.decided_rolling(pulse("kg-max", 3, json!([])), &[]).decided_rolling(pulse("bg-hart", 2, json!([])), &[]);
    let facts = g.when_rolling(pulse("kg-max", 4, json!([])), &[]).facts();
    assert_eq!(
        narrative(&[restocked(&facts).unwrap()]),
        ["kg-max's chain of 2 dice restocks 1 Staff Order, usable from the next turn: 2 usable, 3 waiting."]
    );
    // Next turn, the waiting orders are usable.
    let g = g.decided_rolling(pulse("kg-max", 4, json!([])), &[]).decided_rolling(end_turn(), &[]);
    let facts = g
        .when_rolling(begin("british"), &[("command-dice:bg-hart", &[2, 2]), ("command-dice:kg-max", &[6, 5, 4, 3, 2])])
        .facts();
    assert_eq!(
        facts[0],
        Fact::TurnBegan {
            turn: 2,
            first: "british".into(),
            released: [("bg-hart".into(), 1), ("kg-max".into(), 3)].into(),
            staff_orders: [("bg-hart".into(), 3), ("kg-max".into(), 5)].into(),
        }
    );
    let g = g.decided_rolling(
        begin("british"),
        &[("command-dice:bg-hart", &[2, 2]), ("command-dice:kg-max", &[6, 5, 4, 3, 2])],
    );
    let facts = g.when_rolling(pulse("kg-max", 5, json!([])), &[]).facts();
    assert_eq!(facts.len(), 2, "a chain of one die restocks nothing: {facts:?}");
}

/// "(a chain of 6s: at once)"
#[test]
fn a_chain_of_sixes_restocks_at_once() {
    let mut s = four_deployed();
    s["sides"][0]["battle_groups"][0]["staff_orders"] = json!(0);
    let g = given(MULTI, s).decided_rolling(
        begin("germans"),
        &[("command-dice:kg-max", &[6, 6, 3, 3, 2]), ("command-dice:bg-hart", &[5, 5])],
    );
    let g = g.decided_rolling(pulse("kg-max", 6, json!([])), &[]);
    let kg = &g.state().battle_groups["kg-max"];
    assert_eq!((kg.staff_orders, kg.staff_orders_next_turn), (1, 0));
    // And it is spent this very turn.
    let g = g.decided_rolling(pulse("bg-hart", 5, json!([])), &[]);
    g.when_rolling(enter_reserve("pak"), &[]).facts();
}

/// "Cap: one Staff Order per Command Die." The orders waiting for the next
/// turn count.
#[test]
fn a_battle_group_never_holds_more_staff_orders_than_command_dice() {
    let g = turn_one(MULTI, &[3, 3, 3, 3, 2], &[2, 2]);
    let facts = g.when_rolling(pulse("kg-max", 3, json!([])), &[]).facts();
    assert_eq!(
        restocked(&facts),
        Some(Fact::StaffOrdersRestocked {
            battle_group: "kg-max".into(),
            chain_dice: 4,
            earned: 3,
            restocked: 2,
            at_once: false,
            cap: 8,
            staff_orders: 6,
            staff_orders_next_turn: 2,
        })
    );
}

// ------------------------------------------------------------------ reserves

/// "a single Reserve Command Group enters by a CO Staff Order or by spending
/// one die of the Active Dice Pool"; "When a Reserve Command Group enters the
/// table, its Command Dice is added to the battle group's Active Dice Pool
/// and is available for use on subsequent turns."
#[test]
fn under_multi_bg_a_group_entering_by_a_die_adds_its_die_from_next_turn() {
    let g = turn_one(MULTI, &[6, 5, 5, 3, 2], &[4, 2]);
    let facts = g.when_rolling(pulse("kg-max", 3, json!([enter("stug")])), &[]).facts();
    assert_eq!(
        facts[1],
        Fact::ReserveEntered {
            battle_group: "kg-max".into(),
            command_group: "stug".into(),
            paid: Payment::Die { chain: 3 },
            die_released: true,
            held_by_reserves: 2,
            pool_from_next_turn: 6,
        }
    );
    let g = g.decided_rolling(pulse("kg-max", 3, json!([enter("stug")])), &[]);
    // Not this turn: the pool of turn 1 stays 5.
    assert_eq!(kg_max(&g).active_pool, 5);
    let g = g.decided_rolling(end_turn(), &[]);
    let facts = g
        .when_rolling(
            begin("germans"),
            &[("command-dice:kg-max", &[2, 2, 2, 2, 2, 2]), ("command-dice:bg-hart", &[2, 2])],
        )
        .facts();
    assert!(matches!(rolled(&facts, "kg-max"), Fact::CommandDiceRolled { active_pool: 6, held_by_reserves: 2, .. }));
}

#[test]
fn under_base_a_group_entering_releases_no_die() {
    let g = turn_one(BASE, &[6, 5, 5, 3, 2, 2, 4, 4], &[4, 2, 2, 3]);
    let facts = g.when_rolling(pulse("kg-max", 3, json!([enter("stug")])), &[]).facts();
    assert_eq!(
        narrative(&facts[1..2]),
        ["stug enters the table from reserve by a die of the chain of 3s; it held no Command Die: kg-max's pool stays 8."]
    );
}

/// CN9: by default artillery enters from reserve like any command group;
/// with `artillery-waits-for-a-command-group`, "Its artillery is held in
/// reserve until one command group enters the table."
#[test]
fn artillery_waits_for_another_group_on_the_table_only_under_the_option() {
    let g = given(MULTI_ARTILLERY_WAITS, all_in_reserve())
        .decided_rolling(begin("germans"), &[("command-dice:bg-hart", &[4, 4])]);
    assert_eq!(
        g.when_rolling(enter_reserve("art"), &[]).refusal_of(Refused::ArtilleryWaits),
        "art is artillery: \"Its artillery is held in reserve until one command group enters the table.\" (artillery-waits-for-a-command-group), and none of kg-max's other command groups is on the table"
    );
    let g = g.decided_rolling(enter_reserve("pak"), &[]);
    g.when_rolling(enter_reserve("art"), &[]).facts();
    let g = given(MULTI, all_in_reserve()).decided_rolling(begin("germans"), &[("command-dice:bg-hart", &[4, 4])]);
    g.when_rolling(enter_reserve("art"), &[]).facts();
    let g = given(BASE, all_in_reserve()).decided_rolling(
        begin("germans"),
        &[("command-dice:kg-max", &[2, 3, 4, 5, 2, 3, 4, 5]), ("command-dice:bg-hart", &[4, 4, 3, 3])],
    );
    g.when_rolling(enter_reserve("art"), &[]).facts();
}

/// Multi-bg: "the failure stops that group's reserves from entering unless
/// the CO pays 2 Staff Orders per Reserve Command Group."
#[test]
fn under_multi_bg_reserves_held_back_enter_only_for_two_staff_orders() {
    let g = given(MULTI, four_deployed()).decided_rolling(
        begin("germans"),
        &[("command-dice:kg-max", &[1, 1, 5, 3, 2]), ("command-dice:bg-hart", &[4, 2])],
    );
    assert_eq!(
        g.when_rolling(pulse("kg-max", 5, json!([enter("pak")])), &[]).refusal_of(Refused::CommandFailureBarsReserves),
        "kg-max had a Command Failure this turn: its reserves cannot enter by a die; the CO may pay 2 Staff Orders for each (enter-reserve)"
    );
    let facts = g.when_rolling(enter_reserve("pak"), &[]).facts();
    assert!(matches!(&facts[0], Fact::ReserveEntered { paid: Payment::StaffOrders { count: 2, left: 4, .. }, .. }));
    // The British reserves are not held back by the German failure.
    let g = g.decided_rolling(pulse("kg-max", 5, json!([])), &[]);
    let facts = g.when_rolling(enter_reserve("b-coy"), &[]).facts();
    assert!(matches!(&facts[0], Fact::ReserveEntered { paid: Payment::StaffOrders { count: 1, left: 1, .. }, .. }));
}

#[test]
fn under_base_a_command_failure_does_not_hold_reserves_back() {
    let g = turn_one(BASE, &[1, 1, 5, 3, 2, 2, 4, 4], &[4, 2, 2, 3]);
    let facts = g.when_rolling(enter_reserve("pak"), &[]).facts();
    assert!(matches!(&facts[0], Fact::ReserveEntered { paid: Payment::StaffOrders { count: 1, left: 5, .. }, .. }));
    g.when_rolling(pulse("kg-max", 5, json!([enter("pak")])), &[]).facts();
}

#[test]
fn entering_by_a_die_refusals_say_what_is_allowed() {
    let g = turn_one(MULTI, &[6, 5, 5, 3, 2], &[4, 2]);
    assert_eq!(
        g.when_rolling(pulse("kg-max", 5, json!([enter("1-kp")])), &[]).refusal_of(Refused::NotInReserve),
        "1-kp is not in reserve: it is already on the table"
    );
    assert_eq!(
        g.when_rolling(pulse("kg-max", 5, json!([enter("b-coy")])), &[]).refusal_of(Refused::OtherBattleGroup),
        "b-coy is a reserve of bg-hart, not kg-max: a die enters its own battle group's reserves"
    );
    assert_eq!(
        g.when_rolling(pulse("kg-max", 5, json!([enter("pak"), enter("pak")])), &[]).refusal_of(Refused::NotInReserve),
        "pak is not in reserve: it is already on the table"
    );
}

/// "All of a battle group's initial Staff Orders, irrespective of the number
/// of Command Groups on the table at the start of the game, are available to
/// the CO": he pays from any of his battle groups, or from his own.
#[test]
fn the_co_pays_from_any_of_his_pools() {
    let g = given(MULTI, two_british_battle_groups()).decided_rolling(
        begin("british"),
        &[
            ("command-dice:bg-hart", &[1, 1]),
            ("command-dice:kg-max", &[5, 4, 4, 3, 2]),
            ("command-dice:bg-lane", &[5, 3]),
        ],
    );
    let from = |group: &str, pool: &str| {
        g.when_rolling(json!({"type": "enter-reserve", "command_group": group, "staff_orders_from": pool}), &[])
            .result()
    };
    assert!(matches!(
        &from("b-coy", "bg-lane").unwrap()[0],
        Fact::ReserveEntered { paid: Payment::StaffOrders { count: 2, left: 1, .. }, .. }
    ));
    assert!(matches!(
        &from("pak", "max").unwrap()[0],
        Fact::ReserveEntered { paid: Payment::StaffOrders { count: 1, left: 1, .. }, .. }
    ));
    assert_eq!(
        from("b-coy", "kg-max").unwrap_err(),
        "kg-max is a battle group of germans: the CO of british pays from his battle groups (bg-hart, bg-lane) or from his own Staff Orders (hart)"
    );
    assert_eq!(
        from("b-coy", "monty").unwrap_err(),
        "\"monty\" is neither a battle group of british (bg-hart, bg-lane) nor its CO (hart)"
    );
    assert_eq!(
        from("b-coy", "hart").unwrap_err(),
        "b-coy costs 2 Staff Order(s) to enter after bg-hart's Command Failure this turn, and hart has 0 usable"
    );
    let g =
        g.decided_rolling(json!({"type": "enter-reserve", "command_group": "pak", "staff_orders_from": "max"}), &[]);
    assert_eq!(g.state().sides[0].co_staff_orders, 1);
}

#[test]
fn entering_by_staff_orders_refusals_say_what_is_allowed() {
    let g = given(MULTI, four_deployed());
    assert_eq!(
        g.when_rolling(enter_reserve("pak"), &[]).refusal_of(Shared::NoTurnBegun),
        "no turn has begun: begin a turn first"
    );
    let mut s = four_deployed();
    s["sides"][1]["battle_groups"][0]["staff_orders"] = json!(0);
    let g = given(MULTI, s).decided_rolling(
        begin("germans"),
        &[("command-dice:kg-max", &[5, 5, 4, 3, 2]), ("command-dice:bg-hart", &[4, 4])],
    );
    let g = g.decided_rolling(pulse("kg-max", 5, json!([])), &[]);
    assert_eq!(
        g.when_rolling(enter_reserve("b-coy"), &[]).refusal_of(Refused::StaffOrdersShort),
        "b-coy costs 1 Staff Order(s) to enter, and bg-hart has 0 usable"
    );
    let g = g.decided_rolling(pulse("bg-hart", 4, json!([])), &[]);
    assert_eq!(
        g.when_rolling(enter_reserve("b-coy"), &[]).refusal_of(Refused::StaffOrdersShort),
        "b-coy costs 1 Staff Order(s) to enter, and bg-hart has 0 usable (1 more restocked, usable from the next turn)"
    );
    assert_eq!(
        g.when_rolling(enter_reserve("a-coy"), &[]).refusal_of(Refused::NotInReserve),
        "a-coy is not in reserve: it is already on the table"
    );
    assert_eq!(
        g.when_rolling(enter_reserve("e-coy"), &[]).refusal_of(Shared::Unknown),
        "there is no command group \"e-coy\" in this game"
    );
    let g = g.decided_rolling(end_turn(), &[]);
    assert_eq!(
        g.when_rolling(enter_reserve("b-coy"), &[]).refusal_of(Shared::TurnOver),
        "turn 1 has ended: reserves enter in a turn; begin the next turn"
    );
    assert_eq!(
        g.when_rolling(pulse("kg-max", 4, json!([])), &[]).refusal_of(Shared::TurnOver),
        "turn 1 has ended: Command Pulses are played in a turn; begin the next turn"
    );
}

// ------------------------------------------------------------ turns, moves

#[test]
fn ending_a_turn_loses_the_dice_not_played() {
    let g = given(BASE, four_deployed());
    assert_eq!(
        g.when_rolling(end_turn(), &[]).refusal_of(Shared::NoTurnBegun),
        "no turn has begun: begin a turn first"
    );
    let g = g.decided_rolling(
        begin("british"),
        &[("command-dice:bg-hart", &[1, 1, 4, 5]), ("command-dice:kg-max", &[6, 5, 4, 3, 2, 2, 3, 4])],
    );
    let facts = g.when_rolling(end_turn(), &[]).facts();
    assert_eq!(
        facts,
        [Fact::TurnEnded {
            turn: 1,
            unplayed: [("bg-hart".into(), vec![5, 4]), ("kg-max".into(), vec![6, 5, 4, 4, 3, 3, 2, 2])].into(),
            wild_dice_lost: [("germans".into(), 2)].into(),
        }]
    );
    let g = g.decided_rolling(end_turn(), &[]);
    assert_eq!(
        g.when_rolling(end_turn(), &[]).refusal_of(Shared::TurnOver),
        "turn 1 has already ended: begin the next turn"
    );
}

#[test]
fn the_referee_moves_units_on_the_table() {
    let g = given(MULTI, four_deployed());
    g.when_rolling(json!({"type": "move", "unit": "1-kp-1zug", "to_tenths": [70, 200]}), &[]).then([Fact::UnitMoved {
        unit: "1-kp-1zug".into(),
        from_tenths: Point { x: 70, y: 150 },
        to_tenths: Point { x: 70, y: 200 },
    }]);
    assert_eq!(
        g.when_rolling(json!({"type": "move", "unit": "pak-1", "to_tenths": [0, 0]}), &[])
            .refusal_of(Refused::InReserve),
        "pak-1 is in reserve with pak: its command group enters the table before it moves"
    );
    assert_eq!(
        g.when_rolling(json!({"type": "move", "unit": "tiger", "to_tenths": [0, 0]}), &[]).refusal_of(Shared::Unknown),
        "there is no unit \"tiger\" in this game"
    );
}

#[test]
fn decisions_with_unknown_fields_are_refused() {
    let g = given(MULTI, four_deployed());
    let err = g.when_rolling(json!({"type": "end-turn", "side": "germans"}), &[]).refusal_of(Shared::Malformed);
    assert!(err.contains("unknown field `side`"), "{err}");
    let err = g.when_rolling(json!({"type": "pulse", "battle_group": "kg-max", "number": 5, "orders": [{"do": "activate", "command_group": "1-kp", "unit": "x"}]}), &[])
    .refusal_of(Shared::Malformed);
    assert!(err.contains("unknown field `unit`"), "{err}");
}

/// Regression: `verify` narrates the facts of a changed record to say how it
/// differs, and a changed `turn-began` whose `released` names a battle group
/// that its `staff_orders` lacks made the narration panic (found by the
/// single-byte-change property, `ROLLCALL_SEED=10000`). So did a changed
/// `chain-played` with a Wild Dice count near `u32::MAX`, by overflow.
#[test]
fn a_changed_fact_that_does_not_add_up_still_narrates() {
    let turn_began = Fact::TurnBegan {
        turn: 2,
        first: "germans".into(),
        released: [("kg-mbx".to_string(), 1)].into(),
        staff_orders: [("kg-max".to_string(), 3)].into(),
    };
    assert_eq!(
        narrative(&[turn_began]),
        ["Turn 2 begins, germans rolling first. Staff Orders restocked last turn become usable: kg-mbx +1."]
    );
    let chain = Fact::ChainPlayed {
        side: "germans".into(),
        battle_group: "kg-max".into(),
        number: 5,
        dice: vec![5],
        wild_dice: u32::MAX,
        dice_left: vec![],
        wild_dice_left: 0,
    };
    assert_eq!(
        narrative(&[chain]),
        [format!(
            "Command Pulse, germans: kg-max plays a chain of 5s (5 + {} Wild Dice: {} dice); dice left: none.",
            u32::MAX,
            u32::MAX
        )]
    );
}

// -------------------------------------------------------------- citations

/// The rules text this ruleset implements, as the project has it:
/// `docs/rules/battle-group-command-dice.txt`.
const EXCERPT: &str = r#"Game Set-Up for Multiple Battle Groups – Rule Change
A battle group does not have access to all of its Command Dice until it has entered all of its Reserves onto the table.
Initial Units
The CO may decide which units to have on the table and which ones to hold in Reserve. He may have Command Groups from any or all of battle groups present on the table, or may decide to just have Command Groups from a single battle group on on the table.
Allocating Command Dice to Reserves
Reserve units are grouped into Command Groups that match the battle group’s companies and support groups. Each Reserve Command Group is allocated one Command Dice.
For example, Max’s German infantry battle group consist of 24 units with eight Command Dice. It has three rifle companies, a weapons company, plus three support groups, for a total of seven command groups. Its artillery is held in reserve until one command group enters the table.
Active Dice Pools for Battle Groups
After Command Dice have been allocated to Reserve Command Groups, any remaining Command Dice are used to form the battle group’s Active Dice Pool.
All of a battle group’s initial Staff Orders, irrespective of the number of Command Groups on the table at the start of the game, are available to the CO.
For example, if all of Max’s infantry battle group units were used as Reserves, only one of its eight Command Dice would form its Active Dice Pool. All six of its Staff Orders would be usable by the CO.
If at the start of the game, Max deploys three rifle companies and his weapons company, he would have five Command Dice in his Active Dice Pool. Three Command Dice would be allocated to his three reserve battle groups.
When a Reserve Command Group enters the table, its Command Dice is added to the battle group’s Active Dice Pool and is available for use on subsequent turns.
One or More Deployed Command Groups
If one or more command groups are deployed on the table at the start of a game, the battle group rolls its Active Dice Pool each turn. If all of its units (excluding artillery) are held in Reserve, it doesn’t roll any Command Dice. When it enters a Command Group onto the table, it gains its Active Dice Pool (plus that unit’s Command Dice) for use in subsequent turns.
"#;

/// The Combat HQ section of `docs/rules/INTERPRETATIONS.md`: the designer's
/// published rules the excerpt relies on, and the open points C1–C5.
const CONTEXT: &str = r#"## combat-hq (battle-group-command-dice.txt) — Combat HQ, Jim Bambra

Context from the designer's published articles (not in the excerpt; the
engine needs it to do anything with the dice):
- CO = Commanding Officer, controls all battle groups; each battle group keeps
  its own Command Dice, Morale Points and Staff Orders pool.
- Command Dice are rolled at the start of each turn, per battle group, COs
  alternating. If a roll shows more 1s than 6s it is a **Command Failure**:
  in the base game the 1s go to the opponent as Wild Dice (on a normal roll,
  1s are discarded); in the multi-battle-group rules the failing group's 1s go
  to the enemy CO as Staff Orders, and the failure stops that group's reserves
  from entering unless the CO pays 2 Staff Orders per Reserve Command Group.
- Dice showing the same number form a Dice Chain; 6s are wild and may join any
  chain. The first Command Pulse goes to the side with most 6s, then most 5s,
  and so on; sides alternate pulses, one chain per pulse; each die activates one
  command group (a command unit and up to 3 units within 6").
- Staff Orders: a double chain restocks 1, a triple 2, …; restocked orders are
  usable from the next turn (a chain of 6s: at once). Cap: one Staff Order per
  Command Die. The starting number is scenario data.
- Entering reserves: a single Reserve Command Group enters by a CO Staff
  Order or by spending one die of the Active Dice Pool; its die joins the pool
  from the next turn.

| # | open point | default | option |
|---|---|---|---|
| C1 | "allocated to his three reserve battle groups" — means reserve command groups (8 − 3 = 5). | Command groups. | — |
| C2 | Artillery "held in reserve" but "excluding artillery" in the deployed test, and 8 − 7 = 1 counts it. | Artillery groups take a reserve die, but do not count as deployed. | — |
| C3 | All in reserve: one die "would form its Active Dice Pool" yet "it doesn't roll". | The pool exists but is not rolled until a command group has entered; the entering group's die is usable from the next turn. | — |
| C4 | More reserve groups than dice. | Pool floors at 0; surplus groups hold no die. | — |
| C5 | The rule change itself. | Version `combat-hq@multi-bg` applies it; `combat-hq@base` is the single-battle-group game (all dice active from turn 1). Diffing the two on one game is a headline example. | — |
"#;

/// Text as quoted: no Markdown emphasis, straight apostrophes, inch marks
/// (`6"`) apart from quotation marks, one space between words.
fn normalise(text: &str) -> String {
    let mut out = String::new();
    let mut previous = ' ';
    for c in text.replace("**", "").replace('\u{2019}', "'").chars() {
        let c = if c == '"' && previous.is_ascii_digit() { '\u{2033}' } else { c };
        if c.is_whitespace() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
        previous = c;
    }
    out
}

/// The passages between quotation marks in a normalised text: a quotation
/// opens after a space or a bracket and closes before a space, a
/// punctuation mark or the end.
fn quotations(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let opens = chars[i] == '"' && (i == 0 || matches!(chars[i - 1], ' ' | '(' | '['));
        if !opens {
            i += 1;
            continue;
        }
        let Some(len) = chars[i + 1..].iter().enumerate().position(|(k, &c)| {
            c == '"' && chars.get(i + 2 + k).is_none_or(|n| n.is_whitespace() || ".,;:)]".contains(*n))
        }) else {
            break;
        };
        out.push(chars[i + 1..i + 1 + len].iter().collect());
        i += len + 2;
    }
    out
}

/// A rule in code quotes the rules texts, and only them.
/// Every quotation in the doc comments of the ruleset's code, in its
/// messages and in its settings' `settles` is found, word for word (an
/// ellipsis standing for words left out), in the excerpt or in its context.
#[test]
fn every_quotation_is_from_the_rules_texts() {
    let texts = format!("{} {}", normalise(EXCERPT), normalise(CONTEXT));
    let found = |quote: &str| {
        quote
            .split(['\u{2026}'])
            .map(|p| p.trim_matches(|c: char| c == ' ' || c == '.' || c == ','))
            .all(|p| p.is_empty() || texts.contains(p))
    };
    let mut quotes: Vec<(String, String)> = Vec::new();
    for (file, source) in [
        ("mod.rs", include_str!("mod.rs")),
        ("decide.rs", include_str!("decide.rs")),
        ("text.rs", include_str!("text.rs")),
    ] {
        let mut comment = String::new();
        for line in source.lines() {
            let line = line.trim_start();
            match line.strip_prefix("///").or_else(|| line.strip_prefix("//!")).or_else(|| line.strip_prefix("//")) {
                Some(rest) => {
                    comment.push(' ');
                    comment.push_str(rest);
                }
                None => {
                    quotes.extend(quotations(&normalise(&comment)).into_iter().map(|q| (file.to_string(), q)));
                    comment.clear();
                    // A message's quotation: between escaped quotation marks.
                    let line = normalise(&line.replace("\\\"", "\""));
                    for (k, part) in line.split("\\\"").enumerate() {
                        if k % 2 == 1 && !part.contains('{') {
                            quotes.push((file.to_string(), part.to_string()));
                        }
                    }
                }
            }
        }
    }
    for spec in versions() {
        for s in &spec.settings {
            quotes.extend(
                quotations(&normalise(s.settles)).into_iter().map(|q| (format!("{} {}", spec.id(), s.name), q)),
            );
        }
    }
    let quotes: Vec<_> = quotes.into_iter().filter(|(_, q)| q.chars().count() >= 12).collect();
    assert!(quotes.len() > 30, "only {} quotations found", quotes.len());
    let strays: Vec<String> =
        quotes.iter().filter(|(_, q)| !found(q)).map(|(at, q)| format!("{at}: \"{q}\"")).collect();
    assert!(strays.is_empty(), "quoted, but in no rules text:\n{}", strays.join("\n"));
}

#[test]
fn dice_a_reader_sees_are_their_faces_or_none() {
    // Given the dice of a pool, a chain or what is left
    // When they are told, in a refusal or the narrative
    // Then each face is shown, and no dice at all read "none", never an empty list
    assert_eq!(super::text::faces(&[3, 5, 5]), "3 5 5");
    assert_eq!(super::text::faces(&[]), "none");
}
