//! `rollcall play`: a decision (or several) made in a stored game: from a
//! file ([`run`]), picked from the listing ([`pick`]), streamed
//! ([`stream`]), through a dice server ([`server`]), or on a terminal, a
//! turn from a menu ([`terminal`]; against a dice server, [`at_server`]).

pub mod at_server;
pub mod pick;
pub mod server;
pub mod stream;
pub mod terminal;

use std::process::ExitCode;

use rollcall_core::game::Game;
use rollcall_core::locate::line_of;
use rollcall_core::log::{open_at_head, EventLog};
use rollcall_core::record::Event;
use rollcall_core::script::split_dice;
use rollcall_core::strict;
use serde_json::{json, Value};

use crate::args::PlayArgs;
use crate::fail::Fail;
use crate::input;
use crate::input::checked::Checked;
use crate::input::store::{decider, keep_snapshot, read_input};
use crate::output::record::{event_json, Narrated};
use crate::output::{self, Item, Report};

/// Runs `rollcall play` in the form its arguments ask for.
pub fn run(cx: &Checked, args: PlayArgs) -> Result<ExitCode, Fail> {
    match args {
        args @ PlayArgs { pick: Some(_), server: Some(_), .. } => server::play_picked(&args, cx.mode),
        args @ PlayArgs { pick: Some(_), .. } => pick::play(cx, &args),
        PlayArgs { decision: None, server: None, stream: false, game, .. } if terminal::on_terminal(cx.mode) => {
            terminal::run(cx, &game)
        }
        args @ PlayArgs { decision: None, server: Some(_), stream: false, .. } if terminal::on_terminal(cx.mode) => {
            at_server::run(&args)
        }
        PlayArgs { decision: None, server: Some(server), game, .. } => Err(fail!(
            "play {game} --server {server}: name a decision file (or - for standard input), or pick one of `rollcall moves {game} --server {server}` with --pick N; on the server, each side also plays from its page, {}/games/{game}/play",
            crate::serve::client::base(&server)
        )),
        PlayArgs { decision: None, game, .. } => Err(fail!(
            "play {game}: name a decision file (or - for standard input), or pick one of `rollcall moves {game}` with --pick N"
        )),
        args @ PlayArgs { server: Some(_), .. } => server::play(&args, cx.mode),
        PlayArgs { game, decision: Some(decision), stream: true, .. } => stream::play_stream(cx, &game, &decision),
        PlayArgs { game, decision: Some(decision), stream: false, .. } => play(cx, &game, &decision),
    }
}

/// `rollcall play GAME DECISION`: decide on the current state, append atomically.
pub fn play(cx: &Checked, id: &str, source: &str) -> Result<ExitCode, Fail> {
    let (db, mode) = (&cx.db, cx.mode);
    let (name, bytes) = read_input(source)?;
    let name = name.as_str();
    let value: Value = strict::parse(&bytes).map_err(|e| Fail::msg(e.in_file(name)))?;
    let text = String::from_utf8_lossy(&bytes);
    let (decisions, prefix) = match value {
        Value::Array(items) => (items, true),
        single => (vec![single], false),
    };
    let log = input::store::open_read(db)?;
    let mut game = open_at_head(&log, id, rollcall_core::registry::builtin())?;
    let by = decider(&log, &game)?;
    let expected = game.head();
    let mut events = Vec::new();
    for (i, d) in decisions.into_iter().enumerate() {
        let at = |field: &str| {
            let path = match (prefix, field.is_empty()) {
                (true, true) => format!("[{i}]"),
                (true, false) => format!("[{i}].{field}"),
                (false, _) => field.to_string(),
            };
            let shown = if path.is_empty() { "$" } else { path.as_str() };
            format!("{name}:{}: {shown}", line_of(&text, &path))
        };
        let (decision, dice) = split_dice(d).map_err(|(f, m)| fail!("{}: {m}", at(&f)))?;
        let new = match game.play_as(&decision, dice.as_ref(), by.as_deref()) {
            Ok(new) => new,
            Err(refusal) => {
                return crate::output::exit::refusal(
                    refusal,
                    |r| crate::output::exit::placed(r, at) + " (nothing was written)",
                    mode,
                )
            }
        };
        events.extend(new);
    }
    log.append(id, &expected, &events)?;
    keep_snapshot(&log, id, &game);
    Ok(output::print(&Played { id, game, events }, mode))
}

/// `rollcall play`: the events a decision (or several) added, narrated.
pub(crate) struct Played<'a> {
    pub(crate) id: &'a str,
    pub(crate) game: Game,
    pub(crate) events: Vec<Event>,
}

impl Report for Played<'_> {
    fn text(&self) -> Vec<String> {
        let mut lines: Vec<String> =
            self.events.iter().map(|event| Narrated { game: &self.game, event, listed: false }.text()).collect();
        lines.push(format!("head {}", self.game.head()));
        lines
    }

    fn json(&self) -> Value {
        let events: Vec<Value> = self.events.iter().map(|e| event_json(&self.game, e)).collect();
        json!({"game": self.id, "events": events, "head": self.game.head().to_string()})
    }
}
