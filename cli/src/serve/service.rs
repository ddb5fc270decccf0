//! The dice server's logic, apart from HTTP: creating sealed games, taking
//! the sides' shares, deciding, revealing each turn's chain value when the
//! turn ends, and reading games back. Every refusal is an [`ApiError`] with
//! its HTTP status, and writes nothing.
//!
//! **Invariant:** the chain value of a turn not yet ended leaves this file
//! only inside the reveal event that ends the turn. It is kept in the
//! store's secrets and in memory ([`Live::chain`]), never in a note, a
//! response or a log line.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use rollcall_core::digest::Digest;
use rollcall_core::game::{Game, Verified};
use rollcall_core::keys::{PublicKey, SecretKey};
use rollcall_core::log::{open_game, open_game_with, EventLog, Head, LogError};
use rollcall_core::pbem::{exchange, Terms, TurnFile, TURN};
use rollcall_core::record::{self, Event, Header, Party, SeedMode, SideKey};
use rollcall_core::refusal::RefusalKind;
use rollcall_core::ruleset::{Actor, Refusal};
use rollcall_core::script::{check_game_id, RulesRef};
use rollcall_core::sealed::{head_message, turn_message, Chain, ServerCommitment};
use rollcall_core::seed::Share;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::batch;
use super::commit::GroupCommit;

/// A refusal, with the HTTP status it is answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    /// A word a client can match: `unauthorized`, `not-your-decision`, …
    pub code: &'static str,
    pub message: String,
    /// The game's head, with a stale-head refusal.
    pub head: Option<Head>,
    /// The kind of refusal, with a decision the rules refuse (boxed: an
    /// error stays small).
    pub refusal: Option<Box<RefusalKind>>,
}

impl ApiError {
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), head: None, refusal: None }
    }

    /// A refused decision's error, naming the kind of refusal.
    pub fn refused(status: u16, code: &'static str, message: impl Into<String>, refusal: &Refusal) -> ApiError {
        ApiError { refusal: Some(Box::new(refusal.kind())), ..ApiError::new(status, code, message) }
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({"error": self.code, "message": self.message});
        if let Some(head) = &self.head {
            v["head"] = json!(head);
        }
        if let Some(kind) = &self.refusal {
            v["refusal"] = crate::exit::refusal_json(**kind);
        }
        v
    }
}

fn storage(e: LogError) -> ApiError {
    match e {
        LogError::UnknownGame(g) => ApiError::new(404, "not-found", format!("no game {g:?} on this server")),
        other => ApiError::new(500, "storage", other.to_string()),
    }
}

fn not_found(game: &str) -> ApiError {
    ApiError::new(404, "not-found", format!("no game {game:?} on this server"))
}

/// What creating a game takes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    /// The game id (default: a random one).
    #[serde(default)]
    pub game: Option<String>,
    /// A rule version (`ruleset@version[+option]…`) or a house-rules object.
    pub rules: RulesRef,
    pub scenario: Value,
    /// Each side of the scenario, with its public key.
    pub sides: Vec<SideKey>,
}

/// A sealed game waiting for its sides' shares (kept as a note).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Waiting {
    game: String,
    rules: Terms,
    scenario: Value,
    sides: Vec<SideKey>,
    server: ServerCommitment,
    shares: BTreeMap<String, Share>,
}

/// A game in play, held in memory at its head.
struct Live {
    game: Game,
    /// The server's chain: secret, never sent.
    chain: Chain,
    ended: bool,
    /// Each side and the hash of its token (tokens never change once a
    /// game is in play).
    tokens: Vec<(String, String)>,
}

enum Slot {
    Waiting(Box<Waiting>),
    Live(Box<Live>),
}

/// Where a game stands, for `GET /games/{id}`.
pub type Status = Value;

/// The service: a store, the server's key, the games in play, group commit.
pub struct Service {
    log: Arc<dyn EventLog + Send + Sync>,
    key: SecretKey,
    games: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Slot>>>>>,
    commit: GroupCommit,
    chain_length: u64,
}

pub(crate) fn waiting_note(game: &str) -> String {
    format!("serve/waiting/{game}")
}

fn token_note(game: &str, side: &str) -> String {
    format!("serve/token/{game}/{side}")
}

fn ended_note(game: &str) -> String {
    format!("serve/ended/{game}")
}

/// The key of a game's chain in the store's secrets.
pub(crate) fn chain_secret(game: &str) -> String {
    format!("chain/{game}")
}

/// Carries what a dice server keeps beside a sealed game (its chain, the
/// sides' token hashes, whether it ended, and the server's key the header
/// names) from one store to another (`rollcall store copy`), so that a
/// server over the target goes on with the game. Secrets go from store to
/// store only, never through a response. Nothing to carry for a game no
/// server of the source sealed. Refused, writing no secret, when the target's
/// servers sign with another key than the one the game's header names.
pub fn carry_sealed(source: &dyn EventLog, target: &dyn EventLog, header: &Header) -> Result<(), String> {
    let game = header.game.as_str();
    let Some(server) = &header.server else { return Ok(()) };
    let Some(chain) = source.secret(&chain_secret(game)).map_err(|e| e.to_string())? else { return Ok(()) };
    carry_server_key(source, target, server.key, "a sealed game")?;
    carry_chain_and_tokens(source, target, game, &chain)?;
    if let Some(ended) = source.note(&ended_note(game)).map_err(|e| e.to_string())? {
        target.set_note(&ended_note(game), Some(&ended)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A game's server chain (`chain`, read from the source) and its sides'
/// token hashes, into the target; refused if the target keeps another
/// chain for it.
fn carry_chain_and_tokens(
    source: &dyn EventLog,
    target: &dyn EventLog,
    game: &str,
    chain: &[u8],
) -> Result<(), String> {
    if target.set_secret(&chain_secret(game), chain).map_err(|e| e.to_string())? != chain {
        return Err("the target holds another server chain for this game: nothing more was copied".into());
    }
    for (key, hash) in source.notes(&token_note(game, "")).map_err(|e| e.to_string())? {
        target.set_note(&key, Some(&hash)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Makes sure the target's dice servers sign with `key`, the key a game
/// (`what`) was promised: the target keeps it already, or has none and is
/// given the source's (the secret goes from store to store only).
fn carry_server_key(source: &dyn EventLog, target: &dyn EventLog, key: PublicKey, what: &str) -> Result<(), String> {
    let public = |bytes: &[u8]| <[u8; 32]>::try_from(bytes).ok().map(|b| SecretKey::from_bytes(b).public());
    let ours = source.secret("server-key").map_err(|e| e.to_string())?.filter(|k| public(k) == Some(key));
    let theirs = target.secret("server-key").map_err(|e| e.to_string())?;
    match (&ours, &theirs) {
        (_, Some(t)) if public(t) == Some(key) => Ok(()),
        (Some(k), None) => {
            let kept = target.set_secret("server-key", k).map_err(|e| e.to_string())?;
            if public(&kept) != Some(key) {
                return Err("another server key was stored in the target meanwhile: nothing was copied".into());
            }
            Ok(())
        }
        _ => Err(format!(
            "{what} whose server key ({key}) is not the key the target's servers sign with, or not in the source: \
             a server over the target could not go on with it, so nothing was copied (copy it to a store without a server key)"
        )),
    }
}

/// A game a dice server waits on for its sides' shares, as
/// [`carry_waiting`] carried it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CarriedWaiting {
    pub game: String,
    /// Sides that have given their share, of `sides`.
    pub given: usize,
    pub sides: usize,
    /// The target waited on it already, in the same state: nothing written.
    pub present: bool,
}

/// Carries the games a dice server of the source still waits on for their
/// shares into the target (`rollcall store copy`): each one's waiting note
/// (its terms, scenario, sides' keys, the server's commitment and the
/// shares given so far), its chain, its sides' token hashes, and the server
/// key it was promised. A server over the target then takes the shares
/// still to come, with the tokens already handed out, and begins the game.
/// `only`, when not empty, names the games to carry. A game the target
/// holds already, or waits on in another state, is refused, and so is one
/// whose server key the target's servers do not sign with: nothing of it
/// is written (the waiting note, which makes it a game a server knows,
/// goes last).
pub fn carry_waiting(
    source: &dyn EventLog,
    target: &dyn EventLog,
    only: &[String],
) -> Result<Vec<CarriedWaiting>, String> {
    let mut carried = Vec::new();
    for (key, bytes) in source.notes(&waiting_note("")).map_err(|e| e.to_string())? {
        let game = key.strip_prefix(&waiting_note("")).unwrap_or(&key).to_string();
        if !only.is_empty() && !only.contains(&game) {
            continue;
        }
        let fail = |m: &str| format!("game {game:?} (waiting for its shares): {m}");
        let waiting: Waiting =
            serde_json::from_slice(&bytes).map_err(|e| fail(&format!("its note in the source does not read: {e}")))?;
        let mut done = CarriedWaiting {
            game: game.clone(),
            given: waiting.shares.len(),
            sides: waiting.sides.len(),
            present: false,
        };
        match target.note(&key).map_err(|e| e.to_string())? {
            Some(theirs) if theirs == bytes => {
                done.present = true;
                carried.push(done);
                continue;
            }
            Some(_) => return Err(fail("the target waits on it with other shares: nothing of it was copied")),
            None => {}
        }
        if target.head(&game).is_ok() {
            return Err(fail("the target holds a game of that id already: nothing of it was copied"));
        }
        let chain = source
            .secret(&chain_secret(&game))
            .map_err(|e| e.to_string())?
            .ok_or_else(|| fail("its server chain is not in the source: nothing of it was copied"))?;
        carry_server_key(source, target, waiting.server.key, "a game waiting for its shares").map_err(|m| fail(&m))?;
        carry_chain_and_tokens(source, target, &game, &chain).map_err(|m| fail(&m))?;
        if !target.swap_note(&key, None, Some(&bytes)).map_err(|e| e.to_string())?
            && target.note(&key).map_err(|e| e.to_string())?.as_deref() != Some(&bytes[..])
        {
            return Err(fail("another server began waiting on it in the target meanwhile"));
        }
        carried.push(done);
    }
    Ok(carried)
}

impl Service {
    /// The service over `log`, with the server's key kept in its secrets
    /// (made on first start).
    pub fn open(
        log: Arc<dyn EventLog + Send + Sync>,
        random: impl Fn() -> [u8; 32],
        chain_length: u64,
    ) -> Result<Service, LogError> {
        let key = match log.secret("server-key")? {
            Some(bytes) if bytes.len() == 32 => SecretKey::from_bytes(bytes.try_into().expect("32 bytes")),
            _ => {
                // Two servers starting at once over one store keep one key.
                let kept = log.set_secret("server-key", &random())?;
                let bytes: [u8; 32] =
                    kept.try_into().map_err(|_| LogError::Backend("the stored server key is not 32 bytes".into()))?;
                SecretKey::from_bytes(bytes)
            }
        };
        let commit = GroupCommit::start(log.clone());
        Ok(Service { log, key, games: Mutex::new(HashMap::new()), commit, chain_length })
    }

    pub fn public_key(&self) -> PublicKey {
        self.key.public()
    }

    /// Decisions appended and flushes made so far: the group commit's figures.
    pub fn commit_figures(&self) -> (u64, u64) {
        self.commit.figures()
    }

    fn slot(&self, game: &str) -> Arc<tokio::sync::Mutex<Option<Slot>>> {
        self.games.lock().expect("not poisoned").entry(game.to_string()).or_default().clone()
    }

    /// Loads a game into its slot if it is not there yet: waiting for
    /// shares (a note), or in play (the store, replayed once).
    fn load(&self, game: &str, slot: &mut Option<Slot>) -> Result<(), ApiError> {
        if slot.is_some() {
            return Ok(());
        }
        // The game first: another server over the same store may have
        // begun it, and not yet removed the note of its waiting.
        let mut g = match open_game(&*self.log, game, None, rollcall_core::registry::builtin()) {
            Ok(g) => g,
            Err(rollcall_core::log::OpenGameError::Log(LogError::UnknownGame(_))) => {
                let Some(bytes) = self.log.note(&waiting_note(game)).map_err(storage)? else {
                    return Err(not_found(game));
                };
                let waiting: Waiting =
                    serde_json::from_slice(&bytes).map_err(|e| ApiError::new(500, "storage", e.to_string()))?;
                *slot = Some(Slot::Waiting(Box::new(waiting)));
                return Ok(());
            }
            Err(e) => return Err(ApiError::new(500, "storage", e.to_string())),
        };
        let chain =
            self.log.secret(&chain_secret(game)).map_err(storage)?.and_then(|b| Chain::from_bytes(&b)).ok_or_else(
                || ApiError::new(404, "not-found", format!("game {game:?} is not a game of this server")),
            )?;
        // A game whose chain is used up stays sealed: it is read, never decided on.
        let index = g.sealed().map(|s| s.index).unwrap_or(1);
        if let Some(value) = chain.value(index) {
            g.unseal(value).map_err(|e| ApiError::new(500, "storage", e))?;
        }
        let ended = self.log.note(&ended_note(game)).map_err(storage)?.is_some();
        let tokens = self.tokens(game, &g.header().sides)?;
        *slot = Some(Slot::Live(Box::new(Live { game: g, chain, ended, tokens })));
        Ok(())
    }

    /// Loads a game into its slot, or brings the slot up to the store: other
    /// servers over the same store (PostgreSQL) append to its games too. A
    /// game in play takes the events appended since its head, and whether
    /// it ended; a waiting game is read again. A store this server alone
    /// writes (sled) cannot have moved: the slot is current.
    fn current(&self, game: &str, slot: &mut Option<Slot>) -> Result<(), ApiError> {
        if slot.is_some() && self.log.exclusive() {
            return Ok(());
        }
        match slot {
            None => return self.load(game, slot),
            Some(Slot::Waiting(_)) => {
                *slot = None;
                return self.load(game, slot);
            }
            Some(Slot::Live(live)) => {
                let head = self.log.head(game).map_err(storage)?;
                if head.hash != live.game.head() {
                    let damaged = |e: String| ApiError::new(500, "storage", format!("game {game:?}: {e}"));
                    for event in self.log.events(game, live.game.seq() + 1).map_err(storage)? {
                        let event = event.map_err(storage)?;
                        if event.seq > head.seq {
                            break;
                        }
                        live.game.apply(&event).map_err(|e| damaged(e.to_string()))?;
                    }
                    let index = live.game.sealed().map(|s| s.index).unwrap_or(1);
                    if let Some(value) = live.chain.value(index) {
                        live.game.unseal(value).map_err(damaged)?;
                    }
                }
                if !live.ended {
                    live.ended = self.log.note(&ended_note(game)).map_err(storage)?.is_some();
                }
            }
        }
        Ok(())
    }

    /// The refusal of a decision on a head another server moved meanwhile
    /// (the store refused the append as stale): the slot is read again.
    fn lost_race(&self, game: &str, slot: &mut Option<Slot>, expected: &Digest) -> ApiError {
        *slot = None;
        let head = self.log.head(game).ok();
        let mut e = ApiError::new(
            409,
            "stale-head",
            format!(
                "the game's head moved past the {} you expected (another decision landed first): read the game again and decide on its head",
                expected.short()
            ),
        );
        e.head = head;
        e
    }

    /// Each side of `game` and the hash of its token, as the store keeps them.
    fn tokens(&self, game: &str, sides: &[SideKey]) -> Result<Vec<(String, String)>, ApiError> {
        let mut tokens = Vec::new();
        for side in sides {
            if let Some(hash) = self.log.note(&token_note(game, &side.name)).map_err(storage)? {
                tokens.push((side.name.clone(), String::from_utf8_lossy(&hash).into_owned()));
            }
        }
        Ok(tokens)
    }

    /// The side a bearer token is for in `game`, read from the store.
    fn side_of_token(&self, game: &str, sides: &[SideKey], token: Option<&str>) -> Result<String, ApiError> {
        let hash = token_hash(token)?;
        for side in sides {
            if self.log.note(&token_note(game, &side.name)).map_err(storage)?.as_deref() == Some(hash.as_bytes()) {
                return Ok(side.name.clone());
            }
        }
        Err(not_a_token(game))
    }

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
        Ok(Some(json!({"game": game, "started": true, "head": head, "awaited": awaited})))
    }

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
        let writing = self.commit.writing();
        let slot = self.slot(game);
        let decided = {
            let mut slot = slot.lock().await;
            self.current(game, &mut slot)?;
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
            if expected != live.game.head() {
                let mut e = ApiError::new(
                    409,
                    "stale-head",
                    format!(
                    "the game's head is seq {} {}, not the {} you expected: read the game again and decide on its head",
                    live.game.seq(), live.game.head().short(), expected.short()
                ),
                );
                e.head = Some(Head { seq: live.game.seq(), hash: live.game.head() });
                return Err(e);
            }
            let batch::Decided { game: trial, events, written, refused } =
                batch::decide(&live.game, &live.chain, &side, decisions)?;
            match self.log.append_deferred(game, &expected, &events) {
                Ok(_) => {}
                Err(LogError::StaleHead { .. }) => return Err(self.lost_race(game, &mut slot, &expected)),
                Err(e) => return Err(storage(e)),
            }
            let mut narrator = live.game.clone();
            let mut narrative = Vec::new();
            for e in &events {
                narrator.apply(e).expect("decided events fold in");
                narrative.push(event_json(&narrator, e));
            }
            live.game = trial;
            let head = Head { seq: live.game.seq(), hash: live.game.head() };
            (head, narrative, written, refused)
        };
        let (head, narrative, written, refused) = decided;
        self.commit.durable(writing, written as u64).await;
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
        let writing = self.commit.writing();
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
                match self.log.append_deferred(game, &expected, std::slice::from_ref(&event)) {
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
        self.commit.durable(writing, 0).await;
        Ok(json!({"game": game, "ended": true, "reveal": reveal, "head": head,
            "head_signature": self.key.sign(&head_message(game, &head)).to_hex()}))
    }

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
    /// (by default the side awaited; `referee`: the referee's inputs
    /// alone), as `rollcall moves --json` prints them. From the written
    /// state only: nothing in it depends on a die not yet revealed.
    pub fn moves(&self, game: &str, side: Option<&str>) -> Result<Value, ApiError> {
        self.require_live(game)?;
        let g = open_game(&*self.log, game, None, rollcall_core::registry::builtin())
            .map_err(|e| ApiError::new(500, "storage", e.to_string()))?;
        let side = match side {
            Some("referee") => None,
            Some(side) => Some(side.to_string()),
            None => rollcall_core::moves::awaited_side(&g),
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

    /// `GET /games/{id}/view`: the game as one self-contained HTML page
    /// (the page `rollcall view` writes).
    pub fn view(&self, game: &str) -> Result<String, ApiError> {
        self.require_live(game)?;
        let header = self.log.header(game).map_err(storage)?;
        let events: Vec<Event> =
            self.log.events(game, 1).map_err(storage)?.collect::<Result<_, _>>().map_err(storage)?;
        crate::view::render(&header, &events, &crate::view::ViewOptions::default())
            .map_err(|e| ApiError::new(500, "view", e.to_string()))
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

/// The header of a sealed game once every share is in.
/// The hash a side's token is kept as; no token is a 401.
fn token_hash(token: Option<&str>) -> Result<String, ApiError> {
    let token = token.ok_or_else(|| {
        ApiError::new(401, "unauthorized", "no credentials: send `Authorization: Bearer TOKEN`, the token of your side")
    })?;
    Ok(Digest::of(token.as_bytes()).to_string())
}

fn not_a_token(game: &str) -> ApiError {
    ApiError::new(401, "unauthorized", format!("this token is not a token of game {game:?}"))
}

impl Live {
    /// The side a bearer token is for, from the hashes held in memory.
    fn side_of_token(&self, game: &str, token: Option<&str>) -> Result<String, ApiError> {
        let hash = token_hash(token)?;
        let side = self.tokens.iter().find(|(_, kept)| *kept == hash).map(|(side, _)| side.clone());
        side.ok_or_else(|| not_a_token(game))
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

pub fn actor_json(actor: &Actor) -> Value {
    match actor {
        Actor::Side(s) => json!({"side": s}),
        Actor::Referee => json!({"referee": true}),
    }
}

fn event_json(g: &Game, e: &Event) -> Value {
    json!({"seq": e.seq, "kind": e.kind.name(), "body": e.body, "hash": e.hash.to_string(), "narrative": g.narrate(e).trim()})
}
