//! `rollcall moves GAME`: the decisions legal now, numbered, in words.
//! The listing is the engine's ([`rollcall_core::moves`]); the words are
//! [`crate::output::listing`]'s.

use std::process::ExitCode;

use rollcall_core::moves::Listing;
use rollcall_core::pbem::exchange;
use serde_json::Value;

use crate::fail::Fail;
use crate::input::checked::Checked;
use crate::input::source::Reader;
use crate::output::listing::{entry_lines, listed_side, listing, REFEREE};
use crate::output::{self, Report};

/// `rollcall moves GAME [--side S]`.
pub fn moves(cx: &Checked, target: &str, side: Option<String>) -> Result<ExitCode, Fail> {
    let (reader, id, _) = crate::input::source::reader(&cx.db, target, None)?;
    let mine = match &reader {
        Reader::Log(log) => exchange::local_side(&**log, &id).map_err(|e| fail!("{target}: {e}"))?,
        Reader::File { .. } => None,
    };
    let game = reader.at(target, &id, None)?;
    let side = listed_side(&game, side, mine);
    let listing = listing(&game, side.as_deref())?;
    Ok(output::print(&Moves { listing, decisions: game.decisions() }, cx.mode))
}

/// What `moves` prints.
struct Moves {
    listing: Listing,
    decisions: u64,
}

impl Report for Moves {
    fn text(&self) -> Vec<String> {
        let l = &self.listing;
        let whom = l.side.clone().unwrap_or_else(|| "the referee".into());
        let awaited = if l.awaited == REFEREE { "the referee".to_string() } else { l.awaited.clone() };
        let mut lines = vec![format!(
            "game {}, turn {}, after seq {} (decision {}): {awaited} to decide",
            l.game, l.turn, l.seq, self.decisions
        )];
        if l.is_empty() {
            lines.push(format!("Nothing is legal for {whom} now."));
            return lines;
        }
        let own = l.groups.iter().any(|g| !g.referee);
        match (&l.side, own) {
            (Some(side), false) => lines.push(format!("{side} has nothing of its own to decide now.")),
            _ => lines.push(format!("What {whom} may do now:")),
        }
        let mut referee_said = false;
        for group in &l.groups {
            if group.referee && !referee_said && l.side.is_some() {
                lines.push(String::new());
                lines.push("The referee's inputs (either side may enter them):".into());
                referee_said = true;
            }
            lines.push(String::new());
            lines.push(group.title.clone());
            for entry in &group.entries {
                lines.extend(entry_lines(entry));
            }
        }
        lines.push(String::new());
        lines.push(format!(
            "Play one: rollcall play {} --pick N, with the fields it asks for as FIELD=VALUE{}",
            l.game,
            match &l.side {
                Some(side) if Some(side) != Some(&l.awaited) => format!(" (and --side {side})"),
                None => format!(" (and --side {REFEREE})"),
                _ => String::new(),
            }
        ));
        lines
    }

    fn json(&self) -> Value {
        serde_json::to_value(&self.listing).expect("a listing serialises")
    }
}
