//! What the property tests share: the base seed, a driver that plays the
//! library's random legal games (`rollcall_core::sim`) under each test's
//! checks, and the checks every ruleset's games must pass (replay, verify,
//! single-byte changes, dice across versions, facts that narrate and
//! round-trip).
//!
//! Each test file uses part of it, so unused items are allowed here.
#![allow(dead_code)]

use std::collections::BTreeMap;

use rollcall_core::game::{verify, Decide, Game, Verifier};
use rollcall_core::record::{self, Event, Header, LinkChain};
use rollcall_core::sim::{self, Generator, Simulation};
use rollcall_core::{Kind, Ruleset};
use serde_json::Value;

#[allow(unused_imports)]
pub use rollcall_core::sim::{header, parties, under, Rng};

/// The base seed: `ROLLCALL_SEED`, or the clock. Printed, so a failure can be rerun.
pub fn base_seed() -> u64 {
    let seed = std::env::var("ROLLCALL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
    });
    println!("ROLLCALL_SEED={seed}");
    seed
}

/// Plays a random legal game of up to `n` decisions (fewer if the game is
/// over) under the generator's random policy, with the checks of
/// [`Simulation`]: every candidate is decided first on the typed state with
/// the game's own dice, a refusal must come before any die is rolled, a
/// panic names the decision, and a generator that never writes a malformed
/// decision must not.
/// `watch` sees the game and the state before each decision (the checks of
/// a ruleset's invariants go there). A game in which no candidate is legal
/// is stuck, and the test fails there; so does one whose typed state, evolved
/// by the facts, is not the game's. `ROLLCALL_TRACE=<seed>` prints the
/// game's narrative as it is played.
pub fn play<G: Generator>(
    seed: u64,
    header: &Header,
    n: usize,
    mut watch: impl FnMut(&Game, &<G::Ruleset as Ruleset>::State),
) -> (Vec<Event>, Game) {
    let mut sim = Simulation::<G::Ruleset>::new(header.clone(), sim::play_rng(seed))
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    if G::WELL_FORMED {
        sim = sim.strict();
    }
    let policy = sim::random_policy::<G>();
    let trace = std::env::var("ROLLCALL_TRACE").is_ok_and(|s| s == seed.to_string());
    let mut events = Vec::new();
    while (sim.game().decisions() as usize) < n && !G::over(sim.state()) {
        watch(sim.game(), sim.state());
        let new = sim.step(&*policy).unwrap_or_else(|e| panic!("seed {seed}: {}", sim::explained::<G>(e, sim.state())));
        if trace {
            for e in &new {
                println!("{}", sim.game().narrate(e));
            }
        }
        events.extend(new);
    }
    let game = sim.game();
    let typed = serde_json::to_value(sim.state()).unwrap();
    assert_eq!(typed, game.state(), "seed {seed}: the typed state the facts evolved is not the game's");
    (events, sim.into_game())
}

/// Replay (folding the logged events) equals the live game, and verify
/// (re-deciding every decision) passes with the same head.
pub fn assert_replay_equals_live_and_verifies(seed: u64, header: &Header, events: &[Event], live: &Game) {
    let mut replayed = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    for e in events {
        replayed.apply(e).unwrap_or_else(|err| panic!("seed {seed}: {err}"));
    }
    assert_eq!(replayed.state(), live.state(), "seed {seed}: replay differs from the live game");
    assert_eq!(replayed.head(), live.head(), "seed {seed}: replay ends at another head");
    assert_eq!(replayed.render(), live.render(), "seed {seed}: replay renders otherwise");
    let verified = verify(header, events.iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin())
        .unwrap_or_else(|f| panic!("seed {seed}: a legal game does not verify: {f}"));
    assert_eq!(verified.head, live.head(), "seed {seed}: verify ends at another head");
    assert_eq!(verified.decisions, live.decisions());
    assert_eq!(verified.turn, live.turn());
}

/// The record as `rollcall export` writes it: the header line, then one line per event.
pub fn export(header: &Header, events: &[Event]) -> Vec<u8> {
    let mut text = record::encode_header(header).unwrap();
    text.push('\n');
    for e in events {
        text.push_str(&record::encode_event(e).unwrap());
        text.push('\n');
    }
    text.into_bytes()
}

/// Parses and verifies record bytes as `rollcall verify` does; Ok if it verifies.
///
/// It verifies them twice: parsing every line, and as `rollcall verify FILE`
/// does, taking the lines that are byte for byte the expected roll or fact
/// unparsed ([`Verifier::take_line`]). The two must agree, down to the
/// reason a record fails.
pub fn check(bytes: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    let Some(body) = text.strip_suffix('\n') else { return Err("the last line has no newline".into()) };
    let mut lines = body.split('\n');
    let header = record::parse_header(lines.next().unwrap(), rollcall_core::registry::builtin())
        .map_err(|e| format!("line 1: {e}"))?;
    let parse = |i: usize, l: &str| record::parse_event(l).map_err(|e| format!("line {}: {e}", i + 2));
    let parsed =
        verify(&header, lines.clone().enumerate().map(|(i, l)| parse(i, l)), rollcall_core::registry::builtin())
            .map(|_| ())
            .map_err(|f| f.to_string());
    let first = body.split('\n').next().unwrap().as_bytes();
    // Proven ahead, and (`read_ahead`) each proven decision read ahead too,
    // as `rollcall verify FILE`'s reader does.
    let taken = |proven: bool, read_ahead: bool| {
        let mut chain = proven.then(|| LinkChain::new(first));
        let mut verifier = Verifier::new(&header, rollcall_core::registry::builtin()).map_err(|f| f.to_string())?;
        let reader = read_ahead.then(|| verifier.decision_reader());
        for (i, l) in lines.clone().enumerate() {
            let proof = chain.as_mut().and_then(|chain| chain.prove(l.as_bytes()));
            let read =
                proof.as_ref().zip(reader).and_then(|(proof, reader)| reader.read(proof.decision_text(l.as_bytes())?));
            if verifier.take_line_read(l.as_bytes(), proof.as_ref(), read) {
                continue;
            }
            let event = parse(i, l).map_err(|e| verifier.unreadable(e).to_string())?;
            verifier.push(&event).map_err(|f| f.to_string())?;
        }
        verifier.finish().map(|_| ()).map_err(|f| f.to_string())
    };
    assert_eq!(parsed, taken(false, false), "verify, and verify taking lines unparsed, differ");
    assert_eq!(parsed, taken(true, false), "verify, and verify taking lines with their links proven ahead, differ");
    assert_eq!(parsed, taken(true, true), "verify, and verify taking decisions read ahead, differ");
    let lines = body.split('\n').skip(1);
    let replayed = replay(&header, lines.clone(), None, Sharing::All);
    assert_eq!(
        replayed,
        replay(&header, lines.clone(), Some(None), Sharing::All),
        "replay, and replay taking lines unparsed, differ"
    );
    let proven = replay(&header, lines.clone(), Some(Some(LinkChain::new(first))), Sharing::All);
    assert_eq!(replayed, proven, "replay, and replay taking lines with their links proven ahead, differ");
    let scanned = replay(&header, lines.clone(), Some(Some(LinkChain::new(first).scanning_decisions())), Sharing::All);
    assert_eq!(replayed, scanned, "replay, and replay taking decisions' bodies proven canonical ahead, differ");
    // As a file's reader ahead shares that work with the fold: some
    // decisions' bodies scanned ahead, the others left to the fold.
    let shared = replay(&header, lines, Some(Some(LinkChain::new(first).scanning_decisions())), Sharing::EveryOther);
    assert_eq!(replayed, shared, "replay, and replay taking some decisions' bodies proven canonical ahead, differ");
    parsed
}

/// How a chain proving decisions' bodies ahead shares that work with the
/// fold: it proves them all, or every other line's (as a file's reader
/// ahead does while the fold keeps up), leaving the rest to the fold.
#[derive(Clone, Copy)]
enum Sharing {
    All,
    EveryOther,
}

/// What replaying a record's lines leads to (its head, decisions, sides'
/// turns and state), or where and why it stops: parsing every line and
/// applying its event, or (`take`) as `rollcall state FILE` does, folding
/// each line that [`Game::apply_line_proven`] takes unparsed — given each
/// line's proof down `chain`, as the file's reader ahead proves them, or none;
/// a chain proving decisions' bodies proves them all or `sharing` some.
fn replay<'l>(
    header: &Header,
    lines: impl Iterator<Item = &'l str>,
    mut take: Option<Option<LinkChain>>,
    sharing: Sharing,
) -> Result<(String, u64, String, Value), String> {
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).map_err(|e| e.to_string())?;
    for (i, l) in lines.enumerate() {
        if let Some(chain) = &mut take {
            if let (Some(chain), Sharing::EveryOther) = (chain.as_mut(), sharing) {
                chain.scan_decisions(i % 2 == 0);
            }
            let proof = chain.as_mut().and_then(|chain| chain.prove(l.as_bytes()));
            if game.apply_line_proven(l.as_bytes(), proof.as_ref()) {
                continue;
            }
        }
        let event = record::parse_event(l).map_err(|e| format!("line {}: {e}", i + 2))?;
        game.apply(&event).map_err(|e| format!("line {}: {e}", i + 2))?;
    }
    Ok((game.head().to_string(), game.decisions(), format!("{:?}", game.turns()), game.state()))
}

/// Changes the byte at `at` to another — sometimes a neighbour (a digit for
/// a digit), sometimes anything — and demands that the record then fails to
/// parse or to verify, with a reason.
pub fn assert_byte_change_caught(seed: u64, bytes: &[u8], at: usize, rng: &mut Rng) {
    let mut changed = bytes.to_vec();
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
    assert!(!result.unwrap_err().is_empty(), "seed {seed}: changing byte {at} fails without a reason");
}

/// Runs a record's decisions under each header (the same game under other
/// rules), each on its own state; a decision one refuses is skipped under it
/// but keeps its number. Returns every die each rolled, by address.
pub fn dice_under(headers: &[Header], events: &[Event]) -> Vec<BTreeMap<(u64, String, u64), u64>> {
    let mut games: Vec<Game> =
        headers.iter().map(|h| Game::open(h.clone(), rollcall_core::registry::builtin()).unwrap()).collect();
    let mut rolls = vec![BTreeMap::new(); games.len()];
    for e in events.iter().filter(|e| e.kind == Kind::Decision) {
        for (g, game) in games.iter_mut().enumerate() {
            match game.decide(&e.body["decision"], Decide::default()) {
                Ok(new) => {
                    for r in new.events.iter().filter(|e| e.kind == Kind::Roll) {
                        let key = (
                            r.body["decision"].as_u64().unwrap(),
                            r.body["label"].as_str().unwrap().to_string(),
                            r.body["index"].as_u64().unwrap(),
                        );
                        rolls[g].insert(key, r.body["value"].as_u64().unwrap());
                    }
                    game.adopt(&new.events);
                }
                Err(_) => game.pass_decision(),
            }
        }
    }
    rolls
}

/// Every die that two versions both roll has the same face under both.
/// Returns how many dice they shared.
pub fn assert_dice_agree(
    seed: u64,
    a: &BTreeMap<(u64, String, u64), u64>,
    b: &BTreeMap<(u64, String, u64), u64>,
) -> usize {
    let mut shared = 0;
    for (address, value) in a {
        if let Some(other) = b.get(address) {
            shared += 1;
            assert_eq!(value, other, "seed {seed}: the die at {address:?} differs between versions");
        }
    }
    shared
}

/// Every fact of a record reads back as the ruleset's own fact, writes out
/// byte for byte as it was logged, and narrates to a line of words.
pub fn assert_facts_narrate_and_round_trip<R: Ruleset>(seed: u64, events: &[Event]) {
    for e in events.iter().filter(|e| e.kind == Kind::Fact) {
        let logged = &e.body["fact"];
        let fact: R::Fact = serde_json::from_value(logged.clone())
            .unwrap_or_else(|err| panic!("seed {seed}: seq {}: the fact {logged} does not read back: {err}", e.seq));
        let again = serde_json::to_value(&fact).unwrap();
        assert_eq!(
            rollcall_core::canon::to_bytes(&again).unwrap(),
            rollcall_core::canon::to_bytes(logged).unwrap(),
            "seed {seed}: seq {}: the fact does not round-trip",
            e.seq
        );
        let line = R::narrate(&fact);
        assert!(
            line.trim().chars().any(char::is_alphabetic) && !line.contains('\n'),
            "seed {seed}: seq {}: the fact {logged} narrates as {line:?}",
            e.seq
        );
    }
}

/// Every way of changing one thing in a JSON value: a string emptied or
/// replaced, a number made 0, -1 or extreme, a flag flipped, a list
/// emptied, a map key renamed — at any depth.
pub fn one_change_each(value: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match value {
        Value::String(_) => out.extend([Value::from(""), Value::from("zz")]),
        Value::Number(_) => {
            out.extend([0, -1, i64::MIN, i64::MAX].map(Value::from));
            out.extend([u64::from(u32::MAX), u64::MAX].map(Value::from));
        }
        Value::Bool(b) => out.push(Value::Bool(!b)),
        Value::Null => out.push(Value::from("zz")),
        Value::Array(items) => {
            if !items.is_empty() {
                out.push(Value::Array(Vec::new()));
            }
            for (i, item) in items.iter().enumerate() {
                for changed in one_change_each(item) {
                    let mut copy = items.clone();
                    copy[i] = changed;
                    out.push(Value::Array(copy));
                }
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let mut renamed = map.clone();
                let moved = renamed.remove(key).unwrap();
                renamed.insert(format!("{key}z"), moved);
                out.push(Value::Object(renamed));
                for changed in one_change_each(item) {
                    let mut copy = map.clone();
                    copy.insert(key.clone(), changed);
                    out.push(Value::Object(copy));
                }
            }
        }
    }
    out
}

/// A changed fact that still reads as one narrates, without panicking:
/// verify narrates the facts of a changed record to say how they differ,
/// and those need not add up. Tries every single change of a few facts of
/// each type.
pub fn assert_changed_facts_narrate<R: Ruleset>(seed: u64, events: &[Event]) {
    let mut tried: BTreeMap<String, usize> = BTreeMap::new();
    for e in events.iter().filter(|e| e.kind == Kind::Fact) {
        let logged = &e.body["fact"];
        let count = tried.entry(logged["type"].as_str().unwrap_or("?").to_string()).or_insert(0);
        *count += 1;
        if *count > 3 {
            continue;
        }
        for changed in one_change_each(logged) {
            let Ok(fact) = serde_json::from_value::<R::Fact>(changed.clone()) else { continue };
            let line = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| R::narrate(&fact)))
                .unwrap_or_else(|_| panic!("seed {seed}: narrating the changed fact {changed} panics"));
            assert!(!line.trim().is_empty(), "seed {seed}: the changed fact {changed} narrates as {line:?}");
        }
    }
}

/// Counts a record's facts by the kinds `kind` names for each (its type,
/// and perhaps how it came about), to show what random games exercised.
pub fn count_facts(events: &[Event], kind: impl Fn(&Value) -> Vec<String>, into: &mut BTreeMap<String, usize>) {
    for e in events.iter().filter(|e| e.kind == Kind::Fact) {
        for k in kind(&e.body["fact"]) {
            *into.entry(k).or_insert(0) += 1;
        }
    }
}

/// Every fixture script's path (every `.json` under fixtures/), sorted.
pub fn fixture_scripts() -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"), &mut paths);
    paths.sort();
    paths
}
