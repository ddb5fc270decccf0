//! The store as the server's async handlers call it. A store call blocks
//! (sled's flush, PostgreSQL's round trips), and the synchronous PostgreSQL
//! client drives its connection with a small runtime of its own, which
//! tokio forbids inside a worker thread. So each call runs in
//! `block_in_place`: the worker hands its other tasks to the runtime and
//! leaves it for the time the call blocks.
//!
//! Handing a worker off costs two thread switches, which is most of a
//! decision's time on a small machine. So a store whose reads and deferred
//! appends are served from memory (sled: its flush is the only wait) keeps
//! those calls on the worker; only what waits for the disk leaves it.

use std::sync::Arc;

use rollcall_core::digest::Digest;
use rollcall_core::log::{EventLog, Head, LogError};
use rollcall_core::record::{Event, Header};

/// A store whose calls may block: run outside the runtime's workers.
pub struct Blocking {
    log: Arc<dyn EventLog + Send + Sync>,
    /// Whether reads and deferred appends wait for I/O (PostgreSQL's round
    /// trips) or are served from memory (sled).
    reads_block: bool,
}

impl Blocking {
    /// A store every call of which may block.
    pub fn new(log: Arc<dyn EventLog + Send + Sync>) -> Blocking {
        Blocking { log, reads_block: true }
    }

    /// A store whose reads and deferred appends are served from memory:
    /// only its durable writes and syncs leave the worker.
    pub fn memory_reads(log: Arc<dyn EventLog + Send + Sync>) -> Blocking {
        Blocking { log, reads_block: false }
    }

    /// Runs a read (or a deferred append) off the runtime only if it may block.
    fn read<T>(&self, f: impl FnOnce() -> T) -> T {
        if self.reads_block {
            off_runtime(f)
        } else {
            f()
        }
    }
}

/// Runs `f` off the runtime when called from a worker of a multi-threaded
/// runtime; directly otherwise (a plain thread, a test's single thread).
fn off_runtime<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// A stream of events whose every step may block.
struct Events<'a>(Box<dyn Iterator<Item = Result<Event, LogError>> + 'a>);

impl Iterator for Events<'_> {
    type Item = Result<Event, LogError>;
    fn next(&mut self) -> Option<Self::Item> {
        off_runtime(|| self.0.next())
    }
}

impl EventLog for Blocking {
    fn begin(&self, header: &Header) -> Result<Head, LogError> {
        off_runtime(|| self.log.begin(header))
    }
    fn append_pending(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        off_runtime(|| self.log.append_pending(game, expected, events))
    }
    fn commit(&self, game: &str) -> Result<Head, LogError> {
        off_runtime(|| self.log.commit(game))
    }
    fn abandon(&self, game: &str) -> Result<(), LogError> {
        off_runtime(|| self.log.abandon(game))
    }
    fn incomplete(&self) -> Result<Vec<String>, LogError> {
        self.read(|| self.log.incomplete())
    }
    fn create(&self, header: &Header) -> Result<Head, LogError> {
        off_runtime(|| self.log.create(header))
    }
    fn append(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        off_runtime(|| self.log.append(game, expected, events))
    }
    fn events<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<Event, LogError>> + 'a>, LogError> {
        if !self.reads_block {
            return self.log.events(game, from_seq);
        }
        let inner = off_runtime(|| self.log.events(game, from_seq))?;
        Ok(Box::new(Events(inner)))
    }
    fn games(&self) -> Result<Vec<String>, LogError> {
        self.read(|| self.log.games())
    }
    fn header(&self, game: &str) -> Result<Header, LogError> {
        self.read(|| self.log.header(game))
    }
    fn head(&self, game: &str) -> Result<Head, LogError> {
        self.read(|| self.log.head(game))
    }
    fn note(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        self.read(|| self.log.note(key))
    }
    fn set_note(&self, key: &str, value: Option<&[u8]>) -> Result<(), LogError> {
        off_runtime(|| self.log.set_note(key, value))
    }
    fn set_cache_note(&self, key: &str, value: &[u8]) -> Result<(), LogError> {
        off_runtime(|| self.log.set_cache_note(key, value))
    }
    fn notes(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, LogError> {
        self.read(|| self.log.notes(prefix))
    }
    fn swap_note(&self, key: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> Result<bool, LogError> {
        off_runtime(|| self.log.swap_note(key, old, new))
    }
    fn append_deferred(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        self.read(|| self.log.append_deferred(game, expected, events))
    }
    fn sync(&self) -> Result<(), LogError> {
        off_runtime(|| self.log.sync())
    }
    fn exclusive(&self) -> bool {
        self.log.exclusive()
    }
    fn secret(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        self.read(|| self.log.secret(key))
    }
    fn set_secret(&self, key: &str, value: &[u8]) -> Result<Vec<u8>, LogError> {
        off_runtime(|| self.log.set_secret(key, value))
    }
}
