//! Where the store is, and reading inputs the commands share.

use std::path::{Path, PathBuf};

use rollcall_core::log::{EventLog, LogError, OpenGameError};
use rollcall_store::SledLog;

/// A failure that exits with code 2, its message naming what is wrong.
#[derive(Debug)]
pub struct Fail(pub String);

/// The store this process opened: every store error names it.
static OPENED: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// A store error, naming the store it comes from.
fn in_store(e: &LogError) -> String {
    let Some(dir) = OPENED.get() else { return e.to_string() };
    match e {
        LogError::UnknownGame(game) => {
            format!("no game {game:?} in the store {} (rollcall games lists them)", dir.display())
        }
        LogError::GameExists(game) => format!("a game {game:?} already exists in the store {}", dir.display()),
        other => format!("{other} (store {})", dir.display()),
    }
}

impl From<LogError> for Fail {
    fn from(e: LogError) -> Self {
        Fail(in_store(&e))
    }
}

impl From<OpenGameError> for Fail {
    fn from(e: OpenGameError) -> Self {
        match (e, OPENED.get()) {
            (OpenGameError::Log(l), _) => Fail(in_store(&l)),
            (other, Some(dir)) => Fail(format!("{other} (store {})", dir.display())),
            (other, None) => Fail(other.to_string()),
        }
    }
}

impl From<rollcall_store::file::FileError> for Fail {
    fn from(e: rollcall_store::file::FileError) -> Self {
        Fail(e.to_string())
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

/// The store's directory: `db`, or the default.
pub fn dir(db: &Option<PathBuf>) -> PathBuf {
    db.clone().unwrap_or_else(default_db)
}

/// Opens the store at `db` (or the default), creating it if need be: for
/// the commands that write games.
pub fn open(db: &Option<PathBuf>) -> Result<SledLog, Fail> {
    let dir = dir(db);
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| Fail(format!("cannot create the store {}: {}: {e}", dir.display(), parent.display())))?;
    }
    open_dir(dir)
}

/// Opens the store at `db` (or the default), which must exist: for the
/// commands that only read. A store that is not there is an error, and
/// nothing is created.
pub fn open_existing(db: &Option<PathBuf>) -> Result<SledLog, Fail> {
    let dir = dir(db);
    if !dir.is_dir() {
        let how = if db.is_some() { "--db or ROLLCALL_DB" } else { "the default store" };
        return Err(Fail(format!(
            "no store at {} ({how}): nothing has been stored there yet (run, new and import create a store)",
            dir.display()
        )));
    }
    open_dir(dir)
}

fn open_dir(dir: PathBuf) -> Result<SledLog, Fail> {
    let log = SledLog::open(&dir).map_err(|e| match e {
        // sled says "could not acquire lock" when another process has it open.
        LogError::Backend(m) if m.contains("lock") => Fail(format!(
            "{m}: another rollcall (a `serve`, a `replay --step` waiting) has the store {} open; wait for it, or use another store",
            dir.display()
        )),
        other => Fail(other.to_string()),
    })?;
    let _ = OPENED.set(dir);
    Ok(log)
}

/// Reads a text file, or standard input for `-`.
pub fn read_text(source: &str) -> Result<String, Fail> {
    if source == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| Fail(format!("<stdin>: {e}")))?;
        Ok(text)
    } else {
        read_file(Path::new(source))
    }
}

pub fn read_file(path: &Path) -> Result<String, Fail> {
    std::fs::read_to_string(path).map_err(|e| Fail(format!("{}: {e}", path.display())))
}

/// Whether `id` names a game in the store.
pub fn has_game(log: &dyn EventLog, id: &str) -> Result<bool, Fail> {
    match log.head(id) {
        Ok(_) => Ok(true),
        Err(LogError::UnknownGame(_)) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
