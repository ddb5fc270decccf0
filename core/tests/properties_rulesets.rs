//! Property tests over random legal games of combat-hq (both versions) and
//! formation-activation, as `properties.rs` does for leader activation.
//!
//! The library's generators (`rollcall_core::sim::{combat_hq,
//! formation_activation}`) make a small random scenario from a seed, then
//! propose plausible decisions from the current state — players' and the
//! referee's — and play the first the rules accept. For each game:
//! - it is never stuck: some decision is always legal, and the one that
//!   moves the game on (the pulse, the end of a turn, the next chit) is;
//!   no decision is refused after a die was rolled for it;
//! - every state keeps the ruleset's invariants (Staff Orders under their
//!   cap, reserves holding their dice, the cup and its end-turn chits, …)
//!   and round-trips through serde;
//! - replay equals the live game, verify passes, and the heads match;
//! - a sample of single-byte changes to the exported record all fail;
//! - dice agree across versions (combat-hq@base and @multi-bg; formation's
//!   options on and off), and with nothing in reserve the two combat-hq
//!   versions part first at the first Command Failure;
//! - formation's F2 (`leadership-adds-to-rating`) never parts under diff;
//! - every fact narrates to a line and round-trips through serde, and any
//!   single change to a fact that still parses narrates without panicking
//!   (verify narrates the facts of a changed record);
//! - the games make progress (turns advance, chains and activations are
//!   played), so none of the above holds vacuously.
//!
//! The generators also propose mistakes (a chain of 7s, a unit operating
//! out of turn, …): the rules refuse them, and none may panic.
//!
//! Reproducible randomness: the base seed is printed, and
//! `ROLLCALL_SEED=<n> cargo test -p rollcall-core --test properties_rulesets`
//! reruns it.

mod support;

use std::collections::BTreeMap;

use rollcall_core::game::{Decide, Game};
use rollcall_core::record::{Event, Header};
use rollcall_core::ruleset::Ruleset;
use rollcall_core::rulesets::combat_hq::{self, CombatHq};
use rollcall_core::rulesets::formation_activation::{self as formation, FormationActivation};
use rollcall_core::sim::combat_hq::{self as combat_hq_sim, CombatGames};
use rollcall_core::sim::formation_activation::FormationGames;
use rollcall_core::sim::Generator;
use serde_json::{json, Value};
use support::{base_seed, Rng};

/// Decisions per random game.
const DECISIONS: usize = 300;

/// Decisions per game whose record is changed byte by byte: verify re-runs
/// the record up to the change, each time, so these games are shorter.
const SHORT: usize = 30;

/// A random game played to its end: the seed, header, events and live game.
struct Played {
    seed: u64,
    header: Header,
    events: Vec<Event>,
    game: Game,
}

// ------------------------------------------------------------------ combat-hq

/// What must always be legal in combat-hq: the side whose Command Pulse it
/// is can play a chain (the plainest: every die of its highest number); a
/// turn with no pulse left has no dice left either; an open turn can end;
/// an ended turn (or none) lets the next begin.
fn assert_combat_can_move_on(seed: u64, game: &Game, state: &combat_hq::State) {
    assert_combat_invariants(seed, game, state);
    let legal = |decision: Value| {
        game.decide(&decision, Decide::default()).unwrap_or_else(|refusal| {
            panic!(
                "seed {seed}: after {} decisions, {decision} is refused: {refusal}\n{}",
                game.decisions(),
                game.render()
            )
        });
    };
    match state.turn.as_ref().filter(|t| !t.ended) {
        None => legal(json!({"type": "begin-turn", "first": state.sides[0].id})),
        Some(t) => {
            match &t.pulse {
                Some(side) => {
                    let left = combat_hq_sim::dice_left(state, side);
                    let Some((bg, dice)) = left.first() else {
                        panic!("seed {seed}: the pulse is {side}'s, but {side} has no dice:\n{}", game.render())
                    };
                    legal(json!({"type": "pulse", "battle_group": bg, "number": dice[0]}));
                }
                None => {
                    for side in &state.sides {
                        let left = combat_hq_sim::dice_left(state, &side.id);
                        assert!(
                            left.is_empty(),
                            "seed {seed}: no pulse is left, but {} has dice {left:?}:\n{}",
                            side.id,
                            game.render()
                        );
                    }
                }
            }
            legal(json!({"type": "end-turn"}));
        }
    }
}

/// What holds in every combat-hq state: a battle group holds no more Staff
/// Orders (usable and waiting) than it has Command Dice; its reserves hold
/// one die each under multi-bg (never more than it has) and none under base;
/// the dice left to chain are 2 to 6, highest first; Wild Dice only under base.
fn assert_combat_invariants(seed: u64, game: &Game, state: &combat_hq::State) {
    let fail = |what: String| panic!("seed {seed}: after {} decisions, {what}\n{}", game.decisions(), game.render());
    let multi = state.config.version == combat_hq::Version::MultiBg;
    for bg in state.battle_groups.values() {
        if bg.staff_orders + bg.staff_orders_next_turn > bg.command_dice {
            fail(format!(
                "{} holds {} + {} Staff Orders with {} Command Dice",
                bg.id, bg.staff_orders, bg.staff_orders_next_turn, bg.command_dice
            ));
        }
        let reserves = bg.command_groups.iter().filter(|c| state.command_groups[*c].in_reserve).count() as u32;
        let held = if multi { reserves.min(bg.command_dice) } else { 0 };
        if bg.dice_held_by_reserves != held {
            fail(format!("{}'s {reserves} reserve groups hold {} dice, not {held}", bg.id, bg.dice_held_by_reserves));
        }
        if bg.active_pool > bg.command_dice {
            fail(format!("{}'s Active Dice Pool {} is more than its {} dice", bg.id, bg.active_pool, bg.command_dice));
        }
    }
    if let Some(t) = &state.turn {
        for (bg, left) in &t.dice {
            if left.iter().any(|d| !(2..=6).contains(d)) || left.windows(2).any(|w| w[0] < w[1]) {
                fail(format!("{bg} has dice {left:?} left to chain"));
            }
        }
        if multi && t.wild_dice.values().any(|n| *n > 0) {
            fail(format!("Wild Dice {:?} under multi-bg", t.wild_dice));
        }
    }
}

/// A random legal game of generator `G`'s ruleset, `decisions` decisions
/// long; after each, its state round-trips as ruleset `R`'s and
/// `can_move_on` holds.
fn random_game<G: Generator, R: Ruleset>(
    seed: u64,
    header: Header,
    decisions: usize,
    can_move_on: fn(u64, &Game, &R::State),
) -> Played
where
    R::State: serde::de::DeserializeOwned,
{
    let (events, game) = support::play::<G>(seed, &header, decisions, |game, _| {
        let value = game.state();
        let state: R::State = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(serde_json::to_value(&state).unwrap(), value, "seed {seed}: the state does not round-trip");
        can_move_on(seed, game, &state);
    });
    Played { seed, header, events, game }
}

/// A random legal combat-hq game of `decisions` decisions.
fn combat_game(seed: u64, header: Header, decisions: usize) -> Played {
    random_game::<CombatGames, CombatHq>(seed, header, decisions, assert_combat_can_move_on)
}

/// Random games under `version`, seeds `base + offset ..`.
fn combat_games(
    base: u64,
    offset: u64,
    version: &str,
    count: u64,
    max_battle_groups: usize,
    decisions: usize,
) -> Vec<Played> {
    (0..count)
        .map(|i| {
            let seed = base.wrapping_add(offset + i);
            combat_game(seed, combat_hq_sim::header(seed, version, max_battle_groups), decisions)
        })
        .collect()
}

/// Replay, verify, narration and serde over random games, and the games
/// make progress: turns advance and chains, activations, reserves entering,
/// restocking and Command Failures all occur.
fn check_combat_games(version: &str, max_battle_groups: usize, expected: &[&str]) {
    let base = base_seed();
    let mut facts = BTreeMap::new();
    for played in combat_games(base, 0, version, 6, max_battle_groups, DECISIONS) {
        let Played { seed, header, events, game } = played;
        support::assert_replay_equals_live_and_verifies(seed, &header, &events, &game);
        support::assert_facts_narrate_and_round_trip::<CombatHq>(seed, &events);
        support::assert_changed_facts_narrate::<CombatHq>(seed, &events);
        assert!(game.turn() >= 5, "seed {seed}: {DECISIONS} decisions reached only turn {}", game.turn());
        support::count_facts(&events, combat_fact_kinds, &mut facts);
    }
    println!("{version}: facts {facts:#?}");
    for kind in expected {
        assert!(facts.get(*kind).copied().unwrap_or(0) > 0, "no {kind} in any game: the test exercised too little");
    }
}

/// A combat-hq fact's type, and how it came about where that varies.
fn combat_fact_kinds(fact: &Value) -> Vec<String> {
    let t = fact["type"].as_str().unwrap().to_string();
    let how = match t.as_str() {
        "first-pulse" => fact["decided"]["by"].as_str(),
        "reserve-entered" => fact["paid"]["with"].as_str(),
        "command-dice-not-rolled" => fact["reason"].as_str(),
        "command-dice-rolled" if fact["command_failure"] == true => Some("command-failure"),
        "staff-orders-restocked" if fact["restocked"].as_u64() < fact["earned"].as_u64() => Some("capped"),
        _ => None,
    };
    let mut kinds = vec![t.clone()];
    kinds.extend(how.map(|h| format!("{t}/{h}")));
    kinds
}

const COMBAT_FACTS: [&str; 9] = [
    "turn-began",
    "command-dice-rolled",
    "first-pulse",
    "chain-played",
    "command-group-activated",
    "reserve-entered",
    "staff-orders-restocked",
    "pulse-ended",
    "turn-ended",
];

#[test]
fn combat_hq_base_random_games_replay_verify_and_narrate() {
    let mut expected = COMBAT_FACTS.to_vec();
    expected.extend(["wild-dice-given", "unit-moved"]);
    check_combat_games("combat-hq@base", 1, &expected);
}

#[test]
fn combat_hq_multi_bg_random_games_replay_verify_and_narrate() {
    let mut expected = COMBAT_FACTS.to_vec();
    expected.extend(["staff-orders-captured", "reserves-held-back", "command-dice-not-rolled", "unit-moved"]);
    check_combat_games("combat-hq@multi-bg", 3, &expected);
}

/// A sample of single-byte changes to each exported record, all caught.
fn assert_sampled_byte_changes_caught(games: Vec<Played>, samples: usize) {
    for Played { seed, header, events, .. } in games {
        let bytes = support::export(&header, &events);
        support::check(&bytes).unwrap_or_else(|e| panic!("seed {seed}: the untouched record fails: {e}"));
        let mut rng = Rng(seed);
        for _ in 0..samples {
            let at = rng.below(bytes.len());
            support::assert_byte_change_caught(seed, &bytes, at, &mut rng);
        }
    }
}

#[test]
fn combat_hq_single_byte_changes_are_caught() {
    let base = base_seed();
    let mut games = combat_games(base, 0, "combat-hq@base", 1, 1, SHORT);
    games.extend(combat_games(base, 1, "combat-hq@multi-bg", 1, 3, SHORT));
    assert_sampled_byte_changes_caught(games, 100);
}

/// The same decisions under combat-hq@base and @multi-bg (a scenario both
/// accept: one battle group a side): every die both roll has one face.
#[test]
fn combat_hq_dice_agree_between_base_and_multi_bg() {
    let base = base_seed();
    let mut shared = 0;
    for i in 0..6 {
        let seed = base.wrapping_add(i);
        let mut rng = Rng(seed);
        let scenario = combat_hq_sim::scenario(&mut rng, 1);
        let constants = combat_hq_sim::constants(&mut rng);
        let parties = support::parties(&mut rng, &combat_hq_sim::SIDES);
        let (first, other) = if i % 2 == 0 { ("base", "multi-bg") } else { ("multi-bg", "base") };
        let rules_a = combat_hq_sim::rules(&mut rng, &format!("combat-hq@{first}"), &constants);
        let rules_b = combat_hq_sim::rules(&mut rng, &format!("combat-hq@{other}"), &constants);
        let header = support::header(format!("random-combat-{seed}"), rules_a, scenario, parties);
        let played = combat_game(seed, header.clone(), DECISIONS);
        let rolls = support::dice_under(&[header.clone(), support::under(&header, rules_b)], &played.events);
        shared += support::assert_dice_agree(seed, &rolls[0], &rolls[1]);
    }
    assert!(shared > 0, "no die was rolled under both versions: the test checked nothing");
}

/// The versions differ in reserves and in Command Failures only: with every
/// command group on the table, the same decisions part under diff first at
/// the first Command Failure (Wild Dice under base, Staff Orders under
/// multi-bg), and not at all in a game without one.
#[test]
fn combat_hq_versions_part_first_at_a_command_failure_when_nothing_is_in_reserve() {
    let base = base_seed();
    let (mut parted, mut agreed) = (0, 0);
    for i in 0..6 {
        let seed = base.wrapping_add(i);
        let mut rng = Rng(seed);
        let mut scenario = combat_hq_sim::scenario(&mut rng, 1);
        for side in scenario["sides"].as_array_mut().unwrap() {
            for cg in side["battle_groups"][0]["command_groups"].as_array_mut().unwrap() {
                cg["start"] = json!("table");
                cg["kind"] = json!("company");
            }
        }
        let constants = combat_hq_sim::constants(&mut rng);
        let parties = support::parties(&mut rng, &combat_hq_sim::SIDES);
        let rules_base = combat_hq_sim::rules(&mut rng, "combat-hq@base", &constants);
        let rules_multi = combat_hq_sim::rules(&mut rng, "combat-hq@multi-bg", &constants);
        let header = support::header(format!("random-combat-{seed}"), rules_base.clone(), scenario, parties);
        let Played { events, .. } = combat_game(seed, header.clone(), DECISIONS / 3);
        let first_failure = events
            .iter()
            .find(|e| e.body["fact"]["type"] == "command-dice-rolled" && e.body["fact"]["command_failure"] == true)
            .map(|e| e.body["decision"].as_u64().unwrap());
        let report = rollcall_core::diff::diff(
            &header,
            events.into_iter().map(Ok::<_, String>),
            &rules_base,
            &rules_multi,
            false,
            rollcall_core::registry::builtin(),
        )
        .unwrap();
        let first_divergence = report.divergences.first().map(|d| d.number);
        assert_eq!(first_divergence, first_failure, "seed {seed}: {}", report.summary());
        if first_failure.is_some() {
            parted += 1;
        } else {
            agreed += 1;
        }
    }
    assert!(parted > 0, "no game had a Command Failure: the test checked little (agreed {agreed})");
}

// ------------------------------------------------------- formation-activation

/// A formation-activation fact's type, and how it came about where that varies.
fn formation_fact_kinds(fact: &Value) -> Vec<String> {
    let t = fact["type"].as_str().unwrap().to_string();
    let how = match t.as_str() {
        "morale-tested" => fact["reason"]["why"].as_str(),
        "rally-tested" if fact["per_hex"] == true => Some("per-hex"),
        "eliminated" if fact["hq"] == true => Some("hq"),
        _ => None,
    };
    let mut kinds = vec![t.clone()];
    kinds.extend(how.map(|h| format!("{t}/{h}")));
    if t == "rally-tested" && fact["rallied"] == true {
        kinds.push("rally-tested/rallied".into());
    }
    kinds
}

/// What must always be legal in formation-activation: with a formation
/// active, its activation can end; with none, a chit can be drawn while the
/// turn goes on; once the turn is over (or before the first), the next begins.
fn assert_formation_can_move_on(seed: u64, game: &Game, state: &formation::State) {
    assert_formation_invariants(seed, game, state);
    let next = match &state.turn {
        None => json!({"type": "begin-turn"}),
        Some(t) if t.activation.is_some() => json!({"type": "end-activation"}),
        Some(t) if t.over => json!({"type": "begin-turn"}),
        Some(_) => json!({"type": "draw-chit"}),
    };
    if let Err(refusal) = game.decide(&next, Decide::default()) {
        panic!("seed {seed}: after {} decisions, {next} is refused: {refusal}\n{}", game.decisions(), game.render());
    }
}

/// What holds in every formation-activation state: the cup holds chits of
/// the game, once each, in canonical order, and every end-turn chit until
/// the turn is over; a formation is activated at most once per chit; the
/// active formation's side is its own; a unit conducts at most
/// `operations-per-activation` operations, and is operations complete once
/// it has; a unit off the map is neither out of
/// command, nor operations complete, nor newly placed (it may be disrupted:
/// the scenario may say so).
fn assert_formation_invariants(seed: u64, game: &Game, state: &formation::State) {
    let fail = |what: String| panic!("seed {seed}: after {} decisions, {what}\n{}", game.decisions(), game.render());
    if let Some(t) = &state.turn {
        if t.cup.windows(2).any(|w| w[0] >= w[1]) || t.cup.iter().any(|c| !state.chits.contains_key(c)) {
            fail(format!("the cup holds {:?}", t.cup));
        }
        let end_turn_left = t.cup.iter().filter(|c| state.chits[*c] == formation::Chit::EndTurn).count() as u32;
        let end_turn_chits = state.chits.values().filter(|c| **c == formation::Chit::EndTurn).count() as u32;
        if end_turn_left + t.end_turn_drawn != end_turn_chits || t.over != (t.end_turn_drawn >= state.end_turn_after) {
            fail(format!("{} end-turn chits drawn, {end_turn_left} left, over: {}", t.end_turn_drawn, t.over));
        }
        for (f, n) in &t.activations {
            if *n as usize > state.formations[f].chits.len() {
                fail(format!("{f} activated {n} times with {} chits", state.formations[f].chits.len()));
            }
        }
        if let Some(a) = &t.activation {
            if state.formations[&a.formation].side != a.side || t.over {
                fail(format!("{} is active for {} (turn over: {})", a.formation, a.side, t.over));
            }
        }
    }
    let most = state.config.operations_per_activation;
    for u in state.units.values() {
        if u.operations > most || u.operations_complete != (u.operations >= most) {
            fail(format!(
                "{} has {} operations (of {most}), operations complete: {}",
                u.id, u.operations, u.operations_complete
            ));
        }
    }
    for u in state.units.values().filter(|u| u.hex.is_none()) {
        if u.out_of_command || u.operations_complete || u.newly_placed {
            fail(format!("{} is off the map with command or operations markers", u.id));
        }
    }
}

/// A random legal formation-activation game of `decisions` decisions.
fn formation_game(seed: u64, header: Header, decisions: usize) -> Played {
    random_game::<FormationGames, FormationActivation>(seed, header, decisions, assert_formation_can_move_on)
}

fn formation_games(base: u64, count: u64, decisions: usize) -> Vec<Played> {
    (0..count)
        .map(|i| {
            let seed = base.wrapping_add(i);
            formation_game(seed, FormationGames::header(seed, "formation-activation@1"), decisions)
        })
        .collect()
}

#[test]
fn formation_random_games_replay_verify_and_narrate() {
    let base = base_seed();
    let mut facts = BTreeMap::new();
    for Played { seed, header, events, game } in formation_games(base, 8, DECISIONS) {
        support::assert_replay_equals_live_and_verifies(seed, &header, &events, &game);
        support::assert_facts_narrate_and_round_trip::<FormationActivation>(seed, &events);
        support::assert_changed_facts_narrate::<FormationActivation>(seed, &events);
        assert!(game.turn() >= 3, "seed {seed}: {DECISIONS} decisions reached only turn {}", game.turn());
        support::count_facts(&events, formation_fact_kinds, &mut facts);
    }
    println!("formation-activation: facts {facts:#?}");
    for kind in [
        "turn-began",
        "chit-drawn",
        "end-turn-chit-drawn",
        "turn-ended",
        "activation-began",
        "cleaned-up",
        "in-command-within-radius",
        "newly-placed-in-command",
        "morale-tested",
        "rally-tested",
        "operations-began",
        "moved",
        "fired",
        "assaulted",
        "reaction-fired",
        "activation-ended",
        "disrupted",
        "placed",
        "relocated",
    ] {
        assert!(facts.get(kind).copied().unwrap_or(0) > 0, "no {kind} in any game: the test exercised too little");
    }
}

#[test]
fn formation_single_byte_changes_are_caught() {
    let base = base_seed();
    assert_sampled_byte_changes_caught(formation_games(base, 2, SHORT), 100);
}

/// The same decisions with each option on and off: every die two settings
/// both roll has one face.
#[test]
fn formation_dice_agree_with_options_on_and_off() {
    let base = base_seed();
    let mut shared = 0;
    for Played { seed, header, events, .. } in formation_games(base, 4, DECISIONS) {
        let mut headers = Vec::new();
        for (f2, f3) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut rules = header.rules.clone();
            rules.options.insert("leadership-adds-to-rating".into(), f2);
            rules.options.insert("rally-per-hex".into(), f3);
            headers.push(support::under(&header, rules));
        }
        let rolls = support::dice_under(&headers, &events);
        for other in &rolls[1..] {
            shared += support::assert_dice_agree(seed, &rolls[0], other);
        }
    }
    assert!(shared > 0, "no die was rolled under two settings: the test checked nothing");
}

/// F2 only changes bookkeeping: under diff its two readings never part, on
/// games in which units stacked with their HQ rally with its leadership.
#[test]
fn formation_leadership_adds_to_rating_never_parts_under_diff() {
    let base = base_seed();
    let mut with_leadership = 0;
    for Played { seed, header, events, .. } in formation_games(base, 6, DECISIONS) {
        with_leadership += events
            .iter()
            .filter(|e| e.body["fact"]["type"] == "rally-tested")
            .filter(|e| {
                e.body["fact"]["modifiers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|m| m["value"].as_i64().is_some_and(|v| v < 0))
            })
            .count();
        let mut a = header.rules.clone();
        a.options.insert("leadership-adds-to-rating".into(), false);
        let mut b = a.clone();
        b.options.insert("leadership-adds-to-rating".into(), true);
        let report = rollcall_core::diff::diff(
            &header,
            events.into_iter().map(Ok::<_, String>),
            &a,
            &b,
            true,
            rollcall_core::registry::builtin(),
        )
        .unwrap();
        assert!(report.agree(), "seed {seed}: {}\n{:?}", report.summary(), report.divergences);
    }
    assert!(with_leadership > 0, "no rally took the HQ's leadership: F2 was not exercised");
}
