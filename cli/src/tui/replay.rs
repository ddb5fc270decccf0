//! What a replayed game is, read once from the store: a frame a position
//! (the state rendered, the narrative of its event, the dice and their
//! proofs), and where each decision and turn begins and ends.

use std::convert::Infallible;

use rollcall_core::game::{verify, Game};
use rollcall_core::record::{Event, Header, Kind};
use rollcall_core::text;

use crate::fail::Fail;
use crate::input::position::{Decisions, Position};
use crate::output::view::{DieProof, Proofs};

/// One position of the game: 0 is the scenario, before any event; `n` is
/// just after the event of seq `n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The event's narration, one line per line (escaped for a terminal).
    pub narration: Vec<String>,
    /// The decisions made so far (the narrative's `#N` of the last one).
    pub decision: u64,
    pub turn: u32,
    /// The state just after the event, as `state` renders it.
    pub state: Vec<String>,
}

/// A die of the game, with how far it is proven.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Die {
    pub seq: u64,
    pub decision: u64,
    pub text: String,
    pub proof: DieProof,
}

/// A game, read once: every position, its decisions and turns, its dice
/// and what verify says of it.
#[derive(Debug)]
pub struct Replay {
    pub game: String,
    pub rules: String,
    pub frames: Vec<Frame>,
    pub decisions: Decisions,
    pub dice: Vec<Die>,
    /// What verify says: "verified: …" or "does NOT verify: …".
    pub integrity: String,
}

impl Replay {
    /// Folds `events` into a game from `header`, keeping every position;
    /// verifies the record to tell each die's proof.
    pub fn build(header: &Header, events: &[Event]) -> Result<Replay, Fail> {
        let verified =
            verify(header, events.iter().cloned().map(Ok::<_, Infallible>), rollcall_core::registry::builtin());
        let failed_at = verified.as_ref().err().map(|f| f.seq.unwrap_or(0));
        let integrity = match &verified {
            Ok(v) => format!("verified: {} events, {} decisions; {}", v.events, v.decisions, v.guarantee()),
            Err(f) => format!("does NOT verify: {f}"),
        };
        let proofs = Proofs::of(header, events, failed_at);
        let mut game =
            Game::open(header.clone(), rollcall_core::registry::builtin()).map_err(|e| Fail::msg(e.to_string()))?;
        let mut frames = vec![Frame {
            narration: vec!["(the scenario, before the first event)".to_string()],
            decision: 0,
            turn: game.turn(),
            state: lines(&game.render()),
        }];
        let mut decisions = Decisions::default();
        let mut dice = Vec::new();
        for (i, e) in events.iter().enumerate() {
            if e.seq != i as u64 + 1 {
                return Err(fail!("{}: event {} has seq {}: the record is not contiguous", header.game, i + 1, e.seq));
            }
            game.apply(e).map_err(|err| fail!("{}: seq {}: {err}", header.game, e.seq))?;
            decisions.see(&game, e.seq, e.kind);
            let narration = lines(game.narrate(e).trim_end());
            if e.kind == Kind::Roll {
                let decision = e.body.get("decision").and_then(serde_json::Value::as_u64).unwrap_or(0);
                let text = narration.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
                dice.push(Die { seq: e.seq, decision, text, proof: proofs.of_die(e.seq, decision) });
            }
            frames.push(Frame {
                narration,
                decision: game.decisions(),
                turn: game.turn(),
                state: lines(&game.render()),
            });
        }
        Ok(Replay { game: header.game.clone(), rules: header.rules.label(), frames, decisions, dice, integrity })
    }

    /// The last position: the seq of the last event.
    pub fn last(&self) -> usize {
        self.frames.len() - 1
    }

    /// The decision the event at `at` belongs to, if any.
    pub(super) fn decision_at(&self, at: usize) -> Option<&crate::input::position::DecisionSpan> {
        let at = at as u64;
        self.decisions.list.iter().find(|d| d.span.first <= at && at <= d.span.last)
    }

    /// Where a position ends, as `replay --seq/--decision/--turn` stops.
    pub fn resolve(&self, position: Position) -> Result<usize, String> {
        self.decisions.span(&self.game, position).map(|s| s.last as usize).map_err(|f| f.message())
    }
}

pub(super) fn lines(text: &str) -> Vec<String> {
    text.lines().map(|l| text::escape(l).into_owned()).collect()
}
