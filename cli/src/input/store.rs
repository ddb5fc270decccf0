//! Where the store is, opening it (a reading command opens only a store
//! that exists), the inputs the commands share (a file, standard input),
//! who decides in this store and the snapshot kept after a write, and
//! [`Creation`]: a game being created, whole or not at all.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::fail::{Context, Fail};
use std::time::Duration;

use rollcall_core::chain::ChainedLines;
use rollcall_core::game::Game;
use rollcall_core::log::{EventLog, LogError};
use rollcall_core::pbem::exchange;
use rollcall_core::record::Header;
use rollcall_core::strict;
use rollcall_store::{Access, OpenOptions, SledLog, Store};

/// `--wait`: how long to wait for another process to let go of the store.
static WAIT: OnceLock<Duration> = OnceLock::new();

/// Sets `--wait` for every store this process opens (once, from `main`).
pub fn set_wait(wait: Duration) {
    let _ = WAIT.set(wait);
}

/// Where the store is: resolved once, in `main`, from `--store`, `--db` or
/// the environment, else the default ([`default_db`]), and passed to every
/// command that reads or writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// A sled directory.
    Sled(PathBuf),
    /// A PostgreSQL database, by its `postgres://` URL.
    Postgres(String),
}

impl StoreSpec {
    /// The store at `named` (a directory or a database URL), else the default.
    pub fn new(named: Option<PathBuf>) -> StoreSpec {
        let location = named.unwrap_or_else(default_db);
        match location.to_str().filter(|l| rollcall_store::pg_log::is_url(l)) {
            Some(url) => StoreSpec::Postgres(url.to_string()),
            None => StoreSpec::Sled(location),
        }
    }
}

/// The store's location as messages show it (a database URL without its
/// password).
pub fn dir(db: &StoreSpec) -> PathBuf {
    match db {
        StoreSpec::Sled(dir) => dir.clone(),
        StoreSpec::Postgres(url) => PathBuf::from(without_password(url)),
    }
}

/// The default store: `$XDG_DATA_HOME/rollcall/db`, else
/// `~/.local/share/rollcall/db`, else `./.rollcall/db`.
pub fn default_db() -> PathBuf {
    if let Some(data) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(data).join("rollcall/db");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(home).join(".local/share/rollcall/db");
    }
    PathBuf::from(".rollcall/db")
}

/// Opens the store at `db`: a PostgreSQL database, or a sled directory,
/// created if need be when writing.
fn open_as(db: &StoreSpec, access: Access) -> Result<Store, Fail> {
    let dir = match db {
        StoreSpec::Postgres(url) => {
            crate::fail::name_store(PathBuf::from(without_password(url)));
            return Ok(Store::open(Path::new(url))?);
        }
        StoreSpec::Sled(dir) => dir,
    };
    crate::fail::name_store(dir.clone());
    let wait = WAIT.get().copied().unwrap_or(Duration::from_secs(5));
    if access == Access::Write {
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| fail!("cannot create the store's directory {}: {e}", parent.display()))?;
        }
    }
    let log = SledLog::open_with(dir, OpenOptions { access, wait })?;
    if let Some(copy) = log.read_copy() {
        eprintln!(
            "note: rollcall cannot write the store at {} (a read-only filesystem, no permission, or a full disk), \
             and sled cannot open a database without writing to it: reading a private copy in {} instead",
            dir.display(),
            copy.display()
        );
    }
    Ok(Store::Sled(Box::new(log)))
}

/// A database URL as errors may show it: without the password.
fn without_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &url[scheme + 3..at];
            let user = user.split(':').next().unwrap_or_default();
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

/// Whether the store at `db` is there: a database is taken to be; a sled
/// directory when it exists.
pub fn exists(db: &StoreSpec) -> bool {
    match db {
        StoreSpec::Sled(dir) => dir.exists(),
        StoreSpec::Postgres(_) => true,
    }
}

/// Opens the store at `db` to write, creating it if need be.
pub fn open(db: &StoreSpec) -> Result<Store, Fail> {
    open_as(db, Access::Write)
}

/// Opens the store at `db` only to read: it must exist.
pub fn open_read(db: &StoreSpec) -> Result<Store, Fail> {
    open_as(db, Access::Read)
}

/// The game ids of the store this process opened (none when it opened
/// none, or cannot open it again): for "did you mean" after a failure.
pub fn game_ids() -> Vec<String> {
    let Some(dir) = crate::fail::store_named() else { return Vec::new() };
    open_read(&StoreSpec::new(Some(dir.to_path_buf()))).and_then(|log| Ok(log.games()?)).unwrap_or_default()
}

/// The bytes of an input: a file, or standard input for `-`, with the name
/// to give it in messages.
pub fn read_input(source: &str) -> Result<(String, Vec<u8>), Fail> {
    if source == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).context("<stdin>")?;
        Ok(("<stdin>".into(), bytes))
    } else {
        Ok((source.to_string(), read_bytes(Path::new(source))?))
    }
}

/// A text input: a file, or standard input for `-`; bytes that are not
/// UTF-8 are an error naming the line and byte offset.
pub fn read_text(source: &str) -> Result<String, Fail> {
    let (name, bytes) = read_input(source)?;
    strict::utf8(&bytes).map_err(|e| Fail::msg(e.in_file(&name)))?;
    Ok(String::from_utf8(bytes).expect("checked"))
}

/// A file's bytes.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, Fail> {
    std::fs::read(path).with_context(|| path.display().to_string())
}

/// A text file; bytes that are not UTF-8 are an error naming the line and
/// byte offset.
pub fn read_file(path: &Path) -> Result<String, Fail> {
    let bytes = read_bytes(path)?;
    strict::utf8(&bytes).map_err(|e| Fail::msg(e.in_file(&path.display().to_string())))?;
    Ok(String::from_utf8(bytes).expect("checked"))
}

/// Whether `id` names a game in the store.
pub fn has_game(log: &dyn EventLog, id: &str) -> Result<bool, Fail> {
    match log.head(id) {
        Ok(_) => Ok(true),
        Err(LogError::UnknownGame(_)) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// How many events a stored game may grow past its kept snapshot before
/// a command that wrote it keeps a new one.
const SNAPSHOT_EVERY: u64 = 256;

/// Keeps a snapshot of a game a command just wrote, at the store's head, so
/// that the next `play` (and `state`) need not fold the whole game. It is a
/// cache: failing to keep one costs the next command a fold, nothing else.
pub fn keep_snapshot(log: &dyn EventLog, id: &str, game: &Game) {
    let _ = rollcall_core::log::keep_snapshot(log, id, game, SNAPSHOT_EVERY);
}

/// Who decides in this store: in a play-by-email game, this store's side,
/// while it holds the turn.
pub fn decider(log: &dyn EventLog, game: &Game) -> Result<Option<String>, Fail> {
    exchange::decider(log, game).map_err(|e| Fail::msg(e.to_string()))
}

/// How many events a game being created writes at a time (whole decisions).
pub(crate) const RUN_BATCH_EVENTS: usize = 2048;

/// A game being created, by `run`, `import` and `store copy` alike: its
/// events' record lines go, whole decisions at a time, into the store in
/// batches, where they stay invisible until [`Creation::commit`].
///
/// The batches are written on a thread of their own while the command
/// makes the next (decides it, or verifies it): the store's share of the
/// work, most of a creation's, runs beside the rest. A creation the
/// command leaves uncommitted (an error on the way, a refused decision) is
/// abandoned: nothing of it stays; a process killed before the commit
/// leaves a creation no reader sees, which the next creation of the same
/// id clears.
pub(crate) struct Creation<'s> {
    game: &'s str,
    /// The lines not yet handed to the writer, chained on from the last
    /// handed (each checked, or made by the kernel, on this thread).
    batch: ChainedLines,
    send: Option<std::sync::mpsc::SyncSender<Written>>,
    writer: Option<std::thread::ScopedJoinHandle<'s, Result<(), Fail>>>,
}

/// What a creation's writer is handed.
enum Written {
    /// The next batch of record lines, whole decisions, chained.
    Lines(ChainedLines),
    /// Every batch is in: make the game visible.
    Commit,
}

impl Creation<'_> {
    /// Begins creating the game `header` names in `log`, and has `make`
    /// make it: push its events' lines and commit. Whatever `make` leaves
    /// uncommitted is abandoned.
    pub(crate) fn make<T>(
        log: &(dyn EventLog + Sync),
        header: &Header,
        make: impl FnOnce(&mut Creation<'_>) -> Result<T, Fail>,
    ) -> Result<T, Fail> {
        let head = log.begin(header)?;
        let game = header.game.as_str();
        std::thread::scope(|scope| {
            // Two batches ahead at most: memory stays bounded by the batches.
            let (send, batches) = std::sync::mpsc::sync_channel(2);
            let writer = std::thread::Builder::new()
                .name("creation writer".into())
                .spawn_scoped(scope, move || write_batches(log, game, batches))
                .map_err(|e| {
                    let _ = log.abandon(game);
                    fail!("cannot start a thread to write the game: {e}")
                })?;
            let batch = ChainedLines::new(head);
            let mut creation = Creation { game, batch, send: Some(send), writer: Some(writer) };
            let made = make(&mut creation);
            // Uncommitted: the writer, its channel closed, abandons the game.
            creation.send = None;
            let written = creation.join();
            made.and_then(|made| written.map(|()| made))
        })
    }

    /// Adds the next event's record line, checked to follow the last.
    pub(crate) fn push(&mut self, line: String) -> Result<(), Fail> {
        self.batch.push_line(line).map_err(|e| e.refusing(self.game))?;
        self.hand_when_full()
    }

    /// Adds a decision's lines, as the game that played it chained them.
    pub(crate) fn push_chained(&mut self, lines: ChainedLines) -> Result<(), Fail> {
        self.batch.append(lines).map_err(|e| e.refusing(self.game))?;
        self.hand_when_full()
    }

    /// The lines not yet handed, to add lines to as the kernel proves them
    /// (then [`Creation::hand_when_full`]).
    pub(crate) fn batch(&mut self) -> &mut ChainedLines {
        &mut self.batch
    }

    /// Hands the writer the batch's whole decisions once it is full: the
    /// last decision, which more lines may follow, waits for the next.
    pub(crate) fn hand_when_full(&mut self) -> Result<(), Fail> {
        if self.batch.len() < RUN_BATCH_EVENTS {
            return Ok(());
        }
        let whole = self.batch.take_whole();
        if whole.is_empty() {
            return Ok(());
        }
        self.hand(Written::Lines(whole))
    }

    /// Writes what is left and makes the game visible, whole, durably.
    pub(crate) fn commit(&mut self) -> Result<(), Fail> {
        if !self.batch.is_empty() {
            let batch = self.batch.take();
            self.hand(Written::Lines(batch))?;
        }
        self.hand(Written::Commit)?;
        self.send = None;
        self.join()
    }

    /// Hands the writer `written`; if it has stopped, its failure.
    fn hand(&mut self, written: Written) -> Result<(), Fail> {
        let handed = self.send.as_ref().map(|send| send.send(written).is_ok());
        match handed {
            Some(true) => Ok(()),
            Some(false) => self.join().and(Err(fail!("the game's writer stopped"))),
            None => Err(fail!("the game is committed or abandoned already")),
        }
    }

    /// Waits for the writer to end: what it made of the batches.
    fn join(&mut self) -> Result<(), Fail> {
        match self.writer.take().map(|writer| writer.join()) {
            None => Ok(()),
            Some(Ok(written)) => written,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
        }
    }
}

/// A creation's writer: appends each batch to the game being created, and
/// commits it when told; a failure, or a channel closed with no commit,
/// abandons the game.
fn write_batches(
    log: &(dyn EventLog + Sync),
    game: &str,
    batches: std::sync::mpsc::Receiver<Written>,
) -> Result<(), Fail> {
    let written = (|| {
        for written in batches {
            match written {
                Written::Lines(lines) => drop(log.append_pending_lines(game, &lines)?),
                Written::Commit => return log.commit(game).map(Some),
            }
        }
        Ok(None)
    })();
    match written {
        Ok(Some(_)) => Ok(()),
        Ok(None) => {
            let _ = log.abandon(game);
            Ok(())
        }
        Err(e) => {
            let _ = log.abandon(game);
            Err(e.into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_store_is_a_database_by_its_url_else_a_directory() {
        let url = "postgres://league:secret@db.example/rollcall";
        assert_eq!(StoreSpec::new(Some(url.into())), StoreSpec::Postgres(url.into()));
        assert_eq!(dir(&StoreSpec::new(Some(url.into()))), PathBuf::from("postgres://league@db.example/rollcall"));
        assert_eq!(StoreSpec::new(Some("games/db".into())), StoreSpec::Sled("games/db".into()));
        assert_eq!(StoreSpec::new(None), StoreSpec::Sled(default_db()));
        assert!(exists(&StoreSpec::Postgres(url.into())));
        assert!(!exists(&StoreSpec::Sled("/nonexistent/rollcall/db".into())));
    }
}
