//! The moves listing for a person: whose listing it is (`--side`, the
//! referee's inputs alone, this store's side, else the side awaited), and
//! each entry in words, as `rollcall moves`, `play --pick` and the
//! interactive turn show it. The listing itself is the engine's
//! ([`rollcall_core::moves`]).

use rollcall_core::game::Game;
use rollcall_core::moves::{self, Entry, Field, Listing, Shape};

use crate::fail::Fail;

/// `--side referee`: the referee's inputs alone.
pub const REFEREE: &str = "referee";

/// The side a listing is for: the one asked for (`referee`: none), else this
/// store's side in a play-by-email game, else the side the game awaits.
pub fn listed_side(game: &Game, asked: Option<String>, mine: Option<String>) -> Option<String> {
    match asked {
        Some(side) if side == REFEREE => None,
        Some(side) => Some(side),
        None => mine.or_else(|| moves::awaited_side(game)),
    }
}

/// The listing of `game` for `side` (none: the referee's inputs alone).
pub fn listing(game: &Game, side: Option<&str>) -> Result<Listing, Fail> {
    moves::list(game, side)
        .map_err(|e| fail!("--side {}: {e}; --side {REFEREE} lists the referee's inputs alone", e.side))
}

/// An entry in words: its number and what it does, then what the engine
/// knows of it and what it asks for.
pub fn entry_lines(entry: &Entry) -> Vec<String> {
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
pub fn only_one_value(f: &Field) -> bool {
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
