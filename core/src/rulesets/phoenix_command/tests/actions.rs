//! 2.4 Actions (double-time, advancing and firing, flight) and what morale
//! leaves a figure free to do; 2.8's unit morale from its figures'.

use serde_json::{json, Value};

use super::{given_with, table, told, with_figure, Given};
use crate::rulesets::phoenix_command::{Fact, Refused, UnitMorale};

/// alex: a (3 CP, CR 4: a-lead, a-1, a-2, a-3); jason: j (j-lead, j-1), 30"
/// away; M16s for all.
fn unit_of_four() -> Value {
    let mut s = table(&[("alex", "a", 3, 4, 4, [0, 0]), ("jason", "j", 0, 3, 2, [0, 300])]);
    s["weapons"] = json!({"m16": {"max_shots": 3, "pen": 20, "sdm": 3}});
    for f in s["figures"].as_array_mut().unwrap() {
        f["weapons"] = json!(["m16"]);
        f["knockout_chance"] = json!(3);
    }
    s
}

fn spending(s: Value, options: &[&str]) -> Given {
    given_with(s, options).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "a"}),
        json!({"type": "spend-cp"}),
    ])
}

fn act(action: Value) -> Value {
    json!({"type": "actions", "actions": [action]})
}

fn rest_hold(g: Given, figures: &[&str]) -> Given {
    let holds: Vec<Value> = figures.iter().map(|f| json!({"type": "hold", "figure": f})).collect();
    g.decided(json!({"type": "actions", "actions": holds}))
}

/// "move twice the figure's standard move … They cannot perform another
/// double-time advance this turn as each figure can only double-time advance
/// once per turn."
#[test]
fn a_double_time_advance_is_twice_the_standard_move_once_a_turn() {
    let g = spending(unit_of_four(), &[]);
    let e = g
        .when_rolling(act(json!({"type": "double-time", "figure": "a-1", "to": [20, 121]})), &[])
        .refusal_of(Refused::BeyondMove);
    assert_eq!(e, "a-1 cannot move from (20, 0) to (20, 121): that is 12.1\" and a double-time advance is 12.0\"");
    let g = g.decided(act(json!({"type": "double-time", "figure": "a-1", "to": [20, 120]})));
    assert!(g.state().figures["a-1"].double_timed);
    let g = rest_hold(g, &["a-lead", "a-2", "a-3"]).decided(json!({"type": "spend-cp"}));
    let e = g
        .when_rolling(act(json!({"type": "double-time", "figure": "a-1", "to": [20, 130]})), &[])
        .refusal_of(Refused::DoubleTimeOnce);
    assert_eq!(
        e,
        "a-1 has already double-time advanced this turn: \"each figure can only double-time advance once per turn\""
    );
}

/// The 2.4 example fires on the CP after a double-time advance; the option
/// `double-time-bars-fire-for-the-turn` reads 2.6's "not eligible to fire"
/// as lasting the turn (N15).
#[test]
fn after_a_double_time_advance_a_figure_fires_on_a_later_cp_unless_the_option_bars_it() {
    let fire = act(
        json!({"type": "fire", "figure": "a-1", "weapon": "m16", "target": "j-1", "mode": "aimed", "line": 1, "odds": 2}),
    );
    for (options, allowed) in [(&[][..], true), (&["double-time-bars-fire-for-the-turn"][..], false)] {
        let g = spending(unit_of_four(), options)
            .decided(act(json!({"type": "double-time", "figure": "a-1", "to": [20, 120]})));
        let g = rest_hold(g, &["a-lead", "a-2", "a-3"]).decided(json!({"type": "spend-cp"}));
        let result = g.when_rolling(fire.clone(), &[("hit:a-1", &[9])]).result();
        if allowed {
            result.unwrap();
        } else {
            assert_eq!(result.unwrap_err(), "a-1 double-time advanced this turn and may not fire (double-time-bars-fire-for-the-turn): \"units which have used the Double-time advance in their action are not eligible to fire\"");
        }
    }
}

/// "others in the unit are advancing and firing": a standard move, then fire.
#[test]
fn a_figure_may_advance_and_fire_in_one_action() {
    let g = spending(unit_of_four(), &[]);
    let facts = g.when_rolling(act(
            json!({"type": "fire", "figure": "a-1", "move_to": [20, 60], "weapon": "m16", "target": "j-1", "mode": "aimed", "line": 2, "odds": 3}),
        ), &[("hit:a-1", &[8, 9])]).facts();
    assert_eq!(
        told(&facts)[0],
        "a-1 moves from (20, 0) to (20, 60) (6.0\") and opens aimed fire with his m16 at j-1 on the 2 shot line, odds 3."
    );
    let e = g.when_rolling(act(
            json!({"type": "fire", "figure": "a-1", "move_to": [20, 61], "weapon": "m16", "target": "j-1", "mode": "aimed", "line": 2, "odds": 3}),
        ), &[]).refusal_of(Refused::BeyondMove);
    assert!(e.ends_with("and a standard move is 6.0\""), "{e}");
}

/// "Failure to spend the CP means that the Shaken figures will not move or
/// perform actions, and can only perform ragged fire." — "Panicked figures
/// can only use ragged fire" and flee.
#[test]
fn shaken_figures_hold_or_fire_ragged_and_panicked_ones_flee_or_fire_ragged() {
    let s = with_figure(unit_of_four(), "a-1", "morale", json!("shaken"));
    let s = with_figure(s, "a-2", "morale", json!("panicked"));
    // 2 of 4 are Shaken or worse: the unit is Shaken. Its leader restores it,
    // abandons a-1 (a-3, the one Bold figure, checks), then spends a CP.
    let g = given_with(s, &[])
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "a"}),
            json!({"type": "steady-unit"}),
        ])
        .decided_rolling(json!({"type": "abandon"}), &[("check:a-3", &[0])])
        .decided(json!({"type": "spend-cp"}));
    let e = g
        .when_rolling(act(json!({"type": "move", "figure": "a-1", "to": [20, 10]})), &[])
        .refusal_of(Refused::ShakenFigure);
    assert_eq!(e, "a-1 is Shaken and was not rallied: \"the Shaken figures will not move or perform actions, and can only perform ragged fire\"");
    g.when_rolling(act(json!({"type": "hold", "figure": "a-1"})), &[]).facts();
    let e = g.when_rolling(act(json!({"type": "hold", "figure": "a-2"})), &[]).refusal_of(Refused::PanickedFlees);
    assert_eq!(
        e,
        "a-2 is Panicked: he flees towards cover, or fires ragged (\"Panicked figures can only use ragged fire\")"
    );
    let e = g
        .when_rolling(act(json!({"type": "flee", "figure": "a-3", "to": [60, -60], "reached_cover": false})), &[])
        .refusal_of(Refused::PanickedFlees);
    assert_eq!(e, "a-3 is Bold: only a Panicked figure flees");
}

/// "The panicked figure will retreat at a double-time advance rate …  If the
/// figure reach cover, the figure will instead attempt to surrender, and is
/// removed from play."
#[test]
fn a_panicked_figure_flees_and_surrenders_on_reaching_cover() {
    let g = spending(with_figure(unit_of_four(), "a-2", "morale", json!("panicked")), &[]);
    let e = g
        .when_rolling(act(json!({"type": "flee", "figure": "a-2", "to": [40, -121], "reached_cover": false})), &[])
        .refusal_of(Refused::BeyondMove);
    assert!(e.ends_with("and a double-time flight is 12.0\""), "{e}");
    let facts = g
        .when_rolling(act(json!({"type": "flee", "figure": "a-2", "to": [40, -100], "reached_cover": true})), &[])
        .facts();
    assert_eq!(
        told(&facts)[..2],
        [
            "a-2 flees to (40, -100) (10.0\"), reaching cover.",
            "a-2 (a, alex) is removed from play: surrendered on reaching cover while Panicked."
        ]
    );
}

fn shaken_by(g: &Given, graze: &str) -> Vec<Fact> {
    g.when_rolling(json!({"type": "casualty", "figure": graze, "effect": "killed", "reason": "test"}), &[]).facts()
}

/// "If the majority (rounded up) of figures in a unit are Shaken, then the
/// Unit becomes Shaken" (P3: 2 of 4 is a majority; `strict-majority`: 3 of 4).
#[test]
fn a_unit_is_shaken_when_the_majority_of_its_figures_are() {
    let s = with_figure(unit_of_four(), "a-1", "morale", json!("shaken"));
    let s = with_figure(s, "a-2", "morale", json!("shaken"));
    let facts = (given_with(s.clone(), &[])).when_rolling(json!({"type": "begin-turn"}), &[]).facts();
    assert!(facts.iter().any(|f| matches!(f, Fact::UnitShaken { shaken: 2, of: 4, .. })));
    let g = given_with(s, &["strict-majority"]);
    let facts = g.when_rolling(json!({"type": "begin-turn"}), &[]).facts();
    assert!(!facts.iter().any(|f| matches!(f, Fact::UnitShaken { .. })));
    // One more casualty among the Bold: 2 of 3 is a majority either way.
    let facts = shaken_by(&g, "a-3");
    assert!(facts.iter().any(|f| matches!(f, Fact::UnitShaken { shaken: 2, of: 3, .. })));
}

/// "If the majority (rounded up) of figures in a unit are Panicked, then the
/// unit as a whole is Broken and immediately routs".
#[test]
fn a_unit_breaks_when_the_majority_of_its_figures_panic() {
    let s = with_figure(unit_of_four(), "a-1", "morale", json!("panicked"));
    let s = with_figure(s, "a-2", "morale", json!("panicked"));
    let g = given_with(s, &[]);
    let facts = g.when_rolling(json!({"type": "begin-turn"}), &[]).facts();
    assert!(facts.iter().any(|f| matches!(f, Fact::UnitBroke { rout: true, .. })));
    let g = g.decided(json!({"type": "begin-turn"}));
    assert_eq!(g.state().units["a"].morale, UnitMorale::Broken);
    assert!(g.state().units["a"].rout_due);
}

/// A panicked figure who gets off the table is gone too; a panicked fanatic
/// "will attempt to leave the battlefield. If unable to do so, he will not
/// surrender" — he never gives himself up in cover.
#[test]
fn a_fleeing_figure_may_leave_the_battlefield_and_a_fanatic_never_surrenders() {
    let g = spending(with_figure(unit_of_four(), "a-2", "morale", json!("panicked")), &[]);
    let facts = g
        .when_rolling(act(json!({"type": "flee", "figure": "a-2", "to": [40, -100], "left_battlefield": true})), &[])
        .facts();
    assert_eq!(
        told(&facts)[..2],
        [
            "a-2 flees to (40, -100) (10.0\"), off the battlefield.",
            "a-2 (a, alex) is removed from play: fled the battlefield while Panicked."
        ]
    );
    // A fanatic panicked by a Light Wound's second roll, in jason's turn.
    let mut s = with_figure(unit_of_four(), "a-2", "morale", json!("fanatical"));
    s["injury_table"] = json!([{"pen_over_pf": 0, "rows": [{"from": 0, "effect": "light-wound"}]}]);
    s["units"][0]["cp"] = json!(2);
    s["units"][1]["cp"] = json!(3);
    let g = given_with(s, &[])
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "j"}),
            json!({"type": "spend-cp"}),
        ])
        .decided_rolling(
            json!({"type": "actions", "actions": [{"type": "fire", "figure": "j-lead", "weapon": "m16", "target": "a-2", "mode": "aimed", "line": 1, "odds": 9}, {"type": "hold", "figure": "j-1"}]}),
            &[("hit:j-lead", &[0]), ("injury:a-2", &[0]), ("knockout:a-2", &[9, 0])],
        )
        .decided_all(&[json!({"type": "stop"}), json!({"type": "activate", "unit": "a"}), json!({"type": "spend-cp"})]);
    let e = g
        .when_rolling(act(json!({"type": "flee", "figure": "a-2", "to": [40, -100], "reached_cover": true})), &[])
        .refusal_of(Refused::Fanatic);
    assert!(e.starts_with("a-2 is a fanatic:"), "{e}");
}

/// alex's a (a-lead, a-1 with a rifle, a-2; Melee Attack Values) has begun
/// its CP 1 against jason's j (j-lead, j-1, j-2) 5" away; a hit is a
/// Critical Wound.
fn rifle_and_bayonet() -> Given {
    let mut s = super::melee::close_quarters();
    s = with_figure(s, "a-1", "weapons", json!(["rifle"]));
    s["weapons"]["rifle"] = json!({"max_shots": 3, "pen": 20, "sdm": 3});
    s["injury_table"] = json!([{"pen_over_pf": 0, "rows": [{"from": 0, "effect": "critical-wound"}]}]);
    super::melee::acting(s)
}

fn shot_then(second: Value) -> Value {
    json!({"type": "actions", "actions": [
        {"type": "fire", "figure": "a-1", "weapon": "rifle", "target": "j-1", "mode": "aimed", "line": 1, "odds": 5},
        second
    ]})
}

/// Found by the random games (`properties_phoenix`, seeds 6 and 202): the
/// actions of a decision were checked one by one as they were performed, so
/// a later action's refusal came after an earlier one's dice — and could
/// depend on them ("j-1 is out of play and cannot be attacked"), telling the
/// player how the dice would fall before he committed. Every action is now
/// checked before any die is rolled (the table gives none here).
#[test]
fn a_refusal_comes_before_any_die_is_rolled() {
    let g = rifle_and_bayonet();
    let e = g
        .when_rolling(shot_then(json!({"type": "move", "figure": "a-2", "to": [40, 200]})), &[])
        .refusal_of(Refused::BeyondMove);
    assert_eq!(e, "a-2 cannot move from (40, 0) to (40, 200): that is 20.0\" and a standard move is 6.0\"");
}

/// An action that an earlier action's dice made impossible is void, not
/// refused (N36): the decision stands, and the figure is still to act.
#[test]
fn an_action_made_impossible_by_an_earlier_actions_dice_is_void() {
    let g = rifle_and_bayonet();
    let cp = shot_then(json!({"type": "melee", "figure": "a-2", "target": "j-1", "move_to": [40, 40]}));
    let dice: &[(&str, &[u32])] = &[("hit:a-1", &[0]), ("injury:j-1", &[0])];
    let facts = g.when_rolling(cp.clone(), dice).facts();
    assert!(
        told(&facts).contains(&"a-2's melee attack is void: j-1 is out of play and cannot be attacked.".to_string()),
        "{:?}",
        told(&facts)
    );
    let g = g.decided_rolling(cp, dice);
    assert!(g.state().turn.as_ref().unwrap().melee.is_none());
    let facts = g.when_rolling(json!({"type": "actions", "actions": [{"type": "hold", "figure": "a-lead"}, {"type": "hold", "figure": "a-2"}]}), &[]).facts();
    assert!(matches!(facts.last(), Some(Fact::CpCompleted { number: 1, .. })), "{:?}", told(&facts));
}

/// N51: "twice the figure's standard move" — each figure
/// has his own standard move; the scenario may give it (here a-1, wounded in
/// an earlier fight, makes 4"), else the constant (6").
#[test]
fn each_figure_has_his_own_standard_move() {
    let s = with_figure(unit_of_four(), "a-1", "standard_move_tenths", json!(40));
    let g = spending(s, &[]);
    let moves = |id: &str| g.state().figures[id].standard_move(&g.state().config);
    assert_eq!((moves("a-1"), moves("a-2")), (40, 60));
    let e = g
        .when_rolling(act(json!({"type": "move", "figure": "a-1", "to": [20, 50]})), &[])
        .refusal_of(Refused::BeyondMove);
    assert_eq!(e, "a-1 cannot move from (20, 0) to (20, 50): that is 5.0\" and a standard move is 4.0\"");
    let e = g
        .when_rolling(act(json!({"type": "double-time", "figure": "a-1", "to": [20, 90]})), &[])
        .refusal_of(Refused::BeyondMove);
    assert_eq!(e, "a-1 cannot move from (20, 0) to (20, 90): that is 9.0\" and a double-time advance is 8.0\"");
    g.when_rolling(act(json!({"type": "double-time", "figure": "a-1", "to": [20, 80]})), &[]).facts();
    g.when_rolling(act(json!({"type": "move", "figure": "a-2", "to": [40, 60]})), &[]).facts();
}
