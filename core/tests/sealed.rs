//! Sealed dice: a game played as the server plays it (holding each turn's
//! chain value, revealing it when the turn ends) verifies with every revealed
//! turn proven and the turn in play "sealed until the turn ends"; a changed
//! die or a changed revealed value is caught.

use rollcall_core::game::{verify, Decide, Game};
use rollcall_core::keys::SecretKey;
use rollcall_core::record::{self, Event, Header, Kind, SeedMode, SideKey};
use rollcall_core::ruleset::Actor;
use rollcall_core::script::Script;
use rollcall_core::sealed::{Chain, RevealBody, ServerCommitment};

fn script() -> Script {
    let path = format!("{}/../fixtures/leader-activation/rally.json", env!("CARGO_MANIFEST_DIR"));
    Script::parse(&std::fs::read_to_string(path).unwrap(), "rally", rollcall_core::registry::builtin()).unwrap()
}

/// The rally fixture played as a sealed game through a server: the events,
/// and the game at its end.
fn sealed_game(chain: &Chain, end_with_reveal: bool) -> (Header, Vec<Event>) {
    let s = script();
    let mut header = s.header.clone();
    header.mode = SeedMode::Sealed;
    header.sides = vec![
        SideKey { name: "allies".into(), key: SecretKey::from_bytes([1; 32]).public() },
        SideKey { name: "axis".into(), key: SecretKey::from_bytes([2; 32]).public() },
    ];
    header.server = Some(ServerCommitment {
        commitment: chain.commitment(),
        key: SecretKey::from_bytes([3; 32]).public(),
        length: chain.length(),
    });
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    game.unseal(chain.value(1).unwrap()).unwrap();
    let mut events = Vec::new();
    for (decision, _) in &s.decisions {
        let by = match game.author(decision).unwrap() {
            Actor::Side(side) => side,
            Actor::Referee => "allies".to_string(),
        };
        let before = game.turn();
        events.extend(game.play_as(decision, None, Some(&by)).unwrap());
        if game.turn() != before {
            reveal(&mut game, chain, &mut events);
        }
    }
    if end_with_reveal {
        reveal(&mut game, chain, &mut events);
    }
    (header, events)
}

fn reveal(game: &mut Game, chain: &Chain, events: &mut Vec<Event>) {
    let e = game.reveal().unwrap();
    game.apply(&e).unwrap();
    events.push(e);
    let next = game.sealed().unwrap().index;
    game.unseal(chain.value(next).unwrap()).unwrap();
}

/// The events from `at` on re-chained after an edit, as a cheat would.
fn rechain(header: &Header, events: &mut [Event]) {
    let mut head = record::header_hash(header).unwrap();
    for e in events.iter_mut() {
        e.hash = record::link(&head, e.seq, e.kind, &e.body).unwrap();
        head = e.hash;
    }
}

#[test]
fn a_sealed_game_verifies_turn_by_turn() {
    let chain = Chain::new([9; 32], 50);
    let (header, events) = sealed_game(&chain, false);
    let reveals = events.iter().filter(|e| e.kind == Kind::Reveal).count();
    assert_eq!(reveals, 1, "turn 1 begins at decision 1: the turn before it is revealed");
    let v = verify(&header, events.iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin()).unwrap();
    let sealed = v.sealed.unwrap();
    assert_eq!(sealed.proven, vec![(1, 1, 1)]);
    assert_eq!(sealed.open, Some((2, 2, 15)));
    assert!(sealed.describe().contains("sealed until the turn ends"), "{}", sealed.describe());
    // The record round-trips through its lines (format 2).
    let line = record::encode_header(&header).unwrap();
    assert!(line.contains("\"format_version\":2") && line.contains("\"server\""), "{line}");
    assert_eq!(record::parse_header(&line, rollcall_core::registry::builtin()).unwrap(), header);
    // Once the last turn is revealed, every roll is proven.
    let (header, events) = sealed_game(&chain, true);
    let v = verify(&header, events.iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin()).unwrap();
    let sealed = v.sealed.unwrap();
    assert_eq!(sealed.proven, vec![(1, 1, 1), (2, 2, 15)]);
    assert_eq!(sealed.open, None);
}

/// An event that cannot be read is named by its seq, also while a sealed
/// decision and its rolls wait for their facts.
#[test]
fn an_unreadable_event_in_a_sealed_turn_is_named_by_its_seq() {
    let chain = Chain::new([9; 32], 50);
    let (header, events) = sealed_game(&chain, false);
    // The event after a sealed decision and its first roll (turn 2 is sealed).
    let roll = events.iter().position(|e| e.kind == Kind::Roll && e.seq > 20).expect("a roll in a sealed turn");
    assert_eq!(events[roll - 1].kind, Kind::Decision);
    let mut read: Vec<Result<Event, String>> = events[..=roll].iter().cloned().map(Ok).collect();
    read.push(Err("line 99: not JSON".into()));
    let failure = verify(&header, read, rollcall_core::registry::builtin()).unwrap_err();
    assert_eq!(failure.seq, Some(events[roll].seq + 1), "{failure}");
    assert!(failure.reason.contains("not JSON"), "{failure}");
}

#[test]
fn a_die_changed_in_a_revealed_turn_is_caught_at_its_reveal() {
    let chain = Chain::new([9; 32], 50);
    let (header, mut events) = sealed_game(&chain, true);
    // A rally die changed to another face with the same outcome, the fact
    // that reads it changed to match, the chain rebuilt: the rules cannot
    // tell, the reveal can.
    let (i, changed) = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == Kind::Roll)
        .find_map(|(i, e)| {
            let value = e.body["value"].as_i64().unwrap();
            let needed = events[i + 1].body["fact"]["needed"].as_i64()?;
            (1..=6).find(|v| *v != value && (*v >= needed) == (value >= needed)).map(|v| (i, v))
        })
        .expect("a rally die with another face of the same outcome");
    events[i].body["value"] = changed.into();
    events[i + 1].body["fact"]["roll"] = changed.into();
    rechain(&header, &mut events);
    let reveal_at = events.iter().rposition(|e| e.kind == Kind::Reveal).unwrap();
    let before =
        verify(&header, events[..reveal_at].iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin())
            .unwrap();
    assert!(before.sealed.unwrap().open.is_some(), "before its reveal the turn is sealed, not proven");
    let failure =
        verify(&header, events.iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin()).unwrap_err();
    assert!(failure.reason.contains("but the revealed value of sealed turn 2 gives"), "{failure}");
    assert_eq!(failure.seq, Some(events[reveal_at].seq));
}

#[test]
fn a_changed_reveal_is_caught() {
    let chain = Chain::new([9; 32], 50);
    let (header, mut events) = sealed_game(&chain, true);
    let i = events.iter().rposition(|e| e.kind == Kind::Reveal).unwrap();
    let mut body: RevealBody = serde_json::from_value(events[i].body.clone()).unwrap();
    // Another chain's value for the same turn.
    body.value = Chain::new([8; 32], 50).value(2).unwrap();
    events[i].body = serde_json::to_value(body).unwrap();
    rechain(&header, &mut events);
    let failure =
        verify(&header, events.iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin()).unwrap_err();
    assert!(failure.reason.contains("does not hash to the value revealed for sealed turn 1"), "{failure}");
    // A reveal naming other decisions.
    let (header, mut events) = sealed_game(&chain, true);
    let mut body: RevealBody = serde_json::from_value(events[i].body.clone()).unwrap();
    body.first = 3;
    events[i].body = serde_json::to_value(body).unwrap();
    rechain(&header, &mut events);
    let failure =
        verify(&header, events.iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin()).unwrap_err();
    assert!(failure.reason.contains("names decisions 3–15, but the turn covered decisions 2–15"), "{failure}");
}

#[test]
fn without_the_turn_value_a_sealed_game_decides_nothing() {
    let chain = Chain::new([9; 32], 50);
    let (header, _) = sealed_game(&chain, false);
    let game = Game::open(header, rollcall_core::registry::builtin()).unwrap();
    let refusal = game
        .decide(
            &serde_json::json!({"type": "begin-turn", "first": "allies"}),
            Decide { by: Some("allies"), ..Decide::default() },
        )
        .unwrap_err();
    assert!(refusal.to_string().contains("held by the server until the turn ends"), "{refusal}");
}
