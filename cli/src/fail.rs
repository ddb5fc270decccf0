//! The failure every command returns for bad input or usage (exit 2):
//! [`Fail`], a chain of contexts around its cause, printed once by `main`.
//! The store's errors convert into it with the store named in them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rollcall_core::log::{LogError, OpenGameError};
use rollcall_store::OpenError;

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

/// Names the store this process opened (`location`, a directory or a
/// database URL without its password) in the storage errors that follow.
pub fn name_store(location: PathBuf) {
    let _ = STORE.set(location);
}

/// The store this process opened, if it opened one.
pub fn store_named() -> Option<&'static Path> {
    STORE.get().map(PathBuf::as_path)
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

#[cfg(test)]
mod tests {
    use super::*;

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
