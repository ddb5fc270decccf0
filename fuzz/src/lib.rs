//! What the fuzz targets share: one function per input format, each taking
//! the fuzzer's bytes. A target is a few lines (`fuzz_targets/*.rs`) that
//! hands its bytes to one of these; adding a format is one function here
//! and one target file (and a `[[bin]]` in Cargo.toml).
//!
//! Each function must not panic on any input; where the input is accepted
//! it also checks what must then hold (a parsed line writes back to the
//! same bytes; every accepted decision verifies), panicking if not, so the
//! fuzzer reports it as a crash.

use std::sync::Mutex;

use rollcall_core::game::{verify, Decide, Game, Verifier};
use rollcall_core::pbem::{armour, TurnFile};
use rollcall_core::record::{self, Event};
use rollcall_core::registry;
use rollcall_core::rules::HouseRules;
use rollcall_core::script::{split_dice, RulesRef, Script};
use rollcall_core::strict;

/// A record's event line (without its newline): parsed strictly; a line
/// that parses writes back to the same bytes.
pub fn record_line(data: &[u8]) {
    let Ok(line) = std::str::from_utf8(data) else { return };
    if let Ok(event) = record::parse_event(line) {
        let again = record::encode_event(&event).expect("a parsed event encodes");
        assert_eq!(again, line, "a parsed event line writes back otherwise");
    }
}

/// A whole record file: verified and replayed each two ways, parsing every
/// line, and taking each line as read where the fast path can
/// (`Verifier::take_line`, `Game::apply_line`, as `verify FILE` and `state
/// FILE` do). The two ways must agree, down to the reason a record fails:
/// a fast path that took a line the parse refuses would let a forged
/// record through.
pub fn record(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut lines = text.lines();
    let Some(Ok(header)) = lines.next().map(|l| record::parse_header(l, registry::builtin())) else { return };
    let parse = |i: usize, l: &str| record::parse_event(l).map_err(|e| format!("line {}: {e}", i + 2));
    let parsed = verify(&header, lines.clone().enumerate().map(|(i, l)| parse(i, l)), registry::builtin())
        .map(|v| v.head)
        .map_err(|f| f.to_string());
    let taken = (|| {
        let mut verifier = Verifier::new(&header, registry::builtin())?;
        for (i, l) in lines.clone().enumerate() {
            if !verifier.take_line(l.as_bytes()) {
                verifier.push(&parse(i, l).map_err(|e| verifier.unreadable(e))?)?;
            }
        }
        verifier.finish().map(|(v, _)| v.head)
    })()
    .map_err(|f| f.to_string());
    assert_eq!(parsed, taken, "verify, and verify taking lines as read, differ");
    let replay = |take: bool| -> Result<_, String> {
        let mut game = Game::open(header.clone(), registry::builtin()).map_err(|e| e.to_string())?;
        for (i, l) in lines.clone().enumerate() {
            if !(take && game.apply_line(l.as_bytes())) {
                game.apply(&parse(i, l)?).map_err(|e| e.to_string())?;
            }
        }
        Ok((game.head(), game.decisions(), game.turns().clone(), game.state()))
    };
    assert_eq!(replay(false), replay(true), "replay, and replay taking lines as read, differ");
}

/// A record's header line: parsed strictly, opened as a game, and the
/// empty record under it verified. A header that parses writes back to the
/// same bytes: every byte counts.
pub fn header(data: &[u8]) {
    let Ok(line) = std::str::from_utf8(data) else { return };
    if let Ok(header) = record::parse_header(line, registry::builtin()) {
        let again = record::encode_header(&header).expect("a parsed header encodes");
        assert_eq!(again, line, "a parsed header line writes back otherwise");
        if Game::open(header.clone(), registry::builtin()).is_ok() {
            let none: Vec<Result<Event, String>> = Vec::new();
            verify(&header, none, registry::builtin()).expect("an empty record under a header that opens verifies");
        }
    }
}

/// A turn file (play by email): an armoured text as it comes by email, or
/// a bare payload, which is armoured here (its clear lines taken from it,
/// its checksum computed) so that mutations reach the payload's reading
/// rather than the checksum. A turn file that reads writes back to the same
/// payload, and its events to the same record lines.
pub fn turn_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let armoured;
    let text = if text.contains("-----BEGIN ROLLCALL") {
        text
    } else {
        let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        let s = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let head = |k: &str| format!("{} {}", s(&v[k]["seq"]), s(&v[k]["hash"]));
        let fields =
            [("Game", s(&v["game"])), ("Side", s(&v["side"])), ("From", head("previous")), ("To", head("head"))];
        armoured = armour::encode("TURN", &fields, data);
        &armoured
    };
    if let Ok((turn, header, events)) = TurnFile::read(text, registry::builtin()) {
        let again =
            TurnFile::read(&turn.armour(), registry::builtin()).expect("a turn file that reads, armoured again, reads");
        assert_eq!(again.0, turn, "a turn file reads back otherwise");
        assert_eq!(again.1, header, "a turn file's header reads back otherwise");
        assert_eq!(
            turn.payload(),
            armour::decode(text).expect("it was read").payload,
            "the payload writes back otherwise"
        );
        for (e, line) in events.iter().zip(turn.lines()) {
            assert_eq!(
                record::encode_event(e).expect("a parsed event encodes"),
                line,
                "an event writes back otherwise"
            );
        }
    }
}

/// A script: parsed strictly, then played; a script that plays verifies.
pub fn script(data: &[u8]) {
    let Ok(script) = Script::parse_bytes(data, "fuzz", registry::builtin()) else { return };
    let mut events = Vec::new();
    let played = script.play(|game, event| {
        let _ = game.narrate(event);
        events.push(event.clone());
    });
    if let Ok(game) = played {
        let _ = game.render();
        verify(&script.header, events.into_iter().map(Ok::<_, String>), registry::builtin())
            .expect("a script that plays verifies");
    }
}

/// A house-rules file: read strictly and resolved; and the bytes as an
/// inline version (`ruleset@version+name=value…`).
pub fn house_rules(data: &[u8]) {
    if let Ok(house) = strict::parse_as::<HouseRules>(data) {
        if let Ok(rules) = RulesRef::House(house).resolve("", registry::builtin()) {
            let _ = rules.hash();
            let _ = rules.label();
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok((rules, spec)) = registry::inline_version(text) {
            let _ = rules.overrides(&spec);
        }
    }
}

/// A fixture game stopped after each of its decisions: where decisions
/// are fuzzed from.
pub struct Start {
    /// `games[k]`: the game after its first `k` decisions.
    games: Vec<Game>,
}

fn start(text: &str) -> Start {
    let script = Script::parse(text, "fuzz", registry::builtin()).expect("a fixture parses");
    let mut game = Game::open(script.header.clone(), registry::builtin()).expect("a fixture opens");
    let mut games = vec![game.clone()];
    for (decision, dice) in &script.decisions {
        game.play(decision, dice.as_ref()).expect("a fixture plays");
        games.push(game.clone());
    }
    Start { games }
}

/// Decisions of a ruleset, through the JSON-level machine: the first byte
/// picks one of `fixtures` (script texts), the second how many of its
/// decisions are played first; the rest is decisions, one JSON value a
/// line. Each is decided and, if the rules accept it, played. What verify
/// would check of the record so made is checked from where the fixture
/// stopped (the fixture itself verifies): every event, written as a record
/// line and read back, is the same event; and re-deciding each accepted
/// decision on the state before it, as read back, gives the same events.
pub fn decisions(starts: &'static Starts, fixtures: &[&str], data: &[u8]) {
    let mut starts = starts.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let starts = starts.get_or_insert_with(|| fixtures.iter().map(|text| start(text)).collect());
    let [pick, at, rest @ ..] = data else { return };
    let s = &starts[usize::from(*pick) % starts.len()];
    let k = usize::from(*at) % s.games.len();
    let mut game = s.games[k].clone();
    let mut replayed = s.games[k].clone();
    for line in rest.split(|&b| b == b'\n') {
        let Ok(value) = strict::parse(line) else { continue };
        let Ok((decision, dice)) = split_dice(value) else { continue };
        let Ok(events) = game.play(&decision, dice.as_ref()) else { continue };
        let mut read_back = Vec::new();
        for e in &events {
            let _ = game.narrate(e);
            let line = record::encode_event(e).expect("an accepted event encodes");
            let again = record::parse_event(&line)
                .unwrap_or_else(|err| panic!("an event line does not read back: {err}: {line}"));
            assert_eq!(&again, e, "an event reads back otherwise");
            read_back.push(again);
        }
        let options = Decide { dice: dice.as_ref(), ..Decide::default() };
        let redecided = replayed.decide(&decision, options).expect("an accepted decision is accepted again").events;
        assert_eq!(redecided, read_back, "re-deciding gives other events");
        for e in &read_back {
            replayed.apply(e).unwrap_or_else(|err| panic!("an accepted event does not apply: {err}"));
        }
    }
    assert_eq!(replayed.state(), game.state(), "replay differs from play");
    let _ = game.render();
}

/// Plays the fixture games into the cache once, before the first input
/// (`fuzz_target!(init: …)`): under load, playing a ruleset's fixtures with
/// AddressSanitizer takes about 10 s, which counted against the first
/// input's `-timeout=10` and was reported as a hang (2026-11-30).
pub fn prepare(starts: &'static Starts, fixtures: &[&str]) {
    let mut starts = starts.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    starts.get_or_insert_with(|| fixtures.iter().map(|text| start(text)).collect());
}

/// The per-target cache [`decisions`] keeps its starting games in:
/// `static STARTS: Starts = Starts::new(None);`.
pub type Starts = Mutex<Option<Vec<Start>>>;
