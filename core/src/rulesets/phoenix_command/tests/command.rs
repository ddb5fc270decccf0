//! 2.3 Command and Control: accumulating, passing and spending CP; command
//! checks; breveting; command distance and stragglers; 2.9 heroes.

use serde_json::{json, Value};

use super::{given, given_with, in_operations, table, told, with_figure, Given};
use crate::refusal::Shared;
use crate::rulesets::phoenix_command::{Check, Fact, Morale, Refused, Spend, Succession};

fn move_to(figure: &str, x: i64, y: i64) -> Value {
    json!({"type": "move", "figure": figure, "to": [x, y]})
}

/// alex: a (CR 4, 3 figures), b (CR 3, 2 figures); jason: j (1 figure).
pub(super) fn small(a_cp: u32, b_cp: u32) -> Value {
    table(&[("alex", "a", a_cp, 4, 3, [0, 0]), ("alex", "b", b_cp, 3, 2, [300, 0]), ("jason", "j", 0, 3, 1, [0, 600])])
}

fn activated(scenario: Value, unit: &str) -> Given {
    in_operations(scenario).decided(json!({"type": "activate", "unit": unit}))
}

/// "Jason has two units, led by figures with Command Ratings of 4 and 3.
/// Both have accumulated 3 CP … he adds another CP to the unit, bringing its
/// cumulative CP to 4. … since the unit has already accumulated CP equal to
/// its Command Rating of 3, the unit cannot accumulate further CP."
#[test]
fn a_unit_accumulates_up_to_its_leaders_command_rating() {
    let g = activated(small(3, 3), "a");
    let facts = g.when_rolling(json!({"type": "accumulate"}), &[]).facts();
    assert_eq!(facts[0], Fact::CpAccumulated { unit: "a".into(), cp_before: 3, cp_after: 4, held: 0, cap: 4 });
    let g = g.decided(json!({"type": "accumulate"})).decided(json!({"type": "activate", "unit": "b"}));
    let facts = g.when_rolling(json!({"type": "accumulate"}), &[]).facts();
    assert_eq!(
        told(&facts)[0],
        "b has 3 CP, its leader's command rating of 3: it gains nothing and completes its turn."
    );
}

/// P5: "Pass by doing nothing." — no CP gained, the activation over.
#[test]
fn a_unit_may_pass_and_keep_its_cp() {
    let g = activated(small(3, 1), "a");
    let facts = g.when_rolling(json!({"type": "pass"}), &[]).facts();
    assert_eq!(facts[0], Fact::Passed { unit: "a".into(), cp: 3 });
    assert!(matches!(facts[1], Fact::ActivationEnded { .. }));
}

/// "Alex activates a unit with 3 CP. He uses 2 CP to advance the unit
/// towards cover and does not wish to perform further actions. The unit's
/// remaining CP is lost."
#[test]
fn cp_not_used_in_actions_are_lost() {
    let g = activated(small(3, 1), "a").decided_all(&[
        json!({"type": "spend-cp"}),
        json!({"type": "actions", "actions": [move_to("a-lead", 0, 50), move_to("a-1", 20, 50), move_to("a-2", 40, 50)]}),
        json!({"type": "spend-cp"}),
        json!({"type": "actions", "actions": [move_to("a-lead", 0, 100), move_to("a-1", 20, 100), move_to("a-2", 40, 100)]}),
    ]);
    assert_eq!(g.state().units["a"].cp, 1);
    let facts = g.when_rolling(json!({"type": "stop"}), &[]).facts();
    assert_eq!(
        told(&facts)[..2],
        [
            "a loses its 1 remaining CP: it performs no further actions.",
            "a's activation ends. Next: alex with 1 CP: b."
        ]
    );
}

/// "all the unit's CP must be expended, leaving the unit with 0 CP when its
/// actions are completed": the last CP's last action ends the activation.
#[test]
fn spending_the_last_cp_ends_the_activation() {
    let g = activated(small(1, 1), "a").decided(json!({"type": "spend-cp"}));
    let facts = g.when_rolling(json!({"type": "actions", "actions": [{"type": "hold", "figure": "a-lead"}, {"type": "other", "figure": "a-1", "what": "pops smoke"}, move_to("a-2", 40, 30)]}), &[]).facts();
    assert_eq!(
        told(&facts),
        [
            "a-lead holds his position.",
            "a-1: pops smoke.",
            "a-2 moves from (40, 0) to (40, 30) (3.0\").",
            "Every figure of a has acted on CP 1; 0 CP left.",
            "a's activation ends. Next: alex with 1 CP: b."
        ]
    );
}

/// "Each figure in the unit must perform his action before the unit's next
/// CP can be expended." — and "If a unit decides to expend CP by performing
/// actions, all the unit's CP must be expended".
#[test]
fn spending_refusals_say_what_is_allowed() {
    let g = activated(small(2, 1), "a");
    let e = g
        .when_rolling(json!({"type": "actions", "actions": [move_to("a-1", 20, 10)]}), &[])
        .refusal_of(Refused::NotSpendingCp);
    assert_eq!(e, "a is not spending a CP on actions: spend its next CP first (\"Units can only perform actions by expending accumulated CP\")");
    let e = g.when_rolling(json!({"type": "stop"}), &[]).refusal_of(Refused::NotSpendingCp);
    assert_eq!(e, "a has not begun to spend its CP: a unit that does not expend them accumulates or passes");
    let g = g.decided(json!({"type": "spend-cp"}));
    let e = g.when_rolling(json!({"type": "spend-cp"}), &[]).refusal_of(Refused::MidCp);
    assert_eq!(e, "a is in the middle of CP 1: each figure must act before it may spend another CP (a-1, a-2, a-lead still to act)");
    let e = g
        .when_rolling(json!({"type": "actions", "actions": [move_to("b-1", 0, 0)]}), &[])
        .refusal_of(Refused::NotAFigureOfTheUnit);
    assert_eq!(e, "b-1 is not a figure of a in play: only the active unit's figures act on its CP");
    let e = g
        .when_rolling(json!({"type": "actions", "actions": [move_to("a-1", 20, 61)]}), &[])
        .refusal_of(Refused::BeyondMove);
    assert_eq!(e, "a-1 cannot move from (20, 0) to (20, 61): that is 6.1\" and a standard move is 6.0\"");
    let g = g.decided(json!({"type": "actions", "actions": [move_to("a-1", 20, 60)]}));
    let e = g
        .when_rolling(json!({"type": "actions", "actions": [{"type": "hold", "figure": "a-1"}]}), &[])
        .refusal_of(Refused::OneActionPerCp);
    assert_eq!(e, "a-1 has already acted on CP 1: \"Each figure in the unit must perform his action before the unit's next CP can be expended\" — one action per figure per CP (still to act: a-2 and a-lead)");
    let g = g.decided(json!({"type": "actions", "actions": [{"type": "hold", "figure": "a-2"}, {"type": "hold", "figure": "a-lead"}]}));
    let e = g.when_rolling(json!({"type": "accumulate"}), &[]).refusal_of(Refused::ExpendAll);
    assert_eq!(e, "a has begun to spend its CP and may not accumulate: \"If a unit decides to expend CP by performing actions, all the unit's CP must be expended\" — spend the next CP or stop (its 1 CP left are lost)");
    let e = g.when_rolling(json!({"type": "pass"}), &[]).refusal_of(Refused::ExpendAll);
    assert!(e.starts_with("a has begun to spend its CP and may not pass"), "{e}");
}

#[test]
fn a_unit_without_cp_cannot_spend_one() {
    let g = activated(small(0, 0), "a");
    let e = g.when_rolling(json!({"type": "spend-cp"}), &[]).refusal_of(Refused::NoCp);
    assert_eq!(e, "a has no CP left to spend: \"Units can only perform actions by expending accumulated CP\"");
}

// --- Command checks -------------------------------------------------------

/// Militia (troop quality 2) under a leader of command rating 3: target 5.
fn militia() -> Value {
    let mut s = table(&[("alex", "ambush", 0, 3, 3, [0, 0]), ("jason", "j", 0, 3, 1, [0, 600])]);
    for f in ["ambush-lead", "ambush-1", "ambush-2"] {
        s = with_figure(s, f, "troop_quality", json!(2));
    }
    s
}

fn check_ambush(options: &[&str], dice: &[(&str, &[u32])]) -> Result<Vec<Fact>, String> {
    (given_with(militia(), options))
        .when_rolling(json!({"type": "command-check", "unit": "ambush", "reason": "test"}), dice)
        .result()
}

fn rolled(facts: &[Fact]) -> Vec<(String, Check)> {
    facts
        .iter()
        .filter_map(|f| match f {
            Fact::CommandChecked { figure, check, .. } => Some((figure.clone(), check.clone())),
            _ => None,
        })
        .collect()
}

/// "making a 0-9 roll and trying to get under the sum of the figure's Troop
/// Quality and the leader's Command Rating" — "Leaders are not required to
/// perform command checks on themselves."
#[test]
fn a_command_check_is_a_roll_under_troop_quality_plus_command_rating() {
    let facts = check_ambush(&[], &[("check:ambush-1", &[4]), ("check:ambush-2", &[5])]).unwrap();
    assert_eq!(
        rolled(&facts),
        [
            ("ambush-1".to_string(), Check::Rolled { roll: 4, target: 5, passed: true }),
            ("ambush-2".to_string(), Check::Rolled { roll: 5, target: 5, passed: false })
        ]
    );
    assert_eq!(told(&facts)[1], "Command check for ambush-2 (test): rolled 5 against a target of 5: fails.");
}

/// P1 option `command-check-equal-passes`: a roll equal to the target passes.
#[test]
fn under_the_option_a_roll_equal_to_the_target_passes() {
    let facts =
        check_ambush(&["command-check-equal-passes"], &[("check:ambush-1", &[5]), ("check:ambush-2", &[6])]).unwrap();
    assert_eq!(
        rolled(&facts),
        [
            ("ambush-1".to_string(), Check::Rolled { roll: 5, target: 5, passed: true }),
            ("ambush-2".to_string(), Check::Rolled { roll: 6, target: 5, passed: false })
        ]
    );
}

/// "Shaken troops suffer a penalty of –2 to their Command Check Target.
/// Panicked troops and Fanatical troops automatically fail command checks."
#[test]
fn shaken_troops_check_at_minus_two_and_panicked_or_fanatical_fail() {
    let scenario = with_figure(militia(), "ambush-1", "morale", json!("shaken"));
    let scenario = with_figure(scenario, "ambush-2", "morale", json!("panicked"));
    let g = given(scenario);
    let facts = g
        .when_rolling(json!({"type": "command-check", "unit": "ambush", "reason": "test"}), &[("check:ambush-1", &[2])])
        .facts();
    assert_eq!(
        rolled(&facts),
        [
            ("ambush-1".to_string(), Check::Rolled { roll: 2, target: 3, passed: true }),
            ("ambush-2".to_string(), Check::AutomaticFail { morale: Morale::Panicked })
        ]
    );
    assert_eq!(told(&facts)[1], "Command check for ambush-2 (test): Panicked troops fail automatically.");
    let scenario = with_figure(militia(), "ambush-1", "morale", json!("fanatical"));
    let facts = (given(scenario))
        .when_rolling(
            json!({"type": "command-check", "unit": "ambush", "figures": ["ambush-1"], "reason": "test"}),
            &[],
        )
        .facts();
    assert_eq!(rolled(&facts), [("ambush-1".to_string(), Check::AutomaticFail { morale: Morale::Fanatical })]);
}

#[test]
fn command_check_refusals() {
    let g = given(militia());
    let e = g
        .when_rolling(
            json!({"type": "command-check", "unit": "ambush", "figures": ["ambush-lead"], "reason": "test"}),
            &[],
        )
        .refusal_of(Refused::LeaderNotChecked);
    assert_eq!(e, "ambush-lead leads ambush: \"Leaders are not required to perform command checks on themselves.\"");
    let e = g
        .when_rolling(json!({"type": "command-check", "unit": "ambush", "figures": ["j-lead"], "reason": "test"}), &[])
        .refusal_of(Refused::NotAFigureOfTheUnit);
    assert_eq!(e, "j-lead is not a figure of ambush in play");
    let e = g
        .when_rolling(json!({"type": "command-check", "unit": "j", "reason": "test"}), &[])
        .refusal_of(Refused::NothingToCheck);
    assert_eq!(e, "j has no figure to check besides its leader j-lead");
    let e = g
        .when_rolling(json!({"type": "command-check", "unit": "ambush", "reason": "test"}), &[("check:ambush-1", &[1])])
        .refusal_of(Shared::Dice);
    assert_eq!(e, "the rules need d10 'check:ambush-2' #0, which the table did not roll (the die is unknown)");
    let e = g
        .when_rolling(
            json!({"type": "command-check", "unit": "ambush", "reason": "test"}),
            &[("check:ambush-1", &[1]), ("check:ambush-2", &[1]), ("check:ambush-lead", &[1])],
        )
        .refusal_of(Shared::Dice);
    assert_eq!(e, "the table rolled 1 more 'check:ambush-lead' die than the rules need");
}

// --- Breveting -----------------------------------------------------------

/// Militia of the breveting example: ratings 2 and 1.
pub(super) fn militia_units() -> Value {
    table(&[("alex", "m1", 2, 2, 3, [0, 0]), ("alex", "m2", 1, 1, 3, [300, 0]), ("jason", "j", 0, 3, 1, [0, 600])])
}

/// "If the leader of a unit is incapacitated or killed, the unit loses all
/// accumulated CP and has to appoint (“brevet”) a new leader immediately from
/// within its ranks." — "The new leader has a Command Rating one less than
/// his predecessor."
#[test]
fn a_unit_whose_leader_falls_loses_its_cp_and_brevets_at_once() {
    let g = in_operations(militia_units());
    let facts = g
        .when_rolling(json!({"type": "casualty", "figure": "m1-lead", "effect": "killed", "reason": "sniper"}), &[])
        .facts();
    assert_eq!(
        facts[1],
        Fact::LeaderLost {
            unit: "m1".into(),
            leader: "m1-lead".into(),
            cp_lost: 2,
            rating: 2,
            successor_rating: 1,
            succession: Succession::Brevet,
            organisations: vec!["m1".into()]
        }
    );
    let g = g.decided(json!({"type": "casualty", "figure": "m1-lead", "effect": "killed", "reason": "sniper"}));
    let e = g.when_rolling(json!({"type": "activate", "unit": "m2"}), &[]).refusal_of(Refused::BrevetDue);
    assert_eq!(e, "m1 must first brevet a new leader \"immediately from within its ranks\": choose one of m1-1, m1-2");
    let e = g
        .when_rolling(json!({"type": "brevet", "unit": "m1", "leader": "m2-1"}), &[])
        .refusal_of(Refused::BrevetFromRanks);
    assert_eq!(e, "m2-1 is not in m1's ranks: the new leader is appointed \"from within its ranks\" (m1-1 and m1-2)");
    let facts = g.when_rolling(json!({"type": "brevet", "unit": "m1", "leader": "m1-2"}), &[]).facts();
    assert_eq!(
        told(&facts),
        ["m1-2 is breveted leader of m1 with a command rating of 1; he must accumulate and spend 1 CP to take command, and until then the unit can only mount a ragged defence."]
    );
    let g = g.decided(json!({"type": "brevet", "unit": "m1", "leader": "m1-2"}));
    assert_eq!(g.state().figures["m1-2"].command_rating, Some(1));
    assert_eq!(g.state().organisations["m1"].leader.as_deref(), Some("m1-2"));
    let e =
        g.when_rolling(json!({"type": "brevet", "unit": "m1", "leader": "m1-1"}), &[]).refusal_of(Refused::NoBrevetDue);
    assert_eq!(e, "m1 has breveted m1-2 already: he must now take command (\"The new leader must accumulate and spend 1 CP to take command of the unit\")");
    let e =
        g.when_rolling(json!({"type": "brevet", "unit": "m2", "leader": "m2-1"}), &[]).refusal_of(Refused::NoBrevetDue);
    assert_eq!(e, "m2 owes no brevet: its leader has not fallen");
}

/// A leader who falls before the first turn begins: his unit "has to
/// appoint (“brevet”) a new leader immediately", so the game awaits his
/// side's brevet, not the referee's beginning of the turn (which the rules
/// refuse until the brevet is made).
#[test]
fn a_brevet_due_before_the_first_turn_is_awaited_from_its_side() {
    use crate::ruleset::{Actor, Ruleset};
    let g = given(militia_units())
        .decided(json!({"type": "casualty", "figure": "m1-lead", "effect": "killed", "reason": "sniper"}));
    assert_eq!(crate::rulesets::phoenix_command::PhoenixCommand::awaited(g.state()), Actor::side("alex"));
    g.when_rolling(json!({"type": "begin-turn"}), &[]).refusal_of(Refused::BrevetDue);
}

/// "If the new leader's command rating is less than 1, then the unit cannot
/// brevet a new leader and breaks." It acts no more, and breaks from the
/// battlefield at the next strategic movement.
#[test]
fn a_unit_that_cannot_brevet_breaks_and_leaves_the_battlefield() {
    let g = in_operations(militia_units());
    let facts = g
        .when_rolling(
            json!({"type": "casualty", "figure": "m2-lead", "effect": "incapacitated", "reason": "grenade"}),
            &[],
        )
        .facts();
    assert_eq!(
        told(&facts)[1..3],
        [
            "m2 loses its leader m2-lead and all its CP (1): a new leader would have a command rating of 0 (his predecessor's 1 less one), less than 1.",
            "m2 (alex) breaks: its leader m2-lead fell, and a new leader's command rating would be 0: \"If the new leader's command rating is less than 1, then the unit cannot brevet a new leader and breaks.\""
        ]
    );
    let g = g.decided(json!({"type": "casualty", "figure": "m2-lead", "effect": "incapacitated", "reason": "grenade"}));
    let e = g.when_rolling(json!({"type": "activate", "unit": "m2"}), &[]).refusal_of(Refused::BrokenTakesNoOrders);
    assert!(e.starts_with("m2 is broken and has no leader: it cannot act."), "{e}");
    // Not "m2 owes no brevet: its leader has not fallen": the reason is
    // that the unit broke.
    let e =
        g.when_rolling(json!({"type": "brevet", "unit": "m2", "leader": "m2-1"}), &[]).refusal_of(Refused::NoBrevetDue);
    assert_eq!(e, "m2 cannot brevet a new leader: its leader fell and his successor's command rating would have been below 1, so the unit broke (\"If the new leader's command rating is less than 1, then the unit cannot brevet a new leader and breaks.\")");
    let g = g.decided_all(&[
        json!({"type": "activate", "unit": "m1"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "j"}),
        json!({"type": "pass"}),
    ]);
    let facts = g.when_rolling(json!({"type": "begin-turn"}), &[]).facts();
    assert_eq!(
        told(&facts)[1],
        "m2 (alex) is still Broken: it breaks from the battlefield, and m2-1, m2-2 leave play."
    );
}

/// "The new leader must accumulate and spend 1 CP to take command of the
/// unit." — "While a unit is breveting a new leader, it may not perform other
/// actions" — "The next turn … the first unit's new leader accumulates 1 CP.
/// The following turn, he expends that CP to take command of the unit and is
/// then able to act normally."
#[test]
fn a_breveted_leader_accumulates_then_spends_a_cp_to_take_command() {
    let g = in_operations(militia_units())
        .decided(json!({"type": "casualty", "figure": "m1-lead", "effect": "killed", "reason": "sniper"}))
        .decided(json!({"type": "brevet", "unit": "m1", "leader": "m1-1"}))
        .decided(json!({"type": "activate", "unit": "m2"}))
        .decided(json!({"type": "pass"}))
        .decided(json!({"type": "activate", "unit": "m1"}));
    let e = g.when_rolling(json!({"type": "take-command"}), &[]).refusal_of(Refused::TakeCommandFirst);
    assert_eq!(e, "m1 has 0 CP: its new leader m1-1 must first accumulate 1 CP to take command (\"The new leader must accumulate and spend 1 CP to take command of the unit\")");
    let g = g.decided(json!({"type": "accumulate"})).decided_all(&[
        json!({"type": "activate", "unit": "j"}),
        json!({"type": "pass"}),
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "m1"}),
    ]);
    for d in [json!({"type": "spend-cp"}), json!({"type": "consolidate", "organisation": "m1"})] {
        let e = g.when_rolling(d, &[]).refusal_of(Refused::TakeCommandFirst);
        assert!(e.contains("its breveted leader m1-1 must first take command"), "{e}");
    }
    let facts = g.when_rolling(json!({"type": "take-command"}), &[]).facts();
    assert_eq!(
        facts[..2],
        [
            Fact::CpSpent { unit: "m1".into(), number: 1, cp: 1, on: Spend::TakeCommand, cp_left: 0 },
            Fact::TookCommand { unit: "m1".into(), leader: "m1-1".into() }
        ]
    );
    assert!(matches!(facts[2], Fact::ActivationEnded { .. }));
    let g = g.decided(json!({"type": "take-command"}));
    assert!(!g.state().units["m1"].taking_command);
}

/// A leader who falls while his unit acts ends its activation there.
#[test]
fn a_leader_falling_during_his_units_activation_ends_it() {
    let g = activated(small(2, 1), "a").decided(json!({"type": "spend-cp"}));
    let facts = g
        .when_rolling(json!({"type": "casualty", "figure": "a-lead", "effect": "killed", "reason": "booby trap"}), &[])
        .facts();
    assert_eq!(
        told(&facts)[1..],
        [
            "a loses its leader a-lead and all its CP (1): it must brevet a new leader now, with a command rating of 3 (his predecessor's 4 less one).",
            "a's activation ends. Next: alex with 1 CP: b."
        ]
    );
}

#[test]
fn a_unit_with_no_figure_left_is_eliminated() {
    let g = in_operations(small(1, 1));
    let facts = g
        .when_rolling(json!({"type": "casualty", "figure": "j-lead", "effect": "killed", "reason": "grenade"}), &[])
        .facts();
    assert_eq!(
        told(&facts)[1..3],
        [
            "j loses its leader j-lead and all its CP (0): nobody is left to lead it.",
            "j (jason) has no figure left in play: it is eliminated."
        ]
    );
    let g = g.decided(json!({"type": "casualty", "figure": "j-lead", "effect": "killed", "reason": "grenade"}));
    let e = g
        .when_rolling(json!({"type": "casualty", "figure": "j-lead", "effect": "killed", "reason": "again"}), &[])
        .refusal_of(Shared::OutOfPlay);
    assert_eq!(e, "j-lead is already out of play (killed: grenade)");
    let e = g
        .when_rolling(json!({"type": "command-check", "unit": "j", "reason": "test"}), &[])
        .refusal_of(Shared::OutOfPlay);
    assert_eq!(e, "j is not a unit on the battlefield: it has no figures left in play");
}

// --- Command distance ------------------------------------------------------

/// "A figure which ending his turn outside of his leader's command distance
/// is a Straggler. … Under the basic rules, Stragglers are removed from play
/// in the turn they become stragglers." Inclusive: 6" exactly is within.
#[test]
fn figures_ending_their_turn_beyond_command_distance_are_removed() {
    let g = activated(small(1, 1), "a").decided(json!({"type": "spend-cp"}));
    let facts = g.when_rolling(json!({"type": "actions", "actions": [move_to("a-lead", 0, -40), move_to("a-1", 20, 17), move_to("a-2", 36, 0)]}), &[]).facts();
    // a-1 ends at (20, 17): 5.7" x 6.0"… from (0, -40): sqrt(20² + 57²) = 60.4 → beyond.
    // a-2 at (36, 0): sqrt(36² + 40²) = 53.8 → within.
    let stragglers: Vec<&Fact> = facts.iter().filter(|f| matches!(f, Fact::StragglerRemoved { .. })).collect();
    assert_eq!(
        stragglers,
        [&Fact::StragglerRemoved {
            figure: "a-1".into(),
            unit: "a".into(),
            leader: "a-lead".into(),
            distance_tenths: 61,
            command_distance_tenths: 60,
            organisations: vec![]
        }]
    );
    assert_eq!(
        told(&facts)[4],
        "a-1 ends a's turn 6.1\" from his leader a-lead, beyond the command distance of 6.0\": a straggler, removed from play."
    );
}

#[test]
fn a_figure_exactly_at_the_command_distance_is_no_straggler() {
    let g = activated(small(1, 1), "a").decided(json!({"type": "spend-cp"}));
    let facts = g.when_rolling(json!({"type": "actions", "actions": [move_to("a-lead", 0, 0), move_to("a-1", 36, 48), move_to("a-2", 60, 0)]}), &[]).facts();
    assert!(!facts.iter().any(|f| matches!(f, Fact::StragglerRemoved { .. })));
}

/// Heroes "do not have to be within command distance of any other unit".
#[test]
fn heroes_are_units_of_one_exempt_from_command_distance() {
    let scenario = json!({
        "sides": ["alex", "jason"],
        "initiative": "alex",
        "command_distance_tenths": 60,
        "organisations": [
            {"id": "rambo", "side": "alex", "kind": "hero", "leader": "john"},
            {"id": "j", "side": "jason", "kind": "fire team", "leader": "j-lead"}
        ],
        "units": [{"organisation": "rambo", "cp": 2}, {"organisation": "j"}],
        "figures": [
            {"id": "john", "team": "rambo", "troop_quality": 5, "command_rating": 3, "at": [0, 0]},
            {"id": "j-lead", "team": "j", "troop_quality": 3, "command_rating": 3, "at": [0, 600]}
        ]
    });
    let g = activated(scenario, "rambo").decided(json!({"type": "spend-cp"}));
    assert!(g.state().units["rambo"].hero);
    let facts = g.when_rolling(json!({"type": "actions", "actions": [move_to("john", 0, 60)]}), &[]).facts();
    assert!(!facts.iter().any(|f| matches!(f, Fact::StragglerRemoved { .. })));
    let e = g
        .when_rolling(json!({"type": "command-check", "unit": "rambo", "reason": "test"}), &[])
        .refusal_of(Refused::NothingToCheck);
    assert_eq!(e, "rambo has no figure to check besides its leader john");
}

/// The straggler check after strategic movement, the unit's turn for that turn (P12).
#[test]
fn strategic_movement_can_leave_stragglers() {
    let g = given(small(1, 1)).decided(json!({"type": "begin-turn"}));
    let facts =
        g.when_rolling(json!({"type": "strategic-move", "unit": "b", "moves": {"b-lead": [300, 300]}}), &[]).facts();
    assert!(matches!(
        facts.last(),
        Some(Fact::StragglerRemoved { figure, distance_tenths: 301, .. }) if figure == "b-1"
    ));
}

/// A Shaken breveted leader composes himself before he takes command: "the
/// leader must expend 1 CP composing himself before he can expend any
/// further CP".
#[test]
fn a_shaken_new_leader_composes_himself_before_taking_command() {
    let s = with_figure(militia_units(), "m1-1", "morale", json!("shaken"));
    let g = in_operations(s)
        .decided(json!({"type": "casualty", "figure": "m1-lead", "effect": "killed", "reason": "sniper"}))
        .decided(json!({"type": "brevet", "unit": "m1", "leader": "m1-1"}))
        .decided_all(&[
            json!({"type": "activate", "unit": "m2"}),
            json!({"type": "pass"}),
            json!({"type": "activate", "unit": "m1"}),
            json!({"type": "accumulate"}),
            json!({"type": "activate", "unit": "j"}),
            json!({"type": "pass"}),
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "m1"}),
        ]);
    let e = g.when_rolling(json!({"type": "take-command"}), &[]).refusal_of(Refused::LeaderComposesFirst);
    assert_eq!(e, "m1's leader m1-1 is Shaken: \"the leader must expend 1 CP composing himself before he can expend any further CP\" (self-rally)");
}

/// N53: "While a unit is breveting a new leader, it may
/// not perform other actions" — morale orders were accepted, spending the CP
/// its new leader needs to take command. Only taking command (and a Shaken
/// new leader's composing himself first, N32) is allowed.
#[test]
fn a_breveting_unit_spends_its_cp_on_nothing_but_taking_command() {
    let s =
        with_figure(with_figure(militia_units(), "m1-2", "morale", json!("shaken")), "m1-1", "morale", json!("shaken"));
    let g = in_operations(s)
        .decided(json!({"type": "casualty", "figure": "m1-lead", "effect": "killed", "reason": "sniper"}))
        .decided(json!({"type": "brevet", "unit": "m1", "leader": "m1-2"}))
        .decided_all(&[
            json!({"type": "activate", "unit": "m2"}),
            json!({"type": "pass"}),
            json!({"type": "activate", "unit": "m1"}),
            json!({"type": "accumulate"}),
            json!({"type": "activate", "unit": "j"}),
            json!({"type": "pass"}),
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "m1"}),
        ]);
    for (d, what) in [
        (json!({"type": "steady-unit"}), "steady a unit"),
        (json!({"type": "rally"}), "rally"),
        (json!({"type": "rally-panicked", "figure": "m1-1"}), "rally a panicked figure"),
        (json!({"type": "abandon"}), "abandon its Shaken figures"),
        (json!({"type": "forced-rally", "figure": "m1-1"}), "force a rally"),
    ] {
        let e = g.when_rolling(d, &[]).refusal_of(Refused::TakeCommandFirst);
        assert!(e.starts_with(&format!("m1 may not {what}: its breveted leader m1-2 must first take command")), "{e}");
    }
    // The new leader composes himself, then takes command.
    let e = g.when_rolling(json!({"type": "take-command"}), &[]).refusal_of(Refused::LeaderComposesFirst);
    assert!(e.contains("(self-rally)"), "{e}");
}
