//! A game played: decisions by a side's token on the head it expects
//! (`POST /games/{id}/decisions`), each turn's chain value revealed when a
//! decision ends it, and the game ended (`POST /games/{id}/end`); each
//! answered once what it wrote is durable.

use rollcall_core::digest::Digest;
use rollcall_core::game::Game;
use rollcall_core::log::{Head, LogError};
use rollcall_core::record::Event;
use rollcall_core::sealed::head_message;
use serde_json::{json, Value};

use super::{ended_note, event_json, Live, Service, Slot, Watched};
use crate::batch;
use crate::error::{not_found, storage, ApiError};

impl Service {
    /// `POST /games/{id}/decisions`: decisions by the token's side, on the
    /// head the client expects, decided by [`batch::decide`] (refused whole
    /// before any die is drawn; kept up to the refused decision after one
    /// is); the turn's chain value is revealed when a decision ends the
    /// turn. Answered once durable.
    pub async fn decide(
        &self,
        game: &str,
        token: Option<&str>,
        expected: Digest,
        decisions: &[Value],
    ) -> Result<Value, ApiError> {
        let writing = self.appender.writing();
        let slot = self.slot(game);
        let decided = {
            let mut slot = slot.lock().await;
            self.current(game, &mut slot)?;
            let (live, side) = deciding(game, &mut slot, token, &expected)?;
            let batch::Decided { game: trial, events, written, refused } =
                batch::decide(&live.game, &live.chain, &side, decisions)?;
            match self.appender.append(game, &expected, &events) {
                Ok(_) => {}
                Err(LogError::StaleHead { .. }) => return Err(self.lost_race(game, &mut slot, &expected)),
                Err(e) => return Err(storage(e)),
            }
            let narrative = narrated(&live.game, &events);
            live.game = trial;
            let head = Head { seq: live.game.seq(), hash: live.game.head() };
            (head, narrative, written, refused)
        };
        let (head, narrative, written, refused) = decided;
        self.durable(writing).await?;
        self.announce(game, Watched::of(head, false));
        let signature = self.key.sign(&head_message(game, &head));
        let mut answer = json!({"game": game, "events": narrative, "head": head, "head_signature": signature.to_hex(),
            "written": written, "complete": refused.is_none()});
        if let Some((index, error)) = refused {
            let mut why = error.to_json();
            why["index"] = json!(index);
            why["status"] = json!(error.status);
            answer["refused"] = why;
        }
        Ok(answer)
    }

    /// `POST /games/{id}/end`: the game ends; the turn in play is revealed,
    /// so every roll of the record can be proven offline.
    pub async fn end(&self, game: &str, token: Option<&str>) -> Result<Value, ApiError> {
        let writing = self.appender.writing();
        let slot = self.slot(game);
        let (reveal, head) = {
            let mut slot = slot.lock().await;
            self.current(game, &mut slot)?;
            let Some(Slot::Live(live)) = slot.as_mut() else {
                return Err(ApiError::new(409, "not-started", format!("game {game:?} has not begun")));
            };
            live.side_of_token(game, token)?;
            if live.ended {
                return Err(ApiError::new(409, "ended", format!("game {game:?} has ended")));
            }
            let sealed = live.game.sealed().expect("a served game is sealed").clone();
            let mut reveal = None;
            if sealed.first <= live.game.decisions() {
                let event = live.game.reveal().map_err(|e| ApiError::new(500, "storage", e))?;
                let expected = live.game.head();
                match self.appender.append(game, &expected, std::slice::from_ref(&event)) {
                    Ok(_) => {}
                    Err(LogError::StaleHead { .. }) => return Err(self.lost_race(game, &mut slot, &expected)),
                    Err(e) => return Err(storage(e)),
                }
                live.game.apply(&event).expect("the reveal folds in");
                reveal = Some(event_json(&live.game, &event));
            }
            self.log.set_note(&ended_note(game), Some(b"ended")).map_err(storage)?;
            live.ended = true;
            (reveal, Head { seq: live.game.seq(), hash: live.game.head() })
        };
        self.durable(writing).await?;
        self.announce(game, Watched::of(head, true));
        Ok(json!({"game": game, "ended": true, "reveal": reveal, "head": head,
            "head_signature": self.key.sign(&head_message(game, &head)).to_hex()}))
    }
}

/// The game in `slot` a decision by `token`'s side is made in, on the head
/// `expected`, and that side: refused when the game waits for its shares,
/// is unknown or ended, the token is none of its sides', or the head moved.
fn deciding<'s>(
    game: &str,
    slot: &'s mut Option<Slot>,
    token: Option<&str>,
    expected: &Digest,
) -> Result<(&'s mut Live, String), ApiError> {
    let live = match slot.as_mut() {
        Some(Slot::Live(live)) => live,
        Some(Slot::Waiting(w)) => {
            let missing: Vec<&str> =
                w.sides.iter().filter(|s| !w.shares.contains_key(&s.name)).map(|s| s.name.as_str()).collect();
            return Err(ApiError::new(
                409,
                "not-started",
                format!("game {game:?} waits for the shares of {}", missing.join(", ")),
            ));
        }
        None => return Err(not_found(game)),
    };
    let side = live.side_of_token(game, token)?;
    if live.ended {
        return Err(ApiError::new(409, "ended", format!("game {game:?} has ended")));
    }
    if *expected != live.game.head() {
        let mut e = ApiError::new(
            409,
            "stale-head",
            format!(
                "the game's head is seq {} {}, not the {} you expected: read the game again and decide on its head",
                live.game.seq(),
                live.game.head().short(),
                expected.short()
            ),
        );
        e.head = Some(Head { seq: live.game.seq(), hash: live.game.head() });
        return Err(e);
    }
    Ok((live, side))
}

/// The events decided on `before`, each as JSON with its narrative.
fn narrated(before: &Game, events: &[Event]) -> Vec<Value> {
    let mut narrator = before.clone();
    let mut narrative = Vec::new();
    for e in events {
        narrator.apply(e).expect("decided events fold in");
        narrative.push(event_json(&narrator, e));
    }
    narrative
}
