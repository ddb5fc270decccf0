//! The event log contract, and an in-memory log that keeps it.
//!
//! A log holds games: a header each, and events in seq order. An append names
//! the head it expects (optimistic concurrency): it writes a decision with
//! its rolls and facts as one batch, or nothing, and is refused on a stale
//! head. Implementations: [`MemLog`] here (for tests and dry runs) and the
//! sled log in `rollcall-store`; a second backend (PostgreSQL, FoundationDB,
//! a partitioned log keyed by game) is one more implementation of this trait.
//!
//! **Invariant:** an append is checked before it is written: its events must
//! chain from the expected head, seq by seq.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::chain::{self, ChainedLines, CheckedLine};
use crate::digest::Digest;
/// Where a game's chain stands, as a log reports it after an append.
pub use crate::record::Head;
use crate::record::{self, Event, Header, Kind};
use crate::ruleset::Registry;

/// What can go wrong with a log.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("no game {0:?} in this store")]
    UnknownGame(String),
    #[error("a game {0:?} already exists in this store")]
    GameExists(String),
    #[error("stale head for game {game:?}: the append expected {expected}, the log is at seq {seq} {actual}; replay and decide again")]
    StaleHead { game: String, expected: String, seq: u64, actual: String },
    #[error("refused append to {game:?}: {reason}")]
    BadAppend { game: String, reason: String },
    #[error("game {game:?} is damaged at seq {seq}: {reason}")]
    Corrupt { game: String, seq: u64, reason: String },
    #[error("storage: {0}")]
    Backend(String),
}

/// The contract every event store keeps.
///
/// **Invariant:** a game appears whole or not at all. Creating one is
/// [`begin`](EventLog::begin), any number of
/// [`append_pending`](EventLog::append_pending), then
/// [`commit`](EventLog::commit); until the commit the game is invisible to
/// every reader, and a creation that never commits (a killed `run` or
/// `import`, a full disk) is cleared by the next `begin` of the same id.
pub trait EventLog {
    /// Begins creating a game, invisible until committed; refused if the id
    /// names a game. A leftover of an unfinished creation of the same id is
    /// cleared first.
    fn begin(&self, header: &Header) -> Result<Head, LogError>;
    /// Appends whole decisions to a game being created (see [`EventLog::append`]);
    /// durable only once committed.
    fn append_pending(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError>;
    /// [`EventLog::append_pending`] of events given as their record lines,
    /// checked already ([`ChainedLines::check`]): appended once the game's
    /// head is the one they chain from. A store that keeps lines, or their
    /// bytes, writes them as they are; by default each is parsed into its
    /// event.
    fn append_pending_lines(&self, game: &str, lines: &ChainedLines) -> Result<Head, LogError> {
        let mut events = Vec::with_capacity(lines.lines().len());
        for line in lines.lines() {
            let event = record::parse_event(line).map_err(|e| LogError::BadAppend {
                game: game.to_string(),
                reason: format!("not an event line: {}: {}", e.field, e.message),
            })?;
            events.push(event);
        }
        self.append_pending(game, &lines.from().hash, &events)
    }
    /// Makes a game being created visible, with all its events, in one
    /// step, durably.
    fn commit(&self, game: &str) -> Result<Head, LogError>;
    /// Drops a game being created (nothing of it stays).
    fn abandon(&self, game: &str) -> Result<(), LogError>;
    /// Creations left unfinished (by a kill or a failure), invisible to every
    /// reader; the next `begin` of the same id clears one.
    fn incomplete(&self) -> Result<Vec<String>, LogError>;
    /// Starts a game with no events.
    fn create(&self, header: &Header) -> Result<Head, LogError> {
        self.begin(header)?;
        self.commit(&header.game)
    }
    /// Appends whole decisions (each a decision, its rolls, its facts) after
    /// `expected`, atomically, and durably before returning.
    fn append(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError>;
    /// The game's events from `from_seq` on, in order.
    fn events<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<Event, LogError>> + 'a>, LogError>;
    /// The game's events from `from_seq` on, in order, as their record
    /// lines: the canonical bytes a link hashes, with the `"hash"` member
    /// (a store that keeps each event's line gives it back as kept, for
    /// readers that take a line as read — verify, export). By default each
    /// event is written out again.
    fn lines<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<String, LogError>> + 'a>, LogError> {
        let id = game.to_string();
        Ok(Box::new(self.events(game, from_seq)?.map(move |event| {
            let event = event?;
            record::encode_event(&event).map_err(|e| LogError::Corrupt {
                game: id.clone(),
                seq: event.seq,
                reason: e.to_string(),
            })
        })))
    }
    /// Every game id, in order.
    fn games(&self) -> Result<Vec<String>, LogError>;
    fn header(&self, game: &str) -> Result<Header, LogError>;
    fn head(&self, game: &str) -> Result<Head, LogError>;
    /// A note kept beside the games (which side this store plays in a game,
    /// the head its opponent acknowledged, a fork kept as evidence…): small
    /// values by key, durable once set.
    fn note(&self, key: &str) -> Result<Option<Vec<u8>>, LogError>;
    /// Sets (or, with `None`, removes) a note.
    fn set_note(&self, key: &str, value: Option<&[u8]>) -> Result<(), LogError>;
    /// Sets a note that only saves work (a game's kept snapshot, see
    /// [`keep_snapshot`]): as [`EventLog::set_note`], except that it need
    /// not be durable when this returns. A crash may lose it whole, never
    /// half of it; the store's next flush, or its closing, keeps it.
    fn set_cache_note(&self, key: &str, value: &[u8]) -> Result<(), LogError> {
        self.set_note(key, Some(value))
    }
    /// Every note whose key starts with `prefix`, in key order.
    fn notes(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, LogError>;
    /// Sets (or, with `None`, removes) a note only if it holds `old` now
    /// (`None`: only if there is none), in one atomic step, durably: whether
    /// it did. Two writers that share a store (two servers over one
    /// database) claim a key or update a value with it, and neither loses
    /// the other's write.
    fn swap_note(&self, key: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> Result<bool, LogError>;
    /// [`EventLog::append`] without waiting for durability: the events are
    /// written, and durable once a later [`EventLog::sync`] returns. A server
    /// shares one sync among many appends (group commit); nothing appended so
    /// may be acknowledged before that sync.
    fn append_deferred(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        self.append(game, expected, events)
    }
    /// Makes every write so far durable.
    fn sync(&self) -> Result<(), LogError> {
        Ok(())
    }
    /// Whether this process alone writes the store (sled locks its
    /// directory), so that what it read stays current until it writes. A
    /// store several servers share (PostgreSQL) says no: its games may
    /// move under a reader.
    fn exclusive(&self) -> bool {
        false
    }
    /// A secret kept apart from the notes (a dice server's chain, its key):
    /// no listing shows it.
    fn secret(&self, key: &str) -> Result<Option<Vec<u8>>, LogError>;
    /// Sets a secret, durably, unless the key holds one: a secret is
    /// written once and never replaced (a dice server's chain, once
    /// committed to, stays the one committed to; two servers starting at
    /// once keep one key). Returns the secret the store keeps.
    fn set_secret(&self, key: &str, value: &[u8]) -> Result<Vec<u8>, LogError>;
}

impl LogError {
    /// An append that expected the head `expected` of `game`, which is at
    /// `head`: every store refuses it the same way.
    pub fn stale_head(game: &str, expected: &Digest, head: &Head) -> LogError {
        LogError::StaleHead {
            game: game.to_string(),
            expected: expected.short(),
            seq: head.seq,
            actual: head.hash.short(),
        }
    }
}

/// Checks that `events` are whole decisions chaining from `head`.
pub fn check_append(game: &str, head: &Head, events: &[Event]) -> Result<Head, LogError> {
    let bad = |reason: String| LogError::BadAppend { game: game.to_string(), reason };
    if !matches!(events.first().map(|e| e.kind), Some(Kind::Decision | Kind::Checkpoint | Kind::Reveal)) {
        return Err(bad("an append starts with a decision, a checkpoint or a reveal".into()));
    }
    let mut at = *head;
    for e in events {
        if e.seq != at.seq + 1 {
            return Err(bad(format!("seq {} does not follow {}", e.seq, at.seq)));
        }
        let link = record::link(&at.hash, e.seq, e.kind, &e.body).map_err(|err| bad(err.to_string()))?;
        if link != e.hash {
            return Err(bad(format!("seq {} does not chain from the head", e.seq)));
        }
        at = Head { seq: e.seq, hash: e.hash };
    }
    Ok(at)
}

/// [`check_append`] for events given as their record lines
/// ([`chain::check_lines`]), refused as an append to `game`.
pub fn check_append_lines<'l>(
    game: &str,
    head: &Head,
    lines: &'l [String],
) -> Result<(Head, Vec<CheckedLine<'l>>), LogError> {
    chain::check_lines(head, lines).map_err(|e| e.refusing(game))
}

/// [`ChainedLines::check`], refused as an append to `game`.
pub fn chain_lines(game: &str, from: &Head, lines: Vec<String>) -> Result<ChainedLines, LogError> {
    ChainedLines::check(from, lines).map_err(|e| e.refusing(game))
}

impl chain::Unchained {
    /// The refusal of an append to `game` of lines that do not chain.
    pub fn refusing(self, game: &str) -> LogError {
        LogError::BadAppend { game: game.to_string(), reason: self.0 }
    }
}

struct MemGame {
    header: Header,
    root: Digest,
    events: Vec<Event>,
}

/// An in-memory log: a `BTreeMap` of games behind a mutex.
#[derive(Default)]
pub struct MemLog {
    games: Mutex<BTreeMap<String, MemGame>>,
    pending: Mutex<BTreeMap<String, MemGame>>,
    notes: Mutex<BTreeMap<String, Vec<u8>>>,
    secrets: Mutex<BTreeMap<String, Vec<u8>>>,
}

fn mem_head(g: &MemGame) -> Head {
    match g.events.last() {
        Some(e) => Head { seq: e.seq, hash: e.hash },
        None => Head { seq: 0, hash: g.root },
    }
}

fn mem_append(game: &str, g: &mut MemGame, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
    let head = mem_head(g);
    if head.hash != *expected {
        return Err(LogError::stale_head(game, expected, &head));
    }
    let new_head = check_append(game, &head, events)?;
    g.events.extend_from_slice(events);
    Ok(new_head)
}

impl MemLog {
    pub fn new() -> Self {
        Self::default()
    }
}

impl EventLog for MemLog {
    fn begin(&self, header: &Header) -> Result<Head, LogError> {
        if self.games.lock().expect("not poisoned").contains_key(&header.game) {
            return Err(LogError::GameExists(header.game.clone()));
        }
        let root = record::header_hash(header).map_err(|e| LogError::Backend(e.to_string()))?;
        let game = MemGame { header: header.clone(), root, events: Vec::new() };
        self.pending.lock().expect("not poisoned").insert(header.game.clone(), game);
        Ok(Head { seq: 0, hash: root })
    }

    fn append_pending(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        let mut pending = self.pending.lock().expect("not poisoned");
        let g = pending.get_mut(game).ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
        mem_append(game, g, expected, events)
    }

    fn commit(&self, game: &str) -> Result<Head, LogError> {
        let mut games = self.games.lock().expect("not poisoned");
        if games.contains_key(game) {
            return Err(LogError::GameExists(game.to_string()));
        }
        let g = self.pending.lock().expect("not poisoned").remove(game);
        let g = g.ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
        let head = mem_head(&g);
        games.insert(game.to_string(), g);
        Ok(head)
    }

    fn abandon(&self, game: &str) -> Result<(), LogError> {
        self.pending.lock().expect("not poisoned").remove(game);
        Ok(())
    }

    fn incomplete(&self) -> Result<Vec<String>, LogError> {
        Ok(self.pending.lock().expect("not poisoned").keys().cloned().collect())
    }

    fn append(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        let mut games = self.games.lock().expect("not poisoned");
        let g = games.get_mut(game).ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
        mem_append(game, g, expected, events)
    }

    fn events<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<Event, LogError>> + 'a>, LogError> {
        let games = self.games.lock().expect("not poisoned");
        let g = games.get(game).ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
        let events: Vec<Event> = g.events.iter().filter(|e| e.seq >= from_seq).cloned().collect();
        Ok(Box::new(events.into_iter().map(Ok)))
    }

    fn games(&self) -> Result<Vec<String>, LogError> {
        Ok(self.games.lock().expect("not poisoned").keys().cloned().collect())
    }

    fn header(&self, game: &str) -> Result<Header, LogError> {
        let games = self.games.lock().expect("not poisoned");
        games.get(game).map(|g| g.header.clone()).ok_or_else(|| LogError::UnknownGame(game.to_string()))
    }

    fn head(&self, game: &str) -> Result<Head, LogError> {
        let games = self.games.lock().expect("not poisoned");
        games.get(game).map(mem_head).ok_or_else(|| LogError::UnknownGame(game.to_string()))
    }

    fn note(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(self.notes.lock().expect("not poisoned").get(key).cloned())
    }

    fn set_note(&self, key: &str, value: Option<&[u8]>) -> Result<(), LogError> {
        let mut notes = self.notes.lock().expect("not poisoned");
        match value {
            Some(v) => notes.insert(key.to_string(), v.to_vec()),
            None => notes.remove(key),
        };
        Ok(())
    }

    fn secret(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(self.secrets.lock().expect("not poisoned").get(key).cloned())
    }

    fn set_secret(&self, key: &str, value: &[u8]) -> Result<Vec<u8>, LogError> {
        let mut secrets = self.secrets.lock().expect("not poisoned");
        Ok(secrets.entry(key.to_string()).or_insert_with(|| value.to_vec()).clone())
    }

    fn swap_note(&self, key: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> Result<bool, LogError> {
        let mut notes = self.notes.lock().expect("not poisoned");
        if notes.get(key).map(Vec::as_slice) != old {
            return Ok(false);
        }
        match new {
            Some(v) => notes.insert(key.to_string(), v.to_vec()),
            None => notes.remove(key),
        };
        Ok(true)
    }

    fn notes(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, LogError> {
        let notes = self.notes.lock().expect("not poisoned");
        Ok(notes
            .range(prefix.to_string()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }
}

/// Why a stored game could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenGameError {
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("game {0:?}: {1}")]
    Header(String, crate::game::OpenError),
    #[error("game {0:?} is damaged: {1}")]
    Chain(String, crate::game::ApplyError),
}

/// Opens a stored game: replays its events up to `until_seq` (all of them
/// if none), checking every link, and checks the stored head when it reads
/// to the end. This is where the chain is checked when a game is opened.
///
/// The head is read first and the events up to it: an append made while
/// the game is read (by another process over the same store) is not read,
/// and is not mistaken for damage.
pub fn open_game(
    log: &dyn EventLog,
    id: &str,
    until_seq: Option<u64>,
    registry: &Registry,
) -> Result<crate::game::Game, OpenGameError> {
    open_game_with(log, id, until_seq, registry, |_, _| {})
}

/// [`open_game`] to the head, from the game's record lines: each taken as
/// read where it can be ([`Game::apply_line`](crate::game::Game::apply_line)),
/// parsed and applied where it cannot, with the same checks and the same
/// errors (a line that does not parse, or says another seq than its own,
/// is the store's damage at that seq).
pub fn open_game_lines(log: &dyn EventLog, id: &str, registry: &Registry) -> Result<crate::game::Game, OpenGameError> {
    let header = log.header(id)?;
    let head = log.head(id)?;
    let mut game = crate::game::Game::open(header, registry).map_err(|e| OpenGameError::Header(id.to_string(), e))?;
    for (seq, line) in (1u64..).zip(log.lines(id, 1)?) {
        let line = line?;
        if game.apply_line(line.as_bytes()) {
            continue;
        }
        let corrupt = |reason: String| LogError::Corrupt { game: id.to_string(), seq, reason };
        let event = record::parse_event(&line).map_err(|e| corrupt(e.to_string()))?;
        if event.seq != seq {
            return Err(corrupt(format!("stored under seq {seq} but says seq {}", event.seq)).into());
        }
        game.apply(&event).map_err(|e| OpenGameError::Chain(id.to_string(), e))?;
    }
    if head.hash != game.head() || head.seq != game.seq() {
        return Err(head_not_at_end(id, &head, &game));
    }
    Ok(game)
}

/// A stored head that is not where the chain read from the store ends.
fn head_not_at_end(id: &str, head: &Head, game: &crate::game::Game) -> OpenGameError {
    OpenGameError::Log(LogError::Corrupt {
        game: id.to_string(),
        seq: game.seq(),
        reason: format!(
            "the stored head (seq {} {}) is not the chain's end (seq {} {})",
            head.seq,
            head.hash.short(),
            game.seq(),
            game.head().short()
        ),
    })
}

/// The note a game's [`Snapshot`](crate::game::Snapshot) is kept under.
pub fn snapshot_note(game: &str) -> String {
    format!("snapshot/{game}")
}

/// A stored game at its head, to play on: from the snapshot the store keeps
/// of it and the events after it, when that snapshot is on the game's
/// chain; otherwise (none kept, a sealed game, a snapshot of another
/// history) by [`open_game`], which folds every event. Opening a long game
/// this way costs the events since its snapshot, not the whole game.
pub fn open_at_head(log: &dyn EventLog, id: &str, registry: &Registry) -> Result<crate::game::Game, OpenGameError> {
    match from_snapshot(log, id, registry)? {
        Some(game) => Ok(game),
        None => open_game(log, id, None, registry),
    }
}

fn from_snapshot(
    log: &dyn EventLog,
    id: &str,
    registry: &Registry,
) -> Result<Option<crate::game::Game>, OpenGameError> {
    let Some(bytes) = log.note(&snapshot_note(id))? else { return Ok(None) };
    let Ok(snapshot) = serde_json::from_slice::<crate::game::Snapshot>(&bytes) else { return Ok(None) };
    let head = log.head(id)?;
    if snapshot.seq > head.seq {
        return Ok(None);
    }
    let Ok(mut game) = crate::game::Game::restore(log.header(id)?, &snapshot, registry) else { return Ok(None) };
    if snapshot.seq < head.seq {
        for event in log.events(id, snapshot.seq + 1)? {
            let event = event?;
            // Not on this chain: the full fold names the fault, if there is one.
            if game.apply(&event).is_err() {
                return Ok(None);
            }
            if event.seq >= head.seq {
                break;
            }
        }
    }
    Ok((game.head() == head.hash && game.seq() == head.seq).then_some(game))
}

/// Keeps a snapshot of `game`, which is at the store's head, once it is
/// `every` events past the snapshot kept (or there is none).
pub fn keep_snapshot(log: &dyn EventLog, id: &str, game: &crate::game::Game, every: u64) -> Result<(), LogError> {
    let Some(snapshot) = game.snapshot() else { return Ok(()) };
    let kept = log
        .note(&snapshot_note(id))?
        .and_then(|b| serde_json::from_slice::<crate::game::Snapshot>(&b).ok())
        .map(|s| s.seq);
    match kept {
        Some(kept) if kept <= snapshot.seq && snapshot.seq - kept < every => Ok(()),
        _ => log.set_cache_note(&snapshot_note(id), &serde_json::to_vec(&snapshot).expect("a snapshot serialises")),
    }
}

/// [`open_game`], calling `seen` with each event once it is folded in.
pub fn open_game_with(
    log: &dyn EventLog,
    id: &str,
    until_seq: Option<u64>,
    registry: &Registry,
    mut seen: impl FnMut(&crate::game::Game, &Event),
) -> Result<crate::game::Game, OpenGameError> {
    let header = log.header(id)?;
    let head = log.head(id)?;
    let mut game = crate::game::Game::open(header, registry).map_err(|e| OpenGameError::Header(id.to_string(), e))?;
    let stop = until_seq.map_or(head.seq, |until| until.min(head.seq));
    if stop > 0 {
        for event in log.events(id, 1)? {
            let event = event?;
            game.apply(&event).map_err(|e| OpenGameError::Chain(id.to_string(), e))?;
            seen(&game, &event);
            if event.seq >= stop {
                break;
            }
        }
    }
    let damaged = if stop < head.seq { game.seq() != stop } else { head.hash != game.head() || head.seq != game.seq() };
    if damaged {
        return Err(head_not_at_end(id, &head, &game));
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_that_do_not_chain_are_refused_as_an_append_to_the_game() {
        // Given the rally game's lines, its second left out
        let text = include_str!("../../fixtures/leader-activation/rally.json");
        let script = crate::script::Script::parse(text, "rally", crate::registry::builtin()).unwrap();
        let mut lines = Vec::new();
        script.play(|_, e| lines.push(record::encode_event(e).unwrap())).unwrap();
        let root = Head { seq: 0, hash: record::header_hash(&script.header).unwrap() };
        // When they are checked as an append at the game's start, they are refused, naming the game
        let refused = |e: LogError| matches!(e, LogError::BadAppend { game, reason } if game == "rally" && reason.contains("does not follow"));
        let gap: Vec<String> = [&lines[..1], &lines[2..]].concat();
        assert!(check_append_lines("rally", &root, &gap).is_err_and(refused));
        assert!(chain_lines("rally", &root, gap).is_err_and(refused));
        // And as they are, they pass
        assert_eq!(chain_lines("rally", &root, lines.clone()).unwrap().len(), lines.len());
    }
}
