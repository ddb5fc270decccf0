//! A game snapshot (kept beside a long stored game so that `play` need not
//! fold every event again) is a faithful stand-in for the fold: for every
//! fixture game, cut every few events, a snapshot written out as bytes, read back
//! and played on to the end reaches the same state and head as the game
//! played through; and a store's snapshot is used only when it is on the
//! game's chain.

mod support;

use rollcall_core::game::{Game, Snapshot};
use rollcall_core::log::{keep_snapshot, open_at_head, open_game, open_game_lines, snapshot_note, EventLog, MemLog};
use rollcall_core::record::Event;
use rollcall_core::script::Script;

/// Every fixture game that plays to its end: its script and events.
fn games() -> Vec<(String, Script, Vec<Event>)> {
    let mut out = Vec::new();
    for path in support::fixture_scripts() {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let Ok(script) =
            Script::parse(&std::fs::read_to_string(&path).unwrap(), &stem, rollcall_core::registry::builtin())
        else {
            continue;
        };
        let mut events = Vec::new();
        if script.play(|_, e| events.push(e.clone())).is_ok() {
            out.push((path.display().to_string(), script, events));
        }
    }
    assert!(out.len() >= 9, "the fixture games: {}", out.len());
    out
}

#[test]
fn a_snapshot_read_back_plays_on_as_the_game_played_through() {
    for (name, script, events) in games() {
        let whole = script.play(|_, _| {}).unwrap();
        let mut game = Game::open(script.header.clone(), rollcall_core::registry::builtin()).unwrap();
        for (cut, event) in events.iter().enumerate() {
            if cut % 3 != 0 {
                game.apply(event).unwrap();
                continue;
            }
            let snapshot = game.snapshot().unwrap_or_else(|| panic!("{name}: no snapshot at seq {cut}"));
            let bytes = serde_json::to_vec(&snapshot).unwrap();
            let read: Snapshot = serde_json::from_slice(&bytes).unwrap();
            let mut restored = Game::restore(script.header.clone(), &read, rollcall_core::registry::builtin()).unwrap();
            assert_eq!(restored.state(), game.state(), "{name}: restored at seq {cut}");
            assert_eq!(restored.render(), game.render(), "{name}: rendered at seq {cut}");
            // Every 21st event, play the rest from the snapshot.
            if cut % 21 == 0 {
                for e in &events[cut..] {
                    restored.apply(e).unwrap_or_else(|e| panic!("{name}: from seq {cut}: {e:?}"));
                }
                assert_eq!(restored.head(), whole.head(), "{name}: from seq {cut}");
                assert_eq!(restored.state(), whole.state(), "{name}: from seq {cut}");
                assert_eq!(restored.decisions(), whole.decisions(), "{name}: from seq {cut}");
            }
            game.apply(event).unwrap();
        }
    }
}

/// Stores a game in a fresh log, decision by decision.
fn stored(script: &Script, events: &[Event]) -> MemLog {
    let log = MemLog::new();
    log.create(&script.header).unwrap();
    let mut unit: Vec<Event> = Vec::new();
    for e in events {
        if e.kind == rollcall_core::Kind::Decision && !unit.is_empty() {
            let head = log.head(&script.header.game).unwrap();
            log.append(&script.header.game, &head.hash, &std::mem::take(&mut unit)).unwrap();
        }
        unit.push(e.clone());
    }
    let head = log.head(&script.header.game).unwrap();
    log.append(&script.header.game, &head.hash, &unit).unwrap();
    log
}

/// Opening a stored game from its lines (`export`'s check) is opening it
/// from its events: the same game, for every fixture game.
#[test]
fn a_game_opened_from_its_lines_is_the_game_opened_from_its_events() {
    for (name, script, events) in games() {
        let log = stored(&script, &events);
        let id = &script.header.game;
        let (by_events, by_lines) = (
            open_game(&log, id, None, rollcall_core::registry::builtin()).unwrap(),
            open_game_lines(&log, id, rollcall_core::registry::builtin()).unwrap(),
        );
        assert_eq!(by_lines.head(), by_events.head(), "{name}");
        assert_eq!(by_lines.seq(), by_events.seq(), "{name}");
        assert_eq!(by_lines.decisions(), by_events.decisions(), "{name}");
        assert_eq!(by_lines.state(), by_events.state(), "{name}");
    }
}

#[test]
fn a_stored_game_opens_from_its_snapshot_only_when_the_snapshot_is_on_its_chain() {
    let (_, script, events) = games().into_iter().find(|(n, _, _)| n.ends_with("rally.json")).unwrap();
    let id = script.header.game.clone();
    let log = stored(&script, &events);
    let whole = open_game(&log, &id, None, rollcall_core::registry::builtin()).unwrap();

    // No snapshot kept: the fold.
    assert_eq!(open_at_head(&log, &id, rollcall_core::registry::builtin()).unwrap().head(), whole.head());

    // A snapshot part-way, then the events after it.
    let mut early = Game::open(script.header.clone(), rollcall_core::registry::builtin()).unwrap();
    for e in &events[..10] {
        early.apply(e).unwrap();
    }
    keep_snapshot(&log, &id, &early, 1).unwrap();
    let opened = open_at_head(&log, &id, rollcall_core::registry::builtin()).unwrap();
    assert_eq!((opened.head(), opened.state()), (whole.head(), whole.state()));

    // A snapshot not kept again until `every` events later.
    keep_snapshot(&log, &id, &whole, 1_000_000).unwrap();
    let kept: Snapshot = serde_json::from_slice(&log.note(&snapshot_note(&id)).unwrap().unwrap()).unwrap();
    assert_eq!(kept.seq, 10);
    keep_snapshot(&log, &id, &whole, 5).unwrap();
    let kept: Snapshot = serde_json::from_slice(&log.note(&snapshot_note(&id)).unwrap().unwrap()).unwrap();
    assert_eq!(kept.seq, whole.seq());

    // A snapshot of another history (its head is not on this chain), one
    // ahead of the game, and one that does not parse: each is passed over.
    let mut other = early.snapshot().unwrap();
    other.head = rollcall_core::Digest::of(b"another history");
    for bad in [
        serde_json::to_vec(&other).unwrap(),
        serde_json::to_vec(&Snapshot { seq: whole.seq() + 5, ..whole.snapshot().unwrap() }).unwrap(),
        b"{\"seq\": 3}".to_vec(),
    ] {
        log.set_note(&snapshot_note(&id), Some(&bad)).unwrap();
        let opened = open_at_head(&log, &id, rollcall_core::registry::builtin()).unwrap();
        assert_eq!((opened.head(), opened.state()), (whole.head(), whole.state()));
    }
}
