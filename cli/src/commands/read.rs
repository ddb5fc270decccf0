//! Reading a game, to a position: `rollcall log` (its events, narrated),
//! `rollcall state` (the state at a position) and `rollcall replay` (the
//! game replayed from its facts, step by step, or on a terminal the
//! interactive view).

use std::io::IsTerminal;
use std::process::ExitCode;

use rollcall_core::game::Game;
use serde_json::{json, Value};

use crate::fail::Fail;
use crate::input::checked::Checked;
use crate::input::position::Position;
use crate::output::record::Narrated;
use crate::output::{Mode, Report, Stream};

pub fn log(cx: &Checked, target: &str, from: Option<Position>) -> Result<ExitCode, Fail> {
    let (reader, id, span) = crate::input::source::reader(&cx.db, target, from)?;
    let from = span.map_or(1, |span| span.first);
    let mut stream = Stream::array(cx.mode, "events");
    let mut printed = Ok(());
    let game = reader.fold(target, &id, None, |game, event| {
        if event.seq >= from && printed.is_ok() {
            printed = stream.push(&Narrated { game, event, listed: true });
        }
    })?;
    printed?;
    stream.finish(&[format!("head {}", game.head())], json!({"game": id, "head": game.head().to_string()}))?;
    Ok(ExitCode::SUCCESS)
}

/// `rollcall state GAME`: the game at a position (its head by default).
pub struct State {
    id: String,
    game: Game,
}

pub fn state(db: &crate::input::store::StoreSpec, target: &str, at: Option<Position>) -> Result<State, Fail> {
    let (reader, id, span) = crate::input::source::reader(db, target, at)?;
    let game = reader.at(target, &id, span.map(|span| span.last))?;
    Ok(State { id, game })
}

impl Report for State {
    fn text(&self) -> Vec<String> {
        let (id, game) = (&self.id, &self.game);
        let render = game.render();
        vec![
            format!("game {id} after seq {} (decision {}):", game.seq(), game.decisions()),
            render.strip_suffix('\n').unwrap_or(&render).to_string(),
        ]
    }

    fn json(&self) -> Value {
        let game = &self.game;
        json!({"game": self.id, "seq": game.seq(), "decisions": game.decisions(), "turn": game.turn(),
            "head": game.head().to_string(), "state": game.state()})
    }
}

/// `rollcall replay GAME`: on a terminal with `--step`, the interactive
/// view (unless `--plain`); else the replay printed.
pub fn replay_command(
    cx: &Checked,
    target: &str,
    step: bool,
    plain: bool,
    to: Option<Position>,
) -> Result<ExitCode, Fail> {
    let interactive =
        step && !plain && cx.mode == Mode::Text && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if interactive {
        interactive_replay(&cx.db, target, to)
    } else {
        replay(cx, target, step, to)
    }
}

pub fn replay(cx: &Checked, target: &str, step: bool, to: Option<Position>) -> Result<ExitCode, Fail> {
    let mode = cx.mode;
    let (reader, id, span) = crate::input::source::reader(&cx.db, target, to)?;
    let to = span.map(|span| span.last);
    let mut stream = Stream::array(mode, "events").with_asides("steps");
    let mut printed = Ok(());
    // The narrative on a terminal is its own progress; to a file or a pipe, a bar.
    let bar = reader.progress("replay", &id, to, mode == Mode::Json || std::io::stdout().is_terminal())?;
    let game = reader.fold(target, &id, to, |game, event| {
        crate::output::progress::tick(&bar);
        if printed.is_err() {
            return;
        }
        if step && event.kind == rollcall_core::Kind::Decision && game.decisions() > 1 {
            // The state after the previous decision, before this one.
            let after = game.decisions() - 1;
            printed = stream.aside(
                || format!("--- state after decision {after} ---\n{}", game.render()),
                || json!({"after_decision": after, "state": game.state()}),
            );
            if printed.is_err() {
                return;
            }
        }
        printed = stream.push(&Narrated { game, event, listed: false });
    })?;
    printed?;
    let last = format!(
        "--- state after seq {} (decision {}) ---\n{}head {}",
        game.seq(),
        game.decisions(),
        game.render(),
        game.head()
    );
    stream.finish(
        &[last],
        json!({"game": id, "seq": game.seq(), "head": game.head().to_string(), "state": game.state()}),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `rollcall replay GAME --step` on a terminal: reads the game once,
/// releases the store (other commands may use it while the view is open),
/// and opens the interactive view at the position given, or at the start.
fn interactive_replay(
    db: &crate::input::store::StoreSpec,
    target: &str,
    at: Option<Position>,
) -> Result<ExitCode, Fail> {
    let (header, events) = {
        let (log, id) = crate::input::source::game_reader(db, target)?;
        let header = log.header(&id)?;
        let events = log.events(&id, 1)?.collect::<Result<Vec<_>, _>>()?;
        (header, events)
    };
    let replay = crate::tui::Replay::build(&header, &events)?;
    drop(events);
    let start = match at {
        Some(p) => replay.resolve(p).map_err(Fail::msg)?,
        None => 0,
    };
    crate::tui::term::run(&replay, crate::tui::Model::new(start))?;
    Ok(ExitCode::SUCCESS)
}
