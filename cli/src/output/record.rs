//! A game's events and its verification as the commands say them: an
//! event narrated (a line of `log`, `replay`, `run`, `play`), its JSON, the
//! seed mode in words, and the document of a verified record (`verify`,
//! `import`, the dice server's `/verify`).

use rollcall_core::game::{Game, Verified};
use rollcall_core::record::{Event, Header, SeedMode};
use rollcall_core::ruleset::Actor;
use rollcall_core::text;
use serde_json::{json, Value};

use super::Item;

/// An event as JSON: its seq, kind, body and hash, and its narrative.
pub fn event_json(game: &Game, e: &Event) -> Value {
    json!({"seq": e.seq, "kind": e.kind.name(), "body": e.body, "hash": e.hash.to_string(), "narrative": game.narrate(e).trim()})
}

/// An event, narrated by the game it is in: as `log` lists it (seq, kind,
/// hash, narrative) or, `replay`, `run` and `play`, the narrative alone.
pub struct Narrated<'a> {
    pub game: &'a Game,
    pub event: &'a Event,
    pub listed: bool,
}

impl Item for Narrated<'_> {
    fn text(&self) -> String {
        let (g, e) = (self.game, self.event);
        if self.listed {
            format!(
                "{:>5}  {:<8} {}  {}",
                e.seq,
                e.kind.name(),
                e.hash.short(),
                text::escape(g.narrate(e).trim_start())
            )
        } else {
            text::escape(&g.narrate(e)).to_string()
        }
    }

    fn json(&self) -> Value {
        event_json(self.game, self.event)
    }
}

/// A seed mode in words.
pub fn mode_name(mode: SeedMode) -> &'static str {
    match mode {
        SeedMode::Open => "open-seed",
        SeedMode::Table => "table (hand-rolled)",
        SeedMode::Sealed => "sealed (a dice server's, revealed turn by turn)",
    }
}

/// The document of a verified record.
pub fn verified_json(id: &str, v: &Verified, header: &Header) -> Value {
    let dice_proven = match (&v.mode, &v.sealed) {
        (SeedMode::Open, _) => true,
        (SeedMode::Sealed, Some(s)) => s.open.is_none(),
        _ => false,
    };
    let sealed = v.sealed.as_ref().map(|s| {
        let mut turns: Vec<Value> = s
            .proven
            .iter()
            .map(|(turn, first, last)| json!({"turn": turn, "decisions": [first, last], "status": "proven"}))
            .collect();
        if let Some((turn, first, last)) = s.open {
            turns.push(json!({"turn": turn, "decisions": [first, last], "status": "sealed until the turn ends"}));
        }
        json!({"turns": turns, "summary": s.describe()})
    });
    json!({"ok": true, "game": id, "rules": header.rules.version, "rules_hash": header.rules_hash.to_string(), "mode": v.mode,
        "events": v.events, "decisions": v.decisions, "turn": v.turn, "head": v.head.to_string(), "dice_proven": dice_proven,
        "guarantee": v.guarantee(), "signed": v.signed, "unsigned_decisions": v.unsigned, "signatures": v.signatures(),
        "sealed": sealed})
}

/// Whose decision a game awaits, as JSON: `{"side": S}` or `{"referee": true}`.
pub fn actor_json(actor: &Actor) -> Value {
    match actor {
        Actor::Side(s) => json!({"side": s}),
        Actor::Referee => json!({"referee": true}),
    }
}
