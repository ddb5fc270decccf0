//! What follows from a fact whichever section's decision it came from: a
//! figure removed from play (and his unit's succession), a CP completed, an
//! activation ended (stragglers, morale, ambushes, who is next), morale
//! dropped, a command check rolled, initiative counted again. Sections
//! stand on it; it stands on [`super::lookup`] only.

use std::collections::BTreeMap;

use crate::dice::Dice;
use crate::ruleset::Violation;

use super::lookup::{
    self, active_combatants_of_each_side, anyone_waiting_to_act, led_by, majority, members, other, Facts,
};
use super::{Check, Fact, Morale, NextUp, Phase, State, Succession, Unit, UnitMorale};

/// Removes a figure from play, with what follows when he led his unit.
///
/// "If the leader of a unit is incapacitated or killed, the unit loses all
/// accumulated CP and has to appoint (“brevet”) a new leader immediately from
/// within its ranks." — "The new leader has a Command Rating one less than
/// his predecessor. If the new leader's command rating is less than 1, then
/// the unit cannot brevet a new leader and breaks." A unit whose leader falls
/// while it is active ends its activation there — or, under an interrupt's
/// fire, when the interrupt is resolved.
pub(super) fn remove_figure(facts: &mut Facts, figure: &str, reason: &str) {
    let state = facts.state();
    let f = state.figures[figure].clone();
    let u = state.units.get(f.unit.as_str()).cloned();
    let organisations = led_by(state, figure);
    // An interrupt being fired at the active unit decides, once resolved,
    // how its activation ends.
    let active = state.turn.as_ref().and_then(|t| t.activation.as_ref()).is_some_and(|a| a.unit == f.unit)
        && !lookup::fired_on(state, &f.unit);
    facts.push(Fact::FigureRemoved {
        figure: figure.to_string(),
        side: f.side.clone(),
        unit: f.unit.clone(),
        reason: reason.to_string(),
        organisations: organisations.clone(),
    });
    let Some(u) = u else { return };
    let remaining = members(facts.state(), &u.id).len();
    if u.leader.as_deref() != Some(figure) {
        if remaining == 0 {
            facts.push(Fact::UnitEliminated { unit: u.id.clone(), side: u.side.clone() });
            if active {
                end_activation(facts);
            }
        } else if active {
            complete_step_if_done(facts);
        }
        return;
    }
    let rating = f.command_rating.unwrap_or(0);
    let successor_rating = rating.saturating_sub(facts.state().config.brevet_rating_loss);
    let succession = if remaining == 0 {
        Succession::Eliminated
    } else if successor_rating < facts.state().config.brevet_minimum_rating {
        Succession::Breaks
    } else {
        Succession::Brevet
    };
    facts.push(Fact::LeaderLost {
        unit: u.id.clone(),
        leader: figure.to_string(),
        cp_lost: u.cp + u.held_interrupt_cp,
        rating,
        successor_rating,
        succession,
        organisations,
    });
    match succession {
        Succession::Eliminated => facts.push(Fact::UnitEliminated {
            unit: u.id.clone(),
            side: u.side.clone(),
        }),
        Succession::Breaks => facts.push(Fact::UnitBroke {
            unit: u.id.clone(),
            side: u.side.clone(),
            reason: format!(
                "its leader {figure} fell, and a new leader's command rating would be {successor_rating}: \"If the new leader's command rating is less than 1, then the unit cannot brevet a new leader and breaks.\""
            ),
            rout: false,
        }),
        Succession::Brevet => {}
    }
    if active {
        end_activation(facts);
    }
}

/// Figures of `unit` beyond their leader's command distance are removed.
///
/// "All figures in his unit must remain within this distance to the leader
/// to be able to properly take and execute orders." — "A figure which ending
/// his turn outside of his leader's command distance is a Straggler. … Under
/// the basic rules, Stragglers are removed from play in the turn they become
/// stragglers." Distances are exact and inclusive (P8). Heroes are "immune to
/// command distance requirements" (2.9); a unit without a leader has no
/// command distance to keep.
pub(super) fn remove_stragglers(facts: &mut Facts, unit: &str) {
    let state = facts.state();
    let Some(u) = state.units.get(unit) else {
        return;
    };
    if u.hero {
        return;
    }
    let Some(leader) = lookup::leader(state, u) else {
        return;
    };
    let range = leader.command_distance_tenths;
    let stragglers: Vec<(String, u64)> = members(state, unit)
        .iter()
        .filter(|f| f.id != leader.id && !leader.at.within(f.at, range))
        .map(|f| (f.id.clone(), leader.at.distance_ceil(f.at)))
        .collect();
    let leader = leader.id.clone();
    for (figure, distance_tenths) in stragglers {
        let organisations = led_by(facts.state(), &figure);
        facts.push(Fact::StragglerRemoved {
            figure,
            unit: unit.to_string(),
            leader: leader.clone(),
            distance_tenths,
            command_distance_tenths: range,
            organisations,
        });
    }
}

/// A command check for one figure against its unit's leader.
///
/// "The command check is performed by making a 0-9 roll and trying to get
/// under the sum of the figure's Troop Quality and the leader's Command
/// Rating. This sum is referred to as the Command Check Target. Shaken troops
/// suffer a penalty of –2 to their Command Check Target. Panicked troops and
/// Fanatical troops automatically fail command checks." Under (P1): roll <
/// target, or roll ≤ target with `command-check-equal-passes`. The die is
/// labelled `check:<figure>`.
pub(super) fn check_figure(
    state: &State,
    figure: &str,
    leader_rating: i64,
    modifier: i64,
    dice: &mut Dice,
) -> Result<Check, Violation> {
    let f = lookup::figure(state, figure)?;
    if matches!(f.morale, Morale::Panicked | Morale::Fanatical) {
        return Ok(Check::AutomaticFail { morale: f.morale });
    }
    let shaken = if f.morale == Morale::Shaken { state.config.shaken_check_modifier } else { 0 };
    let target = f.troop_quality.saturating_add(leader_rating).saturating_add(shaken).saturating_add(modifier);
    let roll = dice.d10(&format!("check:{figure}"))?;
    let passed =
        if state.config.command_check_equal_passes { i64::from(roll) <= target } else { i64::from(roll) < target };
    Ok(Check::Rolled { roll, target, passed })
}

/// The end of the active unit's activation: stragglers, then who is next.
///
/// "Under the basic rules, Stragglers are removed from play in the turn they
/// become stragglers" (checked as the unit's turn ends, P12); "The decision
/// then passes to the unit with the next highest number of CP, and so forth
/// until all units have been activated." — when none is left, the operations
/// phase and the turn end.
pub(super) fn end_activation(facts: &mut Facts) {
    let Some(a) = facts.state().turn.as_ref().and_then(|t| t.activation.clone()) else {
        return;
    };
    remove_stragglers(facts, &a.unit);
    lapse_ambushes_on(facts, &a.unit);
    settle_unit_morale(facts);
    settle_initiative(facts);
    let next = next_up(facts.state());
    facts.push(Fact::ActivationEnded { unit: a.unit.clone(), side: a.side.clone(), next: next.clone() });
    if next.is_none() {
        let turn = facts.state().turn.as_ref().map_or(0, |t| t.number);
        facts.push(Fact::TurnEnded { turn });
    }
}

/// Closes the CP being spent once every figure of the unit has acted on it,
/// and ends the activation when it was the last. Figures who lagged behind
/// on it act normally from the next CP (P6).
pub(super) fn complete_step_if_done(facts: &mut Facts) {
    let state = facts.state();
    let Some(a) = state.turn.as_ref().and_then(|t| t.activation.as_ref()) else {
        return;
    };
    let Some(step) = &a.step else { return };
    if anyone_waiting_to_act(state, a) || state.turn.as_ref().is_some_and(|t| t.melee.is_some()) {
        return;
    }
    let cp_left = state.units.get(a.unit.as_str()).map_or(0, |u| u.cp);
    let caught_up =
        step.acted.iter().filter(|f| state.figures.get(f.as_str()).is_some_and(|f| f.lagging)).cloned().collect();
    let (unit, number) = (a.unit.clone(), step.number);
    facts.push(Fact::CpCompleted { unit, number, cp_left, caught_up });
    if cp_left == 0 {
        end_activation(facts);
    }
}

/// "A Graze result reduces the Morale of a Bold target to Shaken, and a
/// Shaken target to Panicked. It has no effect on Fanatical or Panicked
/// targets." (A Light Wound the same, for a figure who stays conscious.)
pub(super) fn drop_morale(facts: &mut Facts, figure: &str, reason: &str) {
    let from = facts.state().figures[figure].morale;
    let to = match from {
        Morale::Bold => Morale::Shaken,
        Morale::Shaken => Morale::Panicked,
        Morale::Panicked | Morale::Fanatical => return,
    };
    facts.push(Fact::MoraleChanged { figure: figure.to_string(), from, to, reason: reason.to_string() });
}

/// A unit's morale follows its figures'.
///
/// "If the majority (rounded up) of figures in a unit are Shaken, then the
/// Unit becomes Shaken and the leader must expend a CP to restore the Unit
/// Morale to Bold for the turn." — "If the majority (rounded up) of figures
/// in a unit are Panicked, then the unit as a whole is Broken and
/// immediately routs". Panicked figures count as Shaken too (a unit most of
/// whose figures are Shaken or worse is Shaken). A unit is Shaken for the
/// turn: at the next turn's start it is Shaken again only if most of its
/// figures still are ("to keep the unit morale from sliding back to Shaken in
/// the next turn").
///
/// A unit whose leader has restored or steadied it this turn keeps that
/// morale against the figures Shaken or Panicked at that moment ("restore
/// the Unit Morale to Bold for the turn"; a routed unit is steadied first,
/// "Then, he must spend CP to rally each individual panicked member"). A
/// figure Shaken or Panicked since is a new event (N52): a Panicked majority
/// with a newly panicked figure breaks the unit, and a Shaken majority with
/// a figure newly worse off makes it Shaken again — unless, under
/// `restored-unit-stays-bold-for-the-turn`, it stays Bold for the turn.
pub(super) fn settle_unit_morale(facts: &mut Facts) {
    let state = facts.state();
    // Only a unit with a Shaken or Panicked figure in play can break or be
    // shaken: a majority of none is no majority (`majority`).
    let mut worse_off: Vec<&str> = Vec::new();
    for f in state.figures_in_order() {
        if f.in_play() && matches!(f.morale, Morale::Shaken | Morale::Panicked) && !worse_off.contains(&f.unit.as_str())
        {
            worse_off.push(&f.unit);
        }
    }
    if worse_off.is_empty() {
        return;
    }
    let mut changes = Vec::new();
    // A hero's morale is his unit's under `hero-without-unit-morale` (N48).
    let hero_alone = |u: &Unit| u.hero && state.config.hero_without_unit_morale;
    for u in state.units.values().filter(|u| !hero_alone(u) && worse_off.contains(&u.id.as_str())) {
        let figures = members(state, &u.id);
        let of = figures.len();
        let panicked = figures.iter().filter(|f| f.morale == Morale::Panicked).count();
        let shaken = figures.iter().filter(|f| matches!(f.morale, Morale::Shaken | Morale::Panicked)).count();
        let (newly_worse, newly_panicked) = morale_events_since_restored(u, &figures);
        let shaken_again = newly_worse && !(u.restored && state.config.restored_unit_stays_bold_for_the_turn);
        if u.morale != UnitMorale::Broken && majority(state, panicked, of) && newly_panicked {
            changes.push(Fact::UnitBroke {
                unit: u.id.clone(),
                side: u.side.clone(),
                reason: format!(
                    "{panicked} of its {of} figures are Panicked: \"If the majority (rounded up) of figures in a unit are Panicked, then the unit as a whole is Broken and immediately routs\""
                ),
                rout: true,
            });
        } else if u.morale == UnitMorale::Steady && majority(state, shaken, of) && shaken_again {
            changes.push(Fact::UnitShaken {
                unit: u.id.clone(),
                side: u.side.clone(),
                shaken: shaken as u32,
                of: of as u32,
            });
        }
    }
    for fact in changes {
        facts.push(fact);
    }
}

/// Whether any figure of `u` is worse off than when its leader restored or
/// steadied it, and whether any has panicked since: a new morale event the
/// restoring did not answer (N52). For a unit not restored, every Shaken or
/// Panicked figure is new.
pub(super) fn morale_events_since_restored(u: &Unit, figures: &[&super::Figure]) -> (bool, bool) {
    if !u.restored {
        return (true, true);
    }
    let was = |f: &super::Figure| u.restored_against.get(&f.id).map_or(0, |m| m.severity());
    let worse = figures.iter().any(|f| f.morale.severity() > was(f));
    let panicked = figures.iter().any(|f| f.morale == Morale::Panicked && was(f) < Morale::Panicked.severity());
    (worse, panicked)
}

/// Ambushes lying in wait for `target` lapse (its activation is over).
pub(super) fn lapse_ambushes_on(facts: &mut Facts, target: &str) {
    let lapsed: Vec<(String, String)> = facts
        .state()
        .turn
        .as_ref()
        .map(|t| {
            t.ambushes
                .iter()
                .filter(|a| a.target == target && !a.fired)
                .map(|a| (a.by.clone(), a.target.clone()))
                .collect()
        })
        .unwrap_or_default();
    for (by, target) in lapsed {
        facts.push(Fact::AmbushLapsed { by, target });
    }
}

/// Recounts initiative after every decision, under the option
/// `initiative-recount-on-any-change` (N40) only.
///
/// "The Side which has the most active combatants has initiative until the
/// turn ends, or an interrupt causes a change in initiative." By default the
/// count is taken again only once an interrupt is resolved
/// ([`recount_initiative`], from `interrupts::settle_interrupts`); casualties
/// of ordinary fire, stragglers and the referee's casualties leave initiative
/// where it is until then, or until the turn ends.
pub(super) fn settle_initiative(facts: &mut Facts) {
    if facts.state().config.initiative_recount_on_any_change {
        recount_initiative(facts);
    }
}

/// Counts active combatants again during operations, when the count has
/// changed since it was last taken.
///
/// "A truly successful interrupt may not only cause the target to become
/// Shaken and end its turn, but if sufficient casualties are inflicted, it
/// may also cause the enemy side to lose initiative" — "Alex calls to check
/// initiative and both sides quickly count their active combatants. Jason
/// had 27 active combatants before the ambush and now has 24, while Alex has
/// 26. Alex seizes the initiative from Jason." Initiative changes hands only
/// when the other side now has more; a tie leaves it where it is (P4, N9).
pub(super) fn recount_initiative(facts: &mut Facts) {
    let state = facts.state();
    let Some(t) = &state.turn else { return };
    if t.phase != Phase::Operations {
        return;
    }
    let each = active_combatants_of_each_side(state);
    let unchanged = t.counts.len() == 2 && state.sides.iter().zip(each).all(|(s, n)| t.counts.get(s) == Some(&n));
    if unchanged {
        return;
    }
    let counts: BTreeMap<String, u32> = state.sides.iter().cloned().zip(each).collect();
    let previous = state.initiative.clone();
    let challenger = other(state, &previous).to_string();
    let holder = if counts[&challenger] > counts[&previous] { challenger } else { previous.clone() };
    facts.push(Fact::InitiativeRecounted { counts, previous, holder, before: None });
}

/// Counts initiative again once an interrupt is resolved.
///
/// "The Side which has the most active combatants has initiative until the
/// turn ends, or an interrupt causes a change in initiative." — "A truly
/// successful interrupt may not only cause the target to become Shaken and
/// end its turn, but if sufficient casualties are inflicted, it may also
/// cause the enemy side to lose initiative" — "Jason had 27 active
/// combatants before the ambush and now has 24, while Alex has 26. Alex
/// seizes the initiative from Jason." It is the interrupt that must cause
/// the change (N58): an interrupt whose fire changed no count is not
/// followed by a count, and initiative changes hands only if the other side
/// has more active combatants now and did not have more as the interrupt
/// opened fire (`before`) — what casualties of ordinary fire, stragglers
/// and the referee's casualties did before it waits for the turn's end. The
/// count is taken whole, as the example takes it ("both sides quickly count
/// their active combatants"). Without `before` (version 1, the options
/// `interrupt-recount-counts-every-change` and
/// `initiative-recount-on-any-change`) the side with more now takes it.
pub(super) fn recount_after_interrupt(facts: &mut Facts, before: Option<&BTreeMap<String, u32>>) {
    let Some(before) = before else { return recount_initiative(facts) };
    let state = facts.state();
    let Some(t) = &state.turn else { return };
    if t.phase != Phase::Operations {
        return;
    }
    let counts: BTreeMap<String, u32> =
        state.sides.iter().cloned().zip(active_combatants_of_each_side(state)).collect();
    if counts == *before {
        return;
    }
    let previous = state.initiative.clone();
    let challenger = other(state, &previous).to_string();
    let more = |c: &BTreeMap<String, u32>| c.get(&challenger) > c.get(&previous);
    let holder = if more(&counts) && !more(before) { challenger } else { previous.clone() };
    facts.push(Fact::InitiativeRecounted { counts, previous, holder, before: Some(before.clone()) });
}

/// Who acts next.
///
/// "The unit on the battlefield with the highest number of CP is activated."
/// — "The decision then passes to the unit with the next highest number of
/// CP, and so forth until all units have been activated." — "In the event
/// that both sides have a unit with an equal number of CP, the side with
/// initiative activates their unit first." — "Once a unit has been activated
/// in a turn, it cannot become activated again in the turn." A unit that
/// moved strategically "may not act in the operations phase"; a broken unit
/// without a leader cannot act at all. Within a side the player picks among
/// units of equal CP ("He chooses the order in which these two units are
/// activated"). CP held for an interrupt do not count.
pub(super) fn next_up(state: &State) -> Option<NextUp> {
    if state.turn.as_ref()?.phase != Phase::Operations {
        return None;
    }
    next_in_order(state)
}

/// [`next_up`] as operations begin, before the phase has changed.
pub(super) fn next_in_order(state: &State) -> Option<NextUp> {
    let eligible: Vec<_> = state
        .units
        .values()
        .filter(|u| {
            !u.activated && !u.strategic && !u.rout_due && u.leader.is_some() && lookup::has_members(state, &u.id)
        })
        .collect();
    let cp = eligible.iter().map(|u| u.cp).max()?;
    let at = |side: &str| -> Vec<String> {
        eligible.iter().filter(|u| u.cp == cp && u.side == side).map(|u| u.id.clone()).collect()
    };
    let holder = state.initiative.as_str();
    let challenger = other(state, holder);
    let theirs = at(challenger);
    let ours = at(holder);
    if ours.is_empty() {
        Some(NextUp { side: challenger.to_string(), cp, units: theirs, ahead_of: None })
    } else {
        Some(NextUp {
            side: holder.to_string(),
            cp,
            units: ours,
            ahead_of: (!theirs.is_empty()).then(|| challenger.to_string()),
        })
    }
}
