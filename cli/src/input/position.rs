//! Positions in a game, in the three numberings a user meets: an event's
//! seq (as `log` shows it), a decision's number (the narrative's `#7`) and
//! a turn (the narrative's "Turn 2 begins"). Every command that takes a
//! position takes any one of them, and a position the game does not have
//! is an error, whatever the command.
//!
//! A decision spans its decision event and every event up to the next
//! decision (its rolls, facts, and any checkpoint or reveal after them). A
//! decision belongs to the turn the game is in once its facts are folded
//! in: the decision that begins turn 1 is in turn 1, as the narrative says.
//! A turn spans its decisions.

use rollcall_core::game::Game;
use rollcall_core::log::{open_game_with, EventLog};
use rollcall_core::Kind;

use crate::args::PositionArgs;
use crate::fail::Fail;

/// A position, as the user wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Seq(u64),
    Decision(u64),
    Turn(u32),
}

impl Position {
    /// The position `--seq`, `--decision` or `--turn` gives, if any;
    /// `legacy` is a command's older flag for a seq (`--at`, `--to`,
    /// `--from`), which clap keeps apart from these.
    pub fn given(args: &PositionArgs, legacy: Option<u64>) -> Option<Position> {
        match (args.seq.or(legacy), args.decision, args.turn) {
            (Some(s), _, _) => Some(Position::Seq(s)),
            (_, Some(d), _) => Some(Position::Decision(d)),
            (_, _, Some(t)) => Some(Position::Turn(t)),
            _ => None,
        }
    }
}

/// The events a position covers, `first..=last` by seq.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub first: u64,
    pub last: u64,
}

/// One decision of a game: its events and the turn it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecisionSpan {
    pub number: u64,
    pub span: Span,
    pub turn: u32,
}

/// Every decision of a game, in order, as the events of a replay show them;
/// feed it each event after it is folded into the game.
#[derive(Debug, Default)]
pub struct Decisions {
    pub list: Vec<DecisionSpan>,
    /// The last seq seen.
    pub events: u64,
}

impl Decisions {
    pub fn see(&mut self, game: &Game, seq: u64, kind: Kind) {
        self.events = seq;
        if kind == Kind::Decision {
            self.list.push(DecisionSpan {
                number: game.decisions(),
                span: Span { first: seq, last: seq },
                turn: game.turn(),
            });
        } else if let Some(d) = self.list.last_mut() {
            d.span.last = seq;
            d.turn = game.turn();
        }
    }

    /// [`Decisions::see`] from the game alone, after an event it folded
    /// in: its seq, and whether it was a decision.
    pub fn see_folded(&mut self, game: &Game, decision: bool) {
        self.see(game, game.seq(), if decision { Kind::Decision } else { Kind::Fact });
    }

    /// The events `position` covers, or an error naming what the game has.
    pub fn span(&self, id: &str, position: Position) -> Result<Span, Fail> {
        match position {
            Position::Seq(seq) if seq <= self.events => Ok(Span { first: seq, last: seq }),
            Position::Seq(seq) => Err(fail!(
                "game {id:?} has {} events (seq 0 is the scenario, before the first); there is no seq {seq}",
                self.events
            )),
            Position::Decision(n) => self.list.iter().find(|d| d.number == n).map(|d| d.span).ok_or_else(|| {
                fail!(
                    "game {id:?} has {} decisions{}; there is no decision {n}",
                    self.list.len(),
                    if self.list.is_empty() { String::new() } else { format!(" (1–{})", self.list.len()) }
                )
            }),
            Position::Turn(t) => {
                let mut of_turn = self.list.iter().filter(|d| d.turn == t);
                match (of_turn.next(), of_turn.next_back()) {
                    (Some(first), last) => Ok(Span { first: first.span.first, last: last.unwrap_or(first).span.last }),
                    (None, _) => Err(fail!("game {id:?} {}; there is no turn {t}", self.turns())),
                }
            }
        }
    }

    fn turns(&self) -> String {
        let mut turns: Vec<u32> = self.list.iter().map(|d| d.turn).collect();
        turns.dedup();
        match (turns.first(), turns.last()) {
            (None, _) => "has no decisions yet".to_string(),
            (Some(a), Some(b)) if a == b => format!("has turn {a} only"),
            (Some(a), Some(b)) => format!("has turns {a}–{b}"),
            _ => unreachable!("first and last exist together"),
        }
    }
}

/// The events `position` covers in a stored game. A seq needs only the
/// store's head; a decision or a turn reads the game once.
pub fn resolve(log: &dyn EventLog, id: &str, position: Position) -> Result<Span, Fail> {
    if let Position::Seq(_) = position {
        let head = log.head(id)?;
        let decisions = Decisions { list: Vec::new(), events: head.seq };
        return decisions.span(id, position);
    }
    let mut decisions = Decisions::default();
    open_game_with(log, id, None, rollcall_core::registry::builtin(), |g, e| decisions.see(g, e.seq, e.kind))?;
    decisions.span(id, position)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decisions() -> Decisions {
        // Decision 1 begins turn 1 (seq 1–3), decision 2 (seq 4–6) in turn
        // 1, decision 3 begins turn 2 (seq 7–8), then a checkpoint (seq 9).
        let d = |number, first, last, turn| DecisionSpan { number, span: Span { first, last }, turn };
        Decisions { list: vec![d(1, 1, 3, 1), d(2, 4, 6, 1), d(3, 7, 9, 2)], events: 9 }
    }

    #[test]
    fn a_decision_spans_its_events_and_a_turn_its_decisions() {
        let d = decisions();
        assert_eq!(d.span("g", Position::Decision(2)).unwrap(), Span { first: 4, last: 6 });
        assert_eq!(d.span("g", Position::Decision(3)).unwrap(), Span { first: 7, last: 9 });
        assert_eq!(d.span("g", Position::Turn(1)).unwrap(), Span { first: 1, last: 6 });
        assert_eq!(d.span("g", Position::Turn(2)).unwrap(), Span { first: 7, last: 9 });
        assert_eq!(d.span("g", Position::Seq(0)).unwrap(), Span { first: 0, last: 0 });
        assert_eq!(d.span("g", Position::Seq(9)).unwrap(), Span { first: 9, last: 9 });
    }

    #[test]
    fn a_position_the_game_does_not_have_is_an_error_naming_what_it_has() {
        let d = decisions();
        let err = |p| d.span("g", p).unwrap_err().message();
        assert_eq!(
            err(Position::Seq(10)),
            "game \"g\" has 9 events (seq 0 is the scenario, before the first); there is no seq 10"
        );
        assert_eq!(err(Position::Decision(0)), "game \"g\" has 3 decisions (1–3); there is no decision 0");
        assert_eq!(err(Position::Decision(4)), "game \"g\" has 3 decisions (1–3); there is no decision 4");
        assert_eq!(err(Position::Turn(3)), "game \"g\" has turns 1–2; there is no turn 3");
        assert_eq!(
            Decisions::default().span("g", Position::Turn(1)).unwrap_err().message(),
            "game \"g\" has no decisions yet; there is no turn 1"
        );
    }
}
