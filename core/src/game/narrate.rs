//! The narrative of a game: one line for each event, in the ruleset's words
//! for its facts, and a decision in `type member=value` form.

use serde::Deserialize;
use serde_json::Value;

use crate::dice::TableDice;
use crate::record::{CheckpointBody, DecisionSeen, Event, FactSeen, Kind, RevealBody, RollBodyV1};
use crate::ruleset::{Actor, Machine};

/// One line of narrative for an event, by a ruleset's machine.
pub fn narrate_with(machine: &dyn Machine, event: &Event) -> String {
    let mut line = String::new();
    narrate_into(machine, event, &mut line);
    line
}

/// [`narrate_with`], the line appended to `out` (a narrative of many
/// events is written into one string, not a string per event).
pub(crate) fn narrate_into(machine: &dyn Machine, event: &Event, out: &mut String) {
    use std::fmt::Write;
    match event.kind {
        // Read where it is, not copied out of the event: a decision's shape
        // as `DecisionBody` reads it, its table dice read only when it has them.
        Kind::Decision => match (DecisionSeen::deserialize(&event.body), &event.body["dice"]) {
            (Ok(b), dice) if b.dice.is_none() || TableDice::deserialize(dice).is_ok() => {
                let decision = &event.body["decision"];
                write!(out, "#{} ", b.number).expect("a write to a String succeeds");
                describe_decision_into(decision, out);
                if let Some(by) = &b.by {
                    match machine.author(decision).ok() {
                        Some(Actor::Referee) => write!(out, "  [referee decision, made by {by}]"),
                        _ => write!(out, "  [{by}]"),
                    }
                    .expect("a write to a String succeeds");
                }
                if b.dice.is_some() {
                    let dice = TableDice::deserialize(dice).expect("read above");
                    let rolled: Vec<String> = dice.iter().map(|(l, v)| format!("{l}={v:?}")).collect();
                    write!(out, "  (table dice: {})", rolled.join(" ")).expect("a write to a String succeeds");
                }
            }
            _ => write!(out, "# unreadable decision {}", event.body).expect("a write to a String succeeds"),
        },
        Kind::Roll => match RollBodyV1::deserialize(&event.body) {
            Ok(r) => write!(out, "    roll {} {}#{} = {}", r.die, r.label, r.index, r.value),
            Err(_) => write!(out, "    unreadable roll {}", event.body),
        }
        .expect("a write to a String succeeds"),
        // Read where they are, not copied out of the event.
        Kind::Fact => match FactSeen::deserialize(&event.body) {
            Ok(_) => {
                out.push_str("    ");
                out.push_str(&machine.narrate(&event.body["fact"]));
            }
            Err(_) => write!(out, "    unreadable fact {}", event.body).expect("a write to a String succeeds"),
        },
        Kind::Checkpoint => match serde_json::from_value::<CheckpointBody>(event.body.clone()) {
            Ok(c) => write!(out, "== {} signs the turn (signature {})", c.side, c.signature.short()),
            Err(_) => write!(out, "== unreadable checkpoint {}", event.body),
        }
        .expect("a write to a String succeeds"),
        Kind::Reveal => match serde_json::from_value::<RevealBody>(event.body.clone()) {
            Ok(r) => write!(
                out,
                "== sealed turn {} revealed ({}): the dice of decisions {}–{} can be checked",
                r.turn,
                r.value.short(),
                r.first,
                r.last
            ),
            Err(_) => write!(out, "== unreadable reveal {}", event.body),
        }
        .expect("a write to a String succeeds"),
    }
}

/// `{"type":"command","unit":"U2"}` as `command unit=U2`.
pub fn describe_decision(decision: &Value) -> String {
    let mut out = String::new();
    describe_decision_into(decision, &mut out);
    out
}

/// [`describe_decision`], appended to `out`.
fn describe_decision_into(decision: &Value, out: &mut String) {
    use std::fmt::Write;
    let Some(map) = decision.as_object() else {
        write!(out, "{decision}").expect("a write to a String succeeds");
        return;
    };
    let mut separator = "";
    if let Some(t) = map.get("type").and_then(Value::as_str) {
        out.push_str(t);
        separator = " ";
    }
    for (k, v) in map {
        if k == "type" {
            continue;
        }
        out.push_str(separator);
        separator = " ";
        out.push_str(k);
        out.push('=');
        match v {
            Value::String(s) => out.push_str(s),
            Value::Array(items) if items.iter().all(Value::is_string) => {
                for (i, item) in items.iter().filter_map(Value::as_str).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(item);
                }
            }
            other => write!(out, "{other}").expect("a write to a String succeeds"),
        }
    }
}
