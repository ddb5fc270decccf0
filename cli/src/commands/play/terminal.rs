//! The edge of the interactive turn: reads the game from the store (which
//! is then released, so other commands may read it while the turn is
//! played), runs the terminal, and does what the model asks — the turn
//! appended in one batch on the head it began from, the turn exported as
//! `rollcall turn export` writes it — handing back what came of it.

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use rollcall_core::game::Game;
use rollcall_core::keys::{PublicKey, SecretKey};
use rollcall_core::log::{open_game_with, EventLog};
use rollcall_core::record::Event;
use rollcall_core::text;

use crate::fail::Fail;
use crate::input::checked::Checked;
use crate::input::store::{self, StoreSpec};
use crate::output::Mode;
use crate::tui::play::{Model, Opened, Outcome, Request};

/// How many lines of the narrative before the turn are kept to show.
pub(super) const EARLIER_LINES: usize = 80;

/// Whether `play GAME` with no decision file opens the interactive turn:
/// text output, with standard input and output both a terminal.
pub fn on_terminal(mode: Mode) -> bool {
    mode == Mode::Text && std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// `rollcall play GAME` on a terminal: the turn played from a menu; what
/// was written and exported is printed when the interface closes.
pub fn run(cx: &Checked, id: &str) -> Result<ExitCode, Fail> {
    let model = Model::new(open(&cx.db, id)?);
    let model = crate::tui::term::run_play(model, |request| perform(&cx.db, id, request))?;
    for line in &model.said {
        say!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The game at the store's head (its chain checked as it is read), who
/// decides in it, the narrative of its last events; the store is closed
/// again before the turn begins.
fn open(db: &StoreSpec, id: &str) -> Result<Opened, Fail> {
    let log = store::open_read(db)?;
    let mut earlier: VecDeque<String> = VecDeque::new();
    let game = open_game_with(&log, id, None, rollcall_core::registry::builtin(), |game, event| {
        earlier.extend(narrated(game, event));
        while earlier.len() > EARLIER_LINES {
            earlier.pop_front();
        }
    })?;
    let by = crate::input::store::decider(&log, &game)?;
    let key_file = by.as_deref().and_then(|side| game.header().key_of(side)).and_then(key_file_here);
    Ok(Opened { game, by, earlier: earlier.into(), key_file })
}

/// An event's narrative (`game` is the game after it), one line each,
/// escaped for a terminal.
pub(super) fn narrated(game: &Game, event: &Event) -> Vec<String> {
    text::escape(&game.narrate(event)).trim_end().lines().map(str::to_string).collect()
}

/// A `*.key` file in the current folder holding the secret of `public`
/// (the side's key, as the game's header lists it), to offer for the export.
fn key_file_here(public: &PublicKey) -> Option<String> {
    let mut names: Vec<String> = std::fs::read_dir(".")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".key"))
        .collect();
    names.sort();
    names.into_iter().find(|name| {
        let text = std::fs::read_to_string(name).unwrap_or_default();
        SecretKey::from_file_text(&text).is_ok_and(|key| key.public() == *public)
    })
}

/// Does what the model asked.
fn perform(db: &StoreSpec, id: &str, request: Request) -> Outcome {
    match request {
        Request::Write { expected, events, game } => Outcome::Written(write(db, id, &expected, &events, &game)),
        Request::Export { key, output } => Outcome::Exported(export(db, id, &key, &output)),
        // Asked only of a game on a server (`at_server.rs`).
        Request::Send { pick, .. } => {
            let not = || "a game in this store is not sent to a server".to_string();
            Outcome::Sent { pick, answer: Err(not()), now: Err(not()) }
        }
        Request::Follow { .. } => Outcome::Followed(Ok(None)),
    }
}

/// Appends the turn in one batch on `expected`: all of it, durable, or
/// nothing (a game that moved on is refused by the store).
fn write(
    db: &StoreSpec,
    id: &str,
    expected: &rollcall_core::digest::Digest,
    events: &[Event],
    game: &Game,
) -> Result<(), String> {
    let log = store::open(db).map_err(|e| e.message())?;
    log.append(id, expected, events).map_err(|e| e.to_string())?;
    crate::input::store::keep_snapshot(&log, id, game);
    Ok(())
}

/// Signs and writes the turn file, as `turn export` does; its report.
fn export(db: &StoreSpec, id: &str, key: &str, output: &str) -> Result<Vec<String>, String> {
    let said = crate::commands::turn::turn_export(db, id, Path::new(key), output).map_err(|e| e.message())?;
    if said.code == ExitCode::SUCCESS {
        Ok(said.lines)
    } else {
        Err(said.lines.join(" "))
    }
}
