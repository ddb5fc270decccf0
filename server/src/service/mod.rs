//! The dice server's logic, apart from any transport: the games it holds,
//! each in a slot of its own, loaded from the store and brought up to it;
//! creating sealed games and taking the sides' shares ([`begin`]), deciding
//! and revealing each turn's chain value when the turn ends ([`play`]),
//! reading games back ([`reads`]), what a server keeps, carried between
//! stores ([`carry`]). Every refusal is an [`ApiError`] with its status,
//! and writes nothing; an answer that wrote is given once the store's
//! appender made it durable.
//!
//! **Invariant:** the chain value of a turn not yet ended leaves this
//! module only inside the reveal event that ends the turn. It is kept in the
//! store's secrets and in memory ([`Live::chain`]), never in a note, a
//! response or a log line.

mod begin;
pub mod carry;
mod play;
mod reads;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use rollcall_core::digest::Digest;
use rollcall_core::game::Game;
use rollcall_core::keys::{PublicKey, SecretKey};
use rollcall_core::log::{open_game, EventLog, Head, LogError};
use rollcall_core::pbem::Terms;
use rollcall_core::record::{Event, SideKey};
use rollcall_core::ruleset::Actor;
use rollcall_core::script::RulesRef;
use rollcall_core::sealed::{Chain, ServerCommitment};
use rollcall_core::seed::Share;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::watch;

use rollcall_store::appender::{Appender, Flushed, Gather, Writing};

use crate::error::{not_found, storage, ApiError};

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

/// An answer waiting for the flush that makes what it wrote durable.
type Answer = tokio::sync::oneshot::Sender<()>;

/// The service: a store, the server's key, the games in play, the store's
/// appender (one flush for the appends of every request made meanwhile).
pub struct Service {
    log: Arc<dyn EventLog + Send + Sync>,
    key: SecretKey,
    games: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Slot>>>>>,
    appender: Appender<Answer, LogError>,
    chain_length: u64,
    /// Each watched game's head, announced once its events are durable
    /// (`GET /games/{id}/heads`).
    watched: Mutex<HashMap<String, watch::Sender<Option<Watched>>>>,
    /// True once the server stops: every stream of heads then ends, so the
    /// graceful shutdown does not wait on them.
    stopping: watch::Sender<bool>,
}

/// What a watcher of a game is told each time it moves: its head (of events
/// written: nothing in it depends on a die not written) and whether the
/// game has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Watched {
    pub seq: u64,
    pub hash: Digest,
    pub ended: bool,
}

impl Watched {
    fn of(head: Head, ended: bool) -> Watched {
        Watched { seq: head.seq, hash: head.hash, ended }
    }
}

/// A game watched: where it stands now (none: waiting for its shares), the
/// heads announced from now on, and the server's stopping.
pub struct Watch {
    pub now: Option<Watched>,
    pub heads: watch::Receiver<Option<Watched>>,
    pub stopping: watch::Receiver<bool>,
}

pub fn waiting_note(game: &str) -> String {
    format!("serve/waiting/{game}")
}

fn token_note(game: &str, side: &str) -> String {
    format!("serve/token/{game}/{side}")
}

fn ended_note(game: &str) -> String {
    format!("serve/ended/{game}")
}

/// The key of a game's chain in the store's secrets.
pub fn chain_secret(game: &str) -> String {
    format!("chain/{game}")
}

impl Service {
    /// The service over `log`, with the server's key kept in its secrets
    /// (made on first start). `lost` is called, on the appender's thread,
    /// when the store cannot be flushed: from then on nothing written is
    /// durable, and no answer is given (the process had better stop).
    pub fn open(
        log: Arc<dyn EventLog + Send + Sync>,
        random: impl Fn() -> [u8; 32],
        chain_length: u64,
        lost: impl Fn(&LogError) + Send + 'static,
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
        let appender = Appender::start(log.clone(), Gather::server(), move |flushed| {
            match flushed {
                Flushed::Durable(answers) => answers.into_iter().for_each(|answer: Answer| {
                    let _ = answer.send(());
                }),
                Flushed::Failed(e) => lost(e),
            }
            Ok(())
        });
        Ok(Service {
            log,
            key,
            games: Mutex::new(HashMap::new()),
            appender,
            chain_length,
            watched: Mutex::new(HashMap::new()),
            stopping: watch::Sender::new(false),
        })
    }

    pub fn public_key(&self) -> PublicKey {
        self.key.public()
    }

    /// Decisions appended and flushes made so far: the appender's figures.
    pub fn commit_figures(&self) -> (u64, u64) {
        self.appender.figures()
    }

    /// Waits until what was written before `writing` asked is durable.
    async fn durable(&self, writing: Writing<'_, Answer>) -> Result<(), ApiError> {
        let (answer, durable) = tokio::sync::oneshot::channel();
        let stopped = || ApiError::new(500, "storage", "the store can no longer be flushed: nothing more is durable");
        writing.done(answer).map_err(|_| stopped())?;
        durable.await.map_err(|_| stopped())
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

    /// The side `token` is for in `game`, begun or waiting for its shares,
    /// read from the store: 404 for no such game, 401 for no side's token.
    fn side_of(&self, game: &str, token: &str) -> Result<String, ApiError> {
        let sides = match self.log.header(game) {
            Ok(header) => header.sides,
            Err(LogError::UnknownGame(_)) => {
                let Some(bytes) = self.log.note(&waiting_note(game)).map_err(storage)? else {
                    return Err(not_found(game));
                };
                let waiting: Waiting =
                    serde_json::from_slice(&bytes).map_err(|e| ApiError::new(500, "storage", e.to_string()))?;
                waiting.sides
            }
            Err(e) => return Err(storage(e)),
        };
        self.side_of_token(game, &sides, Some(token))
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
}

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

pub fn actor_json(actor: &Actor) -> Value {
    match actor {
        Actor::Side(s) => json!({"side": s}),
        Actor::Referee => json!({"referee": true}),
    }
}

fn event_json(g: &Game, e: &Event) -> Value {
    json!({"seq": e.seq, "kind": e.kind.name(), "body": e.body, "hash": e.hash.to_string(), "narrative": g.narrate(e).trim()})
}
