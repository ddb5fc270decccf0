//! Play by email, turn by turn: `turn export` (sign yours and write it),
//! `turn apply` (verify the opponent's and add it), `turn fetch` (what a
//! dice server has that this store lacks), and `fork show` (the forks kept
//! as evidence).

use std::path::Path;
use std::process::ExitCode;

use rollcall_core::game::Game;
use rollcall_core::log::{open_game, EventLog};
use rollcall_core::pbem::exchange::{self};
use rollcall_core::record::{self, Kind};
use rollcall_core::ruleset::Actor;
use rollcall_core::words::possessive;
use serde_json::{json, Value};

use super::pbem::{exchanged, outcome};
use crate::args::{ForkCommand, TurnCommand};
use crate::fail::Fail;
use crate::input::checked::Checked;
use crate::input::keys::read_key;
use crate::input::store::{self, read_text, StoreSpec};
use crate::output::files::write_message;
use crate::output::record::actor_json;
use crate::output::Said;

/// Runs `rollcall turn …`.
pub fn turn(cx: &Checked, command: TurnCommand) -> Result<ExitCode, Fail> {
    let said = match command {
        TurnCommand::Fetch { url, game } => return fetch(cx, &url, &game),
        TurnCommand::Export { game, key, output } => turn_export(&cx.db, &game, &key, &output)?,
        TurnCommand::Apply { turn } => turn_apply(&cx.db, &turn)?,
    };
    Ok(crate::output::print(&said, cx.mode))
}

/// `rollcall turn fetch URL GAME`: the events this store lacks, as a turn
/// file the server signs, verified and applied like an opponent's turn.
fn fetch(cx: &Checked, url: &str, game: &str) -> Result<ExitCode, Fail> {
    let log = store::open(&cx.db)?;
    let since = log.head(game).ok().map(|h| h.hash);
    let mut request = format!("{}/games/{game}/turn", crate::serve::client::base(url));
    if let Some(h) = since {
        request.push_str(&format!("?since={h}"));
    }
    let answer = crate::serve::client::get(&request)?;
    if answer.status != 200 {
        return Err(fail!("{request}: {}", answer.message()));
    }
    let applied = match exchange::apply(&log, &answer.body, rollcall_core::registry::builtin()) {
        Ok(a) => a,
        Err(e) => return outcome(e, cx.mode),
    };
    let mut g = applied.before.clone();
    let mut lines = Vec::new();
    for e in &applied.events {
        g.apply(e).map_err(|e| Fail::msg(e.to_string()))?;
        lines.push(g.narrate(e));
    }
    lines.push(format!(
        "fetched {} events of {game} from {url}, verified (chain, legality; the dice of every revealed turn); head {}",
        applied.events.len(),
        applied.head.hash
    ));
    let json = json!({"ok": true, "game": game, "events": applied.events.len(), "head": applied.head, "created": applied.created});
    Ok(crate::output::print(&crate::output::Said::done(lines, json), cx.mode))
}

pub(crate) fn turn_export(db: &StoreSpec, game: &str, key: &Path, output: &str) -> Result<Said, Fail> {
    let key = read_key(key)?;
    let log = store::open_read(db)?;
    let exported = match exchanged(exchange::export(&log, game, &key, rollcall_core::registry::builtin()))? {
        Ok(x) => x,
        Err(rejected) => return Ok(rejected),
    };
    let t = &exported.turn;
    write_message(output, &t.armour())?;
    let yours = exported.awaited == Actor::Side(t.side.clone());
    let json = json!({"game": t.game, "side": t.side, "from": t.previous, "to": t.head,
        "events": t.events.len(), "decisions": exported.decisions, "header": t.header.is_some(),
        "signed_now": exported.checkpoint.is_some(), "awaited": actor_json(&exported.awaited), "file": output});
    if output == "-" {
        return Ok(Said::done(Vec::new(), json));
    }
    let signed = if exported.checkpoint.is_some() { "signed" } else { "already signed (sent again)" };
    let mut lines = vec![
        format!(
            "{} turn of game {}: {} decisions, {} events from seq {} to {}, {signed}{}.",
            t.side,
            t.game,
            exported.decisions,
            t.events.len(),
            t.previous.seq + 1,
            t.head.seq,
            if t.header.is_some() { ", with the game's header" } else { "" }
        ),
        format!("head {}", t.head.hash),
        format!("wrote {output}: send it to your opponent (attached, or pasted into the email)."),
    ];
    if yours {
        lines
            .push(format!("note: the game still awaits {} decision: this turn is sent mid-turn.", possessive(&t.side)));
    }
    Ok(Said::done(lines, json))
}

fn turn_apply(db: &StoreSpec, turn: &str) -> Result<Said, Fail> {
    let text = read_text(turn)?;
    // A store not made yet is made only for a turn that applies:
    // tried first on an empty log in memory, which a new store is.
    if !store::exists(db) {
        if let Err(rejected) = exchanged(exchange::apply(
            &rollcall_core::log::MemLog::default(),
            &text,
            rollcall_core::registry::builtin(),
        ))? {
            return Ok(rejected);
        }
    }
    let log = store::open(db)?;
    let applied = match exchanged(exchange::apply(&log, &text, rollcall_core::registry::builtin()))? {
        Ok(a) => a,
        Err(rejected) => return Ok(rejected),
    };
    let mut game = applied.before.clone();
    let (mut lines, mut events) = (Vec::new(), Vec::new());
    for e in &applied.events {
        game.apply(e).map_err(|e| Fail::msg(e.to_string()))?;
        lines.push(rollcall_core::text::escape(&game.narrate(e)).to_string());
        events.push(json!({"seq": e.seq, "kind": e.kind.name(), "hash": e.hash.to_string(), "narrative": game.narrate(e).trim()}));
    }
    let id = &game.header().game;
    let mine = exchange::local_side(&log, id)?;
    let json = json!({"ok": true, "game": id, "side": applied.side, "created": applied.created,
        "events": events, "known": applied.known, "head": applied.head, "awaited": actor_json(&game.awaited()), "you": mine});
    if applied.created {
        lines.push(format!(
            "game {id} created from {} first turn file ({}).",
            possessive(&applied.side),
            game.header().rules.label()
        ));
    }
    lines.push(if applied.events.is_empty() {
        format!("nothing new: this store had every event of {} turn already.", possessive(&applied.side))
    } else {
        format!(
            "applied {} turn: {} events verified (chain, signatures, legality, dice); head {}",
            possessive(&applied.side),
            applied.events.len(),
            applied.head.hash
        )
    });
    lines.push(match &mine {
        Some(me) => format!("the game awaits {}; you play {me}.", game.awaited()),
        None => format!("the game awaits {}; this store plays no side of it (it follows the game).", game.awaited()),
    });
    Ok(Said::done(lines, json))
}

/// Runs `rollcall fork show GAME`: both branches of every fork kept.
pub fn fork(cx: &Checked, command: ForkCommand) -> Result<ExitCode, Fail> {
    let ForkCommand::Show { game: id } = command;
    let log = store::open_read(&cx.db)?;
    let forks = exchange::forks(&log, &id)?;
    let game = open_game(&log, &id, None, rollcall_core::registry::builtin())?;
    let (mut lines, mut shown) = (Vec::new(), Vec::new());
    if forks.is_empty() {
        lines.push(format!("no forks kept for game {id}"));
    }
    for fork in &forks {
        let at = fork.seq.saturating_sub(1);
        let base = open_game(&log, &id, Some(at), rollcall_core::registry::builtin())?;
        let ours: Vec<record::Event> =
            log.events(&id, fork.seq)?.take(exchange::FORK_EVENTS).collect::<Result<Vec<_>, _>>()?;
        let ours = until_checkpoint(ours);
        let theirs: Vec<record::Event> = fork
            .events
            .iter()
            .map(|l| record::parse_event(l))
            .collect::<Result<_, _>>()
            .map_err(|e| fail!("fork evidence of {id}: {e}"))?;
        let branch_a = narrate_branch(&base, &ours);
        let branch_b = narrate_branch(&base, &theirs);
        let from = fork.side.as_deref().map(|s| format!(" from {s}")).unwrap_or_default();
        lines.push(format!(
            "fork of {id} at seq {} (after head {}), by a {}{from}:",
            fork.seq,
            base.head(),
            fork.source
        ));
        lines.push("  this store's branch:".to_string());
        lines.extend(branch_a.iter().map(|line| format!("    {}", line["line"].as_str().unwrap_or_default())));
        lines.push("  the other branch (kept as evidence):".to_string());
        lines.extend(branch_b.iter().map(|line| format!("    {}", line["line"].as_str().unwrap_or_default())));
        lines.push(String::new());
        shown.push(json!({"seq": fork.seq, "source": fork.source, "side": fork.side, "after": base.head().to_string(),
            "ours": branch_a, "theirs": branch_b}));
    }
    if !forks.is_empty() {
        lines.push("Each branch is signed by the side that sent it (its checkpoint): two signed turns on one head prove that side played the same point twice.".to_string());
    }
    let json = json!({"game": id, "head": game.head().to_string(), "forks": shown});
    Ok(crate::output::print(&Said::done(lines, json), cx.mode))
}

fn until_checkpoint(events: Vec<record::Event>) -> Vec<record::Event> {
    let mut out = Vec::new();
    for e in events {
        let done = e.kind == Kind::Checkpoint;
        out.push(e);
        if done {
            break;
        }
    }
    out
}

/// Each event of a branch narrated on the game at the fork point, with its
/// seq and hash; a branch that stops folding in is shown as far as it goes.
fn narrate_branch(base: &Game, events: &[record::Event]) -> Vec<Value> {
    let mut game = base.clone();
    let mut out = Vec::new();
    for e in events {
        let narrative = match game.apply(e) {
            Ok(()) => game.narrate(e).trim().to_string(),
            Err(err) => format!("(does not fold in: {err})"),
        };
        out.push(json!({"seq": e.seq, "kind": e.kind.name(), "hash": e.hash.to_string(),
            "line": format!("{:>5} {} {}", e.seq, e.hash.short(), narrative)}));
    }
    out
}
