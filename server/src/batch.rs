//! One request's decisions, decided on a copy of a sealed game, with no
//! I/O: what the dice server writes and answers, the HTTP layer and the
//! store only carry.
//!
//! **What a refused request may reveal.** A side must not learn a sealed die
//! before it is committed to the decision that draws it. A batch is played
//! in order; once a decision has drawn a die, the legality of every later
//! one may depend on that die (a rally that failed leaves the unit broken,
//! a failed activation passes the turn). So a batch refused at decision
//! *k* is answered in one of two ways:
//!
//! - no decision before *k* drew a die: the whole batch is refused, nothing
//!   is written, and the answer is a function of the written game and the
//!   request alone (the same under any chain value);
//! - one did: the decisions before *k* are written (with the reveal of any
//!   turn they end), the head is signed, and the answer (200) names the
//!   refused decision and why. What it tells depends on a die only once that
//!   die is written and signed.
//!
//! Every decision's form is read before any is decided: a batch with a
//! decision that does not parse is refused whole (400), whatever the dice.

use rollcall_core::game::Game;
use rollcall_core::record::{Event, Kind};
use rollcall_core::ruleset::Refusal;
use rollcall_core::sealed::Chain;
use serde_json::Value;

use crate::error::ApiError;

/// A batch decided: the game after what is to be written, and the events.
pub struct Decided {
    /// The game after the written decisions (and the reveals of the turns they end).
    pub game: Game,
    /// The events to write, in order.
    pub events: Vec<Event>,
    /// How many of the batch's decisions are written.
    pub written: usize,
    /// The decision refused after a die was drawn: its index, and why.
    pub refused: Option<(usize, ApiError)>,
}

/// Decides `decisions` by `side` on a copy of `game` (which holds the chain
/// value of the turn in play), drawing each new turn's value from `chain`.
/// An error is a refusal of the whole batch, nothing to write.
pub fn decide(game: &Game, chain: &Chain, side: &str, decisions: &[Value]) -> Result<Decided, ApiError> {
    let at = |i: usize, field: &str| {
        let index = if decisions.len() > 1 { format!("decisions[{i}]") } else { "decision".to_string() };
        if field.is_empty() {
            index
        } else {
            format!("{index}.{field}")
        }
    };
    if game.sealed().is_some_and(|s| s.value.is_none()) {
        return Err(exhausted(chain));
    }
    for (i, decision) in decisions.iter().enumerate() {
        game.parse(decision).map_err(|refusal| answer(refusal, &at(i, ""), |f| at(i, f)))?;
    }
    let mut trial = game.clone();
    let mut events = Vec::new();
    for (i, decision) in decisions.iter().enumerate() {
        let before = trial.turn();
        let refused = match trial.play_as(decision, None, Some(side)) {
            Ok(new) => {
                events.extend(new);
                if trial.turn() == before || turn_ends(&mut trial, chain, &mut events)? {
                    continue;
                }
                // The chain is used up: the turn ended and was revealed, and
                // no decision can follow it.
                match decisions.get(i + 1) {
                    None => continue,
                    Some(_) => (i + 1, exhausted(chain)),
                }
            }
            Err(refusal) => (i, answer(refusal, &at(i, ""), |f| at(i, f))),
        };
        if !events.iter().any(|e| e.kind == Kind::Roll) {
            return Err(refused.1);
        }
        return Ok(Decided { game: trial, events, written: refused.0, refused: Some(refused) });
    }
    Ok(Decided { game: trial, events, written: decisions.len(), refused: None })
}

/// The turn ended: its reveal is added, and the next turn's value given to
/// the game. False when the chain holds no next value.
fn turn_ends(trial: &mut Game, chain: &Chain, events: &mut Vec<Event>) -> Result<bool, ApiError> {
    let reveal = trial.reveal().map_err(|e| ApiError::new(500, "storage", e))?;
    trial.apply(&reveal).expect("the reveal folds in");
    events.push(reveal);
    let next = trial.sealed().expect("a served game is sealed").index;
    let Some(value) = chain.value(next) else { return Ok(false) };
    trial.unseal(value).map_err(|e| ApiError::new(500, "storage", e))?;
    Ok(true)
}

fn exhausted(chain: &Chain) -> ApiError {
    ApiError::new(
        409,
        "chain-exhausted",
        format!("the chain holds {} sealed turns, all played: the game cannot go on", chain.length()),
    )
}

/// A refused decision's answer: 400 malformed (naming the field), 403 not
/// the side's decision, 422 refused by the rules.
fn answer(refusal: Refusal, at: &str, field: impl Fn(&str) -> String) -> ApiError {
    match refusal {
        Refusal::Malformed { field: f, message } => {
            ApiError::new(400, "malformed", format!("{}: {message}", field(&f)))
        }
        not_the_sides @ Refusal::NotTheSides { .. } => {
            ApiError::refused(403, "not-your-decision", format!("{at}: {not_the_sides}"), &not_the_sides)
        }
        violation @ Refusal::Violation(_) => {
            ApiError::refused(422, "refused", format!("{at}: refused: {violation}"), &violation)
        }
    }
}

#[cfg(test)]
mod tests;
