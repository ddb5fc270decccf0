//! Golden outputs: what a script or record must keep producing.
//!
//! For each fixture the project keeps, beside it, the narrative (every event,
//! narrated, ending with the head hash), the final state as text, and a
//! digest of the state at the end of each turn. A change of rules behaviour
//! shows up as a reviewed diff of these files in a commit.

use crate::canon;
use crate::digest::Digest;
use crate::game::Game;
use crate::record::Event;

/// The outputs a fixture is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outputs {
    /// Every event narrated, one per line, then `head <hash>`.
    pub narrative: String,
    /// The final state, rendered.
    pub state: String,
    /// `turn N <digest>` for the state at the end of each turn, then `final <digest>`.
    pub turns: String,
}

/// The digest of a game's state: blake3 of its canonical JSON.
pub fn state_digest(game: &Game) -> Digest {
    Digest::of(&canon::to_bytes(&game.state()).expect("states hold integers only"))
}

/// Collects outputs as events are folded into a game.
#[derive(Default)]
pub struct Collector {
    narrative: String,
    turns: String,
    turn: u32,
    /// The game as the last decision closed: its state's digest is written
    /// only if the next decision ends the turn, so it is kept as a copy
    /// (cheaper than a digest) and digested only then.
    last: Option<Game>,
    decision_open: bool,
}

impl Collector {
    /// Takes one event, just after it was folded into `game`.
    pub fn see(&mut self, game: &Game, event: &Event) {
        if event.kind == crate::record::Kind::Decision {
            self.close_decision(game);
            self.decision_open = true;
        }
        self.narrative.push_str(&game.narrate(event));
        self.narrative.push('\n');
    }

    /// The state digest is taken between decisions, when a turn has ended.
    fn close_decision(&mut self, game: &Game) {
        if !self.decision_open {
            return;
        }
        let turn = game.turn();
        if turn != self.turn {
            if let Some(last) = &self.last {
                if self.turn > 0 {
                    self.turns.push_str(&format!("turn {} {}\n", self.turn, state_digest(last)));
                }
            }
            self.turn = turn;
        }
        self.last = Some(game.clone());
    }

    /// The outputs, once every event has been seen.
    pub fn finish(mut self, game: &Game) -> Outputs {
        // The last decision's state belongs to the current turn.
        self.narrative.push_str(&format!("head {}\n", game.head()));
        self.turns.push_str(&format!("final turn {} {}\n", game.turn(), state_digest(game)));
        Outputs { narrative: self.narrative, state: game.render(), turns: self.turns }
    }
}

impl Outputs {
    /// Each output with the suffix of the file it is kept in beside its fixture.
    pub fn files(&self) -> [(&'static str, &str); 3] {
        [("narrative.txt", &self.narrative), ("state.txt", &self.state), ("turns.txt", &self.turns)]
    }
}

/// Plays a script, verifies what it wrote, and collects its outputs.
pub fn script_outputs(script: &crate::script::Script) -> Result<Outputs, String> {
    let mut collector = Collector::default();
    let mut events = Vec::new();
    let game = script
        .play(|g, e| {
            collector.see(g, e);
            events.push(e.clone());
        })
        .map_err(|e| e.to_string())?;
    let verified = crate::game::verify(&script.header, events.into_iter().map(Ok::<_, String>))
        .map_err(|e| format!("does not verify: {e}"))?;
    assert_eq!(verified.head, game.head(), "verify and play agree on the head");
    Ok(collector.finish(&game))
}

/// Verifies a record, collecting its outputs as it streams.
pub fn record_outputs<E: std::fmt::Display>(
    header: &crate::record::Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
) -> Result<Outputs, crate::game::VerifyFailure> {
    let mut collector = Collector::default();
    let (_, game) = crate::game::verify_game(header, events, |g, e| collector.see(g, e))?;
    Ok(collector.finish(&game))
}
