//! Nothing partial: a `run` or `import` killed at any moment leaves either
//! the whole game or no game a reader can see, and the retry is not blocked
//! (sled's crash-test habit: run the binary as a child, kill it, reopen).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The seed of the kill points: `ROLLCALL_SEED`, or the clock. Printed.
fn seed() -> u64 {
    let seed = std::env::var("ROLLCALL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
    });
    println!("ROLLCALL_SEED={seed}");
    seed
}

fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn rollcall(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rollcall"));
    c.arg("--db").arg(db);
    c
}

#[path = "support/postgres.rs"]
mod postgres_support;

/// A store the crash tests kill `run` and `import` over: a sled directory,
/// or a PostgreSQL database of the test's own.
enum At {
    Sled(PathBuf),
    Postgres(postgres_support::Database),
}

impl At {
    /// The binary, on this store.
    fn rollcall(&self) -> Command {
        match self {
            At::Sled(dir) => rollcall(dir),
            At::Postgres(db) => {
                let mut c = Command::new(env!("CARGO_BIN_EXE_rollcall"));
                c.arg("--store").arg(&db.url);
                c
            }
        }
    }
}

/// Fresh stores of one backend: `sled` under `dir`, or else a new
/// PostgreSQL database each (none, after a notice, without a cluster).
fn stores(backend: &str, dir: &Path, test: &str) -> Option<Box<dyn FnMut() -> At>> {
    match backend {
        "sled" => {
            let dir = dir.to_path_buf();
            let mut n = 0;
            Some(Box::new(move || {
                n += 1;
                At::Sled(dir.join(format!("db-{n}")))
            }))
        }
        _ => {
            // Skipped (with a notice) or failed as CI asks, before any round.
            drop(postgres_support::Database::new(test)?);
            let test = test.to_string();
            Some(Box::new(move || At::Postgres(postgres_support::Database::new(&test).unwrap())))
        }
    }
}

#[track_caller]
fn ok(out: Output) -> String {
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A script of `n` referee moves: 2n events.
fn long_script(dir: &Path, n: usize) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = std::fs::read_to_string(root.join("fixtures/leader-activation/skips.json")).unwrap();
    let mut script: serde_json::Value = serde_json::from_str(&text).unwrap();
    script["game"] = "long".into();
    let piece = script["scenario"]["units"][0]["id"].clone();
    script["decisions"] = (0..n).map(|i| serde_json::json!({"type": "move", "piece": piece, "to": [i, 0]})).collect();
    let path = dir.join("long.json");
    std::fs::write(&path, script.to_string()).unwrap();
    path
}

/// What a reader sees of game `long` in the sled store `db`: none, or all
/// `events` of it, verified.
fn whole_or_nothing(db: &Path, events: u64) -> bool {
    seen_whole_or_nothing(&At::Sled(db.to_path_buf()), events)
}

/// What a reader sees of game `long`: none, or all `events` of it, verified.
fn seen_whole_or_nothing(at: &At, events: u64) -> bool {
    let Some(games) = games_seen(at) else { return false };
    match games["games"].as_array().unwrap().as_slice() {
        [] => false,
        [g] => {
            assert_eq!(g["events"], events, "a partial game is visible: {games}");
            let v: serde_json::Value =
                serde_json::from_str(&ok(at.rollcall().args(["verify", "long", "--json"]).output().unwrap())).unwrap();
            assert_eq!(v["events"], events);
            true
        }
        more => panic!("unexpected games {more:?}"),
    }
}

/// `games --json` as a reader sees it, or none when a kill fell before the
/// store itself was made (no directory yet, or sled's first files without
/// its database): a reader is told so, plainly, and nothing is there.
fn games_seen(at: &At) -> Option<serde_json::Value> {
    let out = at.rollcall().args(["games", "--json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && (stderr.contains("error: no store at") || stderr.contains("is not a rollcall store")) {
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        return None;
    }
    Some(serde_json::from_str(&ok(out)).unwrap())
}

/// Runs `command` until the kill point `rng` draws, then kills it: after
/// a number of the lines it prints (at most `lines`, for a command that
/// prints a line an event), or after a time (at most `most`). The first
/// kill of a round (`early`) falls within the first quarter of the lines,
/// where the process, held by the pipe it prints into (its own buffer and
/// the pipe's take less than half its lines), cannot have finished: at
/// least that kill lands in the middle.
fn kill_at_random(mut command: Command, rng: &mut u64, lines: Option<u64>, most: Duration, early: bool) {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let out = child.stdout.take().unwrap();
    if let Some(lines) = lines.filter(|_| early || next(rng).is_multiple_of(2)) {
        let cap = if early { lines / 4 } else { lines };
        let kill_after = 1 + next(rng) % cap;
        let mut read = BufReader::new(out).lines();
        for _ in 0..kill_after {
            if read.next().is_none() {
                break;
            }
        }
        child.kill().unwrap();
    } else {
        // Drained as it prints, so that only the time stops it.
        let drain = std::thread::spawn(move || std::io::copy(&mut BufReader::new(out), &mut std::io::sink()));
        std::thread::sleep(Duration::from_micros(next(rng) % most.as_micros() as u64));
        child.kill().unwrap();
        let _ = drain.join();
    }
    child.wait().unwrap();
}

/// `rounds` rounds, each on a fresh store: `command` (a `run` or an
/// `import` of game `long`, `events` events) killed at random points, one
/// to three times over on the store, each kill leaving no game or the
/// whole game, verified; then, if none is there, the retry makes it whole
/// and leaves no stopped creation behind. Returns how many kills left no
/// game.
fn killed_creations_leave_the_whole_game_or_nothing(
    rng: &mut u64,
    mut store: impl FnMut() -> At,
    command: impl Fn(&At) -> Command,
    (events, lines): (u64, Option<u64>),
    rounds: usize,
) -> usize {
    // How long the whole command takes here: the time kills are drawn in.
    let timed = store();
    let start = Instant::now();
    ok(command(&timed).output().unwrap());
    let most = start.elapsed() + Duration::from_millis(20);
    drop(timed);
    let mut partial = 0;
    for round in 0..rounds {
        let at = store();
        for kill in 0..1 + next(rng) % 3 {
            kill_at_random(command(&at), rng, lines, most, kill == 0);
            if seen_whole_or_nothing(&at, events) {
                break;
            }
            partial += 1;
            if games_seen(&at).is_some() {
                let games = ok(at.rollcall().arg("games").output().unwrap());
                assert!(games.contains("creation was stopped") || games.contains("no games"), "round {round}: {games}");
            }
        }
        if !seen_whole_or_nothing(&at, events) {
            ok(command(&at).output().unwrap());
            assert!(seen_whole_or_nothing(&at, events), "round {round}: the retry makes the whole game");
            let games = ok(at.rollcall().arg("games").output().unwrap());
            assert!(!games.contains("creation was stopped"), "round {round}: {games}");
        }
    }
    partial
}

/// `run SCRIPT`, killed at random points many times over, on `backend`.
fn killed_runs(backend: &str, test: &str) {
    let mut rng = seed();
    let dir = tempfile::tempdir().unwrap();
    let Some(stores) = stores(backend, dir.path(), test) else { return };
    let moves = 3_000;
    let script = long_script(dir.path(), moves);
    // `run` narrates each event (and a line before them): 2n events, 2n + 1 lines.
    let shape = (2 * moves as u64, Some(2 * moves as u64 + 1));
    let run = |at: &At| {
        let mut c = at.rollcall();
        c.arg("run").arg(&script);
        c
    };
    let partial = killed_creations_leave_the_whole_game_or_nothing(&mut rng, stores, run, shape, 8);
    println!("{partial} kills of `run` left no game");
    assert!(partial >= 8, "each round's first kill falls in the middle of the run");
}

#[test]
fn a_killed_run_leaves_the_whole_game_or_nothing_and_the_retry_works() {
    killed_runs("sled", "a_killed_run_leaves_the_whole_game_or_nothing_and_the_retry_works");
}

#[test]
fn a_killed_run_into_postgres_leaves_the_whole_game_or_nothing_and_the_retry_works() {
    killed_runs("postgres", "a_killed_run_into_postgres_leaves_the_whole_game_or_nothing_and_the_retry_works");
}

/// `import FILE`, killed at random times many times over, on `backend`.
fn killed_imports(backend: &str, test: &str) {
    let mut rng = seed();
    let dir = tempfile::tempdir().unwrap();
    let Some(stores) = stores(backend, dir.path(), test) else { return };
    let moves = 3_000;
    let script = long_script(dir.path(), moves);
    let source = dir.path().join("source");
    ok(rollcall(&source).arg("run").arg(&script).output().unwrap());
    let record = dir.path().join("long.jsonl");
    ok(rollcall(&source).args(["export", "long", "-o"]).arg(&record).output().unwrap());
    // `import` prints one line, at its end: every kill falls by time.
    let import = |at: &At| {
        let mut c = at.rollcall();
        c.arg("import").arg(&record);
        c
    };
    let partial =
        killed_creations_leave_the_whole_game_or_nothing(&mut rng, stores, import, (2 * moves as u64, None), 8);
    println!("{partial} kills of `import` left no game");
}

#[test]
fn a_killed_import_leaves_the_whole_game_or_nothing_and_the_retry_works() {
    killed_imports("sled", "a_killed_import_leaves_the_whole_game_or_nothing_and_the_retry_works");
}

#[test]
fn a_killed_import_into_postgres_leaves_the_whole_game_or_nothing_and_the_retry_works() {
    killed_imports("postgres", "a_killed_import_into_postgres_leaves_the_whole_game_or_nothing_and_the_retry_works");
}

/// `run` appends in batches as it reads; a script refused at its
/// last decision, after more than one batch is in the store, leaves no game
/// behind, and the fixed script then runs.
#[test]
fn a_run_refused_at_its_last_decision_after_several_batches_leaves_no_game() {
    // Given a script of 3,000 moves (6,000 events: more than one batch of 4,096) whose last decision is refused
    let dir = tempfile::tempdir().unwrap();
    let moves = 3_000;
    let script = long_script(dir.path(), moves);
    let mut text: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&script).unwrap()).unwrap();
    let refused = serde_json::json!({"type": "begin-turn", "first": "nobody"});
    text["decisions"].as_array_mut().unwrap().push(refused);
    let bad = dir.path().join("refused-last.json");
    std::fs::write(&bad, serde_json::to_string_pretty(&text).unwrap()).unwrap();
    let db = dir.path().join("db");
    // When it is run
    let out = rollcall(&db).arg("run").arg(&bad).output().unwrap();
    // Then it fails naming the last decision, and no game, not even a stopped creation, is left
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("decisions[{moves}]")) && stderr.contains("(nothing was written)"), "{stderr}");
    assert!(!whole_or_nothing(&db, 2 * moves as u64));
    let games = ok(rollcall(&db).arg("games").output().unwrap());
    assert!(games.contains("no games") && !games.contains("creation was stopped"), "{games}");
    // And the script without its refused decision runs whole
    ok(rollcall(&db).arg("run").arg(&script).output().unwrap());
    assert!(whole_or_nothing(&db, 2 * moves as u64));
}

/// Every decision `play --stream` acknowledged survives a kill at any
/// moment, kill after kill on one store: an append is acknowledged once the
/// store's journal is synced, and sled, which is not flushed for it, is
/// given at the next opening whatever it lost (store/src/journal.rs). Each
/// round checks the acknowledged head is in the store, exactly, and that
/// the whole game verifies; the next round appends after it.
#[test]
fn acknowledged_decisions_survive_kill_after_kill_of_a_stream() {
    let mut rng = seed();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = std::fs::read_to_string(root.join("fixtures/leader-activation/skips.json")).unwrap();
    let script: serde_json::Value = serde_json::from_str(&text).unwrap();
    let scenario = dir.path().join("scenario.json");
    std::fs::write(&scenario, script["scenario"].to_string()).unwrap();
    ok(rollcall(&db)
        .args(["new", "--rules", "leader-activation", "--game", "stream", "--scenario"])
        .arg(&scenario)
        .output()
        .unwrap());
    let piece = script["scenario"]["units"][0]["id"].as_str().unwrap().to_string();
    let mut acknowledged = 0u64;
    for round in 0..6 {
        let mut child = rollcall(&db)
            .args(["play", "stream", "-", "--stream"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let piece = piece.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            for i in 0..1_000_000 {
                let line = format!("{{\"type\":\"move\",\"piece\":\"{piece}\",\"to\":[{i},{round}]}}\n");
                if stdin.write_all(line.as_bytes()).is_err() {
                    break;
                }
            }
        });
        let kill_after = 1 + next(&mut rng) % 300;
        let mut acks = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        let mut last = None;
        for _ in 0..kill_after {
            line.clear();
            assert!(acks.read_line(&mut line).unwrap() > 0, "the stream stopped early");
            let mut words = line.split_whitespace();
            assert_eq!(words.next(), Some("ok"), "{line}");
            let seq: u64 = words.next().unwrap().parse().unwrap();
            last = Some((seq, words.next().unwrap().to_string()));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let _ = writer.join();
        let (seq, hash) = last.unwrap();
        assert!(seq > acknowledged);

        let record = ok(rollcall(&db).args(["export", "stream", "-o", "-"]).output().unwrap());
        let at = record
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|e| e["seq"] == seq)
            .unwrap_or_else(|| panic!("round {round}: acknowledged seq {seq} lost"));
        assert_eq!(at["hash"], hash.as_str(), "round {round}: seq {seq} is not the event acknowledged");
        let v: serde_json::Value =
            serde_json::from_str(&ok(rollcall(&db).args(["verify", "stream", "--json"]).output().unwrap())).unwrap();
        assert!(v["events"].as_u64().unwrap() >= seq, "{v}");
        acknowledged = v["events"].as_u64().unwrap();
    }
}
