//! A record of a stored game imported into the store
//! (`exchange::extend`): what the store lacks is appended, a record it
//! holds already adds nothing, one that parts from it is a fork kept as
//! evidence, another game of the same id or a record that does not verify
//! is refused; whatever is refused writes nothing but the fork's evidence.

use std::convert::Infallible;

use rollcall_core::game::{Decide, Game};
use rollcall_core::log::{EventLog, MemLog};
use rollcall_core::moves;
use rollcall_core::pbem::exchange::{self, ExtendError, Extension};
use rollcall_core::record::{Event, Header, Kind};
use rollcall_core::sim;

/// A random game of leader activation: its header, and its events after
/// each of its decisions.
fn game(decisions: usize) -> (Header, Vec<Vec<Event>>) {
    let (header, decisions) = sim::random_game("leader-activation", 7, decisions).unwrap();
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    let played = decisions.iter().map(|d| game.play(d, None).unwrap()).collect();
    (header, played)
}

/// A store holding `header`'s game with the events of its first `decisions`.
fn stored(header: &Header, played: &[Vec<Event>], decisions: usize) -> MemLog {
    let log = MemLog::new();
    let head = log.create(header).unwrap();
    let events: Vec<Event> = played[..decisions].concat();
    log.append(&header.game, &head.hash, &events).unwrap();
    log
}

/// The record's events, as `extend` reads them (each time from the first).
fn record(events: &[Event]) -> impl FnMut() -> Result<Vec<Result<Event, Infallible>>, Infallible> + '_ {
    move || Ok(events.iter().cloned().map(Ok).collect())
}

fn extend(log: &MemLog, header: &Header, events: &[Event]) -> Result<Extension, ExtendError<Infallible>> {
    exchange::extend(log, header, "record test.jsonl", record(events), 16, rollcall_core::registry::builtin())
}

/// Every event of the stored game `id`.
fn events_of(log: &MemLog, id: &str) -> Vec<Event> {
    log.events(id, 1).unwrap().collect::<Result<_, _>>().unwrap()
}

#[test]
fn what_the_store_lacks_is_appended_and_then_nothing_is() {
    let (header, played) = game(60);
    let log = stored(&header, &played, 20);
    let whole: Vec<Event> = played.concat();
    let from = played[..20].concat().len() as u64;
    match extend(&log, &header, &whole).unwrap() {
        Extension::Extended { appended, from: at, head } => {
            assert_eq!((appended, at), (whole.len() as u64 - from, from));
            assert_eq!(head, whole.last().unwrap().hash);
        }
        other => panic!("extended, not {other:?}"),
    }
    assert_eq!(events_of(&log, &header.game), whole, "the store holds the record, appended in whole decisions");
    match extend(&log, &header, &whole).unwrap() {
        Extension::Nothing { head } => assert_eq!(head.seq, whole.len() as u64),
        other => panic!("nothing, not {other:?}"),
    }
    let shorter = played[..10].concat();
    assert!(matches!(extend(&log, &header, &shorter).unwrap(), Extension::Nothing { .. }));
}

#[test]
fn a_record_that_parts_from_the_stored_game_is_a_fork_kept_as_evidence() {
    let (header, played) = game(40);
    let log = stored(&header, &played, 30);
    // Another branch from decision 21 on: the first decision listed then
    // that is not the one played, then the game's own decisions as far as
    // they stay legal.
    let mut branch = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    let mut events: Vec<Event> = Vec::new();
    for e in played[..20].concat() {
        branch.apply(&e).unwrap();
        events.push(e);
    }
    let played_next = &played[20][0];
    let listing = moves::list(&branch, moves::awaited_side(&branch).as_deref()).unwrap();
    let other = listing
        .entries()
        .filter_map(|entry| entry.fill(&[], true).ok())
        .find(|d| branch.decide(d, Decide::default()).is_ok_and(|new| new.events[0].body != played_next.body))
        .expect("another legal decision");
    events.extend(branch.play(&other, None).unwrap());
    let parts_at = played[..20].concat().len() as u64 + 1;
    let before = events_of(&log, &header.game);
    match extend(&log, &header, &events).unwrap() {
        Extension::Fork { seq, evidence } => {
            assert_eq!(seq, parts_at);
            let forks = exchange::forks(&log, &header.game).unwrap();
            assert_eq!(forks.len(), 1, "kept under {evidence}");
            assert_eq!((forks[0].seq, forks[0].source.as_str()), (parts_at, "record test.jsonl"));
            assert_eq!(forks[0].events.len(), events.len() - parts_at as usize + 1);
        }
        other => panic!("a fork, not {other:?}"),
    }
    assert_eq!(events_of(&log, &header.game), before, "the game is unchanged");
}

#[test]
fn another_game_of_the_same_id_or_a_record_that_does_not_verify_writes_nothing() {
    let (header, played) = game(30);
    let log = stored(&header, &played, 10);
    let before = events_of(&log, &header.game);
    let mut other = header.clone();
    other.parties.reverse();
    match extend(&log, &other, &played.concat()) {
        Err(e @ ExtendError::OtherGame { .. }) => assert!(e.to_string().contains("differs from it at $."), "{e}"),
        other => panic!("another game, not {other:?}"),
    }
    let mut damaged = played.concat();
    let last_fact = damaged.iter().rposition(|e| e.kind == Kind::Fact).unwrap();
    damaged[last_fact].body["tampered"] = true.into();
    match extend(&log, &header, &damaged) {
        Err(ExtendError::Unverified(f)) => assert_eq!(f.seq, Some(last_fact as u64 + 1)),
        other => panic!("unverified, not {other:?}"),
    }
    assert_eq!(events_of(&log, &header.game), before);
    assert!(exchange::forks(&log, &header.game).unwrap().is_empty());
}
