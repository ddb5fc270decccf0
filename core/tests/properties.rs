//! Property tests over random legal games of leader activation.
//!
//! For each game: replay (folding the logged facts) equals the state built
//! live; verify passes; and every single-byte change to the exported record
//! fails verify or fails to parse with a clear error.
//!
//! Reproducible randomness: the base seed is printed, and
//! `ROLLCALL_SEED=<n> cargo test -p rollcall-core --test properties` reruns it.

mod support;

use rollcall_core::game::{verify, Game};
use rollcall_core::record::{Event, Header};
use rollcall_core::ruleset;
use rollcall_core::rulesets::leader_activation::{Role, State};
use serde_json::{json, Value};
use support::{base_seed, check, export, Rng};

fn header(seed: u64) -> Header {
    let mut rng = Rng(seed);
    let mut leaders = Vec::new();
    let mut units = Vec::new();
    let skills = ["elite", "trained", "conscript"];
    for (s, side) in ["red", "blue"].iter().enumerate() {
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
    let scenario = json!({"sides": ["red", "blue"], "leaders": leaders, "units": units});
    let spec = ruleset::version("leader-activation@1").unwrap();
    let mut options = std::collections::BTreeMap::new();
    for s in &spec.settings {
        if s.kind == rollcall_core::rules::SettingKind::Option {
            options.insert(s.name.to_string(), json!(rng.below(3) == 0));
        }
    }
    let rules = spec.resolve(&options, &Default::default(), "").unwrap();
    let parties = support::parties(&mut rng, &["red", "blue"]);
    support::header(format!("random-{seed}"), rules, scenario, parties)
}

/// Every decision worth trying in this state (the rules decide which are legal).
fn candidates(state: &State, rng: &mut Rng) -> Vec<Value> {
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

/// A random legal game of up to `n` decisions: its header and events.
fn random_game(seed: u64, n: usize) -> (Header, Vec<Event>, Game) {
    let header = header(seed);
    let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
    let (events, game) = support::play(seed, &header, n, &mut rng, |game, rng| {
        let state: State = serde_json::from_value(game.state()).unwrap();
        candidates(&state, rng)
    });
    (header, events, game)
}

#[test]
fn replay_equals_live_and_verify_passes() {
    let base = base_seed();
    for i in 0..48 {
        let seed = base.wrapping_add(i);
        let (header, events, live) = random_game(seed, 60);
        let mut replayed = Game::open(header.clone()).unwrap();
        for e in &events {
            replayed.apply(e).unwrap_or_else(|err| panic!("seed {seed}: {err}"));
        }
        assert_eq!(replayed.state(), live.state(), "seed {seed}: replay differs from the live game");
        assert_eq!(replayed.head(), live.head());
        let verified = verify(&header, events.iter().cloned().map(Ok::<_, String>))
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
        let report = rollcall_core::diff::diff(&header, events.into_iter().map(Ok::<_, String>), &a, &b, true).unwrap();
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
