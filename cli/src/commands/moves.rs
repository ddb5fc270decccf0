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
    Ok(output::print(&Moves { listing, decisions: game.decisions(), remote: false }, cx.mode))
}

/// `rollcall moves GAME --server URL [--token T] [--side S]`: the listing
/// the dice server gives (`GET /games/{id}/moves`), for the token's side
/// when one is sent, printed as for a game in the store.
pub fn on_server(
    game: &str,
    side: Option<&str>,
    url: &str,
    token: Option<&str>,
    mode: crate::output::Mode,
) -> Result<ExitCode, Fail> {
    let (listing, decisions) = server_listing(url, game, side, token)?;
    Ok(output::print(&Moves { listing, decisions, remote: true }, mode))
}

/// A dice server's listing of `game` for `side` (or the token's side, or
/// the side awaited) and how many decisions the game has: what `moves
/// --server` prints and `play --server --pick` picks from. A refusal (no
/// such game, a token not of the game, no such side) is the server's
/// message, exit 2.
pub fn server_listing(url: &str, game: &str, side: Option<&str>, token: Option<&str>) -> Result<(Listing, u64), Fail> {
    use crate::serve::client::{base, get, get_as};
    let status = get(&format!("{}/games/{game}", base(url)))?;
    if status.status != 200 {
        return Err(fail!("{url}: game {game}: {}", status.message()));
    }
    let decisions = status.json()["decisions"].as_u64().unwrap_or_default();
    let query = side.map(|s| format!("?side={s}")).unwrap_or_default();
    let answer = get_as(&format!("{}/games/{game}/moves{query}", base(url)), token)?;
    if answer.status != 200 {
        return Err(fail!("{url}: game {game}: {}", answer.message()));
    }
    let listing = serde_json::from_str(&answer.body)
        .map_err(|e| fail!("{url}: game {game}: the server's list of moves is not one rollcall reads: {e}"))?;
    Ok((listing, decisions))
}

/// What `moves` prints.
struct Moves {
    listing: Listing,
    decisions: u64,
    /// Listed by a dice server.
    remote: bool,
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
            "Play one: rollcall play {} --pick N, with the fields it asks for as FIELD=VALUE{}{}",
            l.game,
            match &l.side {
                // On a dice server the token says the side.
                Some(side) if Some(side) != Some(&l.awaited) && !self.remote => format!(" (and --side {side})"),
                None => format!(" (and --side {REFEREE})"),
                _ => String::new(),
            },
            if self.remote { " (and --server URL --token T, as here)" } else { "" }
        ));
        lines
    }

    fn json(&self) -> Value {
        serde_json::to_value(&self.listing).expect("a listing serialises")
    }
}
