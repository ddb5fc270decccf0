//! 2.8 Morale: figures' morale states, and the unit's — Shaken when most of
//! its figures are, Broken when most have panicked.

use std::collections::BTreeMap;

use crate::dice::Dice;
use crate::geometry::Point;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::consequences::{check_figure, end_activation, remove_figure};
use super::interrupts::premature_checks_for;
use super::lookup::{
    self, active_unit_between_steps, inches, list, majority, members, refuse_before_composure,
    refuse_unless_leader_composed, refuse_while_taking_command, shaken_figures, Facts,
};
use super::{Activation, Fact, Figure, Morale, Refused, Spend, State, Unit, UnitMorale};

/// The unit a morale order is for: the active unit, or a unit its leader
/// commands and has joined.
///
/// "If the leader has no CP, the leader's superior officer can move to join
/// the unit and expend his own CP to rally the unit." — "A commanding
/// officer can attempt to rendezvous with the unit as it routs and may use
/// his CP to rally and steady the unit and its members." Joined: within his
/// command distance of the unit's leader (or of every figure, leaderless).
/// The first sentence holds only while "the leader has no CP" (N27): the
/// unit's accumulated CP (those held for an interrupt are already spent on
/// it); the second, for a unit that routs, has no such condition, and covers
/// its steadying and the rally of its members (version 1 asked neither).
fn morale_target<'a>(state: &'a State, payer: &'a Unit, unit: Option<&str>) -> Result<&'a Unit, Violation> {
    let Some(id) = unit.filter(|id| *id != payer.id) else {
        return Ok(payer);
    };
    let target = lookup::unit(state, id)?;
    let Some(officer) = lookup::leader(state, payer) else {
        refuse!(Refused::NoLeader, "{} has no leader to give orders", payer.id);
    };
    let commands = state.organisations.values().any(|o| {
        o.leader.as_deref() == Some(officer.id.as_str())
            && o.id != target.id
            && lookup::is_within(state, &target.id, &o.id)
    });
    if target.side != payer.side || !commands {
        refuse!(
            Refused::NotHisUnit, "{} does not command {id}: only its leader, or a superior officer who has joined it, spends CP on its morale",
            officer.id
        );
    }
    let range = officer.command_distance_tenths;
    let near = match lookup::leader(state, target) {
        Some(l) => vec![l],
        None => members(state, id),
    };
    if let Some(far) = near.iter().find(|f| !officer.at.within(f.at, range)) {
        refuse!(
            Refused::SuperiorNotJoined,
            "{} has not joined {id}: {} is {} away, beyond his command distance of {}",
            officer.id,
            far.id,
            inches(officer.at.distance_ceil(far.at)),
            inches(range)
        );
    }
    if state.config.superior_only_when_the_leader_has_no_cp && target.cp > 0 && !routing(target) {
        refuse!(
            Refused::LeaderHasCp, "{id}'s leader {} has {} CP: \"If the leader has no CP, the leader's superior officer can move to join the unit and expend his own CP to rally the unit\" — its leader rallies it",
            target.leader.as_deref().unwrap_or("?"),
            target.cp
        );
    }
    Ok(target)
}

/// A unit that routs, for its commanding officer: Broken, or steadied this
/// turn from its rout into cover ("A commanding officer can attempt to
/// rendezvous with the unit as it routs and may use his CP to rally and
/// steady the unit and its members").
fn routing(u: &Unit) -> bool {
    u.morale == UnitMorale::Broken || (u.in_cover && u.restored)
}

/// Spends the morale order's CP from the active unit, with the checks of
/// any ambush lying in wait for it (P7).
fn spend(facts: &mut Facts, a: &Activation, payer: &Unit, on: Spend, dice: &mut Dice) -> Result<(), Violation> {
    let cost = facts.state().config.morale_cp;
    if payer.cp < cost {
        refuse!(Refused::NoCp, "{} has {} CP and this costs {cost}", payer.id, payer.cp);
    }
    facts.push(Fact::CpSpent { unit: payer.id.clone(), number: a.spent + 1, cp: cost, on, cp_left: payer.cp - cost });
    premature_checks_for(facts, &payer.id, cost, dice)
}

/// Ends the activation once the last CP is spent.
fn end_if_spent(facts: &mut Facts) {
    let state = facts.state();
    let spent = state
        .turn
        .as_ref()
        .and_then(|t| t.activation.as_ref())
        .is_some_and(|a| a.step.is_none() && state.units.get(a.unit.as_str()).map_or(0, |u| u.cp) == 0);
    if spent {
        end_activation(facts);
    }
}

/// "If the leader of a unit has been Shaken or Panicked, the leader must
/// expend 1 CP composing himself before he can expend any further CP. On
/// completing a self-rally, the leader is returned to a Bold morale state."
/// A fanatic who has panicked "cannot be rallied out of his panic".
pub(super) fn self_rally(state: &State, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "self-rally")?;
    let Some(l) = lookup::leader(state, u) else {
        refuse!(Refused::NoLeader, "{} has no leader", u.id);
    };
    if !matches!(l.morale, Morale::Shaken | Morale::Panicked) {
        refuse!(
            Refused::NothingToRally,
            "{} is {}: only a Shaken or Panicked leader composes himself",
            l.id,
            l.morale.name()
        );
    }
    if l.fanatic {
        refuse!(
            Refused::Fanatic,
            "{} is a fanatic who has panicked: \"Once a fanatic has panicked, he cannot be rallied out of his panic\"",
            l.id
        );
    }
    let leader = l.id.clone();
    let from = l.morale;
    spend(facts, a, u, Spend::SelfRally, dice)?;
    facts.push(Fact::MoraleChanged { figure: leader, from, to: Morale::Bold, reason: "he composes himself".into() });
    end_if_spent(facts);
    Ok(())
}

/// The leader restores a Shaken unit to Bold for the turn, or steadies a
/// Broken unit in cover to Shaken.
///
/// "the leader must expend a CP to restore the Unit Morale to Bold for the
/// turn" — "Once the unit is in cover, the leader must expend a CP to steady
/// the unit to Shaken state, and then expend another CP to steady the unit
/// to Bold state."
pub(super) fn steady_unit(
    state: &State,
    unit: Option<&str>,
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let (a, payer) = active_unit_between_steps(state, "steady a unit")?;
    refuse_while_taking_command(payer, "steady a unit")?;
    refuse_unless_leader_composed(state, payer)?;
    let target = morale_target(state, payer, unit)?;
    let to = match target.morale {
        UnitMorale::Steady => refuse!(Refused::NothingToRally, "{} is neither Shaken nor Broken", target.id),
        UnitMorale::Broken if !target.in_cover => refuse!(
            Refused::SteadyInCover,
            "{} has not reached cover: \"Once the unit is in cover, the leader must expend a CP to steady the unit\"",
            target.id
        ),
        UnitMorale::Broken => UnitMorale::Shaken,
        UnitMorale::Shaken => UnitMorale::Steady,
    };
    let (id, from) = (target.id.clone(), target.morale);
    spend(facts, a, payer, Spend::SteadyUnit, dice)?;
    facts.push(Fact::UnitSteadied { unit: id, from, to });
    end_if_spent(facts);
    Ok(())
}

/// "When a unit decides to perform actions, a leader must first spend 1
/// accumulated CP to rally all shaken figures in his unit."
pub(super) fn rally(state: &State, unit: Option<&str>, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let (a, payer) = active_unit_between_steps(state, "rally")?;
    refuse_while_taking_command(payer, "rally")?;
    refuse_unless_leader_composed(state, payer)?;
    let target = morale_target(state, payer, unit)?;
    refuse_before_composure(state, a, target, "rally its figures")?;
    if target.id == payer.id && a.actions_begun {
        refuse!(Refused::ShakenDealtWithFirst, "{} has begun its actions: \"a leader must first spend 1 accumulated CP to rally all shaken figures in his unit\"", payer.id);
    }
    let shaken = shaken_figures(state, &target.id);
    if shaken.is_empty() {
        refuse!(Refused::NothingToRally, "{} has no Shaken figure to rally", target.id);
    }
    spend(facts, a, payer, Spend::Rally, dice)?;
    for figure in shaken {
        facts.push(Fact::MoraleChanged { figure, from: Morale::Shaken, to: Morale::Bold, reason: "rallied".into() });
    }
    end_if_spent(facts);
    Ok(())
}

/// "A Panicked figure can be rallied and restored to a Bold morale state by
/// the unit's leader expending 1 CP for each panicked figure." — "Once a
/// fanatic has panicked, he cannot be rallied out of his panic". In a Broken
/// unit, after it has been steadied: "Then, he must spend CP to rally each
/// individual panicked member in the unit".
pub(super) fn rally_panicked(
    state: &State,
    figure: &str,
    unit: Option<&str>,
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let (a, payer) = active_unit_between_steps(state, "rally a panicked figure")?;
    refuse_while_taking_command(payer, "rally a panicked figure")?;
    refuse_unless_leader_composed(state, payer)?;
    let target = morale_target(state, payer, unit)?;
    refuse_before_composure(state, a, target, "rally its panicked figures")?;
    let f = lookup::figure(state, figure)?;
    if f.unit != target.id || !f.in_play() {
        refuse!(Refused::NotAFigureOfTheUnit, "{figure} is not a figure of {} in play", target.id);
    }
    if f.morale != Morale::Panicked {
        refuse!(Refused::NothingToRally, "{figure} is {}, not Panicked", f.morale.name());
    }
    if f.fanatic {
        refuse!(
            Refused::Fanatic,
            "{figure} is a fanatic: \"Once a fanatic has panicked, he cannot be rallied out of his panic\""
        );
    }
    spend(facts, a, payer, Spend::RallyPanicked, dice)?;
    facts.push(Fact::MoraleChanged {
        figure: figure.to_string(),
        from: Morale::Panicked,
        to: Morale::Bold,
        reason: "rallied".into(),
    });
    end_if_spent(facts);
    Ok(())
}

/// The leader abandons the unit's Shaken figures.
///
/// "Doing so requires a successful command check for each Bold figure in the
/// unit—any that pass the command check are able to execute actions
/// normally. Those that fail will lag behind by 1 CP." (P6: a failed figure
/// does nothing on the next CP, then acts normally.) Abandoning costs no CP
/// and comes before the unit's actions.
pub(super) fn abandon(state: &State, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "abandon its Shaken figures")?;
    refuse_while_taking_command(u, "abandon its Shaken figures")?;
    refuse_before_composure(state, a, u, "abandon its Shaken figures")?;
    if a.abandoned {
        refuse!(Refused::AbandonOnce, "{} has already abandoned its Shaken figures this activation", u.id);
    }
    if a.actions_begun {
        refuse!(
            Refused::ShakenDealtWithFirst,
            "{} has begun its actions: the Shaken figures are dealt with before them",
            u.id
        );
    }
    let shaken = shaken_figures(state, &u.id);
    if shaken.is_empty() {
        refuse!(Refused::NothingToRally, "{} has no Shaken figure to abandon", u.id);
    }
    let Some(leader) = lookup::leader(state, u) else {
        refuse!(Refused::NoLeader, "{} has no leader", u.id);
    };
    let rating = leader.command_rating.unwrap_or(0);
    let bold: Vec<String> = members(state, &u.id)
        .iter()
        .filter(|f| f.id != leader.id && f.morale == Morale::Bold)
        .map(|f| f.id.clone())
        .collect();
    let mut lagging = Vec::new();
    for figure in bold {
        let check = check_figure(state, &figure, rating, 0, dice)?;
        if !check.passed() {
            lagging.push(figure.clone());
        }
        facts.push(Fact::CommandChecked {
            figure,
            unit: u.id.clone(),
            reason: "the leader abandons the Shaken figures".into(),
            check,
        });
    }
    facts.push(Fact::Abandoned { unit: u.id.clone(), shaken, lagging });
    Ok(())
}

/// A forced rally.
///
/// "To do a Forced Rally, the unit's leader expends a CP and removes one of
/// the Shaken troops in his unit from play. The remaining Shaken and
/// Panicked troops in his unit and in any friendly units within sight of the
/// execution are immediately restored to Bold morale state. The leader
/// performing the forced rally then performs a command check at +2 on each
/// figure in his unit. If the majority of his unit (rounded up) passes, the
/// leader can continue expending CP. If, however, the majority of the unit
/// fails the command check, then the leader is removed from play (shot by
/// his own side) and the unit is Broken." — only "where he has multiple
/// shaken troops in his unit". Which units are within sight is the
/// referee's; fanatics who have panicked stay Panicked ("cannot be rallied
/// out of his panic").
pub(super) fn forced_rally(
    state: &State,
    figure: &str,
    in_sight: &[String],
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "force a rally")?;
    refuse_while_taking_command(u, "force a rally")?;
    refuse_before_composure(state, a, u, "force a rally")?;
    if a.actions_begun {
        refuse!(
            Refused::ShakenDealtWithFirst,
            "{} has begun its actions: the Shaken figures are dealt with before them",
            u.id
        );
    }
    let shaken = shaken_figures(state, &u.id);
    if shaken.len() < 2 {
        refuse!(
            Refused::ForcedRallyMultiple,
            "{} has {} Shaken figure(s): a forced rally is for \"where he has multiple shaken troops in his unit\"",
            u.id,
            shaken.len()
        );
    }
    if !shaken.iter().any(|s| s == figure) {
        refuse!(Refused::NotAFigureOfTheUnit, "{figure} is not one of {}'s Shaken figures ({})", u.id, list(&shaken));
    }
    for other in in_sight {
        let o = lookup::unit(state, other)?;
        if o.side != u.side || o.id == u.id {
            refuse!(Shared::NotFriendly, "{other} is not another friendly unit");
        }
    }
    let Some(leader) = lookup::leader(state, u) else {
        refuse!(Refused::NoLeader, "{} has no leader", u.id);
    };
    let (leader, rating) = (leader.id.clone(), leader.command_rating.unwrap_or(0));
    spend(facts, a, u, Spend::ForcedRally, dice)?;
    remove_figure(facts, figure, "executed by his leader in a forced rally");
    let units: Vec<&str> = std::iter::once(u.id.as_str()).chain(in_sight.iter().map(String::as_str)).collect();
    let now = facts.state();
    let restored: Vec<(String, Morale)> = units
        .iter()
        .flat_map(|x| members(now, x))
        .filter(|f| f.morale == Morale::Shaken || (f.morale == Morale::Panicked && !f.fanatic))
        .map(|f| (f.id.clone(), f.morale))
        .collect();
    for (f, from) in restored {
        facts.push(Fact::MoraleChanged { figure: f, from, to: Morale::Bold, reason: "the forced rally".into() });
    }
    let checked: Vec<String> =
        members(facts.state(), &u.id).iter().filter(|f| f.id != leader).map(|f| f.id.clone()).collect();
    let modifier = facts.state().config.forced_rally_check_modifier;
    let mut passed = 0;
    for f in &checked {
        let check = check_figure(facts.state(), f, rating, modifier, dice)?;
        passed += u32::from(check.passed());
        facts.push(Fact::CommandChecked {
            figure: f.clone(),
            unit: u.id.clone(),
            reason: "after the forced rally, at +2".into(),
            check,
        });
    }
    let of = checked.len() as u32;
    let holds = majority(facts.state(), passed as usize, of as usize);
    facts.push(Fact::ForcedRallyChecked { unit: u.id.clone(), leader: leader.clone(), passed, of, holds });
    if holds {
        end_if_spent(facts);
    } else {
        remove_figure(facts, &leader, "shot by his own side after a failed forced rally");
        if facts.state().units.contains_key(u.id.as_str()) {
            facts.push(Fact::UnitBroke {
                unit: u.id.clone(),
                side: u.side.clone(),
                reason: format!(
                    "only {passed} of {of} passed the command check after the forced rally: \"the leader is removed from play (shot by his own side) and the unit is Broken\""
                ),
                rout: true,
            });
        }
    }
    Ok(())
}

/// Referee: the Broken unit routs.
///
/// "the unit as a whole is Broken and immediately routs, moving directly away
/// from the enemy towards the nearest cover at a double-time advance rate of
/// movement. They will do so even if they have already double-time advanced
/// earlier in the turn. If the unit cannot reach cover within its rout, the
/// unit will instead attempt to surrender, and is removed from play." —
/// except its fanatics: a fanatic who has panicked "will attempt to leave the
/// battlefield. If unable to do so, he will not surrender, but instead
/// attack the enemy with the ferocity of a cornered animal" (N55). They stay
/// in play with their Broken unit, which leaves the battlefield at the next
/// strategic movement if it is still Broken (N26).
pub(super) fn rout(
    state: &State,
    unit: &str,
    moves: &BTreeMap<String, Point>,
    reached_cover: bool,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let u = lookup::unit(state, unit)?;
    if !u.rout_due {
        refuse!(Refused::NotRouting, "{unit} is not routing");
    }
    for (id, to) in moves {
        let f = lookup::figure(state, id)?;
        if f.unit != unit || !f.in_play() {
            refuse!(Refused::NotAFigureOfTheUnit, "{id} is not a figure of {unit} in play");
        }
        let allowance = f.standard_move(&state.config).saturating_mul(state.config.double_time_multiplier);
        if !f.at.within(*to, allowance) {
            refuse!(
                Refused::BeyondMove,
                "{id} cannot rout from {} to {to}: that is {}, and a rout is at a double-time advance rate of {}",
                f.at,
                inches(f.at.distance_ceil(*to)),
                inches(allowance)
            );
        }
    }
    for (id, to) in moves {
        let from = state.figures[id.as_str()].at;
        facts.push(Fact::FigureMoved { figure: id.clone(), from, to: *to, distance_tenths: from.distance_ceil(*to) });
    }
    // A fanatic "will not surrender, but instead attack the enemy with the
    // ferocity of a cornered animal" (N55).
    let (fanatics, surrendering): (Vec<&Figure>, Vec<&Figure>) =
        members(state, unit).into_iter().partition(|f| f.fanatic);
    let fanatics = if reached_cover { Vec::new() } else { fanatics.iter().map(|f| f.id.clone()).collect() };
    facts.push(Fact::Routed { unit: unit.to_string(), side: u.side.clone(), reached_cover, fanatics });
    if !reached_cover {
        let leader = u.leader.clone();
        let mut order: Vec<String> =
            surrendering.iter().map(|f| f.id.clone()).filter(|f| Some(f) != leader.as_ref()).collect();
        order.extend(leader.filter(|l| surrendering.iter().any(|f| &f.id == l)));
        for f in order {
            remove_figure(facts, &f, "surrendered: his unit could not reach cover in its rout");
        }
    }
    Ok(())
}
