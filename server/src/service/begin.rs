//! A game begun: created sealed, its chain drawn and committed before any
//! share exists (`POST /games`), then each side's seed share taken
//! (`POST /games/{id}/share`), the last one beginning the game.

use std::collections::BTreeMap;

use rollcall_core::digest::Digest;
use rollcall_core::game::Game;
use rollcall_core::log::{Head, LogError};
use rollcall_core::pbem::{exchange, Terms};
use rollcall_core::record::{Header, Party, SeedMode};
use rollcall_core::script::check_game_id;
use rollcall_core::sealed::{Chain, ServerCommitment};
use rollcall_core::seed::Share;
use serde_json::{json, Value};

use super::{actor_json, chain_secret, token_note, waiting_note, CreateGame, Live, Service, Slot, Waiting, Watched};
use crate::error::{storage, ApiError};

impl Service {
    /// `POST /games`: a sealed game, its chain drawn and committed before any
    /// share exists; one bearer token per side, shown once.
    pub async fn create(&self, request: CreateGame, random: impl Fn() -> [u8; 32]) -> Result<Value, ApiError> {
        let bad = |field: &str, message: String| ApiError::new(400, "malformed", format!("{field}: {message}"));
        let game = match request.game {
            Some(id) => {
                check_game_id(&id).map_err(|m| bad("game", m))?;
                id
            }
            None => format!("game-{}", &Digest(random()).to_string()[..8]),
        };
        let rules = request.rules.resolve("rules.", rollcall_core::registry::builtin()).map_err(|(f, m)| bad(&f, m))?;
        let sides = exchange::scenario_sides(&game, &rules, &request.scenario, rollcall_core::registry::builtin())
            .map_err(|m| bad("scenario", m))?;
        let named: Vec<&str> = request.sides.iter().map(|s| s.name.as_str()).collect();
        if named != sides.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(bad("sides", format!("give each side of the scenario, in order: {}", sides.join(", "))));
        }
        if request.sides.iter().enumerate().any(|(i, s)| request.sides[..i].iter().any(|t| t.key == s.key)) {
            return Err(bad("sides", "each side needs its own key".into()));
        }
        let slot = self.slot(&game);
        let mut slot = slot.lock().await;
        if slot.is_some()
            || self.log.head(&game).is_ok()
            || self.log.note(&waiting_note(&game)).map_err(storage)?.is_some()
        {
            return Err(ApiError::new(409, "exists", format!("a game {game:?} is already on this server")));
        }
        let chain = Chain::new(random(), self.chain_length);
        let server =
            ServerCommitment { commitment: chain.commitment(), key: self.key.public(), length: chain.length() };
        let waiting = Waiting {
            game: game.clone(),
            rules: Terms::of(&rules),
            scenario: request.scenario,
            sides: request.sides,
            server: server.clone(),
            shares: BTreeMap::new(),
        };
        // The chain, written once, is the claim on the id: of two servers
        // creating one id at once, the one whose chain the store kept goes on.
        let kept = self.log.set_secret(&chain_secret(&game), &chain.to_bytes()).map_err(storage)?;
        if kept != chain.to_bytes() {
            return Err(ApiError::new(409, "exists", format!("a game {game:?} is already on this server")));
        }
        let mut tokens = BTreeMap::new();
        for side in &waiting.sides {
            let token = Digest(random()).to_string();
            self.log
                .set_note(&token_note(&game, &side.name), Some(Digest::of(token.as_bytes()).to_string().as_bytes()))
                .map_err(storage)?;
            tokens.insert(side.name.clone(), token);
        }
        let claimed = self
            .log
            .swap_note(&waiting_note(&game), None, Some(&serde_json::to_vec(&waiting).expect("serialises")))
            .map_err(storage)?;
        if !claimed {
            return Err(ApiError::new(409, "exists", format!("a game {game:?} is already on this server")));
        }
        *slot = Some(Slot::Waiting(Box::new(waiting)));
        Ok(json!({
            "game": game, "commitment": server.commitment.to_string(), "server_key": server.key.to_hex(),
            "length": server.length, "tokens": tokens,
            "next": "each side adds its seed share: POST /games/{id}/share {\"share\": \"<64 hex>\"} with its token",
        }))
    }

    /// `POST /games/{id}/share`: a side's seed share; with the last one the
    /// game's header is complete and the game begins.
    pub async fn share(&self, game: &str, token: Option<&str>, share: Share) -> Result<Value, ApiError> {
        let slot = self.slot(game);
        let mut slot = slot.lock().await;
        // Another server may take the other side's share: the note read
        // now is the one swapped, or the share is taken again on the new one.
        let mut tries = 0;
        loop {
            tries += 1;
            self.current(game, &mut slot)?;
            let old = self.log.note(&waiting_note(game)).map_err(storage)?;
            match self.take_share(game, token, share, &mut slot, old.as_deref())? {
                Some(answer) => return Ok(answer),
                None if tries < 20 => continue,
                None => return Err(ApiError::new(503, "busy", "the game's shares keep changing: try again")),
            }
        }
    }

    /// One attempt at [`Service::share`] on the waiting note `old` as read:
    /// None when another server changed it meanwhile.
    fn take_share(
        &self,
        game: &str,
        token: Option<&str>,
        share: Share,
        slot: &mut Option<Slot>,
        old: Option<&[u8]>,
    ) -> Result<Option<Value>, ApiError> {
        if !matches!(slot, Some(Slot::Waiting(_))) {
            return Err(ApiError::new(409, "started", format!("game {game:?} has begun: every share is in")));
        }
        // The note as read now, not as the slot was loaded: the swap below
        // is from these bytes.
        let Some(old_bytes) = old else {
            *slot = None;
            return Ok(None);
        };
        let waiting: Waiting =
            serde_json::from_slice(old_bytes).map_err(|e| ApiError::new(500, "storage", e.to_string()))?;
        let side = self.side_of_token(game, &waiting.sides.clone(), token)?;
        if waiting.shares.contains_key(&side) {
            return Err(ApiError::new(409, "share-given", format!("{side} has given its share already")));
        }
        let mut next = waiting.clone();
        next.shares.insert(side.clone(), share);
        let missing: Vec<String> =
            next.sides.iter().filter(|s| !next.shares.contains_key(&s.name)).map(|s| s.name.clone()).collect();
        if !missing.is_empty() {
            let new = serde_json::to_vec(&next).expect("serialises");
            if !self.log.swap_note(&waiting_note(game), old, Some(&new)).map_err(storage)? {
                *slot = None;
                return Ok(None);
            }
            *slot = Some(Slot::Waiting(Box::new(next)));
            return Ok(Some(json!({"game": game, "started": false, "awaiting_shares": missing})));
        }
        let header = sealed_header(&next);
        let mut g = Game::open(header.clone(), rollcall_core::registry::builtin())
            .map_err(|e| ApiError::new(400, "malformed", e.to_string()))?;
        let chain = self
            .log
            .secret(&chain_secret(game))
            .map_err(storage)?
            .and_then(|b| Chain::from_bytes(&b))
            .ok_or_else(|| ApiError::new(500, "storage", "the game's chain is missing"))?;
        g.unseal(chain.value(1).expect("a chain of at least one turn"))
            .map_err(|e| ApiError::new(500, "storage", e))?;
        match self.log.create(&header) {
            Ok(_) => {}
            // Begun by another server, with the other last share.
            Err(LogError::GameExists(_)) => {
                *slot = None;
                return Err(ApiError::new(409, "started", format!("game {game:?} has begun: every share is in")));
            }
            Err(e) => return Err(storage(e)),
        }
        self.log.set_note(&waiting_note(game), None).map_err(storage)?;
        let head = Head { seq: 0, hash: g.head() };
        let awaited = actor_json(&g.awaited());
        let tokens = self.tokens(game, &g.header().sides)?;
        *slot = Some(Slot::Live(Box::new(Live { game: g, chain, ended: false, tokens })));
        self.announce(game, Watched::of(head, false));
        Ok(Some(json!({"game": game, "started": true, "head": head, "awaited": awaited})))
    }
}

fn sealed_header(w: &Waiting) -> Header {
    let rules = w.rules.rules();
    Header {
        game: w.game.clone(),
        rules_hash: rules.hash(),
        rules,
        scenario: w.scenario.clone(),
        mode: SeedMode::Sealed,
        parties: w
            .sides
            .iter()
            .map(|s| {
                let share = w.shares[&s.name];
                Party { name: s.name.clone(), commitment: Some(share.commitment()), share: Some(share) }
            })
            .collect(),
        sides: w.sides.clone(),
        server: Some(w.server.clone()),
    }
}
