//! 2.5 Interrupts: setting, lying in wait, premature fire, the ambushers'
//! one action, resolution, ragged interrupts, taking cover.

use serde_json::{json, Value};

use super::{given, given_under_version_1, given_with, table, told, with_figure, Given};
use crate::refusal::Shared;
use crate::rulesets::phoenix_command::{Fact, Posture, Refused};

/// alex: ambush (militia TQ 2, CR 3: ambush-lead, ambush-1, ambush-2) at
/// y = 0, CP 1 and, with `set`, a held interrupt CP; jason: patrol (CR 4,
/// 4 figures, 3 CP) 20" away. Rifles (3 shots, SDM 3), an injury table.
pub(super) fn ambush_scenario(set: bool, ambush_cp: u32) -> Value {
    let mut s = table(&[("alex", "ambush", ambush_cp, 3, 3, [0, 0]), ("jason", "patrol", 3, 4, 4, [0, 200])]);
    s["units"][0]["interrupt_set"] = json!(set);
    for f in s["figures"].as_array_mut().unwrap() {
        f["weapons"] = json!(["rifle"]);
        f["knockout_chance"] = json!(3);
        if f["team"] == "ambush" {
            f["troop_quality"] = json!(2);
        }
    }
    s["weapons"] = json!({"rifle": {"max_shots": 3, "pen": 20, "sdm": 3}});
    s["injury_table"] = json!([{"pen_over_pf": 0, "rows": [{"from": 5, "effect": "graze"}, {"from": 8, "effect": "light-wound"}, {"from": 11, "effect": "critical-wound"}]}]);
    s
}

/// Operations of turn 1, the patrol active and having spent its first CP.
pub(super) fn patrol_advancing(s: Value, options: &[&str]) -> Given {
    advance_the_patrol(given_with(s, options))
}

/// From the start of the game: the patrol active, its first CP spent.
fn advance_the_patrol(g: Given) -> Given {
    g.decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "patrol"}),
        json!({"type": "spend-cp"}),
        json!({"type": "actions", "actions": [
            {"type": "move", "figure": "patrol-lead", "to": [0, 150]},
            {"type": "move", "figure": "patrol-1", "to": [20, 150]},
            {"type": "move", "figure": "patrol-2", "to": [40, 150]},
            {"type": "move", "figure": "patrol-3", "to": [60, 150]}
        ]}),
    ])
}

fn sighted() -> Value {
    json!({"type": "sighted", "target": "patrol", "by": "ambush"})
}

pub(super) fn rifle(figure: &str, target: &str, mode: &str, line: Option<u32>, odds: i64) -> Value {
    let mut f = json!({"figure": figure, "weapon": "rifle", "target": target, "mode": mode, "odds": odds});
    if let Some(l) = line {
        f["line"] = json!(l);
    }
    f
}

fn checks(facts: &[Fact]) -> Vec<(String, bool)> {
    facts
        .iter()
        .filter_map(|f| match f {
            Fact::CommandChecked { figure, check, .. } => Some((figure.clone(), check.passed())),
            _ => None,
        })
        .collect()
}

/// "A unit (ambushers) sets an interrupt by expending 1 CP. Once the
/// interrupt is set, the unit ends its turn and holds the CP" — and keeps the
/// CP it accumulated besides.
#[test]
fn setting_an_interrupt_holds_a_cp_and_ends_the_turn() {
    let s = table(&[("alex", "a", 3, 3, 2, [0, 0]), ("jason", "j", 0, 3, 1, [0, 300])]);
    let g = given_with(s, &[]).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "a"}),
    ]);
    let facts = g.when_rolling(json!({"type": "set-interrupt"}), &[]).facts();
    assert_eq!(
        told(&facts)[..3],
        [
            "a spends 1 CP to set an interrupt and holds it in reserve (2 CP left).",
            "a (alex) sets an interrupt: one CP held in reserve, 2 CP accumulated besides; its turn ends.",
            "a's activation ends. Next: jason with 0 CP: j."
        ]
    );
    let g = g.decided(json!({"type": "set-interrupt"}));
    assert_eq!((g.state().units["a"].cp, g.state().units["a"].held_interrupt_cp), (2, 1));
}

/// "it may not accumulate more CP (including the reserve CP for the
/// interrupt) than the leader's Command Rating"; a unit holds one.
#[test]
fn a_held_interrupt_cp_counts_towards_the_cap() {
    let g = given_with(ambush_scenario(true, 2), &[]).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "patrol"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "ambush"}),
    ]);
    let facts = g.when_rolling(json!({"type": "accumulate"}), &[]).facts();
    assert!(matches!(facts[0], Fact::CpAccumulated { cp_before: 2, cp_after: 2, held: 1, cap: 3, .. }));
    let e = g.when_rolling(json!({"type": "set-interrupt"}), &[]).refusal_of(Refused::InterruptHeld);
    assert_eq!(e, "ambush already holds a CP for an interrupt");
}

/// The checks on entering LOS (P7 default): "as soon as Jason's unit enters
/// Alex's team's line of sight, rolling a 3 and 0" — leaders make none.
#[test]
fn entering_line_of_sight_calls_for_command_checks() {
    let g = patrol_advancing(ambush_scenario(true, 0), &[]);
    let facts = g.when_rolling(sighted(), &[("check:ambush-1", &[3]), ("check:ambush-2", &[0])]).facts();
    assert_eq!(
        told(&facts)[0],
        "patrol enters ambush's line of sight (referee): ambush lies in wait, with its held CP."
    );
    assert_eq!(checks(&facts), [("ambush-1".into(), true), ("ambush-2".into(), true)]);
    // P7 option: no checks on entering LOS.
    let g = patrol_advancing(ambush_scenario(true, 0), &["no-check-on-entering-los"]);
    let facts = g.when_rolling(sighted(), &[]).facts();
    assert!(checks(&facts).is_empty());
}

/// "Each CP the target spends after entering the ambusher's LOS requires a
/// Command Check … A failed roll means that the figures that failed perform
/// ragged fire on the target before the target begins its action."
#[test]
fn a_failed_check_before_the_targets_next_cp_blows_the_ambush() {
    let g = patrol_advancing(ambush_scenario(true, 0), &[])
        .decided_rolling(sighted(), &[("check:ambush-1", &[3]), ("check:ambush-2", &[0])]);
    let facts =
        g.when_rolling(json!({"type": "spend-cp"}), &[("check:ambush-1", &[6]), ("check:ambush-2", &[4])]).facts();
    assert_eq!(
        told(&facts).last().unwrap(),
        "ambush's ambush is blown: ambush-1 open ragged fire on patrol before it acts."
    );
    let g = g.decided_rolling(json!({"type": "spend-cp"}), &[("check:ambush-1", &[6]), ("check:ambush-2", &[4])]);
    let e = g
        .when_rolling(json!({"type": "actions", "actions": [{"type": "hold", "figure": "patrol-1"}]}), &[])
        .refusal_of(Refused::AmbushBlown);
    assert_eq!(e, "ambush's ambush is blown: ambush-1 must fire ragged at patrol before anything else (\"This weapons fire is resolved before Jason's unit begins performing their actions on the current CP\")");
    let e = g
        .when_rolling(
            json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-1", "patrol-1", "aimed", Some(1), 5)]}),
            &[],
        )
        .refusal_of(Refused::FailedCheckFiresRagged);
    assert!(e.starts_with("ambush-1 failed his command check and fires ragged at once"), "{e}");
    let e = g.when_rolling(json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-1", "patrol-1", "ragged", None, 5), rifle("ambush-lead", "patrol-1", "disciplined", Some(1), 5), rifle("ambush-2", "patrol-2", "aimed", Some(3), 5)]}), &[]).refusal_of(Refused::SameAction);
    assert_eq!(
        e,
        "\"The entire unit must perform the same action\": ambush-lead fires disciplined fire but ambush-2 aimed fire"
    );
}

/// "If an ambusher's actions are sufficient to cause the morale of the unit
/// to become Shaken, then the interrupt is successful. The target unit loses
/// its entire remaining CP and ceases its turn."
#[test]
fn an_interrupt_that_shakes_the_target_ends_its_turn() {
    let g = patrol_advancing(ambush_scenario(true, 0), &["no-check-on-entering-los"]).decided(sighted());
    // Two grazes: 2 of 4 Shaken, a majority rounded up (P3).
    let facts = g.when_rolling(json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "disciplined", Some(1), 5), rifle("ambush-1", "patrol-2", "disciplined", Some(1), 5)], "no_line_of_sight": ["ambush-2"]}), &[
            ("hit:ambush-lead", &[0, 9]),
            ("hit:ambush-1", &[0, 9]),
            ("injury:patrol-1", &[2]),
            ("injury:patrol-2", &[2]),
        ]).facts();
    let lines = told(&facts);
    assert!(
        lines.contains(
            &"ambush interrupts patrol: ambush-lead, ambush-1 join with disciplined fire; ambush-2 cannot see the target and holds; the held CP is spent."
                .to_string()
        ),
        "{lines:?}"
    );
    assert!(lines.contains(&"ambush's interrupt succeeds (the ambushers' fire has made patrol Shaken): patrol loses its 2 remaining CP and ceases its turn. It may take cover; its turn is over.".to_string()), "{lines:?}");
    let g = g.decided_rolling(
        json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "disciplined", Some(1), 5), rifle("ambush-1", "patrol-2", "disciplined", Some(1), 5)], "no_line_of_sight": ["ambush-2"]}),
        &[("hit:ambush-lead", &[0, 9]), ("hit:ambush-1", &[0, 9]), ("injury:patrol-1", &[2]), ("injury:patrol-2", &[2])],
    );
    assert_eq!(g.state().units["ambush"].held_interrupt_cp, 0);
    let e = g.when_rolling(json!({"type": "spend-cp"}), &[]).refusal_of(Refused::Interrupted);
    assert_eq!(e, "patrol has been successfully interrupted by ambush: it \"must cease performing actions and end their turn\" — take cover, or stop");
}

/// "A failed interrupt means that the target unit is able to continue to
/// perform actions normally."
#[test]
fn an_interrupt_that_does_not_shake_the_target_fails() {
    let g = patrol_advancing(ambush_scenario(true, 0), &["no-check-on-entering-los"]).decided(sighted());
    let facts = g.when_rolling(json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "aimed", Some(1), 5)], "no_line_of_sight": ["ambush-1", "ambush-2"]}), &[("hit:ambush-lead", &[9])]).facts();
    assert_eq!(
        told(&facts).last().unwrap(),
        "ambush's interrupt fails: patrol is not Shaken: \"A failed interrupt means that the target unit is able to continue to perform actions normally.\""
    );
    let g = g.decided_rolling(
        json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "aimed", Some(1), 5)], "no_line_of_sight": ["ambush-1", "ambush-2"]}),
        &[("hit:ambush-lead", &[9])],
    );
    g.when_rolling(json!({"type": "spend-cp"}), &[]).facts();
}

/// "An interrupt is automatically successful against units that were already
/// Shaken before the interrupt occurred."
#[test]
fn an_interrupt_on_a_shaken_unit_succeeds_automatically() {
    let s = with_figure(ambush_scenario(true, 0), "patrol-1", "morale", json!("shaken"));
    let s = with_figure(s, "patrol-2", "morale", json!("shaken"));
    let g = given_with(s, &["no-check-on-entering-los"])
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "patrol"}),
            json!({"type": "steady-unit"}),
        ])
        .decided(sighted());
    assert!(g.state().units["patrol"].restored);
    let facts = g.when_rolling(json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-3", "aimed", Some(1), 5)], "no_line_of_sight": ["ambush-1", "ambush-2"]}), &[("hit:ambush-lead", &[9])]).facts();
    assert!(matches!(facts.last(), Some(Fact::InterruptResolved { success: false, .. })));
    // Shaken when the fire began: success whatever the fire did.
    let s = with_figure(ambush_scenario(true, 0), "patrol-1", "morale", json!("shaken"));
    let s = with_figure(s, "patrol-2", "morale", json!("shaken"));
    let g = given_with(s, &["no-check-on-entering-los"])
        .decided_all(&[json!({"type": "begin-turn"})])
        .decided(json!({"type": "sighted", "target": "patrol", "by": "ambush"}));
    let facts = g.when_rolling(json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-3", "aimed", Some(1), 5)], "no_line_of_sight": ["ambush-1", "ambush-2"]}), &[("hit:ambush-lead", &[9])]).facts();
    assert!(told(&facts).last().unwrap().contains("patrol was already Shaken"));
}

/// "Often, a unit will not have any CP in reserve … they may still attempt an
/// interrupt … a unit performing a Ragged Interrupt can only perform ragged
/// fire. A unit can only attempt one Ragged Interrupt in a turn."
#[test]
fn a_ragged_interrupt_fires_ragged_once_a_turn() {
    let g = patrol_advancing(ambush_scenario(false, 0), &["no-check-on-entering-los"]);
    let facts = g.when_rolling(sighted(), &[]).facts();
    assert_eq!(
        told(&facts)[0],
        "patrol enters ambush's line of sight (referee): ambush lies in wait, for a ragged interrupt."
    );
    let g = g.decided(sighted());
    let e = g.when_rolling(json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "disciplined", Some(1), 5)], "no_line_of_sight": ["ambush-1", "ambush-2"]}), &[]).refusal_of(Refused::RaggedInterruptRaggedFire);
    assert_eq!(
        e,
        "ambush holds no CP for an interrupt: \"a unit performing a Ragged Interrupt can only perform ragged fire\""
    );
    let g = g.decided_rolling(
        json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "ragged", None, 5)], "no_line_of_sight": ["ambush-1", "ambush-2"]}),
        &[("hit:ambush-lead", &[9, 9, 9])],
    );
    let e = g.when_rolling(sighted(), &[]).refusal_of(Refused::RaggedInterruptOnce);
    assert_eq!(e, "ambush holds no CP for an interrupt and has already attempted its ragged interrupt this turn: \"A unit can only attempt one Ragged Interrupt in a turn.\"");
}

#[test]
fn interrupt_refusals() {
    let g = patrol_advancing(ambush_scenario(true, 0), &["no-check-on-entering-los"]);
    let e = g.when_rolling(json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "aimed", Some(1), 5)]}), &[]).refusal_of(Refused::NotLyingInWait);
    assert_eq!(
        e,
        "ambush is not lying in wait for any unit: an interrupt fires at a unit that has entered its line of sight"
    );
    let e = g
        .when_rolling(json!({"type": "sighted", "target": "patrol", "by": "patrol"}), &[])
        .refusal_of(Shared::NotAnEnemy);
    assert_eq!(e, "patrol and patrol are both jason's: an ambush lies in wait for the enemy");
    let g = g.decided(sighted());
    let e = g.when_rolling(sighted(), &[]).refusal_of(Shared::NoChange);
    assert_eq!(e, "ambush already lies in wait for patrol");
    let e = g.when_rolling(json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "ambush-1", "aimed", Some(1), 5)]}), &[]).refusal_of(Refused::NotTheAmbushedUnit);
    assert_eq!(e, "ambush-1 is not in patrol: the ambushers fire at the unit they lay in wait for");
}

/// "Each figure can move up to 3" towards the nearest cover, but they cannot
/// advance towards an enemy to do so. If there is no cover within the 3"
/// limit, then the figures go prone. The unit should be checked for any
/// Stragglers after they have taken cover".
#[test]
fn an_interrupted_unit_takes_cover_then_its_turn_ends() {
    let g = patrol_advancing(ambush_scenario(true, 0), &["no-check-on-entering-los"])
        .decided(sighted())
        .decided_rolling(
            json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "disciplined", Some(1), 5), rifle("ambush-1", "patrol-2", "disciplined", Some(1), 5)], "no_line_of_sight": ["ambush-2"]}),
            &[("hit:ambush-lead", &[0, 9]), ("hit:ambush-1", &[0, 9]), ("injury:patrol-1", &[2]), ("injury:patrol-2", &[2])],
        );
    let e = g
        .when_rolling(json!({"type": "take-cover", "moves": {"patrol-1": [20, 181]}}), &[])
        .refusal_of(Refused::BeyondMove);
    assert_eq!(e, "patrol-1 cannot take cover at (20, 181): that is 3.1\" away, and \"Each figure can move up to 3\" towards the nearest cover\"");
    let e = g
        .when_rolling(json!({"type": "take-cover", "moves": {"patrol-1": [20, 130]}}), &[])
        .refusal_of(Refused::TowardsEnemy);
    assert_eq!(e, "patrol-1 would move towards ambush-1 of ambush: \"they cannot advance towards an enemy to do so\"");
    let facts = g
        .when_rolling(json!({"type": "take-cover", "moves": {"patrol-1": [20, 180], "patrol-lead": [0, 170]}}), &[])
        .facts();
    assert!(told(&facts)
        .contains(&"patrol takes cover: patrol-1, patrol-lead in cover; patrol-2, patrol-3 prone.".to_string()));
    assert!(matches!(facts.last(), Some(Fact::ActivationEnded { .. }) | Some(Fact::TurnEnded { .. })));
    let g = g.decided(json!({"type": "take-cover", "moves": {"patrol-1": [20, 180], "patrol-lead": [0, 170]}}));
    assert_eq!(g.state().figures["patrol-2"].posture, Posture::Prone);
    assert_eq!(g.state().figures["patrol-1"].posture, Posture::InCover);
    let g2 = patrol_advancing(ambush_scenario(true, 0), &[]);
    let e = g2.when_rolling(json!({"type": "take-cover"}), &[]).refusal_of(Refused::NotInterrupted);
    assert!(e.starts_with("patrol has not been successfully interrupted"), "{e}");
}

/// The ambush scenario with a second alex unit, flank, behind the patrol at
/// (0, 400): the patrol is between two enemies.
fn with_flank(mut s: Value) -> Value {
    s["organisations"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "flank", "side": "alex", "kind": "fire team", "leader": "flank-lead"}));
    s["units"].as_array_mut().unwrap().push(json!({"organisation": "flank", "cp": 0}));
    s["figures"].as_array_mut().unwrap().push(json!({"id": "flank-lead", "team": "flank", "troop_quality": 3,
        "command_rating": 3, "at": [0, 400], "weapons": ["rifle"], "knockout_chance": 3}));
    s
}

/// The patrol, advancing, is ambushed and Shaken: it is successfully
/// interrupted.
fn interrupted(g: Given) -> Given {
    advance_the_patrol(g).decided(sighted()).decided_rolling(
        json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "disciplined", Some(1), 5), rifle("ambush-1", "patrol-2", "disciplined", Some(1), 5)], "no_line_of_sight": ["ambush-2"]}),
        &[("hit:ambush-lead", &[0, 9]), ("hit:ambush-1", &[0, 9]), ("injury:patrol-1", &[2]), ("injury:patrol-2", &[2])],
    )
}

/// N23: "Each figure can move up to 3" towards the nearest cover, but they
/// cannot advance towards an enemy to do so." An enemy: any. A figure of the
/// patrol, ambushed from the front, took cover 3" back towards another enemy
/// unit behind it, and only a move towards the ambushers was refused.
#[test]
fn taking_cover_may_not_advance_towards_any_enemy() {
    let g = interrupted(given_with(with_flank(ambush_scenario(true, 0)), &["no-check-on-entering-los"]));
    let back = json!({"type": "take-cover", "moves": {"patrol-1": [20, 180]}});
    let e = g.when_rolling(back, &[]).refusal_of(Refused::TowardsEnemy);
    assert_eq!(e, "patrol-1 would move towards flank-lead of flank: \"they cannot advance towards an enemy to do so\"");
    let aside = json!({"type": "take-cover", "moves": {"patrol-1": [40, 150]}});
    let e = g.when_rolling(aside, &[]).refusal_of(Refused::TowardsEnemy);
    assert!(e.starts_with("patrol-1 would move towards ambush-"), "{e}");
    // Sideways, away from every enemy: patrol-3, at the end of the line.
    g.when_rolling(json!({"type": "take-cover", "moves": {"patrol-3": [85, 150]}}), &[]).facts();
}

/// N23, option `take-cover-away-from-interrupters-only` (version 1's
/// reading): only the ambushers count as the enemy the figure may not
/// advance towards.
#[test]
fn option_take_cover_away_from_interrupters_only() {
    let scenario = || with_flank(ambush_scenario(true, 0));
    let back = json!({"type": "take-cover", "moves": {"patrol-1": [20, 180]}});
    let option =
        interrupted(given_with(scenario(), &["no-check-on-entering-los", "take-cover-away-from-interrupters-only"]));
    option.when_rolling(back.clone(), &[]).facts();
    // Version 1 checks on entering the line of sight: both ambushers hold.
    let under_version_1 = advance_the_patrol(given_under_version_1(scenario()))
        .decided_rolling(sighted(), &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])])
        .decided_rolling(
            json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "disciplined", Some(1), 5), rifle("ambush-1", "patrol-2", "disciplined", Some(1), 5)], "no_line_of_sight": ["ambush-2"]}),
            &[("hit:ambush-lead", &[0, 9]), ("hit:ambush-1", &[0, 9]), ("injury:patrol-1", &[2]), ("injury:patrol-2", &[2])],
        );
    under_version_1.when_rolling(back, &[]).facts();
}

/// Without an injury table the interrupt waits for the referee's effects.
#[test]
fn resolution_waits_for_the_referees_injury_effects() {
    let mut s = ambush_scenario(true, 0);
    s["injury_table"] = Value::Null;
    let g = patrol_advancing(s, &["no-check-on-entering-los"])
        .decided(sighted())
        .decided_rolling(
            json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "disciplined", Some(1), 5), rifle("ambush-1", "patrol-2", "disciplined", Some(1), 5)], "no_line_of_sight": ["ambush-2"]}),
            &[("hit:ambush-lead", &[0, 9]), ("hit:ambush-1", &[0, 9]), ("injury:patrol-1", &[2]), ("injury:patrol-2", &[2])],
        )
        .decided(json!({"type": "injury", "target": "patrol-1", "effect": "graze"}));
    assert!(!g.state().turn.as_ref().unwrap().ambushes.is_empty());
    let facts = g.when_rolling(json!({"type": "injury", "target": "patrol-2", "effect": "graze"}), &[]).facts();
    assert!(facts.iter().any(|f| matches!(f, Fact::InterruptResolved { success: true, .. })));
}

/// Regression (found building the five-turn game): when the ambushers' fire
/// took the active target's leader, its activation — and the turn — ended
/// in the middle of the volley, and the interrupt was resolved after the
/// turn was over. The volley is now fired out and the interrupt resolved
/// before the target's turn ends.
#[test]
fn a_leader_falling_under_interrupt_fire_does_not_cut_the_volley_short() {
    let g = patrol_advancing(ambush_scenario(true, 0), &["no-check-on-entering-los"]).decided(sighted());
    let facts = g.when_rolling(json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-lead", "aimed", Some(1), 5), rifle("ambush-1", "patrol-1", "aimed", Some(1), 5)], "no_line_of_sight": ["ambush-2"]}), &[("hit:ambush-lead", &[0]), ("injury:patrol-lead", &[9]), ("hit:ambush-1", &[0]), ("injury:patrol-1", &[2])]).facts();
    let position = |p: fn(&Fact) -> bool| facts.iter().position(p).expect("present");
    let second_volley = position(|f| matches!(f, Fact::Fired { figure, .. } if figure == "ambush-1"));
    let resolved = position(|f| matches!(f, Fact::InterruptResolved { .. }));
    assert!(!facts[..resolved].iter().any(|f| matches!(f, Fact::ActivationEnded { .. } | Fact::TurnEnded { .. })));
    assert!(second_volley < resolved);
    // 1 of 3 Shaken is not a majority: the interrupt fails, and the leaderless
    // patrol's activation ends with the resolution.
    assert!(matches!(facts[resolved], Fact::InterruptResolved { success: false, .. }));
    let ended = position(|f| matches!(f, Fact::ActivationEnded { unit, .. } if unit == "patrol"));
    assert!(ended > resolved);
}

/// Found by the random games (`properties_phoenix`, seed 1): a figure who
/// fails his hold-fire check but carries nothing he can fire cannot "perform
/// ragged fire on the target", so he does not blow the ambush — before, the
/// ambush was blown, he could never fire, and every decision was refused.
#[test]
fn a_nervous_figure_with_nothing_to_fire_does_not_blow_the_ambush() {
    let s = with_figure(ambush_scenario(true, 0), "ambush-1", "weapons", json!([]));
    let g = patrol_advancing(s.clone(), &[]);
    let facts = g.when_rolling(sighted(), &[("check:ambush-1", &[9]), ("check:ambush-2", &[0])]).facts();
    assert_eq!(checks(&facts), [("ambush-1".into(), false), ("ambush-2".into(), true)]);
    assert!(!facts.iter().any(|f| matches!(f, Fact::AmbushBlown { .. })), "{:?}", told(&facts));
    let g = g.decided_rolling(sighted(), &[("check:ambush-1", &[9]), ("check:ambush-2", &[0])]);
    g.when_rolling(json!({"type": "spend-cp"}), &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])]).facts();
    // Both fail: only the one with a rifle fires, and the interrupt is his alone.
    let g = patrol_advancing(s, &[]);
    let facts = g.when_rolling(sighted(), &[("check:ambush-1", &[9]), ("check:ambush-2", &[9])]).facts();
    assert_eq!(
        told(&facts).last().unwrap(),
        "ambush's ambush is blown: ambush-2 open ragged fire on patrol before it acts."
    );
    let g = g.decided_rolling(sighted(), &[("check:ambush-1", &[9]), ("check:ambush-2", &[9])]);
    let fire = json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-2", "patrol-1", "ragged", None, 0)]});
    g.when_rolling(fire, &[("hit:ambush-2", &[9, 9, 9])]).facts();
}

/// Found with the above: a nervous figure caught by another ambusher's blast
/// before his own unit fires leaves play; his ambush no longer holds up the
/// game (before, it waited for him to fire for ever).
#[test]
fn a_nervous_figure_who_leaves_play_no_longer_holds_up_the_game() {
    let mut s = table(&[
        ("alex", "amb-a", 0, 3, 2, [0, 0]),
        ("alex", "amb-b", 0, 3, 2, [200, 0]),
        ("jason", "patrol", 3, 4, 2, [0, 200]),
    ]);
    s["units"][0]["interrupt_set"] = json!(true);
    s["units"][1]["interrupt_set"] = json!(true);
    for f in s["figures"].as_array_mut().unwrap() {
        f["weapons"] = json!(["rifle"]);
    }
    s = with_figure(s, "amb-a-1", "weapons", json!(["m79"]));
    // amb-b-1 has crept up to 4" short of the patrol's leader.
    s = with_figure(s, "amb-b-1", "at", json!([0, 160]));
    s["weapons"] = json!({
        "rifle": {"max_shots": 3, "pen": 20, "sdm": 3},
        "m79": {"max_shots": 1, "one_shot_per_action": true, "pen": 30, "explosive": true, "sdm": 5,
                "blast": [{"within_tenths": 10, "effect": "critical-wound"}]}
    });
    let g = given_with(s, &[]).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "patrol"}),
    ]);
    let g = g
        .decided_rolling(json!({"type": "sighted", "target": "patrol", "by": "amb-a"}), &[("check:amb-a-1", &[0])])
        .decided_rolling(json!({"type": "sighted", "target": "patrol", "by": "amb-b"}), &[("check:amb-b-1", &[0])])
        .decided_rolling(json!({"type": "spend-cp"}), &[("check:amb-a-1", &[9]), ("check:amb-b-1", &[9])]);
    // amb-a-1's grenade misses and deviates 4" along -y, onto amb-b-1.
    let grenade = json!({"type": "interrupt", "by": "amb-a", "fire": [
        {"figure": "amb-a-1", "weapon": "m79", "target": "patrol-lead", "mode": "ragged", "odds": 2}
    ]});
    let facts = g.when_rolling(grenade.clone(), &[("hit:amb-a-1", &[9]), ("deviation:amb-a-1", &[5])]).facts();
    assert!(
        told(&facts).iter().any(|l| l.starts_with("amb-b-1 (amb-b, alex) is removed from play")),
        "{:?}",
        told(&facts)
    );
    let g = g.decided_rolling(grenade, &[("hit:amb-a-1", &[9]), ("deviation:amb-a-1", &[5])]);
    g.when_rolling(json!({"type": "actions", "actions": [{"type": "hold", "figure": "patrol-lead"}, {"type": "hold", "figure": "patrol-1"}]}), &[]).facts();
}

/// Found by the random games (`properties_phoenix`, seed 8005): an ambusher
/// lying in wait for the active unit was itself eliminated (by another
/// unit's interrupt); when the active unit spent its next CP, the hold-fire
/// checks looked for the ambusher's unit and the engine panicked. Its
/// ambush now lapses with it.
#[test]
fn an_ambush_lapses_when_its_ambushers_are_gone() {
    let mut s = table(&[
        ("alex", "amb", 0, 3, 1, [0, 0]),
        ("jason", "patrol", 3, 4, 2, [0, 200]),
        ("jason", "guard", 0, 3, 2, [100, 200]),
    ]);
    s["units"][0]["interrupt_set"] = json!(true);
    s["units"][2]["interrupt_set"] = json!(true);
    s = with_figure(s, "guard-1", "weapons", json!(["rifle"]));
    s["weapons"] = json!({"rifle": {"max_shots": 3, "pen": 20, "sdm": 3}});
    s["injury_table"] = json!([{"pen_over_pf": 0, "rows": [{"from": 0, "effect": "critical-wound"}]}]);
    let g = given_with(s, &[])
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "patrol"}),
            json!({"type": "sighted", "target": "patrol", "by": "amb"}),
        ])
        .decided_rolling(json!({"type": "sighted", "target": "amb", "by": "guard"}), &[("check:guard-1", &[0])]);
    let fire = json!({"type": "interrupt", "by": "guard", "fire": [rifle("guard-1", "amb-lead", "aimed", Some(1), 5)]});
    let facts = g.when_rolling(fire.clone(), &[("hit:guard-1", &[0]), ("injury:amb-lead", &[0])]).facts();
    assert!(told(&facts).contains(&"amb no longer lies in wait for patrol.".to_string()), "{:?}", told(&facts));
    let g = g.decided_rolling(fire, &[("hit:guard-1", &[0]), ("injury:amb-lead", &[0])]);
    g.when_rolling(json!({"type": "spend-cp"}), &[]).facts();
}

/// An ambusher caught by an earlier ambusher's blast in the same interrupt
/// does not fire from out of play: his order is void (N36), and no die is
/// rolled for it.
#[test]
fn an_ambushers_order_is_void_once_he_has_fallen() {
    let mut s = table(&[("alex", "amb", 0, 3, 2, [0, 0]), ("jason", "patrol", 3, 4, 2, [0, 200])]);
    s["units"][0]["interrupt_set"] = json!(true);
    s = with_figure(s, "amb-lead", "weapons", json!(["rifle"]));
    s = with_figure(s, "amb-1", "weapons", json!(["m79"]));
    // amb-lead has crept up to 4" short of the patrol's leader.
    s = with_figure(s, "amb-lead", "at", json!([0, 160]));
    s["weapons"] = json!({
        "rifle": {"max_shots": 3, "pen": 20, "sdm": 3},
        "m79": {"max_shots": 1, "one_shot_per_action": true, "pen": 30, "explosive": true, "sdm": 5,
                "blast": [{"within_tenths": 10, "effect": "critical-wound"}]}
    });
    let g = given_with(s, &[])
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "patrol"}),
        ])
        .decided_rolling(json!({"type": "sighted", "target": "patrol", "by": "amb"}), &[("check:amb-1", &[0])]);
    let fire = json!({"type": "interrupt", "by": "amb", "fire": [
        {"figure": "amb-1", "weapon": "m79", "target": "patrol-lead", "mode": "ragged", "odds": 2},
        rifle("amb-lead", "patrol-1", "ragged", None, 5)
    ]});
    // The grenade misses and deviates 4" along -y, onto amb-lead.
    let facts = g.when_rolling(fire, &[("hit:amb-1", &[9]), ("deviation:amb-1", &[5])]).facts();
    assert!(
        told(&facts).contains(&"amb-lead's fire is void: amb-lead is no longer in play.".to_string()),
        "{:?}",
        told(&facts)
    );
}

/// A figure who lags behind after his leader abandoned the Shaken (P6) and
/// is then panicked by interrupt fire on the same CP still sits it out:
/// he holds. (Before, the lag allowed only a hold and his panic forbade it:
/// the CP could never be completed.)
#[test]
fn a_lagging_figure_panicked_on_the_cp_holds() {
    let mut s = ambush_scenario(true, 0);
    s = with_figure(s, "patrol-lead", "at", json!([0, 200]));
    for i in 4..6 {
        s["figures"].as_array_mut().unwrap().push(json!({"id": format!("patrol-{i}"), "team": "patrol",
            "troop_quality": 3, "at": [20 * i, 200], "weapons": ["rifle"], "knockout_chance": 3}));
    }
    s = with_figure(s, "patrol-3", "morale", json!("shaken"));
    let g = given_with(s, &[])
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "patrol"}),
        ])
        .decided_rolling(
            json!({"type": "abandon"}),
            &[("check:patrol-1", &[9]), ("check:patrol-2", &[0]), ("check:patrol-4", &[0]), ("check:patrol-5", &[0])],
        )
        .decided_rolling(sighted(), &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])])
        .decided_rolling(json!({"type": "spend-cp"}), &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])])
        .decided_rolling(
            json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-1", "patrol-1", "aimed", Some(2), 5)], "no_line_of_sight": ["ambush-lead", "ambush-2"]}),
            &[("hit:ambush-1", &[0, 0]), ("injury:patrol-1", &[2, 2])],
        );
    assert_eq!(g.state().figures["patrol-1"].morale, crate::rulesets::phoenix_command::Morale::Panicked);
    assert!(g.state().figures["patrol-1"].lagging);
    g.when_rolling(json!({"type": "actions", "actions": [{"type": "hold", "figure": "patrol-1"}]}), &[]).facts();
}

/// Found by the random games (`properties_phoenix`, seed 35004): interrupt
/// fire removed the one figure of the active unit still to act on its CP,
/// and the interrupt failed; the CP stayed open with nobody left to act on
/// it, and every decision was refused. It is now complete once the
/// interrupt is resolved.
#[test]
fn a_cp_whose_last_figure_to_act_falls_under_interrupt_fire_is_complete() {
    let g = patrol_advancing(ambush_scenario(true, 0), &[])
        .decided_rolling(sighted(), &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])])
        .decided_rolling(json!({"type": "spend-cp"}), &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])])
        .decided(json!({"type": "actions", "actions": [
            {"type": "hold", "figure": "patrol-lead"}, {"type": "hold", "figure": "patrol-1"}, {"type": "hold", "figure": "patrol-2"}
        ]}));
    let fire = json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-1", "patrol-3", "aimed", Some(1), 5)], "no_line_of_sight": ["ambush-lead", "ambush-2"]});
    let facts = g.when_rolling(fire, &[("hit:ambush-1", &[0]), ("injury:patrol-3", &[9])]).facts();
    let told = told(&facts);
    assert!(told.iter().any(|l| l.starts_with("ambush's interrupt fails")), "{told:?}");
    assert!(facts.iter().any(|f| matches!(f, Fact::CpCompleted { number: 2, cp_left: 1, .. })), "{told:?}");
}

/// Found by the random games (`properties_phoenix`, seed 230006): two
/// ambushes were blown by the same CP's checks; the first's fire made the
/// target Shaken, so it could only take cover or stop — but the second's
/// nervous figures had to fire first, and their interrupt was refused
/// because the target had been interrupted. Their fire is compelled: it
/// comes before the target takes cover.
#[test]
fn a_second_blown_ambush_fires_before_the_interrupted_unit_takes_cover() {
    let mut s = table(&[
        ("alex", "amb-a", 0, 3, 2, [0, 0]),
        ("alex", "amb-b", 0, 3, 2, [100, 0]),
        ("jason", "patrol", 3, 4, 4, [0, 200]),
    ]);
    for f in s["figures"].as_array_mut().unwrap() {
        f["weapons"] = json!(["rifle"]);
        f["knockout_chance"] = json!(3);
    }
    s["weapons"] = json!({"rifle": {"max_shots": 3, "pen": 20, "sdm": 3}});
    s["injury_table"] = json!([{"pen_over_pf": 0, "rows": [{"from": 5, "effect": "graze"}]}]);
    let g = given_with(s, &[])
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "patrol"}),
        ])
        .decided_rolling(json!({"type": "sighted", "target": "patrol", "by": "amb-a"}), &[("check:amb-a-1", &[0])])
        .decided_rolling(json!({"type": "sighted", "target": "patrol", "by": "amb-b"}), &[("check:amb-b-1", &[0])])
        .decided_rolling(json!({"type": "spend-cp"}), &[("check:amb-a-1", &[9]), ("check:amb-b-1", &[9])])
        .decided_rolling(
            json!({"type": "interrupt", "by": "amb-a", "fire": [
                rifle("amb-a-1", "patrol-1", "ragged", None, 9), rifle("amb-a-lead", "patrol-2", "ragged", None, 9)
            ]}),
            &[
                ("hit:amb-a-1", &[0, 9, 9]),
                ("injury:patrol-1", &[2]),
                ("hit:amb-a-lead", &[0, 9, 9]),
                ("injury:patrol-2", &[2]),
            ],
        );
    assert_eq!(g.state().turn.as_ref().unwrap().activation.as_ref().unwrap().interrupted_by.as_deref(), Some("amb-a"));
    let e = g.when_rolling(json!({"type": "take-cover"}), &[]).refusal_of(Refused::AmbushBlown);
    assert!(e.starts_with("amb-b's ambush is blown: amb-b-1 must fire ragged"), "{e}");
    let fire = json!({"type": "interrupt", "by": "amb-b", "fire": [rifle("amb-b-1", "patrol-3", "ragged", None, 5)]});
    g.when_rolling(fire.clone(), &[("hit:amb-b-1", &[9, 9, 9])]).facts();
    let g = g.decided_rolling(fire, &[("hit:amb-b-1", &[9, 9, 9])]);
    g.when_rolling(json!({"type": "take-cover"}), &[]).facts();
}

/// The patrol (2 of 4 Shaken) is activated and restored to Bold for the
/// turn; ambush then sees it, and two more of its figures are grazed.
fn restored_patrol_grazed(options: &[&str]) -> Vec<Fact> {
    let s = with_figure(ambush_scenario(true, 0), "patrol-1", "morale", json!("shaken"));
    let s = with_figure(s, "patrol-2", "morale", json!("shaken"));
    let mut all = vec!["no-check-on-entering-los"];
    all.extend_from_slice(options);
    let g = given_with(s, &all)
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "patrol"}),
            json!({"type": "steady-unit"}),
        ])
        .decided(sighted());
    g.when_rolling(
        json!({"type": "interrupt", "by": "ambush", "fire": [
            rifle("ambush-lead", "patrol-3", "aimed", Some(1), 5), rifle("ambush-1", "patrol-lead", "aimed", Some(1), 5)
        ], "no_line_of_sight": ["ambush-2"]}),
        &[("hit:ambush-lead", &[0]), ("injury:patrol-3", &[2]), ("hit:ambush-1", &[0]), ("injury:patrol-lead", &[2])],
    )
    .facts()
}

/// N52: a unit restored to Bold "for the turn" is not immune to every
/// later morale change, so an ambush that grazes the rest of it does not
/// fail as "patrol is not Shaken". The restoring answered the Shaken of that
/// moment; figures grazed since make the unit Shaken again ("If an
/// ambusher's actions are sufficient to cause the morale of the unit to
/// become Shaken, then the interrupt is successful"). Option
/// `restored-unit-stays-bold-for-the-turn`: it stays Bold.
#[test]
fn a_restored_unit_shaken_again_by_new_casualties_is_successfully_interrupted() {
    let facts = restored_patrol_grazed(&[]);
    assert!(facts.iter().any(|f| matches!(f, Fact::UnitShaken { unit, shaken: 4, of: 4, .. } if unit == "patrol")));
    assert!(matches!(facts.last(), Some(Fact::InterruptResolved { success: true, .. })), "{:?}", told(&facts));
    let facts = restored_patrol_grazed(&["restored-unit-stays-bold-for-the-turn"]);
    assert!(!facts.iter().any(|f| matches!(f, Fact::UnitShaken { .. })));
    assert!(matches!(facts.last(), Some(Fact::InterruptResolved { success: false, .. })), "{:?}", told(&facts));
}

/// N54: "The entire unit must perform the same action" is checked over the
/// whole unit, not only among the figures who fire (else one of three
/// ambushers could fire while the held CP is spent). Once the unit joins in, every figure who
/// can fire fires, in one mode; one who cannot see the target (the referee
/// says so) holds.
#[test]
fn the_whole_ambush_performs_the_one_action() {
    let g = patrol_advancing(ambush_scenario(true, 0), &["no-check-on-entering-los"]).decided(sighted());
    let alone =
        json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "aimed", Some(1), 5)]});
    let e = g.when_rolling(alone, &[]).refusal_of(Refused::SameAction);
    assert_eq!(e, "\"The entire unit must perform the same action\": ambush-1 and ambush-2 of ambush would neither fire with ambush-lead nor hold for want of a line of sight (no_line_of_sight)");
    let blind = json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "aimed", Some(1), 5)],
        "no_line_of_sight": ["ambush-1", "ambush-2"]});
    let facts = g.when_rolling(blind, &[("hit:ambush-lead", &[9])]).facts();
    assert_eq!(
        told(&facts)[0],
        "ambush interrupts patrol: ambush-lead joins with aimed fire; ambush-1, ambush-2 cannot see the target and hold; the held CP is spent."
    );
    let wrong = json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-lead", "patrol-1", "aimed", Some(1), 5)],
        "no_line_of_sight": ["ambush-lead", "ambush-1", "ambush-2"]});
    let e = g.when_rolling(wrong, &[]).refusal_of(Refused::NotAFigureOfTheUnit);
    assert!(e.starts_with("ambush-lead is not a figure of ambush left out of its fire"), "{e}");
    // With a blown ambush: the nervous fire ragged and the rest join, all of them.
    let g = patrol_advancing(ambush_scenario(true, 0), &[])
        .decided_rolling(sighted(), &[("check:ambush-1", &[9]), ("check:ambush-2", &[0])]);
    let split = json!({"type": "interrupt", "by": "ambush", "fire": [
        rifle("ambush-1", "patrol-1", "ragged", None, 5), rifle("ambush-lead", "patrol-1", "aimed", Some(1), 5)
    ]});
    let e = g.when_rolling(split, &[]).refusal_of(Refused::SameAction);
    assert!(e.starts_with("\"The entire unit must perform the same action\": ambush-2 of ambush"), "{e}");
    let nervous_only =
        json!({"type": "interrupt", "by": "ambush", "fire": [rifle("ambush-1", "patrol-1", "ragged", None, 5)]});
    g.when_rolling(nervous_only, &[("hit:ambush-1", &[9, 9, 9])]).facts();
}

/// Found by the random games (`properties_phoenix`) once weapons had a range
/// (N45): a figure who failed his hold-fire check with only a pistol that
/// cannot reach the target blew the ambush, could never fire, and every
/// decision was refused. Like a figure with nothing to fire (N33), he does
/// not blow it.
#[test]
fn a_nervous_figure_out_of_range_does_not_blow_the_ambush() {
    let mut s = with_figure(ambush_scenario(true, 0), "ambush-1", "weapons", json!(["pistol"]));
    s["weapons"]["pistol"] = json!({"max_shots": 2, "pen": 8, "sdm": 1, "range_tenths": 100});
    let g = patrol_advancing(s, &[]);
    let facts = g.when_rolling(sighted(), &[("check:ambush-1", &[9]), ("check:ambush-2", &[0])]).facts();
    assert!(!facts.iter().any(|f| matches!(f, Fact::AmbushBlown { .. })), "{:?}", told(&facts));
}

/// After the merge of who-decides: an ambush whose nervous figure cannot
/// fire at the target (here out of range, N33) is not blown, so the game
/// does not wait on the ambushers' side.
#[test]
fn an_ambush_that_is_not_blown_does_not_wait_on_the_ambushers() {
    use crate::ruleset::{Actor, Ruleset};
    let mut s = with_figure(ambush_scenario(true, 0), "ambush-1", "weapons", json!(["pistol"]));
    s["weapons"]["pistol"] = json!({"max_shots": 2, "pen": 8, "sdm": 1, "range_tenths": 100});
    let mut g =
        patrol_advancing(s, &[]).decided_rolling(sighted(), &[("check:ambush-1", &[0]), ("check:ambush-2", &[0])]);
    // ambush-1 failed a check before the pistol's range was known to matter.
    g.state_mut().turn.as_mut().unwrap().ambushes[0].nervous = vec!["ambush-1".into()];
    assert_eq!(super::super::PhoenixCommand::awaited(g.state()), Actor::side("jason"));
}

/// The platoon's squad 1-sqd (1a and 1b consolidated, 1 CP left after
/// detaching) in j's line of sight, j's riflemen holding so far; `range`
/// gives the rifles a range in tenths (j-1 and j-2 then reach only 1b's
/// figures, 57" away; 1a's are 60" and more).
fn squad_under_watch(range: Option<u64>, under: fn(Value) -> Given) -> Given {
    use super::organisation::{consolidate, platoon_under_watch, watched};
    let mut s = platoon_under_watch();
    if let Some(range) = range {
        s["weapons"]["rifle"]["range_tenths"] = json!(range);
    }
    let hold: &[(&str, &[u32])] = &[("check:j-1", &[0, 0]), ("check:j-2", &[0, 0])];
    watched(under(s)).decided_rolling(consolidate("1-sqd"), hold).decided_rolling(
        json!({"type": "sighted", "target": "1-sqd", "by": "j"}),
        &[("check:j-1", &[0]), ("check:j-2", &[0])],
    )
}

/// The squad detaches 1b; j-1 fails his check for that CP (9 against 6).
const DETACH_1B: &[(&str, &[u32])] = &[("check:j-1", &[9]), ("check:j-2", &[0])];

fn detach_1b() -> Value {
    json!({"type": "detach", "units": ["1b"]})
}

fn j1_fires_at(target: &str) -> Value {
    json!({"type": "interrupt", "by": "j", "fire": [
        {"figure": "j-1", "weapon": "rifle", "target": target, "mode": "ragged", "odds": 3}
    ]})
}

fn version_2(s: Value) -> Given {
    super::given_with_constants(s, "2", &[])
}

fn with_the_option(s: Value) -> Given {
    given_with(s, &["detached-units-leave-the-target"])
}

/// N59: "A failed roll means that the figures that failed perform ragged
/// fire on the target before the target begins its action." — "This
/// weapons fire is resolved before Jason's unit begins performing their
/// actions on the current CP." The target is the squad as it stood when it
/// spent the CP, 1b included: the nervous rifleman may fire at 1b's
/// figures, and must before anything else. Version 2 (and the option)
/// fired only at the figures left in the squad.
#[test]
fn a_blown_ambush_fires_on_the_units_detached_on_the_cp_that_blew_it() {
    let g = squad_under_watch(None, given);
    let facts = g.when_rolling(detach_1b(), DETACH_1B).facts();
    assert_eq!(
        facts.last(),
        Some(&Fact::AmbushKeepsDetached { by: "j".into(), target: "1-sqd".into(), detached: vec!["1b".into()] }),
        "{:?}",
        told(&facts)
    );
    assert_eq!(
        told(&facts).last().unwrap(),
        "1b detached from 1-sqd on the CP that blew j's ambush: j's fire on 1-sqd may fall on 1b too."
    );
    let g = g.decided_rolling(detach_1b(), DETACH_1B);
    let e = g.when_rolling(json!({"type": "spend-cp"}), &[]).refusal_of(Refused::AmbushBlown);
    assert!(
        e.starts_with("j's ambush is blown: j-1 must fire ragged at 1-sqd or 1b (detached from it on the CP that blew the ambush)"),
        "{e}"
    );
    let facts = g.when_rolling(j1_fires_at("1b-1"), &[("hit:j-1", &[9, 9, 9])]).facts();
    assert!(
        matches!(&facts[0], Fact::InterruptFired { target, nervous, .. } if target == "1-sqd" && nervous == &["j-1"]),
        "{:?}",
        told(&facts)
    );
    // The rest of the squad is the target too.
    g.when_rolling(j1_fires_at("1a-1"), &[("hit:j-1", &[9, 9, 9])]).facts();
    // An enemy figure outside the target still is not.
    let e = g.when_rolling(j1_fires_at("2a-1"), &[]).refusal_of(Refused::NotTheAmbushedUnit);
    assert_eq!(e, "2a-1 is not in 1-sqd or 1b (detached from it on the CP that blew the ambush): the ambushers fire at the unit they lay in wait for");

    for (reading, under) in [("version 2", version_2 as fn(Value) -> Given), ("the option", with_the_option)] {
        let g = squad_under_watch(None, under);
        let facts = g.when_rolling(detach_1b(), DETACH_1B).facts();
        assert!(matches!(facts.last(), Some(Fact::Detached { .. })), "{reading}: {:?}", told(&facts));
        let g = g.decided_rolling(detach_1b(), DETACH_1B);
        let e = g.when_rolling(j1_fires_at("1b-1"), &[]).refusal_of(Refused::NotTheAmbushedUnit);
        assert_eq!(e, "1b-1 is not in 1-sqd: the ambushers fire at the unit they lay in wait for", "{reading}");
        g.when_rolling(j1_fires_at("1a-1"), &[("hit:j-1", &[9, 9, 9])]).facts();
    }
}

/// N59: the nervous rifleman's rifle reaches only 1b's figures. They were
/// the target's when he failed his check, so the ambush is blown and fires
/// before the squad does anything else; version 2 (and the option) found
/// nothing of the squad in reach once 1b had gone, and the ambush was not
/// blown at all.
#[test]
fn an_ambush_whose_only_figures_in_reach_were_detached_is_blown() {
    let g = squad_under_watch(Some(580), given).decided_rolling(detach_1b(), DETACH_1B);
    let e = g.when_rolling(json!({"type": "spend-cp"}), &[]).refusal_of(Refused::AmbushBlown);
    assert!(e.starts_with("j's ambush is blown: j-1 must fire ragged at 1-sqd or 1b"), "{e}");
    let facts = g.when_rolling(j1_fires_at("1b-1"), &[("hit:j-1", &[9, 9, 9])]).facts();
    assert!(matches!(&facts[0], Fact::InterruptFired { nervous, .. } if nervous == &["j-1"]), "{:?}", told(&facts));

    for (reading, under) in [("version 2", version_2 as fn(Value) -> Given), ("the option", with_the_option)] {
        let g = squad_under_watch(Some(580), under).decided_rolling(detach_1b(), DETACH_1B);
        let facts = g.when_rolling(json!({"type": "spend-cp"}), &[]).facts();
        assert!(matches!(facts[0], Fact::CpSpent { .. }), "{reading}: {:?}", told(&facts));
    }
}
