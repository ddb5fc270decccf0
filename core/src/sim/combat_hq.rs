//! Random legal games of Combat HQ: a scenario of one to three battle
//! groups a side, each of command groups on the table or in reserve, and
//! the decisions of both sides' COs and the referee.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::{Candidate, Generator, Measure, Policy, Ranked, Rng, Tally};
use crate::record::Header;
use crate::rules::RuleVersion;
use crate::rulesets::combat_hq::{CombatHq, CommandGroup, Fact, State, Unit};

/// The generator.
pub struct CombatGames;

pub const SIDES: [&str; 2] = ["axis", "allies"];

/// A small random Combat HQ scenario with up to `max_battle_groups` per side.
/// Artillery starts on the table only with another group of its battle
/// group, so a scenario with one battle group per side plays under both
/// versions. A group that is not artillery starts on the table on some
/// side: with every group in reserve on both sides, and no Staff Orders to
/// bring one on, a game could be nothing but turns begun and ended.
pub fn scenario(rng: &mut Rng, max_battle_groups: usize) -> Value {
    let kinds = ["company", "company", "support", "artillery"];
    let mut sides = Vec::new();
    for (s, side) in SIDES.iter().enumerate() {
        let mut battle_groups = Vec::new();
        for b in 0..1 + rng.below(max_battle_groups) {
            let command_dice = 1 + rng.below(8);
            let mut groups = Vec::new();
            for c in 0..1 + rng.below(4) {
                let centre = [c as i64 * 250 + rng.below(40) as i64, s as i64 * 900 + b as i64 * 250];
                let units: Vec<Value> = (0..1 + rng.below(4))
                    .map(|u| {
                        let at = [centre[0] + rng.below(180) as i64 - 90, centre[1] + rng.below(180) as i64 - 90];
                        json!({"id": format!("{side}-{b}-{c}-u{u}"), "at_tenths": at})
                    })
                    .collect();
                let command_unit = rng.pick(&units)["id"].clone();
                groups.push(json!({
                    "id": format!("{side}-{b}-cg{c}"),
                    "kind": rng.pick(&kinds),
                    "start": if rng.below(5) < 3 { "table" } else { "reserve" },
                    "command_unit": command_unit,
                    "units": units,
                }));
            }
            if !groups.iter().any(|g| g["kind"] != "artillery" && g["start"] == "table") {
                for g in groups.iter_mut().filter(|g| g["kind"] == "artillery") {
                    g["start"] = json!("reserve");
                }
            }
            battle_groups.push(json!({
                "id": format!("{side}-bg{b}"),
                "command_dice": command_dice,
                "staff_orders": rng.below(command_dice + 1),
                "morale_points": 1 + rng.below(12),
                "command_groups": groups,
            }));
        }
        sides.push(json!({"id": side, "co": {"id": format!("{side}-co")}, "battle_groups": battle_groups}));
    }
    let mut groups: Vec<&mut Value> = sides
        .iter_mut()
        .flat_map(|s| s["battle_groups"].as_array_mut().unwrap())
        .flat_map(|bg| bg["command_groups"].as_array_mut().unwrap())
        .collect();
    if !groups.iter().any(|g| g["kind"] != "artillery" && g["start"] == "table") {
        // The first group not artillery, else the first group as a company.
        let first = groups.iter().position(|g| g["kind"] != "artillery").unwrap_or(0);
        groups[first]["kind"] = json!("company");
        groups[first]["start"] = json!("table");
    }
    json!({"sides": sides})
}

/// The constants both versions share, mostly at their defaults.
pub fn constants(rng: &mut Rng) -> BTreeMap<String, Value> {
    let mut constants = BTreeMap::new();
    if rng.one_in(3) {
        constants.insert("activation-range-tenths".into(), json!(rng.pick(&[30, 60, 90])));
        constants.insert("units-per-activation".into(), json!(1 + rng.below(3)));
        constants.insert("reserve-entry-staff-orders".into(), json!(rng.below(3)));
    }
    constants
}

/// A combat-hq version with the shared constants (and, for multi-bg, its own).
pub fn rules(rng: &mut Rng, version: &str, shared: &BTreeMap<String, Value>) -> RuleVersion {
    let mut constants = shared.clone();
    if version.ends_with("multi-bg") && rng.one_in(3) {
        constants.insert("reserve-entry-staff-orders-after-failure".into(), json!(1 + rng.below(3)));
    }
    super::resolve(version, &BTreeMap::new(), &constants)
}

/// The header of a random combat-hq game under `version`.
pub fn header(seed: u64, version: &str, max_battle_groups: usize) -> Header {
    let mut rng = Rng(seed);
    let scenario = scenario(&mut rng, max_battle_groups);
    let shared = constants(&mut rng);
    let rules = rules(&mut rng, version, &shared);
    let parties = super::parties(&mut rng, &SIDES);
    super::header(format!("random-combat-{seed}"), rules, scenario, parties)
}

/// The orders of a chain of `length` dice of `battle_group`: mostly one per
/// die, each activating a group on the table with some of its units (mostly
/// those in range) or entering a reserve group.
fn orders(state: &State, battle_group: &str, length: u32, rng: &mut Rng) -> Vec<Value> {
    let groups = &state.battle_groups[battle_group].command_groups;
    let count = if rng.one_in(3) { rng.below(length as usize + 1) } else { length as usize };
    let mut used = BTreeSet::new();
    let mut orders = Vec::new();
    for _ in 0..count {
        // Now and then a group of another battle group: the rules refuse it.
        let id = if rng.one_in(12) {
            rng.pick(&state.command_groups.keys().collect::<Vec<_>>()).to_string()
        } else {
            rng.pick(groups).clone()
        };
        if !used.insert(id.clone()) {
            continue;
        }
        let cg = &state.command_groups[&id];
        if cg.in_reserve {
            orders.push(json!({"do": "enter", "command_group": id}));
            continue;
        }
        let at = state.units[&cg.command_unit].at_tenths;
        let range = state.config.activation_range_tenths;
        let mut units: Vec<&String> = cg
            .units
            .iter()
            .filter(|u| **u != cg.command_unit && (at.within(state.units[*u].at_tenths, range) || rng.one_in(8)))
            .collect();
        let keep = rng.below(state.config.units_per_activation + 1);
        while units.len() > keep {
            units.swap_remove(rng.below(units.len()));
        }
        orders.push(json!({"do": "activate", "command_group": id, "units": units}));
    }
    orders
}

/// The dice each battle group of `side` has left, by battle group.
pub fn dice_left<'a>(state: &'a State, side: &str) -> Vec<(&'a String, &'a Vec<u32>)> {
    let Some(t) = &state.turn else { return Vec::new() };
    t.dice.iter().filter(|(bg, left)| state.battle_groups[*bg].side == side && !left.is_empty()).collect()
}

/// Every decision worth trying in this state: chains for the side whose
/// pulse it is, reserves entering by Staff Orders, the turn's end and
/// beginning, and the referee moving units.
pub fn candidates(state: &State, rng: &mut Rng) -> Vec<Value> {
    let mut out = Vec::new();
    for side in &state.sides {
        out.push(json!({"type": "begin-turn", "first": side.id}));
    }
    out.push(json!({"type": "end-turn"}));
    if let Some(t) = state.turn.as_ref().filter(|t| !t.ended) {
        if let Some(side) = &t.pulse {
            let wild = t.wild_dice.get(side).copied().unwrap_or(0) as usize;
            for (bg, left) in dice_left(state, side) {
                let sixes = left.iter().filter(|&&d| d == 6).count();
                let numbers: BTreeSet<u32> = left.iter().copied().collect();
                for &number in &numbers {
                    for _ in 0..3 {
                        let of_number = left.iter().filter(|&&d| d == number).count();
                        let with_sixes = if number == 6 { 0 } else { rng.below(sixes + 1) };
                        let wild_dice = rng.below(wild + 1);
                        let length = (of_number + with_sixes + wild_dice) as u32;
                        let orders = orders(state, bg, length, rng);
                        out.push(json!({"type": "pulse", "battle_group": bg, "number": number, "sixes": with_sixes, "wild_dice": wild_dice, "orders": orders}));
                    }
                }
            }
        }
        let reserves: Vec<&CommandGroup> = state.command_groups.values().filter(|c| c.in_reserve).collect();
        if !reserves.is_empty() {
            let cg = rng.pick(&reserves);
            let bg = &state.battle_groups[&cg.battle_group];
            let side = state.sides.iter().find(|s| s.id == bg.side).unwrap();
            let from = match rng.below(4) {
                0 => Value::Null,
                1 => json!(side.co),
                2 => json!(rng.pick(&side.battle_groups)),
                _ => json!(rng.pick(&state.battle_groups.keys().collect::<Vec<_>>())),
            };
            out.push(json!({"type": "enter-reserve", "command_group": cg.id, "staff_orders_from": from}));
        }
    }
    if rng.one_in(3) {
        let units: Vec<&Unit> = state.units.values().collect();
        let u = rng.pick(&units);
        let toward = &state.units[&state.command_groups[&u.command_group].command_unit].at_tenths;
        let to = if rng.one_in(2) {
            [toward.x + rng.below(100) as i64 - 50, toward.y + rng.below(100) as i64 - 50]
        } else {
            [u.at_tenths.x + rng.below(120) as i64 - 60, u.at_tenths.y + rng.below(120) as i64 - 60]
        };
        out.push(json!({"type": "move", "unit": u.id, "to_tenths": to}));
    }
    if rng.one_in(2) {
        out.push(mistake(state, rng));
    }
    out
}

/// A decision a player might get wrong: a chain of a number the battle
/// group lacks, of 1s or of 7s, too many sixes or Wild Dice or orders, the
/// other side's battle group, a group entering that is on the table. The
/// rules refuse most of them; none may panic.
fn mistake(state: &State, rng: &mut Rng) -> Value {
    let bgs: Vec<&String> = state.battle_groups.keys().collect();
    let bg = rng.pick(&bgs);
    let groups: Vec<&String> = state.command_groups.keys().collect();
    let group = rng.pick(&groups);
    match rng.below(6) {
        0 => {
            json!({"type": "pulse", "battle_group": bg, "number": rng.below(8), "sixes": rng.below(3), "wild_dice": rng.below(3)})
        }
        1 => {
            let orders: Vec<Value> = (0..1 + rng.below(4))
                .map(|_| json!({"do": rng.pick(&["activate", "enter"]), "command_group": rng.pick(&groups)}))
                .collect();
            json!({"type": "pulse", "battle_group": bg, "number": 2 + rng.below(5), "orders": orders})
        }
        2 => json!({"type": "enter-reserve", "command_group": group, "staff_orders_from": rng.pick(&bgs)}),
        3 => json!({"type": "begin-turn", "first": rng.pick(&["axis", "allies", "neutrals"])}),
        4 => json!({"type": "move", "unit": rng.pick(&["axis-0-0-u0", "nobody"]), "to_tenths": [-5, 7]}),
        _ => json!({"type": "pulse", "battle_group": "nobody", "number": 6}),
    }
}

impl Generator for CombatGames {
    type Ruleset = CombatHq;
    const RULESET: &'static str = "combat-hq";

    /// A random scenario (one battle group a side under `base`, which
    /// allows no more; up to three under `multi-bg`) and constants.
    fn header(seed: u64, version: &str) -> Header {
        header(seed, version, if version.ends_with("multi-bg") { 3 } else { 1 })
    }

    fn policies() -> Vec<Box<dyn Policy<CombatHq>>> {
        vec![Box::new(random()), Box::new(longest_chain())]
    }

    fn winning() -> Result<&'static str, &'static str> {
        Err("Combat HQ's command dice decide who acts, not who wins: morale and losses are outside the model")
    }

    fn measures() -> Vec<Measure> {
        vec![
            Measure::Rate {
                name: "command-roll-success",
                what: "Active Dice Pool rolls without a Command Failure",
                successes: "command-rolls-ok",
                trials: "command-rolls",
            },
            Measure::Count { name: "command-failures", what: "Command Failures per game" },
            Measure::Count { name: "command-rolls", what: "Active Dice Pool rolls per game" },
            Measure::Count { name: "chains", what: "Dice Chains played per game" },
            Measure::Count {
                name: "dice-chained",
                what: "command dice played in chains per game (Wild Dice included): Combat HQ's CP spent",
            },
            Measure::Count { name: "dice-unplayed", what: "command dice left unplayed at the ends of turns" },
            Measure::Count { name: "groups-activated", what: "command groups activated per game" },
            Measure::Count { name: "reserves-entered", what: "reserve command groups entered per game" },
            Measure::Count { name: "staff-orders-restocked", what: "Staff Orders restocked per game" },
            Measure::Count { name: "wild-dice-given", what: "Wild Dice given for Command Failures (base)" },
            Measure::Count {
                name: "staff-orders-captured",
                what: "Staff Orders captured for Command Failures (multi-bg)",
            },
            Measure::Absent { name: "rally", why: "Combat HQ's command dice have no rally" },
            Measure::Absent { name: "units broken", why: "morale and losses are outside the command dice model" },
        ]
    }

    fn observe(fact: &Fact, tally: &mut Tally) {
        match fact {
            Fact::CommandDiceRolled { command_failure, .. } => {
                tally.add("command-rolls", 1);
                tally.add(if *command_failure { "command-failures" } else { "command-rolls-ok" }, 1);
            }
            Fact::ChainPlayed { dice, wild_dice, .. } => {
                tally.add("chains", 1);
                tally.add("dice-chained", dice.len() as u64 + u64::from(*wild_dice));
            }
            Fact::TurnEnded { unplayed, .. } => {
                tally.add("dice-unplayed", unplayed.values().map(|d| d.len() as u64).sum());
            }
            Fact::CommandGroupActivated { .. } => tally.add("groups-activated", 1),
            Fact::ReserveEntered { .. } => tally.add("reserves-entered", 1),
            Fact::StaffOrdersRestocked { restocked, .. } => tally.add("staff-orders-restocked", u64::from(*restocked)),
            Fact::WildDiceGiven { wild_dice, .. } => tally.add("wild-dice-given", u64::from(*wild_dice)),
            Fact::StaffOrdersCaptured { staff_orders, .. } => {
                tally.add("staff-orders-captured", u64::from(*staff_orders))
            }
            _ => {}
        }
    }
}

/// Every decision worth trying, mistakes and the referee's moves included, at random.
pub fn random() -> Ranked<CombatHq> {
    Ranked::random(
        "chains of any number a battle group holds, with any sixes and Wild Dice, reserves entering, turns ending at any time, the referee's moves, and mistakes, at random",
        None,
        |state, rng| candidates(state, rng).into_iter().map(Candidate::new).collect(),
    )
}

/// Play the longest chains: a side plays a chain whenever it can, the
/// longer the likelier (weight: its dice squared), enters reserves by Staff
/// Orders when it cannot, and ends the turn only when no chain is left. The
/// referee moves a unit one decision in eight.
pub fn longest_chain() -> Ranked<CombatHq> {
    Ranked {
        name: "longest-chain",
        about: "play a chain whenever one can be played, longer chains likelier; enter reserves by Staff Orders otherwise; end the turn only when nothing else is legal; the referee moves units one decision in eight",
        referee_one_in: Some(8),
        propose: random().propose,
        rank: |state, mut c| {
            let (priority, weight) = match c.kind() {
                "pulse" => (3, chain_length(state, &c.decision).pow(2).max(1)),
                "begin-turn" | "enter-reserve" => (2, 1),
                "end-turn" => (1, 1),
                _ => return Some(Candidate { optional: true, ..c }),
            };
            c.priority = priority;
            c.weight = weight;
            Some(c)
        },
    }
}

/// How many dice a proposed chain would play: the battle group's dice of
/// its number, and the sixes and Wild Dice it adds.
fn chain_length(state: &State, pulse: &Value) -> usize {
    let Some(t) = &state.turn else { return 0 };
    let number = pulse["number"].as_u64().unwrap_or(0) as u32;
    let left = pulse["battle_group"].as_str().and_then(|bg| t.dice.get(bg));
    let of_number = left.map_or(0, |d| d.iter().filter(|&&n| n == number).count());
    of_number + pulse["sixes"].as_u64().unwrap_or(0) as usize + pulse["wild_dice"].as_u64().unwrap_or(0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every random scenario has a group that is not artillery on the
    /// table on some side (with none, and no Staff Orders to bring a
    /// reserve on, a game is only turns begun and ended), and artillery
    /// starts on the table only beside another group of its battle group.
    #[test]
    fn a_random_scenario_has_a_group_on_the_table() {
        let on_table = |g: &Value| g["kind"] != "artillery" && g["start"] == "table";
        for seed in 1..3000 {
            let scenario = scenario(&mut Rng(seed), 3);
            let battle_groups: Vec<&Value> = scenario["sides"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|s| s["battle_groups"].as_array().unwrap())
                .collect();
            let groups = || battle_groups.iter().flat_map(|bg| bg["command_groups"].as_array().unwrap());
            assert!(groups().any(on_table), "seed {seed}: no group on the table");
            for bg in &battle_groups {
                let groups = bg["command_groups"].as_array().unwrap();
                let artillery_on_table = groups.iter().any(|g| g["kind"] == "artillery" && g["start"] == "table");
                assert!(
                    !artillery_on_table || groups.iter().any(on_table),
                    "seed {seed}: artillery alone on the table"
                );
            }
        }
    }
}
