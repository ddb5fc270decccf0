//! Random legal games of leader activation: a scenario of one to three
//! leaders a side, each with up to four units around him, and the
//! decisions of both sides and the referee.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{Candidate, Generator, Measure, Policy, Ranked, Rng, Tally};
use crate::record::Header;
use crate::rules::SettingKind;
use crate::rulesets::leader_activation::{Fact, LeaderActivation, Role, State};

/// The generator.
pub struct LeaderGames;

const SIDES: [&str; 2] = ["red", "blue"];

/// A random scenario: each side has one to three leaders 300 mm apart, each
/// with one to four units within 120 mm; some of each start broken.
pub fn scenario(rng: &mut Rng) -> Value {
    let mut leaders = Vec::new();
    let mut units = Vec::new();
    let skills = ["elite", "trained", "conscript"];
    for (s, side) in SIDES.iter().enumerate() {
        for l in 0..1 + rng.below(3) {
            let x = (l as i64) * 300;
            let y = (s as i64) * 1000;
            leaders.push(json!({"id": format!("{side}-l{l}"), "side": side, "skill": skills[rng.below(3)], "at": [x, y], "broken": rng.below(5) == 0}));
            for u in 0..1 + rng.below(4) {
                let at = [x + rng.below(240) as i64 - 120, y + rng.below(240) as i64 - 120];
                units.push(json!({"id": format!("{side}-l{l}-u{u}"), "side": side, "skill": skills[rng.below(3)], "at": at, "broken": rng.below(4) == 0}));
            }
        }
    }
    json!({"sides": SIDES, "leaders": leaders, "units": units})
}

impl Generator for LeaderGames {
    type Ruleset = LeaderActivation;
    const RULESET: &'static str = "leader-activation";

    /// A random scenario, each option on one time in three.
    fn header(seed: u64, version: &str) -> Header {
        let mut rng = Rng(seed);
        let scenario = scenario(&mut rng);
        let spec = crate::registry::version(version).expect("a leader-activation version");
        let mut options = BTreeMap::new();
        for s in spec.settings.iter().filter(|s| s.kind == SettingKind::Option) {
            options.insert(s.name.to_string(), json!(rng.below(3) == 0));
        }
        let rules = super::resolve(version, &options, &BTreeMap::new());
        let parties = super::parties(&mut rng, &SIDES);
        super::header(format!("random-{seed}"), rules, scenario, parties)
    }

    fn policies() -> Vec<Box<dyn Policy<LeaderActivation>>> {
        vec![Box::new(random()), Box::new(rally_first())]
    }

    fn winning() -> Result<&'static str, &'static str> {
        Err("leader activation models the command phase alone: no side wins or loses by it")
    }

    fn measures() -> Vec<Measure> {
        vec![
            Measure::Rate {
                name: "rally-success",
                what: "rally tests that rally their units",
                successes: "rallies-passed",
                trials: "rally-tests",
            },
            Measure::Rate {
                name: "self-rally-success",
                what: "self-rally tests that rally the leader",
                successes: "self-rallies-passed",
                trials: "self-rally-tests",
            },
            Measure::Count { name: "rally-tests", what: "rally tests per game" },
            Measure::Count { name: "units-rallied", what: "units rallied per game" },
            Measure::Count { name: "activations", what: "leader activations per game" },
            Measure::Count { name: "units-commanded", what: "units commanded per game" },
            Measure::Count { name: "skips", what: "activations skipped per game" },
            Measure::Count { name: "broken", what: "leaders and units broken per game (referee inputs)" },
            Measure::Absent {
                name: "command checks",
                why: "commanding a unit takes no roll: only its command range counts",
            },
            Measure::Absent { name: "CP spent", why: "no command points: a leader commands up to three units" },
            Measure::Absent { name: "command failures", why: "a command is legal or refused, never failed" },
        ]
    }

    fn observe(fact: &Fact, tally: &mut Tally) {
        match fact {
            Fact::RallyTested { rallied, units, .. } => {
                tally.add("rally-tests", 1);
                if *rallied {
                    tally.add("rallies-passed", 1);
                    tally.add("units-rallied", units.len() as u64);
                }
            }
            Fact::SelfRallyTested { rallied, .. } => {
                tally.add("self-rally-tests", 1);
                tally.add("self-rallies-passed", u64::from(*rallied));
            }
            Fact::LeaderActivated { .. } => tally.add("activations", 1),
            Fact::UnitCommanded { .. } => tally.add("units-commanded", 1),
            Fact::Skipped { .. } => tally.add("skips", 1),
            Fact::Broke { .. } => tally.add("broken", 1),
            _ => {}
        }
    }
}

/// Every decision worth trying, mistakes and referee inputs included, at random.
pub fn random() -> Ranked<LeaderActivation> {
    Ranked::random(
        "every plausible decision of either side and the referee (breaks, moves, close combat), mistakes included, at random",
        None,
        |state, rng| candidates(state, rng).into_iter().map(Candidate::new).collect(),
    )
}

/// Every decision worth trying in this state (the rules decide which are legal).
pub fn candidates(state: &State, rng: &mut Rng) -> Vec<Value> {
    let mut out = Vec::new();
    let pieces: Vec<_> = state.pieces.values().collect();
    for side in &state.sides {
        out.push(json!({"type": "begin-turn", "first": side}));
        out.push(json!({"type": "skip", "side": side}));
    }
    for p in &pieces {
        match p.role {
            Role::Leader => out.push(json!({"type": "activate", "leader": p.id})),
            Role::Unit => {
                out.push(json!({"type": "command", "unit": p.id}));
                out.push(json!({"type": "unit-action", "unit": p.id, "action": "fires"}));
            }
        }
    }
    let broken: Vec<_> = pieces.iter().filter(|p| p.broken && p.role == Role::Unit).map(|p| p.id.clone()).collect();
    for n in 1..=broken.len().min(3) {
        out.push(json!({"type": "rally", "units": broken[..n]}));
    }
    out.push(json!({"type": "self-rally"}));
    out.push(json!({"type": "leader-action", "action": "moves"}));
    for _ in 0..4 {
        out.push(json!({"type": "end-activation"}));
    }
    let p = pieces[rng.below(pieces.len())];
    if rng.below(6) == 0 {
        out.push(json!({"type": "break", "piece": p.id, "reason": "fire"}));
    }
    if rng.below(3) == 0 {
        out.push(json!({"type": "move", "piece": p.id, "to": [p.at.x + rng.below(60) as i64 - 30, p.at.y + rng.below(60) as i64 - 30]}));
    }
    if rng.below(10) == 0 && p.role == Role::Leader {
        out.push(
            json!({"type": if p.locked { "free-from-close-combat" } else { "lock-in-close-combat" }, "leader": p.id}),
        );
    }
    out
}

/// Rally when a rally is possible: a broken leader self-rallies first; a
/// leader rallies as many broken units as he may before anything else
/// (which ends his activation); otherwise he commands every unit he can
/// before acting or ending; a side never skips a leader it could activate.
/// The referee steps in one decision in eight.
pub fn rally_first() -> Ranked<LeaderActivation> {
    Ranked {
        name: "rally-first",
        about: "a broken leader self-rallies, a leader rallies as many broken units as he may before anything else, else commands every unit he can; sides never skip when they can activate; the referee steps in one decision in eight",
        referee_one_in: Some(8),
        propose: random().propose,
        rank: |_, mut c| {
            let (priority, weight) = match c.kind() {
                "self-rally" => (5, 1),
                "rally" => (5, c.decision["units"].as_array().map_or(1, |u| u.len() * u.len())),
                "command" => (4, 1),
                "begin-turn" | "activate" => (3, 1),
                "end-activation" | "unit-action" | "leader-action" => (2, 1),
                "skip" => (1, 1),
                _ => return Some(Candidate { optional: true, ..c }),
            };
            c.priority = priority;
            c.weight = weight;
            Some(c)
        },
    }
}
