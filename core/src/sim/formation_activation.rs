//! Random legal games of formation activation: a scenario of one or two
//! formations a side, each an HQ and units around it, and the decisions of
//! both sides and the referee.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{Candidate, Generator, Measure, Policy, Ranked, Rng, Tally};
use crate::record::Header;
use crate::rulesets::formation_activation::{Fact, FormationActivation, Hex, State, Unit};

/// The generator.
pub struct FormationGames;

pub const SIDES: [&str; 2] = ["red", "blue"];

/// A hex number `CCRR`, kept on a small map.
pub fn hex(column: i64, row: i64) -> String {
    format!("{:02}{:02}", column.clamp(0, 12), row.clamp(0, 12))
}

/// A hex at most `reach` columns and rows from `from`.
pub fn near(rng: &mut Rng, from: &Hex, reach: usize) -> String {
    let step = |rng: &mut Rng| rng.below(2 * reach + 1) as i64 - reach as i64;
    hex(i64::from(from.column) + step(rng), i64::from(from.row) + step(rng))
}

/// A small random formation-activation scenario: one or two formations a
/// side, each an HQ and up to four units around it (some off the map, some
/// disrupted, some newly placed), and one or two end-turn chits.
pub fn scenario(rng: &mut Rng) -> Value {
    let mut formations = Vec::new();
    let mut units = Vec::new();
    for (s, side) in SIDES.iter().enumerate() {
        for f in 0..1 + rng.below(2) {
            let id = format!("{side}-f{f}");
            let hq = format!("{id}-hq");
            let (column, row) = (2 + 4 * f as i64, 2 + 5 * s as i64);
            formations.push(json!({
                "id": id, "side": side, "hq": hq,
                "morale": 4 + rng.below(7),
                "leadership": rng.below(4),
                "command_radius_hexes": rng.below(4),
                "chits": 1 + rng.below(2),
            }));
            units.push(json!({"id": hq, "formation": id, "hex": hex(column, row), "disrupted": rng.one_in(4)}));
            for u in 0..1 + rng.below(4) {
                let mut unit = json!({"id": format!("{id}-u{u}"), "formation": id, "disrupted": rng.one_in(3)});
                if !rng.one_in(6) {
                    // Often stacked with the HQ, otherwise around it, some beyond its radius.
                    let at = if rng.one_in(3) {
                        hex(column, row)
                    } else {
                        hex(column + rng.below(7) as i64 - 3, row + rng.below(7) as i64 - 3)
                    };
                    unit["hex"] = json!(at);
                    unit["newly_placed"] = json!(rng.one_in(8));
                }
                units.push(unit);
            }
        }
    }
    let end_turn_chits: Vec<String> = (1..=1 + rng.below(2)).map(|n| format!("end-{n}")).collect();
    let mut scenario =
        json!({"sides": SIDES, "formations": formations, "units": units, "end_turn_chits": end_turn_chits});
    if rng.one_in(2) {
        scenario["end_turn_after"] = json!(1 + rng.below(end_turn_chits.len()));
    }
    scenario
}

/// The header of a random formation-activation game, options and some
/// constants at random.
fn random_header(seed: u64, version: &str) -> Header {
    let mut rng = Rng(seed);
    let scenario = scenario(&mut rng);
    let mut options = BTreeMap::new();
    for name in ["leadership-adds-to-rating", "rally-per-hex"] {
        options.insert(name.to_string(), json!(rng.one_in(2)));
    }
    let mut constants = BTreeMap::new();
    if rng.one_in(3) {
        constants.insert("operations-per-activation".into(), json!(1 + rng.below(2)));
        constants.insert("out-of-command-rally-modifier".into(), json!(rng.below(3)));
    }
    let rules = super::resolve(version, &options, &constants);
    let parties = super::parties(&mut rng, &SIDES);
    super::header(format!("random-formation-{seed}"), rules, scenario, parties)
}

/// Every decision worth trying in this state: begin a turn, draw chits,
/// operations of the active formation's units, reaction fire by the other
/// side, the end of the activation, and the referee's outcomes (disrupted,
/// eliminated, placed, relocated).
pub fn candidates(state: &State, rng: &mut Rng) -> Vec<Value> {
    let mut out = vec![json!({"type": "begin-turn"})];
    for _ in 0..3 {
        out.push(json!({"type": "draw-chit"}));
    }
    let units: Vec<&Unit> = state.units.values().collect();
    let on_map: Vec<&Unit> = units.iter().copied().filter(|u| u.on_map().is_some()).collect();
    let active = state.turn.as_ref().and_then(|t| t.activation.as_ref());
    if let Some(a) = active {
        out.push(json!({"type": "end-activation"}));
        for u in on_map.iter().filter(|u| u.formation == a.formation) {
            let at = u.on_map().unwrap();
            out.push(match rng.below(3) {
                0 => json!({"type": "move", "unit": u.id, "to": near(rng, &at, 1)}),
                1 => json!({"type": "fire", "unit": u.id, "at": near(rng, &at, 3)}),
                _ => json!({"type": "assault", "unit": u.id, "at": near(rng, &at, 1)}),
            });
        }
        let others: Vec<&&Unit> = on_map.iter().filter(|u| state.formations[&u.formation].side != a.side).collect();
        if !others.is_empty() && rng.one_in(3) {
            let u = rng.pick(&others);
            out.push(json!({"type": "reaction-fire", "unit": u.id, "at": near(rng, &u.on_map().unwrap(), 3)}));
        }
    }
    if rng.one_in(4) {
        out.push(json!({"type": "disrupt", "unit": rng.pick(&units).id, "reason": "fire"}));
    }
    if rng.one_in(40) {
        out.push(json!({"type": "eliminate", "unit": rng.pick(&units).id, "reason": "assault"}));
    }
    let off_map: Vec<&&Unit> = units.iter().filter(|u| u.hex.is_none() && !u.eliminated).collect();
    if !off_map.is_empty() && rng.one_in(3) {
        let u = rng.pick(&off_map);
        let hq = &state.units[&state.formations[&u.formation].hq];
        let at = hq.hex.unwrap_or(Hex::new(5, 5));
        out.push(json!({"type": "place", "unit": u.id, "hex": near(rng, &at, 2)}));
    }
    if !on_map.is_empty() && rng.one_in(10) {
        let u = rng.pick(&on_map);
        out.push(
            json!({"type": "relocate", "unit": u.id, "to": near(rng, &u.on_map().unwrap(), 1), "reason": "retreat"}),
        );
    }
    if rng.one_in(2) {
        out.push(mistake(&units, rng));
    }
    out
}

/// A decision a player or referee might get wrong: any unit operating or
/// taking reaction fire (eliminated, off the map, of the wrong side or
/// formation), a unit moving or relocated to where it is, a unit placed
/// that is on the map. The rules refuse most of them; none may panic.
fn mistake(units: &[&Unit], rng: &mut Rng) -> Value {
    let u = rng.pick(units);
    let here = u.hex.map(|h| h.to_string()).unwrap_or_else(|| hex(5, 5));
    match rng.below(6) {
        0 => json!({"type": rng.pick(&["move", "relocate"]), "unit": u.id, "to": here, "reason": "stays"}),
        1 => json!({"type": rng.pick(&["fire", "assault"]), "unit": u.id, "at": here}),
        2 => json!({"type": "reaction-fire", "unit": u.id, "at": here}),
        3 => json!({"type": "place", "unit": u.id, "hex": here}),
        4 => json!({"type": rng.pick(&["disrupt", "eliminate"]), "unit": "nobody", "reason": "none"}),
        _ => json!({"type": "move", "unit": u.id, "to": hex(rng.below(13) as i64, rng.below(13) as i64)}),
    }
}

impl Generator for FormationGames {
    type Ruleset = FormationActivation;
    const RULESET: &'static str = "formation-activation";

    /// A random scenario, options and some constants at random.
    fn header(seed: u64, version: &str) -> Header {
        random_header(seed, version)
    }

    fn policies() -> Vec<Box<dyn Policy<FormationActivation>>> {
        vec![Box::new(random()), Box::new(operate_all())]
    }

    fn winning() -> Result<&'static str, &'static str> {
        Err("formation activation models the action phase's command alone: victory is the scenario's, outside the model")
    }

    fn measures() -> Vec<Measure> {
        vec![
            Measure::Rate {
                name: "command-test-success",
                what: "morale tests for command (a hex beyond the HQ's radius, or an HQ destroyed) passed",
                successes: "command-tests-passed",
                trials: "command-tests",
            },
            Measure::Rate {
                name: "rally-success",
                what: "rally tests of disrupted units that rally",
                successes: "rallies-passed",
                trials: "rally-tests",
            },
            Measure::Count { name: "command-tests", what: "morale tests for command per game" },
            Measure::Count { name: "out-of-command", what: "units out of command as operations begin, per game" },
            Measure::Count { name: "rally-tests", what: "rally tests per game" },
            Measure::Count { name: "activations", what: "formation activations per game" },
            Measure::Count { name: "operations", what: "moves, fire and assaults per game" },
            Measure::Count { name: "reaction-fire", what: "reaction fire per game" },
            Measure::Count { name: "disrupted", what: "units disrupted per game (referee inputs): units broken" },
            Measure::Count { name: "eliminated", what: "units eliminated per game (referee inputs)" },
            Measure::Absent { name: "CP spent", why: "activation is by chits drawn, not command points" },
        ]
    }

    fn observe(fact: &Fact, tally: &mut Tally) {
        match fact {
            Fact::MoraleTested { passed, .. } => {
                tally.add("command-tests", 1);
                tally.add("command-tests-passed", u64::from(*passed));
            }
            Fact::RallyTested { rallied, .. } => {
                tally.add("rally-tests", 1);
                tally.add("rallies-passed", u64::from(*rallied));
            }
            Fact::OperationsBegan { out_of_command, .. } => tally.add("out-of-command", out_of_command.len() as u64),
            Fact::ActivationBegan { .. } => tally.add("activations", 1),
            Fact::Moved { .. } | Fact::Fired { .. } | Fact::Assaulted { .. } => tally.add("operations", 1),
            Fact::ReactionFired { .. } => tally.add("reaction-fire", 1),
            Fact::Disrupted { .. } => tally.add("disrupted", 1),
            Fact::Eliminated { .. } => tally.add("eliminated", 1),
            _ => {}
        }
    }
}

/// Every decision worth trying, mistakes and referee outcomes included, at random.
pub fn random() -> Ranked<FormationActivation> {
    Ranked::random(
        "chit draws, operations of any unit, reaction fire, ends of activations, the referee's outcomes (disrupted, eliminated, placed, relocated), and mistakes, at random",
        None,
        |state, rng| candidates(state, rng).into_iter().map(Candidate::new).collect(),
    )
}

/// Operate every unit: each in-command unit of the active formation moves,
/// fires or assaults before the activation ends, the other side fires in
/// reaction when it can, and the next chit is drawn only then. The referee
/// steps in one decision in eight.
pub fn operate_all() -> Ranked<FormationActivation> {
    Ranked {
        name: "operate-all",
        about: "every in-command unit of the active formation operates before the activation ends; reaction fire when possible; the referee's outcomes one decision in eight",
        referee_one_in: Some(8),
        propose: random().propose,
        rank: |_, mut c| {
            c.priority = match c.kind() {
                "move" | "fire" | "assault" => 3,
                "reaction-fire" => 2,
                "end-activation" | "draw-chit" | "begin-turn" => 1,
                _ => return Some(Candidate { optional: true, ..c }),
            };
            Some(c)
        },
    }
}
