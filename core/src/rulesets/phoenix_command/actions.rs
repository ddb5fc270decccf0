//! 2.4 Actions: what each figure of the active unit does with the CP being
//! spent. Where a figure goes is a referee input; how far it may go is not.

use crate::refuse;
use crate::ruleset::Violation;

use super::decide::{self, list, waiting_to_act, Facts};
use super::turn::end_activation;
use super::{Action, Fact, State};

/// Tenths of an inch as inches: `72` → `7.2"`.
pub(super) fn inches(tenths: u64) -> String {
    format!("{}.{}\"", tenths / 10, tenths % 10)
}

/// Figures of the active unit act on the CP being spent.
///
/// "Each figure in the unit must perform his action before the unit's next
/// CP can be expended." — "Actions are performed by the figures in a unit,
/// and not the unit as a whole. Individual figures in a unit can perform
/// different actions on the expenditure of the same CP." — "When the unit's
/// leader begins expending command points, all members in the unit must
/// act." One action per figure per CP; the CP is complete when every figure
/// has acted, and the activation ends with the last CP.
pub(super) fn actions(
    state: &State,
    actions: &[Action],
    facts: &mut Facts,
) -> Result<(), Violation> {
    let a = decide::activation(state)?;
    let Some(step) = &a.step else {
        refuse!(
            "{} is not spending a CP on actions: spend its next CP first (\"Units can only perform actions by expending accumulated CP\")",
            a.unit
        );
    };
    if actions.is_empty() {
        refuse!("name at least one figure's action");
    }
    let mut acting: Vec<&str> = Vec::new();
    for action in actions {
        let id = action.figure();
        let f = decide::figure(state, id)?;
        if f.unit != a.unit || !f.in_play() {
            refuse!(
                "{id} is not a figure of {} in play: only the active unit's figures act on its CP",
                a.unit
            );
        }
        if step.acted.contains(id) || acting.contains(&id) {
            refuse!(
                "{id} has already acted on CP {}: \"Each figure in the unit must perform his action before the unit's next CP can be expended\" — one action per figure per CP (still to act: {})",
                step.number,
                list(&waiting_to_act(state, a))
            );
        }
        acting.push(id);
        let (from, distance_tenths) = match action {
            Action::Move { to, .. } => {
                let distance = f.at.distance_ceil(*to);
                let allowance = state.config.standard_move_tenths;
                if !f.at.within(*to, allowance) {
                    refuse!(
                        "{id} cannot move from {} to {to}: that is {} and a standard move is {}",
                        f.at,
                        inches(distance),
                        inches(allowance)
                    );
                }
                (Some(f.at), Some(distance))
            }
            Action::Hold { .. } | Action::Other { .. } => (None, None),
        };
        facts.push(Fact::FigureActed {
            unit: a.unit.clone(),
            number: step.number,
            action: action.clone(),
            from,
            distance_tenths,
        });
    }
    complete_step_if_done(facts);
    Ok(())
}

/// Closes the CP being spent once every figure of the unit has acted on it,
/// and ends the activation when it was the last.
pub(super) fn complete_step_if_done(facts: &mut Facts) {
    let state = facts.state();
    let Some(a) = state.turn.as_ref().and_then(|t| t.activation.as_ref()) else {
        return;
    };
    let Some(step) = &a.step else { return };
    if !waiting_to_act(state, a).is_empty() {
        return;
    }
    let cp_left = state.units.get(&a.unit).map_or(0, |u| u.cp);
    facts.push(Fact::CpCompleted {
        unit: a.unit.clone(),
        number: step.number,
        cp_left,
    });
    if cp_left == 0 {
        end_activation(facts);
    }
}
