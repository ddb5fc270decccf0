//! `rollcall run SCRIPT`: a script played into the store as a new game.

use std::path::Path;
use std::process::ExitCode;

use rollcall_core::game::Game;
use rollcall_core::script::refusal_field;
use serde_json::json;

use super::checked_game_id;
use crate::fail::Fail;
use crate::input;
use crate::input::checked::Checked;
use crate::input::script_file;
use crate::input::store::{has_game, keep_snapshot};
use crate::output::record::{mode_name, Narrated};
use crate::output::Stream;

/// `rollcall run SCRIPT`: plays the script into a game being created,
/// appending whole decisions in batches; the game appears, whole, only when
/// the last batch is in (a refused decision, a kill or a full disk leave
/// nothing a reader can see).
pub fn run_script(cx: &Checked, path: &Path, game_id: Option<String>) -> Result<ExitCode, Fail> {
    let (db, mode) = (&cx.db, cx.mode);
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "game".into());
    let Some(mut header) = script_file::checked_header(path, &stem) else {
        return Err(script_file::refusal(path, &stem));
    };
    if let Some(id) = game_id {
        header.game = checked_game_id("--game", id)?;
    }
    let log = input::store::open(db)?;
    let id = header.game.clone();
    if has_game(&log, &id)? {
        return Err(fail!(
            "{}: run with --game NEW-ID, or export it and use another store (nothing was written)",
            crate::fail::already_stored(&id, &input::store::dir(db))
        ));
    }
    let mut decisions = script_file::Decisions::open(path)?;
    let mut game =
        Game::open(header.clone(), rollcall_core::registry::builtin()).map_err(|e| Fail::msg(e.to_string()))?;
    let mut stream = Stream::kept(mode, "narrative");
    stream.note(|| format!("game {id}: {}, {} dice", header.rules.label(), mode_name(header.mode)))?;
    let refused = input::store::Creation::make(&log, &header, |creation| {
        while let Some(d) = decisions.next()? {
            let (events, lines) = match game.play_lines(&d.decision, d.dice.as_ref()) {
                Ok(played) => played,
                Err(refusal) => {
                    let say = |refusal| {
                        let (field, message) = refusal_field(d.index, refusal);
                        format!("{}:{}: {field}: {message} (nothing was written)", path.display(), d.line_of(&field))
                    };
                    return crate::output::exit::refusal(refusal, say, mode).map(Some);
                }
            };
            for event in &events {
                stream.push(&Narrated { game: &game, event, listed: false })?;
            }
            creation.push_chained(lines)?;
        }
        creation.commit()?;
        Ok(None)
    })?;
    if let Some(code) = refused {
        return Ok(code);
    }
    keep_snapshot(&log, &id, &game);
    stream.finish(
        &[format!("{} decisions, {} events; head {}", game.decisions(), game.seq(), game.head())],
        json!({
            "game": id, "rules": header.rules.version, "rules_hash": header.rules_hash.to_string(),
            "mode": header.mode, "events": game.seq(), "decisions": game.decisions(),
            "turn": game.turn(), "head": game.head().to_string(),
        }),
    )?;
    Ok(ExitCode::SUCCESS)
}
