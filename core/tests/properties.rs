//! Property tests over random legal games of leader activation.
//!
//! The games are the library's (`rollcall_core::sim::leader_activation`):
//! a random scenario and settings, and every plausible decision of both
//! sides and the referee, mistakes included, played when the rules accept
//! it. For each game: it never sticks, and no decision is refused after a
//! die was rolled for it; replay (folding the logged facts) equals the state
//! built live; verify passes; and every single-byte change to the exported
//! record fails verify or fails to parse with a clear error.
//!
//! Reproducible randomness: the base seed is printed, and
//! `ROLLCALL_SEED=<n> cargo test -p rollcall-core --test properties` reruns it.

mod support;

use rollcall_core::game::{verify, Game};
use rollcall_core::record::{Event, Header};
use rollcall_core::sim::leader_activation::LeaderGames;
use rollcall_core::sim::Generator;
use support::{base_seed, check, export, Rng};

/// A random legal game of up to `n` decisions: its header and events.
fn random_game(seed: u64, n: usize) -> (Header, Vec<Event>, Game) {
    let header = LeaderGames::header(seed, "leader-activation@1");
    let (events, game) = support::play::<LeaderGames>(seed, &header, n, |_, _| {});
    (header, events, game)
}

#[test]
fn replay_equals_live_and_verify_passes() {
    let base = base_seed();
    for i in 0..48 {
        let seed = base.wrapping_add(i);
        let (header, events, live) = random_game(seed, 60);
        let mut replayed = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
        for e in &events {
            replayed.apply(e).unwrap_or_else(|err| panic!("seed {seed}: {err}"));
        }
        assert_eq!(replayed.state(), live.state(), "seed {seed}: replay differs from the live game");
        assert_eq!(replayed.head(), live.head());
        let verified = verify(&header, events.iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin())
            .unwrap_or_else(|f| panic!("seed {seed}: a legal game does not verify: {f}"));
        assert_eq!(verified.head, live.head());
    }
}

#[test]
fn every_single_byte_change_is_caught() {
    let base = base_seed();
    for i in 0..3 {
        let seed = base.wrapping_add(i);
        let (header, events, _) = random_game(seed, 12);
        let bytes = export(&header, &events);
        check(&bytes).unwrap_or_else(|e| panic!("seed {seed}: the untouched record fails: {e}"));
        let mut rng = Rng(seed);
        for at in 0..bytes.len() {
            support::assert_byte_change_caught(seed, &bytes, at, &mut rng);
        }
    }
}

/// L1 only changes bookkeeping: under diff its two settings never part.
#[test]
fn skill_as_roll_modifier_never_parts_under_diff() {
    let base = base_seed();
    for i in 0..24 {
        let seed = base.wrapping_add(i);
        let (header, events, _) = random_game(seed, 60);
        let mut a = header.rules.clone();
        a.options.insert("skill-as-roll-modifier".into(), false);
        let mut b = a.clone();
        b.options.insert("skill-as-roll-modifier".into(), true);
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
}

/// Dice agree across versions: every die that both versions roll for a
/// decision has the same face under both, however many other dice either
/// rolls or which decisions either refuses.
#[test]
fn dice_agree_across_versions() {
    let base = base_seed();
    let mut shared = 0;
    for i in 0..24 {
        let seed = base.wrapping_add(i);
        let (header, events, _) = random_game(seed, 60);
        let mut rng = Rng(seed);
        let mut headers = Vec::new();
        for _ in 0..2 {
            let mut rules = header.rules.clone();
            for value in rules.options.values_mut() {
                *value = rng.below(2) == 0;
            }
            headers.push(support::under(&header, rules));
        }
        let rolls = support::dice_under(&headers, &events);
        shared += support::assert_dice_agree(seed, &rolls[0], &rolls[1]);
    }
    assert!(shared > 0, "no die was rolled under both versions: the test checked nothing");
}

/// A damaged record's facts are narrated in verify's report: narration
/// must never panic on a fact that parses, however its values were changed.
#[test]
fn changed_facts_still_narrate() {
    let base = base_seed();
    for i in 0..8 {
        let seed = base.wrapping_add(i);
        let (_, events, _) = random_game(seed, 80);
        support::assert_changed_facts_narrate::<rollcall_core::rulesets::leader_activation::LeaderActivation>(
            seed, &events,
        );
    }
}
