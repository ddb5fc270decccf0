//! 2.7 Melee, and 2.6's explosive weapons.

use serde_json::{json, Value};

use super::{given_with, table, told, with_figure, Given};
use crate::rulesets::phoenix_command::{Fact, Injury, Morale, Refused};

/// alex: a (a-lead, a-1, a-2; Melee Attack Value 4, knockout chance 3, a
/// grenade launcher on a-lead); jason: j (j-lead, j-1, j-2) 5" away. Melee
/// columns and blast ranges in the scenario.
pub(super) fn close_quarters() -> Value {
    let mut s = table(&[("alex", "a", 3, 4, 3, [0, 0]), ("jason", "j", 0, 3, 3, [0, 50])]);
    for f in s["figures"].as_array_mut().unwrap() {
        f["melee_attack_value"] = json!(4);
        f["knockout_chance"] = json!(3);
    }
    s = with_figure(s, "a-lead", "weapons", json!(["m79"]));
    s = with_figure(s, "j-2", "armour_pf", json!(5));
    s["weapons"] = json!({"m79": {"max_shots": 1, "one_shot_per_action": true, "pen": 30, "explosive": true, "sdm": 5,
        "blast": [{"within_tenths": 10, "effect": "critical-wound"}, {"within_tenths": 25, "effect": "graze"}]}});
    s["melee_injury_table"] = json!({
        "unarmoured": [{"from": 3, "effect": "graze"}, {"from": 7, "effect": "critical-wound"}],
        "armoured": [{"from": 6, "effect": "graze"}]
    });
    s
}

pub(super) fn acting(s: Value) -> Given {
    given_with(s, &[]).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "a"}),
        json!({"type": "spend-cp"}),
    ])
}

pub(super) fn melee(figure: &str, target: &str, to: [i64; 2]) -> Value {
    json!({"type": "actions", "actions": [{"type": "melee", "figure": figure, "target": target, "move_to": to}]})
}

/// "To make a Melee attack, a figure must move to where his base is touching
/// the base of his target and declare a Melee attack. The target figure then
/// decides if he wishes to engage in melee or escape."
#[test]
fn a_melee_attack_is_declared_in_base_contact_and_answered_first() {
    let g = acting(close_quarters());
    let facts = g.when_rolling(melee("a-1", "j-1", [20, 40]), &[]).facts();
    assert_eq!(
        told(&facts),
        [
            "a-1 moves from (20, 0) to (20, 40) (4.0\") into base contact with j-1 and declares a melee attack.",
            "j-1 must choose: engage a-1 in melee, or escape."
        ]
    );
    let e = g.when_rolling(melee("a-1", "j-1", [20, 61]), &[]).refusal_of(Refused::BeyondMove);
    assert_eq!(e, "a-1 cannot move from (20, 0) to (20, 61) to attack: that is 6.1\" and a standard move is 6.0\"");
    let e = g.when_rolling(json!({"type": "actions", "actions": [{"type": "melee", "figure": "a-1", "target": "j-1"}, {"type": "hold", "figure": "a-2"}]}), &[]).refusal_of(Refused::MeleeLast);
    assert_eq!(
        e,
        "a-1 declares a melee attack: the target answers before anything else, so it comes last among the actions"
    );
    let g = g.decided(melee("a-1", "j-1", [20, 40]));
    let e = g
        .when_rolling(json!({"type": "actions", "actions": [{"type": "hold", "figure": "a-2"}]}), &[])
        .refusal_of(Refused::MeleeResponseDue);
    assert_eq!(e, "a-1 has declared a melee attack on j-1: \"The target figure then decides if he wishes to engage in melee or escape\" (melee-response) before anything else");
}

/// "the attacker rolls a 0-9 number; if the number rolled is less than his
/// Melee Attack Value, the attack hits. Any successful attacks roll on the Hit
/// Location and Injury Table using the appropriate Melee column for
/// unarmoured targets or targets wearing Body Armour."
#[test]
fn engaged_the_attacker_hits_under_his_melee_attack_value() {
    let g = acting(close_quarters()).decided(melee("a-1", "j-1", [20, 40]));
    let facts = g.when_rolling(json!({"type": "melee-response", "escape": false}), &[("melee:a-1", &[4])]).facts();
    assert!(matches!(facts[0], Fact::MeleeRolled { roll: 4, value: 4, hit: false, .. }));
    let facts = g
        .when_rolling(json!({"type": "melee-response", "escape": false}), &[("melee:a-1", &[3]), ("injury:j-1", &[5])])
        .facts();
    assert_eq!(
        told(&facts)[..3],
        [
            "j-1 engages: a-1 rolls 3, needing under 4: the attack hits.",
            "Hit location and melee injury roll for j-1: 5 +0 SDM = 5: a Graze.",
            "j-1 goes from Bold to Shaken (a Graze)."
        ]
    );
    // Body armour reads the other column: 5 is no effect there.
    let g = acting(close_quarters()).decided(melee("a-1", "j-2", [40, 40]));
    let facts = g
        .when_rolling(json!({"type": "melee-response", "escape": false}), &[("melee:a-1", &[0]), ("injury:j-2", &[5])])
        .facts();
    assert!(facts.iter().any(|f| matches!(f, Fact::InjuryRolled { effect: Some(Injury::None), .. })));
}

/// "If the target instead wishes to escape, there is an additional +5 to the
/// attacker's Melee Attack Value. If the target survives this attack, the
/// target can then perform actions normally."
#[test]
fn an_escaping_target_is_easier_to_hit_and_moves_off_if_he_survives() {
    let g = acting(close_quarters()).decided(melee("a-1", "j-1", [20, 40]));
    let e = g
        .when_rolling(json!({"type": "melee-response", "escape": false, "escape_to": [20, 100]}), &[])
        .refusal_of(Refused::EngagedStays);
    assert_eq!(e, "j-1 engages in melee: only an escaping target moves away");
    let facts = g
        .when_rolling(json!({"type": "melee-response", "escape": true, "escape_to": [20, 100]}), &[("melee:a-1", &[9])])
        .facts();
    assert!(matches!(facts[0], Fact::MeleeRolled { value: 9, hit: false, .. }));
    assert_eq!(told(&facts)[1], "j-1 escapes from (20, 50) to (20, 100) and may act normally.");
    let facts = g
        .when_rolling(
            json!({"type": "melee-response", "escape": true, "escape_to": [20, 100]}),
            &[("melee:a-1", &[8]), ("injury:j-1", &[9])],
        )
        .facts();
    assert!(facts.iter().any(|f| matches!(f, Fact::FigureRemoved { figure, .. } if figure == "j-1")));
    assert!(!facts.iter().any(|f| matches!(f, Fact::Escaped { .. })));
}

/// A fanatic who has panicked, "If unable to do so, he will not surrender,
/// but instead attack the enemy with the ferocity of a cornered animal."
#[test]
fn only_a_panicked_fanatic_attacks_in_melee() {
    let s = with_figure(close_quarters(), "a-1", "morale", json!("panicked"));
    let g = acting(s);
    let e = g.when_rolling(melee("a-1", "j-1", [20, 40]), &[]).refusal_of(Refused::PanickedFlees);
    assert!(e.starts_with("a-1 is Panicked: he flees towards cover"), "{e}");
    // The fanatic's panic comes from a Light Wound; his morale is then Panicked.
    let s = with_figure(close_quarters(), "a-1", "morale", json!("fanatical"));
    let mut s = s;
    s["injury_table"] = json!([{"pen_over_pf": 0, "rows": [{"from": 0, "effect": "light-wound"}]}]);
    s = with_figure(s, "j-lead", "weapons", json!(["pistol"]));
    s["weapons"]["pistol"] = json!({"max_shots": 1, "pen": 5, "sdm": 0});
    s["units"][1]["cp"] = json!(3);
    s["initiative"] = json!("jason");
    let g = given_with(s, &[]).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "j"}),
        json!({"type": "spend-cp"}),
    ]);
    let g = g
        .decided_rolling(
            json!({"type": "actions", "actions": [{"type": "fire", "figure": "j-lead", "weapon": "pistol", "target": "a-1", "mode": "aimed", "line": 1, "odds": 9}, {"type": "hold", "figure": "j-1"}, {"type": "hold", "figure": "j-2"}]}),
            &[("hit:j-lead", &[0]), ("injury:a-1", &[0]), ("knockout:a-1", &[9, 0])],
        )
        .decided_all(&[json!({"type": "stop"}), json!({"type": "activate", "unit": "a"}), json!({"type": "spend-cp"})]);
    assert_eq!(g.state().figures["a-1"].morale, Morale::Panicked);
    g.when_rolling(melee("a-1", "j-1", [20, 40]), &[]).facts();
}

fn launch(target: &str, odds: i64) -> Value {
    json!({"type": "actions", "actions": [{"type": "fire", "figure": "a-lead", "weapon": "m79", "target": target, "mode": "aimed", "line": 1, "odds": odds}]})
}

/// "All figures near the target may be injured, with injury effects taken
/// from the Explosive Injury Table after cross indexing the weapon's SDM with
/// the figure's range from the blast centre".
#[test]
fn an_explosive_hit_injures_every_figure_near_the_blast() {
    let g = acting(close_quarters());
    let facts = g.when_rolling(launch("j-1", 5), &[("hit:a-lead", &[2])]).facts();
    assert_eq!(
        told(&facts)[2],
        "a-lead's m79 bursts on its target at (20, 50): j-1 at 0.0\" takes a Critical Wound; j-2 at 2.0\" takes a Graze; j-lead at 2.0\" takes a Graze."
    );
}

/// "If the explosive weapon misses its target, roll a ten-sided die. … The
/// explosive warhead detonates 4" away from the target in the direction of
/// deviation."
#[test]
fn a_missed_explosive_deviates_four_inches() {
    let g = acting(close_quarters());
    let facts = g.when_rolling(launch("j-1", 5), &[("hit:a-lead", &[7]), ("deviation:a-lead", &[5])]).facts();
    assert!(
        matches!(&facts[2], Fact::Blast { at, deviation: Some(5), .. } if *at == crate::geometry::Point { x: 20, y: 10 })
    );
    // Face 5 points down the table, 4" towards the shooters: a-1 at (20, 0) is 1" from the burst.
    assert!(told(&facts)[2].contains("a-1 at 1.0\" takes a Critical Wound"));
}

/// "Explosive weapons detonate on the intervening cover."
#[test]
fn an_explosive_through_cover_detonates_on_it() {
    let g = acting(close_quarters());
    let mut through = launch("j-1", 5);
    through["actions"][0]["cover_pf"] = json!(8);
    let e = g.when_rolling(through.clone(), &[]).refusal_of(Refused::ExplosiveNeedsCover);
    assert_eq!(e, "a m79 is explosive and \"Explosive weapons detonate on the intervening cover\": give where the cover stands (cover_at)");
    through["actions"][0]["cover_at"] = json!([20, 30]);
    let facts = g.when_rolling(through, &[("hit:a-lead", &[0])]).facts();
    assert!(told(&facts)[2]
        .starts_with("a-lead's m79 detonates on the intervening cover at (20, 30): j-1 at 2.0\" takes a Graze"));
}

/// Found by the random games (`properties_phoenix`, seed 206): one CP's fire
/// breaks a unit and a later figure of the same CP declares a melee attack.
/// The attack is answered first, then the unit routs — before, each waited
/// for the other and every decision was refused.
#[test]
fn a_melee_declared_as_the_target_unit_breaks_is_answered_before_the_rout() {
    let mut s = table(&[("alex", "a", 3, 4, 3, [0, 0]), ("jason", "j", 0, 3, 1, [0, 50])]);
    for f in s["figures"].as_array_mut().unwrap() {
        f["melee_attack_value"] = json!(4);
    }
    s = with_figure(s, "a-1", "weapons", json!(["rifle"]));
    s = with_figure(s, "j-lead", "morale", json!("shaken"));
    s["weapons"] = json!({"rifle": {"max_shots": 1, "pen": 20, "sdm": 3}});
    s["injury_table"] = json!([{"pen_over_pf": 0, "rows": [{"from": 0, "effect": "graze"}]}]);
    s["melee_injury_table"] = json!({"unarmoured": [{"from": 9, "effect": "graze"}], "armoured": []});
    let cp = json!({"type": "actions", "actions": [
        {"type": "hold", "figure": "a-lead"},
        {"type": "fire", "figure": "a-1", "weapon": "rifle", "target": "j-lead", "mode": "aimed", "line": 1, "odds": 5},
        {"type": "melee", "figure": "a-2", "target": "j-lead", "move_to": [40, 40]}
    ]});
    let g = acting(s).decided_rolling(cp, &[("hit:a-1", &[0]), ("injury:j-lead", &[0])]);
    assert!(g.state().units["j"].rout_due);
    let rout = json!({"type": "rout", "unit": "j", "moves": {"j-lead": [0, 150]}, "reached_cover": true});
    let e = g.when_rolling(rout.clone(), &[]).refusal_of(Refused::MeleeResponseDue);
    assert!(e.starts_with("a-2 has declared a melee attack on j-lead"), "{e}");
    let answer = json!({"type": "melee-response", "escape": false});
    let facts = g.when_rolling(answer.clone(), &[("melee:a-2", &[9])]).facts();
    assert_eq!(told(&facts)[0], "j-lead engages: a-2 rolls 9, needing under 4: it misses.");
    let g = g.decided_rolling(answer, &[("melee:a-2", &[9])]);
    g.when_rolling(rout, &[]).facts();
}

/// A melee attack on a figure whose hit was still waiting for the referee's
/// effect is void once the referee rules him out of play: nobody is left to
/// answer it, and no die is rolled for it (N36). Before, the fallen figure
/// "engaged" and the attack was rolled.
#[test]
fn a_melee_attack_on_a_figure_who_falls_before_answering_is_void() {
    let mut s = close_quarters();
    s = with_figure(s, "a-1", "weapons", json!(["rifle"]));
    s["weapons"]["rifle"] = json!({"max_shots": 1, "pen": 20, "sdm": 3});
    let cp = json!({"type": "actions", "actions": [
        {"type": "fire", "figure": "a-1", "weapon": "rifle", "target": "j-1", "mode": "aimed", "line": 1, "odds": 5},
        {"type": "melee", "figure": "a-2", "target": "j-1", "move_to": [40, 40]}
    ]});
    let g = acting(s).decided_rolling(cp, &[("hit:a-1", &[0]), ("injury:j-1", &[5])]);
    assert!(g.state().turn.as_ref().unwrap().melee.is_some());
    let ruling = json!({"type": "injury", "target": "j-1", "effect": "critical-wound"});
    let facts = g.when_rolling(ruling.clone(), &[]).facts();
    assert!(
        told(&facts).contains(&"a-2's melee attack is void: j-1 is out of play.".to_string()),
        "{:?}",
        told(&facts)
    );
    let g = g.decided(ruling);
    assert!(g.state().turn.as_ref().unwrap().melee.is_none());
    let e = g.when_rolling(json!({"type": "melee-response", "escape": false}), &[]).refusal_of(Refused::NoMeleeWaiting);
    assert_eq!(e, "no melee attack is waiting for an answer");
    let facts =
        g.when_rolling(json!({"type": "actions", "actions": [{"type": "hold", "figure": "a-lead"}]}), &[]).facts();
    assert!(matches!(facts.last(), Some(Fact::CpCompleted { number: 1, .. })), "{:?}", told(&facts));
}

/// N50: the escape is an immediate standard move, outside
/// any CP — "If the target survives this attack, the target can then perform
/// actions normally" — while 2.4 says "Units can only perform actions by
/// expending accumulated CP". Option `melee-escape-without-moving`: the
/// target escapes the melee but moves only on his own unit's CP.
#[test]
fn an_escaping_target_moves_away_unless_the_option_keeps_him_for_his_own_cp() {
    let escape = json!({"type": "melee-response", "escape": true, "escape_to": [20, 100]});
    let g = acting(close_quarters()).decided(melee("a-1", "j-1", [20, 40]));
    let facts = g.when_rolling(escape.clone(), &[("melee:a-1", &[9])]).facts();
    assert!(facts.iter().any(|f| matches!(f, Fact::Escaped { .. })));
    let g = given_with(close_quarters(), &["melee-escape-without-moving"])
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "a"}),
            json!({"type": "spend-cp"}),
        ])
        .decided(melee("a-1", "j-1", [20, 40]));
    let e = g.when_rolling(escape, &[]).refusal_of(Refused::EscapeWithoutMoving);
    assert!(e.starts_with("j-1 escapes without moving now (melee-escape-without-moving)"), "{e}");
    let facts = g.when_rolling(json!({"type": "melee-response", "escape": true}), &[("melee:a-1", &[9])]).facts();
    assert!(matches!(facts[0], Fact::MeleeRolled { escape: true, value: 9, hit: false, .. }));
}
