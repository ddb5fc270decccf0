//! Where the store is, and reading inputs the commands share.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use rollcall_core::log::{EventLog, LogError, OpenGameError};
use rollcall_core::strict;
use rollcall_store::{Access, OpenError, OpenOptions, SledLog};

/// A failure that exits with code 2, its message naming what is wrong.
#[derive(Debug)]
pub struct Fail(pub String);

/// The store this process opened, named in storage errors.
static STORE: OnceLock<PathBuf> = OnceLock::new();
/// `--wait`: how long to wait for another process to let go of the store.
static WAIT: OnceLock<Duration> = OnceLock::new();

/// Sets `--wait` for every store this process opens (once, from `main`).
pub fn set_wait(wait: Duration) {
    let _ = WAIT.set(wait);
}

impl From<LogError> for Fail {
    fn from(e: LogError) -> Self {
        match (&e, STORE.get()) {
            (LogError::Backend(_), Some(path)) => Fail(format!("{e} (the store at {})", path.display())),
            _ => Fail(e.to_string()),
        }
    }
}

impl From<OpenError> for Fail {
    fn from(e: OpenError) -> Self {
        Fail(e.to_string())
    }
}

impl From<OpenGameError> for Fail {
    fn from(e: OpenGameError) -> Self {
        Fail(e.to_string())
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

fn open_as(db: &Option<PathBuf>, access: Access) -> Result<SledLog, Fail> {
    let dir = db.clone().unwrap_or_else(default_db);
    let _ = STORE.set(dir.clone());
    let wait = WAIT.get().copied().unwrap_or(Duration::from_secs(5));
    if access == Access::Write {
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| Fail(format!("cannot create the store's directory {}: {e}", parent.display())))?;
        }
    }
    let log = SledLog::open_with(&dir, OpenOptions { access, wait })?;
    if let Some(copy) = log.read_copy() {
        eprintln!(
            "note: rollcall cannot write the store at {} (a read-only filesystem, no permission, or a full disk), \
             and sled cannot open a database without writing to it: reading a private copy in {} instead",
            dir.display(),
            copy.display()
        );
    }
    Ok(log)
}

/// Opens the store at `db` (or the default) to write, creating it if need be.
pub fn open(db: &Option<PathBuf>) -> Result<SledLog, Fail> {
    open_as(db, Access::Write)
}

/// Opens the store at `db` (or the default) only to read: it must exist.
pub fn open_read(db: &Option<PathBuf>) -> Result<SledLog, Fail> {
    open_as(db, Access::Read)
}

/// The bytes of an input: a file, or standard input for `-`, with the name
/// to give it in messages.
pub fn read_input(source: &str) -> Result<(String, Vec<u8>), Fail> {
    if source == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map_err(|e| Fail(format!("<stdin>: {e}")))?;
        Ok(("<stdin>".into(), bytes))
    } else {
        Ok((source.to_string(), read_bytes(Path::new(source))?))
    }
}

/// A text input: a file, or standard input for `-`; bytes that are not
/// UTF-8 are an error naming the line and byte offset.
pub fn read_text(source: &str) -> Result<String, Fail> {
    let (name, bytes) = read_input(source)?;
    strict::utf8(&bytes).map_err(|e| Fail(e.in_file(&name)))?;
    Ok(String::from_utf8(bytes).expect("checked"))
}

/// A file's bytes.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, Fail> {
    std::fs::read(path).map_err(|e| Fail(format!("{}: {e}", path.display())))
}

/// A text file; bytes that are not UTF-8 are an error naming the line and
/// byte offset.
pub fn read_file(path: &Path) -> Result<String, Fail> {
    let bytes = read_bytes(path)?;
    strict::utf8(&bytes).map_err(|e| Fail(e.in_file(&path.display().to_string())))?;
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
