//! The store behaves like a `Vec` of events per game, even across a reopen
//! (sled's own model-test habit), and refuses bad appends without writing.
//! The same checks run against the in-memory log, so both keep one contract.

use rollcall_core::game::Game;
use rollcall_core::log::{open_game, EventLog, LogError, MemLog};
use rollcall_core::record::Event;
use rollcall_core::script::Script;
use rollcall_store::SledLog;

fn script(name: &str) -> Script {
    let path = format!("{}/../fixtures/leader-activation/{name}.json", env!("CARGO_MANIFEST_DIR"));
    Script::parse(&std::fs::read_to_string(path).unwrap(), name).unwrap()
}

/// The script's events, grouped by decision.
fn decisions(script: &Script) -> Vec<Vec<Event>> {
    let mut groups: Vec<Vec<Event>> = Vec::new();
    script
        .play(|_, e| {
            if e.kind == rollcall_core::Kind::Decision {
                groups.push(Vec::new());
            }
            groups.last_mut().unwrap().push(e.clone());
        })
        .unwrap();
    groups
}

fn all_events(log: &dyn EventLog, game: &str) -> Vec<Event> {
    log.events(game, 1).unwrap().map(Result::unwrap).collect()
}

/// Appends two games decision by decision, interleaved, checking the log
/// against a plain Vec after each append.
fn behaves_like_a_vec(log: &dyn EventLog) {
    let scripts = [script("rally"), script("skips")];
    let groups: Vec<_> = scripts.iter().map(decisions).collect();
    let mut model: Vec<Vec<Event>> = vec![Vec::new(), Vec::new()];
    for s in &scripts {
        log.create(&s.header).unwrap();
    }
    let longest = groups.iter().map(Vec::len).max().unwrap();
    for i in 0..longest {
        for (g, s) in scripts.iter().enumerate() {
            let Some(group) = groups[g].get(i) else { continue };
            let head = log.head(&s.header.game).unwrap();
            let new = log.append(&s.header.game, &head.hash, group).unwrap();
            model[g].extend_from_slice(group);
            assert_eq!(new.seq, model[g].len() as u64);
            assert_eq!(new.hash, model[g].last().unwrap().hash);
            assert_eq!(all_events(log, &s.header.game), model[g]);
        }
    }
    assert_eq!(log.games().unwrap(), vec!["rally".to_string(), "skips".to_string()]);
    let tail: Vec<Event> = log.events("rally", 10).unwrap().map(Result::unwrap).collect();
    assert_eq!(tail, model[0][9..].to_vec());
}

/// A stale head, a group that does not chain, or one that does not start
/// with a decision is refused, and nothing of it is written.
fn refuses_bad_appends(log: &dyn EventLog) {
    let s = script("rally");
    let groups = decisions(&s);
    let root = log.create(&s.header).unwrap();
    assert!(matches!(log.create(&s.header), Err(LogError::GameExists(_))));
    let first = log.append("rally", &root.hash, &groups[0]).unwrap();
    // Stale: the second decision appended on the old head.
    let stale = log.append("rally", &root.hash, &groups[1]).unwrap_err();
    assert!(matches!(stale, LogError::StaleHead { .. }), "{stale}");
    assert!(stale.to_string().contains("replay and decide again"));
    // Skipping a decision: its events do not follow the head.
    let gap = log.append("rally", &first.hash, &groups[2]).unwrap_err();
    assert!(gap.to_string().contains("does not follow"), "{gap}");
    // A changed event does not chain.
    let mut forged = groups[1].clone();
    forged[0].body["decision"]["leader"] = serde_json::json!("fw-weber");
    let broken = log.append("rally", &first.hash, &forged).unwrap_err();
    assert!(broken.to_string().contains("does not chain"), "{broken}");
    // Not starting with a decision.
    let tail = log.append("rally", &first.hash, &groups[1][1..]).unwrap_err();
    assert!(
        tail.to_string().contains("starts with a decision") || tail.to_string().contains("does not follow"),
        "{tail}"
    );
    assert_eq!(log.head("rally").unwrap(), first);
    assert_eq!(all_events(log, "rally"), groups[0]);
    assert!(matches!(log.append("nope", &root.hash, &groups[0]), Err(LogError::UnknownGame(_))));
}

#[test]
fn memory_log_behaves_like_a_vec() {
    behaves_like_a_vec(&MemLog::new());
}

#[test]
fn memory_log_refuses_bad_appends() {
    refuses_bad_appends(&MemLog::new());
}

#[test]
fn sled_log_behaves_like_a_vec() {
    let dir = tempfile::tempdir().unwrap();
    behaves_like_a_vec(&SledLog::open(dir.path()).unwrap());
}

#[test]
fn sled_log_refuses_bad_appends() {
    let dir = tempfile::tempdir().unwrap();
    refuses_bad_appends(&SledLog::open(dir.path()).unwrap());
}

#[test]
fn sled_log_keeps_everything_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let s = script("skips");
    let groups = decisions(&s);
    let expected: Vec<Event> = groups.concat();
    {
        let log = SledLog::open(dir.path()).unwrap();
        let mut head = log.create(&s.header).unwrap();
        for g in &groups {
            head = log.append("skips", &head.hash, g).unwrap();
        }
    }
    let log = SledLog::open(dir.path()).unwrap();
    assert_eq!(all_events(&log, "skips"), expected);
    assert_eq!(log.header("skips").unwrap(), s.header);
    let game: Game = open_game(&log, "skips", None).unwrap();
    assert_eq!(game.head(), expected.last().unwrap().hash);
    assert_eq!(log.head("skips").unwrap().hash, game.head());
}

#[test]
fn a_record_file_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let s = script("rally");
    let events: Vec<Event> = decisions(&s).concat();
    let path = dir.path().join("rally.jsonl");
    let n = rollcall_store::file::write(
        &path,
        rollcall_store::file::Existing::Refuse,
        &s.header,
        events.iter().cloned().map(Ok::<_, String>),
    )
    .unwrap();
    assert_eq!(n, events.len() as u64);
    let (header, read) = rollcall_store::file::read(&path).unwrap();
    assert_eq!(header, s.header);
    assert_eq!(read.map(Result::unwrap).collect::<Vec<_>>(), events);
    assert!(!dir.path().join(".rally.jsonl.partial").exists(), "the temporary file is renamed into place");
}
