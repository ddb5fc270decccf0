//! 2.6 Weapons Fire: who may fire, how many shots, each shot a 0–9 roll
//! against the Odds of Hitting, the hits a shot scores, intervening cover,
//! optional stray fire, the hit location and injury roll, and what an injury
//! does to a figure.
//!
//! The Odds of Hitting and Hit Location and Injury tables are not in the
//! text (P9): a fire decision carries the odds it reads from them; the
//! injury effect comes from the scenario's table when it has one, else from
//! the referee (`injury`) after the roll.

use crate::dice::Dice;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::consequences::{drop_morale, remove_figure};
use super::lookup::{self, inches, Facts};
use crate::geometry::Point;

use super::{Fact, FireMode, Injury, Morale, Refused, Shot, State, Weapon};

/// A figure's order to fire, as an action or in an interrupt.
pub(super) struct FireOrder<'a> {
    pub figure: &'a str,
    /// Where he advances to first ("advancing and firing"); none in an
    /// interrupt.
    pub move_to: Option<Point>,
    pub weapon: &'a str,
    pub target: &'a str,
    pub mode: FireMode,
    pub line: Option<u32>,
    pub odds: i64,
    pub cover_pf: u32,
    pub cover_at: Option<Point>,
}

/// The shots a legal order fires, and the odds they are rolled against.
pub(super) struct Volley<'a> {
    pub weapon: &'a Weapon,
    pub shots: u32,
    pub odds: i64,
}

/// Whether, and how, a figure may fire.
///
/// "Units which have performed strategic movement in the turn or units which
/// have used the Double-time advance in their action are not eligible to
/// fire." (A double-time advance is a whole action, so it never shares one
/// with fire; the option `double-time-bars-fire-for-the-turn` bars fire for
/// the rest of the turn, N15.) — "For figures with multiple weapons, only one weapon may be used
/// per action." — "A weapon listed as 1 Use means that the weapon is
/// disposable and can only be fired once before being discarded." — "a
/// weapon listed as having 1 Shot/Action or 1 Use takes the shooter his
/// entire action to aim and fire. A Shooter, even if willing, cannot use the
/// 2 shot or 3 shot lines on the Odds of Hitting Tables with these weapons.
/// Disciplined fire will not give the shooter an extra shot with these
/// weapons." — disciplined fire: "a figure may take an additional shot
/// without modification to their odds of hitting"; ragged fire: "he fires at
/// the maximum rate of fire for his weapon … and all are performed at a –2
/// penalty … cannot take any shots over and above the 3 shot maximum". Only
/// ragged fire for Shaken figures not rallied ("can only perform ragged
/// fire"), Panicked figures and fanatics ("can only use ragged fire").
pub(super) fn check_fire<'a>(state: &'a State, order: &FireOrder) -> Result<Volley<'a>, Violation> {
    let f = lookup::figure(state, order.figure)?;
    let Some(weapon) = state.weapons.get(order.weapon).filter(|_| f.weapons.iter().any(|w| w == order.weapon)) else {
        refuse!(
            Refused::WeaponNotCarried,
            "{} does not carry a {} (he carries {})",
            f.id,
            order.weapon,
            if f.weapons.is_empty() { "no weapon".to_string() } else { f.weapons.join(", ") }
        );
    };
    let name = weapon.name.as_deref().unwrap_or(order.weapon);
    if f.used_weapons.contains(order.weapon) {
        refuse!(Refused::OneUse, "{} has already fired his {name}: \"A weapon listed as 1 Use means that the weapon is disposable and can only be fired once before being discarded.\"", f.id);
    }
    if f.double_timed && state.config.double_time_bars_fire_for_the_turn {
        refuse!(Refused::DoubleTimeBarsFire, "{} double-time advanced this turn and may not fire (double-time-bars-fire-for-the-turn): \"units which have used the Double-time advance in their action are not eligible to fire\"", f.id);
    }
    if state.units.get(f.unit.as_str()).is_some_and(|u| u.strategic) {
        refuse!(Refused::StrategicMovementBarsFire, "{} moved strategically this turn and may not fire: \"Units which have performed strategic movement in the turn … are not eligible to fire\"", f.unit);
    }
    let t = lookup::figure(state, order.target)?;
    if !t.in_play() {
        refuse!(Shared::OutOfPlay, "{} is out of play and cannot be fired at", t.id);
    }
    if t.side == f.side {
        refuse!(Shared::NotAnEnemy, "{} is on {}'s own side: fire at an enemy figure", t.id, f.id);
    }
    // "The Weapons Tables provide information on Range" (N45).
    let from = order.move_to.unwrap_or(f.at);
    if let Some(range) = weapon.range_tenths.filter(|r| !from.within(t.at, *r)) {
        refuse!(
            Refused::OutOfWeaponRange, "{} is {} from {}, beyond the range of his {name} ({}): \"The Weapons Tables provide information on Range\"",
            t.id,
            inches(from.distance_ceil(t.at)),
            f.id,
            inches(range)
        );
    }
    if order.mode != FireMode::Ragged && f.morale != Morale::Bold {
        refuse!(Refused::RaggedFireOnly, "{} is {} and can only use ragged fire", f.id, f.morale.name());
    }
    if weapon.explosive && order.cover_pf > 0 && order.cover_at.is_none() {
        refuse!(Refused::ExplosiveNeedsCover, "a {name} is explosive and \"Explosive weapons detonate on the intervening cover\": give where the cover stands (cover_at)");
    }
    let one_shot = weapon.one_shot_per_action || weapon.one_use;
    if order.move_to.is_some() {
        refuse_after_an_advance(state, order, name, one_shot)?;
    }
    let (shots, odds) = match order.mode {
        FireMode::Aimed | FireMode::Disciplined => {
            let Some(line) = order.line else {
                refuse!(Refused::ShotLine, "{} must choose the 1, 2 or 3 shot line to fire", f.id);
            };
            if line == 0 || line > weapon.max_shots {
                if one_shot {
                    refuse!(Refused::ShotLine, "a {name} is a 1 Shot/Action or 1 Use weapon: \"A Shooter, even if willing, cannot use the 2 shot or 3 shot lines on the Odds of Hitting Tables with these weapons.\"");
                }
                refuse!(Refused::ShotLine, "a {name} fires 1 to {} shots an action, not {line}", weapon.max_shots);
            }
            let extra =
                if order.mode == FireMode::Disciplined && !one_shot { state.config.disciplined_extra_shots } else { 0 };
            (line.saturating_add(extra), order.odds)
        }
        FireMode::Ragged => {
            if order.line.is_some_and(|l| l != weapon.max_shots) {
                refuse!(
                    Refused::ShotLine,
                    "ragged fire is at the maximum rate of fire: a {name} fires {} shots",
                    weapon.max_shots
                );
            }
            (weapon.max_shots, order.odds.saturating_add(state.config.ragged_fire_modifier))
        }
    };
    Ok(Volley { weapon, shots, odds })
}

/// What may not be fired after a standard move in the same action.
///
/// "Note that a weapon listed as having 1 Shot/Action or 1 Use takes the
/// shooter his entire action to aim and fire" (N42; option
/// `one-shot-weapons-after-an-advance`). — 2.4 lists "performing disciplined
/// fire" and "advancing and firing" as different actions (N47; option
/// `disciplined-fire-after-an-advance`).
fn refuse_after_an_advance(state: &State, order: &FireOrder, name: &str, one_shot: bool) -> Result<(), Violation> {
    if one_shot && !state.config.one_shot_weapons_after_an_advance {
        refuse!(Refused::AdvanceAndFire, "{} cannot advance and fire his {name}: \"a weapon listed as having 1 Shot/Action or 1 Use takes the shooter his entire action to aim and fire\" — fire it where he stands", order.figure);
    }
    if order.mode == FireMode::Disciplined && !state.config.disciplined_fire_after_an_advance {
        refuse!(Refused::AdvanceAndFire, "{} cannot advance and fire disciplined: \"performing disciplined fire\" and \"advancing and firing\" are different actions (2.4) — fire aimed after the advance, or disciplined where he stands", order.figure);
    }
    Ok(())
}

/// Whether a figure has anything he may fire now at some figure of unit
/// `at`, whatever the mode: a weapon he carries that is not a spent 1 Use
/// weapon and whose range (when the scenario gives one, N45) reaches a
/// figure of that unit in play, and nothing barring him from fire this turn
/// (strategic movement; a double-time advance, under
/// `double-time-bars-fire-for-the-turn`). A figure who fails his hold-fire
/// check but has nothing to fire cannot blow the ambush (N33).
pub(super) fn able_to_fire(state: &State, figure: &str, at: &str) -> bool {
    let Some(f) = state.figures.get(figure).filter(|f| f.in_play()) else {
        return false;
    };
    if f.double_timed && state.config.double_time_bars_fire_for_the_turn {
        return false;
    }
    if state.units.get(f.unit.as_str()).is_some_and(|u| u.strategic) {
        return false;
    }
    let targets: Vec<Point> = state.figures_in_order().filter(|t| t.in_play() && t.unit == at).map(|t| t.at).collect();
    f.weapons.iter().filter(|w| !f.used_weapons.contains(*w)).filter_map(|w| state.weapons.get(w)).any(|w| {
        match w.range_tenths {
            None => !targets.is_empty(),
            Some(range) => targets.iter().any(|t| f.at.within(*t, range)),
        }
    })
}

/// Fires a checked order: a 0–9 roll per shot (`hit:<shooter>`), hits,
/// and each hit's injury.
///
/// "The player then rolls a 0 to 9 number for each shot being taken by the
/// figure; if the number rolled is less than or equal to the final Odds of
/// Hitting, the target has been hit by that shot." — "“2 hits @ 60” … the
/// weapon strikes twice at a PEN of 60 for each successful shot. Each of
/// these hits is resolved independently". — "if there is intervening cover
/// between the shooter and the target, then the projectile's PEN for
/// non-explosive ammunition is reduced by the PF of any intervening cover".
/// Optional stray fire (P11, `stray-fire`): "Where … the shooter's Odds of
/// Hitting are less than zero (0), have the shooter roll 0-9. Take the
/// difference between the shooter's 0-9 roll, and the odds of hitting, and
/// subtract this from the hit location and injury roll." Every shot is
/// rolled whatever the odds, so rule versions agree on the dice they share.
pub(super) fn fire(facts: &mut Facts, order: &FireOrder, volley: &Volley, dice: &mut Dice) -> Result<(), Violation> {
    let state = facts.state();
    let shooter = state.figures[order.figure].clone();
    let weapon = volley.weapon.clone();
    let stray_fire = state.config.stray_fire && volley.odds < 0;
    let mut shots = Vec::new();
    for _ in 0..volley.shots {
        let roll = dice.d10(&format!("hit:{}", order.figure))?;
        let stray = stray_fire.then(|| -(i64::from(roll) - volley.odds));
        shots.push(Shot { roll, hit: i64::from(roll) <= volley.odds || stray.is_some(), stray });
    }
    let pen = if weapon.explosive { weapon.pen } else { weapon.pen.saturating_sub(order.cover_pf) };
    facts.push(Fact::Fired {
        unit: shooter.unit.clone(),
        figure: order.figure.to_string(),
        weapon: order.weapon.to_string(),
        target: order.target.to_string(),
        mode: order.mode,
        odds: volley.odds,
        shots: shots.clone(),
        hits_per_shot: weapon.hits_per_shot,
        pen,
        one_use: weapon.one_use,
    });
    if weapon.explosive {
        for shot in &shots {
            blast(facts, order, &weapon, shot.hit, dice)?;
        }
        return Ok(());
    }
    for shot in shots.iter().filter(|s| s.hit) {
        for _ in 0..weapon.hits_per_shot {
            hit(facts, order.figure, order.target, weapon.sdm, shot.stray.unwrap_or(0), pen, false, dice)?;
        }
    }
    Ok(())
}

/// Where face k of the deviation d10 points, 4" out: k × 36° clockwise from
/// +y, in tenths of an inch, rounded to the nearest tenth.
const DEVIATION: [(i64, i64); 10] =
    [(0, 40), (24, 32), (38, 12), (38, -12), (24, -32), (0, -40), (-24, -32), (-38, -12), (-38, 12), (-24, 32)];

/// An explosive shot bursts.
///
/// "Weapons which have a (B) following their PEN have a significant blast
/// effect. … All figures near the target may be injured, with injury effects
/// taken from the Explosive Injury Table after cross indexing the weapon's
/// SDM with the figure's range from the blast centre" (the weapon's blast
/// ranges, scenario data). — "Explosive weapons detonate on the intervening
/// cover." — "If the explosive weapon misses its target, roll a ten-sided
/// die. The direction the upper corner of the first die points is the
/// direction the explosive warhead deviates. The explosive warhead detonates
/// 4" away from the target in the direction of deviation." The die is
/// `deviation:<shooter>`, its face read as a direction (see `DEVIATION`).
fn blast(
    facts: &mut Facts,
    order: &FireOrder,
    weapon: &Weapon,
    struck: bool,
    dice: &mut Dice,
) -> Result<(), Violation> {
    let target_at = facts.state().figures[order.target].at;
    let (at, deviation, on_cover) = if struck {
        match order.cover_at {
            Some(cover) => (cover, None, true),
            None => (target_at, None, false),
        }
    } else {
        let face = dice.d10(&format!("deviation:{}", order.figure))?;
        let (dx, dy) = DEVIATION[face as usize];
        let d = i64::try_from(facts.state().config.explosive_deviation_tenths).unwrap_or(i64::MAX);
        let at = Point { x: target_at.x + dx * d / 40, y: target_at.y + dy * d / 40 };
        (at, Some(face), false)
    };
    let caught: Vec<(String, u64, Injury)> = facts
        .state()
        .figures
        .values()
        .filter(|f| f.in_play())
        .filter_map(|f| {
            weapon
                .blast
                .iter()
                .find(|ring| at.within(f.at, ring.within_tenths))
                .map(|ring| (f.id.clone(), at.distance_ceil(f.at), ring.effect))
        })
        .collect();
    facts.push(Fact::Blast {
        shooter: order.figure.to_string(),
        weapon: order.weapon.to_string(),
        at,
        deviation,
        on_cover,
        caught: caught.clone(),
    });
    for (figure, _, effect) in caught {
        injure(facts, &figure, effect, dice)?;
    }
    Ok(())
}

/// The effect a roll reads on the scenario's table: the column for the PEN
/// over the target's armour PF, the row for the roll. None without a table.
fn table_effect(state: &State, pen_over_pf: i64, total: i64) -> Option<Injury> {
    let columns = state.injury_table.as_ref()?;
    let Some(column) = columns.iter().rev().find(|c| c.pen_over_pf <= pen_over_pf) else {
        return Some(Injury::None);
    };
    Some(column.rows.iter().rev().find(|r| r.from <= total).map_or(Injury::None, |r| r.effect))
}

/// One hit on a figure: the hit location and injury roll (`injury:<target>`).
///
/// "Make a 0-9 roll on the appropriate column of the Hit Location and Injury
/// Table to determine the result. Add the Weapons System Damage Modifier
/// (SDM) to the roll to determine the final Injury Effect." A hit on a
/// figure already out of play (an earlier hit of the same fire) does nothing.
#[allow(clippy::too_many_arguments)]
pub(super) fn hit(
    facts: &mut Facts,
    shooter: &str,
    target: &str,
    sdm: i64,
    stray: i64,
    pen: u32,
    melee: bool,
    dice: &mut Dice,
) -> Result<(), Violation> {
    let t = facts.state().figures[target].clone();
    if !t.in_play() {
        return Ok(());
    }
    let roll = dice.d10(&format!("injury:{target}"))?;
    let total = i64::from(roll) + sdm + stray;
    let effect = if melee {
        facts.state().melee_injury_table.as_ref().map(|m| {
            let rows = if t.armour_pf > 0 { &m.armoured } else { &m.unarmoured };
            rows.iter().rev().find(|r| r.from <= total).map_or(Injury::None, |r| r.effect)
        })
    } else {
        table_effect(facts.state(), i64::from(pen) - i64::from(t.armour_pf), total)
    };
    facts.push(Fact::InjuryRolled {
        target: target.to_string(),
        shooter: shooter.to_string(),
        roll,
        sdm,
        stray,
        total,
        effect,
        melee,
    });
    if let Some(effect) = effect {
        injure(facts, target, effect, dice)?;
    }
    Ok(())
}

/// Referee: the effect of the oldest hit waiting for one (P9: "else from a
/// referee event after the rolled 0–9").
pub(super) fn rule_injury(
    state: &State,
    target: &str,
    effect: Injury,
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let Some(first) = state.turn.as_ref().and_then(|t| t.pending_injuries.first()) else {
        refuse!(Refused::NoInjuryDue, "no hit is waiting for an injury effect");
    };
    if first.target != target {
        refuse!(
            Refused::InjuryDue,
            "the oldest hit waiting for an injury effect is on {} (roll {} with modifiers): give its effect first",
            first.target,
            first.total
        );
    }
    facts.push(Fact::InjuryRuled { target: target.to_string(), total: first.total, effect });
    injure(facts, target, effect, dice)
}

/// What an injury does.
///
/// "A Graze result reduces the Morale of a Bold target to Shaken, and a
/// Shaken target to Panicked. It has no effect on Fanatical or Panicked
/// targets." — "A Light Wound Result requires the target to make a 0-9 roll
/// against his Knockout Chance. If less than or equal to the knockout chance
/// is rolled, the target goes unconscious and is incapacitated. If the
/// character remains conscious, he can act normally, but the Morale of a
/// Bold target is reduced to Shaken, and a Shaken target to Panicked. A Light
/// Wound has no effect on the Morale of a Panicked target." — "Fanatical
/// targets suffering a light wound that remain conscious must make a second
/// 0-9 roll against their Knockout Chance. If less than or equal to the
/// knockout chance is rolled, the fanatical target immediately becomes
/// panicked." — "A Critical Wound result means that the Character has been
/// immediately Incapacitated and is removed from play." Knockout rolls are
/// labelled `knockout:<figure>`.
pub(super) fn injure(facts: &mut Facts, target: &str, effect: Injury, dice: &mut Dice) -> Result<(), Violation> {
    let t = facts.state().figures[target].clone();
    if !t.in_play() {
        return Ok(());
    }
    match effect {
        Injury::None => {}
        Injury::Graze => drop_morale(facts, target, "a Graze"),
        Injury::CriticalWound => remove_figure(facts, target, "incapacitated: a Critical Wound"),
        Injury::LightWound => {
            let Some(chance) = t.knockout_chance else {
                refuse!(Refused::NoKnockoutChance, "{target}'s Light Wound calls for a roll against his Knockout Chance, but the scenario gives him no knockout_chance");
            };
            let label = format!("knockout:{target}");
            let roll = dice.d10(&label)?;
            let out = i64::from(roll) <= chance;
            facts.push(Fact::KnockoutRolled { figure: target.to_string(), roll, chance, fanatic: false, under: out });
            if out {
                remove_figure(facts, target, "incapacitated: knocked unconscious by a Light Wound");
            } else if t.morale == Morale::Fanatical {
                let roll = dice.d10(&label)?;
                let panics = i64::from(roll) <= chance;
                facts.push(Fact::KnockoutRolled {
                    figure: target.to_string(),
                    roll,
                    chance,
                    fanatic: true,
                    under: panics,
                });
                if panics {
                    facts.push(Fact::MoraleChanged {
                        figure: target.to_string(),
                        from: Morale::Fanatical,
                        to: Morale::Panicked,
                        reason: "a fanatic's Light Wound".into(),
                    });
                }
            } else {
                drop_morale(facts, target, "a Light Wound");
            }
        }
    }
    Ok(())
}
