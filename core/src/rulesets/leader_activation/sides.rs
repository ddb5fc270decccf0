//! Who decides: the side whose leader is activating, or the referee.
//!
//! "Upon a leader's activation in the Command Phase, the leader may himself
//! command any three friendly units": everything done in an activation is
//! the activating leader's side's decision. Choosing the next leader is the
//! side whose slot it is ("let him activate two leaders or even more in
//! sequence"), and a skip is the skipping side's. So is the active leader's
//! own move ("any action of his own (such as moving or shooting)", LN4). Who
//! begins a turn, breaking, close combat, any other movement and removing
//! the dead (LN3) are inputs the text leaves to the table (L10): referee
//! decisions.

use super::{Decision, State};
use crate::ruleset::Actor;

pub(super) fn sides(state: &State) -> Vec<String> {
    state.sides.iter().map(|s| s.to_string()).collect()
}

/// The activating leader's side; between activations, the side whose slot
/// it is; before a turn or after it, the referee (who begins the next).
pub(super) fn awaited(state: &State) -> Actor {
    let Some(turn) = &state.turn else { return Actor::Referee };
    if let Some(a) = &turn.activation {
        return Actor::side(&a.side);
    }
    match &turn.next {
        Some(side) => Actor::side(side),
        None => Actor::Referee,
    }
}

pub(super) fn author(state: &State, decision: &Decision) -> Actor {
    let activating = || {
        state
            .turn
            .as_ref()
            .and_then(|t| t.activation.as_ref())
            .map(|a| Actor::side(&a.side))
            .unwrap_or_else(|| awaited(state))
    };
    match decision {
        Decision::Activate { leader } => {
            state.pieces.get(&**leader).map(|p| Actor::side(&p.side)).unwrap_or_else(|| awaited(state))
        }
        Decision::SelfRally {}
        | Decision::Command { .. }
        | Decision::UnitAction { .. }
        | Decision::LeaderAction { .. }
        | Decision::Rally { .. }
        | Decision::EndActivation {} => activating(),
        Decision::Skip { side } => Actor::side(side),
        Decision::BeginTurn { .. }
        | Decision::Break { .. }
        | Decision::LockInCloseCombat { .. }
        | Decision::FreeFromCloseCombat { .. }
        | Decision::Remove { .. } => Actor::Referee,
        Decision::Move { piece, displaced, .. } => {
            let own = state.config.leader_move_is_own_action
                && !displaced
                && state.turn.as_ref().and_then(|t| t.activation.as_ref()).is_some_and(|a| a.leader == *piece);
            if own {
                activating()
            } else {
                Actor::Referee
            }
        }
    }
}
