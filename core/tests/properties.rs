//! Property tests over random legal games of leader activation.
//!
//! For each game: replay (folding the logged facts) equals the state built
//! live; verify passes; and every single-byte change to the exported record
//! fails verify or fails to parse with a clear error.
//!
//! Reproducible randomness: the base seed is printed, and
//! `ROLLCALL_SEED=<n> cargo test -p rollcall-core --test properties` reruns it.

use rollcall_core::game::{verify, Game};
use rollcall_core::record::{self, Event, Header, Party, SeedMode};
use rollcall_core::ruleset;
use rollcall_core::rulesets::leader_activation::{Role, State};
use rollcall_core::seed::Share;
use serde_json::{json, Value};

/// A small, seedable generator (xorshift64*): tests only.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn base_seed() -> u64 {
    let seed = std::env::var("ROLLCALL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
    });
    println!("ROLLCALL_SEED={seed}");
    seed
}

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
    let parties = ["red", "blue"]
        .iter()
        .map(|name| {
            let mut bytes = [0u8; 32];
            bytes[..8].copy_from_slice(&rng.next().to_be_bytes());
            let share = Share(bytes);
            Party { name: name.to_string(), commitment: Some(share.commitment()), share: Some(share) }
        })
        .collect();
    let rules_hash = rules.hash();
    Header { game: format!("random-{seed}"), rules, rules_hash, scenario, mode: SeedMode::Open, parties }
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
    let mut game = Game::open(header.clone()).unwrap();
    let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut events = Vec::new();
    for _ in 0..n {
        let state: State = serde_json::from_value(game.state()).unwrap();
        let mut options = candidates(&state, &mut rng);
        let mut played = false;
        while !options.is_empty() {
            let pick = options.swap_remove(rng.below(options.len()));
            if let Ok(new) = game.play(&pick, None) {
                events.extend(new);
                played = true;
                break;
            }
        }
        assert!(played, "seed {seed}: no legal decision in\n{}", game.render());
    }
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

fn export(header: &Header, events: &[Event]) -> Vec<u8> {
    let mut text = record::encode_header(header).unwrap();
    text.push('\n');
    for e in events {
        text.push_str(&record::encode_event(e).unwrap());
        text.push('\n');
    }
    text.into_bytes()
}

/// Parses and verifies record bytes as `rollcall verify` does; Ok if it verifies.
fn check(bytes: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    let Some(body) = text.strip_suffix('\n') else { return Err("the last line has no newline".into()) };
    let mut lines = body.split('\n');
    let header = record::parse_header(lines.next().unwrap()).map_err(|e| format!("line 1: {e}"))?;
    let events = lines.enumerate().map(|(i, l)| record::parse_event(l).map_err(|e| format!("line {}: {e}", i + 2)));
    verify(&header, events).map(|_| ()).map_err(|f| f.to_string())
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
            let mut changed = bytes.clone();
            // Another byte: sometimes a neighbour (a digit for a digit), sometimes anything.
            let new = match rng.below(3) {
                0 => bytes[at] ^ 1,
                1 => bytes[at].wrapping_add(1 + rng.below(9) as u8),
                _ => loop {
                    let b = rng.below(256) as u8;
                    if b != bytes[at] {
                        break b;
                    }
                },
            };
            changed[at] = new;
            let result = check(&changed);
            assert!(
                result.is_err(),
                "seed {seed}: changing byte {at} ({:?} -> {:?}) went unnoticed",
                bytes[at] as char,
                new as char
            );
            assert!(!result.unwrap_err().is_empty());
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
    use std::collections::BTreeMap;
    let base = base_seed();
    let mut shared = 0;
    for i in 0..24 {
        let seed = base.wrapping_add(i);
        let (header, events, _) = random_game(seed, 60);
        let mut rng = Rng(seed);
        let mut games = Vec::new();
        for _ in 0..2 {
            let mut rules = header.rules.clone();
            for value in rules.options.values_mut() {
                *value = rng.below(2) == 0;
            }
            let mut h = header.clone();
            h.rules_hash = rules.hash();
            h.rules = rules;
            games.push(Game::open(h).unwrap());
        }
        let mut rolls: [BTreeMap<(u64, String, u64), u64>; 2] = Default::default();
        for e in events.iter().filter(|e| e.kind == rollcall_core::Kind::Decision) {
            for (g, game) in games.iter_mut().enumerate() {
                match game.decide(&e.body["decision"], None) {
                    Ok(new) => {
                        for r in new.iter().filter(|e| e.kind == rollcall_core::Kind::Roll) {
                            let key = (
                                r.body["decision"].as_u64().unwrap(),
                                r.body["label"].as_str().unwrap().to_string(),
                                r.body["index"].as_u64().unwrap(),
                            );
                            rolls[g].insert(key, r.body["value"].as_u64().unwrap());
                        }
                        game.adopt(&new);
                    }
                    Err(_) => game.pass_decision(),
                }
            }
        }
        for (address, value) in &rolls[0] {
            if let Some(other) = rolls[1].get(address) {
                shared += 1;
                assert_eq!(value, other, "seed {seed}: the die at {address:?} differs between versions");
            }
        }
    }
    assert!(shared > 0, "no die was rolled under both versions: the test checked nothing");
}
