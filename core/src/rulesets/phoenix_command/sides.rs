//! Who decides: the side of the unit acting, or the referee.
//!
//! 2.1: "The decision then passes to the unit with the next highest number
//! of CP": an activation and everything its leader orders on its CP are its
//! side's. An interrupt is the ambushing unit's ("The ambushers … perform a
//! single action"), a melee answer the target's ("The target figure then
//! decides if he wishes to engage in melee or escape"), a brevet the unit's
//! whose leader fell. What the text leaves to the table — beginning a turn
//! and operations, line of sight, contact, routs, injury effects without a
//! table, casualties, command checks the referee calls — are referee
//! decisions (P9).

use super::consequences::next_up;
use super::{Decision, State};
use crate::ruleset::Actor;

pub(super) fn sides(state: &State) -> Vec<String> {
    state.sides.to_vec()
}

fn unit_side(state: &State, unit: &str) -> Option<Actor> {
    state.units.get(unit).map(|u| Actor::side(&u.side))
}

/// The input the rules wait on first (an injury effect, a melee answer, a
/// brevet, a rout, a blown ambush's fire), then the active unit's side, then
/// the side whose unit is next to activate; the referee otherwise.
pub(super) fn awaited(state: &State) -> Actor {
    let Some(turn) = &state.turn else {
        // A casualty before the first turn can leave a brevet due: it comes
        // first all the same ("has to appoint a new leader immediately").
        return match state.units.values().find(|u| u.brevet_due.is_some()) {
            Some(u) => Actor::side(&u.side),
            None => Actor::Referee,
        };
    };
    if !turn.pending_injuries.is_empty() {
        return Actor::Referee;
    }
    if let Some(m) = &turn.melee {
        if let Some(f) = state.figures.get(m.target.as_str()) {
            return Actor::side(&f.side);
        }
    }
    if let Some(u) = state.units.values().find(|u| u.brevet_due.is_some()) {
        return Actor::side(&u.side);
    }
    if state.units.values().any(|u| u.rout_due) {
        return Actor::Referee;
    }
    // A blown ambush whose nervous figures can still fire (N33).
    if let Some(a) = turn.ambushes.iter().find(|a| super::interrupts::is_blown(state, &a.by)) {
        if let Some(side) = unit_side(state, &a.by) {
            return side;
        }
    }
    if let Some(a) = &turn.activation {
        return Actor::side(&a.side);
    }
    match next_up(state) {
        Some(next) => Actor::Side(next.side),
        None => Actor::Referee,
    }
}

pub(super) fn author(state: &State, decision: &Decision) -> Actor {
    let active = || {
        state
            .turn
            .as_ref()
            .and_then(|t| t.activation.as_ref())
            .map(|a| Actor::side(&a.side))
            .unwrap_or_else(|| awaited(state))
    };
    let of_unit = |unit: &str| unit_side(state, unit).unwrap_or_else(|| awaited(state));
    match decision {
        Decision::StrategicMove { unit, .. } | Decision::Activate { unit } | Decision::Brevet { unit, .. } => {
            of_unit(unit)
        }
        Decision::Interrupt { by, .. } => of_unit(by),
        Decision::MeleeResponse { .. } => state
            .turn
            .as_ref()
            .and_then(|t| t.melee.as_ref())
            .and_then(|m| state.figures.get(m.target.as_str()))
            .map(|f| Actor::side(&f.side))
            .unwrap_or_else(|| awaited(state)),
        Decision::Accumulate
        | Decision::Pass
        | Decision::SpendCp
        | Decision::Actions { .. }
        | Decision::Stop
        | Decision::SetInterrupt
        | Decision::SelfRally
        | Decision::SteadyUnit { .. }
        | Decision::Rally { .. }
        | Decision::RallyPanicked { .. }
        | Decision::Abandon
        | Decision::ForcedRally { .. }
        | Decision::TakeCover { .. }
        | Decision::TakeCommand
        | Decision::Consolidate { .. }
        | Decision::Detach { .. }
        | Decision::Reorganise { .. } => active(),
        Decision::BeginTurn
        | Decision::Contact { .. }
        | Decision::BeginOperations
        | Decision::Sighted { .. }
        | Decision::Rout { .. }
        | Decision::CommandCheck { .. }
        | Decision::Injury { .. }
        | Decision::Casualty { .. } => Actor::Referee,
    }
}
