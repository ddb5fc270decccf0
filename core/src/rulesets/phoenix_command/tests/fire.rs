//! 2.6 Weapons Fire: shots, hits, cover, stray fire, injuries and their
//! effects on morale.

use serde_json::{json, Value};

use super::{given_with, table, told, with_figure, Given};
use crate::refusal::Shared;
use crate::rulesets::phoenix_command::{Fact, Injury, Morale, Refused, Shot, Succession};

/// alex: a (3 CP, CR 4: a-lead, a-1, a-2); jason: j (j-lead, j-1, j-2), 30"
/// away. Everyone carries an M16; a-lead also a GPMG ("2 hits @ 30"), a LAW
/// (1 Use) and a pistol (1 Shot/Action). Knockout chance 3.
fn armed(injury_table: bool) -> Value {
    let mut s = table(&[("alex", "a", 3, 4, 3, [0, 0]), ("jason", "j", 0, 3, 3, [0, 300])]);
    s["weapons"] = json!({
        "m16": {"max_shots": 3, "pen": 20, "sdm": 3},
        "gpmg": {"max_shots": 3, "hits_per_shot": 2, "pen": 30, "sdm": 4},
        "law": {"max_shots": 1, "one_use": true, "pen": 400, "sdm": 8},
        "pistol": {"max_shots": 1, "one_shot_per_action": true, "pen": 5, "sdm": 1}
    });
    for f in s["figures"].as_array_mut().unwrap() {
        f["weapons"] = json!(["m16"]);
        f["knockout_chance"] = json!(3);
    }
    s = with_figure(s, "a-lead", "weapons", json!(["m16", "gpmg", "law", "pistol"]));
    if injury_table {
        s["injury_table"] = json!([
            {"pen_over_pf": 0, "rows": [{"from": 5, "effect": "graze"}, {"from": 8, "effect": "light-wound"}, {"from": 11, "effect": "critical-wound"}]},
            {"pen_over_pf": 25, "rows": [{"from": 3, "effect": "graze"}, {"from": 6, "effect": "light-wound"}, {"from": 9, "effect": "critical-wound"}]}
        ]);
    }
    s
}

fn firing_with(s: Value, options: &[&str]) -> Given {
    given_with(s, options).decided_all(&[
        json!({"type": "begin-turn"}),
        json!({"type": "begin-operations"}),
        json!({"type": "activate", "unit": "a"}),
        json!({"type": "spend-cp"}),
    ])
}

fn firing(s: Value) -> Given {
    firing_with(s, &[])
}

fn shoot(figure: &str, weapon: &str, target: &str, mode: &str, line: Option<u32>, odds: i64) -> Value {
    let mut a =
        json!({"type": "fire", "figure": figure, "weapon": weapon, "target": target, "mode": mode, "odds": odds});
    if let Some(l) = line {
        a["line"] = json!(l);
    }
    json!({"type": "actions", "actions": [a]})
}

fn shots(facts: &[Fact]) -> Vec<Shot> {
    facts
        .iter()
        .find_map(|f| match f {
            Fact::Fired { shots, .. } => Some(shots.clone()),
            _ => None,
        })
        .expect("a fired fact")
}

fn shot(roll: u32, hit: bool) -> Shot {
    Shot { roll, hit, stray: None }
}

/// "if the number rolled is less than or equal to the final Odds of Hitting,
/// the target has been hit by that shot."
#[test]
fn a_shot_hits_on_a_roll_at_or_under_the_odds() {
    let g = firing(armed(true));
    let facts = g
        .when_rolling(
            shoot("a-1", "m16", "j-1", "aimed", Some(3), 4),
            &[("hit:a-1", &[4, 5, 0]), ("injury:j-1", &[1, 0])],
        )
        .facts();
    assert_eq!(shots(&facts), [shot(4, true), shot(5, false), shot(0, true)]);
    assert_eq!(
        told(&facts)[1..4],
        [
            "a-1's aimed fire at j-1: 3 shot(s) against odds 4: 4 hit, 5 miss, 0 hit; 2 hit(s) at PEN 20.",
            "Hit location and injury roll for j-1: 1 +3 SDM = 4: no effect.",
            "Hit location and injury roll for j-1: 0 +3 SDM = 3: no effect."
        ]
    );
}

/// Disciplined fire: "a figure may take an additional shot without
/// modification to their odds of hitting" — "Disciplined fire will not give
/// the shooter an extra shot with these weapons" (1 Shot/Action, 1 Use).
#[test]
fn disciplined_fire_adds_a_shot_at_the_same_odds() {
    let g = firing(armed(true));
    let facts =
        g.when_rolling(shoot("a-1", "m16", "j-1", "disciplined", Some(2), 3), &[("hit:a-1", &[9, 9, 9])]).facts();
    assert_eq!(shots(&facts).len(), 3);
    let facts =
        g.when_rolling(shoot("a-lead", "pistol", "j-1", "disciplined", Some(1), 3), &[("hit:a-lead", &[9])]).facts();
    assert_eq!(shots(&facts).len(), 1);
}

/// Ragged fire: "he fires at the maximum rate of fire for his weapon, in
/// this case three shots and all are performed at a –2 penalty … cannot
/// take any shots over and above the 3 shot maximum".
#[test]
fn ragged_fire_is_the_maximum_rate_at_minus_two() {
    let g = firing(armed(true));
    let facts = g
        .when_rolling(shoot("a-1", "m16", "j-1", "ragged", None, 4), &[("hit:a-1", &[2, 3, 9]), ("injury:j-1", &[0])])
        .facts();
    assert_eq!(shots(&facts), [shot(2, true), shot(3, false), shot(9, false)]);
    assert!(matches!(facts[1], Fact::Fired { odds: 2, .. }));
    let e = g.when_rolling(shoot("a-1", "m16", "j-1", "ragged", Some(2), 4), &[]).refusal_of(Refused::ShotLine);
    assert_eq!(e, "ragged fire is at the maximum rate of fire: a m16 fires 3 shots");
}

/// "A Shooter, even if willing, cannot use the 2 shot or 3 shot lines on the
/// Odds of Hitting Tables with these weapons." — "A weapon listed as 1 Use
/// means that the weapon is disposable and can only be fired once".
#[test]
fn one_shot_and_one_use_weapons() {
    let g = firing(armed(true));
    let e = g.when_rolling(shoot("a-lead", "pistol", "j-1", "aimed", Some(2), 3), &[]).refusal_of(Refused::ShotLine);
    assert_eq!(e, "a pistol is a 1 Shot/Action or 1 Use weapon: \"A Shooter, even if willing, cannot use the 2 shot or 3 shot lines on the Odds of Hitting Tables with these weapons.\"");
    let e = g.when_rolling(shoot("a-1", "m16", "j-1", "aimed", Some(4), 3), &[]).refusal_of(Refused::ShotLine);
    assert_eq!(e, "a m16 fires 1 to 3 shots an action, not 4");
    let e = g.when_rolling(shoot("a-1", "m16", "j-1", "aimed", None, 3), &[]).refusal_of(Refused::ShotLine);
    assert_eq!(e, "a-1 must choose the 1, 2 or 3 shot line to fire");
    let g = g
        .decided_rolling(shoot("a-lead", "law", "j-lead", "aimed", Some(1), 2), &[("hit:a-lead", &[9])])
        .decided(json!({"type": "actions", "actions": [{"type": "hold", "figure": "a-1"}, {"type": "hold", "figure": "a-2"}]}))
        .decided(json!({"type": "spend-cp"}));
    assert!(g.state().figures["a-lead"].used_weapons.contains("law"));
    let e = g.when_rolling(shoot("a-lead", "law", "j-lead", "aimed", Some(1), 2), &[]).refusal_of(Refused::OneUse);
    assert_eq!(e, "a-lead has already fired his law: \"A weapon listed as 1 Use means that the weapon is disposable and can only be fired once before being discarded.\"");
}

/// "“2 hits @ 60” … the weapon strikes twice at a PEN of 60 for each
/// successful shot. Each of these hits is resolved independently".
#[test]
fn a_weapon_with_several_hits_per_shot_strikes_each_time() {
    let g = firing(armed(true));
    let facts = g
        .when_rolling(
            shoot("a-lead", "gpmg", "j-1", "aimed", Some(1), 5),
            &[("hit:a-lead", &[5]), ("injury:j-1", &[0, 1])],
        )
        .facts();
    let rolls = facts.iter().filter(|f| matches!(f, Fact::InjuryRolled { .. })).count();
    assert_eq!(rolls, 2);
}

/// "if there is intervening cover between the shooter and the target, then
/// the projectile's PEN for non-explosive ammunition is reduced by the PF of
/// any intervening cover": PEN 30 through PF 10 reads the PEN-20 column.
#[test]
fn intervening_cover_reduces_pen() {
    let g = firing(armed(true));
    // The first hit's Critical Wound takes j-1 out: the second rolls nothing.
    let facts = g
        .when_rolling(
            shoot("a-lead", "gpmg", "j-1", "aimed", Some(1), 5),
            &[("hit:a-lead", &[0]), ("injury:j-1", &[6])],
        )
        .facts();
    assert!(facts
        .iter()
        .any(|f| matches!(f, Fact::InjuryRolled { total: 10, effect: Some(Injury::CriticalWound), .. })));
    let mut through_cover = shoot("a-lead", "gpmg", "j-1", "aimed", Some(1), 5);
    through_cover["actions"][0]["cover_pf"] = json!(10);
    let facts =
        g.when_rolling(through_cover, &[("hit:a-lead", &[0]), ("injury:j-1", &[6, 0]), ("knockout:j-1", &[9])]).facts();
    assert!(matches!(facts[1], Fact::Fired { pen: 20, .. }));
    assert!(facts.iter().any(|f| matches!(f, Fact::InjuryRolled { total: 10, effect: Some(Injury::LightWound), .. })));
}

#[test]
fn fire_refusals() {
    let g = firing(armed(true));
    let e = g.when_rolling(shoot("a-1", "gpmg", "j-1", "aimed", Some(1), 5), &[]).refusal_of(Refused::WeaponNotCarried);
    assert_eq!(e, "a-1 does not carry a gpmg (he carries m16)");
    let e = g.when_rolling(shoot("a-1", "m16", "a-2", "aimed", Some(1), 5), &[]).refusal_of(Shared::NotAnEnemy);
    assert_eq!(e, "a-2 is on a-1's own side: fire at an enemy figure");
    let g2 = given_with(armed(true), &[])
        .decided(json!({"type": "casualty", "figure": "j-2", "effect": "killed", "reason": "test"}))
        .decided_all(&[
            json!({"type": "begin-turn"}),
            json!({"type": "begin-operations"}),
            json!({"type": "activate", "unit": "a"}),
            json!({"type": "spend-cp"}),
        ]);
    let e = g2.when_rolling(shoot("a-1", "m16", "j-2", "aimed", Some(1), 5), &[]).refusal_of(Shared::OutOfPlay);
    assert_eq!(e, "j-2 is out of play and cannot be fired at");
}

/// Shaken figures not rallied "can only perform ragged fire"; "Panicked
/// figures can only use ragged fire"; "Fanatic figures can only use ragged fire."
#[test]
fn shaken_panicked_and_fanatical_figures_fire_only_ragged() {
    for (morale, kind, refused) in [
        ("shaken", Refused::ShakenFigure, "a-1 is Shaken and was not rallied: \"the Shaken figures will not move or perform actions, and can only perform ragged fire\""),
        ("panicked", Refused::PanickedFlees, "a-1 is Panicked: he flees towards cover, or fires ragged (\"Panicked figures can only use ragged fire\")"),
        ("fanatical", Refused::RaggedFireOnly, "a-1 is Fanatical and can only use ragged fire"),
    ] {
        // A Shaken figure is abandoned (a-2, the one Bold figure, checks) before the CP.
        let g = given_with(with_figure(armed(true), "a-1", "morale", json!(morale)), &[])
            .decided_all(&[
                json!({"type": "begin-turn"}),
                json!({"type": "begin-operations"}),
                json!({"type": "activate", "unit": "a"}),
            ]);
        let g = if morale == "shaken" {
            g.decided_rolling(json!({"type": "abandon"}), &[("check:a-2", &[0])])
        } else {
            g
        }
        .decided(json!({"type": "spend-cp"}));
        let e = g.when_rolling(shoot("a-1", "m16", "j-1", "aimed", Some(1), 5), &[]).refusal_of(kind);
        assert_eq!(e, refused);
        g.when_rolling(shoot("a-1", "m16", "j-1", "ragged", None, 5), &[("hit:a-1", &[9, 9, 9])]).facts();
    }
}

/// P11: stray fire is optional and off by default — at odds below 0 every
/// shot misses, and the table's injury dice are surplus; with `stray-fire`
/// each shot strikes, its injury roll reduced by (roll − odds).
#[test]
fn stray_fire_only_under_the_option() {
    let dice: &[(&str, &[u32])] = &[("hit:a-1", &[7, 4, 8]), ("injury:j-1", &[6, 9, 3])];
    let g = firing(armed(true));
    let e = g.when_rolling(shoot("a-1", "m16", "j-1", "aimed", Some(3), -3), dice).refusal_of(Shared::Dice);
    assert_eq!(e, "the table rolled 3 more 'injury:j-1' dice than the rules need");
    let facts = g.when_rolling(shoot("a-1", "m16", "j-1", "aimed", Some(3), -3), &dice[..1]).facts();
    assert_eq!(shots(&facts), [shot(7, false), shot(4, false), shot(8, false)]);
    let g = firing_with(armed(true), &["stray-fire"]);
    let facts = g.when_rolling(shoot("a-1", "m16", "j-1", "aimed", Some(3), -3), dice).facts();
    let strays: Vec<Option<i64>> = shots(&facts).iter().map(|s| s.stray).collect();
    assert_eq!(strays, [Some(-10), Some(-7), Some(-11)]);
    let totals: Vec<i64> = facts
        .iter()
        .filter_map(|f| match f {
            Fact::InjuryRolled { total, .. } => Some(*total),
            _ => None,
        })
        .collect();
    assert_eq!(totals, [-1, 5, -5]);
}

/// P9: without an injury table the referee gives the effect after the roll,
/// and nothing else happens until he has.
#[test]
fn without_a_table_the_referee_gives_the_effect() {
    let g = firing(armed(false))
        .decided_rolling(shoot("a-1", "m16", "j-1", "aimed", Some(1), 5), &[("hit:a-1", &[1]), ("injury:j-1", &[4])]);
    let e = g
        .when_rolling(json!({"type": "actions", "actions": [{"type": "hold", "figure": "a-2"}]}), &[])
        .refusal_of(Refused::InjuryDue);
    assert_eq!(e, "the referee must first give the injury effect of the hit on j-1 (roll 7 with modifiers; the scenario has no injury table)");
    let e = g
        .when_rolling(json!({"type": "injury", "target": "j-2", "effect": "graze"}), &[])
        .refusal_of(Refused::InjuryDue);
    assert_eq!(
        e,
        "the oldest hit waiting for an injury effect is on j-1 (roll 7 with modifiers): give its effect first"
    );
    let facts = g.when_rolling(json!({"type": "injury", "target": "j-1", "effect": "graze"}), &[]).facts();
    assert_eq!(
        told(&facts)[..2],
        ["The referee reads a Graze for j-1's roll of 7.", "j-1 goes from Bold to Shaken (a Graze)."]
    );
    let g = g.decided(json!({"type": "injury", "target": "j-1", "effect": "graze"}));
    let e = g
        .when_rolling(json!({"type": "injury", "target": "j-1", "effect": "graze"}), &[])
        .refusal_of(Refused::NoInjuryDue);
    assert_eq!(e, "no hit is waiting for an injury effect");
}

fn injured(morale: &str, effect: &str, knockout: &[u32]) -> Vec<Fact> {
    let g = firing(with_figure(armed(false), "j-1", "morale", json!(morale)))
        .decided_rolling(shoot("a-1", "m16", "j-1", "aimed", Some(1), 5), &[("hit:a-1", &[1]), ("injury:j-1", &[4])]);
    let dice: &[(&str, &[u32])] = &[("knockout:j-1", knockout)];
    g.when_rolling(
        json!({"type": "injury", "target": "j-1", "effect": effect}),
        if knockout.is_empty() { &[] } else { dice },
    )
    .facts()
}

fn morale_after(facts: &[Fact]) -> Option<Morale> {
    facts.iter().find_map(|f| match f {
        Fact::MoraleChanged { to, .. } => Some(*to),
        _ => None,
    })
}

/// "A Graze result reduces the Morale of a Bold target to Shaken, and a
/// Shaken target to Panicked. It has no effect on Fanatical or Panicked targets."
#[test]
fn a_graze_shakes_the_bold_and_panics_the_shaken() {
    assert_eq!(morale_after(&injured("bold", "graze", &[])), Some(Morale::Shaken));
    assert_eq!(morale_after(&injured("shaken", "graze", &[])), Some(Morale::Panicked));
    assert_eq!(morale_after(&injured("panicked", "graze", &[])), None);
    assert_eq!(morale_after(&injured("fanatical", "graze", &[])), None);
}

/// "A Light Wound Result requires the target to make a 0-9 roll against his
/// Knockout Chance. If less than or equal to the knockout chance is rolled,
/// the target goes unconscious and is incapacitated. If the character
/// remains conscious … the Morale of a Bold target is reduced to Shaken" —
/// "Fanatical targets suffering a light wound that remain conscious must make
/// a second 0-9 roll against their Knockout Chance. If less than or equal …
/// the fanatical target immediately becomes panicked."
#[test]
fn a_light_wound_knocks_out_at_or_under_the_knockout_chance() {
    let facts = injured("bold", "light-wound", &[3]);
    assert!(facts.iter().any(|f| matches!(f, Fact::FigureRemoved { figure, .. } if figure == "j-1")));
    let facts = injured("bold", "light-wound", &[4]);
    assert_eq!(morale_after(&facts), Some(Morale::Shaken));
    assert_eq!(morale_after(&injured("panicked", "light-wound", &[4])), None);
    let facts = injured("fanatical", "light-wound", &[4, 3]);
    assert_eq!(
        told(&facts)[1..4],
        [
            "j-1's knockout roll: 4 against a Knockout Chance of 3: he stays conscious.",
            "j-1, a fanatic, rolls again: 3 against 3: he panics.",
            "j-1 goes from Fanatical to Panicked (a fanatic's Light Wound)."
        ]
    );
    assert_eq!(morale_after(&injured("fanatical", "light-wound", &[4, 4])), None);
}

#[test]
fn a_light_wound_needs_a_knockout_chance() {
    let s = with_figure(armed(false), "j-1", "knockout_chance", Value::Null);
    let g = firing(s)
        .decided_rolling(shoot("a-1", "m16", "j-1", "aimed", Some(1), 5), &[("hit:a-1", &[1]), ("injury:j-1", &[4])]);
    let e = g
        .when_rolling(json!({"type": "injury", "target": "j-1", "effect": "light-wound"}), &[])
        .refusal_of(Refused::NoKnockoutChance);
    assert_eq!(
        e,
        "j-1's Light Wound calls for a roll against his Knockout Chance, but the scenario gives him no knockout_chance"
    );
}

/// "A Critical Wound result means that the Character has been immediately
/// Incapacitated and is removed from play." A leader so removed: brevet.
#[test]
fn a_critical_wound_removes_the_figure() {
    let g = firing(armed(true));
    let facts = g
        .when_rolling(shoot("a-1", "m16", "j-lead", "aimed", Some(1), 5), &[("hit:a-1", &[0]), ("injury:j-lead", &[9])])
        .facts();
    assert!(facts.iter().any(|f| matches!(f, Fact::LeaderLost { succession: Succession::Brevet, .. })));
}

/// `figure` advances 4" along y, then fires at j-1.
fn advance_and_shoot(figure: &str, weapon: &str, mode: &str, line: u32) -> Value {
    let x = if figure == "a-lead" { 0 } else { 20 };
    json!({"type": "actions", "actions": [{"type": "fire", "figure": figure, "move_to": [x, 40], "weapon": weapon,
        "target": "j-1", "mode": mode, "line": line, "odds": 4}]})
}

/// N42: "Note that a weapon listed as having 1 Shot/Action
/// or 1 Use takes the shooter his entire action to aim and fire" — he does
/// not advance first. Option `one-shot-weapons-after-an-advance`: he may.
#[test]
fn a_one_shot_or_one_use_weapon_takes_the_whole_action() {
    let g = firing(armed(true));
    for weapon in ["law", "pistol"] {
        let e =
            g.when_rolling(advance_and_shoot("a-lead", weapon, "aimed", 1), &[]).refusal_of(Refused::AdvanceAndFire);
        assert!(e.starts_with(&format!("a-lead cannot advance and fire his {weapon}: \"a weapon listed as having 1 Shot/Action or 1 Use takes the shooter his entire action to aim and fire\"")), "{e}");
    }
    // An M16 may be fired after the advance, and the pistol where he stands.
    g.when_rolling(advance_and_shoot("a-lead", "m16", "aimed", 1), &[("hit:a-lead", &[9])]).facts();
    g.when_rolling(shoot("a-lead", "pistol", "j-1", "aimed", Some(1), 4), &[("hit:a-lead", &[9])]).facts();
    let g = firing_with(armed(true), &["one-shot-weapons-after-an-advance"]);
    g.when_rolling(advance_and_shoot("a-lead", "pistol", "aimed", 1), &[("hit:a-lead", &[9])]).facts();
}

/// N47: 2.4 lists "performing disciplined fire" and
/// "advancing and firing" as different actions, so the disciplined extra
/// shot does not follow an advance. Option `disciplined-fire-after-an-advance`.
#[test]
fn disciplined_fire_is_not_advancing_and_firing() {
    let g = firing(armed(true));
    let e = g.when_rolling(advance_and_shoot("a-1", "m16", "disciplined", 2), &[]).refusal_of(Refused::AdvanceAndFire);
    assert_eq!(e, "a-1 cannot advance and fire disciplined: \"performing disciplined fire\" and \"advancing and firing\" are different actions (2.4) — fire aimed after the advance, or disciplined where he stands");
    g.when_rolling(advance_and_shoot("a-1", "m16", "aimed", 2), &[("hit:a-1", &[9, 9])]).facts();
    let g = firing_with(armed(true), &["disciplined-fire-after-an-advance"]);
    let facts = g.when_rolling(advance_and_shoot("a-1", "m16", "disciplined", 2), &[("hit:a-1", &[9, 9, 9])]).facts();
    assert_eq!(shots(&facts).len(), 3);
}

/// N45: "The Weapons Tables provide information on
/// Range" — a weapon's range, when the scenario gives it, bounds the fire,
/// measured from where the shooter stands after his advance.
#[test]
fn fire_beyond_the_weapons_range_is_refused() {
    let mut s = armed(true);
    s["weapons"]["m16"]["range_tenths"] = json!(260);
    let g = firing(s);
    let e = g.when_rolling(shoot("a-1", "m16", "j-1", "aimed", Some(1), 4), &[]).refusal_of(Refused::OutOfWeaponRange);
    assert_eq!(e, "j-1 is 30.0\" from a-1, beyond the range of his m16 (26.0\"): \"The Weapons Tables provide information on Range\"");
    g.when_rolling(advance_and_shoot("a-1", "m16", "aimed", 1), &[("hit:a-1", &[9])]).facts();
    // A weapon without a range is the referee's to judge.
    g.when_rolling(shoot("a-lead", "gpmg", "j-1", "aimed", Some(1), 4), &[("hit:a-lead", &[9])]).facts();
}
