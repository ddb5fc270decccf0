//! rollcall-store: where games are kept.
//!
//! - [`SledLog`]: the embedded sled log behind `rollcall_core::log::EventLog`;
//! - [`PgLog`]: the same contract on PostgreSQL, for several servers over
//!   one database ([`pg_log`] has the schema, the append transaction and
//!   the reconnects);
//! - [`Store`]: either, as a location names it (a directory or a URL);
//! - [`file`]: record files (JSON Lines), read as a stream and written whole;
//! - [`appender`]: appends made durable apart from their writing, one flush
//!   for all those written meanwhile (a stream of decisions, the dice server).
//!
//! **Invariant:** the hash-chained record is the truth; a store is where it
//! is kept. sled 0.34.7 is pinned exactly and stays behind the trait; every
//! append is checked before it is written and durable before it is
//! acknowledged, and the chain is checked again when a game is opened.

pub mod appender;
pub mod file;
mod journal;
pub mod pg_log;
mod sled_log;

pub use sled_log::{Access, OpenError, OpenOptions, SledLog};
use std::path::Path;

use rollcall_core::chain::ChainedLines;
use rollcall_core::digest::Digest;
use rollcall_core::log::{EventLog, Head, LogError};
use rollcall_core::record::{Event, Header};

pub use pg_log::PgLog;

/// Says that this process exits once it has closed its stores (a command
/// run once): a sled store closed after it is flushed, synced and released
/// as always, but the memory of its page table is left to the process's
/// exit rather than freed page by page (`sled::leave_page_tables_to_exit`).
/// A process that goes on opening stores (a server, a test) does not call it.
pub fn exits_after_closing() {
    sled::leave_page_tables_to_exit();
}

/// A store: a sled directory, or a PostgreSQL database.
pub enum Store {
    Sled(Box<SledLog>),
    Postgres(Box<PgLog>),
}

impl Store {
    /// Opens the store a location names: `postgres://…` or `postgresql://…`
    /// a database (migrated already), anything else a sled directory.
    pub fn open(location: &Path) -> Result<Store, LogError> {
        match location.to_str().filter(|l| pg_log::is_url(l)) {
            Some(url) => Ok(Store::Postgres(Box::new(PgLog::open(url)?))),
            None => Ok(Store::Sled(Box::new(SledLog::open(location)?))),
        }
    }

    /// Removes a game and this store's notes and secrets on it (`rollcall
    /// games rm`), in one transaction, if it is still at the head `seen`
    /// (a sled store is held by one process, so it cannot have moved).
    pub fn remove_game(&self, game: &str, seen: &Head, notes: &[String], secrets: &[String]) -> Result<(), LogError> {
        match self {
            Store::Sled(log) => log.remove_game(game, notes, secrets),
            Store::Postgres(log) => log.remove_game(game, seen, notes, secrets),
        }
    }

    fn log(&self) -> &(dyn EventLog + Send + Sync) {
        match self {
            Store::Sled(log) => &**log,
            Store::Postgres(log) => &**log,
        }
    }
}

impl EventLog for Store {
    fn begin(&self, header: &Header) -> Result<Head, LogError> {
        self.log().begin(header)
    }
    fn append_pending(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        self.log().append_pending(game, expected, events)
    }
    fn append_pending_lines(&self, game: &str, lines: &ChainedLines) -> Result<Head, LogError> {
        self.log().append_pending_lines(game, lines)
    }
    fn commit(&self, game: &str) -> Result<Head, LogError> {
        self.log().commit(game)
    }
    fn abandon(&self, game: &str) -> Result<(), LogError> {
        self.log().abandon(game)
    }
    fn incomplete(&self) -> Result<Vec<String>, LogError> {
        self.log().incomplete()
    }
    fn create(&self, header: &Header) -> Result<Head, LogError> {
        self.log().create(header)
    }
    fn append(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        self.log().append(game, expected, events)
    }
    fn events<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<Event, LogError>> + 'a>, LogError> {
        self.log().events(game, from_seq)
    }
    fn lines<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<String, LogError>> + 'a>, LogError> {
        self.log().lines(game, from_seq)
    }
    fn games(&self) -> Result<Vec<String>, LogError> {
        self.log().games()
    }
    fn header(&self, game: &str) -> Result<Header, LogError> {
        self.log().header(game)
    }
    fn head(&self, game: &str) -> Result<Head, LogError> {
        self.log().head(game)
    }
    fn note(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        self.log().note(key)
    }
    fn set_note(&self, key: &str, value: Option<&[u8]>) -> Result<(), LogError> {
        self.log().set_note(key, value)
    }
    fn set_cache_note(&self, key: &str, value: &[u8]) -> Result<(), LogError> {
        self.log().set_cache_note(key, value)
    }
    fn notes(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, LogError> {
        self.log().notes(prefix)
    }
    fn swap_note(&self, key: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> Result<bool, LogError> {
        self.log().swap_note(key, old, new)
    }
    fn append_deferred(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        self.log().append_deferred(game, expected, events)
    }
    fn sync(&self) -> Result<(), LogError> {
        self.log().sync()
    }
    fn exclusive(&self) -> bool {
        self.log().exclusive()
    }
    fn secret(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        self.log().secret(key)
    }
    fn set_secret(&self, key: &str, value: &[u8]) -> Result<Vec<u8>, LogError> {
        self.log().set_secret(key, value)
    }
}
