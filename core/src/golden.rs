//! Golden outputs: what a script or record must keep producing.
//!
//! For each fixture the project keeps, beside it, the narrative (every event,
//! narrated, ending with the head hash), the final state as text, and a
//! digest of the state at the end of each turn. A change of rules behaviour
//! shows up as a reviewed diff of these files in a commit.

use crate::digest::Digest;
use crate::game::{Decide, Game, Verifier};
use crate::record::{Event, Kind};
use crate::script::Script;

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

/// The digest of a game's state: blake3 of its canonical JSON (written
/// straight from the typed state).
pub fn state_digest(game: &Game) -> Digest {
    let mut bytes = Vec::with_capacity(4096);
    game.append_state_canonical(&mut bytes).expect("states hold integers only");
    Digest::of(&bytes)
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
    /// Decisions seen so far.
    decisions: u64,
}

impl Collector {
    /// Takes one event, just after it was folded into `game`.
    pub fn see(&mut self, game: &Game, event: &Event) {
        if event.kind == Kind::Decision {
            self.close_decision(game);
            self.decisions += 1;
        }
        self.narrate(game, event);
    }

    /// [`Collector::see`] for a decision, told before its facts are folded
    /// in which turn they lead to (`turn_after`: a script is played a
    /// decision ahead of its verification). `game` is then the game as the
    /// last decision closed, the copy [`Collector::see`] keeps, so the state
    /// at the end of a turn is digested at once and no copy is kept. The
    /// lines are those [`Collector::see`] writes when it is handed each
    /// decision's events once all of them are folded in ([`Script::play`]),
    /// as the golden files of scripts keep them.
    fn see_decision_ahead(&mut self, game: &Game, event: &Event, turn_after: u32) {
        debug_assert_eq!(event.kind, Kind::Decision);
        if self.decisions > 0 && turn_after != self.turn {
            // `see` holds no copy yet at the second decision.
            if self.decisions > 1 && self.turn > 0 {
                self.turns.push_str(&format!("turn {} {}\n", self.turn, state_digest(game)));
            }
            self.turn = turn_after;
        }
        self.decisions += 1;
        self.narrate(game, event);
    }

    fn narrate(&mut self, game: &Game, event: &Event) {
        game.narrate_into(event, &mut self.narrative);
        self.narrative.push('\n');
    }

    /// The state digest is taken between decisions, when a turn has ended.
    fn close_decision(&mut self, game: &Game) {
        if self.decisions == 0 {
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

/// Plays a script, verifies what it wrote, and collects its outputs from
/// the verified game.
///
/// Each decision is played, then verified at once: the verifier re-decides
/// it on its own game and takes each roll and fact by the bytes the played
/// game's links hashed. The played game is thus a decision ahead of the
/// verified one, and says which turn a decision leads to before the
/// verified game folds its facts in.
pub fn script_outputs(script: &Script) -> Result<Outputs, String> {
    let does_not_verify = |e: crate::game::VerifyFailure| format!("does not verify: {e}");
    let mut game = Game::open(script.header.clone(), script.registry()).expect("checked by parse");
    let mut verifier = Verifier::new(&script.header, script.registry()).map_err(does_not_verify)?;
    let mut collector = Collector::default();
    for (i, (decision, dice)) in script.decisions.iter().enumerate() {
        let mut decided = game
            .decide(decision, Decide { dice: dice.as_ref(), ..Decide::default() })
            .map_err(|refusal| script.refusal_error(i, refusal).to_string())?;
        game.adopt_decided(&mut decided);
        let turn_after = game.turn();
        verifier
            .push_decided(&decided, |verified, event| match event.kind {
                Kind::Decision => collector.see_decision_ahead(verified, event, turn_after),
                _ => collector.see(verified, event),
            })
            .map_err(does_not_verify)?;
    }
    let (verified, verified_game) = verifier.finish().map_err(does_not_verify)?;
    assert_eq!(verified.head, game.head(), "verify and play agree on the head");
    Ok(collector.finish(&verified_game))
}

/// Verifies a record (of a ruleset in `registry`), collecting its outputs as it streams.
pub fn record_outputs<E: std::fmt::Display>(
    header: &crate::record::Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
    registry: &crate::ruleset::Registry,
) -> Result<Outputs, crate::game::VerifyFailure> {
    let mut collector = Collector::default();
    let (_, game) = crate::game::verify_game(header, events, registry, |g, e| collector.see(g, e))?;
    Ok(collector.finish(&game))
}
