//! The binary on a real (pseudo-)terminal: `rollcall replay GAME --step`
//! (keys in, screen out) and progress bars (on a terminal, never on a pipe). The child gets a pty of its own as its controlling terminal;
//! what it writes is fed to a terminal emulator (vt100), and the test reads
//! the emulator's screen as a user would see it (`support/pty.rs`).

use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name)
}

#[path = "support/binary.rs"]
mod binary;
use binary::command as rollcall;

#[path = "support/pty.rs"]
mod pty;
use pty::{pty, Screen};

#[test]
fn replay_step_on_a_terminal_steps_back_and_forth_jumps_bookmarks_and_quits_with_q() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let run = rollcall(&db).arg("run").arg(fixture("leader-activation/rally.json")).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));

    let mut child = rollcall(&db);
    child.args(["replay", "rally", "--step"]);
    let mut screen = Screen::spawn(child, 120, 32);

    let first = screen.wait_for("seq 0/");
    assert!(first.contains("(the scenario, before the first event)"), "{first}");
    assert!(first.contains("verified:"), "{first}");

    // The store is released: another command reads it while the view is open.
    let state = rollcall(&db).args(["state", "rally"]).output().unwrap();
    assert!(state.status.success(), "the store is held: {}", String::from_utf8_lossy(&state.stderr));

    // To the end of decision 7, which rolls a die: the dice pane shows it, proven.
    screen.keys(":d 7\r");
    let at7 = screen.wait_for("decision 7/");
    assert!(at7.contains("rally#0 = 4  [proven]"), "{at7}");
    assert!(at7.contains("mortar: D6 4, needed 5+"), "{at7}");
    assert!(!at7.contains("#8 activate"), "nothing after the position: {at7}");

    // On to the next decision, and back by one event: decision 8's event is decision 8.
    screen.keys("]");
    let at8 = screen.wait_for("decision 8/");
    assert!(at8.contains("#8 activate leader=lt-vogel"), "{at8}");
    screen.keys("m");
    screen.wait_for("bookmarked");
    screen.keys("[");
    screen.wait_for("decision 7/");
    screen.keys("b");
    let back = screen.wait_for("decision 8/");
    assert!(back.contains("bookmarks: "), "{back}");

    screen.keys("?");
    screen.wait_for("to the end of the next decision");
    screen.keys("x");
    screen.keys("q");
    let status = screen.wait_exit();
    assert!(status.success(), "{status:?}");
}

/// A long record: a random legal game of `decisions` decisions, as a file.
fn long_record(dir: &Path, decisions: usize) -> PathBuf {
    let path = dir.join("long.jsonl");
    binary::random_record(&path, "leader-activation@1", 7, decisions);
    path
}

/// Reads the pty's master side until the child's end closes, on a thread of
/// its own (the child would block on a full pty otherwise).
fn read_all(master: OwnedFd) -> std::thread::JoinHandle<String> {
    let mut reader = std::fs::File::from(master);
    std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = reader.read(&mut buf) {
            all.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&all).into_owned()
    })
}

/// Runs rollcall with standard error on a pty (standard output a pipe);
/// returns what the pty received and the exit status.
fn on_terminal_stderr(db: &Path, args: &[&str]) -> (String, std::process::ExitStatus) {
    let (master, slave) = pty(100, 20);
    let mut child = rollcall(db)
        .args(args)
        .env("TERM", "xterm-256color")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    let seen = read_all(master);
    let mut stdout = child.stdout.take().unwrap();
    std::io::copy(&mut stdout, &mut std::io::sink()).unwrap();
    let status = child.wait().unwrap();
    drop(child);
    (seen.join().unwrap(), status)
}

/// verify (of a stored game and of a file), export, replay and diff of a long
/// record draw a bar with events/s on a terminal's standard error; on a
/// pipe (import, verify), or with --json, there is none.
#[test]
fn long_work_shows_a_progress_bar_on_a_terminal_and_none_on_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let record = long_record(dir.path(), 2_500);
    let record = record.to_str().unwrap();
    let piped = rollcall(&db).args(["import", record]).output().unwrap();
    assert!(piped.status.success(), "{}", String::from_utf8_lossy(&piped.stderr));
    assert_eq!(String::from_utf8_lossy(&piped.stderr), "", "a pipe sees no bar");
    // "imported GAME from FILE: N events, verified; head …"
    let said = String::from_utf8_lossy(&piped.stdout).into_owned();
    let game = said.split_whitespace().nth(1).unwrap().to_string();
    let events: u64 = said.split(": ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(events >= 5_000, "long enough for a bar: {said}");
    let out = dir.path().join("out.jsonl");
    let out = out.to_str().unwrap();
    for args in [
        vec!["verify", &game],
        vec!["verify", record],
        vec!["export", &game, "-o", out, "--force"],
        vec!["replay", &game],
        vec!["diff", &game, "--b", "+natural-6-rallies"],
    ] {
        let (seen, status) = on_terminal_stderr(&db, &args);
        assert!(status.code().is_some_and(|c| c < 2), "{args:?}: {seen}");
        assert!(seen.contains(" events, "), "{args:?} shows no bar on a terminal: {seen:?}");
    }
    let piped = rollcall(&db).args(["verify", &game]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&piped.stderr), "", "a pipe sees no bar");
    let (seen, status) = on_terminal_stderr(&db, &["verify", &game, "--json"]);
    assert!(status.success(), "{seen}");
    assert!(!seen.contains(" events, "), "--json shows a bar: {seen:?}");
}

/// golden check and golden bless draw a bar over the fixtures on a
/// terminal (the file at hand, how many are done), and none on a pipe.
#[test]
fn golden_check_and_bless_show_a_bar_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let fixtures = dir.path().join("fixtures");
    std::fs::create_dir(&fixtures).unwrap();
    for entry in std::fs::read_dir(binary::root().join("fixtures/leader-activation")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, fixtures.join(path.file_name().unwrap())).unwrap();
        }
    }
    let fixtures = fixtures.to_str().unwrap();
    for command in ["check", "bless"] {
        let (seen, status) = on_terminal_stderr(&db, &["golden", command, fixtures]);
        assert!(status.success(), "golden {command}: {seen}");
        assert!(seen.contains("/4 ") && seen.contains("rally.json"), "golden {command} shows no bar: {seen:?}");
        let piped = rollcall(&db).args(["golden", command, fixtures]).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&piped.stderr), "", "golden {command}: a pipe sees no bar");
    }
}

/// Runs rollcall with standard output on a pty; returns what it printed.
fn on_terminal_stdout(db: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let (master, slave) = pty(200, 20);
    let mut command = rollcall(db);
    command.args(args).env("TERM", "xterm-256color").env_remove("CLICOLOR").env_remove("CLICOLOR_FORCE");
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::from(slave)).stderr(Stdio::null()).spawn().unwrap();
    // The command holds the pty's other end until it goes: then the reader sees its end.
    drop(command);
    let seen = read_all(master);
    child.wait().unwrap();
    drop(child);
    seen.join().unwrap()
}

/// The verdict lines of verify and diff are green or red on a terminal;
/// NO_COLOR, or a pipe, gets plain text.
#[test]
fn verdicts_are_coloured_on_a_terminal_unless_no_color() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let run = rollcall(&db).arg("run").arg(fixture("leader-activation/rally.json")).output().unwrap();
    assert!(run.status.success());
    let green = "\u{1b}[1m\u{1b}[32m";
    let red = "\u{1b}[1m\u{1b}[31m";
    let verified = on_terminal_stdout(&db, &["verify", "rally"], &[]);
    assert!(verified.contains(&format!("{green}verified rally:")), "{verified:?}");
    let dispute = fixture("leader-activation/disputes/natural-6-rallies.json");
    let run = rollcall(&db).arg("run").arg(dispute).args(["--game", "n6"]).output().unwrap();
    assert!(run.status.success());
    let parts = on_terminal_stdout(&db, &["diff", "n6", "--b", "+natural-6-rallies"], &[]);
    assert!(parts.contains(red), "{parts:?}");
    let agrees = on_terminal_stdout(&db, &["diff", "rally", "--b", "+natural-6-rallies"], &[]);
    assert!(agrees.contains(green), "{agrees:?}");
    let plain = on_terminal_stdout(&db, &["verify", "rally"], &[("NO_COLOR", "1")]);
    assert!(plain.contains("verified rally:") && !plain.contains('\u{1b}'), "{plain:?}");
    let piped = rollcall(&db).args(["verify", "rally"]).env("CLICOLOR", "1").output().unwrap();
    assert!(!String::from_utf8_lossy(&piped.stdout).contains('\u{1b}'));
}
