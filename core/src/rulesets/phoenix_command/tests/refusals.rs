//! Refusals not met in the section tests: each says what is wrong, and what
//! is allowed where there is a choice.

use serde_json::{json, Value};

use crate::refusal::{RefusalKind, Shared};
use crate::rulesets::phoenix_command::Refused;

use super::command::{militia_units, small};
use super::interrupts::{ambush_scenario, patrol_advancing, rifle};
use super::melee::{acting, close_quarters, melee};
use super::morale::team;
use super::organisation::{mauled, platoon};
use super::{given, given_with, in_operations, with_figure, with_knockout_chances, Given};

#[track_caller]
fn refused(g: &Given, kind: impl Into<RefusalKind>, decision: Value, dice: &[(&str, &[u32])], expected: &str) {
    assert_eq!(g.when_rolling(decision, dice).refusal_of(kind), expected);
}

fn activated(s: Value, unit: &str) -> Given {
    in_operations(s).decided(json!({"type": "activate", "unit": unit}))
}

// --- 2.1 and lookups ---------------------------------------------------------

#[test]
fn turn_and_lookup_refusals() {
    let g = given(small(1, 1)).decided(json!({"type": "begin-turn"}));
    refused(
        &g,
        Refused::OperationsNotBegun,
        json!({"type": "activate", "unit": "a"}),
        &[],
        "turn 1 is in its strategic movement: begin operations before activating units",
    );
    let g = in_operations(small(1, 1));
    refused(
        &g,
        Shared::NothingActive,
        json!({"type": "accumulate"}),
        &[],
        "no unit is activated: activate the next unit first",
    );
    refused(
        &g,
        Shared::Unknown,
        json!({"type": "activate", "unit": "zz"}),
        &[],
        "there is no unit \"zz\" in this game",
    );
    refused(
        &g,
        Shared::Unknown,
        json!({"type": "casualty", "figure": "zz", "effect": "killed", "reason": "test"}),
        &[],
        "there is no figure \"zz\" in this game",
    );
    let g = g.decided_all(&[
        json!({"type": "activate", "unit": "a"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "b"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "j"}),
        json!({"type": "pass"}),
    ]);
    refused(
        &g,
        Shared::TurnOver,
        json!({"type": "begin-operations"}),
        &[],
        "turn 1 is over: begin the next turn, whose strategic movement comes first",
    );
    refused(
        &g,
        Shared::TurnOver,
        json!({"type": "sighted", "target": "j", "by": "a"}),
        &[],
        "turn 1 is over: begin the next turn",
    );
    let g = activated(platoon([0, 4, 3, 0, 0]), "1a").decided(json!({"type": "consolidate", "organisation": "1-sqd"}));
    refused(
        &g,
        Refused::NotAUnitNow,
        json!({"type": "command-check", "unit": "1a", "reason": "test"}),
        &[],
        "1a is not acting as a unit now: its figures act with 1-sqd",
    );
}

/// A unit that could not brevet is broken: no orders, no ambush, no check.
#[test]
fn a_broken_leaderless_unit_takes_no_orders() {
    let g = given(militia_units())
        .decided(json!({"type": "begin-turn"}))
        .decided(json!({"type": "casualty", "figure": "m2-lead", "effect": "killed", "reason": "sniper"}));
    refused(
        &g,
        Refused::BrokenTakesNoOrders,
        json!({"type": "strategic-move", "unit": "m2"}),
        &[],
        "m2 is broken: it cannot be given orders",
    );
    refused(
        &g,
        Refused::NoLeader,
        json!({"type": "command-check", "unit": "m2", "reason": "test"}),
        &[],
        "m2 has no leader: a command check is made against the leader's Command Rating",
    );
    refused(
        &g,
        Refused::BrokenTakesNoOrders,
        json!({"type": "sighted", "target": "j", "by": "m2"}),
        &[],
        "m2 is broken: it cannot lie in wait",
    );
}

// --- 2.3 ---------------------------------------------------------------------

#[test]
fn command_refusals() {
    let g = activated(small(1, 1), "a");
    refused(&g, Shared::NoChange, json!({"type": "take-command"}), &[], "a's leader a-lead is already in command");
    refused(
        &g,
        Shared::NamedTwice,
        json!({"type": "command-check", "unit": "a", "figures": ["a-1", "a-1"], "reason": "test"}),
        &[],
        "a-1 is named twice",
    );
}

// --- 2.4 ---------------------------------------------------------------------

#[test]
fn action_refusals() {
    let g = activated(small(1, 1), "a").decided(json!({"type": "spend-cp"}));
    refused(
        &g,
        Shared::NothingNamed,
        json!({"type": "actions", "actions": []}),
        &[],
        "name at least one figure's action",
    );
    let s = with_figure(small(1, 1), "a-2", "morale", json!("panicked"));
    let g = activated(s, "a").decided(json!({"type": "spend-cp"}));
    refused(
        &g,
        Refused::FleeOneWay,
        json!({"type": "actions", "actions": [{"type": "flee", "figure": "a-2", "to": [40, -50], "reached_cover": true, "left_battlefield": true}]}),
        &[],
        "a-2 either reaches cover or leaves the battlefield, not both",
    );
    let mut s = with_figure(small(1, 1), "a-1", "morale", json!("shaken"));
    s = with_figure(s, "a-1", "weapons", json!(["rifle"]));
    s["weapons"] = json!({"rifle": {"max_shots": 3, "pen": 20, "sdm": 2}});
    let g = activated(s, "a")
        .decided_rolling(json!({"type": "abandon"}), &[("check:a-2", &[0])])
        .decided(json!({"type": "spend-cp"}));
    refused(
        &g,
        Refused::RaggedFireOnly,
        json!({"type": "actions", "actions": [{"type": "fire", "figure": "a-1", "move_to": [20, 20], "weapon": "rifle", "target": "j-lead", "mode": "ragged", "odds": 3}]}),
        &[],
        "a-1 is Shaken and cannot advance and fire: he fires ragged where he stands",
    );
}

// --- 2.5 and fire --------------------------------------------------------------

#[test]
fn interrupt_refusals() {
    refused(
        &activated(small(0, 0), "a"),
        Refused::NoCp,
        json!({"type": "set-interrupt"}),
        &[],
        "a has no CP: \"A unit (ambushers) sets an interrupt by expending 1 CP\"",
    );
    let g = given_with(ambush_scenario(true, 0), &[])
        .decided_all(&[json!({"type": "begin-turn"}), json!({"type": "strategic-move", "unit": "ambush"})]);
    refused(
        &g,
        Refused::StrategicMovementBarsFire,
        json!({"type": "sighted", "target": "patrol", "by": "ambush"}),
        &[],
        "ambush moved strategically this turn and is not eligible to fire",
    );
    // Lying in wait, then moved strategically: not eligible to fire either.
    let g = given_with(ambush_scenario(true, 0), &[])
        .decided(json!({"type": "begin-turn"}))
        .decided_rolling(
            json!({"type": "sighted", "target": "patrol", "by": "ambush"}),
            &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])],
        )
        .decided(json!({"type": "strategic-move", "unit": "ambush"}));
    refused(
        &g,
        Refused::StrategicMovementBarsFire,
        json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "aimed", Some(1), 5)]}),
        &[],
        "ambush moved strategically this turn and may not fire: \"Units which have performed strategic movement in the turn … are not eligible to fire\"",
    );
    let g = patrol_advancing(ambush_scenario(true, 0), &["no-check-on-entering-los"])
        .decided(json!({"type": "sighted", "target": "patrol", "by": "ambush"}));
    refused(
        &g,
        Shared::NothingNamed,
        json!({"type": "interrupt", "by": "ambush", "fire": []}),
        &[],
        "name the ambushers who fire",
    );
    refused(
        &g,
        Shared::NamedTwice,
        json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "aimed", Some(1), 5), rifle("ambush-lead", "patrol-2", "aimed", Some(1), 5)]}),
        &[],
        "ambush-lead is named twice: one action each",
    );
}

// --- 2.7 -----------------------------------------------------------------------

#[test]
fn melee_refusals() {
    let g = acting(close_quarters());
    refused(
        &g,
        Refused::NoMeleeWaiting,
        json!({"type": "melee-response", "escape": false}),
        &[],
        "no melee attack is waiting for an answer",
    );
    refused(
        &g,
        Shared::NotAnEnemy,
        melee("a-1", "a-2", [20, 10]),
        &[],
        "a-2 is on a-1's own side: a melee attack is on an enemy figure",
    );
    let g2 = acting(with_figure(close_quarters(), "a-1", "melee_attack_value", Value::Null));
    refused(
        &g2,
        Refused::NoMeleeAttackValue,
        melee("a-1", "j-1", [20, 40]),
        &[],
        "a-1 has no Melee Attack Value in the scenario",
    );
    let g3 = given_with(close_quarters(), &[])
        .decided(json!({"type": "casualty", "figure": "j-1", "effect": "killed", "reason": "test"}))
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "a"}),
            json!({"type": "spend-cp"}),
        ]);
    refused(&g3, Shared::OutOfPlay, melee("a-1", "j-1", [20, 40]), &[], "j-1 is out of play and cannot be attacked");
    let g = g.decided(melee("a-1", "j-1", [20, 40]));
    refused(
        &g,
        Refused::BeyondMove,
        json!({"type": "melee-response", "escape": true, "escape_to": [20, 200]}),
        &[],
        "j-1 cannot escape to (20, 200): that is 15.0\" and a standard move is 6.0\"",
    );
}

// --- 2.8 -----------------------------------------------------------------------

#[test]
fn morale_refusals() {
    refused(
        &activated(team(0, &[("a-lead", "shaken")]), "a"),
        Refused::NoCp,
        json!({"type": "self-rally"}),
        &[],
        "a has 0 CP and this costs 1",
    );
    let g = activated(team(3, &[]), "a");
    refused(&g, Refused::NothingToRally, json!({"type": "steady-unit"}), &[], "a is neither Shaken nor Broken");
    refused(
        &g,
        Refused::NothingToRally,
        json!({"type": "rally-panicked", "figure": "a-1"}),
        &[],
        "a-1 is Bold, not Panicked",
    );
    refused(&g, Refused::NothingToRally, json!({"type": "abandon"}), &[], "a has no Shaken figure to abandon");
    refused(
        &g,
        Refused::NotRouting,
        json!({"type": "rout", "unit": "a", "reached_cover": true}),
        &[],
        "a is not routing",
    );
    let all_hold = json!({"type": "actions", "actions": [
        {"type": "hold", "figure": "a-lead"}, {"type": "hold", "figure": "a-1"}, {"type": "hold", "figure": "a-2"},
        {"type": "hold", "figure": "a-3"}, {"type": "hold", "figure": "a-4"}
    ]});
    let g = g.decided(json!({"type": "spend-cp"})).decided(all_hold.clone());
    refused(
        &g,
        Refused::ShakenDealtWithFirst,
        json!({"type": "abandon"}),
        &[],
        "a has begun its actions: the Shaken figures are dealt with before them",
    );
    let g = activated(team(3, &[("a-1", "shaken")]), "a")
        .decided_rolling(json!({"type": "abandon"}), &[("check:a-2", &[0]), ("check:a-3", &[0]), ("check:a-4", &[0])])
        .decided(json!({"type": "spend-cp"}))
        .decided(all_hold);
    refused(&g, Refused::ShakenDealtWithFirst, json!({"type": "rally"}), &[], "a has begun its actions: \"a leader must first spend 1 accumulated CP to rally all shaken figures in his unit\"");
    refused(
        &g,
        Refused::ShakenDealtWithFirst,
        json!({"type": "forced-rally", "figure": "a-1"}),
        &[],
        "a has begun its actions: the Shaken figures are dealt with before them",
    );
    let g = activated(team(3, &[("a-1", "shaken"), ("a-2", "shaken")]), "a");
    refused(
        &g,
        Shared::NotFriendly,
        json!({"type": "forced-rally", "figure": "a-1", "in_sight": ["j"]}),
        &[],
        "j is not another friendly unit",
    );
}

/// A superior officer may steady a broken unit only once it has reached cover.
#[test]
fn a_broken_unit_is_steadied_in_cover() {
    let s = with_figure(platoon([5, 0, 0, 0, 0]), "cpl1b", "command_rating", json!(1));
    let g = in_operations(s)
        .decided(json!({"type": "casualty", "figure": "cpl1b", "effect": "killed", "reason": "sniper"}))
        .decided(json!({"type": "activate", "unit": "hq"}));
    refused(
        &g,
        Refused::SteadyInCover,
        json!({"type": "steady-unit", "unit": "1b"}),
        &[],
        "1b has not reached cover: \"Once the unit is in cover, the leader must expend a CP to steady the unit\"",
    );
}

/// A fanatical leader who has panicked cannot compose himself.
#[test]
fn a_panicked_fanatic_leader_cannot_self_rally() {
    let mut s = with_figure(small(2, 0), "a-lead", "morale", json!("fanatical"));
    s = with_figure(s, "a-lead", "knockout_chance", json!(3));
    s = with_figure(s, "j-lead", "weapons", json!(["pistol"]));
    s["weapons"] = json!({"pistol": {"max_shots": 1, "pen": 5, "sdm": 0}});
    s["injury_table"] = json!([{"pen_over_pf": 0, "rows": [{"from": 0, "effect": "light-wound"}]}]);
    s["units"][2]["cp"] = json!(3);
    let g = given_with(with_knockout_chances(s, 3), &[])
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "j"}),
            json!({"type": "spend-cp"}),
        ])
        .decided_rolling(
            json!({"type": "actions", "actions": [{"type": "fire", "figure": "j-lead", "weapon": "pistol", "target": "a-lead", "mode": "aimed", "line": 1, "odds": 9}]}),
            &[("hit:j-lead", &[0]), ("injury:a-lead", &[0]), ("knockout:a-lead", &[9, 0])],
        )
        .decided_all(&[json!({"type": "stop"}), json!({"type": "activate", "unit": "a"})]);
    refused(
        &g,
        Refused::Fanatic,
        json!({"type": "self-rally"}),
        &[],
        "a-lead is a fanatic who has panicked: \"Once a fanatic has panicked, he cannot be rallied out of his panic\"",
    );
}

// --- 2.2 -----------------------------------------------------------------------

#[test]
fn consolidation_and_detachment_refusals() {
    let g = activated(platoon([0, 4, 3, 0, 0]), "1a");
    refused(
        &g,
        Shared::NotFriendly,
        json!({"type": "consolidate", "organisation": "j"}),
        &[],
        "j is jason's, not alex's",
    );
    refused(
        &g,
        Refused::NothingToConsolidate,
        json!({"type": "consolidate", "organisation": "1a"}),
        &[],
        "1a has no sub-units left to consolidate",
    );
    let g = given(platoon([0, 4, 3, 0, 0])).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "strategic-move", "unit": "1b"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "1a"}),
    ]);
    refused(
        &g,
        Refused::StrategicMovementBarsOperations,
        json!({"type": "consolidate", "organisation": "1-sqd"}),
        &[],
        "1b moved strategically this turn and cannot join 1-sqd: it \"may not act in the operations phase\"",
    );
    let s = with_figure(platoon([0, 4, 1, 0, 0]), "cpl1b", "command_rating", json!(1));
    let g = in_operations(s)
        .decided(json!({"type": "casualty", "figure": "cpl1b", "effect": "killed", "reason": "sniper"}))
        .decided(json!({"type": "activate", "unit": "1a"}));
    refused(
        &g,
        Refused::BrokenTakesNoOrders,
        json!({"type": "consolidate", "organisation": "1-sqd"}),
        &[],
        "1b is broken and takes no orders",
    );
    let g = activated(platoon([0, 4, 3, 0, 0]), "1a").decided(json!({"type": "consolidate", "organisation": "1-sqd"}));
    refused(&g, Shared::NothingNamed, json!({"type": "detach", "units": []}), &[], "name the sub-units to detach");
    refused(&g, Shared::NamedTwice, json!({"type": "detach", "units": ["1b", "1b"]}), &[], "1b is named twice");
    let g = g.decided(json!({"type": "casualty", "figure": "cpl1b", "effect": "killed", "reason": "sniper"}));
    refused(
        &g,
        Refused::NoLeader,
        json!({"type": "detach", "units": ["1b"]}),
        &[],
        "1b has no leader in play to lead it once detached",
    );
}

fn reorganise(replaces: Value, into: Value) -> Value {
    json!({"type": "reorganise", "organisation": "1-plt", "replaces": replaces, "into": into})
}

#[test]
fn reorganisation_refusals() {
    let g = activated(platoon([0, 4, 3, 0, 0]), "1a");
    refused(
        &g,
        Shared::NotFriendly,
        json!({"type": "reorganise", "organisation": "j", "replaces": [], "into": []}),
        &[],
        "j is jason's, not alex's",
    );
    refused(&g, Refused::NotTheLeader, reorganise(json!(["1-sqd"]), json!([])), &[], "1-plt is led by lt, not by sgt1: reorganisation orders come from the leader two levels above the units reorganised");
    let g = mauled();
    refused(&g, Shared::NothingNamed, reorganise(json!([]), json!([])), &[], "name the squads of 1-plt to reorganise");
    refused(&g, Shared::NamedTwice, reorganise(json!(["1-sqd", "1-sqd"]), json!([])), &[], "1-sqd is named twice");
    let both = json!(["1-sqd", "2-sqd"]);
    refused(
        &g,
        Shared::NothingNamed,
        reorganise(both.clone(), json!([])),
        &[],
        "name the squads the reorganisation forms",
    );
    refused(
        &g,
        Shared::NothingNamed,
        reorganise(both.clone(), json!([{"id": "1-sqd", "leader": "sgt1", "teams": []}])),
        &[],
        "squad 1-sqd has no fire teams",
    );
    refused(
        &g,
        Refused::NotAFigureOfTheUnit,
        reorganise(
            both.clone(),
            json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "3a", "leader": "lt", "figures": ["lt"]}]}]),
        ),
        &[],
        "lt is not a figure in play of 1-sqd and 2-sqd",
    );
    refused(
        &g,
        Refused::NameTaken,
        reorganise(both.clone(), json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "hq"}]}])),
        &[],
        "team hq is not a fire team of 1-sqd and 2-sqd: name the figures of a new team",
    );
    let everyone = ["sgt1", "1a-1", "1a-2", "sgt2", "2a-1", "2a-2"];
    refused(
        &g,
        Refused::NoLeader,
        reorganise(
            both.clone(),
            json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "3a", "figures": everyone}]}]),
        ),
        &[],
        "team 3a needs a leader: name one of sgt1, 1a-1, 1a-2, sgt2, 2a-1 and 2a-2",
    );
    refused(
        &g,
        Refused::NoCommandRating,
        reorganise(
            both.clone(),
            json!([{"id": "1-sqd", "leader": "sgt1", "teams": [{"id": "3a", "leader": "1a-1", "figures": everyone}]}]),
        ),
        &[],
        "1a-1 has no command rating and cannot lead team 3a",
    );
    refused(
        &g,
        Refused::LeadFromWithin,
        reorganise(
            both.clone(),
            json!([{"id": "1-sqd", "leader": "lt", "teams": [{"id": "3a", "leader": "sgt1", "figures": everyone}]}]),
        ),
        &[],
        "lt is not in squad 1-sqd: a leader leads from within his squad",
    );
    refused(
        &g,
        Refused::NoCommandRating,
        reorganise(
            both.clone(),
            json!([{"id": "1-sqd", "leader": "1a-2", "teams": [{"id": "3a", "leader": "sgt1", "figures": everyone}]}]),
        ),
        &[],
        "1a-2 has no command rating and cannot lead squad 1-sqd",
    );
    refused(
        &g,
        Shared::NamedTwice,
        reorganise(
            both.clone(),
            json!([{"id": "x", "leader": "sgt1", "teams": [{"id": "x", "leader": "sgt1", "figures": everyone}]}]),
        ),
        &[],
        "x is named twice among the new squads and teams",
    );
    refused(
        &g,
        Refused::NameTaken,
        reorganise(
            both.clone(),
            json!([{"id": "hq", "leader": "sgt1", "teams": [{"id": "3a", "leader": "sgt1", "figures": everyone}]}]),
        ),
        &[],
        "hq is already an organisation outside 1-sqd and 2-sqd",
    );
    let g = ["2a-1", "2a-2", "sgt2"].iter().fold(mauled(), |g, f| {
        g.decided(json!({"type": "casualty", "figure": f, "effect": "killed", "reason": "heavy fighting"}))
    });
    refused(
        &g,
        Shared::OutOfPlay,
        reorganise(json!(["2-sqd"]), json!([])),
        &[],
        "2-sqd have no figures left in play to reorganise",
    );
}

/// The reorganising leader stands above the units he reorganises, and his
/// order reaches whole units.
#[test]
fn reorganisation_reaches_whole_units_from_above() {
    let mut s = platoon([0, 4, 3, 0, 0]);
    s["organisations"][0]["leader"] = json!("sgt1");
    let g = activated(s, "1a");
    refused(
        &g,
        Refused::TwoLevelsBelow,
        reorganise(json!(["1-sqd"]), json!([])),
        &[],
        "sgt1 is in 1-sqd: the reorganising leader stands two levels above the units he reorganises",
    );
    // A consolidated platoon is one unit reaching beyond any one squad.
    let g = in_operations(platoon([3, 4, 0, 4, 0])).decided_all(&[
        json!({"type": "activate", "unit": "1a"}),
        json!({"type": "consolidate", "organisation": "1-sqd"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "2a"}),
        json!({"type": "consolidate", "organisation": "2-sqd"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "hq"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "j"}),
        json!({"type": "pass"}),
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "hq"}),
        json!({"type": "consolidate", "organisation": "1-plt"}),
    ]);
    let e = g.when_rolling(reorganise(json!(["1-sqd"]), json!([])), &[]).refusal_of(Refused::WholeUnits);
    assert!(e.starts_with("unit 1-plt reaches outside 1-sqd: "), "{e}");
    assert!(e.ends_with(" would be left behind; reorganise whole units"), "{e}");
}
