//! 2.5 Interrupts: setting one, lying in wait, premature fire by figures who
//! fail their command checks, the ambushers' one action, its resolution, the
//! ragged interrupt, and taking cover.

use std::collections::{BTreeMap, BTreeSet};

use crate::dice::Dice;
use crate::geometry::Point;
use crate::refusal::Shared;
use crate::refuse;
use crate::ruleset::Violation;

use super::consequences::{check_figure, end_activation};
use super::fire::{able_to_fire, check_fire, fire, FireOrder};
use super::lookup::{self, active_unit_between_steps, inches, list, members, refuse_while_taking_command, Facts};
use super::{Action, Ambush, Fact, Figure, FireMode, InterruptFire, Phase, Refused, Spend, State, UnitMorale};
use crate::rulesets::begun;

/// The active unit sets an interrupt.
///
/// "A unit (ambushers) sets an interrupt by expending 1 CP. Once the
/// interrupt is set, the unit ends its turn and holds the CP it expended
/// setting the interrupt in reserve." The CP it has accumulated besides stay
/// with it ("While waiting for an enemy to appear, the unit can continue to
/// accumulate CP as normal") — unless it had begun to spend them on actions,
/// which must all be spent: those left are lost. A breveting unit "can only
/// mount a ragged defence".
pub(super) fn set_interrupt(state: &State, dice: &mut Dice, facts: &mut Facts) -> Result<(), Violation> {
    let (a, u) = active_unit_between_steps(state, "set an interrupt")?;
    refuse_while_taking_command(u, "set an interrupt")?;
    super::lookup::refuse_before_composure(state, a, u, "set an interrupt")?;
    if u.held_interrupt_cp > 0 {
        refuse!(Refused::InterruptHeld, "{} already holds a CP for an interrupt", u.id);
    }
    if u.cp == 0 {
        refuse!(Refused::NoCp, "{} has no CP: \"A unit (ambushers) sets an interrupt by expending 1 CP\"", u.id);
    }
    let cp_left = u.cp - 1;
    facts.push(Fact::CpSpent { unit: u.id.clone(), number: a.spent + 1, cp: 1, on: Spend::SetInterrupt, cp_left });
    premature_checks(facts, &u.id, dice)?;
    let kept = if a.expending && cp_left > 0 {
        facts.push(Fact::CpLost {
            unit: u.id.clone(),
            cp: cp_left,
            reason: "it had begun to spend its CP on actions, and setting the interrupt ends its turn".into(),
        });
        0
    } else {
        cp_left
    };
    facts.push(Fact::InterruptSet { unit: u.id.clone(), side: u.side.clone(), cp: kept });
    end_activation(facts);
    Ok(())
}

/// Command checks for the figures under the ambush leader; those who fail
/// blow the ambush.
///
/// "Each CP the target spends after entering the ambusher's LOS requires a
/// Command Check to be done for each figure under the ambush team leader's
/// control. A successful command check means that the unit holds its fire
/// and can decide when to fire while the target is performing its action. A
/// failed roll means that the figures that failed perform ragged fire on the
/// target before the target begins its action." A figure who fails but has
/// nothing he may fire (no weapon, his 1 Use weapon spent, barred by a
/// double-time advance) cannot perform that fire: he does not blow the
/// ambush (N33).
fn hold_fire_checks(facts: &mut Facts, by: &str, target: &str, reason: &str, dice: &mut Dice) -> Result<(), Violation> {
    let state = facts.state();
    let Some(leader) = state.units.get(by).and_then(|u| lookup::leader(state, u)) else {
        return Ok(());
    };
    let rating = leader.command_rating.unwrap_or(0);
    let leader = leader.id.clone();
    let figures: Vec<String> = members(state, by).iter().filter(|f| f.id != leader).map(|f| f.id.clone()).collect();
    let mut nervous = Vec::new();
    for figure in figures {
        let check = check_figure(facts.state(), &figure, rating, 0, dice)?;
        if !check.passed() && able_to_fire(facts.state(), &figure, target) {
            nervous.push(figure.clone());
        }
        facts.push(Fact::CommandChecked { figure, unit: by.to_string(), reason: reason.to_string(), check });
    }
    if !nervous.is_empty() {
        facts.push(Fact::AmbushBlown { by: by.to_string(), target: target.to_string(), nervous });
    }
    Ok(())
}

/// The ambushers' checks before an order of `cost` CP: "Each CP the target
/// spends after entering the ambusher's LOS requires a Command Check to be
/// done for each figure under the ambush team leader's control" — a round
/// for each CP the order spends (N19), when the rules make an order cost
/// more than one (`take-command-cp`, `morale-cp`). Version 1 made one round
/// an order, and its records verify as they were played.
pub(super) fn premature_checks_for(
    facts: &mut Facts,
    target: &str,
    cost: u32,
    dice: &mut Dice,
) -> Result<(), Violation> {
    let rounds = if facts.state().config.organisation_orders_checked { cost } else { 1 };
    for _ in 0..rounds {
        premature_checks(facts, target, dice)?;
    }
    Ok(())
}

/// Before each CP a watched unit spends, the ambushers check again (P7).
pub(super) fn premature_checks(facts: &mut Facts, target: &str, dice: &mut Dice) -> Result<(), Violation> {
    let watching: Vec<String> = facts
        .state()
        .turn
        .as_ref()
        .map(|t| {
            t.ambushes
                .iter()
                .filter(|a| a.target == target && !a.fired && a.nervous.is_empty())
                .map(|a| a.by.clone())
                .collect()
        })
        .unwrap_or_default();
    for by in watching {
        hold_fire_checks(facts, &by, target, &format!("{target} spends another CP in {by}'s line of sight"), dice)?;
    }
    Ok(())
}

/// Referee: `target` enters the line of sight of `by`, which lies in wait.
///
/// "When an enemy unit enters an ambusher's LOS, the ambushers have the
/// option of expending the held CP to perform a single action." — "a hidden
/// unit which becomes spotted as a result of performing actions (even
/// another interrupt) is considered to have entered LOS." — "Often, a unit
/// will not have any CP in reserve to set or perform a prepared interrupt.
/// However, they may still attempt an interrupt against an enemy unit
/// entering their LOS. … A unit can only attempt one Ragged Interrupt in a
/// turn." The checks on entering LOS follow the example ("as soon as Jason's
/// unit enters Alex's team's line of sight, rolling a 3 and 0"); with
/// `no-check-on-entering-los` the first checks come with the target's next
/// CP (P7). A unit that moved strategically this turn is not eligible to fire.
pub(super) fn sighted(
    state: &State,
    target: &str,
    by: &str,
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let t = begun(&state.turn)?;
    if t.phase == Phase::Over {
        refuse!(Shared::TurnOver, "turn {} is over: begin the next turn", t.number);
    }
    let ambusher = lookup::unit(state, by)?;
    let watched = lookup::unit(state, target)?;
    if ambusher.side == watched.side {
        refuse!(
            Shared::NotAnEnemy,
            "{by} and {target} are both {}'s: an ambush lies in wait for the enemy",
            ambusher.side
        );
    }
    if lookup::leader(state, ambusher).is_none() || ambusher.morale == UnitMorale::Broken {
        refuse!(Refused::BrokenTakesNoOrders, "{by} is broken: it cannot lie in wait");
    }
    if ambusher.strategic {
        refuse!(Refused::StrategicMovementBarsFire, "{by} moved strategically this turn and is not eligible to fire");
    }
    if let Some(a) = t.ambushes.iter().find(|a| a.by == by) {
        refuse!(Shared::NoChange, "{by} already lies in wait for {}", a.target);
    }
    let prepared = ambusher.held_interrupt_cp > 0;
    if !prepared && ambusher.ragged_interrupt_used {
        refuse!(Refused::RaggedInterruptOnce, "{by} holds no CP for an interrupt and has already attempted its ragged interrupt this turn: \"A unit can only attempt one Ragged Interrupt in a turn.\"");
    }
    facts.push(Fact::Sighted { by: by.to_string(), target: target.to_string(), prepared });
    if !state.config.no_check_on_entering_los {
        hold_fire_checks(facts, by, target, &format!("{target} enters {by}'s line of sight"), dice)?;
    }
    Ok(())
}

/// The ambushers fire.
///
/// "A failed roll means that the figures that failed perform ragged fire on
/// the target before the target begins its action." — "Having the ambush
/// blown by a nervous soldier, Alex has the rest of his ambush team open
/// fire" — "the ambushers have the option of expending the held CP to
/// perform a single action. The entire unit must perform the same action" —
/// "Even though a unit that has set an interrupt may have multiple
/// accumulated CP, only a single CP may be used in performing the
/// interrupt." — "a unit performing a Ragged Interrupt can only perform
/// ragged fire." All fire at figures of the unit lain in wait for.
pub(super) fn interrupt(
    state: &State,
    by: &str,
    orders: &[InterruptFire],
    no_line_of_sight: &[String],
    dice: &mut Dice,
    facts: &mut Facts,
) -> Result<(), Violation> {
    let t = begun(&state.turn)?;
    let Some(ambush) = t.ambushes.iter().find(|a| a.by == by) else {
        refuse!(
            Refused::NotLyingInWait,
            "{by} is not lying in wait for any unit: an interrupt fires at a unit that has entered its line of sight"
        );
    };
    let ranks: Vec<String> = members(state, by).iter().map(|f| f.id.clone()).collect();
    let (joined, mode) = check_interrupt_orders(state, ambush, &ranks, orders)?;
    refuse_a_split(state, ambush, &ranks, &joined, no_line_of_sight)?;
    let target_unit = &state.units[ambush.target.as_str()];
    facts.push(Fact::InterruptFired {
        by: by.to_string(),
        target: ambush.target.clone(),
        prepared: ambush.prepared,
        held_cp_spent: ambush.prepared && !joined.is_empty(),
        nervous: ambush
            .nervous
            .iter()
            .filter(|n| ranks.contains(n) && able_to_fire_on_target(state, n, ambush))
            .cloned()
            .collect(),
        joined,
        mode,
        target_shaken_before: target_unit.morale != UnitMorale::Steady,
        no_line_of_sight: no_line_of_sight.to_vec(),
        counts_before: counts_before_the_fire(state),
    });
    fire_interrupt_orders(facts, orders, dice)
}

/// Active combatants per side as the ambushers open fire, when only what
/// the interrupt's fire changes may change initiative (N58): not under
/// `interrupt-recount-counts-every-change` or version 1, nor under
/// `initiative-recount-on-any-change` (N40), which keeps the count current.
fn counts_before_the_fire(state: &State) -> Option<BTreeMap<String, u32>> {
    let config = &state.config;
    let counted = config.recount_only_the_interrupts_change && !config.initiative_recount_on_any_change;
    counted.then(|| super::lookup::active_combatants(state))
}

/// The ambushers' orders, checked before any die is rolled: the figures who
/// join (besides the nervous), and the one fire mode they share.
fn check_interrupt_orders(
    state: &State,
    ambush: &Ambush,
    ranks: &[String],
    orders: &[InterruptFire],
) -> Result<(Vec<String>, Option<FireMode>), Violation> {
    let by = &ambush.by;
    if orders.is_empty() {
        refuse!(Shared::NothingNamed, "name the ambushers who fire");
    }
    let mut seen = BTreeSet::new();
    for o in orders {
        if !ranks.contains(&o.figure) {
            refuse!(Refused::NotAFigureOfTheUnit, "{} is not a figure of {by} in play", o.figure);
        }
        if !seen.insert(o.figure.as_str()) {
            refuse!(Shared::NamedTwice, "{} is named twice: one action each", o.figure);
        }
        let target = lookup::figure(state, &o.target)?;
        if !is_the_target(ambush, &target.unit) {
            refuse!(
                Refused::NotTheAmbushedUnit,
                "{} is not in {}: the ambushers fire at the unit they lay in wait for",
                o.target,
                the_target(ambush)
            );
        }
    }
    // A nervous figure who has left play since (caught by another
    // ambusher's blast) no longer fires.
    for n in ambush.nervous.iter().filter(|n| ranks.contains(n) && able_to_fire_on_target(state, n, ambush)) {
        if !orders.iter().any(|o| &o.figure == n && o.mode == FireMode::Ragged) {
            refuse!(Refused::FailedCheckFiresRagged, "{n} failed his command check and fires ragged at once: \"A failed roll means that the figures that failed perform ragged fire on the target before the target begins its action\"");
        }
    }
    let joined: Vec<&InterruptFire> = orders.iter().filter(|o| !ambush.nervous.contains(&o.figure)).collect();
    let mode = joined.first().map(|o| o.mode);
    if let Some(mode) = mode {
        if let Some(other) = joined.iter().find(|o| o.mode != mode) {
            refuse!(
                Refused::SameAction,
                "\"The entire unit must perform the same action\": {} fires {} but {} {}",
                joined[0].figure,
                mode.name(),
                other.figure,
                other.mode.name()
            );
        }
        if !ambush.prepared && mode != FireMode::Ragged {
            refuse!(Refused::RaggedInterruptRaggedFire, "{by} holds no CP for an interrupt: \"a unit performing a Ragged Interrupt can only perform ragged fire\"");
        }
    }
    for o in orders {
        check_fire(state, &fire_order(o))?;
    }
    Ok((joined.iter().map(|o| o.figure.clone()).collect(), mode))
}

/// "The entire unit must perform the same action, since there usually is no
/// time to coordinate a complex response to the appearance of an enemy
/// unit." Once the rest of the unit joins the nervous figures' fire, every
/// figure of it who can fire fires, in the one mode; a figure without a line
/// of sight to the target (the referee's `no_line_of_sight`) takes part by
/// holding. Figures with nothing they may fire (N33) are left out (N54).
fn refuse_a_split(
    state: &State,
    ambush: &Ambush,
    ranks: &[String],
    joined: &[String],
    no_line_of_sight: &[String],
) -> Result<(), Violation> {
    let by = &ambush.by;
    for (i, f) in no_line_of_sight.iter().enumerate() {
        if !ranks.contains(f) || ambush.nervous.contains(f) || joined.contains(f) || no_line_of_sight[..i].contains(f) {
            refuse!(Refused::NotAFigureOfTheUnit, "{f} is not a figure of {by} left out of its fire: name under no_line_of_sight only ambushers in play who neither fire nor failed their check");
        }
    }
    if joined.is_empty() {
        if !no_line_of_sight.is_empty() {
            refuse!(
                Refused::SameAction,
                "the rest of {by} holds its fire: no_line_of_sight is for a unit that joins in"
            );
        }
        return Ok(());
    }
    let left: Vec<String> = ranks
        .iter()
        .filter(|f| !ambush.nervous.contains(f) && !joined.contains(f) && !no_line_of_sight.contains(f))
        .filter(|f| able_to_fire_on_target(state, f, ambush))
        .cloned()
        .collect();
    if !left.is_empty() {
        refuse!(
            Refused::SameAction, "\"The entire unit must perform the same action\": {} of {by} would neither fire with {} nor hold for want of a line of sight (no_line_of_sight)",
            list(&left),
            list(joined)
        );
    }
    Ok(())
}

fn fire_order(o: &InterruptFire) -> FireOrder<'_> {
    FireOrder {
        figure: &o.figure,
        move_to: None,
        weapon: &o.weapon,
        target: &o.target,
        mode: o.mode,
        line: o.line,
        odds: o.odds,
        cover_pf: o.cover_pf,
        cover_at: o.cover_at,
    }
}

/// Fires the checked orders in turn. Every order was checked before any
/// die was rolled; one that an earlier order's dice made impossible (its
/// shooter or his target fell, his morale dropped) is void (N36).
fn fire_interrupt_orders(facts: &mut Facts, orders: &[InterruptFire], dice: &mut Dice) -> Result<(), Violation> {
    for o in orders {
        let now = facts.state();
        let checked = match now.figures.get(o.figure.as_str()).filter(|f| f.in_play()) {
            None => Err(format!("{} is no longer in play", o.figure)),
            Some(_) => {
                check_fire(now, &fire_order(o)).map(|v| (v.shots, v.odds, v.weapon.clone())).map_err(|v| v.to_string())
            }
        };
        match checked {
            Ok((shots, odds, weapon)) => {
                let volley = super::fire::Volley { weapon: &weapon, shots, odds };
                fire(facts, &fire_order(o), &volley, dice)?;
            }
            Err(reason) => facts.push(Fact::ActionVoided {
                figure: o.figure.clone(),
                action: Action::Fire {
                    figure: o.figure.clone(),
                    move_to: None,
                    weapon: o.weapon.clone(),
                    target: o.target.clone(),
                    mode: o.mode,
                    line: o.line,
                    odds: o.odds,
                    cover_pf: o.cover_pf,
                    cover_at: o.cover_at,
                },
                reason,
            }),
        }
    }
    Ok(())
}

/// Resolves every interrupt whose fire is over and whose hits all have their
/// effects.
///
/// "If an ambusher's actions are sufficient to cause the morale of the unit
/// to become Shaken, then the interrupt is successful. The target unit loses
/// its entire remaining CP and ceases its turn. An interrupt is automatically
/// successful against units that were already Shaken before the interrupt
/// occurred." — "A failed interrupt means that the target unit is able to
/// continue to perform actions normally."
pub(super) fn settle_interrupts(facts: &mut Facts) {
    let state = facts.state();
    let Some(t) = &state.turn else { return };
    if !t.pending_injuries.is_empty() {
        return;
    }
    let active = t.activation.as_ref().map(|a| a.unit.clone());
    let mut resolved = Vec::new();
    for a in t.ambushes.iter().filter(|a| a.fired) {
        let (success, reason, cp_lost) = match state.units.get(a.target.as_str()) {
            None => (true, format!("{} has no figure left in play", a.target), 0),
            Some(u) if a.target_shaken_before => (
                true,
                format!("{} was already Shaken: \"An interrupt is automatically successful against units that were already Shaken before the interrupt occurred.\"", a.target),
                u.cp + u.held_interrupt_cp,
            ),
            Some(u) if u.morale != UnitMorale::Steady => (
                true,
                format!("the ambushers' fire has made {} Shaken", a.target),
                u.cp + u.held_interrupt_cp,
            ),
            Some(_) => (
                false,
                format!("{} is not Shaken: \"A failed interrupt means that the target unit is able to continue to perform actions normally.\"", a.target),
                0,
            ),
        };
        let resolution = Fact::InterruptResolved {
            by: a.by.clone(),
            target: a.target.clone(),
            success,
            reason,
            cp_lost,
            target_active: success && active.as_deref() == Some(a.target.as_str()),
        };
        resolved.push((resolution, a.counts_before.clone()));
    }
    for (f, counts_before) in resolved {
        let ends = match &f {
            // The active target is gone, or lost its leader and carries on
            // without one: its activation ends.
            Fact::InterruptResolved { target, success, .. } if active.as_deref() == Some(target.as_str()) => {
                let state = facts.state();
                match state.units.get(target.as_str()) {
                    None => true,
                    Some(u) => !success && u.leader.is_none(),
                }
            }
            _ => false,
        };
        facts.push(f);
        // "or an interrupt causes a change in initiative" (N40, N58).
        super::consequences::recount_after_interrupt(facts, counts_before.as_ref());
        if ends {
            end_activation(facts);
        }
    }
}

/// Ambushes whose ambushers or target are no longer a unit lapse: the unit
/// left play (eliminated by fire, even another interrupt), or was merged
/// into another (consolidation, reorganisation). An ambush lies in wait by
/// one unit for one unit (N21); a new sighting is a new `sighted`. Fired
/// ambushes are resolved instead (`settle_interrupts`).
pub(super) fn lapse_orphaned_ambushes(facts: &mut Facts) {
    let state = facts.state();
    let gone = |unit: &str| !state.units.contains_key(unit);
    let orphaned: Vec<(String, String)> = state
        .turn
        .as_ref()
        .map(|t| {
            t.ambushes
                .iter()
                .filter(|a| !a.fired && (gone(&a.by) || gone(&a.target)))
                .map(|a| (a.by.clone(), a.target.clone()))
                .collect()
        })
        .unwrap_or_default();
    for (by, target) in orphaned {
        facts.push(Fact::AmbushLapsed { by, target });
    }
}

/// A successfully interrupted unit takes cover, then its turn ends.
///
/// "A unit which has been successfully interrupted must cease performing
/// actions and end their turn. As an option, they can “Take Cover” … Each
/// figure can move up to 3" towards the nearest cover, but they cannot
/// advance towards an enemy to do so. If there is no cover within the 3"
/// limit, then the figures go prone. The unit should be checked for any
/// Stragglers after they have taken cover". Where cover is, is the
/// referee's: a figure named moves to cover, the others go prone. None may
/// come closer to any enemy figure in play — "an enemy", whichever unit it
/// is in (N23); under `take-cover-away-from-interrupters-only`, and in
/// version 1, only to any figure of the unit that interrupted it.
pub(super) fn take_cover(state: &State, moves: &BTreeMap<String, Point>, facts: &mut Facts) -> Result<(), Violation> {
    let a = lookup::activation(state)?;
    let Some(by) = &a.interrupted_by else {
        refuse!(Refused::NotInterrupted, "{} has not been successfully interrupted: \"A unit which has been successfully interrupted must cease performing actions and end their turn. As an option, they can “Take Cover”\"", a.unit);
    };
    let limit = state.config.take_cover_tenths;
    let enemies: Vec<&Figure> = if state.config.take_cover_away_from_every_enemy {
        state.figures_in_order().filter(|f| f.in_play() && f.side != a.side).collect()
    } else {
        members(state, by)
    };
    for (id, to) in moves {
        let f = lookup::figure(state, id)?;
        if f.unit != a.unit || !f.in_play() {
            refuse!(Refused::NotAFigureOfTheUnit, "{id} is not a figure of {} in play", a.unit);
        }
        if !f.at.within(*to, limit) {
            refuse!(
                Refused::BeyondMove, "{id} cannot take cover at {to}: that is {} away, and \"Each figure can move up to 3\" towards the nearest cover\"",
                inches(f.at.distance_ceil(*to))
            );
        }
        if let Some(e) = enemies.iter().find(|e| !closer_ok(f.at, *to, e.at)) {
            refuse!(
                Refused::TowardsEnemy,
                "{id} would move towards {} of {}: \"they cannot advance towards an enemy to do so\"",
                e.id,
                e.unit
            );
        }
    }
    for (id, to) in moves {
        let from = state.figures[id.as_str()].at;
        facts.push(Fact::FigureMoved { figure: id.clone(), from, to: *to, distance_tenths: from.distance_ceil(*to) });
    }
    let in_cover: Vec<String> = moves.keys().cloned().collect();
    let prone = members(state, &a.unit).iter().filter(|f| !moves.contains_key(&f.id)).map(|f| f.id.clone()).collect();
    facts.push(Fact::TookCover { unit: a.unit.clone(), in_cover, prone });
    end_activation(facts);
    Ok(())
}

/// Exactly: the new position is not nearer the enemy than the old.
fn closer_ok(from: Point, to: Point, enemy: Point) -> bool {
    let d2 = |p: Point| {
        let dx = i128::from(p.x) - i128::from(enemy.x);
        let dy = i128::from(p.y) - i128::from(enemy.y);
        dx * dx + dy * dy
    };
    d2(to) >= d2(from)
}

/// The units an ambush fires on: the unit it lies in wait for, and, once
/// blown, the units that unit detached on the CP whose checks blew it.
///
/// "A failed roll means that the figures that failed perform ragged fire on
/// the target before the target begins its action." — "This weapons fire is
/// resolved before Jason's unit begins performing their actions on the
/// current CP." The target is the unit as it stood when it spent the CP: a
/// detachment paid with that CP takes effect in the same decision, but the
/// figures it detached were the target's when the checks were rolled, and
/// fire at them is fire at the target (N59). Under
/// `detached-units-leave-the-target`, and in versions 1 and 2, no unit is
/// added: the fire falls on the figures still in the unit.
pub(super) fn target_units(a: &Ambush) -> impl Iterator<Item = &str> {
    std::iter::once(a.target.as_str()).chain(a.detached.iter().map(String::as_str))
}

/// Whether a figure of `unit` is a figure of the ambush's target (N59).
fn is_the_target(a: &Ambush, unit: &str) -> bool {
    target_units(a).any(|t| t == unit)
}

/// The target named: the unit, and the units it detached on the CP that
/// blew the ambush, if any.
fn the_target(a: &Ambush) -> String {
    if a.detached.is_empty() {
        a.target.clone()
    } else {
        format!("{} or {} (detached from it on the CP that blew the ambush)", a.target, list(&a.detached))
    }
}

/// Whether an ambusher has anything he may fire at some figure of the
/// target (N33), detached units included (N59).
pub(super) fn able_to_fire_on_target(state: &State, figure: &str, a: &Ambush) -> bool {
    target_units(a).any(|t| able_to_fire(state, figure, t))
}

/// An ambush whose nervous figures (still in play, and still with something
/// to fire at the target) have yet to fire.
fn blown(state: &State, a: &super::Ambush) -> bool {
    !a.fired
        && a.nervous.iter().any(|n| {
            state.figures.get(n.as_str()).is_some_and(|f| f.in_play() && f.unit == a.by)
                && able_to_fire_on_target(state, n, a)
        })
}

/// Whether `by`'s ambush is blown: its nervous figures must fire.
pub(super) fn is_blown(state: &State, by: &str) -> bool {
    state.turn.as_ref().is_some_and(|t| t.ambushes.iter().any(|a| a.by == by && blown(state, a)))
}

/// Units whose ambush has been blown must fire first: "This weapons fire is
/// resolved before Jason's unit begins performing their actions on the
/// current CP."
pub(super) fn refuse_while_ambush_blown(state: &State, by_deciding: Option<&str>) -> Result<(), Violation> {
    if let Some(a) = state.turn.as_ref().and_then(|t| t.ambushes.iter().find(|a| blown(state, a))) {
        if by_deciding == Some(a.by.as_str()) {
            return Ok(());
        }
        refuse!(
            Refused::AmbushBlown, "{}'s ambush is blown: {} must fire ragged at {} before anything else (\"This weapons fire is resolved before Jason's unit begins performing their actions on the current CP\")",
            a.by,
            list(&a.nervous),
            the_target(a)
        );
    }
    Ok(())
}
