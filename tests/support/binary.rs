//! The `rollcall` binary as the end-to-end tests run it: on a store of the
//! test's own, with none of the environment's `ROLLCALL_DB`,
//! `ROLLCALL_STORE`, `CI` or `NO_COLOR`, and what it printed. One copy for every test
//! binary that runs it (`tests/cli.rs`, `e2e.rs`, `impact.rs`,
//! `simulate.rs`, `pbem.rs`), each including it with `#[path]`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The binary, on the store `db`.
pub fn command(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rollcall"));
    c.env_remove("ROLLCALL_DB")
        .env_remove("ROLLCALL_STORE")
        .env_remove("CI")
        .env_remove("NO_COLOR")
        .arg("--db")
        .arg(db);
    c
}

/// A store of a test's own, in a temporary folder that also holds the
/// test's files.
pub struct Store {
    dir: tempfile::TempDir,
}

impl Store {
    pub fn new() -> Store {
        Store { dir: tempfile::tempdir().unwrap() }
    }

    /// The folder holding the store and the test's files.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("db")
    }

    /// A file beside the store.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// [`Store::path`] as text, for an argument.
    pub fn path_text(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_string()
    }

    pub fn cmd(&self) -> Command {
        command(&self.db())
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    /// Runs a command that must succeed; its standard output.
    #[track_caller]
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "rollcall {args:?} failed: {}{}", stdout(&out), stderr(&out));
        stdout(&out)
    }
}

/// Runs `rollcall --db DB ARGS…` to the end.
pub fn rollcall(db: &Path, args: &[&str]) -> Output {
    command(db).args(args).output().unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output, then standard error.
pub fn text(o: &Output) -> String {
    stdout(o) + &stderr(o)
}

/// The run exited `code` and said `needle` (on either stream).
#[track_caller]
pub fn failed_with(out: &Output, code: i32, needle: &str) {
    let text = text(out);
    assert_eq!(out.status.code(), Some(code), "expected exit {code}:\n{text}");
    assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
}

/// Writes a random legal game of `version` (seeded by `seed`, `decisions`
/// decisions long) to `path` as a record; returns its header.
pub fn random_record(path: &Path, version: &str, seed: u64, decisions: usize) -> rollcall_core::record::Header {
    let (header, list) = rollcall_core::sim::random_game(version, seed, decisions).unwrap();
    let mut game = rollcall_core::game::Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    let mut events = Vec::new();
    for decision in &list {
        events.extend(game.play(decision, None).unwrap());
    }
    rollcall_store::file::write(
        path,
        rollcall_store::file::Existing::Refuse,
        &header,
        events.into_iter().map(Ok::<_, String>),
    )
    .unwrap();
    header
}
