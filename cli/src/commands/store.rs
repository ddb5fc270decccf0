//! `rollcall store migrate` and `rollcall store copy`: the store itself.

use std::path::{Path, PathBuf};

use rollcall_core::log::EventLog;
use rollcall_store::Store;

use crate::fail::{Context, Fail};
use crate::input::store::{has_game, open, Creation, StoreSpec};

/// Runs `rollcall store migrate` or `rollcall store copy`.
pub fn run(
    cx: &crate::input::checked::Checked,
    command: crate::args::StoreCommand,
) -> Result<std::process::ExitCode, Fail> {
    use crate::args::StoreCommand;
    match command {
        StoreCommand::Migrate => Ok(crate::output::print(&migrate(&cx.db)?, cx.mode)),
        StoreCommand::Copy { from, to, games } => copy(&from, &to, &games, cx.mode),
    }
}

/// `rollcall store migrate`: creates or upgrades rollcall's tables in the
/// PostgreSQL database `--store` names.
pub fn migrate(db: &StoreSpec) -> Result<crate::output::Said, Fail> {
    let StoreSpec::Postgres(url) = db else {
        return Err(Fail::msg(
            "store migrate: give the database with --store postgres://… (a sled store needs no migration)",
        ));
    };
    let applied = rollcall_store::pg_log::migrate(url)?;
    let version = rollcall_store::pg_log::schema_version();
    let mut lines: Vec<String> = applied.iter().map(|(v, name)| format!("applied migration {v:03} ({name})")).collect();
    lines.push(if applied.is_empty() {
        format!("the database is at rollcall's schema version {version} already: nothing to do")
    } else {
        format!("the database is at rollcall's schema version {version}")
    });
    let applied: Vec<_> = applied.iter().map(|(v, n)| serde_json::json!({"version": v, "name": n})).collect();
    Ok(crate::output::Said::done(lines, serde_json::json!({"ok": true, "applied": applied, "version": version})))
}

/// What became of one game in `store copy`.
enum Outcome {
    Copied(rollcall_core::game::Verified),
    Present(u64),
    /// A game a dice server waits on for its shares: no events yet.
    Waiting(rollcall_server::CarriedWaiting),
}

/// `rollcall store copy`: every game named (or every game of the source)
/// verified as it is read, written to the target as one creation (whole or
/// not at all), and opened again there, its chain checked to the same head.
pub fn copy(from: &str, to: &str, games: &[String], mode: crate::output::Mode) -> Result<std::process::ExitCode, Fail> {
    if !rollcall_store::pg_log::is_url(from) && !Path::new(from).is_dir() {
        return Err(fail!("--from {from}: no store there (a sled directory or a postgres:// URL)"));
    }
    let source = Store::open(Path::new(from))?;
    let target = open(&StoreSpec::new(Some(PathBuf::from(to))))?;
    // A game named that a server still waits on for its shares has no
    // events to copy: it is carried with the other waiting games, after.
    let ids = if games.is_empty() {
        source.games()?
    } else {
        let mut named = Vec::new();
        for id in games {
            if has_game(&source, id)? || source.note(&rollcall_server::waiting_note(id))?.is_none() {
                named.push(id.clone());
            }
        }
        named
    };
    // Each game is said as it is copied; the JSON document comes at the end.
    let mut stream = crate::output::Stream::kept(mode, "games");
    let (mut copied, mut said) = (0, 0);
    for id in &ids {
        let game = copy_game(&source, &target, id).with_context(|| format!("game {id:?}"))?;
        copied += usize::from(matches!(game, Outcome::Copied(_)));
        said += 1;
        stream.push(&(id.as_str(), game))?;
    }
    for waiting in rollcall_server::carry_waiting(&source, &target, games).map_err(|m| fail!("{m}"))? {
        copied += usize::from(!waiting.present);
        said += 1;
        stream.push(&(waiting.game.clone().as_str(), Outcome::Waiting(waiting)))?;
    }
    let summary = format!("{said} games: {copied} copied, {} there already", said - copied);
    stream.finish(&[summary], serde_json::json!({"ok": true}))?;
    Ok(std::process::ExitCode::SUCCESS)
}

impl crate::output::Item for (&str, Outcome) {
    fn text(&self) -> String {
        match self {
            (id, Outcome::Copied(v)) => format!("copied {id}: {} events, verified, head {}", v.events, v.head),
            (id, Outcome::Present(seq)) => {
                format!("skipped {id}: the target holds it already, at the same head (seq {seq})")
            }
            (id, Outcome::Waiting(w)) if w.present => {
                format!("skipped {id}: the target's server waits on it already, with the same shares")
            }
            (id, Outcome::Waiting(w)) => format!(
                "copied {id}: waiting for its sides' shares ({} of {} given); a server over the target takes the rest",
                w.given, w.sides
            ),
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            (id, Outcome::Copied(v)) => {
                serde_json::json!({"game": id, "copied": true, "events": v.events, "head": v.head.to_string()})
            }
            (id, Outcome::Present(seq)) => serde_json::json!({"game": id, "copied": false, "events": seq}),
            (id, Outcome::Waiting(w)) => serde_json::json!({
                "game": id, "copied": !w.present, "events": 0, "waiting_for_shares": true,
                "shares_given": w.given, "sides": w.sides
            }),
        }
    }
}

/// A sealed game's server chain, token hashes and key, into the target.
fn carry_sealed(
    source: &dyn EventLog,
    target: &dyn EventLog,
    header: &rollcall_core::record::Header,
) -> Result<(), Fail> {
    rollcall_server::carry_sealed(source, target, header).map_err(|m| fail!("its server's secrets: {m}"))
}

/// The notes the source keeps on a play-by-email game (the side it plays,
/// the head the opponent acknowledged, the handshake, forks kept as
/// evidence), into the target. A note the target holds already under the
/// same key with another value is refused: the game is not copied.
fn carry_notes(source: &dyn EventLog, target: &dyn EventLog, id: &str) -> Result<(), Fail> {
    for (key, value) in rollcall_core::pbem::exchange::notes(source, id)? {
        if !target.swap_note(&key, None, Some(&value))? && target.note(&key)?.as_deref() != Some(&value[..]) {
            return Err(fail!("the target keeps another note {key:?} on this game: nothing was copied"));
        }
    }
    Ok(())
}

fn copy_game(source: &dyn EventLog, target: &(dyn EventLog + Sync), id: &str) -> Result<Outcome, Fail> {
    let header = source.header(id)?;
    // Up to the head read now: a server appending meanwhile is not copied past it.
    let head = source.head(id)?;
    if has_game(target, id)? {
        let theirs = target.head(id)?;
        if theirs != head || target.header(id)? != header {
            return Err(fail!(
                "the target holds another state of this game (seq {} {}, the source is at seq {} {}): nothing was written",
                theirs.seq,
                theirs.hash.short(),
                head.seq,
                head.hash.short()
            ));
        }
        carry_sealed(source, target, &header)?;
        return Ok(Outcome::Present(head.seq));
    }
    let fails =
        |f: rollcall_core::game::VerifyFailure| fail!("does not verify in the source, so it was not copied: {f}");
    let mut verifier =
        rollcall_core::game::Verifier::new(&header, rollcall_core::registry::builtin()).map_err(fails)?;
    let verified = Creation::make(target, &header, |creation| {
        for event in source.events(id, 1)? {
            let event = event?;
            if event.seq > head.seq {
                break;
            }
            verifier.push(&event).map_err(fails)?;
            let line = rollcall_core::record::encode_event(&event).map_err(|e| fail!("seq {}: {e}", event.seq))?;
            creation.push(line)?;
        }
        let (verified, _) = verifier.finish().map_err(fails)?;
        if verified.head != head.hash {
            return Err(fail!(
                "the source's events end at {}, its head says {}: not copied",
                verified.head.short(),
                head.hash.short()
            ));
        }
        // Before the game shows in the target: a server there finds it whole,
        // and a player goes on with it as the side he plays.
        carry_sealed(source, target, &header)?;
        carry_notes(source, target, id)?;
        creation.commit()?;
        Ok(verified)
    })?;
    let copy = rollcall_core::log::open_game(target, id, None, rollcall_core::registry::builtin())?;
    if copy.head() != head.hash {
        return Err(fail!(
            "read back from the target, the copy ends at {}, not {}",
            copy.head().short(),
            head.hash.short()
        ));
    }
    Ok(Outcome::Copied(verified))
}
