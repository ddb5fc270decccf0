//! Where the store is, and reading inputs the commands share.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use rollcall_core::digest::Digest;
use rollcall_core::log::{EventLog, LogError, OpenGameError};
use rollcall_core::record::{Header, Kind};
use rollcall_core::strict;
use rollcall_store::{Access, OpenError, OpenOptions, SledLog, Store};

/// A failure that exits with code 2: what is wrong, inside the context it
/// was found in (the file, the game, the step), which `main` prints once as
/// one chain, outermost first: `context: cause`.
///
/// It wraps an [`anyhow::Error`] (the chain of contexts) rather than being
/// one, so that the store's errors convert with the store named in them
/// (the `From` impls below) wherever `?` meets them.
#[derive(Debug)]
pub struct Fail(anyhow::Error);

impl Fail {
    /// A failure that `message` says all of.
    pub fn msg(message: impl std::fmt::Display + std::fmt::Debug + Send + Sync + 'static) -> Fail {
        Fail(anyhow::Error::msg(message))
    }

    /// This failure inside `context`.
    pub fn context(self, context: impl std::fmt::Display + Send + Sync + 'static) -> Fail {
        Fail(self.0.context(context))
    }

    /// The chain as users read it: each context, then the cause, joined by ": ".
    pub fn message(&self) -> String {
        format!("{:#}", self.0)
    }
}

impl std::fmt::Display for Fail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

/// Context for a failure, as [`anyhow::Context`] gives it, for every error
/// that converts into a [`Fail`].
pub trait Context<T> {
    /// The failure, inside `context`.
    fn context(self, context: impl std::fmt::Display + Send + Sync + 'static) -> Result<T, Fail>;

    /// The failure, inside the context `context()` makes (only on failure).
    fn with_context<C: std::fmt::Display + Send + Sync + 'static>(self, context: impl FnOnce() -> C)
        -> Result<T, Fail>;
}

impl<T, E: Into<Fail>> Context<T> for Result<T, E> {
    fn context(self, context: impl std::fmt::Display + Send + Sync + 'static) -> Result<T, Fail> {
        self.map_err(|e| e.into().context(context))
    }

    fn with_context<C: std::fmt::Display + Send + Sync + 'static>(
        self,
        context: impl FnOnce() -> C,
    ) -> Result<T, Fail> {
        self.map_err(|e| e.into().context(context()))
    }
}

impl From<std::io::Error> for Fail {
    fn from(e: std::io::Error) -> Self {
        Fail(e.into())
    }
}

/// The store this process opened, named in storage errors.
static STORE: OnceLock<PathBuf> = OnceLock::new();
/// `--wait`: how long to wait for another process to let go of the store.
static WAIT: OnceLock<Duration> = OnceLock::new();

/// Sets `--wait` for every store this process opens (once, from `main`).
pub fn set_wait(wait: Duration) {
    let _ = WAIT.set(wait);
}

/// A game that cannot be made because the store has one of that id, said the
/// same by every command that makes games.
pub fn already_stored(game: &str, dir: &Path) -> String {
    format!("a game {game:?} is already in the store {}", dir.display())
}

/// A store error, naming the store it comes from.
fn in_store(e: &LogError) -> String {
    let Some(dir) = STORE.get() else { return e.to_string() };
    match e {
        LogError::UnknownGame(game) => {
            format!("no game {game:?} in the store {} (rollcall games lists them)", dir.display())
        }
        LogError::GameExists(game) => already_stored(game, dir),
        other => format!("{other} (the store at {})", dir.display()),
    }
}

impl From<LogError> for Fail {
    fn from(e: LogError) -> Self {
        Fail::msg(in_store(&e))
    }
}

impl From<OpenError> for Fail {
    fn from(e: OpenError) -> Self {
        Fail::msg(e.to_string())
    }
}

impl From<OpenGameError> for Fail {
    fn from(e: OpenGameError) -> Self {
        match (e, STORE.get()) {
            (OpenGameError::Log(l), _) => Fail::msg(in_store(&l)),
            (other, Some(dir)) => fail!("{other} (the store at {})", dir.display()),
            (other, None) => Fail::msg(other.to_string()),
        }
    }
}

impl From<rollcall_store::file::FileError> for Fail {
    fn from(e: rollcall_store::file::FileError) -> Self {
        Fail::msg(e.to_string())
    }
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
            let _ = STORE.set(PathBuf::from(without_password(url)));
            return Ok(Store::open(Path::new(url))?);
        }
        StoreSpec::Sled(dir) => dir,
    };
    let _ = STORE.set(dir.clone());
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
    let Some(dir) = STORE.get() else { return Vec::new() };
    open_read(&StoreSpec::new(Some(dir.clone()))).and_then(|log| Ok(log.games()?)).unwrap_or_default()
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

/// `rollcall store migrate`: creates or upgrades rollcall's tables in the
/// PostgreSQL database `--store` names.
pub fn migrate(db: &StoreSpec) -> Result<crate::output::Said, Fail> {
    let StoreSpec::Postgres(url) = db else {
        return Err(Fail::msg(
            "store migrate: give the database with --store postgres://… (a sled store needs no migration)",
        ));
    };
    let applied = rollcall_store::pg_log::migrate(url)?;
    let version = rollcall_store::pg_log::schema_version();
    let mut lines: Vec<String> = applied.iter().map(|(v, name)| format!("applied migration {v:03} ({name})")).collect();
    lines.push(if applied.is_empty() {
        format!("the database is at rollcall's schema version {version} already: nothing to do")
    } else {
        format!("the database is at rollcall's schema version {version}")
    });
    let applied: Vec<_> = applied.iter().map(|(v, n)| serde_json::json!({"version": v, "name": n})).collect();
    Ok(crate::output::Said::done(lines, serde_json::json!({"ok": true, "applied": applied, "version": version})))
}

/// What became of one game in `store copy`.
enum Outcome {
    Copied(rollcall_core::game::Verified),
    Present(u64),
    /// A game a dice server waits on for its shares: no events yet.
    Waiting(crate::serve::service::CarriedWaiting),
}

/// `rollcall store copy`: every game named (or every game of the source)
/// verified as it is read, written to the target as one creation (whole or
/// not at all), and opened again there, its chain checked to the same head.
pub fn copy(from: &str, to: &str, games: &[String], mode: crate::output::Mode) -> Result<std::process::ExitCode, Fail> {
    if !rollcall_store::pg_log::is_url(from) && !Path::new(from).is_dir() {
        return Err(fail!("--from {from}: no store there (a sled directory or a postgres:// URL)"));
    }
    let source = Store::open(Path::new(from))?;
    let target = open(&StoreSpec::new(Some(PathBuf::from(to))))?;
    // A game named that a server still waits on for its shares has no
    // events to copy: it is carried with the other waiting games, after.
    let ids = if games.is_empty() {
        source.games()?
    } else {
        let mut named = Vec::new();
        for id in games {
            if has_game(&source, id)? || source.note(&crate::serve::service::waiting_note(id))?.is_none() {
                named.push(id.clone());
            }
        }
        named
    };
    // Each game is said as it is copied; the JSON document comes at the end.
    let mut stream = crate::output::Stream::kept(mode, "games");
    let (mut copied, mut said) = (0, 0);
    for id in &ids {
        let game = copy_game(&source, &target, id).with_context(|| format!("game {id:?}"))?;
        copied += usize::from(matches!(game, Outcome::Copied(_)));
        said += 1;
        stream.push(&(id.as_str(), game))?;
    }
    for waiting in crate::serve::service::carry_waiting(&source, &target, games).map_err(|m| fail!("{m}"))? {
        copied += usize::from(!waiting.present);
        said += 1;
        stream.push(&(waiting.game.clone().as_str(), Outcome::Waiting(waiting)))?;
    }
    let summary = format!("{said} games: {copied} copied, {} there already", said - copied);
    stream.finish(&[summary], serde_json::json!({"ok": true}))?;
    Ok(std::process::ExitCode::SUCCESS)
}

impl crate::output::Item for (&str, Outcome) {
    fn text(&self) -> String {
        match self {
            (id, Outcome::Copied(v)) => format!("copied {id}: {} events, verified, head {}", v.events, v.head),
            (id, Outcome::Present(seq)) => {
                format!("skipped {id}: the target holds it already, at the same head (seq {seq})")
            }
            (id, Outcome::Waiting(w)) if w.present => {
                format!("skipped {id}: the target's server waits on it already, with the same shares")
            }
            (id, Outcome::Waiting(w)) => format!(
                "copied {id}: waiting for its sides' shares ({} of {} given); a server over the target takes the rest",
                w.given, w.sides
            ),
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            (id, Outcome::Copied(v)) => {
                serde_json::json!({"game": id, "copied": true, "events": v.events, "head": v.head.to_string()})
            }
            (id, Outcome::Present(seq)) => serde_json::json!({"game": id, "copied": false, "events": seq}),
            (id, Outcome::Waiting(w)) => serde_json::json!({
                "game": id, "copied": !w.present, "events": 0, "waiting_for_shares": true,
                "shares_given": w.given, "sides": w.sides
            }),
        }
    }
}

/// A sealed game's server chain, token hashes and key, into the target.
fn carry_sealed(
    source: &dyn EventLog,
    target: &dyn EventLog,
    header: &rollcall_core::record::Header,
) -> Result<(), Fail> {
    crate::serve::service::carry_sealed(source, target, header).map_err(|m| fail!("its server's secrets: {m}"))
}

/// The notes the source keeps on a play-by-email game (the side it plays,
/// the head the opponent acknowledged, the handshake, forks kept as
/// evidence), into the target. A note the target holds already under the
/// same key with another value is refused: the game is not copied.
fn carry_notes(source: &dyn EventLog, target: &dyn EventLog, id: &str) -> Result<(), Fail> {
    for (key, value) in rollcall_core::pbem::exchange::notes(source, id)? {
        if !target.swap_note(&key, None, Some(&value))? && target.note(&key)?.as_deref() != Some(&value[..]) {
            return Err(fail!("the target keeps another note {key:?} on this game: nothing was copied"));
        }
    }
    Ok(())
}

fn copy_game(source: &dyn EventLog, target: &(dyn EventLog + Sync), id: &str) -> Result<Outcome, Fail> {
    let header = source.header(id)?;
    // Up to the head read now: a server appending meanwhile is not copied past it.
    let head = source.head(id)?;
    if has_game(target, id)? {
        let theirs = target.head(id)?;
        if theirs != head || target.header(id)? != header {
            return Err(fail!(
                "the target holds another state of this game (seq {} {}, the source is at seq {} {}): nothing was written",
                theirs.seq,
                theirs.hash.short(),
                head.seq,
                head.hash.short()
            ));
        }
        carry_sealed(source, target, &header)?;
        return Ok(Outcome::Present(head.seq));
    }
    let fails =
        |f: rollcall_core::game::VerifyFailure| fail!("does not verify in the source, so it was not copied: {f}");
    let mut verifier =
        rollcall_core::game::Verifier::new(&header, rollcall_core::registry::builtin()).map_err(fails)?;
    let verified = Creation::make(target, &header, |creation| {
        for event in source.events(id, 1)? {
            let event = event?;
            if event.seq > head.seq {
                break;
            }
            verifier.push(&event).map_err(fails)?;
            let line = rollcall_core::record::encode_event(&event).map_err(|e| fail!("seq {}: {e}", event.seq))?;
            creation.push(line)?;
        }
        let (verified, _) = verifier.finish().map_err(fails)?;
        if verified.head != head.hash {
            return Err(fail!(
                "the source's events end at {}, its head says {}: not copied",
                verified.head.short(),
                head.hash.short()
            ));
        }
        // Before the game shows in the target: a server there finds it whole,
        // and a player goes on with it as the side he plays.
        carry_sealed(source, target, &header)?;
        carry_notes(source, target, id)?;
        creation.commit()?;
        Ok(verified)
    })?;
    let copy = rollcall_core::log::open_game(target, id, None, rollcall_core::registry::builtin())?;
    if copy.head() != head.hash {
        return Err(fail!(
            "read back from the target, the copy ends at {}, not {}",
            copy.head().short(),
            head.hash.short()
        ));
    }
    Ok(Outcome::Copied(verified))
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
    batch: Vec<String>,
    send: Option<std::sync::mpsc::SyncSender<Written>>,
    writer: Option<std::thread::ScopedJoinHandle<'s, Result<(), Fail>>>,
}

/// What a creation's writer is handed.
enum Written {
    /// The next batch of record lines, whole decisions.
    Lines(Vec<String>),
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
        let head = log.begin(header)?.hash;
        let game = header.game.as_str();
        std::thread::scope(|scope| {
            // Two batches ahead at most: memory stays bounded by the batches.
            let (send, batches) = std::sync::mpsc::sync_channel(2);
            let writer = std::thread::Builder::new()
                .name("creation writer".into())
                .spawn_scoped(scope, move || write_batches(log, game, head, batches))
                .map_err(|e| {
                    let _ = log.abandon(game);
                    fail!("cannot start a thread to write the game: {e}")
                })?;
            let mut creation = Creation { batch: Vec::new(), send: Some(send), writer: Some(writer) };
            let made = make(&mut creation);
            // Uncommitted: the writer, its channel closed, abandons the game.
            creation.send = None;
            let written = creation.join();
            made.and_then(|made| written.map(|()| made))
        })
    }

    /// Adds the next event's record line. A batch is handed to the writer
    /// once it is full and the next decision (or checkpoint) begins: it
    /// holds whole decisions.
    pub(crate) fn push(&mut self, line: String) -> Result<(), Fail> {
        let starts =
            matches!(rollcall_core::record::line_kind(line.as_bytes()), Some(Kind::Decision | Kind::Checkpoint));
        if starts && self.batch.len() >= RUN_BATCH_EVENTS {
            let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(RUN_BATCH_EVENTS + 64));
            self.hand(Written::Lines(batch))?;
        }
        self.batch.push(line);
        Ok(())
    }

    /// Writes what is left and makes the game visible, whole, durably.
    pub(crate) fn commit(&mut self) -> Result<(), Fail> {
        if !self.batch.is_empty() {
            let batch = std::mem::take(&mut self.batch);
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
    mut head: Digest,
    batches: std::sync::mpsc::Receiver<Written>,
) -> Result<(), Fail> {
    let written = (|| {
        for written in batches {
            match written {
                Written::Lines(lines) => head = log.append_pending_lines(game, &head, &lines)?.hash,
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
mod fail_tests {
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

    #[test]
    fn a_failure_prints_its_contexts_outermost_first_and_its_cause_once() {
        let read: Result<(), std::io::Error> = Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"));
        let fail = read.context("scenario.json").context("game \"friday\"").unwrap_err();
        assert_eq!(fail.message(), "game \"friday\": scenario.json: no such file");
        assert_eq!(fail.to_string(), fail.message());
        let cause = Err::<(), _>(fail!("line {}: bad", 3)).with_context(|| "a.jsonl").unwrap_err();
        assert_eq!(cause.message(), "a.jsonl: line 3: bad");
    }
}
