//! Who decides: the side whose Command Pulse it is, or the referee.
//!
//! "The first Command Pulse goes to the side with most 6s … sides alternate
//! pulses, one chain per pulse": a pulse is the side's whose battle group
//! plays it, and so is bringing on its reserves. Who rolls first, the end of
//! a turn and movement are table inputs: referee decisions.

use super::{Decision, State};
use crate::ruleset::Actor;

pub(super) fn sides(state: &State) -> Vec<String> {
    state.sides.iter().map(|s| s.id.clone()).collect()
}

/// The side whose pulse it is; with no pulse left, or between turns, the
/// referee (who ends the turn, or begins the next).
pub(super) fn awaited(state: &State) -> Actor {
    match state.turn.as_ref().filter(|t| !t.ended).and_then(|t| t.pulse.as_ref()) {
        Some(side) => Actor::side(side),
        None => Actor::Referee,
    }
}

pub(super) fn author(state: &State, decision: &Decision) -> Actor {
    let of_battle_group = |id: &str| state.battle_groups.get(id).map(|bg| Actor::side(&bg.side));
    match decision {
        Decision::Pulse { battle_group, .. } => of_battle_group(battle_group).unwrap_or_else(|| awaited(state)),
        Decision::EnterReserve { command_group, .. } => state
            .command_groups
            .get(command_group)
            .and_then(|cg| of_battle_group(&cg.battle_group))
            .unwrap_or_else(|| awaited(state)),
        Decision::BeginTurn { .. } | Decision::EndTurn {} | Decision::Move { .. } => Actor::Referee,
    }
}
