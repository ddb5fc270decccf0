//! Where the store is, and reading inputs the commands share.

use std::path::{Path, PathBuf};

use rollcall_core::log::{EventLog, LogError, OpenGameError};
use rollcall_store::SledLog;

/// A failure that exits with code 2, its message naming what is wrong.
#[derive(Debug)]
pub struct Fail(pub String);

impl From<LogError> for Fail {
    fn from(e: LogError) -> Self {
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

/// Opens the store at `db` (or the default), creating it if need be.
pub fn open(db: &Option<PathBuf>) -> Result<SledLog, Fail> {
    let dir = db.clone().unwrap_or_else(default_db);
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Fail(format!("{}: {e}", parent.display())))?;
    }
    Ok(SledLog::open(&dir)?)
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
