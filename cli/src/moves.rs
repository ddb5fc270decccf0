//! `rollcall moves GAME`: the decisions legal now, numbered, in words; and
//! `rollcall play GAME --pick N`: one of them played, its fields given as
//! `FIELD=VALUE`. The listing is the engine's ([`rollcall_core::moves`]);
//! this file says it for a person, and reads what a person typed.

use std::process::ExitCode;

use rollcall_core::game::Game;
use rollcall_core::log::{open_at_head, EventLog};
use rollcall_core::moves::{self, Entry, Field, FillError, Listing, Shape};
use rollcall_core::pbem::exchange;
use rollcall_core::script::split_dice;
use serde_json::Value;

use crate::args::PlayArgs;
use crate::checked::Checked;
use crate::output::{self, Report};
use crate::source::Reader;
use crate::store::{self, Fail};

/// `--side referee`: the referee's inputs alone.
const REFEREE: &str = "referee";

/// The side a listing is for: the one asked for (`referee`: none), else this
/// store's side in a play-by-email game, else the side the game awaits.
pub(crate) fn listed_side(game: &Game, asked: Option<String>, mine: Option<String>) -> Option<String> {
    match asked {
        Some(side) if side == REFEREE => None,
        Some(side) => Some(side),
        None => mine.or_else(|| moves::awaited_side(game)),
    }
}

pub(crate) fn listing(game: &Game, side: Option<&str>) -> Result<Listing, Fail> {
    moves::list(game, side)
        .map_err(|e| fail!("--side {}: {e}; --side {REFEREE} lists the referee's inputs alone", e.side))
}

/// `rollcall moves GAME [--side S]`.
pub fn moves(cx: &Checked, target: &str, side: Option<String>) -> Result<ExitCode, Fail> {
    let (reader, id, _) = crate::source::reader(&cx.db, target, None)?;
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

/// An entry in words: its number and what it does, then what the engine
/// knows of it and what it asks for.
pub(crate) fn entry_lines(entry: &Entry) -> Vec<String> {
    let mut lines = vec![format!("{:>4}. {}", entry.n, entry.says)];
    let mut known = Vec::new();
    if let Some(r) = &entry.range {
        known.push(format!("in range: {} {u} of {} {u}", r.distance, r.limit, u = r.unit));
    }
    if let Some(c) = &entry.cost {
        let left = c.left.map(|l| format!(", {l} left")).unwrap_or_default();
        let unit = match c.amount {
            1 if c.unit != "CP" => c.unit.strip_suffix('s').unwrap_or(&c.unit),
            _ => &c.unit,
        };
        known.push(format!("costs {} {unit}{left}", c.amount));
    }
    for t in &entry.targets {
        known.push(format!("{}: needs {}", t.what, t.words()));
    }
    if !entry.dice.is_empty() {
        let dice: Vec<String> = entry.dice.iter().map(|d| d.words()).collect();
        known.push(format!("rolls {}", dice.join(", ")));
    }
    if !known.is_empty() {
        lines.push(format!("      {}", known.join("; ")));
    }
    let fields: Vec<String> = entry.fields.iter().filter(|f| !only_one_value(f)).map(field_words).collect();
    if !fields.is_empty() {
        lines.push(format!("      give {}", fields.join(", ")));
    }
    lines
}

/// A field that may be left out and can hold one value only (no sixes
/// left to add): not worth asking for.
pub(crate) fn only_one_value(f: &Field) -> bool {
    !f.required && matches!(f.shape, Shape::Integer { min, max, .. } if min == max)
}

/// `to=… (a point in mm: x,y; the referee's)`; a field given as JSON shows
/// its example (not the table's dice: those are rolled, not chosen).
fn field_words(f: &Field) -> String {
    let words = f.words();
    let rest = &words[f.name.len()..];
    let json = matches!(f.shape, Shape::ListOf { .. } | Shape::EachOf { .. } | Shape::Json);
    match (&f.example, json) {
        (Some(example), true) if !example.is_null() => {
            format!("{}=… {}, e.g. {example})", f.name, rest.trim_end_matches(')').trim_start())
        }
        _ => format!("{}=…{rest}", f.name),
    }
}

/// `FIELD=VALUE` arguments, split; a malformed one names itself.
fn given_fields(args: &[String]) -> Result<Vec<(String, String)>, Fail> {
    args.iter()
        .map(|a| match a.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.to_string())),
            _ => Err(fail!("{a:?}: give a field of the picked decision as FIELD=VALUE (e.g. to=120,40)")),
        })
        .collect()
}

/// `rollcall play GAME --pick N [FIELD=VALUE…]`: the entry picked from the
/// listing `moves` prints, its fields filled in, decided and appended as
/// `play` appends a decision file's. Bad input (no such entry, a field
/// missing or unreadable) exits 2 and writes nothing; a refusal, 3.
pub fn play(cx: &Checked, args: &PlayArgs) -> Result<ExitCode, Fail> {
    let (id, picked) = (args.game.as_str(), args.pick.as_deref().unwrap_or_default());
    let typed: Vec<String> = args.decision.iter().chain(&args.fields).cloned().collect();
    let given = given_fields(&typed)?;
    let log = store::open_read(&cx.db)?;
    let mut game = open_at_head(&log, id, rollcall_core::registry::builtin())?;
    let by = crate::commands::decider(&log, &game)?;
    if let (Some(asked), Some(mine)) = (&args.side, &by) {
        if asked != mine && asked != REFEREE {
            return Err(fail!("--side {asked}: this store plays {mine} in game {id}"));
        }
    }
    let side = listed_side(&game, args.side.clone(), by.clone());
    let listing = listing(&game, side.as_deref())?;
    let entry = listing.pick(picked).map_err(|e| fail!("--pick {picked}: {e} (see `rollcall moves {id}`)"))?;
    let decision = entry.fill(&given, false).map_err(|e| {
        let hint = if matches!(e, FillError::Missing { .. }) { ": give each as FIELD=VALUE" } else { "" };
        fail!("--pick {picked} ({}): {e}{hint}", entry.pick)
    })?;
    let (decision, dice) = split_dice(decision).map_err(|(field, m)| fail!("--pick {picked}: {field}: {m}"))?;
    let expected = game.head();
    let events = match game.play_as(&decision, dice.as_ref(), by.as_deref()) {
        Ok(events) => events,
        Err(refusal) => {
            let say = |r| format!("--pick {picked} ({}): {} (nothing was written)", entry.pick, r);
            return crate::exit::refusal(refusal, say, cx.mode);
        }
    };
    log.append(id, &expected, &events)?;
    crate::commands::keep_snapshot(&log, id, &game);
    Ok(output::print(&crate::commands::Played { id, game, events }, cx.mode))
}
