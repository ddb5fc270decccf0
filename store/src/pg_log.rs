//! The event log on PostgreSQL: a league's store, shared by several
//! `rollcall serve` processes (and by every command, `--store URL`).
//!
//! **Schema** (`store/migrations/`, applied by [`migrate`]): `rollcall_games`
//! (game → canonical header line, head seq and hash, whether visible),
//! `rollcall_events` (game, seq → hash and the canonical event line, byte
//! for byte; primary key (game, seq)), `rollcall_notes` and
//! `rollcall_secrets` (key → bytes). Plain SQL only: tables, primary and
//! foreign keys, `BEGIN`/`COMMIT`, conditional `UPDATE`s and their row
//! counts, `LIKE … ESCAPE`; no extension, no stored procedure, no advisory
//! lock, no `ON CONFLICT`, so that CockroachDB or YugabyteDB can take its
//! place.
//!
//! **An append is one transaction**: read the head; refuse a stale one;
//! check that the events chain from it (before anything is written);
//! `UPDATE rollcall_games SET seq, hash WHERE game = $1 AND seq = $old AND
//! hash = $expected`, which must change exactly one row; insert the events;
//! commit. Two writers on one head: under read committed the second
//! `UPDATE` waits for the first to commit and then matches no row; under
//! repeatable read or serializable the database aborts one with a
//! serialization failure. Either way the loser runs again, finds the head
//! moved and is refused with [`LogError::StaleHead`]; and the key (game,
//! seq) forbids two events at one place whatever the isolation level.
//!
//! **A game appears whole or not at all**: `begin` inserts its row with
//! `visible = false`; `append_pending` appends to it; `commit` is one
//! `UPDATE … SET visible = TRUE`. Every reader asks for visible games only.
//!
//! **Durability**: each write is committed before it returns (the database's
//! `synchronous_commit`, on by default, makes a commit durable; the database
//! itself groups the flushes of concurrent commits), so [`EventLog::sync`]
//! has nothing left to do.
//!
//! **Reconnects**: a small pool of connections (16 by default). An operation
//! whose connection breaks (the database restarts, the network drops, the
//! server is shut down) is run again on a new connection, after pauses that
//! grow to a second, for up to 30 seconds; a serialization failure or a
//! lost race on a key is run again at once. Every operation can be run
//! again: an append whose connection broke during its commit may have
//! landed, so a retried append that finds its own last event in place
//! answers as if it had just written it.
//!
//! The driver is the synchronous `postgres` crate (the same maintainers'
//! `tokio-postgres`, driven by a small runtime of its own per connection):
//! the `EventLog` contract is synchronous, and so is every command but
//! `serve`, which calls the log from its blocking pool. It must not be
//! called from inside a tokio runtime's worker thread.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, Config, NoTls, Row, Statement};
use rollcall_core::chain::ChainedLines;
use rollcall_core::digest::Digest;
use rollcall_core::log::{check_append, EventLog, Head, LogError};
use rollcall_core::record::{self, Event, Header};

/// The schema's migrations, in order: version, name, SQL.
pub const MIGRATIONS: &[(i32, &str, &str)] = &[(1, "event log", include_str!("../migrations/001_event_log.sql"))];

/// The schema version this build reads and writes.
pub fn schema_version() -> i32 {
    MIGRATIONS.last().map_or(0, |m| m.0)
}

/// Whether a store location names a PostgreSQL database.
pub fn is_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// How the log keeps its connections.
#[derive(Debug, Clone)]
pub struct Options {
    /// The most connections open at once.
    pub connections: usize,
    /// How long an operation tries again while the database cannot be reached.
    pub retry_for: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options { connections: 16, retry_for: Duration::from_secs(30) }
    }
}

/// A connection with the statements it has prepared.
struct Conn {
    client: Client,
    statements: HashMap<String, Statement>,
}

type Params<'a> = [&'a (dyn ToSql + Sync)];

impl Conn {
    fn statement(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql)?;
        self.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }

    fn execute(&mut self, sql: &str, params: &Params) -> Result<u64, postgres::Error> {
        let s = self.statement(sql)?;
        self.client.execute(&s, params)
    }

    fn query(&mut self, sql: &str, params: &Params) -> Result<Vec<Row>, postgres::Error> {
        let s = self.statement(sql)?;
        self.client.query(&s, params)
    }

    fn query_opt(&mut self, sql: &str, params: &Params) -> Result<Option<Row>, postgres::Error> {
        let s = self.statement(sql)?;
        self.client.query_opt(&s, params)
    }
}

/// Why one attempt at an operation stopped.
enum Failure {
    /// The answer: the operation is refused (stale head, unknown game…).
    Log(LogError),
    /// The database's error: tried again or reported, by its class.
    Db(postgres::Error),
    /// A conditional write matched no row: another writer got there first.
    /// Run again (and then refused with what the other writer left).
    Moved,
}

impl From<postgres::Error> for Failure {
    fn from(e: postgres::Error) -> Self {
        Failure::Db(e)
    }
}

impl From<LogError> for Failure {
    fn from(e: LogError) -> Self {
        Failure::Log(e)
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Class {
    /// The connection is gone: reconnect and run again.
    Broken,
    /// A race lost inside the database: run again at once.
    Conflict,
    /// Anything else: report it.
    Fatal,
}

fn class(e: &postgres::Error) -> Class {
    if let Some(code) = e.code() {
        return if [&SqlState::T_R_SERIALIZATION_FAILURE, &SqlState::T_R_DEADLOCK_DETECTED, &SqlState::UNIQUE_VIOLATION]
            .contains(&code)
        {
            Class::Conflict
        } else if code.code().starts_with("08")
            || [
                &SqlState::ADMIN_SHUTDOWN,
                &SqlState::CRASH_SHUTDOWN,
                &SqlState::CANNOT_CONNECT_NOW,
                &SqlState::TOO_MANY_CONNECTIONS,
            ]
            .contains(&code)
        {
            Class::Broken
        } else {
            Class::Fatal
        };
    }
    let io = std::error::Error::source(e).is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some());
    if e.is_closed() || io || e.to_string().contains("timeout") {
        Class::Broken
    } else {
        Class::Fatal
    }
}

/// The database's error in words (its code and message, not just "db error").
fn words(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => match std::error::Error::source(e) {
            Some(source) => format!("{e}: {source}"),
            None => e.to_string(),
        },
    }
}

/// A location without its password, for messages.
fn shown(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((user, host)) => format!("{scheme}://{}@{host}{path}", user.split(':').next().unwrap_or_default()),
        None => url.to_string(),
    }
}

fn corrupt(game: &str, seq: u64, reason: impl Into<String>) -> LogError {
    LogError::Corrupt { game: game.to_string(), seq, reason: reason.into() }
}

fn backend(e: impl std::fmt::Display) -> LogError {
    LogError::Backend(e.to_string())
}

fn seq_param(seq: u64) -> i64 {
    i64::try_from(seq).expect("a seq below 2^63")
}

fn digest(game: &str, seq: u64, bytes: &[u8]) -> Result<Digest, LogError> {
    bytes.try_into().map(Digest).map_err(|_| corrupt(game, seq, "a stored hash is not 32 bytes"))
}

/// Runs `body` between `BEGIN` and `COMMIT`; rolls back when it fails.
fn transaction<T>(c: &mut Conn, body: impl FnOnce(&mut Conn) -> Result<T, Failure>) -> Result<T, Failure> {
    c.client.batch_execute("BEGIN")?;
    match body(c) {
        Ok(value) => {
            c.client.batch_execute("COMMIT")?;
            Ok(value)
        }
        Err(failure) => {
            c.client.batch_execute("ROLLBACK")?;
            Err(failure)
        }
    }
}

const GAME_ROW: &str = "SELECT visible, seq, hash FROM rollcall_games WHERE game = $1";
const HEAD: &str = "SELECT seq, hash FROM rollcall_games WHERE game = $1 AND visible = $2";
const HEADER: &str = "SELECT header FROM rollcall_games WHERE game = $1 AND visible = TRUE";
const INSERT_GAME: &str = "INSERT INTO rollcall_games (game, header, seq, hash, visible) VALUES ($1, $2, 0, $3, FALSE)";
const DELETE_GAME: &str = "DELETE FROM rollcall_games WHERE game = $1 AND visible = FALSE";
const DELETE_EVENTS: &str = "DELETE FROM rollcall_events WHERE game = $1";
const SHOW_GAME: &str = "UPDATE rollcall_games SET visible = TRUE WHERE game = $1 AND visible = FALSE";
const ADVANCE: &str = "UPDATE rollcall_games SET seq = $5, hash = $6 \
     WHERE game = $1 AND visible = $2 AND seq = $3 AND hash = $4";
const EVENT_HASH: &str = "SELECT hash FROM rollcall_events WHERE game = $1 AND seq = $2";
const PAGE: &str = "SELECT seq, line FROM rollcall_events WHERE game = $1 AND seq >= $2 ORDER BY seq LIMIT $3";
const GAMES: &str = "SELECT game FROM rollcall_games WHERE visible = $1";
const NOTE: &str = "SELECT value FROM rollcall_notes WHERE key = $1";
const NOTES: &str = "SELECT key, value FROM rollcall_notes WHERE key LIKE $1 ESCAPE '!'";
const UPDATE_NOTE: &str = "UPDATE rollcall_notes SET value = $2 WHERE key = $1";
const SWAP_NOTE: &str = "UPDATE rollcall_notes SET value = $3 WHERE key = $1 AND value = $2";
const INSERT_NOTE: &str = "INSERT INTO rollcall_notes (key, value) VALUES ($1, $2)";
const DELETE_NOTE: &str = "DELETE FROM rollcall_notes WHERE key = $1";
const DELETE_NOTE_IF: &str = "DELETE FROM rollcall_notes WHERE key = $1 AND value = $2";
const SECRET: &str = "SELECT value FROM rollcall_secrets WHERE key = $1";
const DELETE_SECRET: &str = "DELETE FROM rollcall_secrets WHERE key = $1";
/// Hides a game at the head its remover saw, taking its row: an append that
/// comes meanwhile waits, then finds no visible game.
const HIDE_AT: &str =
    "UPDATE rollcall_games SET visible = FALSE WHERE game = $1 AND visible = TRUE AND seq = $2 AND hash = $3";
const INSERT_SECRET: &str = "INSERT INTO rollcall_secrets (key, value) VALUES ($1, $2)";

/// Events read per query while streaming a game.
const PAGE_SIZE: i64 = 512;
/// Events inserted per statement.
const INSERT_ROWS: usize = 256;

/// An event's row: its seq, its hash and its record line.
type EventRow<'l> = (u64, Digest, &'l [u8]);

fn insert_events_sql(rows: usize) -> String {
    let values: Vec<String> =
        (0..rows).map(|i| format!("($1, ${}, ${}, ${})", 2 + 3 * i, 3 + 3 * i, 4 + 3 * i)).collect();
    format!("INSERT INTO rollcall_events (game, seq, hash, line) VALUES {}", values.join(", "))
}

#[derive(Default)]
struct Pool {
    idle: Vec<Conn>,
    open: usize,
}

/// A PostgreSQL database holding games.
pub struct PgLog {
    config: Config,
    shown: String,
    options: Options,
    pool: Mutex<Pool>,
    freed: Condvar,
}

/// The schema version a database holds (0: none).
fn version_of(client: &mut Client) -> Result<i32, postgres::Error> {
    match client.query_one("SELECT COALESCE(MAX(version), 0) FROM rollcall_schema", &[]) {
        Ok(row) => Ok(row.get(0)),
        Err(e) if e.code() == Some(&SqlState::UNDEFINED_TABLE) => Ok(0),
        Err(e) => Err(e),
    }
}

fn config_of(url: &str) -> Result<Config, LogError> {
    let mut config: Config = url.parse().map_err(|e| LogError::Backend(format!("--store {}: {e}", shown(url))))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    if config.get_application_name().is_none() {
        config.application_name("rollcall");
    }
    config.keepalives(true).keepalives_idle(Duration::from_secs(30));
    Ok(config)
}

fn connect(config: &Config, url: &str) -> Result<Client, LogError> {
    config
        .connect(NoTls)
        .map_err(|e| LogError::Backend(format!("cannot reach the database at {}: {}", shown(url), words(&e))))
}

/// Brings the database's schema up to this build's version, each missing
/// migration in its own transaction: the versions it applied.
pub fn migrate(url: &str) -> Result<Vec<(i32, &'static str)>, LogError> {
    let config = config_of(url)?;
    let mut client = connect(&config, url)?;
    let fail = |e: postgres::Error| LogError::Backend(format!("migrating {}: {}", shown(url), words(&e)));
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS rollcall_schema (version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL)",
        )
        .map_err(fail)?;
    let current = version_of(&mut client).map_err(fail)?;
    if current > schema_version() {
        return Err(LogError::Backend(format!(
            "the database at {} holds schema version {current}, newer than this rollcall's {}: upgrade rollcall",
            shown(url),
            schema_version()
        )));
    }
    let mut applied = Vec::new();
    for (version, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > current) {
        let mut tx = client.transaction().map_err(fail)?;
        tx.batch_execute(sql).map_err(fail)?;
        tx.execute("INSERT INTO rollcall_schema (version, name) VALUES ($1, $2)", &[version, name]).map_err(fail)?;
        tx.commit().map_err(fail)?;
        applied.push((*version, *name));
    }
    Ok(applied)
}

/// A log's connections are closed on a thread of their own. The postgres
/// client closes a connection by blocking on its own small runtime, which
/// panics on a thread that is driving an async runtime — and a dice server's
/// last reference to its store can be let go on such a thread as it stops
/// (a panic there, during cleanup, aborted the process).
impl Drop for PgLog {
    fn drop(&mut self) {
        let pool = self.pool.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
        let idle = std::mem::take(&mut pool.idle);
        if !idle.is_empty() {
            let _ = std::thread::spawn(move || drop(idle)).join();
        }
    }
}

impl PgLog {
    /// Connects to the database at `url` (`postgres://user:password@host:port/db`,
    /// or `postgresql:///db?host=/run/postgresql` for a unix socket); refused
    /// unless its schema is this build's (`rollcall store migrate`).
    pub fn open(url: &str) -> Result<PgLog, LogError> {
        PgLog::open_with(url, Options::default())
    }

    pub fn open_with(url: &str, options: Options) -> Result<PgLog, LogError> {
        let config = config_of(url)?;
        let mut client = connect(&config, url)?;
        let version = version_of(&mut client).map_err(|e| LogError::Backend(words(&e)))?;
        if version != schema_version() {
            return Err(LogError::Backend(format!(
                "the database at {} holds rollcall's schema version {version}, this rollcall needs {}: run `rollcall store migrate --store {}`",
                shown(url),
                schema_version(),
                shown(url)
            )));
        }
        let pool = Pool { idle: vec![Conn { client, statements: HashMap::new() }], open: 1 };
        Ok(PgLog { config, shown: shown(url), options, pool: Mutex::new(pool), freed: Condvar::new() })
    }

    /// Where this log is (without its password).
    pub fn location(&self) -> &str {
        &self.shown
    }

    fn checkout(&self) -> Result<Conn, postgres::Error> {
        let mut pool = self.pool.lock().expect("not poisoned");
        loop {
            if let Some(c) = pool.idle.pop() {
                return Ok(c);
            }
            if pool.open < self.options.connections.max(1) {
                pool.open += 1;
                break;
            }
            pool = self.freed.wait(pool).expect("not poisoned");
        }
        drop(pool);
        match self.config.connect(NoTls) {
            Ok(client) => Ok(Conn { client, statements: HashMap::new() }),
            Err(e) => {
                self.discard(false);
                Err(e)
            }
        }
    }

    fn checkin(&self, c: Conn) {
        if c.client.is_closed() {
            return self.discard(false);
        }
        self.pool.lock().expect("not poisoned").idle.push(c);
        self.freed.notify_one();
    }

    /// Forgets a connection (and, when the database went away, every idle
    /// one: they are as dead as this one).
    fn discard(&self, all_idle: bool) {
        let mut pool = self.pool.lock().expect("not poisoned");
        pool.open -= 1;
        if all_idle {
            let n = pool.idle.len();
            pool.idle.clear();
            pool.open -= n;
        }
        drop(pool);
        self.freed.notify_all();
    }

    /// Runs `op` on a connection until it answers: again on a new
    /// connection when its connection broke (for up to `retry_for`), again
    /// at once when it lost a race inside the database. `op` is told
    /// whether the attempt before it broke off, when it may have landed.
    fn run<T>(&self, mut op: impl FnMut(&mut Conn, bool) -> Result<T, Failure>) -> Result<T, LogError> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(20);
        let mut broke = false;
        let mut conflicts = 0;
        loop {
            let failure = match self.checkout() {
                Ok(mut c) => match op(&mut c, broke) {
                    Ok(value) => {
                        self.checkin(c);
                        return Ok(value);
                    }
                    Err(Failure::Log(e)) => {
                        self.checkin(c);
                        return Err(e);
                    }
                    Err(Failure::Moved) => {
                        self.checkin(c);
                        None
                    }
                    Err(Failure::Db(e)) => {
                        // Never reuse a connection an error left in doubt.
                        drop(c);
                        self.discard(class(&e) == Class::Broken);
                        Some(e)
                    }
                },
                Err(e) => Some(e),
            };
            match failure.as_ref().map_or(Class::Conflict, class) {
                Class::Broken if start.elapsed() < self.options.retry_for => {
                    if broke {
                        std::thread::sleep(pause);
                        pause = (pause * 2).min(Duration::from_secs(1));
                    }
                    broke = true;
                }
                Class::Conflict if conflicts < 100 => {
                    conflicts += 1;
                    broke = false;
                }
                _ => {
                    let why = failure.as_ref().map_or_else(|| "too many conflicting writers".to_string(), words);
                    return Err(LogError::Backend(format!("the database at {}: {why}", self.shown)));
                }
            }
        }
    }

    fn read_head(c: &mut Conn, game: &str, visible: bool) -> Result<Head, Failure> {
        let row = c.query_opt(HEAD, &[&game, &visible])?.ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
        let seq = row.get::<_, i64>(0) as u64;
        Ok(Head { seq, hash: digest(game, seq, row.get(1))? })
    }

    fn append_to(&self, game: &str, visible: bool, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        let mut lines = Vec::with_capacity(events.len());
        for e in events {
            lines.push(record::encode_event(e).map_err(backend)?);
        }
        let rows: Vec<EventRow> = events.iter().zip(&lines).map(|(e, line)| (e.seq, e.hash, line.as_bytes())).collect();
        let last = events.last().map(|e| Head { seq: e.seq, hash: e.hash });
        self.insert_rows(game, visible, expected, last, |head| Ok((check_append(game, head, events)?, rows.clone())))
    }

    /// Appends `lines`, checked already ([`ChainedLines`]), once the head
    /// is the one they chain from: each row's line is the line as given, not
    /// written again.
    fn append_lines(&self, game: &str, visible: bool, lines: &ChainedLines) -> Result<Head, LogError> {
        let (from, to) = (*lines.from(), *lines.to());
        let rows: Vec<EventRow> = lines.checked().map(|l| (l.seq, l.hash, l.line.as_bytes())).collect();
        self.insert_rows(game, visible, &from.hash, Some(to), |head| {
            if head.seq != from.seq {
                return Err(LogError::stale_head(game, &from.hash, head));
            }
            Ok((to, rows.clone()))
        })
    }

    /// Inserts the rows (seq, hash, line) `prepare` makes, checked, of the
    /// head read, in one transaction that moves the head only from
    /// `expected` to the one `prepare` names. `last`, the head the rows
    /// lead to, recognises an attempt that landed before its connection
    /// broke.
    fn insert_rows<'r>(
        &self,
        game: &str,
        visible: bool,
        expected: &Digest,
        last: Option<Head>,
        prepare: impl Fn(&Head) -> Result<(Head, Vec<EventRow<'r>>), LogError>,
    ) -> Result<Head, LogError> {
        self.run(|c, broke| {
            transaction(c, |c| {
                let head = PgLog::read_head(c, game, visible)?;
                if head.hash != *expected {
                    // The attempt before broke off during its commit, and landed.
                    if let Some(last) = last.filter(|_| broke) {
                        let row = c.query_opt(EVENT_HASH, &[&game, &seq_param(last.seq)])?;
                        if row.is_some_and(|r| r.get::<_, &[u8]>(0) == last.hash.as_bytes()) {
                            return Ok(last);
                        }
                    }
                    return Err(LogError::stale_head(game, expected, &head).into());
                }
                let (new, rows) = prepare(&head)?;
                let moved = c.execute(
                    ADVANCE,
                    &[
                        &game,
                        &visible,
                        &seq_param(head.seq),
                        &&head.hash.as_bytes()[..],
                        &seq_param(new.seq),
                        &&new.hash.as_bytes()[..],
                    ],
                )?;
                if moved != 1 {
                    return Err(Failure::Moved);
                }
                let seqs: Vec<i64> = rows.iter().map(|r| seq_param(r.0)).collect();
                let hashes: Vec<&[u8]> = rows.iter().map(|r| &r.1.as_bytes()[..]).collect();
                for start in (0..rows.len()).step_by(INSERT_ROWS) {
                    let end = (start + INSERT_ROWS).min(rows.len());
                    let mut params: Vec<&(dyn ToSql + Sync)> = Vec::with_capacity(1 + 3 * (end - start));
                    params.push(&game);
                    for i in start..end {
                        params.push(&seqs[i]);
                        params.push(&hashes[i]);
                        params.push(&rows[i].2);
                    }
                    c.execute(&insert_events_sql(end - start), &params)?;
                }
                Ok(new)
            })
        })
    }

    /// Removes a game (`rollcall games rm`) at the head `seen`: its events,
    /// its row (header and head), the notes and secrets named, in one
    /// transaction. A game that moved on since `seen` is refused with
    /// [`LogError::StaleHead`], removing nothing.
    pub fn remove_game(&self, game: &str, seen: &Head, notes: &[String], secrets: &[String]) -> Result<(), LogError> {
        self.run(|c, broke| {
            transaction(c, |c| {
                let hidden = c.execute(HIDE_AT, &[&game, &seq_param(seen.seq), &&seen.hash.as_bytes()[..]])?;
                if hidden != 1 {
                    return match PgLog::read_head(c, game, true) {
                        Ok(head) => Err(LogError::stale_head(game, &seen.hash, &head).into()),
                        // The attempt before broke off during its commit, and landed.
                        Err(Failure::Log(LogError::UnknownGame(_))) if broke => Ok(()),
                        Err(other) => Err(other),
                    };
                }
                c.execute(DELETE_EVENTS, &[&game])?;
                c.execute(DELETE_GAME, &[&game])?;
                for key in notes {
                    c.execute(DELETE_NOTE, &[key])?;
                }
                for key in secrets {
                    c.execute(DELETE_SECRET, &[key])?;
                }
                Ok(())
            })
        })
    }

    fn note_in(c: &mut Conn, key: &str) -> Result<Option<Vec<u8>>, Failure> {
        Ok(c.query_opt(NOTE, &[&key])?.map(|r| r.get(0)))
    }

    /// The lines of a page of a game's events from `from` on, each under
    /// its seq, as stored. A reader of lines counts them, so a seq missing
    /// between them is named here.
    fn read_lines(&self, game: &str, from: u64) -> Page<String> {
        let rows = self.run(|c, _| Ok(c.query(PAGE, &[&game, &seq_param(from), &PAGE_SIZE])?))?;
        let mut lines = Vec::with_capacity(rows.len());
        for (expected, row) in (from..).zip(rows) {
            let seq = row.get::<_, i64>(0) as u64;
            if seq != expected {
                return Err(corrupt(game, expected, "the event is missing"));
            }
            let line = std::str::from_utf8(row.get::<_, &[u8]>(1)).map_err(|e| corrupt(game, seq, e.to_string()))?;
            lines.push((seq, line.to_string()));
        }
        Ok(lines)
    }

    /// A page of a game's events from `from` on, parsed.
    fn read_page(&self, game: &str, from: u64) -> Page<Event> {
        let rows = self.run(|c, _| Ok(c.query(PAGE, &[&game, &seq_param(from), &PAGE_SIZE])?))?;
        let mut events = Vec::with_capacity(rows.len());
        for row in rows {
            let seq = row.get::<_, i64>(0) as u64;
            let line = std::str::from_utf8(row.get::<_, &[u8]>(1)).map_err(|e| corrupt(game, seq, e.to_string()))?;
            let event = record::parse_event(line).map_err(|e| corrupt(game, seq, e.to_string()))?;
            if event.seq != seq {
                return Err(corrupt(game, seq, format!("stored under seq {seq} but says seq {}", event.seq)));
            }
            events.push((seq, event));
        }
        Ok(events)
    }
}

/// A page of a game's events (or their lines), each under its seq.
type Page<T> = Result<Vec<(u64, T)>, LogError>;

/// A game's events (or their lines), read a page at a time (no connection
/// is held between pages: the log only grows, so pages read at different
/// moments agree).
struct Pages<'a, T> {
    log: &'a PgLog,
    game: String,
    next: u64,
    buffer: VecDeque<(u64, T)>,
    done: bool,
    /// Reads the page from a seq on.
    read: fn(&PgLog, &str, u64) -> Page<T>,
}

impl<'a, T> Pages<'a, T> {
    /// The pages of the stored game `game` from `from_seq` on, each read by
    /// `read`; refused for a game the store does not have.
    fn new(
        log: &'a PgLog,
        game: &str,
        from_seq: u64,
        read: fn(&PgLog, &str, u64) -> Page<T>,
    ) -> Result<Self, LogError> {
        log.head(game)?;
        Ok(Pages { log, game: game.to_string(), next: from_seq.max(1), buffer: VecDeque::new(), done: false, read })
    }
}

impl<T> Iterator for Pages<'_, T> {
    type Item = Result<T, LogError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.buffer.is_empty() && !self.done {
            match (self.read)(self.log, &self.game, self.next) {
                Ok(page) => {
                    self.done = (page.len() as i64) < PAGE_SIZE;
                    if let Some((last, _)) = page.last() {
                        self.next = last + 1;
                    }
                    self.buffer.extend(page);
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        self.buffer.pop_front().map(|(_, item)| Ok(item))
    }
}

impl EventLog for PgLog {
    fn begin(&self, header: &Header) -> Result<Head, LogError> {
        let line = record::encode_header(header).map_err(backend)?;
        let head = Head { seq: 0, hash: Digest::of(line.as_bytes()) };
        let game = header.game.as_str();
        self.run(|c, _| {
            transaction(c, |c| {
                if let Some(row) = c.query_opt(GAME_ROW, &[&game])? {
                    if row.get::<_, bool>(0) {
                        return Err(LogError::GameExists(game.to_string()).into());
                    }
                    c.execute(DELETE_EVENTS, &[&game])?;
                    c.execute(DELETE_GAME, &[&game])?;
                }
                c.execute(INSERT_GAME, &[&game, &line.as_bytes(), &&head.hash.as_bytes()[..]])?;
                Ok(head)
            })
        })
    }

    fn append_pending(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        self.append_to(game, false, expected, events)
    }

    /// Each line inserted as its row's line, as given.
    fn append_pending_lines(&self, game: &str, lines: &ChainedLines) -> Result<Head, LogError> {
        self.append_lines(game, false, lines)
    }

    fn commit(&self, game: &str) -> Result<Head, LogError> {
        self.run(|c, broke| {
            transaction(c, |c| {
                let row = c.query_opt(GAME_ROW, &[&game])?.ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
                let seq = row.get::<_, i64>(1) as u64;
                let head = Head { seq, hash: digest(game, seq, row.get(2))? };
                if row.get::<_, bool>(0) {
                    // Visible: made so by the attempt that broke off, or another's.
                    return if broke { Ok(head) } else { Err(LogError::GameExists(game.to_string()).into()) };
                }
                if c.execute(SHOW_GAME, &[&game])? != 1 {
                    return Err(Failure::Moved);
                }
                Ok(head)
            })
        })
    }

    fn abandon(&self, game: &str) -> Result<(), LogError> {
        self.run(|c, _| {
            transaction(c, |c| {
                let row = c.query_opt(GAME_ROW, &[&game])?;
                if row.is_some_and(|r| !r.get::<_, bool>(0)) {
                    c.execute(DELETE_EVENTS, &[&game])?;
                    c.execute(DELETE_GAME, &[&game])?;
                }
                Ok(())
            })
        })
    }

    fn incomplete(&self) -> Result<Vec<String>, LogError> {
        let mut games: Vec<String> =
            self.run(|c, _| Ok(c.query(GAMES, &[&false])?.iter().map(|r| r.get(0)).collect()))?;
        games.sort();
        Ok(games)
    }

    fn append(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        self.append_to(game, true, expected, events)
    }

    fn events<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<Event, LogError>> + 'a>, LogError> {
        Ok(Box::new(Pages::new(self, game, from_seq, PgLog::read_page)?))
    }

    /// The lines as stored (the canonical bytes, kept byte for byte).
    fn lines<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<String, LogError>> + 'a>, LogError> {
        Ok(Box::new(Pages::new(self, game, from_seq, PgLog::read_lines)?))
    }

    fn games(&self) -> Result<Vec<String>, LogError> {
        let mut games: Vec<String> =
            self.run(|c, _| Ok(c.query(GAMES, &[&true])?.iter().map(|r| r.get(0)).collect()))?;
        games.sort();
        Ok(games)
    }

    fn header(&self, game: &str) -> Result<Header, LogError> {
        let bytes: Vec<u8> = self
            .run(|c, _| Ok(c.query_opt(HEADER, &[&game])?.map(|r| r.get(0))))?
            .ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
        let line = std::str::from_utf8(&bytes).map_err(|e| corrupt(game, 0, format!("header: {e}")))?;
        record::parse_header(line, rollcall_core::registry::builtin())
            .map_err(|e| corrupt(game, 0, format!("header: {e}")))
    }

    fn head(&self, game: &str) -> Result<Head, LogError> {
        self.run(|c, _| PgLog::read_head(c, game, true))
    }

    fn note(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        self.run(|c, _| PgLog::note_in(c, key))
    }

    fn set_note(&self, key: &str, value: Option<&[u8]>) -> Result<(), LogError> {
        self.run(|c, _| {
            match value {
                None => {
                    c.execute(DELETE_NOTE, &[&key])?;
                }
                Some(v) => {
                    // Update, else insert; a writer that inserts first makes
                    // the insert fail on the key, and this runs again.
                    if c.execute(UPDATE_NOTE, &[&key, &v])? == 0 {
                        c.execute(INSERT_NOTE, &[&key, &v])?;
                    }
                }
            }
            Ok(())
        })
    }

    fn notes(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, LogError> {
        let pattern = format!("{}%", prefix.replace('!', "!!").replace('%', "!%").replace('_', "!_"));
        let mut notes: Vec<(String, Vec<u8>)> =
            self.run(|c, _| Ok(c.query(NOTES, &[&pattern])?.iter().map(|r| (r.get(0), r.get(1))).collect()))?;
        notes.sort();
        Ok(notes)
    }

    fn swap_note(&self, key: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> Result<bool, LogError> {
        self.run(|c, broke| {
            let done = match (old, new) {
                (None, None) => return Ok(PgLog::note_in(c, key)?.is_none()),
                (None, Some(v)) => match c.execute(INSERT_NOTE, &[&key, &v]) {
                    Ok(n) => n == 1,
                    Err(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => false,
                    Err(e) => return Err(e.into()),
                },
                (Some(o), Some(v)) => c.execute(SWAP_NOTE, &[&key, &o, &v])? == 1,
                (Some(o), None) => c.execute(DELETE_NOTE_IF, &[&key, &o])? == 1,
            };
            // The attempt before broke off, and may have swapped it.
            Ok(done || (broke && PgLog::note_in(c, key)?.as_deref() == new))
        })
    }

    fn secret(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        self.run(|c, _| Ok(c.query_opt(SECRET, &[&key])?.map(|r| r.get(0))))
    }

    fn set_secret(&self, key: &str, value: &[u8]) -> Result<Vec<u8>, LogError> {
        self.run(|c, _| match c.execute(INSERT_SECRET, &[&key, &value]) {
            Ok(_) => Ok(value.to_vec()),
            Err(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                let kept = c.query_opt(SECRET, &[&key])?.map(|r| r.get(0));
                kept.ok_or(Failure::Moved)
            }
            Err(e) => Err(e.into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_is_shown_without_its_password() {
        assert_eq!(
            shown("postgres://league:s3cret@db.example:5432/rollcall"),
            "postgres://league@db.example:5432/rollcall"
        );
        assert_eq!(shown("postgresql:///rollcall?host=/run/postgresql"), "postgresql:///rollcall?host=/run/postgresql");
        assert_eq!(shown("postgres://u@h/db"), "postgres://u@h/db");
    }

    #[test]
    fn events_are_inserted_by_numbered_rows() {
        assert_eq!(
            insert_events_sql(2),
            "INSERT INTO rollcall_events (game, seq, hash, line) VALUES ($1, $2, $3, $4), ($1, $5, $6, $7)"
        );
    }

    #[test]
    fn a_broken_connection_is_tried_again_and_a_refusal_is_not() {
        // A connection refused: nothing listens on port 1 of loopback.
        let Err(e) = Config::new().host("127.0.0.1").port(1).user("x").connect(NoTls) else {
            panic!("port 1 answered")
        };
        assert_eq!(class(&e), Class::Broken, "{e:?}");
    }

    #[test]
    fn a_url_names_postgres() {
        assert!(is_url("postgres://h/db") && is_url("postgresql:///db"));
        assert!(!is_url("/var/lib/rollcall") && !is_url("postgres"));
    }
}
