//! Tests of the library's simulated play (`rollcall_core::sim`): long legal
//! games of every ruleset in one call, every policy playing games that
//! verify, purposeful policies doing what they say, and the statistics
//! calibrated — independent games of one version are not reported as
//! different.
//!
//! Reproducible randomness: the base seed is printed, and
//! `ROLLCALL_SEED=<n> cargo test -p rollcall-core --test sim` reruns it.

mod support;

use rollcall_core::game::{verify, Game};
use rollcall_core::sim::stats::{self, GameSummary};
use rollcall_core::sim::{self, Limits, Simulator};
use support::base_seed;

const VERSIONS: [&str; 8] = [
    "leader-activation@2",
    "leader-activation@1",
    "phoenix-command@3",
    "phoenix-command@2",
    "phoenix-command@1",
    "combat-hq@base",
    "combat-hq@multi-bg",
    "formation-activation@1",
];

/// A follower — a player who cannot draw the dice, as against a dice
/// server — plays a whole game from its candidates alone: the game decides
/// each, the follower takes in the facts, and at every step one of its
/// candidates is legal.
#[test]
fn a_follower_plays_on_from_the_facts_alone() {
    let base = base_seed();
    for version in VERSIONS {
        let sim = sim::simulator(version).unwrap();
        let header = sim.random_header(base, version);
        let mut follower = sim.follower(&header, "random", sim::play_rng(base)).unwrap();
        let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
        let mut decisions = 0;
        while decisions < 200 && !follower.over() {
            let events = follower
                .candidates()
                .iter()
                .find_map(|d| game.play(d, None).ok())
                .unwrap_or_else(|| panic!("{version}: no candidate legal after {decisions} decisions"));
            for e in &events {
                follower.observe(e).unwrap();
            }
            decisions += 1;
        }
        assert!(decisions == 200 || (follower.over() && decisions >= 10), "{version}: {decisions} decisions");
    }
}

/// `random_game` gives at least the decisions asked for, every one legal:
/// played into a new game from its header, each is accepted, and the game
/// verifies.
#[test]
fn random_game_gives_long_legal_games_of_every_ruleset() {
    let base = base_seed();
    for version in VERSIONS {
        let (header, decisions) = sim::random_game(version, base, 500).unwrap_or_else(|e| panic!("{version}: {e}"));
        assert!(decisions.len() >= 500, "{version}: {} decisions", decisions.len());
        assert_eq!(header.rules.version, version);
        let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
        let mut events = Vec::new();
        for (i, d) in decisions.iter().enumerate() {
            events.extend(game.play(d, None).unwrap_or_else(|e| panic!("{version}: decision {}: {d}: {e}", i + 1)));
        }
        verify(&header, events.iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin())
            .unwrap_or_else(|f| panic!("{version}: {f}"));
        assert!(events.len() >= 1000, "{version}: {} events", events.len());
        // The same seed, the same game.
        assert_eq!(sim::random_game(version, base, 500).unwrap().1, decisions, "{version}");
    }
}

/// Plays `games` random games of `version` under a policy; every kept
/// record verifies, and its decisions are the summary's.
fn played(sim: &dyn Simulator, version: &str, policy: &str, base: u64, games: u64) -> Vec<GameSummary> {
    let limits = Limits { decisions: 400, turns: Some(3), play_on: false };
    (0..games)
        .map(|i| {
            let seed = base.wrapping_add(i);
            let header = sim.random_header(seed, version);
            let p = sim
                .play(header.clone(), policy, sim::play_rng(seed), limits, true)
                .unwrap_or_else(|e| panic!("seed {seed}: {version} under {policy}: {e}"));
            let verified =
                verify(&header, p.events.iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin())
                    .unwrap_or_else(|f| panic!("seed {seed}: {version} under {policy}: {f}"));
            assert_eq!(verified.decisions, p.summary.decisions, "seed {seed}");
            assert_eq!(p.trace.len() as u64, p.summary.decisions, "seed {seed}");
            p.summary
        })
        .collect()
}

fn mean(games: &[GameSummary], name: &str) -> f64 {
    games.iter().map(|g| g.tally.get(name) as f64).sum::<f64>() / games.len() as f64
}

/// Every policy of every ruleset plays legal games, and the purposeful
/// ones do what they say more than random play does: rally-first rallies
/// more, spend-cp spends more CP, longest-chain leaves fewer dice unplayed,
/// operate-all operates more.
#[test]
fn every_policy_plays_legal_games_and_purposeful_ones_keep_their_purpose() {
    let base = base_seed();
    for (version, purposeful, measure, more) in [
        ("leader-activation@1", "rally-first", "rally-tests", true),
        ("phoenix-command@1", "spend-cp", "cp-spent", true),
        ("combat-hq@base", "longest-chain", "dice-unplayed", false),
        ("combat-hq@multi-bg", "longest-chain", "dice-chained", true),
        ("formation-activation@1", "operate-all", "operations", true),
    ] {
        let sim = sim::simulator(version).unwrap();
        let names: Vec<&str> = sim.policies().iter().map(|p| p.0).collect();
        assert_eq!(names, ["random", purposeful], "{version}");
        let random = played(&*sim, version, "random", base, 12);
        let chosen = played(&*sim, version, purposeful, base, 12);
        let (r, c) = (mean(&random, measure), mean(&chosen, measure));
        assert!(if more { c > r } else { c < r }, "{version}: {measure} {r} at random, {c} under {purposeful}");
    }
}

/// Calibration: the games of one version under two independent sets of
/// seeds differ only by chance, and the comparison reports no difference.
/// Every row of every version is one family here, held to a family-wise
/// α of 0.001 (Holm), so that the test itself fails by chance about once
/// in a thousand runs; a standard error too small by half would fail it
/// most runs.
#[test]
fn independent_games_of_one_version_are_not_reported_different() {
    let base = base_seed();
    let mut rows = Vec::new();
    for version in VERSIONS {
        let sim = sim::simulator(version).unwrap();
        let header = sim.random_header(base, version);
        let names: Vec<&str> = header.parties.iter().map(|p| p.name.as_str()).collect();
        let limits = Limits { decisions: 300, turns: Some(2), play_on: false };
        let play = |seed: u64, i: u64| {
            let h = sim::simulated_header(&header.scenario, header.rules.clone(), &names, seed, i);
            sim.play(h, "random", sim::play_rng(sim::game_rng(seed, i).next_u64()), limits, false).unwrap().summary
        };
        let pairs: Vec<_> = (0..60).map(|i| (play(base, i), play(base ^ 0x5555, i), None)).collect();
        let c = stats::compare(&sim.measures(), sim.winning(), &pairs);
        assert!(c.rows.iter().any(|r| r.p.is_some_and(|p| p < 1.0)), "{version}: nothing varied between games");
        rows.extend(c.rows.into_iter().map(|r| stats::Row {
            name: format!("{version} {}", r.name),
            significant: false,
            ..r
        }));
    }
    stats::holm(&mut rows, 0.001);
    let differ: Vec<String> =
        rows.iter().filter(|r| r.significant).map(|r| format!("{} {:?} p={:?}", r.name, r.difference, r.p)).collect();
    assert!(differ.is_empty(), "seed {base}: independent games differ in {differ:?}");
    let smallest = rows.iter().filter_map(|r| r.p).fold(1.0, f64::min);
    println!("{} rows, the smallest p {smallest}", rows.len());
}
