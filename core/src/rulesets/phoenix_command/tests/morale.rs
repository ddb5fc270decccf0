//! 2.8 Morale: self-rally, restoring the unit, rally, abandonment, forced
//! rally, rallying the panicked, rout, steadying a broken unit, and a
//! superior officer's CP.

use serde_json::{json, Value};

use super::{given_with, given_with_constants, table, told, with_figure, with_knockout_chances, Given};
use crate::rulesets::phoenix_command::{Fact, Morale, Refused, UnitMorale};

/// alex: a (CR 4, 5 figures: a-lead, a-1 … a-4, TQ 3) with `cp`; b (1
/// figure) far off; jason: j (1 figure). Morale as given per figure.
pub(super) fn team(cp: u32, morale: &[(&str, &str)]) -> Value {
    let mut s =
        table(&[("alex", "a", cp, 4, 5, [0, 0]), ("alex", "b", 0, 3, 1, [300, 0]), ("jason", "j", 0, 3, 1, [0, 600])]);
    for (f, m) in morale {
        s = with_figure(s, f, "morale", json!(m));
    }
    s
}

fn active(s: Value, options: &[&str]) -> Given {
    given_with(s, options).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "a"}),
    ])
}

fn changes(facts: &[Fact]) -> Vec<(String, Morale)> {
    facts
        .iter()
        .filter_map(|f| match f {
            Fact::MoraleChanged { figure, to, .. } => Some((figure.clone(), *to)),
            _ => None,
        })
        .collect()
}

/// "If the leader of a unit has been Shaken or Panicked, the leader must
/// expend 1 CP composing himself before he can expend any further CP. On
/// completing a self-rally, the leader is returned to a Bold morale state."
#[test]
fn a_shaken_leader_composes_himself_before_anything_else() {
    let g = active(team(3, &[("a-lead", "shaken")]), &[]);
    let e = g.when_rolling(json!({"type": "spend-cp"}), &[]).refusal_of(Refused::LeaderComposesFirst);
    assert_eq!(e, "a's leader a-lead is Shaken: \"the leader must expend 1 CP composing himself before he can expend any further CP\" (self-rally)");
    let facts = g.when_rolling(json!({"type": "self-rally"}), &[]).facts();
    assert_eq!(changes(&facts), [("a-lead".to_string(), Morale::Bold)]);
    let g = g.decided(json!({"type": "self-rally"}));
    assert_eq!(g.state().units["a"].cp, 2);
    g.when_rolling(json!({"type": "spend-cp"}), &[]).facts();
    let g = active(team(3, &[]), &[]);
    let e = g.when_rolling(json!({"type": "self-rally"}), &[]).refusal_of(Refused::NothingToRally);
    assert_eq!(e, "a-lead is Bold: only a Shaken or Panicked leader composes himself");
}

/// "the leader must expend a CP to restore the Unit Morale to Bold for the
/// turn. He must then rally, abandon, or force-rally the individual shaken
/// figures with his next CP in order to keep the unit morale from sliding
/// back to Shaken in the next turn."
#[test]
fn a_shaken_unit_is_restored_for_the_turn_and_slides_back_next_turn() {
    let g = active(team(3, &[("a-1", "shaken"), ("a-2", "shaken"), ("a-3", "shaken")]), &[]);
    assert_eq!(g.state().units["a"].morale, UnitMorale::Shaken);
    let e = g.when_rolling(json!({"type": "rally"}), &[]).refusal_of(Refused::RestoreUnitMoraleFirst);
    assert_eq!(e, "a is Shaken and may not rally its figures: \"the leader must expend a CP to restore the Unit Morale to Bold for the turn\" (steady-unit)");
    let g = g.decided(json!({"type": "steady-unit"}));
    assert_eq!(g.state().units["a"].morale, UnitMorale::Steady);
    // Abandoned rather than rallied, the Shaken figures stay Shaken: next turn the unit slides back.
    let g = g
        .decided_rolling(json!({"type": "abandon"}), &[("check:a-4", &[0])])
        .decided(json!({"type": "stop"}))
        .decided_all(&[
            json!({"type": "activate", "unit": "b"}),
            json!({"type": "pass"}),
            json!({"type": "activate", "unit": "j"}),
            json!({"type": "pass"}),
        ]);
    let facts = g.when_rolling(json!({"type": "begin-turn"}), &[]).facts();
    assert!(facts.iter().any(|f| matches!(f, Fact::UnitShaken { unit, .. } if unit == "a")));
}

/// "When a unit decides to perform actions, a leader must first spend 1
/// accumulated CP to rally all shaken figures in his unit."
#[test]
fn a_rally_costs_one_cp_and_comes_first() {
    let g = active(team(3, &[("a-1", "shaken"), ("a-2", "shaken")]), &["strict-majority"]);
    let e = g.when_rolling(json!({"type": "spend-cp"}), &[]).refusal_of(Refused::RallyShakenFirst);
    assert_eq!(e, "a has Shaken figures (a-1 and a-2): \"a leader must first spend 1 accumulated CP to rally all shaken figures in his unit\" — rally them, abandon them (a command check for each Bold figure), or force a rally, before spending CP on actions");
    let facts = g.when_rolling(json!({"type": "rally"}), &[]).facts();
    assert_eq!(changes(&facts), [("a-1".to_string(), Morale::Bold), ("a-2".to_string(), Morale::Bold)]);
    let g = g.decided(json!({"type": "rally"}));
    assert_eq!(g.state().units["a"].cp, 2);
    let e = g.when_rolling(json!({"type": "rally"}), &[]).refusal_of(Refused::NothingToRally);
    assert_eq!(e, "a has no Shaken figure to rally");
}

/// "Doing so requires a successful command check for each Bold figure in the
/// unit—any that pass the command check are able to execute actions
/// normally. Those that fail will lag behind by 1 CP." (P6)
#[test]
fn abandonment_checks_each_bold_figure_and_the_failed_lag_one_cp() {
    let g = active(team(3, &[("a-4", "shaken")]), &[]);
    let facts = g
        .when_rolling(json!({"type": "abandon"}), &[("check:a-1", &[2]), ("check:a-2", &[7]), ("check:a-3", &[6])])
        .facts();
    assert_eq!(
        facts.last(),
        Some(&Fact::Abandoned { unit: "a".into(), shaken: vec!["a-4".into()], lagging: vec!["a-2".into()] })
    );
    let g =
        g.decided_rolling(json!({"type": "abandon"}), &[("check:a-1", &[2]), ("check:a-2", &[7]), ("check:a-3", &[6])]);
    let e = g.when_rolling(json!({"type": "abandon"}), &[]).refusal_of(Refused::AbandonOnce);
    assert_eq!(e, "a has already abandoned its Shaken figures this activation");
    let g = g.decided(json!({"type": "spend-cp"}));
    let e = g
        .when_rolling(json!({"type": "actions", "actions": [{"type": "move", "figure": "a-2", "to": [40, 10]}]}), &[])
        .refusal_of(Refused::LagsBehind);
    assert_eq!(e, "a-2 failed his command check when his Shaken comrades were abandoned and lags behind by 1 CP: he holds on this CP");
    let g = g
        .decided(json!({"type": "actions", "actions": [
            {"type": "hold", "figure": "a-lead"}, {"type": "hold", "figure": "a-1"}, {"type": "hold", "figure": "a-2"},
            {"type": "hold", "figure": "a-3"}, {"type": "hold", "figure": "a-4"}
        ]}))
        .decided(json!({"type": "spend-cp"}));
    g.when_rolling(json!({"type": "actions", "actions": [{"type": "move", "figure": "a-2", "to": [40, 10]}]}), &[])
        .facts();
}

/// "To do a Forced Rally, the unit's leader expends a CP and removes one of
/// the Shaken troops in his unit from play. The remaining Shaken and
/// Panicked troops in his unit and in any friendly units within sight of the
/// execution are immediately restored to Bold morale state. The leader …
/// then performs a command check at +2 on each figure in his unit. If the
/// majority of his unit (rounded up) passes, the leader can continue
/// expending CP."
#[test]
fn a_forced_rally_executes_one_and_restores_the_rest() {
    let s = team(3, &[("a-1", "shaken"), ("a-2", "shaken"), ("a-3", "panicked")]);
    let s = with_figure(s, "b-lead", "morale", json!("shaken"));
    let g = active(s, &[]).decided(json!({"type": "steady-unit"}));
    let e =
        g.when_rolling(json!({"type": "forced-rally", "figure": "a-4"}), &[]).refusal_of(Refused::NotAFigureOfTheUnit);
    assert_eq!(e, "a-4 is not one of a's Shaken figures (a-1 and a-2)");
    let facts = g
        .when_rolling(
            json!({"type": "forced-rally", "figure": "a-1", "in_sight": ["b"]}),
            &[("check:a-2", &[5]), ("check:a-3", &[6]), ("check:a-4", &[9])],
        )
        .facts();
    assert_eq!(
        changes(&facts),
        [("a-2".to_string(), Morale::Bold), ("a-3".to_string(), Morale::Bold), ("b-lead".to_string(), Morale::Bold)]
    );
    // Target 3 + 4 + 2 = 9: 5 and 6 pass, 9 fails; 2 of 3 is a majority.
    assert!(facts.iter().any(|f| matches!(f, Fact::ForcedRallyChecked { passed: 2, of: 3, holds: true, .. })));
    assert!(facts.iter().any(|f| matches!(f, Fact::FigureRemoved { figure, .. } if figure == "a-1")));
}

/// "If, however, the majority of the unit fails the command check, then the
/// leader is removed from play (shot by his own side) and the unit is Broken."
#[test]
fn a_failed_forced_rally_costs_the_leader_and_breaks_the_unit() {
    let s = team(3, &[("a-1", "shaken"), ("a-2", "shaken")]);
    let g = active(s, &["strict-majority"]);
    let facts = g
        .when_rolling(
            json!({"type": "forced-rally", "figure": "a-1"}),
            &[("check:a-2", &[9]), ("check:a-3", &[9]), ("check:a-4", &[0])],
        )
        .facts();
    let lines = told(&facts);
    assert!(
        lines.contains(&"Only 1 of 3 of a pass: a-lead is shot by his own side, and the unit is Broken.".to_string()),
        "{lines:?}"
    );
    assert!(facts.iter().any(|f| matches!(f, Fact::UnitBroke { rout: true, .. })));
    let e = (active(team(3, &[("a-1", "shaken")]), &[]))
        .when_rolling(json!({"type": "forced-rally", "figure": "a-1"}), &[])
        .refusal_of(Refused::ForcedRallyMultiple);
    assert_eq!(
        e,
        "a has 1 Shaken figure(s): a forced rally is for \"where he has multiple shaken troops in his unit\""
    );
}

/// "A Panicked figure can be rallied and restored to a Bold morale state by
/// the unit's leader expending 1 CP for each panicked figure." — "Once a
/// fanatic has panicked, he cannot be rallied out of his panic".
#[test]
fn panicked_figures_are_rallied_one_cp_each_but_not_fanatics() {
    let s = team(3, &[("a-1", "panicked")]);
    let g = active(s, &[]);
    let facts = g.when_rolling(json!({"type": "rally-panicked", "figure": "a-1"}), &[]).facts();
    assert_eq!(changes(&facts), [("a-1".to_string(), Morale::Bold)]);
    // A fanatic panicked by a Light Wound's second roll (jason's j acts first).
    let mut s = with_figure(team(1, &[]), "a-1", "morale", json!("fanatical"));
    s = with_figure(s, "a-1", "knockout_chance", json!(3));
    s = with_figure(s, "j-lead", "weapons", json!(["rifle"]));
    s["units"][2]["cp"] = json!(2);
    s["weapons"] = json!({"rifle": {"max_shots": 1, "pen": 20, "sdm": 3}});
    s["injury_table"] = json!([{"pen_over_pf": 0, "rows": [{"from": 8, "effect": "light-wound"}]}]);
    let g = given_with(with_knockout_chances(s, 3), &[])
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "j"}),
            json!({"type": "spend-cp"}),
        ])
        .decided_rolling(
            json!({"type": "actions", "actions": [{"type": "fire", "figure": "j-lead", "weapon": "rifle", "target": "a-1", "mode": "aimed", "line": 1, "odds": 5}]}),
            &[("hit:j-lead", &[0]), ("injury:a-1", &[6]), ("knockout:a-1", &[8, 2])],
        )
        .decided_all(&[json!({"type": "stop"}), json!({"type": "activate", "unit": "a"})]);
    assert_eq!(g.state().figures["a-1"].morale, Morale::Panicked);
    let e = g.when_rolling(json!({"type": "rally-panicked", "figure": "a-1"}), &[]).refusal_of(Refused::Fanatic);
    assert_eq!(e, "a-1 is a fanatic: \"Once a fanatic has panicked, he cannot be rallied out of his panic\"");
}

/// "If the majority (rounded up) of figures in a unit are Panicked, then the
/// unit as a whole is Broken and immediately routs … If the unit cannot
/// reach cover within its rout, the unit will instead attempt to surrender,
/// and is removed from play." — "Once the unit is in cover, the leader must
/// expend a CP to steady the unit to Shaken state, and then expend another CP
/// to steady the unit to Bold state. Then, he must spend CP to rally each
/// individual panicked member in the unit".
#[test]
fn a_broken_unit_routs_then_is_steadied_in_cover() {
    let s = team(4, &[("a-1", "panicked"), ("a-2", "panicked"), ("a-3", "panicked")]);
    let g = given_with(s, &[]).decided(json!({"type": "begin-turn"}));
    assert!(g.state().units["a"].rout_due);
    let e = g.when_rolling(json!({"type": "begin-operations"}), &[]).refusal_of(Refused::RoutDue);
    assert_eq!(e, "a is Broken and \"immediately routs, moving directly away from the enemy towards the nearest cover\": the referee moves it (rout) before anything else");
    let e = g
        .when_rolling(json!({"type": "rout", "unit": "a", "moves": {"a-1": [20, -121]}, "reached_cover": true}), &[])
        .refusal_of(Refused::BeyondMove);
    assert!(e.ends_with("and a rout is at a double-time advance rate of 12.0\""), "{e}");
    let g = g.decided(
        json!({"type": "rout", "unit": "a", "moves": {"a-lead": [0, -100], "a-1": [20, -100]}, "reached_cover": true}),
    );
    let g = g.decided_all(&[json!({"type": "begin-operations"}), json!({"type": "activate", "unit": "a"})]);
    let e = g.when_rolling(json!({"type": "spend-cp"}), &[]).refusal_of(Refused::RestoreUnitMoraleFirst);
    assert!(e.starts_with("a is Broken and may not spend CP on actions"), "{e}");
    let g = g.decided(json!({"type": "steady-unit"})).decided(json!({"type": "steady-unit"}));
    assert_eq!(g.state().units["a"].morale, UnitMorale::Steady);
    let facts = g.when_rolling(json!({"type": "rally-panicked", "figure": "a-1"}), &[]).facts();
    assert_eq!(changes(&facts), [("a-1".to_string(), Morale::Bold)]);
}

#[test]
fn a_unit_that_cannot_reach_cover_surrenders() {
    let s = team(4, &[("a-1", "panicked"), ("a-2", "panicked"), ("a-3", "panicked")]);
    let g = given_with(s, &[]).decided(json!({"type": "begin-turn"}));
    let facts = g.when_rolling(json!({"type": "rout", "unit": "a", "reached_cover": false}), &[]).facts();
    assert_eq!(told(&facts)[0], "a (alex) routs but cannot reach cover: it attempts to surrender.");
    assert!(facts.iter().any(|f| matches!(f, Fact::UnitEliminated { unit, .. } if unit == "a")));
}

/// N55: a failed rout removes every figure as surrendered but the
/// fanatics, since a panicked fanatic "will attempt to leave the
/// battlefield. If unable to do so, he will not surrender, but instead
/// attack the enemy with the ferocity of a cornered animal". The fanatics
/// stay in play; the leader gone, the unit brevets one of them.
#[test]
fn fanatics_do_not_surrender_when_their_unit_cannot_reach_cover() {
    let s = team(4, &[("a-1", "panicked"), ("a-2", "panicked"), ("a-3", "fanatical"), ("a-4", "fanatical")]);
    let mut g = given_with(s, &[]);
    // a-3, a fanatic, has panicked (a Light Wound's second roll).
    std::sync::Arc::make_mut(std::sync::Arc::make_mut(&mut g.state_mut().figures).get_mut("a-3").unwrap()).morale =
        Morale::Panicked;
    let g = g.decided(json!({"type": "begin-turn"}));
    assert!(g.state().units["a"].rout_due);
    let facts = g.when_rolling(json!({"type": "rout", "unit": "a", "reached_cover": false}), &[]).facts();
    assert_eq!(
        told(&facts)[0],
        "a (alex) routs but cannot reach cover: it attempts to surrender, but a-3, a-4 will not surrender."
    );
    let removed: Vec<&str> = facts
        .iter()
        .filter_map(|f| match f {
            Fact::FigureRemoved { figure, .. } => Some(figure.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(removed, ["a-1", "a-2", "a-lead"]);
    let g = g.decided(json!({"type": "rout", "unit": "a", "reached_cover": false}));
    assert!(g.state().figures["a-3"].in_play() && g.state().figures["a-4"].in_play());
    assert!(g.state().units["a"].brevet_due.is_some());
}

/// "If the leader does not have sufficient CP to expend, then the unit will,
/// during the next strategic movement phase, move back to its Forming Up
/// Point, or off the battlefield."
#[test]
fn a_unit_still_broken_leaves_at_the_next_strategic_movement() {
    let s = team(0, &[("a-1", "panicked"), ("a-2", "panicked"), ("a-3", "panicked")]);
    let g = given_with(s, &[]).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "rout", "unit": "a", "reached_cover": true}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "a"}),
        json!({"type": "accumulate"}),
        json!({"type": "activate", "unit": "b"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "j"}),
        json!({"type": "pass"}),
    ]);
    let facts = g.when_rolling(json!({"type": "begin-turn"}), &[]).facts();
    assert!(facts.iter().any(|f| matches!(f, Fact::UnitWithdrew { unit, .. } if unit == "a")));
}

/// "If the leader has no CP, the leader's superior officer can move to join
/// the unit and expend his own CP to rally the unit."
#[test]
fn a_superior_officer_who_has_joined_a_unit_spends_his_cp_on_it() {
    let s = json!({
        "sides": ["alex", "jason"],
        "initiative": "alex",
        "command_distance_tenths": 60,
        "organisations": [
            {"id": "platoon", "side": "alex", "kind": "platoon", "leader": "lt"},
            {"id": "hq", "parent": "platoon", "kind": "headquarters", "leader": "lt"},
            {"id": "sqd", "parent": "platoon", "kind": "squad", "leader": "sgt"},
            {"id": "j", "side": "jason", "kind": "fire team", "leader": "j-lead"}
        ],
        "units": [{"organisation": "hq", "cp": 2}, {"organisation": "sqd", "cp": 0}, {"organisation": "j"}],
        "figures": [
            {"id": "lt", "team": "hq", "troop_quality": 4, "command_rating": 4, "at": [0, 0]},
            {"id": "sgt", "team": "sqd", "troop_quality": 3, "command_rating": 3, "at": [50, 0]},
            {"id": "s-1", "team": "sqd", "troop_quality": 3, "morale": "shaken", "at": [60, 0]},
            {"id": "s-2", "team": "sqd", "troop_quality": 3, "at": [70, 0]},
            {"id": "j-lead", "team": "j", "troop_quality": 3, "command_rating": 3, "at": [0, 600]}
        ]
    });
    let g = active_unit(s.clone(), "hq");
    let facts = g.when_rolling(json!({"type": "rally", "unit": "sqd"}), &[]).facts();
    assert_eq!(changes(&facts), [("s-1".to_string(), Morale::Bold)]);
    let mut far = s;
    far["figures"][1]["at"] = json!([80, 0]);
    let g = active_unit(far, "hq");
    let e = g.when_rolling(json!({"type": "rally", "unit": "sqd"}), &[]).refusal_of(Refused::SuperiorNotJoined);
    assert_eq!(e, "lt has not joined sqd: sgt is 8.0\" away, beyond his command distance of 6.0\"");
    let g = active_unit(team(3, &[("b-lead", "shaken")]), "a");
    let e = g.when_rolling(json!({"type": "rally", "unit": "b"}), &[]).refusal_of(Refused::NotHisUnit);
    assert_eq!(
        e,
        "a-lead does not command b: only its leader, or a superior officer who has joined it, spends CP on its morale"
    );
}

/// The platoon of the superior officer's test: lt (hq, `hq_cp` CP) and the
/// squad sqd (sgt, s-1 Shaken, s-2) with `sqd_cp`, all within lt's 6".
fn platoon_with_a_shaken_squad(hq_cp: u32, sqd_cp: u32, morale: [&str; 2]) -> Value {
    json!({
        "sides": ["alex", "jason"],
        "initiative": "alex",
        "command_distance_tenths": 60,
        "organisations": [
            {"id": "platoon", "side": "alex", "kind": "platoon", "leader": "lt"},
            {"id": "hq", "parent": "platoon", "kind": "headquarters", "leader": "lt"},
            {"id": "sqd", "parent": "platoon", "kind": "squad", "leader": "sgt"},
            {"id": "j", "side": "jason", "kind": "fire team", "leader": "j-lead"}
        ],
        "units": [{"organisation": "hq", "cp": hq_cp}, {"organisation": "sqd", "cp": sqd_cp}, {"organisation": "j"}],
        "figures": [
            {"id": "lt", "team": "hq", "troop_quality": 4, "command_rating": 4, "at": [0, 0]},
            {"id": "sgt", "team": "sqd", "troop_quality": 3, "command_rating": 3, "at": [50, 0]},
            {"id": "s-1", "team": "sqd", "troop_quality": 3, "morale": morale[0], "at": [60, 0]},
            {"id": "s-2", "team": "sqd", "troop_quality": 3, "morale": morale[1], "at": [70, 0]},
            {"id": "j-lead", "team": "j", "troop_quality": 3, "command_rating": 3, "at": [0, 600]}
        ]
    })
}

/// N27: "If the leader has no CP, the leader's superior officer can move to
/// join the unit and expend his own CP to rally the unit." The superior
/// rallied the squad while its sergeant still had a CP to rally it with.
#[test]
fn a_superior_officer_rallies_a_unit_only_when_its_leader_has_no_cp() {
    let g = active_unit(platoon_with_a_shaken_squad(2, 1, ["shaken", "bold"]), "hq");
    let e = g.when_rolling(json!({"type": "rally", "unit": "sqd"}), &[]).refusal_of(Refused::LeaderHasCp);
    assert_eq!(e, "sqd's leader sgt has 1 CP: \"If the leader has no CP, the leader's superior officer can move to join the unit and expend his own CP to rally the unit\" — its leader rallies it");
    let g = active_unit(platoon_with_a_shaken_squad(2, 0, ["shaken", "bold"]), "hq");
    g.when_rolling(json!({"type": "rally", "unit": "sqd"}), &[]).facts();
}

/// Version 1 let the superior rally whatever the leader had: its records
/// verify as they were played.
#[test]
fn under_version_1_a_superior_officer_rallies_whatever_the_leaders_cp() {
    let g = super::given_under_version_1(platoon_with_a_shaken_squad(2, 1, ["shaken", "bold"])).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "hq"}),
    ]);
    let facts = g.when_rolling(json!({"type": "rally", "unit": "sqd"}), &[]).facts();
    assert_eq!(changes(&facts), [("s-1".to_string(), Morale::Bold)]);
}

/// "A commanding officer can attempt to rendezvous with the unit as it routs
/// and may use his CP to rally and steady the unit and its members": no
/// condition on its leader's CP. The routed squad, in cover, still holds 1
/// CP; the lieutenant steadies it twice and rallies a panicked member.
#[test]
fn a_commanding_officer_rallies_a_routing_unit_whatever_its_leaders_cp() {
    let s = platoon_with_a_shaken_squad(3, 1, ["panicked", "panicked"]);
    let g = given_with(s, &[]).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "rout", "unit": "sqd", "moves": {}, "reached_cover": true}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "hq"}),
    ]);
    assert_eq!(g.state().units["sqd"].cp, 1);
    let g =
        g.decided(json!({"type": "steady-unit", "unit": "sqd"})).decided(json!({"type": "steady-unit", "unit": "sqd"}));
    assert_eq!(g.state().units["sqd"].morale, UnitMorale::Steady);
    let facts = g.when_rolling(json!({"type": "rally-panicked", "figure": "s-1", "unit": "sqd"}), &[]).facts();
    assert_eq!(changes(&facts), [("s-1".to_string(), Morale::Bold)]);
}

fn active_unit(s: Value, unit: &str) -> Given {
    given_with(s, &[]).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": unit}),
    ])
}

/// "He must then rally … the individual shaken figures with his next CP in
/// order to keep the unit morale from sliding back to Shaken in the next
/// turn": rallied, the unit begins the next turn Bold.
#[test]
fn a_unit_whose_figures_were_rallied_is_not_shaken_next_turn() {
    let g = active(team(3, &[("a-1", "shaken"), ("a-2", "shaken"), ("a-3", "shaken")]), &[]).decided_all(&[
        json!({"type": "steady-unit"}),
        json!({"type": "rally"}),
        json!({"type": "stop"}),
        json!({"type": "activate", "unit": "b"}),
        json!({"type": "pass"}),
        json!({"type": "activate", "unit": "j"}),
        json!({"type": "pass"}),
    ]);
    let g = g.decided(json!({"type": "begin-turn"}));
    assert_eq!(g.state().units["a"].morale, UnitMorale::Steady);
}

/// N52: a restored unit most of whose figures panic after
/// the restoring is Broken and routs — "If the majority (rounded up) of
/// figures in a unit are Panicked, then the unit as a whole is Broken and
/// immediately routs" — under either reading of "for the turn".
#[test]
fn a_restored_unit_breaks_when_most_of_its_figures_panic_after() {
    for options in [&[][..], &["restored-unit-stays-bold-for-the-turn"][..]] {
        let s = team(3, &[("a-1", "shaken"), ("a-2", "shaken"), ("a-3", "shaken")]);
        let g = active(s, options).decided(json!({"type": "steady-unit"}));
        assert!(g.state().units["a"].restored);
        // Shaken again, each panics: a majority (3 of 5) newly Panicked.
        let mut g = g;
        for f in ["a-1", "a-2"] {
            std::sync::Arc::make_mut(std::sync::Arc::make_mut(&mut g.state_mut().figures).get_mut(f).unwrap()).morale =
                Morale::Panicked;
        }
        let facts = g
            .when_rolling(json!({"type": "casualty", "figure": "a-4", "effect": "killed", "reason": "mortar"}), &[])
            .facts();
        assert!(
            facts.iter().any(|f| matches!(f, Fact::UnitBroke { rout: true, .. })),
            "{options:?}: {:?}",
            told(&facts)
        );
    }
}

/// A hero, Shaken, with 2 CP; a jason fire team far off.
fn shaken_hero(options: &[&str]) -> Given {
    let s = json!({
        "sides": ["alex", "jason"],
        "initiative": "alex",
        "command_distance_tenths": 60,
        "organisations": [
            {"id": "rambo", "side": "alex", "kind": "hero", "leader": "john"},
            {"id": "j", "side": "jason", "kind": "fire team", "leader": "j-lead"}
        ],
        "units": [{"organisation": "rambo", "cp": 2}, {"organisation": "j"}],
        "figures": [
            {"id": "john", "team": "rambo", "troop_quality": 5, "command_rating": 3, "morale": "shaken", "at": [0, 0]},
            {"id": "j-lead", "team": "j", "troop_quality": 3, "command_rating": 3, "at": [0, 600]}
        ]
    });
    given_with(s, options).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "rambo"}),
    ])
}

/// N48: "Heroes accumulate CP and perform actions in the
/// same way as other, larger units" — "with the sole exception of being
/// immune to command distance requirements". A Shaken hero is a Shaken unit
/// of one: he composes himself, then restores his unit — 2 CP for one graze.
/// Option `hero-without-unit-morale`: composing himself is all he must do.
#[test]
fn a_shaken_hero_composes_himself_and_then_restores_his_unit_of_one() {
    let g = shaken_hero(&[]);
    assert_eq!(g.state().units["rambo"].morale, UnitMorale::Shaken);
    let g = g.decided(json!({"type": "self-rally"}));
    let e = g.when_rolling(json!({"type": "spend-cp"}), &[]).refusal_of(Refused::RestoreUnitMoraleFirst);
    assert!(e.starts_with("rambo is Shaken and may not spend CP on actions"), "{e}");
    let g = g.decided(json!({"type": "steady-unit"}));
    assert_eq!(g.state().units["rambo"].cp, 0);
    let g = shaken_hero(&["hero-without-unit-morale"]);
    assert_eq!(g.state().units["rambo"].morale, UnitMorale::Steady);
    let g = g.decided(json!({"type": "self-rally"}));
    g.when_rolling(json!({"type": "spend-cp"}), &[]).facts();
}

/// N19: "Each CP the target spends after entering the ambusher's LOS
/// requires a Command Check to be done for each figure under the ambush team
/// leader's control." Given rules under which a morale order costs 2 CP
/// (`morale-cp`), and a's rally in the line of sight of j, which lies in
/// wait; when a rallies, then j's two riflemen check twice each, a round
/// for each CP, before the rally takes effect. Version 1 checked once.
#[test]
fn a_morale_order_of_several_cp_in_an_ambushers_sight_has_a_round_of_checks_for_each() {
    let mut s = table(&[("alex", "a", 3, 4, 5, [0, 0]), ("jason", "j", 0, 3, 3, [0, 600])]);
    s = with_figure(s, "a-1", "morale", json!("shaken"));
    s["units"][1]["interrupt_set"] = json!(true);
    let checks = |facts: &[Fact]| facts.iter().filter(|f| matches!(f, Fact::CommandChecked { .. })).count();
    for (version, rounds) in [("2", 2), ("1", 1)] {
        let g = given_with_constants(s.clone(), version, &[("morale-cp", 2)])
            .decided_all(&[
                json!({"type": "begin-turn"}),
                json!({"type": "begin-operations"}),
                json!({"type": "activate", "unit": "a"}),
            ])
            .decided_rolling(
                json!({"type": "sighted", "target": "a", "by": "j"}),
                &[("check:j-1", &[0]), ("check:j-2", &[0])],
            );
        let faces: &[u32] = if rounds == 2 { &[0, 0] } else { &[0] };
        let facts = g.when_rolling(json!({"type": "rally"}), &[("check:j-1", faces), ("check:j-2", faces)]).facts();
        assert_eq!(checks(&facts), 2 * rounds, "version {version}: {:?}", told(&facts));
        assert_eq!(changes(&facts), [("a-1".to_string(), Morale::Bold)], "version {version}: {:?}", told(&facts));
        assert_eq!(
            told(&facts)[1],
            "Command check for j-1 (a spends another CP in j's line of sight): rolled 0 against a target of 6: passes."
        );
    }
}
