//! 2.1 Turn Sequence: strategic movement, initiative, activation order.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{given, given_under_version_1, given_with, in_operations, table, told, with_figure, Given};
use crate::refusal::Shared;
use crate::rulesets::phoenix_command::{Fact, InitiativeBy, NextUp, Refused};

/// alex: a (2 CP, 3 figures), b (1 CP, 3 figures); jason: j (2 CP, 3
/// figures), k (0 CP, 2 figures). alex 6 active combatants, jason 5.
fn two_a_side() -> Value {
    table(&[
        ("alex", "a", 2, 3, 3, [0, 0]),
        ("alex", "b", 1, 3, 3, [200, 0]),
        ("jason", "j", 2, 3, 3, [0, 600]),
        ("jason", "k", 0, 3, 2, [200, 600]),
    ])
}

fn counts(alex: u32, jason: u32) -> BTreeMap<String, u32> {
    [("alex".to_string(), alex), ("jason".to_string(), jason)].into()
}

#[test]
fn a_turn_begins_with_strategic_movement() {
    (given(two_a_side())).when_rolling(json!({"type": "begin-turn"}), &[]).then(vec![Fact::TurnBegan { turn: 1 }]);
}

#[test]
fn the_next_turn_waits_for_every_unit_to_be_activated() {
    let g = in_operations(two_a_side());
    let e = g.when_rolling(json!({"type": "begin-turn"}), &[]).refusal_of(Shared::TurnNotOver);
    assert_eq!(e, "turn 1 is not over: \"The decision then passes to the unit with the next highest number of CP, and so forth until all units have been activated.\" It is alex's turn: alex may activate a (2 CP); alex holds the initiative, so its 2 CP units act before jason's.");
    let g = given(two_a_side()).decided(json!({"type": "begin-turn"}));
    let e = g.when_rolling(json!({"type": "begin-turn"}), &[]).refusal_of(Shared::TurnNotOver);
    assert!(e.starts_with("turn 1 is in its strategic movement"), "{e}");
}

#[test]
fn the_side_with_the_most_active_combatants_has_initiative() {
    let g = given(two_a_side()).decided(json!({"type": "begin-turn"}));
    let facts = g.when_rolling(json!({"type": "begin-operations"}), &[]).facts();
    assert_eq!(
        facts[0],
        Fact::InitiativeCounted { turn: 1, counts: counts(6, 5), holder: "alex".into(), by: InitiativeBy::Count }
    );
    assert_eq!(
        told(&facts),
        [
            "Turn 1 initiative: active combatants alex 6, jason 5; alex has more and takes the initiative.",
            "Turn 1 operations begin. Next: alex with 2 CP: a (alex holds the initiative, so its 2 CP units act before jason's)."
        ]
    );
}

/// "An active combatant is one who: 1. did not perform actions in the
/// Strategic Movement phase … and 2. is not panicked or incapacitated."
#[test]
fn panicked_figures_casualties_and_strategic_movers_are_not_active_combatants() {
    let scenario = with_figure(two_a_side(), "a-1", "morale", json!("panicked"));
    let g = given(scenario)
        .decided(json!({"type": "begin-turn"}))
        .decided(json!({"type": "strategic-move", "unit": "b"}))
        .decided(json!({"type": "casualty", "figure": "k-1", "effect": "incapacitated", "reason": "a mine"}));
    let facts = g.when_rolling(json!({"type": "begin-operations"}), &[]).facts();
    assert_eq!(
        facts[0],
        Fact::InitiativeCounted { turn: 1, counts: counts(2, 4), holder: "jason".into(), by: InitiativeBy::Count }
    );
}

/// P4: "The side that held initiative keeps it; in turn 1 the scenario names it."
#[test]
fn a_tie_leaves_initiative_with_the_side_that_held_it() {
    let mut scenario = table(&[("alex", "a", 1, 3, 2, [0, 0]), ("jason", "j", 1, 3, 2, [0, 600])]);
    scenario["initiative"] = json!("jason");
    let g = given(scenario).decided(json!({"type": "begin-turn"}));
    let facts = g.when_rolling(json!({"type": "begin-operations"}), &[]).facts();
    assert_eq!(
        facts[0],
        Fact::InitiativeCounted { turn: 1, counts: counts(2, 2), holder: "jason".into(), by: InitiativeBy::Kept }
    );
    assert_eq!(
        told(&facts)[0],
        "Turn 1 initiative: active combatants alex 2, jason 2; a tie: jason, who held it, keeps the initiative."
    );
}

/// P4 option `initiative-tie-roll-off`: each side a d10, higher wins, ties again.
#[test]
fn a_tie_is_rolled_off_under_the_option() {
    let scenario = table(&[("alex", "a", 1, 3, 2, [0, 0]), ("jason", "j", 1, 3, 2, [0, 600])]);
    let g = given_with(scenario, &["initiative-tie-roll-off"]).decided(json!({"type": "begin-turn"}));
    let facts = g
        .when_rolling(
            json!({"type": "begin-operations"}),
            &[("initiative:alex", &[4, 2]), ("initiative:jason", &[4, 7])],
        )
        .facts();
    let round = |a, j| -> BTreeMap<String, u32> { [("alex".into(), a), ("jason".into(), j)].into() };
    assert_eq!(
        facts[0],
        Fact::InitiativeCounted {
            turn: 1,
            counts: counts(2, 2),
            holder: "jason".into(),
            by: InitiativeBy::RollOff { rounds: vec![round(4, 4), round(2, 7)] }
        }
    );
    // A table record that lacks a die the rules need: the die is unknown.
    let e = g.when_rolling(json!({"type": "begin-operations"}), &[("initiative:alex", &[4])]).refusal_of(Shared::Dice);
    assert_eq!(e, "the rules need d10 'initiative:jason' #0, which the table did not roll (the die is unknown)");
}

/// "The unit on the battlefield with the highest number of CP is activated."
/// — "In the event that both sides have a unit with an equal number of CP,
/// the side with initiative activates their unit first."
#[test]
fn the_unit_with_the_most_cp_acts_next_and_initiative_breaks_ties() {
    let g = in_operations(two_a_side());
    let e = g.when_rolling(json!({"type": "activate", "unit": "j"}), &[]).refusal_of(Refused::MostCpActsNext);
    assert_eq!(e, "j (2 CP) may not act now: the unactivated unit with the most CP acts next. It is alex's turn: alex may activate a (2 CP); alex holds the initiative, so its 2 CP units act before jason's.");
    let e = g.when_rolling(json!({"type": "activate", "unit": "b"}), &[]).refusal_of(Refused::MostCpActsNext);
    assert!(e.starts_with("b (1 CP) may not act now"), "{e}");
    let facts = g.when_rolling(json!({"type": "activate", "unit": "a"}), &[]).facts();
    assert_eq!(facts, vec![Fact::UnitActivated { unit: "a".into(), side: "alex".into(), cp: 2 }]);
    // Then jason's 2 CP unit, then alex's 1 CP unit, then jason's 0 CP unit.
    let g = g.decided(json!({"type": "activate", "unit": "a"}));
    let facts = g.when_rolling(json!({"type": "pass"}), &[]).facts();
    assert_eq!(
        facts.last(),
        Some(&Fact::ActivationEnded {
            unit: "a".into(),
            side: "alex".into(),
            next: Some(NextUp { side: "jason".into(), cp: 2, units: vec!["j".into()], ahead_of: None })
        })
    );
}

/// "He chooses the order in which these two units are activated."
#[test]
fn within_a_side_the_player_picks_among_units_of_equal_cp() {
    let scenario =
        table(&[("alex", "a", 2, 3, 2, [0, 0]), ("alex", "b", 2, 3, 2, [200, 0]), ("jason", "j", 1, 3, 2, [0, 600])]);
    let g = in_operations(scenario);
    g.when_rolling(json!({"type": "activate", "unit": "a"}), &[]).facts();
    g.when_rolling(json!({"type": "activate", "unit": "b"}), &[]).facts();
    let e = g.when_rolling(json!({"type": "activate", "unit": "j"}), &[]).refusal_of(Refused::MostCpActsNext);
    assert!(e.ends_with("It is alex's turn: alex may activate a or b (2 CP each; the player picks the order)."), "{e}");
}

/// "Once a unit has been activated in a turn, it cannot become activated again in the turn."
#[test]
fn a_unit_is_activated_once_per_turn_and_one_at_a_time() {
    let g = in_operations(two_a_side()).decided(json!({"type": "activate", "unit": "a"}));
    let e = g.when_rolling(json!({"type": "activate", "unit": "j"}), &[]).refusal_of(Shared::StillActive);
    assert_eq!(e, "a is still active: it must accumulate, pass, or spend its CP before another unit is activated");
    let g = g.decided(json!({"type": "pass"}));
    let e = g.when_rolling(json!({"type": "activate", "unit": "a"}), &[]).refusal_of(Refused::ActivatedOnce);
    assert_eq!(e, "a has already been activated this turn: \"Once a unit has been activated in a turn, it cannot become activated again in the turn.\" It is jason's turn: jason may activate j (2 CP).");
}

/// "and so forth until all units have been activated" — then the turn ends.
#[test]
fn the_turn_ends_when_every_unit_has_been_activated() {
    let g = in_operations(two_a_side()).decided_all(&[
        json!({"type": "activate", "unit": "a"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "j"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "b"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "k"}),
    ]);
    let facts = g.when_rolling(json!({"type": "accumulate"}), &[]).facts();
    assert_eq!(facts.last(), Some(&Fact::TurnEnded { turn: 1 }));
    let g = g.decided(json!({"type": "accumulate"}));
    let e = g.when_rolling(json!({"type": "activate", "unit": "a"}), &[]).refusal_of(Shared::TurnOver);
    assert_eq!(e, "turn 1 is over: every unit has been activated; begin the next turn");
    // The next turn: every unit may be activated again.
    let g = g.decided_all(&[json!({"type": "begin-turn"}), json!({"type": "begin-operations"})]);
    g.when_rolling(json!({"type": "activate", "unit": "a"}), &[]).facts();
}

/// "that unit may not act in the operations phase and loses any CP it may
/// have accumulated over prior turns."
#[test]
fn strategic_movement_costs_the_cp_and_the_operations() {
    let g = given(two_a_side()).decided(json!({"type": "begin-turn"}));
    let facts = g.when_rolling(json!({"type": "strategic-move", "unit": "a", "moves": {"a-lead": [0, 200], "a-1": [20, 200], "a-2": [40, 200]}}), &[]).facts();
    assert_eq!(
        told(&facts),
        [
            "a (alex) moves strategically: it loses its 2 CP and may not act in operations this turn.",
            "a-1 moves from (20, 0) to (20, 200) (20.0\").",
            "a-2 moves from (40, 0) to (40, 200) (20.0\").",
            "a-lead moves from (0, 0) to (0, 200) (20.0\")."
        ]
    );
    let g = g.decided(json!({"type": "strategic-move", "unit": "a"})).decided(json!({"type": "begin-operations"}));
    assert_eq!(g.state().units["a"].cp, 0);
    let e = g
        .when_rolling(json!({"type": "activate", "unit": "a"}), &[])
        .refusal_of(Refused::StrategicMovementBarsOperations);
    assert_eq!(e, "a moved strategically this turn: it \"may not act in the operations phase\". It is jason's turn: jason may activate j (2 CP).");
}

#[test]
fn strategic_movement_is_refused_in_contact_or_after_operations_began() {
    let g = given(two_a_side())
        .decided(json!({"type": "contact", "unit": "a", "enemy": "j", "in_contact": true}))
        .decided(json!({"type": "begin-turn"}));
    let e = g.when_rolling(json!({"type": "strategic-move", "unit": "a"}), &[]).refusal_of(Refused::EnemyContact);
    assert_eq!(e, "a is in contact with j: \"The unit must not be in contact with the enemy before it engages in strategic movement\"");
    let g = g.decided(json!({"type": "contact", "unit": "j", "enemy": "a", "in_contact": false}));
    let g = g.decided(json!({"type": "strategic-move", "unit": "a"}));
    let e = g
        .when_rolling(json!({"type": "strategic-move", "unit": "b", "moves": {"a-1": [0, 0]}}), &[])
        .refusal_of(Refused::NotAFigureOfTheUnit);
    assert_eq!(e, "a-1 is not a figure of b in play: only the unit's own figures move with it");
    let g = g.decided(json!({"type": "begin-operations"}));
    let e =
        g.when_rolling(json!({"type": "strategic-move", "unit": "b"}), &[]).refusal_of(Refused::StrategicMovementOver);
    assert_eq!(e, "strategic movement is over in turn 1: units move strategically before operations begin");
}

/// "Units are in contact if they are in weapons range of each other and are
/// able to draw a Line of Sight to each other" — the referee says so.
#[test]
fn contact_is_a_referee_input_between_enemy_units() {
    let g = given(two_a_side());
    let e = g
        .when_rolling(json!({"type": "contact", "unit": "a", "enemy": "b", "in_contact": true}), &[])
        .refusal_of(Shared::NotAnEnemy);
    assert_eq!(e, "a and b are both alex's: contact is between enemy units");
    let e = g
        .when_rolling(json!({"type": "contact", "unit": "a", "enemy": "j", "in_contact": false}), &[])
        .refusal_of(Shared::NoChange);
    assert_eq!(e, "a and j are not in contact");
    let g = g.decided(json!({"type": "contact", "unit": "a", "enemy": "j", "in_contact": true}));
    assert!(g.state().units["j"].contact.contains("a"));
    let e = g
        .when_rolling(json!({"type": "contact", "unit": "j", "enemy": "a", "in_contact": true}), &[])
        .refusal_of(Shared::NoChange);
    assert_eq!(e, "j and a are already in contact");
}

#[test]
fn operations_begin_once() {
    let g = in_operations(two_a_side());
    let e = g.when_rolling(json!({"type": "begin-operations"}), &[]).refusal_of(Shared::NoChange);
    assert_eq!(e, "turn 1's operations have already begun");
    let e =
        (given(two_a_side())).when_rolling(json!({"type": "begin-operations"}), &[]).refusal_of(Shared::NoTurnBegun);
    assert_eq!(e, "no turn has begun: begin a turn first");
}

/// N40 option `initiative-recount-on-any-change`: any casualty that changes
/// the count recounts initiative, and the order of the rest of the turn
/// changes with it.
#[test]
fn under_the_option_casualties_that_change_the_count_hand_initiative_over_mid_turn() {
    let mut scenario = table(&[
        ("alex", "a", 2, 3, 4, [0, 0]),
        ("jason", "j", 2, 3, 3, [0, 600]),
        ("jason", "k", 2, 3, 2, [200, 600]),
    ]);
    scenario["initiative"] = json!("jason");
    let g = given_with(scenario, &["initiative-recount-on-any-change"])
        .decided_all(&[json!({"type": "begin-turn"}), json!({"type": "begin-operations"})]);
    assert_eq!(g.state().initiative, "jason");
    let e = g.when_rolling(json!({"type": "activate", "unit": "a"}), &[]).refusal_of(Refused::MostCpActsNext);
    assert!(e.contains("It is jason's turn"), "{e}");
    let g = g.decided(json!({"type": "casualty", "figure": "j-1", "effect": "killed", "reason": "sniper"}));
    let facts = g
        .when_rolling(json!({"type": "casualty", "figure": "j-2", "effect": "killed", "reason": "sniper"}), &[])
        .facts();
    assert_eq!(
        facts.last(),
        Some(&Fact::InitiativeRecounted {
            counts: counts(4, 3),
            previous: "jason".into(),
            holder: "alex".into(),
            before: None
        })
    );
    assert_eq!(
        told(&facts).last().unwrap(),
        "Initiative recounted: active combatants alex 4, jason 3; alex seizes the initiative from jason."
    );
    let g = g.decided(json!({"type": "casualty", "figure": "j-2", "effect": "killed", "reason": "sniper"}));
    g.when_rolling(json!({"type": "activate", "unit": "a"}), &[]).facts();
    let e = g.when_rolling(json!({"type": "activate", "unit": "j"}), &[]).refusal_of(Refused::MostCpActsNext);
    assert!(e.ends_with("alex holds the initiative, so its 2 CP units act before jason's."), "{e}");
}

/// A count that changes without passing the other side leaves initiative
/// where it is (P4: a tie does not change it either).
#[test]
fn a_recount_that_only_ties_keeps_initiative() {
    let scenario = table(&[("alex", "a", 1, 3, 3, [0, 0]), ("jason", "j", 1, 3, 2, [0, 600])]);
    let g = given_with(scenario, &["initiative-recount-on-any-change"])
        .decided_all(&[json!({"type": "begin-turn"}), json!({"type": "begin-operations"})]);
    let facts = g
        .when_rolling(json!({"type": "casualty", "figure": "a-1", "effect": "killed", "reason": "mortar"}), &[])
        .facts();
    assert_eq!(
        facts.last(),
        Some(&Fact::InitiativeRecounted {
            counts: counts(2, 2),
            previous: "alex".into(),
            holder: "alex".into(),
            before: None
        })
    );
}

/// Found by the random games (`properties_phoenix`, seed 2): the unit due to
/// act next is removed between activations (here a referee's casualty) and
/// no other is left — the turn ends there. Before, the operations phase
/// stayed open with nobody to activate, and `begin-turn` was refused.
#[test]
fn the_turn_ends_when_the_last_unit_to_act_leaves_play_between_activations() {
    let scenario = table(&[("alex", "a", 2, 3, 2, [0, 0]), ("jason", "j", 1, 3, 1, [0, 600])]);
    let g = in_operations(scenario).decided_all(&[json!({"type": "activate", "unit": "a"}), json!({"type": "pass"})]);
    let facts = g
        .when_rolling(json!({"type": "casualty", "figure": "j-lead", "effect": "killed", "reason": "mine"}), &[])
        .facts();
    assert_eq!(facts.last(), Some(&Fact::TurnEnded { turn: 1 }));
    assert_eq!(told(&facts).last().unwrap(), "Every unit has been activated: turn 1 ends.");
    let g = g.decided(json!({"type": "casualty", "figure": "j-lead", "effect": "killed", "reason": "mine"}));
    g.when_rolling(json!({"type": "begin-turn"}), &[]).facts();
}

/// The same when a successful interrupt marks the last unit to act as
/// activated (N22) between activations.
#[test]
fn the_turn_ends_when_an_interrupt_on_the_last_unit_to_act_succeeds() {
    let mut s = super::interrupts::ambush_scenario(true, 2);
    s["units"][1]["cp"] = json!(1);
    // The patrol is Shaken already: an interrupt on it succeeds whatever it hits.
    s = with_figure(with_figure(s, "patrol-1", "morale", json!("shaken")), "patrol-2", "morale", json!("shaken"));
    let g = in_operations(s)
        .decided_all(&[json!({"type": "activate", "unit": "ambush"}), json!({"type": "pass"})])
        .decided_rolling(
            json!({"type": "sighted", "target": "patrol", "by": "ambush"}),
            &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])],
        );
    let fire = json!({"type": "interrupt", "by": "ambush", "fire": [
        {"figure": "ambush-1", "weapon": "rifle", "target": "patrol-3", "mode": "aimed", "line": 1, "odds": 3}
    ], "no_line_of_sight": ["ambush-lead", "ambush-2"]});
    let facts = g.when_rolling(fire, &[("hit:ambush-1", &[9])]).facts();
    assert!(matches!(facts[facts.len() - 2], Fact::InterruptResolved { success: true, target_active: false, .. }));
    assert_eq!(facts.last(), Some(&Fact::TurnEnded { turn: 1 }));
}

/// The ambush scenario in operations (jason 4 active combatants, alex 3:
/// jason takes the initiative), after the referee's two casualties of the
/// patrol, then sighted by the ambush: the interrupt to come is the first.
fn ambushed_after_two_casualties(g: Given) -> Given {
    let g = g.decided_all(&[json!({"type": "begin-turn"}), json!({"type": "begin-operations"})]);
    assert_eq!(g.state().initiative, "jason");
    let kill = |f: &str| json!({"type": "casualty", "figure": f, "effect": "killed", "reason": "a mine"});
    let g = g.decided(kill("patrol-2"));
    let facts = g.when_rolling(kill("patrol-3"), &[]).facts();
    assert!(!facts.iter().any(|f| matches!(f, Fact::InitiativeRecounted { .. })), "{:?}", told(&facts));
    let g = g.decided(kill("patrol-3"));
    assert_eq!(g.state().initiative, "jason");
    g.decided_rolling(
        json!({"type": "sighted", "target": "patrol", "by": "ambush"}),
        &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])],
    )
}

/// The ambush leader fires at patrol-1: a miss (9), or a Critical Wound (0,
/// then 9 + 3).
fn ambush_leader_fires(g: &Given, hits: bool) -> Vec<Fact> {
    let fire = json!({"type": "interrupt", "by": "ambush", "fire": [
        {"figure": "ambush-lead", "weapon": "rifle", "target": "patrol-1", "mode": "aimed", "line": 1, "odds": 3}
    ], "no_line_of_sight": ["ambush-1", "ambush-2"]});
    let dice: &[(&str, &[u32])] =
        if hits { &[("hit:ambush-lead", &[0]), ("injury:patrol-1", &[9])] } else { &[("hit:ambush-lead", &[9])] };
    g.when_rolling(fire, dice).facts()
}

fn ambush_scenario() -> Value {
    let mut s = super::interrupts::ambush_scenario(true, 0);
    s["initiative"] = json!("alex");
    s
}

/// N40, N58: "The Side which has the most active combatants has initiative
/// until the turn ends, or an interrupt causes a change in initiative."
/// Casualties outside an interrupt leave initiative where it is; and an
/// interrupt that changes no count — it missed — changes no initiative.
/// Before, its recount counted the referee's two earlier casualties, and
/// initiative passed to alex.
#[test]
fn an_interrupt_that_changes_no_count_changes_no_initiative() {
    let g = ambushed_after_two_casualties(given(ambush_scenario()));
    let facts = ambush_leader_fires(&g, false);
    assert!(matches!(facts.last(), Some(Fact::InterruptResolved { success: false, .. })), "{:?}", told(&facts));
    assert!(!facts.iter().any(|f| matches!(f, Fact::InitiativeRecounted { .. })), "{:?}", told(&facts));
}

/// N58: the interrupt kills patrol-1, and the sides count again: jason 1,
/// alex 3. But alex had more already as the interrupt opened fire (jason 2,
/// after the referee's casualties): the interrupt did not cause the change,
/// and jason keeps the initiative until the turn ends.
#[test]
fn initiative_changes_hands_only_when_the_interrupt_causes_it() {
    let g = ambushed_after_two_casualties(given(ambush_scenario()));
    let facts = ambush_leader_fires(&g, true);
    assert_eq!(
        facts.last(),
        Some(&Fact::InitiativeRecounted {
            counts: counts(3, 1),
            previous: "jason".into(),
            holder: "jason".into(),
            before: Some(counts(3, 2))
        }),
        "{:?}",
        told(&facts)
    );
    assert_eq!(told(&facts).last().unwrap(), "Initiative recounted: active combatants alex 3, jason 1 (alex 3, jason 2 as the interrupt opened fire); jason keeps the initiative: the interrupt did not cause the change.");
}

/// "Jason had 27 active combatants before the ambush and now has 24, while
/// Alex has 26. Alex seizes the initiative from Jason." Here jason 4, alex
/// 3; the ambush strikes down two of the patrol, and alex seizes it.
#[test]
fn an_interrupt_that_leaves_the_other_side_with_more_hands_it_the_initiative() {
    let g = in_operations(ambush_scenario()).decided_rolling(
        json!({"type": "sighted", "target": "patrol", "by": "ambush"}),
        &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])],
    );
    let fire = json!({"type": "interrupt", "by": "ambush", "fire": [
        {"figure": "ambush-lead", "weapon": "rifle", "target": "patrol-1", "mode": "aimed", "line": 1, "odds": 3},
        {"figure": "ambush-1", "weapon": "rifle", "target": "patrol-2", "mode": "aimed", "line": 1, "odds": 3}
    ], "no_line_of_sight": ["ambush-2"]});
    let dice: &[(&str, &[u32])] =
        &[("hit:ambush-lead", &[0]), ("injury:patrol-1", &[9]), ("hit:ambush-1", &[0]), ("injury:patrol-2", &[9])];
    let facts = g.when_rolling(fire, dice).facts();
    assert_eq!(
        facts.last(),
        Some(&Fact::InitiativeRecounted {
            counts: counts(3, 2),
            previous: "jason".into(),
            holder: "alex".into(),
            before: Some(counts(3, 4))
        }),
        "{:?}",
        told(&facts)
    );
}

/// N58, option `interrupt-recount-counts-every-change` (version 1's reading):
/// the recount after an interrupt counts every change since the last count,
/// the referee's casualties included — and initiative passes though the
/// interrupt missed.
#[test]
fn option_interrupt_recount_counts_every_change() {
    for g in [
        given_with(ambush_scenario(), &["interrupt-recount-counts-every-change"]),
        given_under_version_1(ambush_scenario()),
    ] {
        let g = ambushed_after_two_casualties(g);
        let facts = ambush_leader_fires(&g, false);
        assert!(matches!(facts[facts.len() - 2], Fact::InterruptResolved { success: false, .. }), "{:?}", told(&facts));
        assert_eq!(
            facts.last(),
            Some(&Fact::InitiativeRecounted {
                counts: counts(3, 2),
                previous: "jason".into(),
                holder: "alex".into(),
                before: None
            })
        );
    }
}

/// The patrol of the ambush scenario moves strategically, abreast, to `y`.
fn patrol_to(y: i64) -> Value {
    json!({"type": "strategic-move", "unit": "patrol", "moves": {
        "patrol-lead": [0, y], "patrol-1": [20, y], "patrol-2": [40, y], "patrol-3": [60, y]
    }})
}

/// N43: "Its movement may, however, be subject to an
/// interrupt if it passes through an ambush or enemy overwatch." — a
/// strategic move was one decision, so it could not be stopped part-way. It
/// may now be given in legs: the referee stops it where the ambush triggers,
/// and a successful interrupt ends it ("The target unit loses its entire
/// remaining CP and ceases its turn"); a failed one lets it move on.
#[test]
fn a_strategic_move_is_stopped_where_a_successful_interrupt_catches_it() {
    let g = super::super::tests::given(super::interrupts::ambush_scenario(true, 0))
        .decided(json!({"type": "begin-turn"}))
        .decided(patrol_to(150));
    let leg = patrol_to(120);
    let facts = g.when_rolling(leg.clone(), &[]).facts();
    assert_eq!(told(&facts)[0], "patrol (jason) moves on strategically.");
    // The ambush sees it, fires, and grazes two: the patrol is Shaken, the
    // interrupt succeeds, and the patrol moves no further.
    let g = g
        .decided_rolling(
            json!({"type": "sighted", "target": "patrol", "by": "ambush"}),
            &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])],
        )
        .decided_rolling(
            json!({"type": "interrupt", "by": "ambush", "fire": [
                {"figure": "ambush-lead", "weapon": "rifle", "target": "patrol-1", "mode": "aimed", "line": 1, "odds": 5},
                {"figure": "ambush-1", "weapon": "rifle", "target": "patrol-2", "mode": "aimed", "line": 1, "odds": 5},
                {"figure": "ambush-2", "weapon": "rifle", "target": "patrol-2", "mode": "aimed", "line": 1, "odds": 5}
            ]}),
            &[("hit:ambush-lead", &[0]), ("injury:patrol-1", &[2]), ("hit:ambush-1", &[0]), ("injury:patrol-2", &[2]), ("hit:ambush-2", &[9])],
        );
    let e = g.when_rolling(leg, &[]).refusal_of(Refused::Interrupted);
    assert_eq!(e, "patrol has been successfully interrupted: it \"loses its entire remaining CP and ceases its turn\" — it moves no further this turn");
}

/// N49: "its movement may not bring it into enemy
/// contact" — the referee declares the contact a leg has made, and the unit
/// moves no further.
#[test]
fn a_strategic_move_stops_where_it_comes_into_contact() {
    let g = given(two_a_side())
        .decided(json!({"type": "begin-turn"}))
        .decided(json!({"type": "strategic-move", "unit": "a", "moves": {"a-lead": [0, 200]}}))
        .decided(json!({"type": "contact", "unit": "a", "enemy": "j", "in_contact": true}));
    let e = g.when_rolling(json!({"type": "strategic-move", "unit": "a"}), &[]).refusal_of(Refused::EnemyContact);
    assert_eq!(
        e,
        "a has come into contact with j: \"its movement may not bring it into enemy contact\" — it moves no further"
    );
}
