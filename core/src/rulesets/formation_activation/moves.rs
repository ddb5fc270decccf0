//! What may be decided now, for the listing ([`crate::moves`]): drawing
//! the next chit, the active formation's operations (where a unit goes or
//! what hex it fires at left to fill in), reaction fire by the other side,
//! and the referee's outcomes. `decide` judges which are legal; nothing here
//! refuses.

use serde_json::json;

use super::{Fact, Hex, State, Unit};
use crate::proposal::form::choices;
use crate::proposal::{Field, Known, Proposal, Shape};

/// A hex next to `hex` (the one below it, or above it on the last row):
/// an example of a hex a unit may move to or assault.
fn beside(hex: Hex) -> Hex {
    if hex.row < 99 {
        Hex::new(hex.column, hex.row + 1)
    } else {
        Hex::new(hex.column, hex.row - 1)
    }
}

fn hex_field(name: &str, about: &str, example: Hex) -> Field {
    Field::new(name, about, Shape::Hex, json!(example.to_string()))
}

pub(super) fn proposals(state: &State) -> Vec<Proposal> {
    let mut out = vec![
        Proposal::new("Begin the turn", json!({"type": "begin-turn"}), "begin the next turn: every chit goes into the cup"),
        Proposal::new(
            "Draw a chit",
            json!({"type": "draw-chit"}),
            "draw the next chit from the cup: a formation chit activates its formation (command, rally, then its operations)",
        ),
    ];
    let on_map: Vec<(&Unit, Hex)> = state.units.values().filter_map(|u| u.on_map().map(|h| (u, h))).collect();
    if let Some(a) = state.turn.as_ref().and_then(|t| t.activation.as_ref()) {
        for (u, hex) in on_map.iter().filter(|(u, _)| u.formation == a.formation) {
            operations(u, *hex, &mut out);
        }
        out.push(Proposal::new(
            "End the activation",
            json!({"type": "end-activation"}),
            format!("{}'s operations are over", a.formation),
        ));
        let others =
            on_map.iter().filter(|(u, _)| state.formations.get(&u.formation).is_some_and(|f| f.side != a.side));
        for (u, hex) in others {
            out.push(
                Proposal::new(
                    "Reaction fire",
                    json!({"type": "reaction-fire", "unit": u.id}),
                    format!("{} (in {hex}) takes reaction fire", u.id),
                )
                .with(hex_field("at", "the hex fired at", *hex)),
            );
        }
    }
    referee(state, &on_map, &mut out);
    out
}

/// A unit of the active formation moves, fires or assaults.
fn operations(u: &Unit, hex: Hex, out: &mut Vec<Proposal>) {
    let id = &u.id;
    out.push(
        Proposal::new("Move", json!({"type": "move", "unit": id}), format!("{id} (in {hex}) moves"))
            .with(hex_field("to", "the hex where its move ends (the referee's outcome)", beside(hex)).by_referee()),
    );
    out.push(
        Proposal::new("Fire", json!({"type": "fire", "unit": id}), format!("{id} (in {hex}) fires")).with(hex_field(
            "at",
            "the hex fired at",
            beside(hex),
        )),
    );
    out.push(
        Proposal::new("Assault", json!({"type": "assault", "unit": id}), format!("{id} (in {hex}) assaults"))
            .with(hex_field("at", "the hex assaulted", beside(hex))),
    );
}

/// The referee's outcomes: disruption, elimination, placing, relocating.
fn referee(state: &State, on_map: &[(&Unit, Hex)], out: &mut Vec<Proposal>) {
    let reason = |example: &str| Field::new("reason", "why, for the record", Shape::Text, json!(example)).by_referee();
    let unit_field = |of: &[(&Unit, Hex)]| {
        let example = of.first().map(|(u, _)| json!(u.id)).unwrap_or_default();
        let of = choices(of.iter().map(|(u, h)| (u.id.clone(), format!("{} (in {h})", u.id))));
        Field::new("unit", "the unit", Shape::OneOf { choices: of }, example).by_referee()
    };
    let undisrupted: Vec<(&Unit, Hex)> = on_map.iter().filter(|(u, _)| !u.disrupted).copied().collect();
    if !undisrupted.is_empty() {
        out.push(
            Proposal::new(
                "Disrupt a unit",
                json!({"type": "disrupt"}),
                "a unit is disrupted (an outcome of fire or assault)",
            )
            .with(unit_field(&undisrupted))
            .with(reason("fire")),
        );
    }
    if !on_map.is_empty() {
        out.push(
            Proposal::new("Eliminate a unit", json!({"type": "eliminate"}), "a unit is eliminated (an HQ: destroyed)")
                .with(unit_field(on_map))
                .with(reason("assault")),
        );
    }
    let off_map: Vec<&Unit> = state.units.values().filter(|u| u.hex.is_none() && !u.eliminated).collect();
    if let Some(first) = off_map.first() {
        let hq = state.formations.get(&first.formation).and_then(|f| state.units.get(&f.hq)).and_then(Unit::on_map);
        let of = choices(off_map.iter().map(|u| (u.id.clone(), format!("{} ({})", u.id, u.formation))));
        out.push(
            Proposal::new("Place a unit", json!({"type": "place"}), "a unit is newly placed on the map")
                .with(Field::new("unit", "the unit", Shape::OneOf { choices: of }, json!(first.id)).by_referee())
                .with(hex_field("hex", "where it is placed", hq.unwrap_or(Hex::new(1, 1))).by_referee()),
        );
    }
    for (u, hex) in on_map {
        out.push(
            Proposal::new(
                "Relocate a unit",
                json!({"type": "relocate", "unit": u.id}),
                format!("{} (in {hex}) ends up in another hex (an advance, a retreat)", u.id),
            )
            .with(hex_field("to", "the hex it ends up in", beside(*hex)).by_referee())
            .with(reason("retreat")),
        );
    }
}

/// Nothing is known before the dice of a draw fall: the chit drawn decides
/// which formation tests what.
pub(super) fn known(_state: &State, _facts: &[Fact]) -> Known {
    Known::default()
}
