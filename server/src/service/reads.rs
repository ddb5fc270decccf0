//! What the dice server reads back: a game's status, the games it holds,
//! events, state, the moves listing, narrative, record, a turn file it
//! signs, the heads it announces, the record to verify or show. Reads take
//! nothing from a turn not yet revealed.

use rollcall_core::digest::Digest;
use rollcall_core::game::Verified;
use rollcall_core::log::{open_game, open_game_with, Head};
use rollcall_core::pbem::{TurnFile, TURN};
use rollcall_core::record::{self, Event, Header};
use rollcall_core::sealed::turn_message;
use serde_json::{json, Value};
use tokio::sync::watch;

use super::{actor_json, ended_note, event_json, waiting_note, Service, Slot, Status, Watch, Watched};
use crate::error::{not_found, storage, ApiError};

impl Service {
    /// `GET /games/{id}`.
    pub async fn status(&self, game: &str) -> Result<Status, ApiError> {
        let slot = self.slot(game);
        let mut slot = slot.lock().await;
        self.current(game, &mut slot)?;
        match slot.as_ref().expect("loaded") {
            Slot::Waiting(w) => Ok(json!({
                "game": game, "status": "waiting for shares",
                "commitment": w.server.commitment.to_string(), "server_key": w.server.key.to_hex(), "length": w.server.length,
                "sides": w.sides, "shares_given": w.shares.keys().collect::<Vec<_>>(),
            })),
            Slot::Live(live) => {
                let g = &live.game;
                let sealed = g.sealed().expect("a served game is sealed");
                let header: Value =
                    serde_json::from_str(&record::encode_header(g.header()).expect("encodes")).expect("JSON");
                Ok(json!({
                    "game": game, "status": if live.ended { "ended" } else { "in play" },
                    "header": header, "head": Head { seq: g.seq(), hash: g.head() }, "decisions": g.decisions(),
                    "turn": g.turn(), "awaited": actor_json(&g.awaited()),
                    "sealed": {"turn": sealed.index, "first_decision": sealed.first, "status": "sealed until the turn ends"},
                }))
            }
        }
    }

    /// The games on this server.
    pub fn list(&self) -> Result<Value, ApiError> {
        let mut games: Vec<Value> = Vec::new();
        for id in self.log.games().map_err(storage)? {
            let head = self.log.head(&id).map_err(storage)?;
            games.push(json!({"game": id, "status": "in play", "head": head}));
        }
        for (key, _) in self.log.notes("serve/waiting/").map_err(storage)? {
            games.push(json!({"game": key.trim_start_matches("serve/waiting/"), "status": "waiting for shares"}));
        }
        Ok(json!({"games": games}))
    }

    /// Refuses reads of a game that is not this server's, or not begun.
    fn require_live(&self, game: &str) -> Result<(), ApiError> {
        if self.log.head(game).is_err() {
            if self.log.note(&waiting_note(game)).map_err(storage)?.is_some() {
                return Err(ApiError::new(409, "not-started", format!("game {game:?} waits for its shares")));
            }
            return Err(not_found(game));
        }
        Ok(())
    }

    /// `GET /games/{id}/events?since=SEQ&limit=N`: events with their narrative.
    pub fn events(&self, game: &str, since: u64, limit: u64) -> Result<Value, ApiError> {
        self.require_live(game)?;
        let limit = limit.clamp(1, 10_000);
        let until = since.saturating_add(limit);
        let mut out = Vec::new();
        let g = open_game_with(
            &*self.log,
            game,
            Some(until.saturating_sub(1)),
            rollcall_core::registry::builtin(),
            |g, e| {
                if e.seq >= since.max(1) {
                    out.push(event_json(g, e));
                }
            },
        )
        .map_err(|e| ApiError::new(500, "storage", e.to_string()))?;
        let head = self.log.head(game).map_err(storage)?;
        let next = (g.seq() < head.seq).then_some(g.seq() + 1);
        Ok(json!({"game": game, "events": out, "next": next, "head": head}))
    }

    /// `GET /games/{id}/state?at=SEQ`.
    pub fn state(&self, game: &str, at: Option<u64>) -> Result<Value, ApiError> {
        self.require_live(game)?;
        let head = self.log.head(game).map_err(storage)?;
        if let Some(at) = at.filter(|at| *at > head.seq) {
            return Err(ApiError::new(
                400,
                "malformed",
                format!("at: game {game:?} has {} events; there is no seq {at}", head.seq),
            ));
        }
        let g = open_game(&*self.log, game, at, rollcall_core::registry::builtin())
            .map_err(|e| ApiError::new(500, "storage", e.to_string()))?;
        Ok(
            json!({"game": game, "seq": g.seq(), "decisions": g.decisions(), "turn": g.turn(), "head": g.head().to_string(),
            "state": g.state(), "text": g.render()}),
        )
    }

    /// `GET /games/{id}/moves?side=S`: the decisions legal now for a side
    /// (by default the token's side, else the side awaited; `referee`: the
    /// referee's inputs alone), as `rollcall moves --json` prints them.
    /// From the written state only: nothing in it depends on a die not yet
    /// revealed. A token sent must be one of the game's (401 otherwise,
    /// also before the game begins): so a page learns whose token it holds.
    pub fn moves(&self, game: &str, side: Option<&str>, token: Option<&str>) -> Result<Value, ApiError> {
        let token_side = token.map(|t| self.side_of(game, t)).transpose()?;
        self.require_live(game)?;
        let g = open_game(&*self.log, game, None, rollcall_core::registry::builtin())
            .map_err(|e| ApiError::new(500, "storage", e.to_string()))?;
        let side = match (side, token_side) {
            (Some("referee"), _) => None,
            (Some(side), _) => Some(side.to_string()),
            (None, Some(side)) => Some(side),
            (None, None) => rollcall_core::moves::awaited_side(&g),
        };
        let listing = rollcall_core::moves::list(&g, side.as_deref()).map_err(|e| {
            ApiError::new(400, "malformed", format!("side: {e}; side=referee lists the referee's inputs alone"))
        })?;
        Ok(serde_json::to_value(listing).expect("a listing serialises"))
    }

    /// `GET /games/{id}/narrative`: the whole game, narrated.
    pub fn narrative(&self, game: &str) -> Result<String, ApiError> {
        self.require_live(game)?;
        let mut out = String::new();
        let g = open_game_with(&*self.log, game, None, rollcall_core::registry::builtin(), |g, e| {
            out.push_str(&g.narrate(e));
            out.push('\n');
        })
        .map_err(|e| ApiError::new(500, "storage", e.to_string()))?;
        out.push_str(&format!("head {}\n", g.head()));
        Ok(out)
    }

    /// `GET /games/{id}/record`: the JSON Lines record, importable and verifiable offline.
    pub fn record(&self, game: &str) -> Result<String, ApiError> {
        self.require_live(game)?;
        let header = self.log.header(game).map_err(storage)?;
        let mut out = record::encode_header(&header).expect("encodes");
        out.push('\n');
        for e in self.log.events(game, 1).map_err(storage)? {
            out.push_str(&record::encode_event(&e.map_err(storage)?).expect("encodes"));
            out.push('\n');
        }
        Ok(out)
    }

    /// `GET /games/{id}/turn?since=HEAD`: the events after `since` (a head
    /// of the game; none: from the header) as a turn file, signed by the server.
    pub fn turn(&self, game: &str, since: Option<Digest>) -> Result<String, ApiError> {
        self.require_live(game)?;
        let header = self.log.header(game).map_err(storage)?;
        let root = record::header_hash(&header).expect("encodes");
        let mut previous = Head { seq: 0, hash: root };
        let mut events = Vec::new();
        let mut found = since.is_none() || since == Some(root);
        for e in self.log.events(game, 1).map_err(storage)? {
            let e = e.map_err(storage)?;
            if found {
                events.push(TurnFile::line_value(&record::encode_event(&e).expect("encodes")));
            } else if Some(e.hash) == since {
                found = true;
                previous = Head { seq: e.seq, hash: e.hash };
            }
        }
        if !found {
            return Err(ApiError::new(
                400,
                "malformed",
                format!("since: {} is not a head of game {game:?}", since.map(|d| d.to_string()).unwrap_or_default()),
            ));
        }
        let head = self.log.head(game).map_err(storage)?;
        let signature = self.key.sign(&turn_message(game, &previous, &head));
        let file = TurnFile {
            format: TURN.into(),
            game: game.to_string(),
            side: "server".into(),
            previous,
            head,
            header: (previous.seq == 0)
                .then(|| TurnFile::line_value(&record::encode_header(&header).expect("encodes"))),
            events,
            signature: Some(signature),
        };
        Ok(file.armour())
    }

    /// Refuses a game this server has neither begun nor waits on (404):
    /// `GET /games/{id}/play`, the page a side plays a game from, is served
    /// for a game begun or waiting for its shares.
    pub fn known(&self, game: &str) -> Result<(), ApiError> {
        if self.log.head(game).is_err() && self.log.note(&waiting_note(game)).map_err(storage)?.is_none() {
            return Err(not_found(game));
        }
        Ok(())
    }

    /// `GET /games/{id}/heads`: a game watched from now on. The receiver is
    /// taken before the game is read, so no head announced meanwhile is missed.
    pub async fn watch(&self, game: &str) -> Result<Watch, ApiError> {
        let slot = self.slot(game);
        let mut slot = slot.lock().await;
        self.current(game, &mut slot)?;
        let heads = self
            .watched
            .lock()
            .expect("not poisoned")
            .entry(game.to_string())
            .or_insert_with(|| watch::Sender::new(None))
            .subscribe();
        let now = match slot.as_ref().expect("loaded") {
            Slot::Live(live) => Some(Watched::of(Head { seq: live.game.seq(), hash: live.game.head() }, live.ended)),
            Slot::Waiting(_) => None,
        };
        Ok(Watch { now, heads, stopping: self.stopping.subscribe() })
    }

    /// Where a game stands in the store: what a watcher reads now and then
    /// when other servers write the same store (PostgreSQL). None: not begun.
    pub fn stored(&self, game: &str) -> Option<Watched> {
        let head = self.log.head(game).ok()?;
        let ended = self.log.note(&ended_note(game)).ok()?.is_some();
        Some(Watched::of(head, ended))
    }

    /// Whether this server alone writes its store (sled): every head is
    /// then announced by this server.
    pub fn writes_alone(&self) -> bool {
        self.log.exclusive()
    }

    /// Ends every stream of heads: the server is stopping.
    pub fn stop_watching(&self) {
        self.stopping.send_replace(true);
    }

    /// Tells the watchers of `game` where it stands now.
    pub(super) fn announce(&self, game: &str, now: Watched) {
        if let Some(sender) = self.watched.lock().expect("not poisoned").get(game) {
            sender.send_replace(Some(now));
        }
    }

    /// A game begun, whole: its header and events (`GET /games/{id}/view`
    /// shows them as the page `rollcall view` writes).
    pub fn whole(&self, game: &str) -> Result<(Header, Vec<Event>), ApiError> {
        self.require_live(game)?;
        let header = self.log.header(game).map_err(storage)?;
        let events: Vec<Event> =
            self.log.events(game, 1).map_err(storage)?.collect::<Result<_, _>>().map_err(storage)?;
        Ok((header, events))
    }

    /// `GET /games/{id}/verify`.
    pub fn verify(&self, game: &str) -> Result<(Verified, Header), ApiError> {
        self.require_live(game)?;
        let header = self.log.header(game).map_err(storage)?;
        let events = self.log.events(game, 1).map_err(storage)?;
        let verified = rollcall_core::game::verify(&header, events, rollcall_core::registry::builtin())
            .map_err(|f| ApiError::new(500, "does-not-verify", f.to_string()))?;
        Ok((verified, header))
    }
}
