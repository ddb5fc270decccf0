//! Store housekeeping: `rollcall games rm GAME`.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use rollcall_core::digest::Digest;
use rollcall_core::log::{EventLog, Head};
use rollcall_core::record::SeedMode;
use rollcall_core::text;
use serde_json::{json, Value};

use crate::args::GamesCommand;
use crate::fail::{Context, Fail};
use crate::input::checked::Checked;
use crate::input::store;
use crate::output::Report;

/// The notes a store keeps on `game` (see `rollcall_core::pbem::exchange`
/// and `rollcall_server`, which own their keys): removed with the game, so
/// that a later game under the same id does not inherit them.
fn notes_of(log: &dyn EventLog, game: &str) -> Result<Vec<String>, Fail> {
    let mut keys: Vec<String> =
        rollcall_core::pbem::exchange::notes(log, game)?.into_iter().map(|(key, _)| key).collect();
    let exact =
        [format!("serve/waiting/{game}"), format!("serve/ended/{game}"), rollcall_core::log::snapshot_note(game)];
    for key in exact {
        if log.note(&key)?.is_some() {
            keys.push(key);
        }
    }
    keys.extend(log.notes(&format!("serve/token/{game}/"))?.into_iter().map(|(k, _)| k));
    Ok(keys)
}

/// Runs `rollcall games` (the list) or `rollcall games rm`.
pub fn run(cx: &Checked, command: Option<GamesCommand>) -> Result<ExitCode, Fail> {
    match command {
        None => Ok(crate::output::print(&games(&cx.db)?, cx.mode)),
        Some(GamesCommand::Rm { game, yes }) => remove(cx, &game, yes),
    }
}

/// `rollcall games rm GAME [--yes]`: removes a game for good, after asking
/// on a terminal; off a terminal it needs `--yes`.
pub fn remove(cx: &Checked, id: &str, yes: bool) -> Result<ExitCode, Fail> {
    Ok(crate::output::print(&removed(cx, id, yes)?, cx.mode))
}

fn removed(cx: &Checked, id: &str, yes: bool) -> Result<Removed, Fail> {
    let db = &cx.db;
    let dir = store::dir(db);
    let log = store::open_read(db)?;
    let head = log.head(id)?;
    let rules = log.header(id)?.rules.label();
    let notes = notes_of(&log, id)?;
    if !yes {
        if !std::io::stdin().is_terminal() {
            return Err(fail!(
                "games rm {id}: say --yes to remove it without being asked (standard input is not a terminal); nothing was removed from the store {}",
                dir.display()
            ));
        }
        eprint!(
            "remove game {id} ({rules}, {} events, head {}) from the store {} for good? Export it first to keep a copy (rollcall export {id} -o {id}.jsonl). [y/N] ",
            head.seq,
            head.hash.short(),
            dir.display()
        );
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer).context("<stdin>")?;
        if !matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES") {
            return Ok(Removed { id: id.to_string(), store: dir.display().to_string(), gone: None });
        }
    }
    // The server's chain for the game, if a dice server made it: it goes
    // with the game, so that the id can be created afresh.
    let secrets = [rollcall_server::chain_secret(id)];
    log.remove_game(id, &head, &notes, &secrets).map_err(|e| match e {
        rollcall_core::log::LogError::StaleHead { seq, actual, .. } => fail!(
            "games rm {id}: the game moved on to seq {seq} ({actual}) while it was being removed (a server is playing it): nothing was removed from the store {}",
            dir.display()
        ),
        other => other.into(),
    })?;
    Ok(Removed { id: id.to_string(), store: dir.display().to_string(), gone: Some(Gone { rules, head, notes }) })
}

/// `rollcall games rm`: the game removed, or kept when the answer was no.
struct Removed {
    id: String,
    /// The store's directory (or location), as shown.
    store: String,
    gone: Option<Gone>,
}

/// A game removed: its rules, its head, and the notes removed with it.
struct Gone {
    rules: String,
    head: Head,
    notes: Vec<String>,
}

impl Report for Removed {
    fn text(&self) -> Vec<String> {
        let (id, store) = (&self.id, &self.store);
        vec![match &self.gone {
            None => format!("kept game {id}: nothing was removed"),
            Some(Gone { rules, head, .. }) => {
                format!("removed game {id} ({rules}, {} events, head {}) from the store {store}", head.seq, head.hash)
            }
        }]
    }

    fn json(&self) -> Value {
        let (id, store) = (&self.id, &self.store);
        match &self.gone {
            None => json!({"ok": false, "game": id, "removed": false, "store": store}),
            Some(Gone { head, notes, .. }) => json!({"ok": true, "game": id, "removed": true, "events": head.seq,
                "head": head.hash.to_string(), "notes": notes, "store": store}),
        }
    }
}

/// `rollcall games`: the store's games, and those whose creation stopped.
struct Games {
    /// Each game: its id, rules label, seed mode, events and head.
    games: Vec<(String, String, SeedMode, u64, Digest)>,
    incomplete: Vec<String>,
}

fn games(db: &crate::input::store::StoreSpec) -> Result<Games, Fail> {
    let log = store::open_read(db)?;
    let mut games = Vec::new();
    for id in log.games()? {
        let header = log.header(&id)?;
        let head = log.head(&id)?;
        games.push((id, header.rules.label(), header.mode, head.seq, head.hash));
    }
    Ok(Games { games, incomplete: log.incomplete()? })
}

impl Report for Games {
    fn text(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .games
            .iter()
            .map(|(id, label, _, events, head)| {
                let shown = text::escape(id);
                format!("{shown:<24} {:<28} {events:>6} events  head {}", text::escape(label), head.short())
            })
            .collect();
        if lines.is_empty() {
            lines.push("no games in this store".into());
        }
        if !self.incomplete.is_empty() {
            lines.push(format!(
                "not listed: {} game(s) whose creation was stopped before its end ({}): no command sees them, and creating the game again clears them",
                self.incomplete.len(),
                self.incomplete.join(", ")
            ));
        }
        lines
    }

    fn json(&self) -> Value {
        let rows: Vec<Value> = self
            .games
            .iter()
            .map(|(id, label, mode, events, head)| {
                json!({"game": id, "rules": label, "mode": mode, "events": events, "head": head.to_string()})
            })
            .collect();
        json!({"games": rows, "incomplete": self.incomplete})
    }
}
