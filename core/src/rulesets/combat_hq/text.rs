//! Combat HQ in words: one line of narrative per fact, and the state as text.
//!
//! A fact narrates without the state: it carries every number it needs.

use std::collections::BTreeMap;

use super::{Fact, FirstPulseBy, NoRoll, Payment, State};

/// Dice as a reader sees them: their faces, or "none" (a list that says
/// nothing would read as a fault).
pub(super) fn faces(dice: &[u32]) -> String {
    if dice.is_empty() {
        "none".into()
    } else {
        dice.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
    }
}

fn plural(n: u32, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

fn by_id(map: &BTreeMap<String, u32>) -> String {
    map.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
}

/// `germans'`, `hart's`.
fn possessive(id: &str) -> String {
    if id.ends_with('s') {
        format!("{id}'")
    } else {
        format!("{id}'s")
    }
}

fn chain_of(number: u32) -> String {
    format!("chain of {number}s")
}

/// One line of narrative for a fact.
pub fn narrate(fact: &Fact) -> String {
    match fact {
        Fact::TurnBegan { .. } | Fact::TurnEnded { .. } => turn_text(fact),
        Fact::CommandDiceRolled { .. } | Fact::CommandDiceNotRolled { .. } | Fact::WildDiceGiven { .. } => {
            dice_text(fact)
        }
        Fact::FirstPulse { .. } | Fact::ChainPlayed { .. } | Fact::PulseEnded { .. } => pulse_text(fact),
        Fact::ReservesHeldBack { .. } | Fact::ReserveEntered { .. } => reserve_text(fact),
        Fact::StaffOrdersCaptured { .. } | Fact::StaffOrdersRestocked { .. } => staff_orders_text(fact),
        Fact::CommandGroupActivated { .. } | Fact::UnitMoved { .. } => group_text(fact),
    }
}

/// The state as text: the rule version, the turn, then each side.
pub fn render(state: &State) -> String {
    let mut out = format!("combat-hq@{}\n", state.config.version.name());
    match &state.turn {
        None => out.push_str("before the first turn\n"),
        Some(t) => {
            let now = if t.ended {
                "ended".to_string()
            } else {
                match &t.pulse {
                    Some(side) => format!("Command Pulse to {side}"),
                    None => "no Command Pulse left".to_string(),
                }
            };
            out.push_str(&format!("turn {} ({} rolled first): {now}\n", t.number, t.first));
        }
    }
    for side in &state.sides {
        let co = match &side.co_name {
            Some(name) => format!("{} ({name})", side.co),
            None => side.co.clone(),
        };
        out.push_str(&format!("{}: CO {co}, Staff Orders of his own {}\n", side.id, side.co_staff_orders));
        for id in &side.battle_groups {
            let bg = &state.battle_groups[id];
            let name = bg.name.as_ref().map(|n| format!(" \"{n}\"")).unwrap_or_default();
            out.push_str(&format!(
                "  {}{name}: Command Dice {}, Active Dice Pool {} (from next turn {}), held by reserve groups {}; Staff Orders {} usable + {} next turn; Morale Points {}\n",
                bg.id,
                bg.command_dice,
                bg.active_pool,
                bg.command_dice - bg.dice_held_by_reserves,
                bg.dice_held_by_reserves,
                bg.staff_orders,
                bg.staff_orders_next_turn,
                bg.morale_points
            ));
            if let Some(t) = state.turn.as_ref().filter(|t| !t.ended) {
                let mut notes = Vec::new();
                if let Some(left) = t.dice.get(id) {
                    notes.push(format!("dice left: {}", faces(left)));
                }
                if let Some(cost) = t.reserves_held_back.get(id) {
                    notes.push(format!("reserves held back ({cost} Staff Orders each to enter)"));
                }
                if !notes.is_empty() {
                    out.push_str(&format!("    {}\n", notes.join("; ")));
                }
            }
            for cg_id in &bg.command_groups {
                let cg = &state.command_groups[cg_id];
                let units: Vec<String> = cg
                    .units
                    .iter()
                    .map(|u| {
                        let unit = &state.units[u];
                        let mark = if *u == cg.command_unit { "*" } else { "" };
                        format!("{u}{mark} {}", unit.at_tenths)
                    })
                    .collect();
                out.push_str(&format!(
                    "    {:<10} {:<13} {:<8} {}\n",
                    cg.id,
                    cg.kind.name(),
                    if cg.in_reserve { "reserve" } else { "table" },
                    units.join(", ")
                ));
            }
        }
        if let Some(t) = state.turn.as_ref().filter(|t| !t.ended) {
            if let Some(w) = t.wild_dice.get(&side.id).filter(|w| **w > 0) {
                out.push_str(&format!("  Wild Dice this turn: {w}\n"));
            }
        }
    }
    out
}

/// The turn: its beginning (Staff Orders become usable) and its end (dice lost).
fn turn_text(fact: &Fact) -> String {
    match fact {
        Fact::TurnBegan { turn, first, released, staff_orders } => {
            let mut line = format!("Turn {turn} begins, {first} rolling first.");
            if !released.is_empty() {
                // A fact narrates whatever it holds: verify narrates the
                // facts of a changed record too, which need not add up.
                let now: Vec<String> = released
                    .iter()
                    .map(|(bg, n)| match staff_orders.get(bg) {
                        Some(now) => format!("{bg} +{n} (now {now})"),
                        None => format!("{bg} +{n}"),
                    })
                    .collect();
                line.push_str(&format!(" Staff Orders restocked last turn become usable: {}.", now.join(", ")));
            }
            line
        }
        Fact::TurnEnded { turn, unplayed, wild_dice_lost } => {
            let mut lost = Vec::new();
            if !unplayed.is_empty() {
                let dice: Vec<String> = unplayed.iter().map(|(bg, d)| format!("{bg} {}", faces(d))).collect();
                lost.push(format!("dice not played are lost: {}", dice.join(", ")));
            }
            if !wild_dice_lost.is_empty() {
                lost.push(format!("Wild Dice lost: {}", by_id(wild_dice_lost)));
            }
            if lost.is_empty() {
                format!("Turn {turn} ends.")
            } else {
                format!("Turn {turn} ends; {}.", lost.join("; "))
            }
        }
        _ => unreachable!("narrate sends only the turn's facts here"),
    }
}

/// Command Dice: the roll, Command Failure, and the Wild Dice the enemy gains.
fn dice_text(fact: &Fact) -> String {
    match fact {
        Fact::CommandDiceRolled {
            battle_group,
            side,
            active_pool,
            held_by_reserves,
            dice,
            ones,
            sixes,
            command_failure,
            ..
        } => {
            let held = if *held_by_reserves > 0 {
                format!(" ({} held by reserve groups)", held_by_reserves)
            } else {
                String::new()
            };
            let outcome = if *command_failure {
                format!("more 1s ({ones}) than 6s ({sixes}): COMMAND FAILURE")
            } else if *ones > 0 {
                format!(
                    "1s {ones}, 6s {sixes}: no Command Failure; {} discarded",
                    if *ones == 1 { "the 1 is" } else { "the 1s are" }
                )
            } else {
                "no 1s".to_string()
            };
            format!(
                "{battle_group} ({side}) rolls its Active Dice Pool of {}{held}: {} - {outcome}.",
                plural(*active_pool, "die", "dice"),
                faces(dice)
            )
        }
        Fact::CommandDiceNotRolled {
            battle_group,
            side,
            active_pool,
            held_by_reserves,
            reason,
        } => match reason {
            NoRoll::AllInReserve => format!(
                "{battle_group} ({side}) does not roll: all its units other than artillery are in reserve (Active Dice Pool {active_pool}, {} held by reserve groups).",
                plural(*held_by_reserves, "die", "dice")
            ),
            NoRoll::EmptyPool => format!(
                "{battle_group} ({side}) has no die to roll: its reserve groups hold all {} of its Command Dice.",
                held_by_reserves
            ),
        },
        Fact::WildDiceGiven {
            from_battle_group,
            to_side,
            wild_dice,
            total,
        } => format!(
            "{} 1s go to {to_side} as {} ({total} held by {to_side} this turn).",
            possessive(from_battle_group),
            plural(*wild_dice, "Wild Die", "Wild Dice"),
        ),
        _ => unreachable!("narrate sends only the Command Dice facts here"),
    }
}

/// Command Pulses: who goes first, the chains played, a pulse passed.
fn pulse_text(fact: &Fact) -> String {
    match fact {
        Fact::FirstPulse { side, decided } => match (side, decided) {
            (None, _) | (_, FirstPulseBy::NoDice) => {
                "No Command Pulses this turn: no side has dice to chain.".to_string()
            }
            (Some(side), FirstPulseBy::OnlySideWithDice) => {
                format!("First Command Pulse: {side}, the only side with dice to chain.")
            }
            (Some(side), FirstPulseBy::MostDice { face, counts }) => {
                let level = if *face < 6 { "; higher faces level" } else { "" };
                format!("First Command Pulse: {side}, with most {face}s ({}{level}).", by_id(counts))
            }
            (Some(side), FirstPulseBy::RollOff { rolls }) => {
                let rounds: Vec<String> = rolls.iter().map(by_id).collect();
                format!("The sides rolled alike; roll-off: {}. First Command Pulse: {side}.", rounds.join("; then "))
            }
        },
        Fact::ChainPlayed { side, battle_group, number, dice, wild_dice, dice_left, .. } => {
            let wild = if *wild_dice > 0 {
                format!(" + {}", plural(*wild_dice, "Wild Die", "Wild Dice"))
            } else {
                String::new()
            };
            let total = (dice.len() as u32).saturating_add(*wild_dice);
            let left = faces(dice_left);
            format!(
                "Command Pulse, {side}: {battle_group} plays a {} ({}{wild}: {}); dice left: {left}.",
                chain_of(*number),
                faces(dice),
                plural(total, "die", "dice")
            )
        }
        Fact::PulseEnded { side, unused_dice, next } => {
            let unused = if *unused_dice > 0 {
                format!(" ({} did nothing)", plural(*unused_dice, "die", "dice"))
            } else {
                String::new()
            };
            match next {
                Some(next) => {
                    format!("End of the {side} pulse{unused}; next Command Pulse: {next}.")
                }
                None => format!("End of the {side} pulse{unused}; no Command Pulse is left this turn."),
            }
        }
        _ => unreachable!("narrate sends only the Command Pulses' facts here"),
    }
}

/// Reserves: held back, and entering the table.
fn reserve_text(fact: &Fact) -> String {
    match fact {
        Fact::ReservesHeldBack { battle_group, reserve_groups, staff_orders_per_group } => {
            if reserve_groups.is_empty() {
                format!("{battle_group} has no reserves for the failure to hold back.")
            } else {
                format!(
                    "{} reserves ({}) cannot enter this turn unless the CO pays {} for each.",
                    possessive(battle_group),
                    reserve_groups.join(", "),
                    plural(*staff_orders_per_group, "Staff Order", "Staff Orders")
                )
            }
        }
        Fact::ReserveEntered {
            battle_group,
            command_group,
            paid,
            die_released,
            held_by_reserves,
            pool_from_next_turn,
        } => {
            let how = match paid {
                Payment::Die { chain } => format!("by a die of the {}", chain_of(*chain)),
                Payment::StaffOrders { count, from, left } => {
                    format!("for {} from {from} ({left} left)", plural(*count, "Staff Order", "Staff Orders"))
                }
            };
            let pool = possessive(battle_group);
            let die = if *die_released {
                format!("its Command Die joins {pool} Active Dice Pool from the next turn ({pool_from_next_turn} dice)")
            } else if *held_by_reserves > 0 {
                format!(
                    "it held no Command Die (the other reserves hold {held_by_reserves}): {pool} pool stays {pool_from_next_turn}"
                )
            } else {
                format!("it held no Command Die: {pool} pool stays {pool_from_next_turn}")
            };
            format!("{command_group} enters the table from reserve {how}; {die}.")
        }
        _ => unreachable!("narrate sends only the reserves' facts here"),
    }
}

/// Staff Orders: captured, and restocked.
fn staff_orders_text(fact: &Fact) -> String {
    match fact {
        Fact::StaffOrdersCaptured { from_battle_group, to_side, co, staff_orders, total } => format!(
            "{} 1s go to the enemy CO, {co} ({to_side}), as {} (he holds {total} of his own).",
            possessive(from_battle_group),
            plural(*staff_orders, "Staff Order", "Staff Orders")
        ),
        Fact::StaffOrdersRestocked {
            battle_group,
            chain_dice,
            earned,
            restocked,
            at_once,
            cap,
            staff_orders,
            staff_orders_next_turn,
        } => {
            let when = if *at_once { "usable at once (a chain of 6s)" } else { "usable from the next turn" };
            let what = if *restocked == 0 {
                format!(
                    "earns {}, but {battle_group} already holds its cap of {cap} (one per Command Die)",
                    plural(*earned, "Staff Order", "Staff Orders")
                )
            } else if restocked == earned {
                format!("restocks {}, {when}", plural(*restocked, "Staff Order", "Staff Orders"))
            } else {
                format!(
                    "earns {}; {restocked} fit under its cap of {cap} (one per Command Die), {when}",
                    plural(*earned, "Staff Order", "Staff Orders")
                )
            };
            format!(
                "{} chain of {chain_dice} dice {what}: {staff_orders} usable, {staff_orders_next_turn} waiting.",
                possessive(battle_group)
            )
        }
        _ => unreachable!("narrate sends only the Staff Orders' facts here"),
    }
}

/// Command groups: activated, and their units moved.
fn group_text(fact: &Fact) -> String {
    match fact {
        Fact::CommandGroupActivated { command_group, command_unit, units, range_tenths, .. } => {
            if units.is_empty() {
                format!("{command_group} is activated: its command unit {command_unit} alone.")
            } else {
                let with: Vec<String> = units.iter().map(|u| format!("{} at {}", u.unit, u.distance_tenths)).collect();
                format!(
                    "{command_group} is activated: {command_unit} with {} tenths of an inch (within {range_tenths}).",
                    with.join(", ")
                )
            }
        }
        Fact::UnitMoved { unit, from_tenths, to_tenths } => {
            format!("{unit} moves from {from_tenths} to {to_tenths} (tenths of an inch).")
        }
        _ => unreachable!("narrate sends only the command groups' facts here"),
    }
}
