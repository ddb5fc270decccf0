//! What may be decided now, for the listing ([`crate::moves`]): the chains a
//! battle group may play (its sixes, Wild Dice and orders left to fill in),
//! reserves entering by Staff Orders, the turn's beginning and end, and the
//! referee's moves. `decide` judges which are legal; nothing here refuses.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::{CommandGroup, Fact, Payment, State};
use crate::proposal::form::choices;
use crate::proposal::{Cost, Field, Form, Known, Proposal, Shape};

pub(super) fn proposals(state: &State) -> Vec<Proposal> {
    let mut out = Vec::new();
    for side in &state.sides {
        out.push(Proposal::new(
            "Begin the turn",
            json!({"type": "begin-turn", "first": side.id}),
            format!("begin the next turn: every battle group rolls its Command Dice, {} first", side.id),
        ));
    }
    if let Some(t) = state.turn.as_ref() {
        for (bg, left) in &t.dice {
            let wild = state.battle_groups.get(bg).and_then(|b| t.wild_dice.get(&b.side)).copied().unwrap_or(0);
            chains(state, bg, left, wild, &mut out);
        }
    }
    for cg in state.command_groups.values().filter(|c| c.in_reserve) {
        out.push(enter_reserve(state, cg));
    }
    out.push(Proposal::new("End the turn", json!({"type": "end-turn"}), "end the turn: dice not played are lost"));
    if let Some(first) = state.units.values().next() {
        let units = choices(state.units.values().map(|u| (u.id.clone(), format!("{} ({})", u.id, u.command_group))));
        let at = json!([first.at_tenths.x, first.at_tenths.y]);
        out.push(
            Proposal::new("Move a unit", json!({"type": "move"}), "a unit on the table moves")
                .with(Field::new("unit", "the unit", Shape::OneOf { choices: units }, json!(first.id)).by_referee())
                .with(
                    Field::new("to_tenths", "where it ends up", Shape::Point { unit: "tenths of an inch".into() }, at)
                        .by_referee(),
                ),
        );
    }
    out
}

/// The chains battle group `bg` may play: one of each number it has left.
fn chains(state: &State, bg: &str, left: &[u32], wild: u32, out: &mut Vec<Proposal>) {
    let numbers: BTreeSet<u32> = left.iter().copied().collect();
    let sixes_left = left.iter().filter(|&&d| d == 6).count() as u32;
    for number in numbers {
        let of_number = left.iter().filter(|&&d| d == number).count() as u32;
        let sixes = if number == 6 { 0 } else { sixes_left };
        let most = of_number + sixes + wild;
        let extra = match (sixes, wild) {
            (0, 0) => String::new(),
            (s, 0) => format!(", and up to {s} six(es)"),
            (0, w) => format!(", and up to {w} Wild Dice"),
            (s, w) => format!(", and up to {s} six(es) and {w} Wild Dice"),
        };
        let count = Shape::Integer { min: 0, max: i64::from(sixes), unit: None };
        let wild_count = Shape::Integer { min: 0, max: i64::from(wild), unit: None };
        let orders = Shape::ListOf { forms: order_forms(state, bg), min: 0, max: most as usize, once: None };
        let base = json!({"type": "pulse", "battle_group": bg, "number": number});
        let activate: Vec<Value> = table_groups(state, bg)
            .take(of_number as usize)
            .map(|cg| json!({"do": "activate", "command_group": cg.id}))
            .collect();
        let mut example = base.clone();
        example["orders"] = Value::Array(activate);
        out.push(
            Proposal::new(
                "Play a Dice Chain",
                base,
                format!("{bg} plays a Dice Chain of {number}s: {of_number} {}{extra}; each die activates a command group or brings one on from reserve", if of_number == 1 { "die" } else { "dice" }),
            )
            .with(Field::optional("sixes", "wild 6s added to the chain", count, Some(json!(0))))
            .with(Field::optional("wild_dice", "Wild Dice added to the chain", wild_count, Some(json!(0))))
            .with(Field::optional("orders", "what each die does (a die without an order is spent doing nothing)", orders, Some(json!([]))))
            .example(example)
            .example(json!({"type": "pulse", "battle_group": bg, "number": number})),
        );
    }
}

fn table_groups<'a>(state: &'a State, bg: &'a str) -> impl Iterator<Item = &'a CommandGroup> {
    state.command_groups.values().filter(move |cg| cg.battle_group == bg && !cg.in_reserve)
}

/// What a die of `bg`'s chain may do: activate one of its groups on the
/// table (with some of its units), or bring one on from reserve.
fn order_forms(state: &State, bg: &str) -> Vec<Form> {
    let mut forms = Vec::new();
    let range = state.config.activation_range_tenths;
    for cg in state.command_groups.values().filter(|cg| cg.battle_group == bg) {
        if cg.in_reserve {
            forms.push(Form::new(
                json!({"do": "enter", "command_group": cg.id}),
                format!("{} enters from reserve", cg.id),
                Vec::new(),
            ));
            continue;
        }
        let Some(command_unit) = state.units.get(&cg.command_unit) else { continue };
        let units = choices(cg.units.iter().filter(|u| **u != cg.command_unit).filter_map(|u| {
            let at = state.units.get(u)?.at_tenths;
            let distance = command_unit.at_tenths.distance_ceil(at);
            Some((u.clone(), format!("{u} ({distance} tenths from {}; range {range})", cg.command_unit)))
        }));
        let max = state.config.units_per_activation;
        forms.push(Form::new(
            json!({"do": "activate", "command_group": cg.id}),
            format!("{} activates: {} and up to {max} of its units within {range} tenths", cg.id, cg.command_unit),
            vec![Field::optional(
                "units",
                "the units activated with the command unit",
                Shape::SomeOf { choices: units, min: 0, max },
                None,
            )],
        ));
    }
    forms
}

/// A reserve group entering by Staff Orders, paid from its battle group
/// unless another pool of its side is named.
fn enter_reserve(state: &State, cg: &CommandGroup) -> Proposal {
    let side = state.battle_groups.get(&cg.battle_group).and_then(|bg| state.sides.iter().find(|s| s.id == bg.side));
    let mut payers = Vec::new();
    if let Some(side) = side {
        for bg in side.battle_groups.iter().filter_map(|b| state.battle_groups.get(b)) {
            payers.push((bg.id.clone(), format!("{} ({} Staff Orders usable)", bg.id, bg.staff_orders)));
        }
        payers.push((side.co.clone(), format!("{} (the CO's own: {})", side.co, side.co_staff_orders)));
    }
    Proposal::new(
        "Bring a reserve on by Staff Orders",
        json!({"type": "enter-reserve", "command_group": cg.id}),
        format!("{} enters the table from reserve, paid in Staff Orders", cg.id),
    )
    .with(Field::optional(
        "staff_orders_from",
        format!("who pays: a battle group or the CO (by default {})", cg.battle_group),
        Shape::OneOf { choices: choices(payers) },
        None,
    ))
    .known_whatever_the_fields()
}

/// What entering by Staff Orders costs (whoever pays).
pub(super) fn known(_state: &State, facts: &[Fact]) -> Known {
    let mut known = Known::default();
    for fact in facts {
        if let Fact::ReserveEntered { paid: Payment::StaffOrders { count, .. }, .. } = fact {
            known.cost = Some(Cost { amount: *count, unit: "Staff Orders".into(), left: None });
        }
    }
    known
}
