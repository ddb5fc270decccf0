//! 2.3 Command and Control: what an activated unit does with its CP
//! (expend them all, accumulate one more, or pass), breveting a new leader,
//! command distance and stragglers, and command checks. 2.9: heroes are
//! exempt from command distance.

use crate::dice::Dice;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::consequences::{check_figure, end_activation, remove_figure};
use super::lookup::{self, active_unit_between_steps, list, members, refuse_while_taking_command, Facts};
use super::{interrupts, Refused};
use super::{Casualty, Fact, Spend, State, Unit};

/// The Command Rating of a unit's leader: the cap on its CP.
///
/// "A leader cannot accumulate more CP than his Command Rating."
fn rating(state: &State, u: &Unit) -> Result<i64, Violation> {
    match lookup::leader(state, u).and_then(|l| l.command_rating) {
        Some(r) => Ok(r),
        None => refuse!(Refused::NoLeader, "{} has no leader with a command rating", u.id),
    }
}

fn refuse_once_expending(state: &State, unit: &str, expending: bool, what: &str) -> Result<(), Violation> {
    if expending {
        let cp = state.units.get(unit).map_or(0, |u| u.cp);
        refuse!(
            Refused::ExpendAll, "{unit} has begun to spend its CP and may not {what}: \"If a unit decides to expend CP by performing actions, all the unit's CP must be expended\" — spend the next CP or stop (its {cp} CP left are lost)"
        );
    }
    Ok(())
}

/// The active unit accumulates another CP, up to its leader's rating.
///
/// "If the activated unit's leader does not choose to perform any actions and
/// expend his entire accumulated CP, he accumulates another CP. There is a
/// limit to the number of CP a leader can accumulate, and if the leader is
/// already at his maximum for accumulated CP and does not wish to expend
/// them, he does not gain another and the unit completes its turn. A leader
/// cannot accumulate more CP than his Command Rating." A CP held for an
/// interrupt counts towards the cap ("it may not accumulate more CP
/// (including the reserve CP for the interrupt) than the leader's Command
/// Rating"). A breveted leader accumulates too: he "must accumulate and spend
/// 1 CP to take command".
pub(super) fn accumulate(state: &State, facts: &mut Facts) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "accumulate")?;
    refuse_once_expending(state, &a.unit, a.expending, "accumulate")?;
    let cap = rating(state, u)?;
    let room = (cap - i64::from(u.cp) - i64::from(u.held_interrupt_cp)).max(0);
    let gain = u32::try_from(i64::from(state.config.accumulate_cp).min(room)).unwrap_or(0);
    facts.push(Fact::CpAccumulated {
        unit: u.id.clone(),
        cp_before: u.cp,
        cp_after: u.cp.saturating_add(gain),
        held: u.held_interrupt_cp,
        cap,
    });
    end_activation(facts);
    Ok(())
}

/// The active unit does nothing and gains nothing (P5: "3. Pass by doing nothing.").
pub(super) fn pass(state: &State, facts: &mut Facts) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "pass")?;
    refuse_once_expending(state, &a.unit, a.expending, "pass")?;
    facts.push(Fact::Passed { unit: u.id.clone(), cp: u.cp });
    end_activation(facts);
    Ok(())
}

/// The active unit spends its next CP on figure actions.
///
/// "When a unit is activated in the Operations phase of a turn, the leader of
/// the unit may expend all his accumulated CP by having the unit perform
/// actions." — "Units can only perform actions by expending accumulated CP."
/// Each CP is one step: "Each figure in the unit must perform his action
/// before the unit's next CP can be expended."
pub(super) fn spend_cp(state: &State, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "spend another CP")?;
    refuse_while_taking_command(u, "spend CP on actions")?;
    lookup::refuse_before_composure(state, a, u, "spend CP on actions")?;
    lookup::refuse_unless_figures_dealt_with(state, a, u)?;
    if u.cp == 0 {
        refuse!(
            Refused::NoCp,
            "{} has no CP left to spend: \"Units can only perform actions by expending accumulated CP\"",
            u.id
        );
    }
    facts.push(Fact::CpSpent { unit: u.id.clone(), number: a.spent + 1, cp: 1, on: Spend::Actions, cp_left: u.cp - 1 });
    interrupts::premature_checks(facts, &u.id, dice)
}

/// The active unit stops: its remaining CP are lost.
///
/// "If a unit decides to expend CP by performing actions, all the unit's CP
/// must be expended, leaving the unit with 0 CP when its actions are
/// completed. Any CP not used in performing actions are lost."
pub(super) fn stop(state: &State, facts: &mut Facts) -> Result<(), Violation> {
    if lookup::activation(state)?.interrupted_by.is_some() {
        // "must cease performing actions and end their turn": no cover taken.
        end_activation(facts);
        return Ok(());
    }
    let (a, u) = active_unit_between_steps(state, "stop")?;
    if !a.expending {
        refuse!(
            Refused::NotSpendingCp,
            "{} has not begun to spend its CP: a unit that does not expend them accumulates or passes",
            u.id
        );
    }
    facts.push(Fact::CpLost { unit: u.id.clone(), cp: u.cp, reason: "it performs no further actions".into() });
    end_activation(facts);
    Ok(())
}

/// A breveted leader spends CP to take command.
///
/// "The new leader must accumulate and spend 1 CP to take command of the
/// unit." — "The following turn, he expends that CP to take command of the
/// unit and is then able to act normally." Taking command begins the unit's
/// expenditure: CP left over are spent on actions or lost.
pub(super) fn take_command(state: &State, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "take command")?;
    let leader = u.leader.clone().unwrap_or_default();
    if !u.taking_command {
        refuse!(Shared::NoChange, "{}'s leader {leader} is already in command", u.id);
    }
    // "the leader must expend 1 CP composing himself before he can expend any further CP"
    lookup::refuse_unless_leader_composed(state, u)?;
    let cost = state.config.take_command_cp;
    if u.cp < cost {
        refuse!(
            Refused::TakeCommandFirst, "{} has {} CP: its new leader {leader} must first accumulate {cost} CP to take command (\"The new leader must accumulate and spend 1 CP to take command of the unit\")",
            u.id,
            u.cp
        );
    }
    let cp_left = u.cp - cost;
    facts.push(Fact::CpSpent { unit: u.id.clone(), number: a.spent + 1, cp: cost, on: Spend::TakeCommand, cp_left });
    interrupts::premature_checks_for(facts, &u.id, cost, dice)?;
    facts.push(Fact::TookCommand { unit: u.id.clone(), leader });
    if cp_left == 0 {
        end_activation(facts);
    }
    Ok(())
}

/// Command checks the rules call for "from time to time": for the named
/// figures of a unit, or all of them but the leader.
///
/// "From time to time, a command check will be required to confirm that a
/// commander maintains control over his troops." — "Leaders are not required
/// to perform command checks on themselves." The reason is the occasion the
/// rules or the referee name.
pub(super) fn command_check(
    state: &State,
    unit: &str,
    figures: Option<&[String]>,
    reason: &str,
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let u = lookup::unit(state, unit)?;
    let Some(leader) = lookup::leader(state, u) else {
        refuse!(Refused::NoLeader, "{unit} has no leader: a command check is made against the leader's Command Rating");
    };
    let leader_rating = rating(state, u)?;
    let mut checked: Vec<String> = Vec::new();
    match figures {
        None => checked.extend(members(state, unit).iter().filter(|f| f.id != leader.id).map(|f| f.id.clone())),
        Some(named) => {
            for id in named {
                let f = lookup::figure(state, id)?;
                if f.unit != unit || !f.in_play() {
                    refuse!(Refused::NotAFigureOfTheUnit, "{id} is not a figure of {unit} in play");
                }
                if *id == leader.id {
                    refuse!(
                        Refused::LeaderNotChecked,
                        "{id} leads {unit}: \"Leaders are not required to perform command checks on themselves.\""
                    );
                }
                if checked.contains(id) {
                    refuse!(Shared::NamedTwice, "{id} is named twice");
                }
                checked.push(id.clone());
            }
        }
    }
    if checked.is_empty() {
        refuse!(Refused::NothingToCheck, "{unit} has no figure to check besides its leader {}", leader.id);
    }
    for id in checked {
        let check = check_figure(state, &id, leader_rating, 0, dice)?;
        facts.push(Fact::CommandChecked { figure: id, unit: unit.to_string(), reason: reason.to_string(), check });
    }
    Ok(())
}

/// Referee: a figure is killed or incapacitated (the injury tables are not in
/// the text, P9). "Incapacitated figures are simply removed from play in the
/// Basic rules."
pub(super) fn casualty(
    state: &State,
    figure: &str,
    effect: Casualty,
    reason: &str,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let f = lookup::figure(state, figure)?;
    if let Some(why) = &f.removed {
        refuse!(Shared::OutOfPlay, "{figure} is already out of play ({why})");
    }
    remove_figure(facts, figure, &format!("{}: {reason}", effect.name()));
    Ok(())
}

/// A unit whose leader fell appoints a new one.
///
/// "has to appoint (“brevet”) a new leader immediately from within its ranks.
/// The new leader must accumulate and spend 1 CP to take command of the unit."
/// He takes over every organisation his predecessor led.
pub(super) fn brevet(state: &State, unit: &str, leader: &str, facts: &mut Facts) -> Result<(), Violation> {
    let u = lookup::unit(state, unit)?;
    let Some(due) = &u.brevet_due else {
        return refuse_no_brevet_due(state, u);
    };
    let ranks: Vec<String> = members(state, unit).iter().map(|f| f.id.clone()).collect();
    if !ranks.iter().any(|r| r == leader) {
        refuse!(
            Refused::BrevetFromRanks,
            "{leader} is not in {unit}'s ranks: the new leader is appointed \"from within its ranks\" ({})",
            list(&ranks)
        );
    }
    facts.push(Fact::Breveted {
        unit: unit.to_string(),
        leader: leader.to_string(),
        rating: due.rating,
        take_command_cp: state.config.take_command_cp,
        organisations: due.organisations.clone(),
    });
    Ok(())
}

/// Why a unit owes no brevet: its leader stands, it has breveted already, or
/// it could not brevet and broke. Always a refusal.
fn refuse_no_brevet_due(state: &State, u: &Unit) -> Result<(), Violation> {
    match &u.leader {
        None => refuse!(
            Refused::NoBrevetDue, "{} cannot brevet a new leader: its leader fell and his successor's command rating would have been below {}, so the unit broke (\"If the new leader's command rating is less than 1, then the unit cannot brevet a new leader and breaks.\")",
            u.id,
            state.config.brevet_minimum_rating
        ),
        Some(l) if u.taking_command => refuse!(
            Refused::NoBrevetDue, "{} has breveted {l} already: he must now take command (\"The new leader must accumulate and spend 1 CP to take command of the unit\")",
            u.id
        ),
        Some(_) => refuse!(Refused::NoBrevetDue, "{} owes no brevet: its leader has not fallen", u.id),
    }
}
