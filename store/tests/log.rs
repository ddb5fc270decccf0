//! The store behaves like a `Vec` of events per game, even across a reopen
//! (sled's own model-test habit), and refuses bad appends without writing.
//! The same checks run against the in-memory log, sled, and PostgreSQL
//! (across reconnects, and with its connections killed under it), so all
//! keep one contract.

use std::sync::Arc;

use rollcall_core::game::Game;
use rollcall_core::log::{chain_lines, open_game, EventLog, Head, LogError, MemLog};
use rollcall_core::record::Event;
use rollcall_core::script::Script;
use rollcall_store::{PgLog, SledLog, Store};

#[path = "../../tests/support/postgres.rs"]
mod postgres_support;
use postgres_support::Database;

fn script(name: &str) -> Script {
    let path = format!("{}/../fixtures/leader-activation/{name}.json", env!("CARGO_MANIFEST_DIR"));
    Script::parse(&std::fs::read_to_string(path).unwrap(), name, rollcall_core::registry::builtin()).unwrap()
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
    // The lines are the events' record lines, from the first seq or any.
    for (g, s) in scripts.iter().enumerate() {
        for from in [1, 10] {
            let lines: Vec<String> = log.lines(&s.header.game, from).unwrap().map(Result::unwrap).collect();
            let expected: Vec<String> = model[g]
                .iter()
                .filter(|e| e.seq >= from)
                .map(|e| rollcall_core::record::encode_event(e).unwrap())
                .collect();
            assert_eq!(lines, expected, "{} from seq {from}", s.header.game);
        }
    }
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

/// A game being created is invisible until committed; a creation left
/// unfinished is cleared by the next one of the same id; notes are kept.
fn creates_whole_or_not_at_all(log: &dyn EventLog) {
    let s = script("rally");
    let groups = decisions(&s);
    let root = log.begin(&s.header).unwrap();
    let mid = log.append_pending("rally", &root.hash, &groups[..3].concat()).unwrap();
    // Invisible to every reader while pending.
    assert!(matches!(log.head("rally"), Err(LogError::UnknownGame(_))));
    assert!(matches!(log.header("rally"), Err(LogError::UnknownGame(_))));
    assert!(log.events("rally", 1).is_err());
    assert_eq!(log.games().unwrap(), Vec::<String>::new());
    assert_eq!(log.incomplete().unwrap(), vec!["rally".to_string()]);
    // A stale pending append is refused like any other.
    assert!(matches!(log.append_pending("rally", &root.hash, &groups[3]), Err(LogError::StaleHead { .. })));
    // Begun again (a retry after a kill): the leftover is gone.
    let again = log.begin(&s.header).unwrap();
    assert_eq!(again, root);
    assert!(matches!(log.append_pending("rally", &mid.hash, &groups[3]), Err(LogError::StaleHead { .. })));
    let all = groups.concat();
    let end = log.append_pending("rally", &root.hash, &all).unwrap();
    assert_eq!(log.commit("rally").unwrap(), end);
    assert_eq!(all_events(log, "rally"), all);
    assert_eq!(log.incomplete().unwrap(), Vec::<String>::new());
    assert!(matches!(log.begin(&s.header), Err(LogError::GameExists(_))));
    assert!(matches!(log.commit("rally"), Err(LogError::UnknownGame(_) | LogError::GameExists(_))));
    // Abandoned: nothing stays.
    let skips = script("skips");
    let r = log.begin(&skips.header).unwrap();
    log.append_pending("skips", &r.hash, &decisions(&skips)[0]).unwrap();
    log.abandon("skips").unwrap();
    assert_eq!(log.incomplete().unwrap(), Vec::<String>::new());
    assert_eq!(log.games().unwrap(), vec!["rally".to_string()]);
    // Notes.
    log.set_note("side/rally", Some(b"allies")).unwrap();
    log.set_note("side/skips", Some(b"axis")).unwrap();
    log.set_note("acked/rally", Some(b"x")).unwrap();
    assert_eq!(log.note("side/rally").unwrap().as_deref(), Some(&b"allies"[..]));
    let sides: Vec<String> = log.notes("side/").unwrap().into_iter().map(|(k, _)| k).collect();
    assert_eq!(sides, vec!["side/rally".to_string(), "side/skips".to_string()]);
    log.set_note("side/skips", None).unwrap();
    assert_eq!(log.note("side/skips").unwrap(), None);
}

/// A decision played: its events, and their record lines.
type Played = (Vec<Event>, Vec<String>);

/// A random leader-activation game of `n` decisions: its header, and its
/// events and their record lines, decision by decision.
fn random_game(n: usize) -> (rollcall_core::record::Header, Vec<Played>) {
    let (header, list) = rollcall_core::sim::random_game("leader-activation", 7, n).unwrap();
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).unwrap();
    let played = list.iter().map(|d| game.play_lines(d, None).unwrap()).map(|(e, l)| (e, l.lines().to_vec())).collect();
    (header, played)
}

/// A game created from its record lines (`run`, `import`: written in
/// blocks by sled, as rows by PostgreSQL) reads back as the same events
/// and lines from any seq, before and after decisions are appended to it
/// one by one; a line changed after it was hashed is refused, and nothing
/// of its batch is written.
fn creates_from_lines_as_from_events(log: &dyn EventLog) {
    let (header, played) = random_game(400);
    let (created, appended) = played.split_at(played.len() - 5);
    let lines_of = |part: &[Played]| part.iter().flat_map(|(_, l)| l.clone()).collect::<Vec<_>>();
    let events_of = |part: &[Played]| part.iter().flat_map(|(e, _)| e.clone()).collect::<Vec<_>>();
    let root = log.begin(&header).unwrap();
    let (first, second) = created.split_at(created.len() / 2);
    let chained = |from: &Head, lines: Vec<String>| chain_lines(&header.game, from, lines);
    let first = chained(&root, lines_of(first)).unwrap();
    let mid = log.append_pending_lines(&header.game, &first).unwrap();
    let mut forged = lines_of(second);
    let decision = forged.iter().rposition(|l| l.contains("\"number\":")).unwrap();
    forged[decision] = forged[decision].replacen("\"number\":", "\"number\":1", 1);
    assert!(matches!(chained(&mid, forged), Err(LogError::BadAppend { .. })));
    // Lines checked from a head the game has left are refused, and nothing of them is written.
    assert!(matches!(log.append_pending_lines(&header.game, &first), Err(LogError::StaleHead { .. })));
    let end = log.append_pending_lines(&header.game, &chained(&mid, lines_of(second)).unwrap()).unwrap();
    assert_eq!(log.commit(&header.game).unwrap(), end);
    let mut head = end;
    for (events, _) in appended {
        head = log.append(&header.game, &head.hash, events).unwrap();
    }
    let (events, lines) = (events_of(&played), lines_of(&played));
    assert_eq!(head.seq, events.len() as u64);
    for from in 1..=head.seq + 1 {
        let read: Vec<String> = log.lines(&header.game, from).unwrap().map(Result::unwrap).collect();
        assert_eq!(read, lines[from as usize - 1..], "lines from seq {from}");
    }
    for from in [1, 2, 3, head.seq / 2, head.seq - 7, head.seq] {
        let read: Vec<Event> = log.events(&header.game, from).unwrap().map(Result::unwrap).collect();
        assert_eq!(read, events[from as usize - 1..], "events from seq {from}");
    }
    assert_eq!(open_game(log, &header.game, None, rollcall_core::registry::builtin()).unwrap().head(), head.hash);
}

#[test]
fn memory_log_creates_from_lines_as_from_events() {
    creates_from_lines_as_from_events(&MemLog::new());
}

#[test]
fn sled_log_creates_from_lines_as_from_events() {
    let dir = tempfile::tempdir().unwrap();
    creates_from_lines_as_from_events(&SledLog::open(dir.path()).unwrap());
    // And reads them alike once opened again.
    let log = SledLog::open(dir.path()).unwrap();
    let game = &log.games().unwrap()[0];
    let (_, played) = random_game(400);
    let lines: Vec<String> = played.iter().flat_map(|(_, l)| l.clone()).collect();
    assert_eq!(log.lines(game, 1).unwrap().map(Result::unwrap).collect::<Vec<_>>(), lines);
}

#[test]
fn memory_log_creates_whole_or_not_at_all() {
    creates_whole_or_not_at_all(&MemLog::new());
}

#[test]
fn sled_log_creates_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    creates_whole_or_not_at_all(&SledLog::open(dir.path()).unwrap());
}

#[test]
fn sled_log_clears_an_unfinished_creation_after_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let s = script("rally");
    let groups = decisions(&s);
    {
        let log = SledLog::open(dir.path()).unwrap();
        let root = log.begin(&s.header).unwrap();
        log.append_pending("rally", &root.hash, &groups[..4].concat()).unwrap();
        // Dropped without a commit: as a kill would leave it.
    }
    let log = SledLog::open(dir.path()).unwrap();
    assert_eq!(log.games().unwrap(), Vec::<String>::new());
    assert_eq!(log.incomplete().unwrap(), vec!["rally".to_string()]);
    let root = log.begin(&s.header).unwrap();
    log.append_pending("rally", &root.hash, &groups.concat()).unwrap();
    log.commit("rally").unwrap();
    assert_eq!(all_events(&log, "rally"), groups.concat());
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

/// Everything appended is there, and the chain checks, once the log is
/// opened again (sled: the directory reopened; PostgreSQL: new connections).
fn keeps_everything_across_a_reopen(open: &dyn Fn() -> Box<dyn EventLog>) {
    let s = script("skips");
    let groups = decisions(&s);
    let expected: Vec<Event> = groups.concat();
    {
        let log = open();
        let mut head = log.create(&s.header).unwrap();
        for g in &groups {
            head = log.append("skips", &head.hash, g).unwrap();
        }
    }
    let log = open();
    assert_eq!(all_events(&*log, "skips"), expected);
    assert_eq!(log.header("skips").unwrap(), s.header);
    let game: Game = open_game(&*log, "skips", None, rollcall_core::registry::builtin()).unwrap();
    assert_eq!(game.head(), expected.last().unwrap().hash);
    assert_eq!(log.head("skips").unwrap().hash, game.head());
}

/// A note swapped only from the value it holds; a secret written once.
fn swaps_notes_and_keeps_secrets_once(log: &dyn EventLog) {
    assert!(log.swap_note("claim/g", None, Some(b"first")).unwrap(), "an absent note is claimed");
    assert!(!log.swap_note("claim/g", None, Some(b"second")).unwrap(), "a claimed note is not claimed again");
    assert!(
        !log.swap_note("claim/g", Some(b"other"), Some(b"x")).unwrap(),
        "not swapped from a value it does not hold"
    );
    assert_eq!(log.note("claim/g").unwrap().as_deref(), Some(&b"first"[..]));
    assert!(log.swap_note("claim/g", Some(b"first"), Some(b"third")).unwrap());
    assert_eq!(log.note("claim/g").unwrap().as_deref(), Some(&b"third"[..]));
    assert!(!log.swap_note("claim/g", Some(b"first"), None).unwrap());
    assert!(log.swap_note("claim/g", Some(b"third"), None).unwrap());
    assert_eq!(log.note("claim/g").unwrap(), None);
    assert!(log.swap_note("claim/g", None, None).unwrap(), "absent, as expected");
    // Prefixes are literal: `_` and `%` match themselves only.
    log.set_note("a_b/1", Some(b"1")).unwrap();
    log.set_note("axb/2", Some(b"2")).unwrap();
    log.set_note("a%/3", Some(b"3")).unwrap();
    let keys = |p: &str| log.notes(p).unwrap().into_iter().map(|(k, _)| k).collect::<Vec<_>>();
    assert_eq!(keys("a_b/"), vec!["a_b/1".to_string()]);
    assert_eq!(keys("a%"), vec!["a%/3".to_string()]);
    // Secrets: written once, never listed with the notes.
    assert_eq!(log.set_secret("chain/g", b"one").unwrap(), b"one");
    assert_eq!(log.set_secret("chain/g", b"two").unwrap(), b"one", "a secret is never replaced");
    assert_eq!(log.secret("chain/g").unwrap().as_deref(), Some(&b"one"[..]));
    assert!(log.notes("").unwrap().iter().all(|(k, _)| !k.starts_with("chain/")));
}

#[test]
fn sled_log_keeps_everything_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    keeps_everything_across_a_reopen(&|| Box::new(SledLog::open(dir.path()).unwrap()));
}

#[test]
fn memory_log_swaps_notes_and_keeps_secrets_once() {
    swaps_notes_and_keeps_secrets_once(&MemLog::new());
}

#[test]
fn sled_log_swaps_notes_and_keeps_secrets_once() {
    let dir = tempfile::tempdir().unwrap();
    swaps_notes_and_keeps_secrets_once(&SledLog::open(dir.path()).unwrap());
}

// PostgreSQL: the same model tests, each in a database of its own.

fn pg(test: &str) -> Option<(Database, PgLog)> {
    let db = Database::new(test)?;
    let log = PgLog::open(&db.url).unwrap();
    Some((db, log))
}

/// Given a log with an open connection, when it is let go on a thread that
/// drives an async runtime (as a dice server lets go of its store when it
/// stops), then its connections close without a panic: the postgres client
/// blocks on a runtime of its own to close one, which tokio refuses there.
#[test]
fn a_postgres_log_let_go_inside_an_async_runtime_closes_cleanly() {
    let Some((_db, log)) = pg("a_postgres_log_let_go_inside_an_async_runtime") else { return };
    log.games().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async move { drop(log) });
}

#[test]
fn postgres_log_behaves_like_a_vec() {
    let Some((_db, log)) = pg("postgres_log_behaves_like_a_vec") else { return };
    behaves_like_a_vec(&log);
}

#[test]
fn postgres_log_refuses_bad_appends() {
    let Some((_db, log)) = pg("postgres_log_refuses_bad_appends") else { return };
    refuses_bad_appends(&log);
}

#[test]
fn postgres_log_creates_whole_or_not_at_all() {
    let Some((_db, log)) = pg("postgres_log_creates_whole_or_not_at_all") else { return };
    creates_whole_or_not_at_all(&log);
}

#[test]
fn postgres_log_creates_from_lines_as_from_events() {
    let Some((_db, log)) = pg("postgres_log_creates_from_lines_as_from_events") else { return };
    creates_from_lines_as_from_events(&log);
}

#[test]
fn postgres_log_swaps_notes_and_keeps_secrets_once() {
    let Some((_db, log)) = pg("postgres_log_swaps_notes_and_keeps_secrets_once") else { return };
    swaps_notes_and_keeps_secrets_once(&log);
}

#[test]
fn postgres_log_keeps_everything_across_a_reconnect() {
    let Some(db) = Database::new("postgres_log_keeps_everything_across_a_reconnect") else { return };
    keeps_everything_across_a_reopen(&|| Box::new(PgLog::open(&db.url).unwrap()));
}

#[test]
fn postgres_log_clears_an_unfinished_creation_after_a_reconnect() {
    let Some(db) = Database::new("postgres_log_clears_an_unfinished_creation_after_a_reconnect") else { return };
    let s = script("rally");
    let groups = decisions(&s);
    {
        let log = PgLog::open(&db.url).unwrap();
        let root = log.begin(&s.header).unwrap();
        log.append_pending("rally", &root.hash, &groups[..4].concat()).unwrap();
    }
    let log = PgLog::open(&db.url).unwrap();
    assert_eq!(log.games().unwrap(), Vec::<String>::new());
    assert_eq!(log.incomplete().unwrap(), vec!["rally".to_string()]);
    let root = log.begin(&s.header).unwrap();
    log.append_pending("rally", &root.hash, &groups.concat()).unwrap();
    log.commit("rally").unwrap();
    assert_eq!(all_events(&log, "rally"), groups.concat());
}

/// Every connection the log holds is ended under it (as a restart of the
/// database ends them) between its operations, again and again: it
/// reconnects, and the game it writes is the game a Vec would hold.
#[test]
fn postgres_log_reconnects_when_its_connections_are_killed() {
    let Some((db, log)) = pg("postgres_log_reconnects_when_its_connections_are_killed") else { return };
    let s = script("rally");
    let groups = decisions(&s);
    let mut head = log.create(&s.header).unwrap();
    let mut killed = 0;
    for (i, g) in groups.iter().enumerate() {
        if i % 3 == 0 {
            killed += db.kill_connections();
        }
        head = log.append("rally", &head.hash, g).unwrap();
        assert_eq!(log.head("rally").unwrap(), head);
    }
    assert!(killed >= groups.len() as u64 / 3, "connections were killed: {killed}");
    assert_eq!(all_events(&log, "rally"), groups.concat());
    open_game(&log, "rally", None, rollcall_core::registry::builtin()).unwrap();
}

/// Several writers race on one game's head, each on its own connection:
/// exactly one append lands per head, the others are told the head is
/// stale, and the log holds no fork, gap or duplicate, whatever the
/// isolation level the database is set to.
fn racing_writers_make_one_chain(isolation: &str) {
    let test = format!("postgres_racing_writers_{isolation}");
    let Some(db) = Database::new(&test) else { return };
    db.admin_sql(&format!("ALTER DATABASE {} SET default_transaction_isolation = '{isolation}'", db.name()));
    let s = script("rally");
    let setup = PgLog::open(&db.url).unwrap();
    setup.create(&s.header).unwrap();
    let writers = 4;
    let barrier = Arc::new(std::sync::Barrier::new(writers));
    let logs: Vec<Arc<PgLog>> = (0..writers).map(|_| Arc::new(PgLog::open(&db.url).unwrap())).collect();
    let mut game = open_game(&setup, "rally", None, rollcall_core::registry::builtin()).unwrap();
    let mut model: Vec<Event> = Vec::new();
    for round in 0..20u64 {
        // Each writer its own decision on the same head: a referee moving a
        // piece to a place of its own.
        let tries: Vec<(Game, Vec<Event>)> = (0..writers as u64)
            .map(|w| {
                let mut g = game.clone();
                let decision = serde_json::json!({"type": "move", "piece": "rifles-1", "to": [round, w]});
                let events = g.play(&decision, None).unwrap();
                (g, events)
            })
            .collect();
        let handles: Vec<_> = logs
            .iter()
            .zip(&tries)
            .map(|(log, (_, events))| {
                let (log, barrier, events, head) = (log.clone(), barrier.clone(), events.clone(), game.head());
                std::thread::spawn(move || {
                    barrier.wait();
                    log.append("rally", &head, &events)
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let winners: Vec<usize> = (0..writers).filter(|w| results[*w].is_ok()).collect();
        assert_eq!(winners.len(), 1, "{isolation}: exactly one of {writers} racing appends lands: {results:?}");
        for r in results.iter().filter_map(|r| r.as_ref().err()) {
            assert!(matches!(r, LogError::StaleHead { .. }), "{isolation}: the others are stale: {r}");
        }
        let (g, events) = &tries[winners[0]];
        model.extend_from_slice(events);
        game = g.clone();
        assert_eq!(setup.head("rally").unwrap().hash, game.head());
    }
    assert_eq!(all_events(&setup, "rally"), model, "{isolation}: one chain, the winners' events");
    open_game(&setup, "rally", None, rollcall_core::registry::builtin()).unwrap();
}

#[test]
fn postgres_racing_writers_make_one_chain_under_read_committed() {
    racing_writers_make_one_chain("read committed");
}

#[test]
fn postgres_racing_writers_make_one_chain_under_repeatable_read() {
    racing_writers_make_one_chain("repeatable read");
}

#[test]
fn postgres_racing_writers_make_one_chain_under_serializable() {
    racing_writers_make_one_chain("serializable");
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

/// Given two stored games with notes and a server's chain on each, when one
/// is removed at its head, then it is gone with its events and the notes
/// and secrets named, across a reopen; the other game, its notes and its
/// secret stay; its id can be used again; removing a game the store does
/// not have is refused; and (a store several processes share) removing a
/// game that moved on since its head was read is refused, removing nothing.
fn removes_a_game_with_its_notes_and_secrets(open: &dyn Fn() -> Store) {
    let rally = script("rally");
    let (notes, secrets) = (["side/rally".to_string()], ["chain/rally".to_string()]);
    {
        let log = open();
        for s in [script("rally"), script("skips")] {
            let head = log.create(&s.header).unwrap();
            let events: Vec<Event> = decisions(&s).into_iter().flatten().collect();
            log.append(&s.header.game, &head.hash, &events).unwrap();
        }
        log.set_note("side/rally", Some(b"allies")).unwrap();
        log.set_note("side/skips", Some(b"axis")).unwrap();
        log.set_secret("chain/rally", b"rally's chain").unwrap();
        log.set_secret("chain/skips", b"skips's chain").unwrap();
        let head = log.head("rally").unwrap();
        if let Store::Postgres(_) = log {
            let earlier = Head { seq: head.seq - 1, hash: all_events(&log, "rally")[head.seq as usize - 2].hash };
            let refused = log.remove_game("rally", &earlier, &notes, &secrets);
            assert!(matches!(refused, Err(LogError::StaleHead { .. })), "{refused:?}");
            assert_eq!(log.head("rally").unwrap(), head, "nothing removed");
            assert_eq!(all_events(&log, "rally").len() as u64, head.seq);
            assert!(log.secret("chain/rally").unwrap().is_some());
        }
        log.remove_game("rally", &head, &notes, &secrets).unwrap();
        assert!(matches!(log.remove_game("rally", &head, &[], &[]), Err(LogError::UnknownGame(_))));
    }
    let log = open();
    assert_eq!(log.games().unwrap(), vec!["skips".to_string()]);
    assert!(matches!(log.head("rally"), Err(LogError::UnknownGame(_))));
    assert_eq!(log.note("side/rally").unwrap(), None);
    assert_eq!(log.note("side/skips").unwrap(), Some(b"axis".to_vec()));
    assert_eq!(log.secret("chain/rally").unwrap(), None);
    assert_eq!(log.secret("chain/skips").unwrap(), Some(b"skips's chain".to_vec()));
    assert!(open_game(&log, "skips", None, rollcall_core::registry::builtin()).is_ok());
    // The id is free again, and a new game under it starts empty.
    let head = log.create(&rally.header).unwrap();
    assert_eq!(head.seq, 0);
    assert!(all_events(&log, "rally").is_empty());
}

#[test]
fn sled_log_removes_a_game_with_its_notes_and_secrets() {
    let dir = tempfile::tempdir().unwrap();
    removes_a_game_with_its_notes_and_secrets(&|| Store::Sled(Box::new(SledLog::open(dir.path()).unwrap())));
}

#[test]
fn postgres_log_removes_a_game_with_its_notes_and_secrets() {
    let Some(db) = Database::new("postgres_log_removes_a_game_with_its_notes_and_secrets") else { return };
    removes_a_game_with_its_notes_and_secrets(&|| Store::Postgres(Box::new(PgLog::open(&db.url).unwrap())));
}
