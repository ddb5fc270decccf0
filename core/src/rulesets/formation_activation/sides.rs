//! Who decides: the side of the active formation, or the referee.
//!
//! "The player performs the actions described below to carry out the orders
//! of the active formation": operations and the end of an activation are its
//! side's. Reaction fire is the other player's ("may take reaction fire
//! during the opponent's action phase (6.2)"): the reacting unit's side.
//! Drawing a chit from the cup, beginning a turn, and what the referee
//! settles off the command layer (disruption, elimination, placing and
//! relocating units) are referee decisions.

use super::{Decision, State};
use crate::ruleset::Actor;

pub(super) fn sides(state: &State) -> Vec<String> {
    state.sides.to_vec()
}

/// The active formation's side; between activations, the referee (who draws
/// the next chit or begins the next turn).
pub(super) fn awaited(state: &State) -> Actor {
    match state.turn.as_ref().and_then(|t| t.activation.as_ref()) {
        Some(a) => Actor::side(&a.side),
        None => Actor::Referee,
    }
}

pub(super) fn author(state: &State, decision: &Decision) -> Actor {
    let of_unit = |id: &str| {
        state
            .units
            .get(id)
            .and_then(|u| state.formations.get(&u.formation))
            .map(|f| Actor::side(&f.side))
            .unwrap_or_else(|| awaited(state))
    };
    match decision {
        Decision::Move { unit, .. }
        | Decision::Fire { unit, .. }
        | Decision::Assault { unit, .. }
        | Decision::ReactionFire { unit, .. } => of_unit(unit),
        Decision::EndActivation => awaited(state),
        Decision::BeginTurn
        | Decision::DrawChit
        | Decision::Disrupt { .. }
        | Decision::Eliminate { .. }
        | Decision::Place { .. }
        | Decision::Relocate { .. } => Actor::Referee,
    }
}
