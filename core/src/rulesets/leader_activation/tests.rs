//! Given / when / then tests of leader activation: one per rule, one per
//! refusal, each refusal checking its message.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::refusal::Shared;
use crate::rules::VersionSpec;
use crate::ruleset::Ruleset;
use crate::testing::{given, Given};

/// The table: allies have three leaders, axis two.
///
/// allies: `adams` (Trained) at (0, 0), `baker` (Elite) at (1000, 0), `cole` at (2000, 0)
///   units around adams: `elite-150` exactly at Elite range, `trained-100`
///   exactly at Trained range, `trained-101` 1 mm beyond, `conscript` and
///   `trained-a`, `trained-b` close by; `far` out of everyone's range.
/// axis: `vogel` at (0, 1000) with `gruppe` at (0, 1050); `weber` at (500, 1000).
fn scenario() -> serde_json::Value {
    json!({
        "sides": ["allies", "axis"],
        "leaders": [
            {"id": "adams", "side": "allies", "skill": "trained", "at": [0, 0]},
            {"id": "baker", "side": "allies", "skill": "elite", "at": [1000, 0]},
            {"id": "cole", "side": "allies", "skill": "conscript", "at": [2000, 0]},
            {"id": "vogel", "side": "axis", "at": [0, 1000]},
            {"id": "weber", "side": "axis", "at": [500, 1000]}
        ],
        "units": [
            {"id": "elite-150", "side": "allies", "skill": "elite", "at": [150, 0]},
            {"id": "trained-100", "side": "allies", "skill": "trained", "at": [0, 100]},
            {"id": "trained-101", "side": "allies", "skill": "trained", "at": [-101, 0]},
            {"id": "conscript", "side": "allies", "skill": "conscript", "at": [60, 80]},
            {"id": "trained-a", "side": "allies", "at": [10, 10]},
            {"id": "trained-b", "side": "allies", "at": [20, 20]},
            {"id": "far", "side": "allies", "at": [5000, 5000]},
            {"id": "gruppe", "side": "axis", "at": [0, 1050]}
        ]
    })
}

fn spec() -> VersionSpec {
    versions().remove(0)
}

/// Leader activation's games, in the one harness of every ruleset.
type Check = Given<LeaderActivation>;

/// The table under the default rules with `options` on, before any decision.
fn with(options: &[&str]) -> Check {
    let overrides: BTreeMap<String, serde_json::Value> = options.iter().map(|o| (o.to_string(), json!(true))).collect();
    let rules = spec().resolve(&overrides, &BTreeMap::new(), "").unwrap();
    let scenario = serde_json::from_value(scenario()).unwrap();
    given(LeaderActivation::initial(scenario, &rules).unwrap())
}

/// The table under the default rules, before any decision.
fn new() -> Check {
    with(&[])
}

/// Steps of this table that many tests take.
trait Steps {
    /// The allies go first in turn 1 and activate adams.
    fn adams_active(self) -> Self;
    /// The axis go first in turn 1: vogel, then adams, each activated and done.
    fn vogel_then_adams(self) -> Self;
}

impl Steps for Check {
    fn adams_active(self) -> Check {
        self.decided(json!({"type": "begin-turn", "first": "allies"}))
            .decided(json!({"type": "activate", "leader": "adams"}))
    }

    fn vogel_then_adams(self) -> Check {
        self.decided(json!({"type": "begin-turn", "first": "axis"}))
            .decided(json!({"type": "activate", "leader": "vogel"}))
            .decided(json!({"type": "end-activation"}))
            .decided(json!({"type": "activate", "leader": "adams"}))
            .decided(json!({"type": "end-activation"}))
    }
}

fn commanded(unit: &str) -> serde_json::Value {
    json!({"type": "command", "unit": unit})
}

// ---- The turn and its skips ----

#[test]
fn begin_turn_counts_leaders_and_skips() {
    new().when(json!({"type": "begin-turn", "first": "axis"})).then(vec![Fact::TurnBegan {
        turn: 1,
        first: "axis".into(),
        leaders: [("allies".into(), 3), ("axis".into(), 2)].into(),
        skips: [("allies".into(), 0), ("axis".into(), 1)].into(),
        next: Some("axis".into()),
    }]);
}

#[test]
fn begin_turn_names_a_side_of_the_game() {
    new()
        .when(json!({"type": "begin-turn", "first": "soviets"}))
        .then_refused_saying(Shared::NotASide, "\"soviets\" is not a side of this game");
}

#[test]
fn activations_alternate_between_the_sides() {
    let c = new().adams_active();
    c.when(json!({"type": "end-activation"})).then(vec![Fact::ActivationEnded {
        leader: "adams".into(),
        side: "allies".into(),
        stays_activated: true,
        next: Some("axis".into()),
    }]);
}

#[test]
fn the_wrong_sides_turn_is_refused_naming_whose_turn_it_is() {
    let c = new().decided(json!({"type": "begin-turn", "first": "allies"}));
    c.when(json!({"type": "activate", "leader": "vogel"})).then_refused_saying(
        Shared::NotYourTurn,
        "it is for allies to activate a leader (adams, baker, cole), not for axis",
    );
}

#[test]
fn a_leader_activated_twice_is_refused() {
    let c = new()
        .adams_active()
        .decided(json!({"type": "end-activation"}))
        .decided(json!({"type": "activate", "leader": "vogel"}))
        .decided(json!({"type": "end-activation"}));
    c.when(json!({"type": "activate", "leader": "adams"}))
        .then_refused_saying(Refused::ActivatedOnce, "adams has already been activated this turn");
}

#[test]
fn a_unit_activated_twice_is_refused() {
    let c = new()
        .adams_active()
        .decided(commanded("trained-a"))
        .decided(json!({"type": "end-activation"}))
        .decided(json!({"type": "activate", "leader": "vogel"}))
        .decided(json!({"type": "end-activation"}))
        .decided(json!({"type": "move", "piece": "baker", "to": [10, 0]}))
        .decided(json!({"type": "activate", "leader": "baker"}));
    c.when(commanded("trained-a"))
        .then_refused_saying(Refused::ActivatedOnce, "trained-a has already been activated this turn");
}

#[test]
fn a_skip_is_allowed_to_the_side_with_fewer_leaders() {
    let c = new().decided(json!({"type": "begin-turn", "first": "axis"}));
    c.when(json!({"type": "skip", "side": "axis"})).then(vec![Fact::Skipped {
        side: "axis".into(),
        skips_left: 0,
        next: Some("allies".into()),
    }]);
}

#[test]
fn a_skip_with_none_left_is_refused() {
    let c = new()
        .decided(json!({"type": "begin-turn", "first": "axis"}))
        .decided(json!({"type": "skip", "side": "axis"}))
        .decided(json!({"type": "activate", "leader": "adams"}))
        .decided(json!({"type": "end-activation"}));
    c.when(json!({"type": "skip", "side": "axis"})).then_refused_saying(Refused::NoSkipLeft, "axis has no skip left");
    // The side with more leaders never has a skip at all.
    let c = new().decided(json!({"type": "begin-turn", "first": "allies"}));
    c.when(json!({"type": "skip", "side": "allies"}))
        .then_refused_saying(Refused::NoSkipLeft, "allies has no skip left");
}

#[test]
fn a_skip_is_only_for_the_side_whose_slot_it_is() {
    let c = new().decided(json!({"type": "begin-turn", "first": "allies"}));
    c.when(json!({"type": "skip", "side": "axis"}))
        .then_refused_saying(Shared::NotYourTurn, "it is for allies to activate a leader: axis cannot skip it");
}

#[test]
fn when_one_side_has_no_leader_left_the_other_activates_the_rest_in_sequence() {
    let c = new()
        .decided(json!({"type": "begin-turn", "first": "axis"}))
        .decided(json!({"type": "activate", "leader": "vogel"}))
        .decided(json!({"type": "end-activation"}))
        .decided(json!({"type": "activate", "leader": "adams"}))
        .decided(json!({"type": "end-activation"}))
        .decided(json!({"type": "activate", "leader": "weber"}));
    let facts = c.when(json!({"type": "end-activation"})).facts();
    assert_eq!(
        facts[0],
        Fact::ActivationEnded {
            leader: "weber".into(),
            side: "axis".into(),
            stays_activated: true,
            next: Some("allies".into())
        }
    );
    let c = c.decided(json!({"type": "end-activation"})).decided(json!({"type": "activate", "leader": "baker"}));
    let facts = c.when(json!({"type": "end-activation"})).facts();
    assert_eq!(
        facts[0],
        Fact::ActivationEnded {
            leader: "baker".into(),
            side: "allies".into(),
            stays_activated: true,
            next: Some("allies".into())
        }
    );
    let c = c.decided(json!({"type": "end-activation"})).decided(json!({"type": "activate", "leader": "cole"}));
    c.when(json!({"type": "end-activation"})).then(vec![
        Fact::ActivationEnded { leader: "cole".into(), side: "allies".into(), stays_activated: true, next: None },
        Fact::TurnEnded { turn: 1, locked: vec![] },
    ]);
}

#[test]
fn a_new_turn_waits_until_every_leader_has_been_activated() {
    let c = new().adams_active();
    c.when(json!({"type": "begin-turn", "first": "axis"}))
        .then_refused_saying(Shared::TurnNotOver, "turn 1 is not over: adams is being activated");
    let c = c.decided(json!({"type": "end-activation"}));
    c.when(json!({"type": "begin-turn", "first": "axis"})).then_refused_saying(
        Shared::TurnNotOver,
        "turn 1 is not over: 4 still to activate (baker, cole, vogel, weber)",
    );
}

#[test]
fn a_new_turn_clears_every_activation_mark() {
    let mut c = new().decided(json!({"type": "begin-turn", "first": "allies"}));
    for leader in ["adams", "vogel", "baker", "weber", "cole"] {
        c = c.decided(json!({"type": "activate", "leader": leader})).decided(json!({"type": "end-activation"}));
    }
    let c = c.decided(json!({"type": "begin-turn", "first": "axis"}));
    assert!(c.state().pieces.values().all(|p| !p.activated));
    assert_eq!(c.state().turn.as_ref().unwrap().number, 2);
}

#[test]
fn leaders_locked_in_close_combat_count_but_give_no_skip_and_cannot_be_activated() {
    // Two axis leaders against three allied: one skip, whether or not one is locked.
    let c = new().decided(json!({"type": "lock-in-close-combat", "leader": "weber"}));
    let facts = c.when(json!({"type": "begin-turn", "first": "axis"})).facts();
    let Fact::TurnBegan { leaders, skips, .. } = &facts[0] else { panic!("{facts:?}") };
    assert_eq!(leaders["axis"], 2);
    assert_eq!(skips["axis"], 1);
    let c = c.decided(json!({"type": "begin-turn", "first": "axis"}));
    c.when(json!({"type": "activate", "leader": "weber"}))
        .then_refused_saying(Refused::LockedInCloseCombat, "weber is locked in close combat and may not be activated");
}

#[test]
fn a_lock_that_leaves_a_side_without_leaders_passes_its_slot() {
    let c = new().vogel_then_adams();
    c.when(json!({"type": "lock-in-close-combat", "leader": "weber"})).then(vec![
        Fact::LockedInCloseCombat { leader: "weber".into() },
        Fact::SlotPassed { side: "axis".into(), next: Some("allies".into()) },
    ]);
}

/// With a leader locked in close combat the turn does
/// not end "every leader has been activated": it names him.
#[test]
fn a_turn_that_ends_with_a_leader_locked_says_so() {
    let c = new()
        .decided(json!({"type": "lock-in-close-combat", "leader": "weber"}))
        .decided(json!({"type": "begin-turn", "first": "axis"}))
        .decided(json!({"type": "activate", "leader": "vogel"}))
        .decided(json!({"type": "end-activation"}));
    let mut c = c;
    for leader in ["adams", "baker"] {
        c = c.decided(json!({"type": "activate", "leader": leader})).decided(json!({"type": "end-activation"}));
    }
    let c = c.decided(json!({"type": "activate", "leader": "cole"}));
    let facts = c.when(json!({"type": "end-activation"})).facts();
    assert_eq!(facts[1], Fact::TurnEnded { turn: 1, locked: vec!["weber".into()] });
    assert_eq!(narrate(&facts[1]), "Turn 1 ends: no leader is left to activate (weber is locked in close combat).");
    let c = c.decided(json!({"type": "end-activation"}));
    c.when(json!({"type": "activate", "leader": "weber"}))
        .then_refused_saying(Shared::TurnOver, "turn 1 is over: no leader is left to activate; begin the next turn");
    // Without a lock the narration is as before, and the fact's bytes too.
    let plain = Fact::TurnEnded { turn: 2, locked: vec![] };
    assert_eq!(narrate(&plain), "Turn 2 ends: every leader has been activated.");
    assert_eq!(serde_json::to_value(&plain).unwrap(), json!({"type": "turn-ended", "turn": 2}));
}

// ---- The dead (LN3) ----

/// A leader the referee removes no longer counts towards
/// his side's leaders when the next turn's skips are counted ("You get as
/// many skips as you have leaders less").
#[test]
fn a_removed_leader_no_longer_counts_for_skips() {
    let c = new().decided(json!({"type": "remove", "piece": "baker", "reason": "killed by a sniper"}));
    let facts = c.when(json!({"type": "begin-turn", "first": "axis"})).facts();
    let Fact::TurnBegan { leaders, skips, .. } = &facts[0] else { panic!("{facts:?}") };
    assert_eq!((leaders["allies"], leaders["axis"]), (2, 2));
    assert_eq!((skips["allies"], skips["axis"]), (0, 0));
    assert!(!c.state().pieces.contains_key("baker"));
    assert_eq!(&*c.state().removed["baker"].reason, "killed by a sniper");
}

/// A removed leader is never given an activation: the turn ends once the
/// leaders in play have been activated, and a side left without a leader to
/// activate passes its slot on.
#[test]
fn a_removed_leader_is_not_activated_and_his_slot_passes() {
    let c = new().vogel_then_adams();
    c.when(json!({"type": "remove", "piece": "weber", "reason": "killed"})).then(vec![
        Fact::Removed { piece: "weber".into(), side: "axis".into(), role: Role::Leader, reason: "killed".into() },
        Fact::SlotPassed { side: "axis".into(), next: Some("allies".into()) },
    ]);
    let c = c.decided(json!({"type": "remove", "piece": "weber", "reason": "killed"}));
    c.when(json!({"type": "activate", "leader": "weber"}))
        .then_refused_saying(Shared::OutOfPlay, "weber has been removed from play (killed)");
    let c = c
        .decided(json!({"type": "activate", "leader": "baker"}))
        .decided(json!({"type": "end-activation"}))
        .decided(json!({"type": "activate", "leader": "cole"}));
    let facts = c.when(json!({"type": "end-activation"})).facts();
    assert_eq!(facts.last(), Some(&Fact::TurnEnded { turn: 1, locked: vec![] }));
    // Next turn: axis has one leader against allies' three, so two skips.
    let c = c.decided(json!({"type": "end-activation"}));
    let facts = c.when(json!({"type": "begin-turn", "first": "allies"})).facts();
    let Fact::TurnBegan { leaders, skips, .. } = &facts[0] else { panic!("{facts:?}") };
    assert_eq!((leaders["axis"], skips["axis"]), (1, 2));
}

/// A leader removed during his own activation does nothing more: his
/// activation ends and the slot passes on.
#[test]
fn a_leader_removed_during_his_activation_ends_it() {
    let c = new().adams_active().decided(commanded("trained-a"));
    c.when(json!({"type": "remove", "piece": "adams", "reason": "killed by mortar fire"})).then(vec![
        Fact::Removed {
            piece: "adams".into(),
            side: "allies".into(),
            role: Role::Leader,
            reason: "killed by mortar fire".into(),
        },
        Fact::ActivationEnded {
            leader: "adams".into(),
            side: "allies".into(),
            stays_activated: true,
            next: Some("axis".into()),
        },
    ]);
    let c = c.decided(json!({"type": "remove", "piece": "adams", "reason": "killed by mortar fire"}));
    c.when(json!({"type": "rally", "units": ["trained-b"]}))
        .then_refused_saying(Shared::NothingActive, "no leader is being activated");
    assert_eq!(c.state().turn.as_ref().unwrap().next.as_deref(), Some("axis"));
    assert!(
        render(c.state()).contains("  adams        leader removed from play: killed by mortar fire\n"),
        "{}",
        render(c.state())
    );
}

/// A removed unit can be neither commanded nor rallied, nor removed again.
#[test]
fn a_removed_unit_is_neither_commanded_nor_rallied() {
    let c = new()
        .decided(json!({"type": "break", "piece": "trained-b", "reason": "fire"}))
        .decided(json!({"type": "remove", "piece": "trained-a", "reason": "destroyed"}))
        .decided(json!({"type": "remove", "piece": "trained-b", "reason": "destroyed"}))
        .adams_active();
    c.when(commanded("trained-a"))
        .then_refused_saying(Shared::OutOfPlay, "trained-a has been removed from play (destroyed)");
    c.when(json!({"type": "rally", "units": ["trained-b"]}))
        .then_refused_saying(Shared::OutOfPlay, "trained-b has been removed from play (destroyed)");
    c.when(json!({"type": "remove", "piece": "trained-a", "reason": "again"}))
        .then_refused_saying(Shared::OutOfPlay, "trained-a has been removed from play (destroyed)");
    c.when(json!({"type": "remove", "piece": "nobody", "reason": "x"}))
        .then_refused_saying(Shared::Unknown, "there is no leader or unit \"nobody\"");
}

// ---- Commanding ----

/// "an Elite unit's", not "a Elite unit's".
#[test]
fn an_elite_unit_out_of_range_is_named_with_its_article() {
    let far_elite = new().decided(json!({"type": "move", "piece": "elite-150", "to": [151, 0]})).adams_active();
    far_elite.when(commanded("elite-150")).then_refused_saying(Refused::OutOfCommandRange, "elite-150 is out of command range: 151 mm from adams (rounded up), and an Elite unit's command range is 150 mm");
}

#[test]
fn a_leader_commands_a_unit_within_the_units_command_range() {
    let c = new().adams_active();
    c.when(commanded("elite-150")).then(vec![Fact::UnitCommanded {
        leader: "adams".into(),
        unit: "elite-150".into(),
        skill: Skill::Elite,
        distance_mm: 150,
        range_mm: 150,
    }]);
    assert!(c.when(commanded("trained-100")).result().is_ok(), "exactly at range is in range");
    assert!(c.when(commanded("conscript")).result().is_ok(), "60, 80 is exactly 100 mm");
}

#[test]
fn a_unit_1_mm_out_of_range_is_refused() {
    let c = new().adams_active();
    c.when(commanded("trained-101")).then_refused_saying(Refused::OutOfCommandRange, "trained-101 is out of command range: 101 mm from adams (rounded up), and a Trained unit's command range is 100 mm");
}

#[test]
fn range_is_measured_when_the_unit_is_commanded() {
    let c = new().adams_active().decided(json!({"type": "move", "piece": "trained-101", "to": [-100, 0]}));
    assert!(c.when(commanded("trained-101")).result().is_ok());
}

#[test]
fn a_fourth_unit_is_refused() {
    let c = new()
        .adams_active()
        .decided(commanded("trained-a"))
        .decided(commanded("trained-b"))
        .decided(commanded("trained-100"));
    c.when(commanded("conscript")).then_refused_saying(
        Refused::CommandLimit,
        "adams has already commanded 3 units (trained-a, trained-b, trained-100): a leader commands at most 3",
    );
}

#[test]
fn a_broken_unit_is_refused() {
    let c = new().decided(json!({"type": "break", "piece": "trained-a", "reason": "lost half its men"})).adams_active();
    c.when(commanded("trained-a")).then_refused_saying(
        Refused::BrokenNotCommanded,
        "trained-a is broken: a leader may only command units that are not broken",
    );
}

#[test]
fn a_leader_commanding_a_leader_is_refused() {
    let c = new().adams_active();
    c.when(commanded("baker")).then_refused_saying(
        Refused::LeaderNotCommanded,
        "baker is a leader: \"A leader may not activate another leader\"",
    );
}

#[test]
fn an_enemy_unit_is_refused() {
    let c = new().adams_active();
    c.when(commanded("gruppe")).then_refused_saying(Shared::NotFriendly, "gruppe is not friendly to adams");
}

#[test]
fn commanding_after_the_leaders_own_action_is_refused() {
    let c = new()
        .adams_active()
        .decided(commanded("trained-a"))
        .decided(json!({"type": "leader-action", "action": "moves"}));
    c.when(commanded("trained-b")).then_refused_saying(Refused::LeaderHasActed, "adams has acted himself");
}

#[test]
fn commanding_units_does_not_stop_the_leader_acting() {
    let c = new()
        .adams_active()
        .decided(commanded("trained-a"))
        .decided(commanded("trained-b"))
        .decided(commanded("trained-100"));
    c.when(json!({"type": "leader-action", "action": "fires"}))
        .then(vec![Fact::LeaderActed { leader: "adams".into(), action: "fires".into() }]);
}

#[test]
fn only_the_unit_commanded_last_acts() {
    let c = new().adams_active().decided(commanded("trained-a"));
    assert!(c.when(json!({"type": "unit-action", "unit": "trained-a", "action": "moves"})).result().is_ok());
    c.when(json!({"type": "unit-action", "unit": "trained-b", "action": "moves"}))
        .then_refused_saying(Refused::NotCommanded, "trained-b has not been commanded by adams");
    let c = c.decided(commanded("trained-b"));
    c.when(json!({"type": "unit-action", "unit": "trained-a", "action": "moves"}))
        .then_refused_saying(Refused::ActionsOver, "trained-a's actions are over: adams has since commanded trained-b");
    let c = c.decided(json!({"type": "leader-action", "action": "moves"}));
    c.when(json!({"type": "unit-action", "unit": "trained-b", "action": "fires"}))
        .then_refused_saying(Refused::ActionsOver, "trained-b's actions are over: adams has acted himself");
}

#[test]
fn nothing_happens_outside_an_activation() {
    let c = new();
    c.when(json!({"type": "activate", "leader": "adams"}))
        .then_refused_saying(Shared::NoTurnBegun, "no turn has begun");
    let c = c.decided(json!({"type": "begin-turn", "first": "allies"}));
    c.when(commanded("trained-a"))
        .then_refused_saying(Shared::NothingActive, "no leader is being activated: activate a leader first");
    c.when(json!({"type": "rally", "units": ["trained-a"]}))
        .then_refused_saying(Shared::NothingActive, "no leader is being activated");
}

// ---- A move of the leader's own (LN4) ----

/// The table under `leader-activation@1`, whose every move is the referee's.
fn first_version() -> Check {
    let spec = versions().into_iter().find(|v| v.version == "1").unwrap();
    given(LeaderActivation::initial(serde_json::from_value(scenario()).unwrap(), &spec.defaults()).unwrap())
}

fn moved(piece: &str, to: [i64; 2]) -> serde_json::Value {
    json!({"type": "move", "piece": piece, "to": to})
}

/// "Note that after the leader has performed any action of his own (such as
/// moving or shooting) he may not command other units any more." A move of
/// the leader being activated was read as the referee's, and he went on
/// commanding.
#[test]
fn a_move_of_the_active_leader_is_an_action_of_his_own() {
    let c = new().adams_active();
    c.when(moved("adams", [5, 5])).then(vec![
        Fact::LeaderActed { leader: "adams".into(), action: "moves".into() },
        Fact::Moved { piece: "adams".into(), from: Point { x: 0, y: 0 }, to: Point { x: 5, y: 5 } },
    ]);
    c.clone().decided(moved("adams", [5, 5])).when(commanded("trained-a")).then_refused_saying(
        Refused::LeaderHasActed,
        "adams has acted himself: \"after the leader has performed any action of his own (such as moving or shooting)",
    );
}

/// "Commanding other units does not affect a leader's capability to perform
/// any kind of action afterwards": he moves after commanding, and the unit
/// he commanded last has done.
#[test]
fn the_active_leader_moves_after_commanding_and_his_unit_is_done() {
    let c = new().adams_active().decided(commanded("trained-a")).decided(moved("adams", [5, 5]));
    c.when(json!({"type": "unit-action", "unit": "trained-a", "action": "fires"}))
        .then_refused_saying(Refused::ActionsOver, "trained-a's actions are over: adams has acted himself");
    c.when(moved("adams", [9, 9])).then(vec![Fact::Moved {
        piece: "adams".into(),
        from: Point { x: 5, y: 5 },
        to: Point { x: 9, y: 9 },
    }]);
}

/// A move after the leader's own action records where it takes him: the
/// records of version 1 describe the action (`leader-action`), then place
/// him (`move`).
#[test]
fn a_move_after_the_leaders_action_places_him() {
    let c = new().adams_active().decided(json!({"type": "leader-action", "action": "moves to the wall"}));
    c.when(moved("adams", [5, 5])).then(vec![Fact::Moved {
        piece: "adams".into(),
        from: Point { x: 0, y: 0 },
        to: Point { x: 5, y: 5 },
    }]);
}

/// "A broken leader may not perform any action of his own": a broken,
/// activated leader was moved as if by the referee.
#[test]
fn a_broken_leader_may_not_move_as_an_action_of_his_own() {
    broken_adams().when(moved("adams", [5, 5])).then_refused_saying(
        Refused::BrokenLeader,
        "adams is broken and may not move as an action of his own (a referee's displacement says `displaced`)",
    );
}

/// The referee may still displace the leader being activated (a casualty
/// displaced, a retreat the table imposes): that is no action of his own.
#[test]
fn a_displaced_leader_has_not_acted() {
    let displaced = json!({"type": "move", "piece": "adams", "to": [5, 5], "displaced": true});
    let c = new().adams_active();
    c.when(displaced.clone()).then(vec![Fact::Moved {
        piece: "adams".into(),
        from: Point { x: 0, y: 0 },
        to: Point { x: 5, y: 5 },
    }]);
    assert!(c.clone().decided(displaced.clone()).when(commanded("trained-a")).result().is_ok());
    assert!(broken_adams().when(displaced).result().is_ok(), "a broken leader may be displaced");
}

/// Moves outside the active leader's activation are the referee's, and say so
/// without `displaced`: a second way to write the same move is refused.
#[test]
fn only_the_active_leaders_move_says_displaced() {
    let c = new().adams_active();
    for piece in ["trained-a", "baker"] {
        c.when(json!({"type": "move", "piece": piece, "to": [5, 5], "displaced": true})).then_refused_saying(
            Refused::DisplacedOnlyTheActiveLeader,
            &format!("{piece} is not the leader being activated"),
        );
    }
    c.when(moved("baker", [5, 5])).then(vec![Fact::Moved {
        piece: "baker".into(),
        from: Point { x: 1000, y: 0 },
        to: Point { x: 5, y: 5 },
    }]);
}

/// The leader's own move is his side's decision; a displacement, like every
/// other move, the referee's (either side may make it; the record says which).
#[test]
fn the_leaders_own_move_is_his_sides_decision() {
    let c = new().adams_active();
    let author = |d: serde_json::Value| LeaderActivation::author(c.state(), &serde_json::from_value(d).unwrap());
    assert_eq!(author(moved("adams", [5, 5])), crate::ruleset::Actor::side("allies"));
    assert_eq!(
        author(json!({"type": "move", "piece": "adams", "to": [5, 5], "displaced": true})),
        crate::ruleset::Actor::Referee
    );
    assert_eq!(author(moved("trained-a", [5, 5])), crate::ruleset::Actor::Referee);
}

/// `leader-activation@1`, which every record made before LN4 names, keeps
/// reading every move as the referee's, so those records verify as played.
#[test]
fn version_1_reads_every_move_as_the_referees() {
    let c = first_version().adams_active();
    c.when(moved("adams", [5, 5])).then(vec![Fact::Moved {
        piece: "adams".into(),
        from: Point { x: 0, y: 0 },
        to: Point { x: 5, y: 5 },
    }]);
    assert!(c.clone().decided(moved("adams", [5, 5])).when(commanded("trained-a")).result().is_ok());
    let broken = broken(first_version(), &["adams"]).adams_active();
    assert!(broken.when(moved("adams", [5, 5])).result().is_ok());
    let author = LeaderActivation::author(c.state(), &serde_json::from_value(moved("adams", [5, 5])).unwrap());
    assert_eq!(author, crate::ruleset::Actor::Referee);
}

/// Versions 1 and 2 have the same settings, the default is 2, and a move
/// without `displaced` is written without it (records made before it read
/// back byte for byte).
#[test]
fn version_2_is_the_default_with_version_1s_settings() {
    let [v2, v1] = <[VersionSpec; 2]>::try_from(versions()).ok().unwrap();
    assert_eq!((v2.id().as_str(), v1.id().as_str()), ("leader-activation@2", "leader-activation@1"));
    let names = |v: &VersionSpec| v.settings.iter().map(|s| (s.name, s.default)).collect::<Vec<_>>();
    assert_eq!(names(&v2), names(&v1));
    let d: Decision = serde_json::from_value(moved("adams", [5, 5])).unwrap();
    assert_eq!(serde_json::to_value(&d).unwrap(), moved("adams", [5, 5]));
}

// ---- Rallying ----

fn broken(c: Check, units: &[&str]) -> Check {
    units.iter().fold(c, |c, u| c.decided(json!({"type": "break", "piece": u, "reason": "fire"})))
}

fn rally_needed(c: &Check, units: &[&str]) -> (i64, bool) {
    for roll in 1..=6 {
        let facts = c.when_rolling(json!({"type": "rally", "units": units}), &[("rally", &[roll])]).facts();
        if let Fact::RallyTested { needed, rallied: true, .. } = &facts[0] {
            return (*needed, true);
        }
    }
    (0, false)
}

#[test]
fn rally_target_is_3_plus_1_per_extra_unit_with_skill_modifiers() {
    let c = broken(new(), &["trained-a", "trained-b", "trained-100", "elite-150", "conscript"]).adams_active();
    assert_eq!(rally_needed(&c, &["trained-a"]).0, 3);
    assert_eq!(rally_needed(&c, &["trained-a", "trained-b"]).0, 4);
    assert_eq!(rally_needed(&c, &["trained-a", "trained-b", "trained-100"]).0, 5);
    // "-1 One or more Elite unit among rallied troops"
    assert_eq!(rally_needed(&c, &["elite-150"]).0, 2);
    // "+1 One or more Conscript unit among rallied troops"
    assert_eq!(rally_needed(&c, &["conscript", "trained-a", "trained-b"]).0, 6);
    // "It is not cumulative but may cancel each other out." (L3)
    assert_eq!(rally_needed(&c, &["elite-150", "conscript"]).0, 4);
}

#[test]
fn a_successful_rally_rallies_all_named_units_and_ends_the_activation() {
    let c = broken(new(), &["trained-a", "trained-b"]).adams_active();
    let facts =
        c.when_rolling(json!({"type": "rally", "units": ["trained-a", "trained-b"]}), &[("rally", &[4])]).facts();
    assert_eq!(
        facts,
        vec![
            Fact::RallyTested {
                leader: "adams".into(),
                units: vec!["trained-a".into(), "trained-b".into()],
                roll: 4,
                needed: 4,
                rallied: true
            },
            Fact::UnitsRallied { units: vec!["trained-a".into(), "trained-b".into()], stay_idle: false },
            Fact::ActivationEnded {
                leader: "adams".into(),
                side: "allies".into(),
                stays_activated: true,
                next: Some("axis".into())
            },
        ]
    );
}

#[test]
fn a_failed_rally_leaves_all_units_broken() {
    let c = broken(new(), &["trained-a", "trained-b"]).adams_active();
    let facts =
        c.when_rolling(json!({"type": "rally", "units": ["trained-a", "trained-b"]}), &[("rally", &[3])]).facts();
    assert!(matches!(&facts[0], Fact::RallyTested { rallied: false, roll: 3, needed: 4, .. }));
    assert!(matches!(&facts[1], Fact::ActivationEnded { .. }), "no units rallied");
}

#[test]
fn rallying_four_units_is_refused() {
    let c = broken(new(), &["trained-a", "trained-b", "trained-100", "conscript"]).adams_active();
    c.when(json!({"type": "rally", "units": ["trained-a", "trained-b", "trained-100", "conscript"]}))
        .then_refused_saying(Refused::RallyLimit, "adams may rally up to 3 units, not 4");
}

#[test]
fn rally_refuses_units_out_of_range_unbroken_leaders_and_repeats() {
    let c = broken(new(), &["trained-101", "trained-a"]).adams_active();
    c.when(json!({"type": "rally", "units": ["trained-101"]}))
        .then_refused_saying(Refused::OutOfCommandRange, "trained-101 is out of command range for a rally");
    c.when(json!({"type": "rally", "units": ["trained-b"]}))
        .then_refused_saying(Refused::RallyUnbroken, "trained-b is not broken");
    c.when(json!({"type": "rally", "units": ["trained-a", "trained-a"]}))
        .then_refused_saying(Shared::NamedTwice, "trained-a is named twice");
    c.when(json!({"type": "rally", "units": []}))
        .then_refused_saying(Shared::NothingNamed, "name at least one broken unit");
    let c = broken(new(), &["baker"]).adams_active();
    c.when(json!({"type": "rally", "units": ["baker"]})).then_refused_saying(
        Refused::LeaderNotRallied,
        "Command teams themselves may not be rallied by other command teams",
    );
}

#[test]
fn after_a_rally_the_activation_is_over() {
    let c = broken(new(), &["trained-a"])
        .adams_active()
        .decided_rolling(json!({"type": "rally", "units": ["trained-a"]}), &[("rally", &[6])]);
    c.when(commanded("trained-b")).then_refused_saying(Shared::NothingActive, "no leader is being activated");
}

#[test]
fn a_rallied_unit_may_be_commanded_later_in_the_turn_by_default() {
    let c = broken(new(), &["trained-a"])
        .adams_active()
        .decided_rolling(json!({"type": "rally", "units": ["trained-a"]}), &[("rally", &[6])])
        .decided(json!({"type": "activate", "leader": "vogel"}))
        .decided(json!({"type": "end-activation"}))
        .decided(json!({"type": "move", "piece": "baker", "to": [0, 0]}))
        .decided(json!({"type": "activate", "leader": "baker"}));
    assert!(c.when(commanded("trained-a")).result().is_ok());
}

#[test]
fn option_rallied_units_stay_idle() {
    let c = broken(with(&["rallied-units-stay-idle"]), &["trained-a"])
        .adams_active()
        .decided_rolling(json!({"type": "rally", "units": ["trained-a"]}), &[("rally", &[6])])
        .decided(json!({"type": "activate", "leader": "vogel"}))
        .decided(json!({"type": "end-activation"}))
        .decided(json!({"type": "move", "piece": "baker", "to": [0, 0]}))
        .decided(json!({"type": "activate", "leader": "baker"}));
    c.when(commanded("trained-a"))
        .then_refused_saying(Refused::ActivatedOnce, "trained-a has already been activated this turn");
}

#[test]
fn option_natural_results() {
    // With a house target of 7 for a rally, only a natural 6 can pass.
    let mut constants = BTreeMap::new();
    constants.insert("rally-target".to_string(), json!(7));
    for (options, six_passes) in [(vec![], false), (vec!["natural-6-rallies"], true)] {
        let overrides = options.iter().map(|o: &&str| (o.to_string(), json!(true))).collect();
        let rules = spec().resolve(&overrides, &constants, "").unwrap();
        let state = LeaderActivation::initial(serde_json::from_value(scenario()).unwrap(), &rules).unwrap();
        let c = broken(given(state), &["trained-a"]).adams_active();
        let facts = c.when_rolling(json!({"type": "rally", "units": ["trained-a"]}), &[("rally", &[6])]).facts();
        assert!(
            matches!(&facts[0], Fact::RallyTested { rallied, .. } if *rallied == six_passes),
            "{options:?}: {facts:?}"
        );
    }
    // With an Elite unit and a house target of 1, a 1 passes unless natural 1s fail.
    constants.insert("rally-target".to_string(), json!(1));
    for (options, one_passes) in [(vec![], true), (vec!["natural-1-fails"], false)] {
        let overrides = options.iter().map(|o: &&str| (o.to_string(), json!(true))).collect();
        let rules = spec().resolve(&overrides, &constants, "").unwrap();
        let state = LeaderActivation::initial(serde_json::from_value(scenario()).unwrap(), &rules).unwrap();
        let c = broken(given(state), &["elite-150"]).adams_active();
        let facts = c.when_rolling(json!({"type": "rally", "units": ["elite-150"]}), &[("rally", &[1])]).facts();
        assert!(
            matches!(&facts[0], Fact::RallyTested { rallied, .. } if *rallied == one_passes),
            "{options:?}: {facts:?}"
        );
    }
}

// ---- Broken leaders ----

fn broken_adams() -> Check {
    broken(new(), &["adams"]).adams_active()
}

#[test]
fn a_broken_leader_may_only_self_rally() {
    let c = broken_adams();
    c.when(commanded("trained-a")).then_refused_saying(
        Refused::BrokenLeader,
        "adams is broken and may not command units: \"A broken leader may only self rally\"",
    );
    c.when(json!({"type": "leader-action", "action": "moves"}))
        .then_refused_saying(Refused::BrokenLeader, "adams is broken and may not perform an action of his own");
    let c2 = broken(c.clone(), &["trained-a"]);
    c2.when(json!({"type": "rally", "units": ["trained-a"]}))
        .then_refused_saying(Refused::BrokenLeader, "adams is broken and may not rally other troops");
}

#[test]
fn a_successful_self_rally_lets_the_leader_act_normally() {
    let c = broken_adams().decided_rolling(json!({"type": "self-rally"}), &[("self-rally", &[3])]);
    assert!(!c.state().pieces["adams"].broken);
    assert!(c.when(commanded("trained-a")).result().is_ok());
}

#[test]
fn a_failed_self_rally_passes_play_and_marks_the_leader() {
    let c = broken_adams();
    c.when_rolling(json!({"type": "self-rally"}), &[("self-rally", &[2])]).then(vec![
        Fact::SelfRallyTested { leader: "adams".into(), roll: 2, needed: 3, rallied: false },
        Fact::ActivationEnded {
            leader: "adams".into(),
            side: "allies".into(),
            stays_activated: true,
            next: Some("axis".into()),
        },
    ]);
}

#[test]
fn option_failed_self_rally_keeps_leader_unactivated() {
    let c = broken(with(&["failed-self-rally-keeps-leader-unactivated"]), &["adams"]).adams_active();
    let c = c.decided_rolling(json!({"type": "self-rally"}), &[("self-rally", &[1])]);
    assert!(!c.state().pieces["adams"].activated);
    let c = c.decided(json!({"type": "activate", "leader": "vogel"})).decided(json!({"type": "end-activation"}));
    assert!(c.when(json!({"type": "activate", "leader": "adams"})).result().is_ok());
}

#[test]
fn option_self_rally_skill_modifier() {
    for (options, needed) in [(vec![], 3), (vec!["self-rally-skill-modifier"], 4)] {
        let c = broken(with(&options), &["cole"])
            .decided(json!({"type": "begin-turn", "first": "allies"}))
            .decided(json!({"type": "activate", "leader": "cole"}));
        let facts = c.when_rolling(json!({"type": "self-rally"}), &[("self-rally", &[3])]).facts();
        assert!(matches!(&facts[0], Fact::SelfRallyTested { needed: n, .. } if *n == needed), "{options:?}: {facts:?}");
    }
}

#[test]
fn self_rally_is_for_broken_leaders_once_and_first() {
    let c = new().adams_active();
    c.when(json!({"type": "self-rally"})).then_refused_saying(Refused::SelfRallyUnbroken, "adams is not broken");
    let c = broken(with(&["failed-self-rally-keeps-leader-unactivated"]), &["adams"]).adams_active();
    let c = c.decided_rolling(json!({"type": "self-rally"}), &[("self-rally", &[6])]).decided(commanded("trained-a"));
    c.when(json!({"type": "self-rally"})).then_refused_saying(Refused::SelfRallyUnbroken, "adams is not broken");
}

#[test]
fn a_self_rally_without_its_die_at_the_table_is_unknown() {
    let c = broken_adams();
    c.when(json!({"type": "self-rally"}))
        .then_refused_saying(Shared::Dice, "which the table did not roll (the die is unknown)");
}

// ---- Options L1 and L9 ----

#[test]
fn option_last_activation_rule() {
    // Axis (2 leaders, 1 skip) must keep its last leader for the last slot.
    let c = with(&["last-activation-rule"])
        .decided(json!({"type": "begin-turn", "first": "axis"}))
        .decided(json!({"type": "activate", "leader": "vogel"}))
        .decided(json!({"type": "end-activation"}))
        .decided(json!({"type": "activate", "leader": "adams"}))
        .decided(json!({"type": "end-activation"}));
    c.when(json!({"type": "activate", "leader": "weber"})).then_refused_saying(
        Refused::LastActivation,
        "axis must keep its last leader for the last activation (last-activation-rule): skip instead, 1 skip(s) left",
    );
    let c = c
        .decided(json!({"type": "skip", "side": "axis"}))
        .decided(json!({"type": "activate", "leader": "baker"}))
        .decided(json!({"type": "end-activation"}));
    // No skips left: now weber may go, and the allies have the last activation.
    let facts = c.when(json!({"type": "activate", "leader": "weber"})).facts();
    assert!(matches!(&facts[0], Fact::LeaderActivated { .. }));
    // Without the option the same activation is allowed.
    let c = new().vogel_then_adams();
    assert!(c.when(json!({"type": "activate", "leader": "weber"})).result().is_ok());
}

proptest! {
    /// L1: reading the skill modifiers as roll modifiers gives the same
    /// facts as reading them as target modifiers, for every roll, every
    /// mix of skills and every rally target a house might set.
    #[test]
    fn skill_as_roll_modifier_never_changes_a_rally(
        roll in 1u32..=6,
        units in proptest::sample::subsequence(vec!["elite-150", "trained-100", "conscript"], 1..=3),
        target in 1i64..=6,
        natural_1 in any::<bool>(),
        natural_6 in any::<bool>(),
    ) {
        let mut outcomes = Vec::new();
        for roll_modifier in [false, true] {
            let mut options = BTreeMap::new();
            options.insert("skill-as-roll-modifier".to_string(), json!(roll_modifier));
            options.insert("natural-1-fails".to_string(), json!(natural_1));
            options.insert("natural-6-rallies".to_string(), json!(natural_6));
            let constants = [("rally-target".to_string(), json!(target))].into();
            let rules = spec().resolve(&options, &constants, "").unwrap();
            let state = LeaderActivation::initial(serde_json::from_value(scenario()).unwrap(), &rules).unwrap();
            let c = broken(given(state), &units).adams_active();
            outcomes.push(c.when_rolling(json!({"type": "rally", "units": units}), &[("rally", &[roll])]).facts());
        }
        prop_assert_eq!(&outcomes[0], &outcomes[1]);
    }
}

// ---- Referee inputs and the scenario ----

#[test]
fn decisions_without_fields_still_refuse_unknown_ones() {
    assert!(serde_json::from_value::<Decision>(json!({"type": "end-activation"})).is_ok());
    let err = serde_json::from_value::<Decision>(json!({"type": "end-activation", "leader": "adams"})).unwrap_err();
    assert!(err.to_string().contains("unknown field `leader`"), "{err}");
    assert!(serde_json::from_value::<Decision>(json!({"type": "self-rally", "roll": 6})).is_err());
}

#[test]
fn referee_inputs_change_the_table() {
    let c = new();
    c.when(json!({"type": "move", "piece": "far", "to": [1, 2]})).then(vec![Fact::Moved {
        piece: "far".into(),
        from: crate::geometry::Point { x: 5000, y: 5000 },
        to: crate::geometry::Point { x: 1, y: 2 },
    }]);
    let c = c.decided(json!({"type": "break", "piece": "far", "reason": "routed"}));
    c.when(json!({"type": "break", "piece": "far", "reason": "again"}))
        .then_refused_saying(Shared::NoChange, "far is already broken");
    c.when(json!({"type": "lock-in-close-combat", "leader": "far"}))
        .then_refused_saying(Refused::NotALeader, "far is a unit, not a leader");
    c.when(json!({"type": "free-from-close-combat", "leader": "adams"}))
        .then_refused_saying(Shared::NoChange, "adams is not locked in close combat");
    c.when(json!({"type": "move", "piece": "ghost", "to": [0, 0]}))
        .then_refused_saying(Shared::Unknown, "there is no leader or unit \"ghost\" in this game");
}

#[test]
fn the_scenario_is_checked_field_by_field() {
    let rules = spec().defaults();
    let mut bad = scenario();
    bad["units"][2]["side"] = json!("soviets");
    let err = LeaderActivation::initial(serde_json::from_value(bad).unwrap(), &rules).unwrap_err();
    assert_eq!(err.field, "units[2].side");
    let mut bad = scenario();
    bad["units"][0]["id"] = json!("adams");
    let err = LeaderActivation::initial(serde_json::from_value(bad).unwrap(), &rules).unwrap_err();
    assert_eq!((err.field.as_str(), err.message.as_str()), ("units[0].id", "\"adams\" is used twice"));
    let mut bad = scenario();
    bad["sides"] = json!(["allies", "allies"]);
    assert_eq!(LeaderActivation::initial(serde_json::from_value(bad).unwrap(), &rules).unwrap_err().field, "sides");
}

#[test]
fn every_fact_narrates_and_round_trips() {
    let c = broken(new(), &["trained-a"]).adams_active().decided(commanded("trained-b"));
    let facts = c.when_rolling(json!({"type": "rally", "units": ["trained-a"]}), &[("rally", &[5])]).facts();
    for f in facts {
        let back: Fact = serde_json::from_value(serde_json::to_value(&f).unwrap()).unwrap();
        assert_eq!(back, f);
        assert!(!narrate(&f).is_empty());
    }
}
