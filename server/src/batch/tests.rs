//! The promise the dice server exists for, tested as a side would try to
//! break it: random sealed games of every ruleset, and at each state probe
//! batches of every shape, each decided twice — on the game, and on the
//! same game given another chain (the dice of the turn in play and of every
//! later turn differ, nothing else). The two answers must be the same byte
//! for byte, or what tells them apart must be written: a die drawn (a roll)
//! or a turn ended (its reveal). Seeded; `ROLLCALL_SEED` reruns one.

use rollcall_core::digest::Digest;
use rollcall_core::game::Game;
use rollcall_core::keys::SecretKey;
use rollcall_core::record::{Header, Kind, Party, SeedMode, SideKey};
use rollcall_core::sealed::{Chain, ServerCommitment};
use rollcall_core::seed::Share;
use rollcall_core::sim::{self, Rng};
use serde_json::{json, Value};

use super::{decide, Decided};

fn seed() -> u64 {
    match std::env::var("ROLLCALL_SEED") {
        Ok(s) => s.parse().expect("ROLLCALL_SEED is a number"),
        Err(_) => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64,
    }
}

/// A random game of `ruleset` made sealed: its sides with keys, a share
/// each, and the server's commitment to `chain`.
fn sealed_game(ruleset: &str, seed: u64, chain: &Chain) -> (Header, Game) {
    let sim = sim::simulator(ruleset).unwrap();
    let version = rollcall_core::registry::version(ruleset).unwrap().id();
    let mut header = sim.random_header(seed, &version);
    let sides = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap().sides();
    header.game = format!("{ruleset}-probed");
    header.mode = SeedMode::Sealed;
    header.sides = sides
        .iter()
        .enumerate()
        .map(|(i, s)| SideKey { name: s.clone(), key: SecretKey::from_bytes([i as u8 + 1; 32]).public() })
        .collect();
    header.parties = sides
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let share = Share([i as u8 + 40; 32]);
            Party { name: s.clone(), commitment: Some(share.commitment()), share: Some(share) }
        })
        .collect();
    let key = SecretKey::from_bytes([99; 32]).public();
    header.server = Some(ServerCommitment { commitment: chain.commitment(), key, length: chain.length() });
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    game.unseal(chain.value(1).unwrap()).unwrap();
    (header, game)
}

/// What a side is told of a batch, as bytes; and whether what it is told
/// came with a sealed die or a turn's value written.
fn told(answer: &Result<Decided, super::ApiError>) -> (String, bool) {
    match answer {
        Err(e) => (format!("{} {}", e.status, e.to_json()), false),
        Ok(d) => {
            let events: Vec<Value> = d.events.iter().map(|e| json!([e.kind.name(), e.body])).collect();
            let refused = d.refused.as_ref().map(|(i, e)| json!([i, e.status, e.to_json()]));
            let sealed_written = d.events.iter().any(|e| matches!(e.kind, Kind::Roll | Kind::Reveal));
            (json!({"events": events, "written": d.written, "refused": refused}).to_string(), sealed_written)
        }
    }
}

#[derive(Default, Debug)]
struct Tally {
    probes: u64,
    /// Probes whose answers differ, each with a die or a reveal written.
    parted: u64,
    /// Probes refused past a drawn die: the refusal told with its die written.
    refused_after_a_die: u64,
}

/// Decides `batch` on both games; the answers are the same, or what parts
/// them is written.
fn probe(games: (&Game, &Chain, &Game, &Chain), side: &str, batch: &[Value], tally: &mut Tally, rerun: &str) {
    let (a, chain_a, b, chain_b) = games;
    let (told_a, written_a) = told(&decide(a, chain_a, side, batch));
    let (told_b, written_b) = told(&decide(b, chain_b, side, batch));
    tally.probes += 1;
    if told_a.contains("\"refused\":[") {
        tally.refused_after_a_die += 1;
    }
    if told_a != told_b {
        tally.parted += 1;
        assert!(
            written_a && written_b,
            "{rerun}: {side} learns a sealed die without it being written: batch {}\n  under one chain: {told_a}\n  under another:   {told_b}",
            Value::from(batch.to_vec())
        );
    }
}

/// The probe batches at a state: each decision that draws a die, followed
/// by every kind of decision that could be refused after it.
fn batches(candidates: &[Value], drawing: &[Value], quiet: &[Value], rng: &mut Rng) -> Vec<Vec<Value>> {
    let malformed = json!({"type": "no-such-decision"});
    let mut out = Vec::new();
    for first in drawing.iter().take(2) {
        let mut after: Vec<Value> = candidates.iter().take(10).cloned().collect();
        after.push(first.clone());
        for second in &after {
            out.push(vec![first.clone(), second.clone()]);
            let third = rng.pick(candidates).clone();
            out.push(vec![first.clone(), second.clone(), third]);
        }
        out.push(vec![first.clone(), malformed.clone()]);
        if let Some(before) = quiet.first() {
            out.push(vec![before.clone(), first.clone(), rng.pick(candidates).clone()]);
        }
    }
    // A decision that draws no die, then one the state may refuse.
    for before in quiet.iter().take(2) {
        out.push(vec![before.clone(), rng.pick(candidates).clone()]);
    }
    out
}

fn probed_game(ruleset: &str, seed: u64, states: usize) -> Tally {
    let rerun = format!("ROLLCALL_SEED={seed} ({ruleset})");
    let chain_a = Chain::new(Digest::of(&seed.to_be_bytes()).0, 10_000);
    let chain_b = Chain::new(Digest::of(&(!seed).to_be_bytes()).0, 10_000);
    let (header, mut game) = sealed_game(ruleset, seed, &chain_a);
    let sides = game.sides();
    let sim = sim::simulator(ruleset).unwrap();
    let mut follower = sim.follower(&header, "random", sim::play_rng(seed)).unwrap();
    let mut rng = sim::play_rng(seed ^ 0x5eed);
    let mut tally = Tally::default();
    for _ in 0..states {
        if follower.over() {
            break;
        }
        let candidates = follower.candidates();
        // Legal now, by whom, and whether it draws a die.
        let mut legal = Vec::new();
        for c in &candidates {
            for side in &sides {
                if let Ok(events) = game.clone().play_as(c, None, Some(side)) {
                    legal.push((c.clone(), side.clone(), events.iter().any(|e| e.kind == Kind::Roll)));
                }
            }
        }
        let Some((next, by, _)) = legal.first().cloned() else { break };
        let drawing: Vec<Value> = legal.iter().filter(|l| l.2).map(|l| l.0.clone()).collect();
        let quiet: Vec<Value> = legal.iter().filter(|l| !l.2).map(|l| l.0.clone()).collect();
        // The same game, but for the dice of this turn and the turns after it.
        let index = game.sealed().unwrap().index;
        let mut other = game.clone();
        other.reseal_unchecked(chain_b.value(index).unwrap()).unwrap();
        for batch in batches(&candidates, &drawing, &quiet, &mut rng) {
            for side in &sides {
                probe((&game, &chain_a, &other, &chain_b), side, &batch, &mut tally, &rerun);
            }
        }
        let decided = decide(&game, &chain_a, &by, std::slice::from_ref(&next)).unwrap();
        for e in &decided.events {
            follower.observe(e).unwrap();
        }
        game = decided.game;
    }
    eprintln!("{rerun}: {tally:?}");
    tally
}

#[test]
fn no_answer_depends_on_a_sealed_die_it_has_not_written() {
    let seed = seed();
    let mut refused_after_a_die = 0;
    for ruleset in ["leader-activation", "phoenix-command", "combat-hq", "formation-activation"] {
        let tally = probed_game(ruleset, seed, 40);
        assert!(tally.probes > 100, "ROLLCALL_SEED={seed} ({ruleset}): only {} probes", tally.probes);
        refused_after_a_die += tally.refused_after_a_die;
    }
    // The probes reach the case the promise is about: a batch refused after
    // a die was drawn (else the test could not fail).
    assert!(refused_after_a_die > 0, "ROLLCALL_SEED={seed}: no probe was refused after a die");
}

/// The last turn of a chain is played to its end and revealed; the game is
/// then read, and any decision is refused as the chain's end (409), the
/// same whatever the batch: no die is left to draw.
#[test]
fn the_last_turn_of_a_chain_ends_and_is_revealed_and_nothing_follows() {
    let seed = seed();
    let chain = Chain::new([5; 32], 1);
    let (header, mut game) = sealed_game("leader-activation", seed, &chain);
    let sides = game.sides();
    let sim = sim::simulator("leader-activation").unwrap();
    let mut follower = sim.follower(&header, "random", sim::play_rng(seed)).unwrap();
    let mut last = None;
    'game: for _ in 0..500 {
        for c in follower.candidates() {
            for side in &sides {
                if let Ok(decided) = decide(&game, &chain, side, std::slice::from_ref(&c)) {
                    for e in &decided.events {
                        follower.observe(e).unwrap();
                    }
                    let ended = decided.events.iter().any(|e| e.kind == Kind::Reveal);
                    game = decided.game;
                    if ended {
                        last = Some(c);
                        break 'game;
                    }
                    continue 'game;
                }
            }
        }
        panic!("ROLLCALL_SEED={seed}: no candidate is legal");
    }
    let last = last.unwrap_or_else(|| panic!("ROLLCALL_SEED={seed}: the first turn never ended"));
    assert_eq!(game.sealed().unwrap().index, 2, "the turn is revealed");
    assert!(game.sealed().unwrap().value.is_none(), "no value is left for a next turn");
    for side in &sides {
        let e = decide(&game, &chain, side, &[last.clone(), json!({"type": "no-such-decision"})]).err().unwrap();
        assert_eq!((e.status, e.code), (409, "chain-exhausted"), "{}", e.to_json());
    }
}
