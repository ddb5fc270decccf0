//! 2.7 Melee: a figure moves into base contact and declares an attack; the
//! target engages or tries to escape; the attacker rolls under his Melee
//! Attack Value.

use crate::dice::Dice;
use crate::geometry::Point;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::consequences::complete_step_if_done;
use super::fire::hit;
use super::lookup::{self, inches, Facts};
use super::{Action, Fact, Figure, Refused, State};

/// Whether `f` may declare a melee attack on `target`.
///
/// "To make a Melee attack, a figure must move to where his base is touching
/// the base of his target and declare a Melee attack." Base contact is the
/// referee's judgement; the move to it is at most a standard move.
pub(super) fn check_melee(state: &State, f: &Figure, target: &str, move_to: Option<Point>) -> Result<(), Violation> {
    let t = lookup::figure(state, target)?;
    if !t.in_play() {
        refuse!(Shared::OutOfPlay, "{target} is out of play and cannot be attacked");
    }
    if t.side == f.side {
        refuse!(Shared::NotAnEnemy, "{target} is on {}'s own side: a melee attack is on an enemy figure", f.id);
    }
    if f.melee_attack_value.is_none() {
        refuse!(Refused::NoMeleeAttackValue, "{} has no Melee Attack Value in the scenario", f.id);
    }
    if let Some(to) = move_to {
        let allowance = f.standard_move(&state.config);
        if !f.at.within(to, allowance) {
            refuse!(
                Refused::BeyondMove,
                "{} cannot move from {} to {to} to attack: that is {} and a standard move is {}",
                f.id,
                f.at,
                inches(f.at.distance_ceil(to)),
                inches(allowance)
            );
        }
    }
    Ok(())
}

/// The target answers a melee attack.
///
/// "The target figure then decides if he wishes to engage in melee or
/// escape. Assuming the target engages in melee, the attacker rolls a 0-9
/// number; if the number rolled is less than his Melee Attack Value, the
/// attack hits. Any successful attacks roll on the Hit Location and Injury
/// Table using the appropriate Melee column for unarmoured targets or targets
/// wearing Body Armour. If the target instead wishes to escape, there is an
/// additional +5 to the attacker's Melee Attack Value. If the target
/// survives this attack, the target can then perform actions normally." The
/// attack is rolled `melee:<attacker>`; an escaping target who survives
/// moves away (at most a standard move), or, under
/// `melee-escape-without-moving`, only later on his own unit's CP (N50).
pub(super) fn respond(
    state: &State,
    escape: bool,
    escape_to: Option<Point>,
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let Some(m) = state.turn.as_ref().and_then(|t| t.melee.clone()) else {
        refuse!(Refused::NoMeleeWaiting, "no melee attack is waiting for an answer");
    };
    let attacker = lookup::figure(state, &m.attacker)?;
    let target = lookup::figure(state, &m.target)?;
    if escape_to.is_some() && !escape {
        refuse!(Refused::EngagedStays, "{} engages in melee: only an escaping target moves away", target.id);
    }
    if escape_to.is_some() && state.config.melee_escape_without_moving {
        refuse!(Refused::EscapeWithoutMoving, "{} escapes without moving now (melee-escape-without-moving): \"If the target survives this attack, the target can then perform actions normally\" — he moves on his own unit's CP", target.id);
    }
    if let Some(to) = escape_to {
        let allowance = target.standard_move(&state.config);
        if !target.at.within(to, allowance) {
            refuse!(
                Refused::BeyondMove,
                "{} cannot escape to {to}: that is {} and a standard move is {}",
                target.id,
                inches(target.at.distance_ceil(to)),
                inches(allowance)
            );
        }
    }
    let bonus = if escape { state.config.melee_escape_bonus } else { 0 };
    let value = attacker.melee_attack_value.unwrap_or(0).saturating_add(bonus);
    let roll = dice.d10(&format!("melee:{}", attacker.id))?;
    let struck = i64::from(roll) < value;
    facts.push(Fact::MeleeRolled {
        attacker: attacker.id.clone(),
        target: target.id.clone(),
        escape,
        roll,
        value,
        hit: struck,
    });
    if struck {
        hit(facts, &attacker.id, &target.id, 0, 0, 0, true, dice)?;
    }
    if let Some(to) = escape_to {
        let t = &facts.state().figures[m.target.as_str()];
        if t.in_play() {
            let from = t.at;
            facts.push(Fact::Escaped { figure: m.target.clone(), from, to });
        }
    }
    complete_step_if_done(facts);
    Ok(())
}

/// A melee attack waiting for its answer is void once its attacker or its
/// target has left play (the referee's effect of an earlier hit on the same
/// CP): nobody is left to answer it, or to strike (N36). The CP goes on.
pub(super) fn settle_melee(facts: &mut Facts) {
    let state = facts.state();
    let Some(m) = state.turn.as_ref().and_then(|t| t.melee.clone()) else {
        return;
    };
    let gone =
        [&m.attacker, &m.target].into_iter().find(|f| !state.figures.get(f.as_str()).is_some_and(|f| f.in_play()));
    if let Some(gone) = gone {
        let reason = format!("{gone} is out of play");
        let action = Action::Melee { figure: m.attacker.clone(), target: m.target.clone(), move_to: None };
        facts.push(Fact::ActionVoided { figure: m.attacker, action, reason });
    }
}
