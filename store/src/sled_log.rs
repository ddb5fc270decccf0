//! The sled-backed event log.
//!
//! Layout: tree `headers` (game id → canonical header line), tree `heads`
//! (game id → seq as u64 big-endian ‖ 32-byte hash), and one tree per game,
//! `events/<id>` (seq as u64 big-endian → the event in its compact form:
//! its kind, its hash and its body's canonical bytes, from which its record
//! line is put back byte for byte; stores written before 2026-12-01 hold the
//! line itself, and are read as they are; a game created whole, by `run`,
//! `import` or `store copy`, is kept in blocks of a few events, each under
//! the seq of its first: [`blocks`]), so a game's events stream in seq
//! order. The head says which events are the game's:
//! a reader reads a game's events up to its head only.
//!
//! An append writes the events, then the new head, under one lock. It is
//! first written to the store's journal ([`crate::journal`]), and returns
//! once the journal is synced: sled is not flushed for it (a checkpoint
//! flushes sled now and then, and empties the journal), and opening the
//! store applies to sled whatever journaled append it lacks. It is not a
//! sled transaction: sled 0.34
//! rolls its I/O buffer twice for every transaction or batch (a write and a
//! `sync_file_range` each, `pagecache::PageCache::pin_log`), which was most
//! of a dice server's time per decision. Plain inserts need none: sled
//! writes its log in order and recovers a prefix of it (up to "the last
//! contiguous message", `pagecache/iterator.rs`), so after a crash
//! the head is never ahead of its events, and events written after the
//! last head recovered are beyond it — no reader sees them, and the next
//! append writes over them.
//!
//! A game being created lives in tree `pending` (game id → head ‖ header
//! line) while its events go into its `events/<id>` tree in batches; only
//! the commit, one transaction, moves it into `headers` and `heads`. Every
//! reader looks at `headers` only, so a creation killed half-way is
//! invisible, and the next `begin` of the same id clears it. Tree `notes`
//! keeps the commands' small per-game notes, tree `secrets` a dice server's
//! chains and key (never listed, each written once).
//!
//! Opening ([`SledLog::open_with`]) says what went wrong in words, naming the
//! store and what to do: a store that is not there (a reader never creates
//! one), one another process holds (sled locks the whole database: a second
//! process waits up to [`OpenOptions::wait`], then is told who holds it; a
//! store this process closed itself is waited for until sled's I/O threads
//! let go of it, see [`CLOSED_HERE`]), a
//! full disk, a read-only filesystem. sled 0.34.7 has no read-only mode (an
//! early `read_only` option was removed before 0.34): it opens its files for
//! writing and writes its config on every start, so a reader of a store on a
//! read-only filesystem, one it may not write, or one on a full disk opens a
//! private copy in a temporary directory instead, and says so.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::journal::{self, Journal};
use rollcall_core::canon;
use rollcall_core::chain::{ChainedLines, CheckedLine};
use rollcall_core::digest::Digest;
use rollcall_core::log::{check_append, EventLog, Head, LogError};
use rollcall_core::record::{self, Event, Header, Kind};
use sled::transaction::{ConflictableTransactionError, TransactionError};
use sled::Transactional;
use std::fmt::Write as _;

/// A sled database holding games.
pub struct SledLog {
    db: sled::Db,
    /// The journal, held while an append checks the head and writes (see
    /// the module docs) and while a checkpoint empties it.
    journal: std::sync::Mutex<Journal>,
    /// The journal's file again, to sync it without holding the journal.
    journal_file: std::fs::File,
    headers: sled::Tree,
    heads: sled::Tree,
    pending: sled::Tree,
    notes: sled::Tree,
    secrets: sled::Tree,
    /// For a store that could only be read: the private copy opened instead
    /// (dropped, and deleted, after the database).
    copy: Option<(tempfile::TempDir, PathBuf)>,
    /// sled's log file, synced after each flush (see [`SledLog::flush`]);
    /// none for a copy that is only read.
    log_file: Option<std::fs::File>,
    /// Set once the journal is applied: only a store opened so checkpoints
    /// its journal when it is closed (one refused, or whose journal could
    /// not be applied, keeps it as it is).
    opened: bool,
    /// Marks the store closed by this process once everything above is
    /// dropped (fields drop in order: keep it last).
    #[expect(dead_code, reason = "held for what its drop does")]
    closing: Closing,
}

/// The stores this process has closed. sled's I/O threads (writing its last
/// buffer, truncating a segment) hold its file, and with it the store's
/// lock, for a moment after the last handle is dropped. Closing waits for
/// them ([`Closing`]); should anything of sled's hold the file longer, a
/// store this process closed and opens again waits for it (up to
/// [`CLOSING_WAIT`]) instead of being called in use by another process.
static CLOSED_HERE: std::sync::Mutex<std::collections::BTreeSet<PathBuf>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// How long opening a store this process closed waits for sled's threads to
/// let go of it, whatever [`OpenOptions::wait`] says.
const CLOSING_WAIT: Duration = Duration::from_secs(10);

fn closed_here() -> std::sync::MutexGuard<'static, std::collections::BTreeSet<PathBuf>> {
    CLOSED_HERE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The key a store is known by in [`CLOSED_HERE`].
fn store_key(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

/// Put in [`CLOSED_HERE`] when dropped (none for a private copy).
struct Closing(Option<PathBuf>);

impl Drop for Closing {
    fn drop(&mut self) {
        if let Some(key) = self.0.take() {
            // sled's last writes and truncations, on its pool, finish
            // before the command goes on (or exits): the store is left as
            // sled meant to leave it, not cut short where the process ended.
            sled::wait_until_idle(CLOSING_WAIT);
            closed_here().insert(key);
        }
    }
}

/// A store closed checkpoints its journal: sled flushes at its closing
/// anyway, and every opening reads the journal through (up to
/// [`journal::CHECKPOINT_BYTES`]: 0.7 ms at the opening of a stream, for
/// entries sled already held). Emptying it costs the closing one sync of
/// the journal's header. A failure leaves the journal as it was: the next
/// opening applies what sled lacks, as after a crash. A store whose opening
/// failed (a journal that disagrees with it) is closed as it was found.
impl Drop for SledLog {
    fn drop(&mut self) {
        if !self.opened || self.copy.is_some() {
            return;
        }
        let mut journal = self.lock_journal();
        if !journal.is_empty() {
            let _ = self.checkpoint(&mut journal);
        }
    }
}

fn backend(e: impl std::fmt::Display + 'static) -> LogError {
    let any: &dyn std::any::Any = &e;
    let io = match any.downcast_ref::<sled::Error>() {
        Some(sled::Error::Io(io)) => Some(io),
        _ => any.downcast_ref::<std::io::Error>(),
    };
    match io.and_then(|io| storage_trouble(io).map(|trouble| (trouble, io))) {
        Some((trouble, io)) => LogError::Backend(format!("{trouble} ({io})")),
        None => LogError::Backend(e.to_string()),
    }
}

/// What an I/O error means for a store, in words, when it is one of the
/// troubles a user can fix: a full disk, a read-only filesystem, permissions.
fn storage_trouble(e: &std::io::Error) -> Option<&'static str> {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => {
            Some("the disk holding the store is full: free some space and try again")
        }
        ErrorKind::ReadOnlyFilesystem => Some("the store is on a read-only filesystem: it can be read but not written"),
        ErrorKind::PermissionDenied => Some("no permission to write the store's files"),
        _ => None,
    }
}

/// How a command opens the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Only reads: the store must exist; on a filesystem it may not write,
    /// a private copy is read instead.
    Read,
    /// Writes: the store is created if it is not there.
    Write,
}

/// How to open a store.
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    pub access: Access,
    /// How long to wait for another process to let go of the store.
    pub wait: Duration,
}

/// Why a store could not be opened; each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("no store at {path}: nothing was ever stored there (check --db or ROLLCALL_DB; `run`, `new` and `import` create a store)")]
    Missing { path: String },
    #[error("{path} is not a rollcall store (it holds no sled database): check --db or ROLLCALL_DB")]
    NotAStore { path: String },
    #[error("the store at {path} is in use by another rollcall process (waited {waited}): wait for it to finish and try again, or pass --wait SECONDS to wait longer")]
    Locked { path: String, waited: String },
    #[error("the store at {path} is on a read-only filesystem: it can be read (log, state, verify, export …) but not written; use a store on a writable filesystem (--db DIR)")]
    ReadOnly { path: String },
    #[error("the disk holding the store at {path} is full: free some space and try again ({detail})")]
    Full { path: String, detail: String },
    #[error("no permission to open the store at {path} for writing ({detail}): use a store you may write (--db DIR)")]
    PermissionDenied { path: String, detail: String },
    #[error(
        "the store at {path} is on a filesystem rollcall may not write, and a copy to read could not be made: {detail}"
    )]
    NoCopy { path: String, detail: String },
    #[error("cannot open the store at {path}: {detail}")]
    Other { path: String, detail: String },
}

impl From<OpenError> for LogError {
    fn from(e: OpenError) -> Self {
        LogError::Backend(e.to_string())
    }
}

/// What went wrong opening sled, classified.
enum Failure {
    Locked,
    ReadOnly,
    Full(String),
    Denied(String),
    Other(String),
}

fn classify(e: &sled::Error) -> Failure {
    match e {
        // sled 0.34.7 reports a held lock as an `Other` I/O error whose
        // message carries fs2's WouldBlock (`config.rs`, `try_lock`).
        sled::Error::Io(io) if io.to_string().starts_with("could not acquire lock") => Failure::Locked,
        sled::Error::Io(io) => classify_io(io, || e.to_string()),
        other => Failure::Other(other.to_string()),
    }
}

/// An I/O error opening a store, classified; `other` words any other.
fn classify_io(io: &std::io::Error, other: impl FnOnce() -> String) -> Failure {
    match io.kind() {
        std::io::ErrorKind::ReadOnlyFilesystem => Failure::ReadOnly,
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => Failure::Full(io.to_string()),
        std::io::ErrorKind::PermissionDenied => Failure::Denied(io.to_string()),
        _ => Failure::Other(other()),
    }
}

/// Why the journal of the store in `dir` could not be opened, in words.
fn journal_trouble(dir: &Path, e: &std::io::Error) -> String {
    format!("cannot open its journal {}: {e}", dir.join(journal::FILE_NAME).display())
}

/// Copies a store's files (a directory tree of plain files) into `to`.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The most memory sled's page cache may hold, as sled counts it (the
/// bytes of the pages in its log; held in memory, they take about twice
/// that). sled's default, 1 GiB, let reading a 1 M-event game take 392 MiB.
/// A game is read and written in seq order, so a small cache costs little:
/// 4 MiB reads as fast as 16 MiB and 1 GiB did (docs/benchmarks.md).
pub const CACHE_BYTES: u64 = 4 << 20;

/// The size of a new store's log segments. sled's default, 512 KiB, left a
/// short game's store three times its record: sled cleans a segment only
/// when less than half of it is live, and a short game's log is a few
/// segments each half full. 64 KiB took a 2,000-decision game's store from
/// 3.2 to 2.1 × its record, and a 20,000-decision game's from 2.0 to 1.6 ×
/// (measured with the throughput bench). sled's own tests run with far smaller
/// segments.
pub const SEGMENT_BYTES: usize = 64 << 10;

/// The zstd level a store's log is written at. sled compresses each
/// message over 1 KiB it writes to its log (vendor/sled-0.34.7/ROLLCALL.md):
/// each rewrite of a leaf of up to 16 keys, whose events' bodies repeat
/// each other's member names. Compressing leaves is most of what the thread
/// writing a created game does; level 1 took `import` of a 100k-event
/// record to 0.92 × its time at level 3, and left the store 1.04 × as
/// large (0.56 × the record); a 2,000-decision game played a decision at a
/// time took 1.42 × its record at level 1, 1.50 × at 3 (measured with the
/// throughput bench and whole processes). sled reads a message whatever
/// level wrote it: stores written at 3 read and grow as before. sled's
/// patch in this workspace keeps one zstd context a thread: without it,
/// making a context for each message read tripled the time to read a
/// stored game.
pub const COMPRESSION_LEVEL: i32 = 1;

/// How a store is laid out on disk, as sled's `conf` file in its directory
/// says: sled refuses to open a store with another segment size or
/// compression than it was made with, so a store made before these were
/// chosen (512 KiB segments, no compression) is opened as it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    segment_size: usize,
    compressed: bool,
}

impl Layout {
    /// The layout of a store made now.
    const NEW: Layout = Layout { segment_size: SEGMENT_BYTES, compressed: true };

    /// The layout sled's `conf` in `dir` records (`segment_size: N`,
    /// `use_compression: B`, one a line, then a checksum sled checks);
    /// [`Layout::NEW`] when there is none yet. A `conf` this cannot read is
    /// left to sled, which names what is wrong with it.
    fn of(dir: &Path) -> Layout {
        let Ok(conf) = std::fs::read(dir.join("conf")) else { return Layout::NEW };
        let text = String::from_utf8_lossy(&conf);
        let value = |key: &str| text.lines().find_map(|line| line.strip_prefix(key)?.strip_prefix(": "));
        match (value("segment_size").map(str::parse), value("use_compression").map(str::parse)) {
            (Some(Ok(segment_size)), Some(Ok(compressed))) => Layout { segment_size, compressed },
            _ => Layout::NEW,
        }
    }

    /// sled's page cache capacity for a store of this layout. sled counts a
    /// page by its bytes in the log, compressed where the log is, and holds
    /// it uncompressed: a compressed store gets a third of [`CACHE_BYTES`],
    /// to hold about as many pages. With all of it, reading a
    /// million-event game took 58–61 MiB (53 MiB uncompressed); with a
    /// third, 52–53 MiB, and no more time (measured with the throughput bench).
    fn cache_bytes(self) -> u64 {
        if self.compressed {
            CACHE_BYTES / 3
        } else {
            CACHE_BYTES
        }
    }
}

/// How every store is opened: in the layout it was made with.
fn config(dir: &Path) -> sled::Config {
    let layout = Layout::of(dir);
    sled::Config::new()
        .path(dir)
        .cache_capacity(layout.cache_bytes())
        .segment_size(layout.segment_size)
        .use_compression(layout.compressed)
        .compression_factor(COMPRESSION_LEVEL)
}

fn encode_head(head: &Head) -> [u8; 40] {
    let mut out = [0u8; 40];
    out[..8].copy_from_slice(&head.seq.to_be_bytes());
    out[8..].copy_from_slice(head.hash.as_bytes());
    out
}

fn decode_head(game: &str, bytes: &[u8]) -> Result<Head, LogError> {
    if bytes.len() != 40 {
        return Err(LogError::Corrupt { game: game.into(), seq: 0, reason: "the stored head is not 40 bytes".into() });
    }
    let seq = u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes"));
    let hash = Digest(bytes[8..].try_into().expect("32 bytes"));
    Ok(Head { seq, hash })
}

impl SledLog {
    /// Opens (or creates) the database in `dir`, without waiting for a lock.
    pub fn open(dir: &Path) -> Result<SledLog, LogError> {
        Ok(SledLog::open_with(dir, OpenOptions { access: Access::Write, wait: Duration::ZERO })?)
    }

    /// Opens the database in `dir` as `options` say (see the module docs).
    pub fn open_with(dir: &Path, options: OpenOptions) -> Result<SledLog, OpenError> {
        let path = dir.display().to_string();
        if options.access == Access::Read {
            if !dir.exists() {
                return Err(OpenError::Missing { path });
            }
            if !dir.join("db").is_file() {
                return Err(OpenError::NotAStore { path });
            }
        }
        let started = Instant::now();
        let mut pause = Duration::from_millis(20);
        loop {
            let failure = match config(dir).open() {
                Ok(db) => match Journal::open(dir) {
                    Ok(journal) => {
                        let log_file = std::fs::File::open(dir.join("db")).ok();
                        let key = store_key(dir);
                        closed_here().remove(&key);
                        return SledLog::with_trees(db, journal, None, log_file, Closing(Some(key)))
                            .map_err(|detail| OpenError::Other { path, detail });
                    }
                    Err(e) => classify_io(&e, || journal_trouble(dir, &e)),
                },
                Err(e) => classify(&e),
            };
            let wait = match failure {
                Failure::Locked if closed_here().contains(&store_key(dir)) => options.wait.max(CLOSING_WAIT),
                _ => options.wait,
            };
            match (failure, options.access) {
                (Failure::Locked, _) if started.elapsed() < wait => {
                    std::thread::sleep(pause.min(wait.saturating_sub(started.elapsed())));
                    pause = (pause * 2).min(Duration::from_millis(250));
                }
                (Failure::Locked, _) => {
                    return Err(OpenError::Locked { path, waited: format!("{:.1} s", started.elapsed().as_secs_f64()) })
                }
                (Failure::ReadOnly | Failure::Denied(_), Access::Read) => return SledLog::open_copy(dir),
                (Failure::ReadOnly, Access::Write) => return Err(OpenError::ReadOnly { path }),
                (Failure::Denied(detail), Access::Write) => return Err(OpenError::PermissionDenied { path, detail }),
                // sled writes when it opens: on a full disk a reader reads a
                // copy elsewhere, if there is room for one.
                (Failure::Full(detail), Access::Read) => {
                    return SledLog::open_copy(dir).map_err(|_| OpenError::Full { path, detail })
                }
                (Failure::Full(detail), Access::Write) => return Err(OpenError::Full { path, detail }),
                (Failure::Other(detail), _) => return Err(OpenError::Other { path, detail }),
            }
        }
    }

    /// Opens a private copy of a store this process may only read.
    fn open_copy(dir: &Path) -> Result<SledLog, OpenError> {
        let no_copy = |detail: String| OpenError::NoCopy { path: dir.display().to_string(), detail };
        let tmp = tempfile::Builder::new()
            .prefix("rollcall-store-copy.")
            .tempdir()
            .map_err(|e| no_copy(format!("no temporary directory: {e}")))?;
        let copy = tmp.path().join("db");
        copy_tree(dir, &copy).map_err(|e| no_copy(format!("copying it to {}: {e}", copy.display())))?;
        let db = config(&copy).open().map_err(|e| no_copy(format!("opening the copy: {e}")))?;
        let journal = Journal::open(&copy).map_err(|e| no_copy(journal_trouble(&copy, &e)))?;
        SledLog::with_trees(db, journal, Some((tmp, dir.to_path_buf())), None, Closing(None)).map_err(no_copy)
    }

    /// The store opened on `db`, its journal (and the entries in it) applied.
    fn with_trees(
        db: sled::Db,
        (journal, entries): (Journal, Vec<journal::Entry>),
        copy: Option<(tempfile::TempDir, PathBuf)>,
        log_file: Option<std::fs::File>,
        closing: Closing,
    ) -> Result<SledLog, String> {
        let journal_file = journal.sync_handle().map_err(|e| e.to_string())?;
        let headers = db.open_tree("headers").map_err(|e| e.to_string())?;
        let heads = db.open_tree("heads").map_err(|e| e.to_string())?;
        let pending = db.open_tree("pending").map_err(|e| e.to_string())?;
        let notes = db.open_tree("notes").map_err(|e| e.to_string())?;
        let secrets = db.open_tree("secrets").map_err(|e| e.to_string())?;
        SledLog {
            db,
            journal: std::sync::Mutex::new(journal),
            journal_file,
            headers,
            heads,
            pending,
            notes,
            secrets,
            copy,
            log_file,
            opened: false,
            closing,
        }
        .replayed(entries)
    }

    /// The store with every journaled append it lacks applied, in the
    /// journal's order (see [`crate::journal`]). An entry whose game is no
    /// longer stored was removed after it; one at or below the game's head
    /// is in sled already; one that follows the head is applied. Any other
    /// means the journal and sled tell different histories: the store is
    /// not opened, and nothing is changed.
    fn replayed(self, entries: Vec<journal::Entry>) -> Result<SledLog, String> {
        let mut heads: std::collections::HashMap<String, Option<Head>> = std::collections::HashMap::new();
        let mut missing = Vec::new();
        for entry in entries {
            if !heads.contains_key(&entry.game) {
                let stored = self.heads.get(entry.game.as_bytes()).map_err(|e| e.to_string())?;
                let head = stored.map(|s| decode_head(&entry.game, &s)).transpose().map_err(|e| e.to_string())?;
                heads.insert(entry.game.clone(), head);
            }
            let Some(Some(head)) = heads.get_mut(&entry.game) else { continue };
            if head.seq >= entry.head.seq {
                continue;
            }
            let follows = head.hash == entry.expected
                && entry.events.iter().enumerate().all(|(i, (seq, _))| *seq == head.seq + 1 + i as u64)
                && head.seq + entry.events.len() as u64 == entry.head.seq;
            if !follows {
                return Err(format!(
                    "its journal {} holds an append to game {:?} (seq {} to {}) that does not follow the game's stored head (seq {}, {}): the journal and the database disagree. Nothing was changed; keep a copy of the directory",
                    self.journal_path().display(),
                    entry.game,
                    entry.head.seq + 1 - entry.events.len() as u64,
                    entry.head.seq,
                    head.seq,
                    head.hash.short()
                ));
            }
            *head = entry.head;
            missing.push(entry);
        }
        for entry in missing {
            let tree = self.db.open_tree(format!("events/{}", entry.game)).map_err(|e| e.to_string())?;
            for (seq, bytes) in &entry.events {
                tree.insert(seq.to_be_bytes(), &bytes[..]).map_err(|e| e.to_string())?;
            }
            self.heads.insert(entry.game.as_bytes(), &encode_head(&entry.head)[..]).map_err(|e| e.to_string())?;
        }
        let mut opened = self;
        opened.opened = true;
        Ok(opened)
    }

    fn journal_path(&self) -> PathBuf {
        self.lock_journal().path().to_path_buf()
    }

    /// The journal, locked. A poisoned lock guards nothing half-done: an
    /// append writes its head last, and cuts back a journal entry it could
    /// not finish.
    fn lock_journal(&self) -> std::sync::MutexGuard<'_, Journal> {
        self.journal.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Makes sled hold durably every append in the journal, then empties
    /// the journal; `journal` is the journal, locked.
    fn checkpoint(&self, journal: &mut Journal) -> Result<(), LogError> {
        self.flush()?;
        if !journal.is_empty() {
            journal.clear().map_err(backend)?;
        }
        Ok(())
    }

    /// Syncs the journal: every append written to it so far is durable.
    fn sync_journal(&self) -> Result<(), LogError> {
        self.journal_file.sync_data().map_err(backend)
    }

    /// For a store that could only be read: where the copy being read is
    /// (the store itself is not touched).
    pub fn read_copy(&self) -> Option<&Path> {
        self.copy.as_ref().map(|(tmp, _)| tmp.path())
    }

    /// Removes a stored game for good: its header, head and events, the
    /// notes named by `notes` (which side this store plays in it, forks kept
    /// as evidence…) and the secrets named by `secrets` (a dice server's
    /// chain for it), the header, head, notes and secrets in one transaction.
    /// Refused for a game the store does not have.
    pub fn remove_game(&self, game: &str, notes: &[String], secrets: &[String]) -> Result<(), LogError> {
        self.require(game)?;
        let trees = (&self.headers, &self.heads, &self.notes, &self.secrets);
        let result = trees.transaction(|(headers, heads, kept, sealed)| {
            headers.remove(game.as_bytes())?;
            heads.remove(game.as_bytes())?;
            for key in notes {
                kept.remove(key.as_bytes())?;
            }
            for key in secrets {
                sealed.remove(key.as_bytes())?;
            }
            Ok::<_, ConflictableTransactionError<LogError>>(())
        });
        match result {
            Ok(()) => {}
            Err(TransactionError::Abort(e)) => return Err(e),
            Err(TransactionError::Storage(e)) => return Err(backend(e)),
        }
        // Invisible from here; a kill before the drop leaves an events tree
        // no reader looks at, which the next `begin` of the id clears.
        self.db.drop_tree(format!("events/{game}")).map_err(backend)?;
        // The journal is emptied too: a game of the same id created later
        // could share the removed game's first heads, and must never be
        // given its journaled appends.
        self.checkpoint(&mut self.lock_journal())
    }

    fn events_tree(&self, game: &str) -> Result<sled::Tree, LogError> {
        self.db.open_tree(format!("events/{game}")).map_err(backend)
    }

    /// Makes every write so far durable. sled's own flush ends, on Linux,
    /// in `sync_file_range` (`pagecache/iobuf.rs`): the pages reach the
    /// drive, but not past its write cache, and the file's new length is not
    /// written — an acknowledged append could be lost to a power cut. The
    /// log file is synced (`fdatasync`) after it.
    fn flush(&self) -> Result<(), LogError> {
        self.db.flush().map_err(backend)?;
        if let Some(file) = &self.log_file {
            file.sync_data().map_err(backend)?;
        }
        Ok(())
    }

    /// A game's events from `from_seq` to its head, each read by `read`:
    /// up to the head only, for events past it are a crash's unfinished
    /// append (see [`Stored`]).
    fn read_each<T: 'static>(
        &self,
        game: &str,
        from_seq: u64,
        read: fn(String, &str, u64) -> Result<T, LogError>,
    ) -> Result<Box<dyn Iterator<Item = Result<T, LogError>>>, LogError> {
        self.require(game)?;
        let head = self.head(game)?;
        let tree = self.events_tree(game)?;
        Ok(Box::new(Stored {
            tree,
            game: game.to_string(),
            next: from_seq.max(1),
            head: head.seq,
            held: Vec::new(),
            found: false,
            failed: false,
            read,
        }))
    }

    fn require(&self, game: &str) -> Result<(), LogError> {
        if self.headers.contains_key(game).map_err(backend)? {
            Ok(())
        } else {
            Err(LogError::UnknownGame(game.to_string()))
        }
    }
}

impl SledLog {
    /// Appends `events` to `tree` after the head stored at `game` in `heads`
    /// (the `heads` or the `pending` tree, whose values start with a head),
    /// each in its compact form ([`stored_form`]), as [`SledLog::append_to`] does.
    fn append_events(
        &self,
        heads: &sled::Tree,
        tree: &sled::Tree,
        game: &str,
        expected: &Digest,
        events: &[Event],
        journaled: bool,
    ) -> Result<Head, LogError> {
        // Written out before the journal is locked.
        let mut stored = Vec::with_capacity(events.len());
        for e in events {
            stored.push((e.seq, stored_form(e)?));
        }
        self.append_to(heads, tree, game, expected, journaled, |head| Ok((check_append(game, head, events)?, stored)))
    }

    /// Writes to `tree` the values `prepare` makes, keyed by seq, given the
    /// head stored at `game` in `heads` (the `heads` or the `pending` tree,
    /// whose values start with a head) once it is the `expected` one, and
    /// then the new head `prepare` names: the values first, then the head
    /// (see the module docs), with the journal locked. An append to a stored
    /// game (`journaled`) is written to the journal first, not synced; the
    /// caller syncs it.
    fn append_to(
        &self,
        heads: &sled::Tree,
        tree: &sled::Tree,
        game: &str,
        expected: &Digest,
        journaled: bool,
        prepare: impl FnOnce(&Head) -> Result<(Head, Vec<(u64, Vec<u8>)>), LogError>,
    ) -> Result<Head, LogError> {
        let mut journal = self.lock_journal();
        if journaled && journal.len() > journal::CHECKPOINT_BYTES {
            // Before this append, so that a failure leaves it unwritten.
            self.checkpoint(&mut journal)?;
        }
        let stored = heads.get(game.as_bytes()).map_err(backend)?.ok_or_else(|| LogError::UnknownGame(game.into()))?;
        let head = decode_head(game, &stored[..40.min(stored.len())])?;
        if head.hash != *expected {
            return Err(LogError::stale_head(game, expected, &head));
        }
        let (new_head, values) = prepare(&head)?;
        let entry = journal::Entry { game: game.to_string(), expected: *expected, head: new_head, events: values };
        let chain = journal.chain();
        let written = if journaled { Some(journal.write(&entry).map_err(backend)?) } else { None };
        let mut value = encode_head(&new_head).to_vec();
        value.extend_from_slice(&stored[40..]);
        let inserted = entry
            .events
            .iter()
            .try_for_each(|(seq, line)| tree.insert(seq.to_be_bytes(), &line[..]).map(drop))
            .and_then(|()| heads.insert(game.as_bytes(), value).map(drop));
        if let Err(e) = inserted {
            // The entry is taken back: an append that failed is not
            // applied at the next opening.
            let e = backend(e);
            return match written.map(|at| journal.unwrite(at, chain)) {
                Some(Err(cut)) => Err(LogError::Backend(format!(
                    "{e}; and its entry could not be taken back from the journal {} ({cut}): the append may be applied when the store is next opened",
                    journal.path().display()
                ))),
                _ => Err(e),
            };
        }
        Ok(new_head)
    }
}

/// The first byte of an event stored in its compact form (below); an event
/// stored as its whole record line (every store written before 2026-12-01)
/// starts with `{`.
const COMPACT: u8 = 0x02;

/// The first byte of a block: several events, one after another, stored
/// under the seq of the first ([`blocks`]).
const BLOCK: u8 = 0x03;

/// The most bytes of events a block holds. sled writes each insert to its
/// log as a message of its own, and a message under 1 KiB as it is (the
/// vendored sled's raw frame, vendor/sled-0.34.7/ROLLCALL.md), a larger one
/// compressed: a block stays under it, so that it is compressed only with
/// its leaf. And a leaf takes more than 16 keys only while they hold at
/// most 12 KiB: 17 blocks of this size, even incompressible, stay under the
/// 16 KiB (a quarter of a 64 KiB segment) past which sled writes a leaf to
/// a file of its own.
const BLOCK_BYTES: usize = 900;

/// The kinds of event, by their byte in the compact form.
const KINDS: [Kind; 5] = [Kind::Decision, Kind::Roll, Kind::Fact, Kind::Checkpoint, Kind::Reveal];

fn kind_byte(kind: Kind) -> u8 {
    KINDS.iter().position(|k| *k == kind).expect("every kind is in KINDS") as u8
}

/// How an event is kept under its seq: `COMPACT ‖ kind ‖ hash (32 bytes) ‖
/// the body's canonical bytes`. The record line
/// `{"body":…,"hash":"…","kind":"…","seq":…}` repeats what the key says
/// (the seq), spells the hash in 64 hex digits and the kind and member names
/// in words: the compact form is about 80 bytes shorter than a line of 200.
/// The body's bytes are the ones hashed,
/// kept as they are; [`stored_lines`] puts the line back together, byte for
/// byte (`compact_form_gives_back_every_record_line`).
fn stored_form(e: &Event) -> Result<Vec<u8>, LogError> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(&[COMPACT, kind_byte(e.kind)]);
    out.extend_from_slice(e.hash.as_bytes());
    canon::append(&e.body, &mut out).map_err(backend)?;
    Ok(out)
}

/// The events of a game being created, as sled keeps them: in blocks of
/// consecutive events of at most [`BLOCK_BYTES`], each under the seq of its
/// first, `BLOCK ‖ (kind ‖ hash (32 bytes) ‖ the body's length (4 bytes,
/// big-endian) ‖ the body's canonical bytes)…`; an event alone in its block
/// (a large one, or the last) in its compact form ([`stored_form`]). One
/// sled insert costs about as much for a block as for an event, and a leaf
/// holds a sixth as many keys: importing the bench's 9,960-event record
/// took 1,478 inserts against 9,960, 388 compressions of a leaf against
/// 1,140, and 374 M instructions against 874 M (callgrind). A block is
/// written only into a game being created, whose keys past its head are
/// dropped with it: an append to a stored game writes each event under
/// its own seq, over whatever an unfinished append left past the head.
fn blocks(lines: &[CheckedLine<'_>]) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, line) in lines.iter().enumerate() {
        let size = 1 + 32 + 4 + line.body.len();
        if i > start && bytes + size > BLOCK_BYTES {
            out.push(block(&lines[start..i]));
            (start, bytes) = (i, 0);
        }
        bytes += size;
    }
    if start < lines.len() {
        out.push(block(&lines[start..]));
    }
    out
}

/// One block of [`blocks`], under its first event's seq.
fn block(group: &[CheckedLine<'_>]) -> (u64, Vec<u8>) {
    let first = &group[0];
    if let [only] = group {
        let mut out = Vec::with_capacity(34 + only.body.len());
        out.extend_from_slice(&[COMPACT, kind_byte(only.kind)]);
        out.extend_from_slice(only.hash.as_bytes());
        out.extend_from_slice(only.body);
        return (first.seq, out);
    }
    let mut out = Vec::with_capacity(BLOCK_BYTES + 1);
    out.push(BLOCK);
    for line in group {
        out.push(kind_byte(line.kind));
        out.extend_from_slice(line.hash.as_bytes());
        out.extend_from_slice(&u32::try_from(line.body.len()).expect("a block's body is short").to_be_bytes());
        out.extend_from_slice(line.body);
    }
    (first.seq, out)
}

/// The record lines of the events stored under `seq` as `value`, in any
/// form: a record line, an event's compact form, a block.
fn stored_lines(seq: u64, value: &[u8]) -> Result<Vec<String>, String> {
    match value.split_first() {
        Some((&COMPACT, rest)) => {
            let (kind, rest) = rest.split_first().ok_or("the stored event is empty")?;
            kind_of(*kind)?;
            let hash = rest.get(..32).ok_or("the stored event is cut short")?;
            Ok(vec![event_line(seq, *kind, hash, &rest[32..])?])
        }
        Some((&BLOCK, mut rest)) => {
            let mut lines = Vec::with_capacity(8);
            while !rest.is_empty() {
                let cut = || format!("the block stored under seq {seq} is cut short");
                let (&kind, after) = rest.split_first().ok_or_else(cut)?;
                let (hash, after) = after.split_at_checked(32).ok_or_else(cut)?;
                let (len, after) = after.split_at_checked(4).ok_or_else(cut)?;
                let len = u32::from_be_bytes(len.try_into().expect("4 bytes")) as usize;
                let (body, after) = after.split_at_checked(len).ok_or_else(cut)?;
                lines.push(event_line(seq + lines.len() as u64, kind, hash, body)?);
                rest = after;
            }
            Ok(lines)
        }
        _ => std::str::from_utf8(value).map(|line| vec![line.to_string()]).map_err(|e| e.to_string()),
    }
}

/// The kind of event whose byte is `kind`.
fn kind_of(kind: u8) -> Result<Kind, String> {
    KINDS.get(usize::from(kind)).copied().ok_or_else(|| format!("no kind of event has the byte {kind}"))
}

/// The record line of the event at `seq` of kind byte `kind`, its hash
/// and its body's canonical bytes as stored.
fn event_line(seq: u64, kind: u8, hash: &[u8], body: &[u8]) -> Result<String, String> {
    let kind = kind_of(kind)?;
    let hash: [u8; 32] = hash.try_into().map_err(|_| "the stored event is cut short")?;
    let body = std::str::from_utf8(body).map_err(|e| e.to_string())?;
    let mut line = String::with_capacity(body.len() + 128);
    line.push_str(r#"{"body":"#);
    line.push_str(body);
    line.push_str(r#","hash":""#);
    line.push_str(std::str::from_utf8(&Digest(hash).hex()).expect("hex digits are ASCII"));
    line.push_str(r#"","kind":""#);
    line.push_str(kind.name());
    write!(line, r#"","seq":{seq}}}"#).expect("writing to a String");
    Ok(line)
}

/// A game's events read in seq order up to its head, each made by `read`
/// of its record line.
///
/// A game is read one `get` per stored value (an event, or a block of
/// them), not with a range iterator, to bound memory: sled 0.34.7 evicts
/// from its page cache only when one of its 256 LRU shards has queued 64
/// accesses (`lru.rs`, `N_SHARDS`, `MAX_QUEUE_ITEMS`), and a range
/// iterator touches each leaf once, so up to 16,384 leaves read once
/// stayed in memory whatever the cache's capacity — 60 MiB and more to
/// read a long game. A `get` touches the leaf once per value, so each
/// shard's queue fills, and is evicted down to the capacity, as often as a
/// leaf holds values. Only the first read, when it falls inside a block,
/// looks back for the block's start.
struct Stored<T> {
    tree: sled::Tree,
    game: String,
    next: u64,
    head: u64,
    /// The lines of the value read last not yet handed out, last first.
    held: Vec<String>,
    /// Whether a value was read: the next starts at the next seq.
    found: bool,
    failed: bool,
    read: fn(String, &str, u64) -> Result<T, LogError>,
}

impl<T> Stored<T> {
    /// Reads the value holding the event at `self.next`.
    fn fill(&mut self) -> Result<(), LogError> {
        let seq = self.next;
        let corrupt = |reason: String| LogError::Corrupt { game: self.game.clone(), seq, reason };
        let missing = || corrupt("the event is missing".into());
        let (first, value) = match self.tree.get(seq.to_be_bytes()).map_err(backend)? {
            Some(value) => (seq, value),
            None if !self.found => {
                let (key, value) = self
                    .tree
                    .range(..seq.to_be_bytes())
                    .next_back()
                    .transpose()
                    .map_err(backend)?
                    .ok_or_else(missing)?;
                let key: [u8; 8] = key.as_ref().try_into().map_err(|_| missing())?;
                (u64::from_be_bytes(key), value)
            }
            None => return Err(missing()),
        };
        self.found = true;
        let lines = stored_lines(first, &value).map_err(corrupt)?;
        let skip = usize::try_from(seq - first).unwrap_or(usize::MAX);
        if skip >= lines.len() {
            return Err(missing());
        }
        self.held = lines.into_iter().skip(skip).rev().collect();
        Ok(())
    }
}

impl<T> Iterator for Stored<T> {
    type Item = Result<T, LogError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.next > self.head {
            return None;
        }
        if self.held.is_empty() {
            if let Err(e) = self.fill() {
                self.failed = true;
                return Some(Err(e));
            }
        }
        let line = self.held.pop().expect("a value holds a line");
        let seq = self.next;
        self.next += 1;
        Some((self.read)(line, &self.game, seq))
    }
}

/// The event at `seq`, from its record line as stored.
fn read_event(line: String, game: &str, seq: u64) -> Result<Event, LogError> {
    let corrupt = |reason: String| LogError::Corrupt { game: game.to_string(), seq, reason };
    let event = record::parse_event(&line).map_err(|e| corrupt(e.to_string()))?;
    if event.seq != seq {
        return Err(corrupt(format!("stored under seq {seq} but says seq {}", event.seq)));
    }
    Ok(event)
}

/// The record line at `seq`, as stored (not parsed).
fn read_line(line: String, _: &str, _: u64) -> Result<String, LogError> {
    Ok(line)
}

impl EventLog for SledLog {
    fn begin(&self, header: &Header) -> Result<Head, LogError> {
        let line = record::encode_header(header).map_err(backend)?;
        let game = header.game.as_str();
        if self.headers.contains_key(game).map_err(backend)? {
            return Err(LogError::GameExists(game.to_string()));
        }
        self.abandon(game)?;
        let head = Head { seq: 0, hash: Digest::of(line.as_bytes()) };
        let mut value = encode_head(&head).to_vec();
        value.extend_from_slice(line.as_bytes());
        self.pending.insert(game.as_bytes(), value).map_err(backend)?;
        Ok(head)
    }

    fn append_pending(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        let tree = self.events_tree(game)?;
        self.append_events(&self.pending, &tree, game, expected, events, false)
    }

    /// The lines' events written in blocks ([`blocks`]): a game created
    /// takes a sled insert for a few events, not one for each. They were
    /// checked where they were made ([`ChainedLines`]): only their head is.
    fn append_pending_lines(&self, game: &str, lines: &ChainedLines) -> Result<Head, LogError> {
        let tree = self.events_tree(game)?;
        let values = blocks(&lines.checked().collect::<Vec<_>>());
        let from = lines.from();
        self.append_to(&self.pending, &tree, game, &from.hash, false, |head| {
            if head.seq != from.seq {
                return Err(LogError::stale_head(game, &from.hash, head));
            }
            Ok((*lines.to(), values))
        })
    }

    fn commit(&self, game: &str) -> Result<Head, LogError> {
        // The events first, durably; then the header and head, in one step.
        self.flush()?;
        let result = (&self.pending, &self.headers, &self.heads).transaction(|(pending, headers, heads)| {
            let stored = pending
                .get(game.as_bytes())?
                .ok_or(ConflictableTransactionError::Abort(LogError::UnknownGame(game.into())))?;
            if headers.get(game.as_bytes())?.is_some() {
                return Err(ConflictableTransactionError::Abort(LogError::GameExists(game.into())));
            }
            let head =
                decode_head(game, &stored[..40.min(stored.len())]).map_err(ConflictableTransactionError::Abort)?;
            pending.remove(game.as_bytes())?;
            headers.insert(game.as_bytes(), &stored[40..])?;
            heads.insert(game.as_bytes(), &encode_head(&head)[..])?;
            Ok(head)
        });
        let head = match result {
            Ok(head) => head,
            Err(TransactionError::Abort(e)) => return Err(e),
            Err(TransactionError::Storage(e)) => return Err(backend(e)),
        };
        self.flush()?;
        Ok(head)
    }

    fn abandon(&self, game: &str) -> Result<(), LogError> {
        if self.headers.contains_key(game).map_err(backend)? {
            return Ok(());
        }
        self.db.drop_tree(format!("events/{game}")).map_err(backend)?;
        self.pending.remove(game).map_err(backend)?;
        self.flush()
    }

    fn incomplete(&self) -> Result<Vec<String>, LogError> {
        self.pending
            .iter()
            .keys()
            .map(|k| k.map_err(backend).map(|k| String::from_utf8_lossy(&k).into_owned()))
            .collect()
    }

    fn append(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        let head = self.append_deferred(game, expected, events)?;
        self.sync_journal()?;
        Ok(head)
    }

    fn append_deferred(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        self.require(game)?;
        let tree = self.events_tree(game)?;
        self.append_events(&self.heads, &tree, game, expected, events, true)
    }

    /// Every append to a stored game so far is in the journal; every other
    /// write flushed sled before it returned (a game being created is
    /// durable once committed, which flushes).
    fn sync(&self) -> Result<(), LogError> {
        self.sync_journal()
    }

    /// One process holds a sled store (its directory is locked).
    fn exclusive(&self) -> bool {
        true
    }

    fn secret(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(self.secrets.get(key).map_err(backend)?.map(|v| v.to_vec()))
    }

    fn set_secret(&self, key: &str, value: &[u8]) -> Result<Vec<u8>, LogError> {
        let kept = match self.secrets.compare_and_swap(key, None::<&[u8]>, Some(value)).map_err(backend)? {
            Ok(()) => value.to_vec(),
            Err(held) => held.current.map(|v| v.to_vec()).unwrap_or_else(|| value.to_vec()),
        };
        self.flush()?;
        Ok(kept)
    }

    fn swap_note(&self, key: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> Result<bool, LogError> {
        let swapped = self.notes.compare_and_swap(key, old, new).map_err(backend)?.is_ok();
        if swapped {
            self.flush()?;
        }
        Ok(swapped)
    }

    fn events<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<Event, LogError>> + 'a>, LogError> {
        self.read_each(game, from_seq, read_event)
    }

    /// The lines put back together from the stored form, byte for byte as
    /// they were hashed (`compact_form_gives_back_every_record_line`).
    fn lines<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<String, LogError>> + 'a>, LogError> {
        self.read_each(game, from_seq, read_line)
    }

    fn games(&self) -> Result<Vec<String>, LogError> {
        self.headers
            .iter()
            .keys()
            .map(|k| k.map_err(backend).map(|k| String::from_utf8_lossy(&k).into_owned()))
            .collect()
    }

    fn header(&self, game: &str) -> Result<Header, LogError> {
        let bytes = self.headers.get(game).map_err(backend)?.ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
        let line = std::str::from_utf8(&bytes).map_err(backend)?;
        record::parse_header(line, rollcall_core::registry::builtin()).map_err(|e| LogError::Corrupt {
            game: game.to_string(),
            seq: 0,
            reason: format!("header: {e}"),
        })
    }

    fn head(&self, game: &str) -> Result<Head, LogError> {
        let bytes = self.heads.get(game).map_err(backend)?.ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
        decode_head(game, &bytes)
    }

    fn note(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(self.notes.get(key).map_err(backend)?.map(|v| v.to_vec()))
    }

    fn set_note(&self, key: &str, value: Option<&[u8]>) -> Result<(), LogError> {
        match value {
            Some(v) => self.notes.insert(key, v).map_err(backend)?,
            None => self.notes.remove(key).map_err(backend)?,
        };
        self.flush()
    }

    /// Inserted without a flush of its own: sled keeps an insert whole or
    /// not at all, and writes it with its next flush — at the latest when
    /// the store is closed. A command that appends and then keeps its
    /// game's snapshot flushed sled's log (and synced its file) twice.
    fn set_cache_note(&self, key: &str, value: &[u8]) -> Result<(), LogError> {
        self.notes.insert(key, value).map(drop).map_err(backend)
    }

    fn notes(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, LogError> {
        self.notes
            .scan_prefix(prefix)
            .map(|item| {
                let (k, v) = item.map_err(backend)?;
                Ok((String::from_utf8_lossy(&k).into_owned(), v.to_vec()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rollcall_core::script::Script;

    fn rally_script() -> Script {
        let path = format!("{}/../fixtures/leader-activation/rally.json", env!("CARGO_MANIFEST_DIR"));
        Script::parse(&std::fs::read_to_string(path).unwrap(), "rally", rollcall_core::registry::builtin()).unwrap()
    }

    fn rally() -> Vec<Event> {
        let mut events = Vec::new();
        rally_script().play(|_, e| events.push(e.clone())).unwrap();
        events
    }

    /// A new store in `dir` with the game `rally` created and none of its
    /// events appended yet; and those events.
    fn rally_created(dir: &Path) -> (SledLog, Vec<Event>) {
        let log = SledLog::open(dir).unwrap();
        log.create(&rally_script().header).unwrap();
        (log, rally())
    }

    /// The file a flush syncs is sled's log itself, the one that grows with
    /// each append once sled writes it (at a checkpoint, at the latest).
    #[test]
    fn a_flush_syncs_the_file_sled_writes_its_log_to() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        let file = log.log_file.as_ref().expect("the log file is open");
        let before = file.metadata().unwrap().len();
        log.append("rally", &log.head("rally").unwrap().hash, &events).unwrap();
        log.checkpoint(&mut log.lock_journal()).unwrap();
        assert!(file.metadata().unwrap().len() > before, "sled wrote the appended events to the synced file");
    }

    /// An append killed after some of its events were written, before its
    /// head: those events are past the head, so no reader sees them, and
    /// the next append writes over them.
    #[test]
    fn events_past_the_head_are_an_unfinished_append_no_reader_sees() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        let first_decision = events.iter().skip(1).position(|e| e.kind == rollcall_core::Kind::Decision).unwrap() + 1;
        let (first, rest) = events.split_at(first_decision);
        let head = log.append("rally", &log.head("rally").unwrap().hash, first).unwrap();
        // What a crash leaves: the next decision's events written, the head not.
        let tree = log.events_tree("rally").unwrap();
        let mut stray = rest[0].clone();
        stray.body = serde_json::json!({"left": "by a crash"});
        tree.insert(stray.seq.to_be_bytes(), record::encode_event(&stray).unwrap().as_bytes()).unwrap();
        tree.insert((stray.seq + 40).to_be_bytes(), record::encode_event(&stray).unwrap().as_bytes()).unwrap();
        let read: Vec<Event> = log.events("rally", 1).unwrap().map(Result::unwrap).collect();
        assert_eq!(read, first, "no event past the head is read");
        assert_eq!(log.events("rally", head.seq + 1).unwrap().count(), 0);
        // The next append writes over them; what is read is the game.
        log.append("rally", &head.hash, rest).unwrap();
        let read: Vec<Event> = log.events("rally", 1).unwrap().map(Result::unwrap).collect();
        assert_eq!(read, events);
    }

    /// Every event of every fixture script (every ruleset, every kind):
    /// the compact form, and the blocks of a game being created, give back
    /// its record line byte for byte.
    #[test]
    fn compact_form_gives_back_every_record_line() {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "json") {
                    out.push(path);
                }
            }
        }
        let mut scripts = Vec::new();
        walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"), &mut scripts);
        let mut kinds = std::collections::BTreeSet::new();
        let mut events = 0;
        for path in &scripts {
            let script =
                Script::parse(&std::fs::read_to_string(path).unwrap(), "fixture", rollcall_core::registry::builtin())
                    .unwrap();
            let root = Head { seq: 0, hash: record::header_hash(&script.header).unwrap() };
            let mut lines = Vec::new();
            script
                .play(|_, e| {
                    let stored = stored_form(e).unwrap();
                    assert_eq!(stored[0], COMPACT);
                    let line = stored_lines(e.seq, &stored).unwrap().concat();
                    lines.push(line.clone());
                    assert_eq!(line, record::encode_event(e).unwrap(), "{} seq {}", path.display(), e.seq);
                    assert!(
                        stored.len() + 60 < line.len(),
                        "the compact form is shorter: {} seq {}",
                        path.display(),
                        e.seq
                    );
                    kinds.insert(e.kind.name());
                    events += 1;
                })
                .unwrap();
            let chained = ChainedLines::check(&root, lines.clone()).unwrap();
            let blocks = blocks(&chained.checked().collect::<Vec<_>>());
            let read: Vec<String> = blocks.iter().flat_map(|(seq, value)| stored_lines(*seq, value).unwrap()).collect();
            assert_eq!(read, lines, "{}", path.display());
            assert!(
                blocks.len() * 3 < lines.len() + 3,
                "{}: {} blocks of {} events",
                path.display(),
                blocks.len(),
                lines.len()
            );
        }
        assert!(events > 1000, "{events} events in {} scripts", scripts.len());
        assert_eq!(kinds.len(), 3, "decisions, rolls and facts are among the fixtures: {kinds:?}");
        // Checkpoints and reveals (play by email, sealed dice) are not: every
        // kind, with a body that needs escapes.
        let body = serde_json::json!({"b": [1, -2, 35], "a": "a \"quoted\" line\nwith ünïcode and \u{7f}"});
        for (i, kind) in KINDS.into_iter().enumerate() {
            let e = Event { seq: 1 << (8 * i), kind, body: body.clone(), hash: Digest([i as u8; 32]) };
            assert_eq!(stored_lines(e.seq, &stored_form(&e).unwrap()).unwrap(), [record::encode_event(&e).unwrap()]);
        }
    }

    /// A new store is compressed in small segments (sled's `conf` says
    /// so), and reads back what was written.
    #[test]
    fn a_new_store_is_written_compressed_in_small_segments() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        log.append("rally", &log.head("rally").unwrap().hash, &events).unwrap();
        drop(log);
        assert_eq!(Layout::of(dir.path()), Layout::NEW, "sled's conf records the new layout");
        let log = SledLog::open(dir.path()).unwrap();
        let read: Vec<Event> = log.events("rally", 1).unwrap().map(Result::unwrap).collect();
        assert_eq!(read, events);
    }

    /// A snapshot sled did not finish writing (a full disk, or a process
    /// killed while it opened the store) is not read as the store's
    /// snapshot: the store opens and reads back what was written, and the
    /// next snapshot sled writes clears the leftover away. (sled took the
    /// newest `snap.*` name as its snapshot, `.generating` ones too, and
    /// refused to open the store as corrupted.)
    #[test]
    fn a_snapshot_left_half_written_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        let first_decision = events.iter().skip(1).position(|e| e.kind == rollcall_core::Kind::Decision).unwrap() + 1;
        let (first, rest) = events.split_at(first_decision);
        let head = log.append("rally", &log.head("rally").unwrap().hash, first).unwrap();
        drop(log);
        let snapshots = || -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("snap."))
                .collect();
            names.sort();
            names
        };
        // Named after the newest position a snapshot could have: it sorts last.
        let leftover = "snap.FFFFFFFFFFFFFFFF.generating";
        std::fs::write(dir.path().join(leftover), b"").unwrap();
        let log = SledLog::open(dir.path()).unwrap();
        let read: Vec<Event> = log.events("rally", 1).unwrap().map(Result::unwrap).collect();
        assert_eq!(read, first);
        // An append moves sled's log on, so the next opening writes a snapshot.
        log.append("rally", &head.hash, rest).unwrap();
        log.checkpoint(&mut log.lock_journal()).unwrap();
        drop(log);
        let log = SledLog::open(dir.path()).unwrap();
        let read: Vec<Event> = log.events("rally", 1).unwrap().map(Result::unwrap).collect();
        assert_eq!(read, events);
        let names = snapshots();
        assert!(!names.iter().any(|n| n.ends_with(".generating")), "{names:?}");
        assert_eq!(names.len(), 1, "{names:?}");
    }

    /// Opening a store again writes nothing to sled's log file when there is
    /// nothing to zero: the tail after the last write, and every free
    /// segment, already hold zeros (or the file ends before them).
    #[test]
    fn a_store_opened_again_is_not_written_to() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        log.append("rally", &log.head("rally").unwrap().hash, &events).unwrap();
        drop(log);
        drop(SledLog::open(dir.path()).unwrap());
        let file = dir.path().join("db");
        // A write of the bytes already there changes no byte, but the time
        // the file was last written.
        let written = || std::fs::metadata(&file).unwrap().modified().unwrap();
        let (before, at) = (std::fs::read(&file).unwrap(), written());
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(20));
            let log = SledLog::open(dir.path()).unwrap();
            assert_eq!(log.events("rally", 1).unwrap().count(), events.len());
            drop(log);
            assert!(std::fs::read(&file).unwrap() == before, "sled's log file changed");
            assert_eq!(written(), at, "sled's log file was written to");
        }
    }

    /// The frames sled writes its small messages and its snapshots in,
    /// uncompressed (vendor/sled-0.34.7/ROLLCALL.md), are zstd frames: zstd
    /// reads each back as the bytes written, empty, one block, at a block's
    /// limit of 128 KiB and past it; and sled's own reader reads them, and
    /// refuses a compressed frame (left to zstd) or a cut one.
    #[test]
    fn raw_frames_are_zstd_frames() {
        for len in [0_usize, 1, 255, 256, 1023, 65_791, 65_792, 128 << 10, (128 << 10) + 1, 300_000] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let frame = sled::raw_frame(&bytes);
            assert_eq!(zstd::stream::decode_all(&frame[..]).unwrap(), bytes, "{len} bytes, read by zstd");
            assert_eq!(sled::raw_frame_content(&frame).as_ref(), Some(&bytes), "{len} bytes, read by sled");
            if len > 0 {
                assert_eq!(sled::raw_frame_content(&frame[..frame.len() - 1]), None, "{len} bytes, cut");
            }
            // zstd's own frame, compressed (or, empty, the very raw frame).
            let compressed = zstd::block::Compressor::new().compress(&bytes, 3).unwrap();
            assert!(compressed == frame || sled::raw_frame_content(&compressed).is_none(), "{len} bytes, compressed");
            // Its size said in as few bytes as zstd says it: 1 below 256, 2 below 65,792.
            let size_bytes = match len {
                0..=255 => 1,
                256..=65_791 => 2,
                _ => 4,
            };
            let blocks = len.div_ceil(128 << 10).max(1);
            assert_eq!(frame.len(), 4 + 1 + size_bytes + 3 * blocks + len, "{len} bytes");
        }
        // A frame the version before wrote (its size always in 4 bytes) is read too.
        let old = [&0xFD2F_B528_u32.to_le_bytes()[..], &[0xA0, 3, 0, 0, 0], &[(3 << 3) | 1, 0, 0], b"abc"].concat();
        assert_eq!(sled::raw_frame_content(&old).as_deref(), Some(&b"abc"[..]));
        assert_eq!(zstd::stream::decode_all(&old[..]).unwrap(), b"abc");
    }

    /// How many frames of one raw block of at least 64 bytes `db` holds:
    /// sled's messages written uncompressed (by zstd too, where it could
    /// not shrink one).
    fn raw_frames_in(db: &[u8]) -> usize {
        let magic = 0xFD2F_B528_u32.to_le_bytes();
        (0..db.len().saturating_sub(12))
            .filter(|&i| db[i..].starts_with(&magic))
            .filter(|&i| {
                let rest = &db[i + 4..];
                let (size, header) = match rest[0] {
                    0x20 => (usize::from(rest[1]), &rest[2..]),
                    0x60 => (usize::from(u16::from_le_bytes([rest[1], rest[2]])) + 256, &rest[3..]),
                    0xA0 => (u32::from_le_bytes([rest[1], rest[2], rest[3], rest[4]]) as usize, &rest[5..]),
                    _ => return false,
                };
                let block = u32::from_le_bytes([header[0], header[1], header[2], 0]);
                size >= 64 && block & 7 == 1 && (block >> 3) as usize == size
            })
            .count()
    }

    /// A store written while sled compressed every message (made by
    /// rollcall at aa198db: `run fixtures/leader-activation/casualties.json`,
    /// then `export`) opens and reads its game back line for line as its
    /// record; a new game is appended to it, as sled writes small messages
    /// now (a zstd frame of one raw block, which that version wrote only
    /// where zstd could not shrink a message: more of them now), and both
    /// read back after a reopen.
    #[test]
    fn a_store_whose_every_message_was_compressed_reads_and_grows() {
        let raw_frames = |dir: &Path| raw_frames_in(&std::fs::read(dir.join("db")).unwrap());
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/compressed-2026-12-02");
        let dir = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(data.join("store")).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
        }
        let before = raw_frames(dir.path());
        let record = std::fs::read_to_string(data.join("casualties.jsonl")).unwrap();
        let expected: Vec<&str> = record.lines().skip(1).collect();
        let log = SledLog::open(dir.path()).unwrap();
        let read = |log: &SledLog, game: &str| log.lines(game, 1).unwrap().map(Result::unwrap).collect::<Vec<_>>();
        assert_eq!(read(&log, "casualties"), expected);
        log.create(&rally_script().header).unwrap();
        let events = rally();
        log.append("rally", &log.head("rally").unwrap().hash, &events).unwrap();
        log.checkpoint(&mut log.lock_journal()).unwrap();
        drop(log);
        assert!(raw_frames(dir.path()) > before + 20, "small messages are written as raw frames");
        let log = SledLog::open(dir.path()).unwrap();
        assert_eq!(read(&log, "casualties"), expected);
        let rally: Vec<Event> = log.events("rally", 1).unwrap().map(Result::unwrap).collect();
        assert_eq!(rally, events);
    }

    /// The script the store in `testdata/before-retunings-2026-12-03` ran
    /// as game `long`: the skips fixture, its decisions `moves` referee moves.
    fn long_script(moves: usize) -> Script {
        let path = format!("{}/../fixtures/leader-activation/skips.json", env!("CARGO_MANIFEST_DIR"));
        let mut script: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        script["game"] = "long".into();
        let piece = script["scenario"]["units"][0]["id"].clone();
        let moves = (0..moves).map(|i| serde_json::json!({"type": "move", "piece": piece, "to": [i, 0]}));
        script["decisions"] = moves.collect();
        Script::parse(&script.to_string(), "long", rollcall_core::registry::builtin()).unwrap()
    }

    /// A store made by rollcall before sled's tree was retuned (at 4c17b14:
    /// leaves of at most 16 keys, split in the middle, a page rewritten
    /// whole at 10 fragments; every event under its own seq) opens with
    /// this sled and this store, reads back both its games — `long`, made
    /// by `run` (the skips fixture, 250 moves: [`long_script`]), and
    /// `streamed`, made by `new` and 30 decisions of `play --stream`, some
    /// still in the journal, which that version did not empty at closing —
    /// and grows: 100 decisions appended to `long` (its rightmost leaf, one
    /// of 16 keys, now filled to 64), and a game created whole in blocks.
    /// Everything reads back, every chain checks and every tree is whole
    /// after a reopen. Made by:
    /// `rollcall --db store run long.json`; `rollcall --db store new --rules
    /// leader-activation --scenario scenario.json --game streamed`; 30 moves
    /// of `1-section` to `[i, 7]` piped into `rollcall --db store play
    /// streamed - --stream`; `rollcall --db store export streamed -o
    /// streamed.jsonl` (the old binary each time).
    #[test]
    fn a_store_made_before_the_tree_was_retuned_reads_and_grows() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/before-retunings-2026-12-03");
        let dir = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(data.join("store")).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
        }
        let script = long_script(350);
        let mut game = rollcall_core::Game::open(script.header.clone(), rollcall_core::registry::builtin()).unwrap();
        let played: Vec<(Vec<Event>, Vec<String>)> = script
            .decisions
            .iter()
            .map(|(d, dice)| game.play_lines(d, dice.as_ref()).unwrap())
            .map(|(e, l)| (e, l.lines().to_vec()))
            .collect();
        let (old, new) = played.split_at(250);
        let lines_of =
            |part: &[(Vec<Event>, Vec<String>)]| part.iter().flat_map(|(_, l)| l.clone()).collect::<Vec<_>>();
        let streamed = std::fs::read_to_string(data.join("streamed.jsonl")).unwrap();
        let streamed: Vec<String> = streamed.lines().skip(1).map(str::to_string).collect();
        let read = |log: &SledLog, game: &str| log.lines(game, 1).unwrap().map(Result::unwrap).collect::<Vec<_>>();
        let log = SledLog::open(dir.path()).unwrap();
        assert_eq!(log.games().unwrap(), ["long", "streamed"]);
        assert_eq!(read(&log, "long"), lines_of(old));
        assert_eq!(read(&log, "streamed"), streamed);
        // Grown by this version: appends to the old game, a game in blocks.
        let mut head = log.head("long").unwrap();
        for (events, _) in new {
            head = log.append("long", &head.hash, events).unwrap();
        }
        let rally_header = rally_script().header;
        let rally_lines: Vec<String> = rally().iter().map(|e| record::encode_event(e).unwrap()).collect();
        let root = log.begin(&rally_header).unwrap();
        log.append_pending_lines("rally", &ChainedLines::check(&root, rally_lines.clone()).unwrap()).unwrap();
        log.commit("rally").unwrap();
        drop(log);
        let log = SledLog::open(dir.path()).unwrap();
        assert_eq!(read(&log, "long"), lines_of(&played));
        assert_eq!(read(&log, "streamed"), streamed);
        assert_eq!(read(&log, "rally"), rally_lines);
        for id in ["long", "streamed", "rally"] {
            let opened = rollcall_core::log::open_game(&log, id, None, rollcall_core::registry::builtin()).unwrap();
            assert_eq!(opened.head(), log.head(id).unwrap().hash, "{id}");
            log.events_tree(id).unwrap().verify_integrity().unwrap();
        }
    }

    /// A store made in sled's own layout (every store made before the
    /// layout was chosen) is opened in it, written to and read, and keeps it.
    #[test]
    fn a_store_made_in_sleds_own_layout_is_opened_in_it() {
        let dir = tempfile::tempdir().unwrap();
        // What every store made before 2026-12-02 is: sled's defaults.
        drop(sled::Config::new().path(dir.path()).open().unwrap());
        let old = Layout::of(dir.path());
        assert_eq!(old, Layout { segment_size: 512 << 10, compressed: false });
        let (log, events) = rally_created(dir.path());
        log.append("rally", &log.head("rally").unwrap().hash, &events).unwrap();
        drop(log);
        let log = SledLog::open(dir.path()).unwrap();
        let read: Vec<Event> = log.events("rally", 1).unwrap().map(Result::unwrap).collect();
        assert_eq!(read, events);
        assert_eq!(Layout::of(dir.path()), old, "the store keeps its layout");
    }

    /// A store written before the compact form keeps each event as its
    /// record line: it is read as it was.
    #[test]
    fn events_stored_as_record_lines_read_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        log.append("rally", &log.head("rally").unwrap().hash, &events).unwrap();
        let tree = log.events_tree("rally").unwrap();
        assert_eq!(tree.get(1u64.to_be_bytes()).unwrap().unwrap()[0], COMPACT);
        // What a store written before 2026-12-01 holds: the lines themselves.
        for e in &events {
            tree.insert(e.seq.to_be_bytes(), record::encode_event(e).unwrap().as_bytes()).unwrap();
        }
        let read: Vec<Event> = log.events("rally", 1).unwrap().map(Result::unwrap).collect();
        assert_eq!(read, events);
        let from: Vec<Event> = log.events("rally", 5).unwrap().map(Result::unwrap).collect();
        assert_eq!(from, events[4..]);
    }

    /// A stored event that is neither form, or cut short, is an error naming
    /// the game and the seq, not a panic.
    #[test]
    fn a_damaged_stored_event_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        log.append("rally", &log.head("rally").unwrap().hash, &events).unwrap();
        let tree = log.events_tree("rally").unwrap();
        for (value, says) in [
            (vec![COMPACT, 9], "no kind of event has the byte 9"),
            (vec![COMPACT, 0, 1, 2], "cut short"),
            (vec![COMPACT], "empty"),
        ] {
            tree.insert(3u64.to_be_bytes(), value).unwrap();
            let error = log.events("rally", 1).unwrap().find_map(Result::err).unwrap();
            assert!(
                matches!(&error, LogError::Corrupt { game, seq: 3, reason } if game == "rally" && reason.contains(says)),
                "{error}"
            );
        }
        tree.remove(3u64.to_be_bytes()).unwrap();
        let error = log.events("rally", 1).unwrap().find_map(Result::err).unwrap();
        assert!(matches!(&error, LogError::Corrupt { seq: 3, reason, .. } if reason.contains("missing")), "{error}");
    }

    /// The events split into appends, one per decision (and its rolls and
    /// facts).
    fn appends(events: &[Event]) -> Vec<&[Event]> {
        let mut out = Vec::new();
        let mut start = 0;
        for i in 1..=events.len() {
            if i == events.len() || events[i].kind == rollcall_core::Kind::Decision {
                out.push(&events[start..i]);
                start = i;
            }
        }
        out
    }

    /// A power cut takes sled's writes since its last flush, but not the
    /// synced journal: the store, reopened, has every acknowledged append.
    /// (The store is copied as sled last flushed it, and the journal is
    /// copied after the appends.)
    #[test]
    fn acknowledged_appends_sled_lost_are_applied_from_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        let store = dir.path();
        let copy = tempfile::tempdir().unwrap();
        copy_tree(store, copy.path()).unwrap();
        let mut head = log.head("rally").unwrap();
        for append in appends(&events) {
            head = log.append("rally", &head.hash, append).unwrap();
        }
        assert!(!log.lock_journal().is_empty(), "the appends are journaled");
        std::fs::copy(store.join(journal::FILE_NAME), copy.path().join(journal::FILE_NAME)).unwrap();
        let reopened = SledLog::open(copy.path()).unwrap();
        assert_eq!(reopened.head("rally").unwrap(), head);
        let read: Vec<Event> = reopened.events("rally", 1).unwrap().map(Result::unwrap).collect();
        assert_eq!(read, events);
        // Applied once: opening again finds them in sled, and appends after them.
        drop(reopened);
        let again = SledLog::open(copy.path()).unwrap();
        assert_eq!(again.head("rally").unwrap(), head);
        assert_eq!(again.events("rally", 1).unwrap().count(), events.len());
    }

    /// sled's I/O threads may hold a closed store's file (and its lock) a
    /// moment longer: a store this process closed is opened again once they
    /// let go, however short the wait asked for. (The lock is held here by
    /// hand for 300 ms, as a late sled thread would hold it.) A store this
    /// process never held is still refused at once.
    #[test]
    fn a_store_closed_here_is_opened_again_once_sleds_threads_let_go() {
        let dir = tempfile::tempdir().unwrap();
        let never = tempfile::tempdir().unwrap();
        drop(SledLog::open(never.path()).unwrap());
        closed_here().remove(&store_key(never.path()));
        let (log, events) = rally_created(dir.path());
        log.append("rally", &log.head("rally").unwrap().hash, &events).unwrap();
        drop(log);
        for (store, opens) in [(dir.path(), true), (never.path(), false)] {
            let late = std::fs::OpenOptions::new().write(true).open(store.join("db")).unwrap();
            late.lock().unwrap();
            let held = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                drop(late);
            });
            let opened = SledLog::open(store);
            held.join().unwrap();
            match opened {
                Ok(log) => {
                    assert!(opens, "a store this process never closed was waited for");
                    assert_eq!(log.events("rally", 1).unwrap().count(), events.len());
                }
                Err(e) => assert!(!opens && e.to_string().contains("in use by another"), "{e}"),
            }
        }
    }

    /// A note that only saves work (a kept snapshot) is written without a
    /// flush of its own: it is read at once, and the store's closing keeps it.
    #[test]
    fn a_cache_note_is_kept_by_the_stores_closing() {
        let dir = tempfile::tempdir().unwrap();
        let (log, _) = rally_created(dir.path());
        log.set_cache_note("snapshot/rally", b"{}").unwrap();
        assert_eq!(log.note("snapshot/rally").unwrap().as_deref(), Some(&b"{}"[..]), "read at once");
        drop(log);
        let again = SledLog::open(dir.path()).unwrap();
        assert_eq!(again.note("snapshot/rally").unwrap().as_deref(), Some(&b"{}"[..]), "kept by the closing");
    }

    /// A process that exits once it has closed its stores leaves their
    /// page tables to the exit (`crate::exits_after_closing`), and closing
    /// is otherwise what it was: sled writes what it holds to its own file
    /// (the game reads back whole with the journal gone), the journal is
    /// emptied (the next opening does not read again what sled holds), and
    /// the store is released (opened again at once by the same process). (The switch
    /// is the process's: run by `cargo test`, the other tests in this
    /// binary leave their stores' page tables too, which costs them only
    /// memory.)
    #[test]
    fn a_store_closed_by_a_process_about_to_exit_is_written_and_released() {
        crate::exits_after_closing();
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        let mut head = log.head("rally").unwrap();
        for append in appends(&events) {
            head = log.append_deferred("rally", &head.hash, append).unwrap();
        }
        log.sync().unwrap();
        assert!(!Journal::open(dir.path()).unwrap().1.is_empty(), "journaled while open");
        drop(log);
        assert!(Journal::open(dir.path()).unwrap().1.is_empty(), "emptied by the closing");
        std::fs::remove_file(dir.path().join(journal::FILE_NAME)).unwrap();
        let again = SledLog::open(dir.path()).unwrap();
        assert_eq!(again.head("rally").unwrap(), head);
        assert_eq!(again.events("rally", 1).unwrap().count(), events.len());
    }

    /// The journal grows only so far: an append past the bound flushes sled
    /// and empties it; removing a game empties it too.
    #[test]
    fn the_journal_is_checkpointed_and_emptied_by_a_removal() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        let mut head = log.head("rally").unwrap();
        for append in appends(&events) {
            head = log.append("rally", &head.hash, append).unwrap();
        }
        let per_game = log.lock_journal().len();
        assert!(per_game > 0, "the appends are journaled");
        let mut most = 0;
        for i in 0..(2 * journal::CHECKPOINT_BYTES / per_game + 2) {
            let game = format!("rally-{i}");
            let mut script = rally_script();
            script.header.game = game.clone();
            let mut head = log.create(&script.header).unwrap();
            let mut played = Vec::new();
            script.play(|_, e| played.push(e.clone())).unwrap();
            for append in appends(&played) {
                head = log.append(&game, &head.hash, append).unwrap();
            }
            most = most.max(log.lock_journal().len());
        }
        assert!(most <= journal::CHECKPOINT_BYTES + per_game, "the journal grew to {most} bytes");
        log.remove_game("rally", &[], &[]).unwrap();
        assert!(log.lock_journal().is_empty());
        drop(log);
        assert!(Journal::open(dir.path()).unwrap().1.is_empty(), "emptied durably");
    }

    /// A journal that tells another history than sled's (an entry after a
    /// head the game never had) stops the opening with the journal named,
    /// and changes nothing.
    #[test]
    fn a_journal_that_disagrees_with_the_store_is_named_and_nothing_changes() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        let appends = appends(&events);
        let head = log.append("rally", &log.head("rally").unwrap().hash, appends[0]).unwrap();
        drop(log);
        let foreign = journal::Entry {
            game: "rally".into(),
            expected: Digest::of(b"another history"),
            head: Head { seq: head.seq + 1, hash: Digest::of(b"its head") },
            events: vec![(head.seq + 1, b"anything".to_vec())],
        };
        let path = dir.path().join(journal::FILE_NAME);
        let (mut written, _) = Journal::open(dir.path()).unwrap();
        written.write(&foreign).unwrap();
        drop(written);
        let bytes = std::fs::read(&path).unwrap();
        let error = SledLog::open(dir.path()).err().expect("refused").to_string();
        assert!(
            error.contains("journal") && error.contains("does not follow") && error.contains("\"rally\""),
            "{error}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "the journal is kept");
        Journal::open(dir.path()).unwrap().0.clear().unwrap();
        assert_eq!(SledLog::open(dir.path()).unwrap().head("rally").unwrap(), head);
    }

    /// A stored game's lines are its events' record lines, from any seq.
    #[test]
    fn lines_are_the_events_record_lines() {
        let dir = tempfile::tempdir().unwrap();
        let (log, events) = rally_created(dir.path());
        log.append("rally", &log.head("rally").unwrap().hash, &events).unwrap();
        for from in [0, 1, 5, events.len() as u64, events.len() as u64 + 1] {
            let lines: Vec<String> = log.lines("rally", from).unwrap().map(Result::unwrap).collect();
            let expected: Vec<String> =
                events.iter().filter(|e| e.seq >= from).map(|e| record::encode_event(e).unwrap()).collect();
            assert_eq!(lines, expected, "from seq {from}");
        }
    }

    /// A game removed and created again under its id begins again from the
    /// same header, so at the same head as the removed one: the removed
    /// game's journaled appends would follow it. Removing a game empties
    /// the journal, so that a power cut cannot bring them back.
    #[test]
    fn a_game_created_again_is_not_given_the_removed_games_appends() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        let (log, events) = rally_created(&store);
        let root = log.head("rally").unwrap();
        log.append("rally", &root.hash, &events).unwrap();
        log.remove_game("rally", &[], &[]).unwrap();
        assert_eq!(log.create(&rally_script().header).unwrap(), root);
        // The cut: sled as flushed by the creation, and the journal.
        let cut = dir.path().join("cut");
        copy_tree(&store, &cut).unwrap();
        let reopened = SledLog::open(&cut).unwrap();
        assert_eq!(reopened.head("rally").unwrap(), root);
        assert_eq!(reopened.events("rally", 1).unwrap().count(), 0);
    }

    /// The games a power cut left: each game's id, head and events.
    fn contents(log: &SledLog) -> Vec<(String, Head, Vec<Event>)> {
        let games = log.games().unwrap();
        games
            .into_iter()
            .map(|g| {
                let head = log.head(&g).unwrap();
                let events = log.events(&g, 1).unwrap().map(Result::unwrap).collect();
                (g, head, events)
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

        /// A power cut after any operation, taking every write sled made
        /// since its last flush (the worst it can do: sled recovers a prefix
        /// of its log) but not the synced journal, loses no acknowledged
        /// append and brings back no removed game. Operations on three
        /// games: create, append a decision, remove, checkpoint.
        #[test]
        fn a_power_cut_after_any_operation_loses_nothing_acknowledged(
            ops in proptest::collection::vec((0..3usize, 0..8u8), 1..40),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let store = dir.path().join("store");
            let flushed = dir.path().join("flushed");
            let log = SledLog::open(&store).unwrap();
            let games: Vec<(Header, Vec<Vec<Event>>)> = (0..3)
                .map(|i| {
                    let mut script = rally_script();
                    script.header.game = format!("g{i}");
                    let mut played = Vec::new();
                    script.play(|_, e| played.push(e.clone())).unwrap();
                    let appends = appends(&played).into_iter().map(<[Event]>::to_vec).collect();
                    (script.header, appends)
                })
                .collect();
            // Per game: how many of its appends are acknowledged, if created.
            let mut model: Vec<Option<usize>> = vec![None; 3];
            let snapshot = || {
                // What sled holds once flushed: its files as they are now.
                let _ = std::fs::remove_dir_all(&flushed);
                copy_tree(&store, &flushed).unwrap();
            };
            snapshot();
            for (g, op) in ops {
                let (header, appends) = &games[g];
                match (op, model[g]) {
                    (0, None) => {
                        log.create(header).unwrap();
                        model[g] = Some(0);
                        snapshot();
                    }
                    (1, Some(_)) => {
                        log.remove_game(&header.game, &[], &[]).unwrap();
                        model[g] = None;
                        snapshot();
                    }
                    (2, _) => {
                        log.checkpoint(&mut log.lock_journal()).unwrap();
                        snapshot();
                    }
                    (_, Some(n)) if n < appends.len() => {
                        let head = log.head(&header.game).unwrap();
                        log.append(&header.game, &head.hash, &appends[n]).unwrap();
                        model[g] = Some(n + 1);
                    }
                    _ => {}
                }
                // The cut: sled as last flushed, the journal as synced now.
                let cut = dir.path().join("cut");
                let _ = std::fs::remove_dir_all(&cut);
                copy_tree(&flushed, &cut).unwrap();
                std::fs::copy(store.join(journal::FILE_NAME), cut.join(journal::FILE_NAME)).unwrap();
                let reopened = SledLog::open(&cut).unwrap();
                let expected: Vec<(String, Head, Vec<Event>)> = model
                    .iter()
                    .enumerate()
                    .filter_map(|(i, n)| n.map(|n| (i, n)))
                    .map(|(i, n)| {
                        let events: Vec<Event> = games[i].1[..n].concat();
                        let head = events.last().map(|e| Head { seq: e.seq, hash: e.hash }).unwrap_or_else(|| {
                            let line = record::encode_header(&games[i].0).unwrap();
                            Head { seq: 0, hash: Digest::of(line.as_bytes()) }
                        });
                        (games[i].0.game.clone(), head, events)
                    })
                    .collect();
                proptest::prop_assert_eq!(contents(&reopened), expected);
            }
        }
    }
}
