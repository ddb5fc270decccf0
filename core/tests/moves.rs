//! The listing of legal decisions (`rollcall_core::moves`) against random
//! legal games of every ruleset (the library's generators,
//! `rollcall_core::sim`). At every state of every game:
//! - every decision the simulator's random policy proposes that the game
//!   accepts is listed for the side that may make it (or, for the
//!   referee's, for the referee): some entry admits it — its fixed members
//!   as listed, every other member a field it fits;
//! - every entry listed, filled with its fields' examples, is accepted by
//!   the game (`Game::decide`, the very path `play` takes), for the side it
//!   is listed for;
//! - the listing is the same for the same state under other seed shares:
//!   it depends only on the written state, never on the dice.
//!
//! The games must also list something for the side awaited at almost
//! every state, or the checks above would hold vacuously.
//!
//! Reproducible randomness: the base seed is printed, and
//! `ROLLCALL_SEED=<n> cargo test -p rollcall-core --test moves` reruns it.

mod support;

use rollcall_core::game::{Decide, Game};
use rollcall_core::moves::{self, Listing};
use rollcall_core::record::Header;
use rollcall_core::ruleset::Actor;
use rollcall_core::sim::{self, Generator, Policy, Rng};
use serde_json::Value;
use support::base_seed;

/// Games per ruleset, and decisions per game: every state is listed three
/// times (each side, the referee), so the games are short.
const GAMES: u64 = 3;
const DECISIONS: usize = 90;

/// The listing for whoever may make `decision`: its side, or the referee.
fn listing_for(game: &Game, author: &Actor) -> Listing {
    let side = match author {
        Actor::Side(side) => Some(side.as_str()),
        Actor::Referee => None,
    };
    moves::list(game, side).expect("a side of the game")
}

/// Every entry, filled with its examples, is accepted by the game.
fn assert_entries_accepted(seed: u64, game: &Game, listing: &Listing) {
    for entry in listing.entries() {
        let decision =
            entry.fill(&[], true).unwrap_or_else(|e| panic!("seed {seed}: {} does not fill: {e}", entry.pick));
        if let Err(refusal) = game.decide(&decision, Decide::default()) {
            panic!("seed {seed}: listed {decision} is refused: {refusal}\n{}", game.render());
        }
    }
}

/// Every candidate the random policy proposes that the game accepts is
/// admitted by an entry of its author's listing. Returns how many.
fn assert_legal_candidates_listed<G: Generator>(
    seed: u64,
    game: &Game,
    state: &<G::Ruleset as rollcall_core::Ruleset>::State,
    policy: &dyn Policy<G::Ruleset>,
    rng: &mut Rng,
) -> usize {
    let mut legal = 0;
    let mut listings: Vec<(Actor, Listing)> = Vec::new();
    for candidate in policy.propose(state, rng) {
        let decision: &Value = &candidate.decision;
        if game.decide(decision, Decide::default()).is_err() {
            continue;
        }
        legal += 1;
        let author = game.author(decision).expect("a decision the game accepted reads");
        let listing = match listings.iter().find(|(a, _)| *a == author) {
            Some((_, listing)) => listing,
            None => {
                listings.push((author.clone(), listing_for(game, &author)));
                &listings.last().expect("just pushed").1
            }
        };
        if !listing.entries().any(|e| e.admits(decision)) {
            let listed: Vec<String> = listing.entries().map(|e| format!("  {} {}", e.pick, e.decision)).collect();
            panic!(
                "seed {seed}: {decision} is legal for {author} but not listed; listed:\n{}\n{}",
                listed.join("\n"),
                game.render()
            );
        }
    }
    legal
}

/// The same state under other shares (so other dice) lists the same.
fn assert_listing_depends_on_the_state_alone(seed: u64, header: &Header, game: &Game) {
    let mut other = header.clone();
    let mut rng = Rng(seed ^ 0x5eed);
    other.parties = sim::parties(&mut rng, &other.parties.iter().map(|p| p.name.as_str()).collect::<Vec<_>>());
    let snapshot = game.snapshot().expect("an open game keeps a snapshot");
    let restored = Game::restore(other, &snapshot, rollcall_core::registry::builtin()).expect("the same ruleset");
    for side in game.sides().iter().map(|s| Some(s.as_str())).chain([None]) {
        let a = moves::list(game, side).unwrap();
        let b = moves::list(&restored, side).unwrap();
        assert_eq!(a.groups, b.groups, "seed {seed}: the listing for {side:?} changed with the dice");
    }
}

fn check_ruleset<G: Generator>(base: u64) {
    let policy = sim::random_policy::<G>();
    let (mut states, mut listed_awaited, mut legal) = (0usize, 0usize, 0usize);
    let mut unlisted = None;
    for g in 0..GAMES {
        let seed = base.wrapping_add(g);
        let versions = (rollcall_core::registry::find(G::RULESET).unwrap().versions)();
        let version = versions[g as usize % versions.len()].id();
        let header = G::header(seed, &version);
        let mut rng = Rng(seed | 1);
        support::play::<G>(seed, &header, DECISIONS, |game, state| {
            states += 1;
            for side in game.sides().iter().map(|s| Some(s.as_str())).chain([None]) {
                assert_entries_accepted(seed, game, &moves::list(game, side).unwrap());
            }
            let awaited = moves::list(game, moves::awaited_side(game).as_deref()).unwrap();
            listed_awaited += usize::from(!awaited.is_empty());
            if awaited.is_empty() && unlisted.is_none() {
                unlisted = Some(format!("seed {seed}: nothing for {:?} in\n{}", awaited.side, game.render()));
            }
            legal += assert_legal_candidates_listed::<G>(seed, game, state, &*policy, &mut rng);
            if states % 15 == 0 {
                assert_listing_depends_on_the_state_alone(seed, &header, game);
            }
        });
    }
    assert!(legal > states, "{}: too few legal candidates ({legal} in {states} states) to test", G::RULESET);
    assert_eq!(listed_awaited, states, "{}: a state listed nothing for the side awaited: {unlisted:?}", G::RULESET);
}

#[test]
fn leader_activation_lists_every_legal_decision_and_only_legal_ones() {
    check_ruleset::<sim::leader_activation::LeaderGames>(base_seed());
}

#[test]
fn phoenix_command_lists_every_legal_decision_and_only_legal_ones() {
    check_ruleset::<sim::phoenix_command::PhoenixGames>(base_seed());
}

#[test]
fn combat_hq_lists_every_legal_decision_and_only_legal_ones() {
    check_ruleset::<sim::combat_hq::CombatGames>(base_seed());
}

#[test]
fn formation_activation_lists_every_legal_decision_and_only_legal_ones() {
    check_ruleset::<sim::formation_activation::FormationGames>(base_seed());
}
