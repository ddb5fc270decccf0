//! End-to-end tests: the real `rollcall` binary on the project's fixtures.
//!
//! Each test gets its own store in a temporary directory. Tampering tests
//! export a real game, change the record the way a cheat (or a careless
//! editor) would, and check that `verify` names the first bad seq and why.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

#[path = "support/binary.rs"]
mod binary;
use binary::{failed_with, root, stderr, stdout, Store};

fn fixture(name: &str) -> PathBuf {
    root().join("fixtures").join(name)
}

impl Store {
    /// Plays the rally fixture and exports it; returns the record's lines.
    fn exported_rally(&self) -> Vec<String> {
        self.ok(&["run", fixture("leader-activation/rally.json").to_str().unwrap()]);
        let record = self.path("rally.jsonl");
        self.ok(&["export", "rally", "-o", record.to_str().unwrap()]);
        std::fs::read_to_string(record).unwrap().lines().map(String::from).collect()
    }

    /// Writes `lines` as a record and verifies it.
    fn verify_lines(&self, lines: &[String]) -> Output {
        let path = self.path("tampered.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        self.run(&["verify", path.to_str().unwrap()])
    }

    /// Writes `lines` as a record, verifies it with `--json`, and returns the
    /// failure's kind (after checking that it failed, with exit code 1).
    fn fault_of(&self, lines: &[String]) -> String {
        let path = self.path("tampered.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let out = self.run(&["verify", path.to_str().unwrap(), "--json"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(v["ok"], false, "{v}");
        v["fault"].as_str().unwrap_or_else(|| panic!("no fault kind in {v}")).to_string()
    }
}

/// A record's lines with the value of its first roll changed (its chain
/// then breaks there), and that line's index (its event's seq).
fn a_roll_changed(lines: &[String]) -> (Vec<String>, usize) {
    let mut forged = lines.to_vec();
    let at = line_with(&forged, "\"kind\":\"roll\"");
    let value = forged[at].split("\"value\":").nth(1).unwrap().split('}').next().unwrap().to_string();
    let other_value = if value == "6" { "5" } else { "6" };
    forged[at] = forged[at].replacen(&format!("\"value\":{value}}}"), &format!("\"value\":{other_value}}}"), 1);
    (forged, at)
}

/// The index (0 = header) of the first line holding `needle`.
fn line_with(lines: &[String], needle: &str) -> usize {
    lines.iter().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no line holds {needle:?}"))
}

// ---- The README's commands and the tour ----

#[test]
fn demo_plays_verifies_and_catches_a_forged_die() {
    let s = Store::new();
    let out = s.ok(&["demo"]);
    assert!(out.contains("verified: "), "{out}");
    assert!(out.contains("verification FAILED, as it should: seq "), "{out}");
}

#[test]
fn the_tour_run_log_verify_export_and_import() {
    let s = Store::new();
    let run = s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let head = run.lines().last().unwrap().rsplit(' ').next().unwrap().to_string();
    assert_eq!(head.len(), 64);
    let log = s.ok(&["log", "skips"]);
    assert!(log.contains("Turn 1 ends"), "{log}");
    let verify = s.ok(&["verify", "skips", "--expect-head", &head]);
    assert!(verify.contains("verified skips"), "{verify}");
    let record = s.path("skips.jsonl");
    s.ok(&["export", "skips", "-o", record.to_str().unwrap()]);
    s.ok(&["verify", record.to_str().unwrap(), "--expect-head", &head]);
    let other = Store::new();
    other.ok(&["import", record.to_str().unwrap()]);
    let exported_again = other.path("again.jsonl");
    other.ok(&["export", "skips", "-o", exported_again.to_str().unwrap()]);
    assert_eq!(std::fs::read(&record).unwrap(), std::fs::read(&exported_again).unwrap(), "import(export(x)) == x");
}

#[test]
fn state_and_replay_reach_any_point() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/rally.json").to_str().unwrap()]);
    let early = s.ok(&["state", "rally", "--at", "3"]);
    assert!(early.contains("after seq 3"), "{early}");
    assert!(!early.contains("lt-adams    leader Trained   at (10, 20)"), "the move comes later: {early}");
    let replay = s.ok(&["replay", "rally", "--step"]);
    assert!(replay.contains("--- state after decision 1 ---"), "{replay}");
    let json: serde_json::Value = serde_json::from_str(&s.ok(&["state", "rally", "--json"])).unwrap();
    assert_eq!(json["turn"], 1);
    assert!(s.ok(&["replay", "rally", "--to", "5"]).contains("after seq 5"));
}

/// `replay --step --json` is one document: the events, then a step for
/// every decision after the first, each the state `state --decision`
/// gives (the steps wait in a temporary file, not in memory, until the
/// events are printed).
#[test]
fn replay_step_json_gives_each_state_between_decisions() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/rally.json").to_str().unwrap()]);
    let replay: serde_json::Value = serde_json::from_str(&s.ok(&["replay", "rally", "--step", "--json"])).unwrap();
    let keys: Vec<&String> = replay.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["events", "game", "head", "seq", "state", "steps"]);
    let decisions = replay["events"].as_array().unwrap().iter().filter(|e| e["kind"] == "decision").count();
    let steps = replay["steps"].as_array().unwrap();
    assert_eq!(steps.len(), decisions - 1);
    for (i, step) in steps.iter().enumerate() {
        let after = i + 1;
        assert_eq!(step["after_decision"], after);
        let state: serde_json::Value =
            serde_json::from_str(&s.ok(&["state", "rally", "--decision", &after.to_string(), "--json"])).unwrap();
        assert_eq!(step["state"], state["state"], "after decision {after}");
    }
    // With one decision, no step: an empty list.
    let one: serde_json::Value =
        serde_json::from_str(&s.ok(&["replay", "rally", "--step", "--json", "--decision", "1"])).unwrap();
    assert_eq!(one["steps"], serde_json::json!([]));
}

#[test]
fn log_state_and_replay_read_a_record_file_where_it_is() {
    let s = Store::new();
    let lines = s.exported_rally();
    let record = s.path_text("rally.jsonl");
    // Another user, with no store at all: the file is read, nothing imported.
    let other = Store::new();
    for args in [
        vec!["state", "--decision", "3", "--json"],
        vec!["state", "--json"],
        vec!["replay", "--step", "--json"],
        vec!["replay", "--turn", "1", "--json"],
        vec!["log", "--seq", "4", "--json"],
    ] {
        let (command, rest) = args.split_first().unwrap();
        let stored = s.ok(&[&[*command, "rally"], rest].concat());
        let read = other.ok(&[&[*command, record.as_str()], rest].concat());
        assert_eq!(read, stored, "{args:?} on the file and on the stored game");
    }
    assert!(other.ok(&["replay", &record]).contains("head "), "text replay of a file");
    assert!(!other.db().exists(), "reading a record file creates no store");
    // A bad line is bad input, named: file, line and field; exit 2.
    let mut broken = lines.clone();
    broken[4] = broken[4].replacen("\"seq\":", "\"seq\":\"x\",\"was\":", 1);
    let path = other.path("broken.jsonl");
    std::fs::write(&path, broken.join("\n") + "\n").unwrap();
    failed_with(&other.run(&["state", path.to_str().unwrap()]), 2, "broken.jsonl:5: ");
    // A record whose chain is broken is not shown as a game.
    let (forged, at) = a_roll_changed(&lines);
    let path = other.path("forged.jsonl");
    std::fs::write(&path, forged.join("\n") + "\n").unwrap();
    let out = other.run(&["replay", path.to_str().unwrap()]);
    failed_with(&out, 2, &format!("forged.jsonl:{}: seq {}: the hash does not chain", at + 1, at));
    assert!(!other.db().exists());
}

/// Given a record that can be read only once (a named pipe that gives any
/// later reader nothing), when `state`, `log` and `replay` read it, then
/// they print what they print for the record file: they read it once.
#[cfg(unix)]
#[test]
fn log_state_and_replay_read_a_record_file_once() {
    use std::os::unix::fs::OpenOptionsExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let s = Store::new();
    s.exported_rally();
    let record = s.path_text("rally.jsonl");
    let bytes = std::fs::read(&record).unwrap();
    for command in ["state", "log", "replay"] {
        let fifo = s.path(&format!("{command}.jsonl"));
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let done = Arc::new(AtomicBool::new(false));
        let writer = {
            let (fifo, bytes, done) = (fifo.clone(), bytes.clone(), done.clone());
            std::thread::spawn(move || {
                std::fs::write(&fifo, &bytes).unwrap();
                // Any later reader of the pipe finds it empty: each time one
                // has it open, a writer opens it and closes it at once.
                while !done.load(Ordering::SeqCst) {
                    let _ = std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(&fifo);
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            })
        };
        let once = s.run(&[command, fifo.to_str().unwrap(), "--json"]);
        // Held until the writer ends: lets it go if the command never opened the pipe.
        let _reader = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(&fifo).unwrap();
        done.store(true, Ordering::SeqCst);
        writer.join().unwrap();
        assert!(once.status.success(), "{command} on a record it can read once: {}", stderr(&once));
        assert_eq!(stdout(&once), s.ok(&[command, &record, "--json"]), "{command}");
    }
}

/// Given a record whose chain breaks at event N (a roll's value changed),
/// or whose line N + 1 is not an event, when `log` and `replay` stream it
/// with `--json`, then standard output is one JSON document: the events
/// before N, and the error (exit 2, as before).
#[test]
fn a_record_that_breaks_part_way_still_prints_one_json_document() {
    let s = Store::new();
    let lines = s.exported_rally();
    let (forged, at) = a_roll_changed(&lines);
    let mut bad = lines.clone();
    bad[4] = bad[4].replacen("\"seq\":", "\"seq\":\"x\",\"was\":", 1);
    let cases = [
        ("forged.jsonl", forged, at, format!("forged.jsonl:{}: seq {at}: the hash does not chain", at + 1)),
        ("bad.jsonl", bad, 4, "bad.jsonl:5: ".to_string()),
    ];
    for (name, lines, at, said) in cases {
        assert!(at > 1, "events are streamed before the bad one");
        let path = s.path_text(name);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        for command in ["log", "replay"] {
            let out = s.run(&[command, &path, "--json"]);
            assert_eq!(out.status.code(), Some(2), "{command} {name}: {}", stderr(&out));
            let document: serde_json::Value = serde_json::from_str(&stdout(&out))
                .unwrap_or_else(|e| panic!("{command} {name}: not one JSON document ({e}):\n{}", stdout(&out)));
            let seqs: Vec<u64> =
                document["events"].as_array().unwrap().iter().map(|e| e["seq"].as_u64().unwrap()).collect();
            assert_eq!(seqs, (1..at as u64).collect::<Vec<_>>(), "{command} {name}: the events before seq {at}");
            assert_eq!(document["ok"], false, "{command} {name}");
            assert_eq!(document["error"]["kind"], "input", "{command} {name}");
            assert_eq!(document["error"]["exit"], 2, "{command} {name}");
            let message = document["error"]["message"].as_str().unwrap();
            assert!(message.contains(&said), "{command} {name}: {message}");
            assert!(stderr(&out).contains(&said), "{command} {name}: the error is said on stderr as before");
        }
    }
}

#[test]
fn a_decision_played_into_a_new_game() {
    let s = Store::new();
    let scenario = s.path("scenario.json");
    let script: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("leader-activation/rally.json")).unwrap()).unwrap();
    std::fs::write(&scenario, script["scenario"].to_string()).unwrap();
    s.ok(&["new", "--rules", "leader-activation@1", "--scenario", scenario.to_str().unwrap(), "--game", "friday"]);
    let decision = s.path("d.json");
    std::fs::write(
        &decision,
        r#"[{"type": "begin-turn", "first": "axis"}, {"type": "activate", "leader": "lt-vogel"}]"#,
    )
    .unwrap();
    let out = s.ok(&["play", "friday", decision.to_str().unwrap()]);
    assert!(out.contains("lt-vogel (axis) is activated."), "{out}");
    s.ok(&["verify", "friday"]);
    let games = s.ok(&["games"]);
    assert!(games.contains("friday"), "{games}");
}

// ---- verify catches each kind of tampering, naming the seq and why ----

#[test]
fn verify_catches_a_changed_die() {
    let s = Store::new();
    let mut lines = s.exported_rally();
    let i = line_with(&lines, "\"label\":\"rally\"");
    let value = if lines[i].contains("\"value\":4") { 5 } else { 4 };
    lines[i] = regex_value(&lines[i], value);
    failed_with(
        &s.verify_lines(&lines),
        1,
        &format!("seq {i}: roll d6 'rally' #0 of decision 7 is {value} in the record, but the committed seed gives"),
    );
    assert_eq!(s.fault_of(&lines), "die-differs");
}

fn regex_value(line: &str, value: u32) -> String {
    let start = line.find("\"value\":").unwrap() + 8;
    let end = start + line[start..].find('}').unwrap();
    format!("{}{value}{}", &line[..start], &line[end..])
}

#[test]
fn verify_catches_a_changed_decision() {
    let s = Store::new();
    let mut lines = s.exported_rally();
    let i = line_with(&lines, "\"type\":\"command\",\"unit\":\"rifles-1\"");
    lines[i] = lines[i].replace("\"unit\":\"rifles-1\"", "\"unit\":\"rifles-2\"");
    failed_with(&s.verify_lines(&lines), 1, &format!("seq {i}: the hash does not chain"));
    assert_eq!(s.fault_of(&lines), "link-broken");
}

#[test]
fn verify_catches_a_changed_fact() {
    let s = Store::new();
    let mut lines = s.exported_rally();
    let i = line_with(&lines, "\"needed\":5");
    lines[i] = lines[i].replace("\"rallied\":false", "\"rallied\":true");
    failed_with(&s.verify_lines(&lines), 1, &format!("seq {i}: the fact differs from what the rules decide"));
    assert_eq!(s.fault_of(&lines), "fact-differs");
}

#[test]
fn verify_catches_a_deleted_event() {
    let s = Store::new();
    let mut lines = s.exported_rally();
    lines.remove(10);
    failed_with(&s.verify_lines(&lines), 1, "seq 11: expected seq 10, found 11: 1 event(s) are missing");
    assert_eq!(s.fault_of(&lines), "seq-out-of-order");
}

#[test]
fn verify_catches_an_inserted_event() {
    let s = Store::new();
    let mut lines = s.exported_rally();
    let copy = lines[5].clone();
    lines.insert(8, copy);
    failed_with(&s.verify_lines(&lines), 1, "seq 5: expected seq 8, found 5: an event was inserted, repeated or moved");
    assert_eq!(s.fault_of(&lines), "seq-out-of-order");
}

#[test]
fn verify_catches_two_events_swapped() {
    let s = Store::new();
    let mut lines = s.exported_rally();
    lines.swap(12, 13);
    failed_with(&s.verify_lines(&lines), 1, "seq 13: expected seq 12, found 13");
    assert_eq!(s.fault_of(&lines), "seq-out-of-order");
}

#[test]
fn verify_catches_a_changed_header() {
    let s = Store::new();
    let lines = s.exported_rally();
    // An option switched on without its hash: the rules hash no longer matches.
    let mut rules = lines.clone();
    rules[0] = rules[0].replace("\"natural-6-rallies\":false", "\"natural-6-rallies\":true");
    failed_with(&s.verify_lines(&rules), 1, "the rules hash");
    assert_eq!(s.fault_of(&rules), "header-rules-hash");
    // A commitment changed: the share no longer matches it.
    let mut commitment = lines.clone();
    let at = commitment[0].find("\"commitment\":\"").unwrap() + 14;
    let flipped = if &commitment[0][at..at + 1] == "0" { "1" } else { "0" };
    commitment[0].replace_range(at..at + 1, flipped);
    failed_with(&s.verify_lines(&commitment), 1, "share does not match its commitment");
    assert_eq!(s.fault_of(&commitment), "commitment-mismatch");
    // The scenario changed: the chain no longer starts from this header.
    let mut scenario = lines.clone();
    scenario[0] = scenario[0].replace("[700,100]", "[700,90]");
    failed_with(&s.verify_lines(&scenario), 1, "seq 1: the hash does not chain from the header");
    assert_eq!(s.fault_of(&scenario), "link-broken");
}

#[test]
fn verify_catches_a_truncated_last_line() {
    let s = Store::new();
    let lines = s.exported_rally();
    let n = lines.len();
    let path = s.path("cut.jsonl");
    let mut text = lines.join("\n") + "\n";
    text.truncate(text.len() - 20);
    std::fs::write(&path, text).unwrap();
    failed_with(&s.run(&["verify", path.to_str().unwrap()]), 1, &format!("cut.jsonl:{n}:"));
    let out = s.run(&["verify", path.to_str().unwrap(), "--json"]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()["fault"], "unreadable");
    // A whole last event gone is a decision left half-done.
    let mut short = lines.clone();
    short.pop();
    failed_with(&s.verify_lines(&short), 1, "the record ends in the middle of decision");
    assert_eq!(s.fault_of(&short), "truncated");
}

#[test]
fn verify_json_reports_the_failure() {
    let s = Store::new();
    let mut lines = s.exported_rally();
    lines.swap(3, 4);
    let path = s.path("t.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = s.run(&["verify", path.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["seq"], 4);
    assert_eq!(v["fault"], "seq-out-of-order");
}

// ---- Bad input: named by file, line and field; exit 2; nothing written ----

fn write_script(s: &Store, edit: impl Fn(&mut serde_json::Value)) -> PathBuf {
    let mut script: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("leader-activation/rally.json")).unwrap()).unwrap();
    edit(&mut script);
    let path = s.path("bad.json");
    std::fs::write(&path, serde_json::to_string_pretty(&script).unwrap()).unwrap();
    path
}

/// Nothing was written: no store was created, or it holds no game.
fn nothing_written(s: &Store) {
    assert!(!s.db().exists() || s.ok(&["games"]).contains("no games in this store"));
}

#[test]
fn a_refused_decision_in_a_script_names_file_line_and_decision() {
    let s = Store::new();
    let path = write_script(&s, |v| v["decisions"][2] = serde_json::json!({"type": "command", "unit": "gruppe-1"}));
    let out = s.run(&["run", path.to_str().unwrap()]);
    failed_with(&out, 3, "bad.json:");
    failed_with(&out, 3, "decisions[2]: refused: gruppe-1 is not friendly to lt-adams: a leader commands friendly units (nothing was written)");
    nothing_written(&s);
}

#[test]
fn a_malformed_field_names_its_path_and_line() {
    let s = Store::new();
    let path = write_script(&s, |v| v["scenario"]["units"][1]["at"] = serde_json::json!([0.5, 2]));
    let out = s.run(&["run", path.to_str().unwrap()]);
    failed_with(&out, 2, "scenario.units[1].at");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text.lines().position(|l| l.contains("0.5")).unwrap();
    failed_with(
        &out,
        2,
        &format!("bad.json:{}: scenario.units[1].at[0]: invalid type: floating point `0.5`, expected i64", line + 1),
    );
    nothing_written(&s);

    let path = write_script(&s, |v| v["decisions"][0]["first"] = serde_json::json!(3));
    failed_with(
        &s.run(&["run", path.to_str().unwrap()]),
        2,
        "bad.json:4: decisions[0]: invalid type: integer `3`, expected a string",
    );
    let path = write_script(&s, |v| {
        v["rules"] = serde_json::json!({"version": "leader-activation@1", "options": {"natural-7": true}})
    });
    failed_with(
        &s.run(&["run", path.to_str().unwrap()]),
        2,
        "rules.options.natural-7: leader-activation@1 has no such setting",
    );
    let path = write_script(&s, |v| v["rules"] = serde_json::json!("leader-activation@9"));
    failed_with(&s.run(&["run", path.to_str().unwrap()]), 2, "leader-activation has no version \"9\"");
    nothing_written(&s);
}

#[test]
fn a_syntax_error_names_its_line() {
    let s = Store::new();
    let path = s.path("broken.json");
    std::fs::write(&path, "{\n  \"game\": \"x\",\n  \"rules\": oops\n}\n").unwrap();
    failed_with(&s.run(&["run", path.to_str().unwrap()]), 2, "broken.json:3:");
    nothing_written(&s);
}

#[test]
fn a_refused_play_writes_nothing() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let before = s.ok(&["verify", "skips"]);
    let decision = s.path("d.json");
    std::fs::write(&decision, "[\n  {\"type\": \"begin-turn\", \"first\": \"allies\"},\n  {\"type\": \"activate\", \"leader\": \"lt-vogel\"}\n]\n").unwrap();
    let out = s.run(&["play", "skips", decision.to_str().unwrap()]);
    failed_with(&out, 3, "d.json:3: [1]: refused: it is for allies to activate a leader");
    assert_eq!(
        s.ok(&["verify", "skips"]),
        before,
        "the refused batch left no trace, not even its legal first decision"
    );
}

#[test]
fn a_tampered_record_is_not_imported() {
    let s = Store::new();
    let mut lines = s.exported_rally();
    lines.swap(3, 4);
    let path = s.path("t.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let other = Store::new();
    failed_with(&other.run(&["import", path.to_str().unwrap()]), 2, "does not verify, so it was not imported: seq 4");
    nothing_written(&other);
}

#[test]
fn running_the_same_game_twice_is_refused() {
    let s = Store::new();
    let script = fixture("leader-activation/skips.json");
    s.ok(&["run", script.to_str().unwrap()]);
    failed_with(&s.run(&["run", script.to_str().unwrap()]), 2, "a game \"skips\" is already in the store");
    s.ok(&["run", script.to_str().unwrap(), "--game", "skips-2"]);
}

#[test]
fn a_bad_house_rules_file_names_its_field() {
    let s = Store::new();
    let path = s.path("house.json");
    std::fs::write(&path, "{\n  \"name\": \"club\",\n  \"base\": \"leader-activation@1\",\n  \"constants\": {\"rally-target\": \"four\"}\n}\n").unwrap();
    failed_with(
        &s.run(&["rules", "show", path.to_str().unwrap()]),
        2,
        "house.json:4: constants.rally-target: expected an integer",
    );
    std::fs::write(
        &path,
        "{\"name\": \"club\", \"base\": \"leader-activation@1\", \"constants\": {\"rally-target\": 4}}",
    )
    .unwrap();
    let out = s.ok(&["rules", "show", path.to_str().unwrap()]);
    assert!(out.contains("rally-target = 4  (default 3)"), "{out}");
}

// ---- Rules and golden files ----

/// The open points are the project's own. `rules list`
/// and `rules show` point to the user guide's open points
/// (docs/book/src/reference/open-points.md), not to a file the
/// repository does not have, and that table lists every open point of the
/// rules texts' INTERPRETATIONS.md (docs/rules/) and every point a setting settles (Phoenix
/// Command's N points on its own page, which the table links).
#[test]
fn rules_point_to_the_projects_table_of_open_points_and_it_lists_every_one() {
    let s = Store::new();
    let table = std::fs::read_to_string(root().join("docs/book/src/reference/open-points.md")).unwrap();
    let phoenix_page = std::fs::read_to_string(root().join("docs/book/src/rulesets/phoenix-command.md")).unwrap();
    assert!(table.contains("(../rulesets/phoenix-command.md)"), "the table links the Phoenix Command page");
    let list = s.ok(&["rules", "list"]);
    assert!(!list.contains("INTERPRETATIONS"), "{list}");
    let shared = [("L", 10), ("P", 12), ("C", 5), ("F", 7)];
    for (prefix, count) in shared {
        for n in 1..=count {
            assert!(table.contains(&format!("\n| {prefix}{n} | ")), "{prefix}{n} is not in the open points");
        }
    }
    let versions = [
        ("leader-activation", "leader-activation@2"),
        ("leader-activation", "leader-activation@1"),
        ("phoenix-command", "phoenix-command@3"),
        ("phoenix-command", "phoenix-command@2"),
        ("phoenix-command", "phoenix-command@1"),
        ("combat-hq", "combat-hq@base"),
        ("combat-hq", "combat-hq@multi-bg"),
        ("formation-activation", "formation-activation@1"),
    ];
    for (ruleset, version) in versions {
        let anchor = format!("docs/book/src/reference/open-points.md#{ruleset}");
        assert!(list.contains(&anchor), "rules list does not point {version} to {anchor}:\n{list}");
        let show = s.ok(&["rules", "show", version]);
        let summary = show.lines().next().unwrap();
        assert!(summary.contains(&anchor) && !summary.contains("INTERPRETATIONS"), "{show}");
        assert!(table.contains(&format!("\n## {ruleset}\n")), "no section {ruleset}");
        let json: serde_json::Value = serde_json::from_str(&s.ok(&["rules", "show", version, "--json"])).unwrap();
        for setting in json["settings"].as_array().unwrap() {
            let Some(point) = setting["point"].as_str() else { continue };
            let listed = table.contains(&format!("\n| {point} | "))
                || (ruleset == "phoenix-command" && phoenix_page.contains(&format!("**{point}**")));
            assert!(listed, "{version}'s {} settles {point}, which no table lists", setting["name"]);
        }
    }
}

#[test]
fn rules_list_and_show_cite_the_text() {
    let s = Store::new();
    assert!(s.ok(&["rules", "list"]).contains("leader-activation@1"));
    let show = s.ok(&["rules", "show", "leader-activation"]);
    for option in [
        "skill-as-roll-modifier",
        "natural-1-fails",
        "natural-6-rallies",
        "self-rally-skill-modifier",
        "failed-self-rally-keeps-leader-unactivated",
        "rallied-units-stay-idle",
        "last-activation-rule",
    ] {
        assert!(show.contains(option), "{option} missing from {show}");
    }
    assert!(show.contains("settles: \"the leader has to succeed a basic rally test by rolling a 3+ on a D6\""));
    let json: serde_json::Value =
        serde_json::from_str(&s.ok(&["rules", "show", "leader-activation@1", "--json"])).unwrap();
    assert_eq!(json["settings"].as_array().unwrap().len(), 14);
    failed_with(&s.run(&["rules", "show", "chess"]), 2, "unknown ruleset \"chess\"");
}

#[test]
fn golden_check_passes_on_the_projects_fixtures_and_shows_a_diff_when_one_changes() {
    let s = Store::new();
    let out = s.ok(&["golden", "check", root().join("fixtures").to_str().unwrap()]);
    assert!(out.contains("fixtures match their expected outputs"), "{out}");
    // A copy with one expected line changed fails with a unified diff.
    let dir = s.path("golden");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["rally.json", "rally.narrative.txt", "rally.state.txt", "rally.turns.txt"] {
        std::fs::copy(fixture(&format!("leader-activation/{name}")), dir.join(name)).unwrap();
    }
    let narrative = dir.join("rally.narrative.txt");
    let text = std::fs::read_to_string(&narrative).unwrap().replace("needed 5+", "needed 4+");
    std::fs::write(&narrative, text).unwrap();
    let out = s.run(&["golden", "check", dir.to_str().unwrap()]);
    failed_with(&out, 1, "-    lt-adams rallies rifles-2, mortar: D6 4, needed 4+: all remain broken.");
    failed_with(&out, 1, "+    lt-adams rallies rifles-2, mortar: D6 4, needed 5+: all remain broken.");
    let bless_in_ci = s.cmd().env("CI", "true").args(["golden", "bless", dir.to_str().unwrap()]).output().unwrap();
    failed_with(&bless_in_ci, 2, "golden bless refuses to run when CI is set");
    let blessed = s.ok(&["golden", "bless", dir.to_str().unwrap()]);
    assert!(blessed.contains("rally.narrative.txt"), "{blessed}");
    s.ok(&["golden", "check", dir.to_str().unwrap()]);
}

// ---- Durability: what was acknowledged survives a kill ----

#[test]
fn acknowledged_decisions_survive_a_kill_mid_stream() {
    let s = Store::new();
    let scenario = s.path("scenario.json");
    let script: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("leader-activation/skips.json")).unwrap()).unwrap();
    std::fs::write(&scenario, script["scenario"].to_string()).unwrap();
    s.ok(&["new", "--rules", "leader-activation", "--scenario", scenario.to_str().unwrap(), "--game", "crash"]);
    // Moves forever: each one a decision, appended and flushed before its "ok".
    let mut child =
        s.cmd().args(["play", "crash", "-", "--stream"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for i in 0..100_000 {
            let line = format!("{{\"type\":\"move\",\"piece\":\"piat\",\"to\":[{i},0]}}\n");
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut acks = BufReader::new(child.stdout.take().unwrap());
    let mut last_acked = 0u64;
    let mut line = String::new();
    let kill_after = 25 + (std::process::id() % 20) as u64;
    while acks.read_line(&mut line).unwrap() > 0 {
        let seq: u64 = line.split(' ').nth(1).unwrap().parse().unwrap();
        last_acked = seq;
        line.clear();
        if seq >= kill_after * 2 {
            child.kill().unwrap();
            break;
        }
    }
    child.wait().unwrap();
    let _ = writer.join();
    assert!(last_acked > 0);
    let verified = s.ok(&["verify", "crash", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&verified).unwrap();
    assert!(v["events"].as_u64().unwrap() >= last_acked, "acknowledged seq {last_acked} lost: {verified}");
}

// ---- diff: a record under two rule versions ----

/// Every option of leader activation parts from the default on its dispute
/// fixture, at the decision the dispute is about.
#[test]
fn every_leader_activation_option_parts_on_its_dispute_fixture() {
    let s = Store::new();
    let cases = [
        (
            "natural-6-rallies",
            "leader-activation@1+rally-target=5+natural-6-rallies",
            "seq 5 · decision 3",
            "D6 6, needed 8+: rallied.",
        ),
        (
            "natural-1-fails",
            "leader-activation@1+rally-target=1+natural-1-fails",
            "seq 5 · decision 3",
            "D6 1, needed 0+: all remain broken.",
        ),
        (
            "self-rally-skill-modifier",
            "leader-activation@1+self-rally-skill-modifier",
            "seq 5 · decision 3",
            "sgt-cole fails to self-rally: D6 3, needed 4+.",
        ),
        (
            "failed-self-rally-keeps-leader-unactivated",
            "leader-activation@1+failed-self-rally-keeps-leader-unactivated",
            "seq 5 · decision 3",
            "(he is not marked activated)",
        ),
        (
            "rallied-units-stay-idle",
            "leader-activation@1+rallied-units-stay-idle",
            "seq 5 · decision 3",
            "mortar is no longer broken, and stays idle this turn.",
        ),
        (
            "last-activation-rule",
            "leader-activation@1+last-activation-rule",
            "seq 3 · decision 2",
            "REFUSED: axis must keep its last leader for the last activation",
        ),
    ];
    for (name, b, at, says) in cases {
        s.ok(&["run", fixture(&format!("leader-activation/disputes/{name}.json")).to_str().unwrap()]);
        let out = s.run(&["diff", name, "--b", b]);
        failed_with(&out, 1, &format!("first divergence: {at}"));
        failed_with(&out, 1, says);
        // The same record under its own rules agrees with itself.
        let same = s.run(&["diff", name, "--b", "leader-activation@1"]);
        let expected = if name.starts_with("natural") { 1 } else { 0 };
        assert_eq!(same.status.code(), Some(expected), "{name}: {}", stdout(&same));
    }
}

/// LN4: a record of leader-activation@1, which read every move as the
/// referee's, parts from @2 where the leader being activated moves, and the
/// command he gives after it is refused.
#[test]
fn leader_activation_versions_part_where_the_active_leader_moves() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/disputes/leader-moves-himself.json").to_str().unwrap()]);
    let out = s.run(&["diff", "leader-moves-himself", "--b", "leader-activation@2", "--all"]);
    failed_with(&out, 1, "seq 5 · decision 3 · turn 1: move piece=lt-adams");
    failed_with(&out, 1, "B  REFUSED: lt-adams has acted himself");
    failed_with(&out, 1, "B  REFUSED: lt-vogel is broken and may not move as an action of his own");
    let same = s.run(&["diff", "leader-moves-himself", "--b", "leader-activation@1"]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
}

/// A record made by an earlier rollcall, under leader-activation@1, still
/// verifies: the version a record names keeps its reading.
#[test]
fn a_record_of_version_1_made_before_version_2_still_verifies() {
    let s = Store::new();
    let record = root().join("store/testdata/compressed-2026-12-02/casualties.jsonl");
    let out = s.ok(&["verify", record.to_str().unwrap()]);
    assert!(out.contains("leader-activation@1"), "{out}");
}

/// Phoenix Command version 1 against version 2 on the two sentences it
/// settles without an option (N19, N27).
#[test]
fn phoenix_command_versions_part_on_organisation_checks_and_the_superior_officer() {
    let s = Store::new();
    s.ok(&["run", fixture("phoenix-command/disputes/version-1.json").to_str().unwrap()]);
    let out = s.run(&["diff", "version-1", "--b", "phoenix-command@2", "--all"]);
    failed_with(&out, 1, "seq 14 · decision 5 · turn 1: consolidate organisation=1-sqd");
    failed_with(&out, 1, "Command check for j-1 (1a spends another CP in j's line of sight)");
    failed_with(&out, 1, "B  REFUSED: 2-sqd's leader sgt2 has 1 CP");
}

#[test]
fn diff_reports_every_divergence_by_turn_and_as_json() {
    let s = Store::new();
    s.ok(&[
        "run",
        fixture("leader-activation/disputes/failed-self-rally-keeps-leader-unactivated.json").to_str().unwrap(),
    ]);
    let b = "leader-activation@1+failed-self-rally-keeps-leader-unactivated";
    let out = s.run(&["diff", "failed-self-rally-keeps-leader-unactivated", "--b", b, "--all"]);
    failed_with(&out, 1, "every divergence in outcome, by turn:\nturn 1:");
    failed_with(&out, 1, "B  REFUSED: turn 1 is not over: 1 still to activate (lt-adams)");
    failed_with(&out, 1, "state at the end (--- A, +++ B):");
    let json = s.run(&["diff", "failed-self-rally-keeps-leader-unactivated", "--b", b, "--all", "--json"]);
    assert_eq!(json.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v["agree"], false);
    assert_eq!(v["refused_under_b"], 1);
    assert_eq!(v["first"]["seq"], 5);
    assert!(v["divergences"].as_array().unwrap().len() >= 2);
    assert_eq!(v["settings"][0]["name"], "failed-self-rally-keeps-leader-unactivated");
    // A record file works as well as a stored game; bad versions exit 2.
    let record = s.path("r.jsonl");
    s.ok(&["export", "failed-self-rally-keeps-leader-unactivated", "-o", record.to_str().unwrap()]);
    failed_with(&s.run(&["diff", record.to_str().unwrap(), "--b", b]), 1, "part at seq 5");
    failed_with(&s.run(&["diff", record.to_str().unwrap(), "--b", "leader-activation@7"]), 2, "no version \"7\"");
    failed_with(
        &s.run(&["diff", record.to_str().unwrap(), "--b", "leader-activation@1+no-such-option"]),
        2,
        "no-such-option: leader-activation@1 has no such setting",
    );
}

/// Writes a house-rules file on leader-activation@1 with these constants.
fn house_rules(s: &Store, name: &str, constants: serde_json::Value) -> String {
    let path = s.path(&format!("{name}.json"));
    let house = serde_json::json!({"name": name, "base": "leader-activation@1", "constants": constants});
    std::fs::write(&path, house.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

/// Outcomes first. A command range of 120 mm where
/// every unit commanded stood within 100 mm changes what four facts record
/// ("of 120 mm"), and no outcome: the versions agree (exit 0), and the four
/// decisions are listed apart as reasoning only.
#[test]
fn diff_a_change_of_reasoning_alone_agrees_and_lists_it_apart() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let house = house_rules(&s, "house", serde_json::json!({"command-range-trained-mm": 120}));
    let out = s.run(&["diff", "skips", "--b", &house]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("agree on every outcome of all 26 decisions; 4 decisions differ only in the reasoning"),
        "{text}"
    );
    assert!(text.contains("seq 13 · decision 7 · turn 1: command unit=2-section\n"), "{text}");
    assert!(text.contains("B  lt-adams commands 2-section (Trained, 90 mm of 120 mm command range)."), "{text}");
    assert!(!text.contains("first divergence"), "{text}");
    let json = s.run(&["diff", "skips", "--b", &house, "--json"]);
    assert_eq!(json.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(
        (v["agree"].as_bool(), v["divergent"].as_u64(), v["reasoning_only"].as_u64()),
        (Some(true), Some(0), Some(4))
    );
    assert_eq!(v["first"], serde_json::Value::Null);
    assert_eq!(v["reasoning"].as_array().unwrap().len(), 4);
    assert_eq!(v["reasoning"][0]["number"], 7);
    assert_eq!(v["setup"]["setup"], "same");
}

/// With the range changed and a rally target too, the
/// first divergence is the rally the lower target passes (decision 7), not
/// the earlier command that only records another range.
#[test]
fn diff_the_first_divergence_is_the_first_outcome_that_differs() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/rally.json").to_str().unwrap()]);
    let house = house_rules(&s, "house", serde_json::json!({"command-range-trained-mm": 120, "rally-target": 2}));
    let out = s.run(&["diff", "rally", "--b", &house]);
    failed_with(&out, 1, "first divergence: seq 13 · decision 7 · turn 1: rally units=rifles-2,mortar");
    failed_with(&out, 1, "B  roll d6 rally#0 = 4\n     lt-adams rallies rifles-2, mortar: D6 4, needed 4+: rallied.");
    failed_with(&out, 1, "part at seq 13 (decision 7, turn 1): 1 of 15 decisions differ in outcome");
    failed_with(
        &out,
        1,
        "seq 5 · decision 3 · turn 1: command unit=rifles-1\n  A  lt-adams commands rifles-1 (Trained, 50 mm of 100 mm",
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&s.run(&["diff", "rally", "--b", &house, "--json"]))).unwrap();
    assert_eq!((v["first"]["number"].as_u64(), v["divergent"].as_u64()), (Some(7), Some(1)));
    let reasoning: Vec<u64> =
        v["reasoning"].as_array().unwrap().iter().map(|d| d["number"].as_u64().unwrap()).collect();
    assert_eq!(reasoning, [3, 9, 13, 15]);
}

/// Re-chains a record's events after an edit, as a forger with the whole
/// record would: every hash is recomputed, so only verify's re-deciding can
/// catch the edit.
fn rechained(lines: &[String]) -> Vec<String> {
    use rollcall_core::record;
    let header = record::parse_header(&lines[0], rollcall_core::registry::builtin()).unwrap();
    let mut head = record::header_hash(&header).unwrap();
    let mut out = vec![lines[0].clone()];
    for line in &lines[1..] {
        let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
        let kind = match value["kind"].as_str().unwrap() {
            "decision" => rollcall_core::Kind::Decision,
            "roll" => rollcall_core::Kind::Roll,
            _ => rollcall_core::Kind::Fact,
        };
        head = record::link(&head, value["seq"].as_u64().unwrap(), kind, &value["body"]).unwrap();
        value["hash"] = serde_json::json!(head.to_string());
        // Keys sorted, no whitespace: the canonical line.
        out.push(value.to_string());
    }
    out
}

/// Diff proves the record under its own rules first, and
/// reports a record that does not verify as verify does (exit 1), instead
/// of diffing decisions whose rolls or facts were forged.
#[test]
fn diff_refuses_a_record_that_does_not_verify() {
    let s = Store::new();
    let original = s.exported_rally();
    let mut lines = original.clone();
    // A forged die and the fact it decides, the chain made whole again.
    let roll = line_with(&lines, "\"label\":\"rally\"");
    assert!(lines[roll].contains("\"value\":4"), "{}", lines[roll]);
    lines[roll] = regex_value(&lines[roll], 5);
    let fact = line_with(&lines, "\"needed\":5");
    lines[fact] = lines[fact].replace("\"roll\":4", "\"roll\":5").replace("\"rallied\":false", "\"rallied\":true");
    let forged = rechained(&lines);
    let path = s.path("forged.jsonl");
    std::fs::write(&path, forged.join("\n") + "\n").unwrap();
    let target = path.to_str().unwrap();
    let verify = s.run(&["verify", target]);
    let reason = format!("verification FAILED for {target}: seq {roll}: roll d6 'rally' #0 of decision 7 is 5 in the record, but the committed seed gives 4");
    failed_with(&verify, 1, &reason);
    let diff = s.run(&["diff", target, "--b", "leader-activation@1+natural-6-rallies"]);
    failed_with(&diff, 1, &reason);
    assert!(!stdout(&diff).contains("agree"), "{}", stdout(&diff));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&s.run(&["diff", target, "--b", "+natural-6-rallies", "--json"]))).unwrap();
    assert_eq!((json["ok"].as_bool(), json["seq"].as_u64()), (Some(false), Some(roll as u64)));
    // A record cut in the middle of a decision (its chain intact).
    let cut = s.path("cut.jsonl");
    std::fs::write(&cut, original[..=roll].join("\n") + "\n").unwrap();
    let cut = cut.to_str().unwrap();
    let verify = stdout(&s.run(&["verify", cut]));
    let diff = s.run(&["diff", cut, "--b", "+natural-6-rallies"]);
    failed_with(&diff, 1, verify.lines().next().unwrap());
    failed_with(&diff, 1, "the record ends in the middle of decision 7");
}

/// A record whose scenario version B refuses (two
/// British battle groups, under the single-battle-group game) is a valid
/// record on which the versions part at the scenario: exit 1, not 2.
#[test]
fn diff_a_scenario_version_b_refuses_is_a_divergence() {
    let s = Store::new();
    s.ok(&["run", fixture("combat-hq/command-failure-multi-bg.json").to_str().unwrap()]);
    let out = s.run(&["diff", "command-failure-multi-bg", "--b", "combat-hq@base"]);
    failed_with(
        &out,
        1,
        "B refuses the record's scenario: sides[1].battle_groups: combat-hq@base is the single-battle-group game",
    );
    failed_with(&out, 1, "part at the scenario: B refuses it");
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&s.run(&["diff", "command-failure-multi-bg", "--b", "combat-hq@base", "--json"])))
            .unwrap();
    assert_eq!(v["agree"], false);
    assert_eq!(v["setup"]["setup"], "refused");
    assert!(v["setup"]["b"].as_str().unwrap().contains("single-battle-group"), "{v}");
    // CN9: a battle group that deploys only its artillery, under the option
    // that reads the text's example as a rule.
    s.ok(&["run", fixture("combat-hq/artillery-alone.json").to_str().unwrap()]);
    failed_with(
        &s.run(&["diff", "artillery-alone", "--b", "+artillery-waits-for-a-command-group"]),
        1,
        "part at the scenario: B refuses it: sides[0].battle_groups[0].command_groups[6].start",
    );
    // A rule version that is itself bad is still bad input.
    failed_with(
        &s.run(&["diff", "command-failure-multi-bg", "--b", "combat-hq@base+activation-range-tenths=-1"]),
        2,
        "activation-range-tenths: -1 is out of range",
    );
}

/// In a table record a die is reused only for the same
/// die and cup. Under per-unit rally B refuses the first draw (its rally
/// dice were never rolled), so at the next draw its cup holds two chits
/// where the record drew from one: the recorded face is not B's to take.
#[test]
fn diff_reuses_a_table_draw_only_from_the_same_cup() {
    let s = Store::new();
    s.ok(&["run", fixture("formation-activation/rally-per-hex.json").to_str().unwrap()]);
    let out = s.run(&["diff", "rally-per-hex", "--b", "formation-activation@1", "--all"]);
    failed_with(
        &out,
        1,
        "seq 27 · decision 5 · turn 1: draw-chit\n  A  roll pick1 cup#0 = 0\n     Chit end-turn is drawn from the cup of 1.",
    );
    failed_with(
        &out,
        1,
        "B  REFUSED: the rules need pick of 2 'cup' #0, but the table rolled it as a pick of 1 (the die is unknown)",
    );
}

/// Combat HQ's rule change, on the showcase record: base against multi-bg.
#[test]
fn the_combat_hq_rule_change_parts_from_the_first_roll() {
    let s = Store::new();
    s.ok(&["run", fixture("combat-hq/showcase.json").to_str().unwrap()]);
    let out = s.run(&["diff", "combat-hq-showcase", "--a", "combat-hq@base", "--b", "combat-hq@multi-bg"]);
    failed_with(&out, 1, "first divergence: seq 1 · decision 1");
    failed_with(&out, 1, "kg-max's 1s go to british as 2 Wild Dice");
    failed_with(&out, 1, "kg-max's 1s go to the enemy CO, hart (british), as 2 Staff Orders");
    // The dice both versions roll are the same dice.
    failed_with(&out, 1, "A  roll d6 command-dice:kg-max#0 = 5");
    failed_with(&out, 1, "B  roll d6 command-dice:kg-max#0 = 5");
    let same = s.run(&["diff", "combat-hq-showcase", "--b", "combat-hq@base"]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
}

/// Formation activation's options: F3 parts, F2 (bookkeeping) never does.
#[test]
fn formation_activation_options_under_diff() {
    let s = Store::new();
    for name in ["three-turns", "rally-per-hex", "rally-leadership-adds-to-rating"] {
        s.ok(&["run", fixture(&format!("formation-activation/{name}.json")).to_str().unwrap()]);
    }
    // A seeded game: per hex and per unit rally part.
    failed_with(&s.run(&["diff", "three-turns", "--b", "formation-activation@1+rally-per-hex"]), 1, "part at seq");
    // A table game recorded per hex: per unit needs dice the table never rolled.
    failed_with(
        &s.run(&["diff", "rally-per-hex", "--b", "formation-activation@1"]),
        1,
        "which the table did not roll (the die is unknown)",
    );
    // FN2: two operations in one activation, then one.
    s.ok(&["run", fixture("formation-activation/two-operations.json").to_str().unwrap()]);
    let out = s.run(&["diff", "two-operations", "--b", "+operations-per-activation=1", "--all"]);
    failed_with(
        &out,
        1,
        "every divergence in outcome, by turn:\nturn 1:\nseq 13 · decision 3 · turn 1: move to=0305 unit=m1-a",
    );
    failed_with(&out, 1, "B  REFUSED: m1-a has completed its operations in this activation (operations complete)");
    // F2 changes only bookkeeping.
    let same = s.run(&["diff", "three-turns", "--b", "formation-activation@1+leadership-adds-to-rating"]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
    let same = s.run(&["diff", "rally-leadership-adds-to-rating", "--b", "formation-activation@1"]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
}

#[test]
fn piped_into_a_closed_pipe_a_command_stops_quietly() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let mut child = s.cmd().args(["log", "skips"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

/// Every option of Phoenix Command parts from its other setting on a record
/// of the project's fixtures, through diff with B written relative to A.
#[test]
fn every_phoenix_command_option_parts_on_a_fixture() {
    let s = Store::new();
    let cases = [
        (
            "three-turns",
            "+command-check-equal-passes",
            "seq 22 · decision 6",
            "red-a-2 (red comes under long-range fire): rolled 7 against a target of 7: passes.",
        ),
        ("ambush", "+strict-majority", "seq 38 · decision 9", "B  "),
        ("three-turns", "+initiative-tie-roll-off=off", "seq 3 · decision 2", "B  "),
        ("ambush", "+no-check-on-entering-los", "seq 25 · decision 7", "B  "),
        ("stray-fire", "+stray-fire=off", "seq 10 · decision 5", "B  "),
        ("farmhouse-assault", "+double-time-bars-fire-for-the-turn", "seq 53 · decision 9", "REFUSED"),
        ("three-turns", "+initiative-recount-on-any-change=off", "seq 50 · decision 11", "B  "),
        ("disputes/advance-and-fire", "+one-shot-weapons-after-an-advance=off", "seq 10 · decision 5", "REFUSED"),
        ("disputes/advance-and-fire", "+disciplined-fire-after-an-advance=off", "seq 24 · decision 7", "REFUSED"),
        ("disputes/partial-consolidation", "+consolidate-whole-organisation", "seq 8 · decision 4", "REFUSED"),
        ("disputes/hero-morale", "+hero-without-unit-morale", "seq 1 · decision 1", "B  "),
        ("disputes/melee-escape", "+melee-escape-without-moving", "seq 14 · decision 6", "REFUSED"),
        ("disputes/restored-unit", "+restored-unit-stays-bold-for-the-turn", "seq 18 · decision 6", "B  "),
        ("disputes/interrupt-recount", "+interrupt-recount-counts-every-change", "seq 18 · decision 7", "alex seizes"),
        ("disputes/take-cover", "+take-cover-away-from-interrupters-only=off", "seq 38 · decision 8", "REFUSED"),
        ("disputes/detached-target", "+detached-units-leave-the-target", "seq 31 · decision 7", "may fall on 1b too"),
    ];
    let game = |path: &str| path.rsplit('/').next().unwrap().to_string();
    for path in cases.iter().map(|c| c.0).chain(["five-turns"]) {
        if !s.db().exists() || !s.ok(&["games"]).contains(&game(path)) {
            s.ok(&["run", fixture(&format!("phoenix-command/{path}.json")).to_str().unwrap()]);
        }
    }
    for (path, b, at, says) in cases {
        let out = s.run(&["diff", &game(path), "--b", b]);
        failed_with(&out, 1, &format!("first divergence: {at}"));
        failed_with(&out, 1, says);
    }
    // Every option of the version is among the cases.
    let shown = s.ok(&["rules", "show", "phoenix-command"]);
    let options = shown.lines().filter(|l| l.starts_with("  ") && l.contains(" = ") && l.trim_end().ends_with(']'));
    for option in options {
        let name = option.split_whitespace().next().unwrap();
        assert!(cases.iter().any(|(_, b, _, _)| b.trim_start_matches('+').starts_with(name)), "no case for {name}");
    }
    // A roll-off that gives the initiative to the side that held it changes
    // no outcome: the decision is listed apart, as reasoning only.
    let out = s.run(&["diff", "five-turns", "--b", "+initiative-tie-roll-off"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("differ only in the reasoning their facts record"), "{}", stdout(&out));
    assert!(stdout(&out).contains("seq 4 · decision 2 · turn 1: begin-operations\n"), "{}", stdout(&out));
    // --a names a version; only --b may be written relative to A.
    failed_with(&s.run(&["diff", "ambush", "--a", "+stray-fire", "--b", "+stray-fire"]), 2, "unknown ruleset");
}

// ---- Hardening ----

fn no_control_bytes(out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let bad = bytes.iter().find(|&&b| b == 0x1b || b == 0x07 || b == b'\r' || b == 0x7f);
        assert!(bad.is_none(), "a raw control byte reached {stream}: {:?}", String::from_utf8_lossy(bytes));
    }
}

/// A link planted at a predictable temporary path
/// (`DIR/.out.jsonl.partial`) is not followed: the file it points to is untouched.
#[test]
fn export_does_not_follow_a_link_planted_at_its_temporary_path() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let victim = s.path("victim.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    std::os::unix::fs::symlink(&victim, s.path(".out.jsonl.partial")).unwrap();
    let out = s.path("out.jsonl");
    s.ok(&["export", "skips", "-o", out.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n", "export wrote through the planted link");
    s.ok(&["verify", out.to_str().unwrap()]);
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(s.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".partial") && n != ".out.jsonl.partial")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// An existing file is replaced only with --force, and a link at
/// the target is replaced, not followed.
#[test]
fn export_replaces_an_existing_file_only_with_force() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let out = s.path("out.jsonl");
    std::fs::write(&out, "keep me\n").unwrap();
    failed_with(
        &s.run(&["export", "skips", "-o", out.to_str().unwrap()]),
        2,
        "out.jsonl exists: nothing was written (use --force to replace it)",
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me\n");
    s.ok(&["export", "skips", "-o", out.to_str().unwrap(), "--force"]);
    s.ok(&["verify", out.to_str().unwrap()]);
    let victim = s.path("victim.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    let link = s.path("link.jsonl");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    failed_with(&s.run(&["export", "skips", "-o", link.to_str().unwrap()]), 2, "exists");
    s.ok(&["export", "skips", "-o", link.to_str().unwrap(), "--force"]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(!std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&link).unwrap(), std::fs::read(&out).unwrap());
}

/// `-o -` writes the record to standard output, not to a file named `-`.
#[test]
fn export_to_dash_writes_the_record_to_standard_output() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let file = s.path("skips.jsonl");
    s.ok(&["export", "skips", "-o", file.to_str().unwrap()]);
    let out = s.cmd().current_dir(s.dir()).args(["export", "skips", "-o", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, std::fs::read(&file).unwrap(), "standard output holds the record, byte for byte");
    assert!(stderr(&out).contains("wrote skips to standard output"), "{}", stderr(&out));
    assert!(!s.path("-").exists(), "a file named - was written");
}

/// `-o /dev/null` (a device) is written into, as a shell's `>` writes, with
/// no --force: nothing is replaced. (It used to refuse without --force, and
/// with it put a plain file where the device was.)
#[test]
fn export_to_a_device_writes_into_it() {
    use std::os::unix::fs::FileTypeExt;
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let said = s.ok(&["export", "skips", "-o", "/dev/null"]);
    assert!(said.contains("wrote skips to /dev/null"), "{said}");
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
}

/// A constant out of its range is refused where it is written,
/// naming the field, in every form: inline, a house-rules file, a script,
/// and a record's header.
#[test]
fn a_constant_out_of_its_range_is_refused_naming_the_field() {
    let s = Store::new();
    failed_with(
        &s.run(&["rules", "show", "leader-activation@1+rally-target=9223372036854775807"]),
        2,
        "constants.rally-target: 9223372036854775807 is out of range: this constant must lie in 1..=12",
    );
    let house = s.path("house.json");
    std::fs::write(
        &house,
        "{\"name\": \"club\", \"base\": \"formation-activation@1\",\n \"constants\": {\"out-of-command-rally-modifier\": 9223372036854775807}}\n",
    )
    .unwrap();
    failed_with(
        &s.run(&["rules", "show", house.to_str().unwrap()]),
        2,
        "house.json:2: constants.out-of-command-rally-modifier: 9223372036854775807 is out of range: this constant must lie in -12..=12",
    );
    let path = write_script(&s, |v| {
        v["rules"] = serde_json::json!({"version": "leader-activation@1", "constants": {"rally-target": i64::MAX}})
    });
    failed_with(
        &s.run(&["run", path.to_str().unwrap()]),
        2,
        "rules.constants.rally-target: 9223372036854775807 is out of range",
    );
    nothing_written(&s);
    // `rules show` gives each constant's range.
    let show = s.ok(&["rules", "show", "leader-activation"]);
    assert!(show.contains("rally-target = 3  range 1..=12"), "{show}");
    // A record whose header sets a constant out of range does not verify.
    let mut lines = s.exported_rally();
    lines[0] = lines[0].replace("\"rally-target\":3", "\"rally-target\":9223372036854775807");
    failed_with(&s.verify_lines(&lines), 1, "rules.constants.rally-target: 9223372036854775807 is out of range");
}

/// A scenario number out of its range is refused when the
/// scenario loads, naming the field.
#[test]
fn a_scenario_number_out_of_its_range_is_refused_naming_the_field() {
    let s = Store::new();
    let path = write_script(&s, |v| v["scenario"]["units"][1]["at"] = serde_json::json!([i64::MAX, 0]));
    let out = s.run(&["run", path.to_str().unwrap()]);
    failed_with(&out, 2, "scenario.units[1].at[0]: 9223372036854775807 is out of the range of every number in a game, -1000000000..=1000000000");
    let script: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("combat-hq/showcase.json")).unwrap()).unwrap();
    let mut scenario = script["scenario"].clone();
    scenario["sides"][0]["battle_groups"][0]["command_dice"] = serde_json::json!(4_000_000_000u64);
    let file = s.path("scenario.json");
    std::fs::write(&file, serde_json::to_string_pretty(&scenario).unwrap()).unwrap();
    failed_with(
        &s.run(&[
            "new",
            "--rules",
            "combat-hq",
            "--scenario",
            file.to_str().unwrap(),
            "--game",
            "g",
            "--party",
            "a",
            "--party",
            "b",
        ]),
        2,
        "sides[0].battle_groups[0].command_dice: 4000000000 is out of its range, 0..=100",
    );
    nothing_written(&s);
    assert!(s.ok(&["rules", "show", "combat-hq"]).contains("sides[].battle_groups[].command_dice: 0..=100"));
}

/// A script's `rules` object with a typo is refused, not read as
/// the default rules.
#[test]
fn a_typo_in_a_scripts_rules_object_is_refused() {
    let s = Store::new();
    let path = write_script(&s, |v| {
        v["rules"] = serde_json::json!({"version": "leader-activation@1", "option": {"natural-6-rallies": true}})
    });
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text.lines().position(|l| l.contains("\"option\"")).unwrap() + 1;
    failed_with(
        &s.run(&["run", path.to_str().unwrap()]),
        2,
        &format!("bad.json:{line}: rules.option: unknown field `option`"),
    );
    let path = write_script(&s, |v| {
        v["rules"] = serde_json::json!({"name": "club", "base": "leader-activation@1", "constant": {"rally-target": 4}})
    });
    failed_with(&s.run(&["run", path.to_str().unwrap()]), 2, "rules.constant: unknown field `constant`");
    nothing_written(&s);
}

/// Text after the closing brace, and a key given twice, are
/// refused in scripts, house rules, scenarios and decisions.
#[test]
fn trailing_text_and_duplicate_keys_are_refused_in_every_input() {
    let s = Store::new();
    let script = std::fs::read_to_string(fixture("leader-activation/rally.json")).unwrap();
    let path = s.path("trailing.json");
    std::fs::write(&path, format!("{script}\n{{\"game\": \"other\"}}\n")).unwrap();
    failed_with(&s.run(&["run", path.to_str().unwrap()]), 2, "trailing.json:");
    failed_with(&s.run(&["run", path.to_str().unwrap()]), 2, "$: text after the end of the JSON value");
    let twice = script.replacen(
        "\"type\": \"activate\", \"leader\": \"lt-adams\"",
        "\"type\": \"activate\", \"leader\": \"lt-adams\", \"leader\": \"lt-vogel\"",
        1,
    );
    assert_ne!(twice, script);
    let line = twice.lines().position(|l| l.contains("\"lt-vogel\"}")).unwrap() + 1;
    std::fs::write(&path, &twice).unwrap();
    failed_with(
        &s.run(&["run", path.to_str().unwrap()]),
        2,
        &format!("trailing.json:{line}: decisions[1].leader: the key \"leader\" is given twice in one object"),
    );
    let house = s.path("house.json");
    std::fs::write(&house, "{\"name\": \"club\", \"base\": \"leader-activation@1\"}\n}").unwrap();
    failed_with(&s.run(&["rules", "show", house.to_str().unwrap()]), 2, "house.json:2: $: text after the end");
    std::fs::write(&house, "{\"name\": \"club\", \"base\": \"leader-activation@1\",\n \"constants\": {\"rally-target\": 4, \"rally-target\": 5}}").unwrap();
    failed_with(
        &s.run(&["rules", "show", house.to_str().unwrap()]),
        2,
        "house.json:2: constants.rally-target: the key",
    );
    let v: serde_json::Value = serde_json::from_str(&script).unwrap();
    let scenario = s.path("scenario.json");
    std::fs::write(&scenario, format!("{}\n[]", v["scenario"])).unwrap();
    failed_with(
        &s.run(&["new", "--rules", "leader-activation", "--scenario", scenario.to_str().unwrap()]),
        2,
        "scenario.json:2: $: text after the end",
    );
    nothing_written(&s);
    std::fs::write(&scenario, v["scenario"].to_string()).unwrap();
    s.ok(&["new", "--rules", "leader-activation", "--scenario", scenario.to_str().unwrap(), "--game", "g"]);
    let decision = s.path("d.json");
    std::fs::write(&decision, "{\"type\": \"begin-turn\", \"first\": \"allies\", \"first\": \"axis\"}").unwrap();
    failed_with(
        &s.run(&["play", "g", decision.to_str().unwrap()]),
        2,
        "d.json:1: first: the key \"first\" is given twice",
    );
    std::fs::write(&decision, "{\"type\": \"begin-turn\", \"first\": \"allies\"} {\"type\": \"end-turn\"}").unwrap();
    failed_with(&s.run(&["play", "g", decision.to_str().unwrap()]), 2, "d.json:1: $: text after the end");
    let stream = s
        .cmd()
        .args(["play", "g", "-", "--stream"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = stream;
    child.stdin.take().unwrap().write_all(b"{\"type\":\"begin-turn\",\"first\":\"allies\"}\n{\"type\":\"activate\",\"leader\":\"lt-adams\",\"leader\":\"lt-vogel\"}\n").unwrap();
    let out = child.wait_with_output().unwrap();
    failed_with(&out, 2, "<stdin>:2: leader: the key \"leader\" is given twice");
    assert!(stdout(&out).starts_with("ok 2 "), "the first line was played: {}", stdout(&out));
}

/// A decision with no fields refuses fields, in every ruleset.
#[test]
fn a_decision_with_no_fields_refuses_unknown_ones() {
    let s = Store::new();
    for (script, decision, field) in [
        ("phoenix-command/three-turns.json", "{\"type\":\"begin-turn\",\"turn\":2}", "turn"),
        ("formation-activation/rally.json", "{\"type\":\"draw-chit\",\"chit\":\"62-mir\"}", "chit"),
        ("leader-activation/rally.json", "{\"type\":\"end-activation\",\"leader\":\"x\"}", "leader"),
        ("combat-hq/showcase.json", "{\"type\":\"end-turn\",\"side\":\"x\"}", "side"),
    ] {
        let out = s.ok(&["run", fixture(script).to_str().unwrap()]);
        let game = out.split_whitespace().nth(1).unwrap().trim_end_matches(':').to_string();
        let file = s.path("d.json");
        std::fs::write(&file, decision).unwrap();
        let out = s.run(&["play", &game, file.to_str().unwrap()]);
        failed_with(&out, 2, &format!("d.json:1: {field}: unknown field `{field}`"));
        let _ = std::fs::remove_dir_all(s.db());
    }
}

/// A record whose game id breaks the rule of `run` and `new` is
/// not imported or verified, and nothing of it reaches the terminal raw.
#[test]
fn a_record_with_a_bad_game_id_is_refused_by_import_and_verify() {
    let s = Store::new();
    let lines = s.exported_rally();
    let long = "x".repeat(100_000);
    for bad in ["../../etc/passwd", "", "two\\nlines", "red\\u001b[31m\\u0007", long.as_str()] {
        let mut edited = lines.clone();
        edited[0] = edited[0].replace("\"game\":\"rally\"", &format!("\"game\":\"{bad}\""));
        let path = s.path("bad-id.jsonl");
        std::fs::write(&path, edited.join("\n") + "\n").unwrap();
        for command in ["verify", "import"] {
            let other = Store::new();
            let out = other.run(&[command, path.to_str().unwrap()]);
            failed_with(&out, 2, "bad-id.jsonl:1: $.game: ");
            failed_with(&out, 2, "is not a game id");
            no_control_bytes(&out);
            assert!(stderr(&out).len() < 2_000, "the message repeats a 100 KB id");
            nothing_written(&other);
        }
    }
}

/// Control characters from input never reach the terminal raw,
/// and names holding them are refused.
#[test]
fn control_characters_never_reach_the_terminal() {
    let s = Store::new();
    let path = write_script(&s, |v| v["scenario"]["units"][0]["id"] = serde_json::json!("rifles\u{1b}[2J"));
    let out = s.run(&["run", path.to_str().unwrap()]);
    failed_with(&out, 2, "scenario.units[0].id: \"rifles\\u{1b}[2J\" holds the control character U+001B");
    no_control_bytes(&out);
    let path = write_script(&s, |v| {
        v["rules"] = serde_json::json!({"name": "club\u{1b}]0;pwned\u{7}", "base": "leader-activation@1"})
    });
    let out = s.run(&["run", path.to_str().unwrap()]);
    failed_with(&out, 2, "rules.name: the name holds the control character U+001B");
    no_control_bytes(&out);
    nothing_written(&s);
    // serde quotes what it cannot read: the message is escaped on its way out.
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let file = s.path("d.json");
    std::fs::write(&file, "{\"type\": \"\\u001b[2J\\r\"}").unwrap();
    let out = s.run(&["play", "skips", file.to_str().unwrap()]);
    failed_with(&out, 2, "unknown variant `\\u{1b}[2J\\r`");
    no_control_bytes(&out);
}

/// A command that only reads does not create a store, and says
/// there is none.
#[test]
fn a_reader_on_a_missing_store_says_so_and_creates_nothing() {
    let s = Store::new();
    for args in [
        &["games"][..],
        &["log", "rally"],
        &["state", "rally"],
        &["replay", "rally"],
        &["verify", "rally"],
        &["export", "rally", "-o", "-"],
        &["diff", "rally", "--b", "+natural-6-rallies"],
        &["view", "rally", "-o", "-"],
        &["fork", "show", "rally"],
    ] {
        let out = s.run(args);
        failed_with(&out, 2, &format!("no store at {}: nothing was ever stored there", s.db().display()));
        assert!(!s.db().exists(), "{args:?} created the store");
    }
    // An existing directory that holds no store is not one.
    std::fs::create_dir_all(s.db()).unwrap();
    failed_with(&s.run(&["games"]), 2, "is not a rollcall store");
    assert_eq!(std::fs::read_dir(s.db()).unwrap().count(), 0, "games wrote into the directory");
}

/// A second process waits for the store (`--wait`), then says
/// another rollcall process holds it.
#[test]
fn a_second_process_waits_for_the_store_then_names_the_holder() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    // A stream holds the store open until its input ends.
    let mut holder =
        s.cmd().args(["play", "skips", "-", "--stream"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = holder.stdin.take().unwrap();
    // Once it acknowledges a decision, it holds the store.
    stdin.write_all(b"{\"type\":\"move\",\"piece\":\"piat\",\"to\":[1,0]}\n").unwrap();
    let mut ack = String::new();
    BufReader::new(holder.stdout.take().unwrap()).read_line(&mut ack).unwrap();
    assert!(ack.starts_with("ok "), "{ack}");
    let out = s.run(&["games", "--wait", "0"]);
    failed_with(&out, 2, "is in use by another rollcall process");
    failed_with(&out, 2, "pass --wait SECONDS to wait longer");
    assert!(!stderr(&out).contains("WouldBlock"), "{}", stderr(&out));
    // A reader that waits gets the store once the holder lets go.
    let waiting =
        s.cmd().args(["games", "--wait", "60"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    drop(stdin);
    assert!(holder.wait().unwrap().success());
    let out = waiting.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("skips"), "{}", stdout(&out));
}

/// Runs `script` as root in a private mount namespace (`unshare -m`), where
/// it may mount filesystems. None when this machine cannot (not root, no
/// unshare): the caller then says the test was skipped.
fn in_mount_namespace(script: &str) -> Option<Output> {
    let probe = Command::new("unshare").args(["-m", "true"]).output().ok()?;
    if !probe.status.success() {
        return None;
    }
    Some(Command::new("unshare").args(["-m", "sh", "-c", script]).env_remove("ROLLCALL_DB").output().unwrap())
}

/// A store on a read-only filesystem can still be read and
/// exported; a write says why not; a full disk says so, told apart.
#[test]
fn a_read_only_store_is_read_and_a_full_disk_is_named() {
    let s = Store::new();
    let bin = env!("CARGO_BIN_EXE_rollcall");
    let mnt = s.path("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    let out_file = s.path("out.jsonl");
    let script = format!(
        "set -e; mount -t tmpfs -o size=1m tmpfs {mnt}; \
         {bin} --db {mnt}/db run {rally} >/dev/null; \
         mount -o remount,ro {mnt}; \
         {bin} --db {mnt}/db games; {bin} --db {mnt}/db verify rally; \
         {bin} --db {mnt}/db export rally -o {out}; \
         if {bin} --db {mnt}/db run {skips} 2>{mnt}/../err; then echo WROTE; fi; cat {mnt}/../err; \
         mount -o remount,rw {mnt}; dd if=/dev/zero of={mnt}/fill bs=4k 2>/dev/null || true; \
         if {bin} --db {mnt}/db run {skips} 2>{mnt}/../err; then echo WROTE; fi; cat {mnt}/../err; \
         {bin} --db {mnt}/db verify rally",
        mnt = mnt.display(),
        out = out_file.display(),
        rally = fixture("leader-activation/rally.json").display(),
        skips = fixture("leader-activation/skips.json").display(),
    );
    let Some(out) = in_mount_namespace(&script) else {
        eprintln!("skipped: this machine cannot mount filesystems in a private namespace (needs root and unshare)");
        return;
    };
    let text = stdout(&out) + &stderr(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("note: rollcall cannot write the store at"), "{text}");
    assert_eq!(text.matches("verified rally").count(), 2, "{text}");
    assert!(!text.contains("WROTE"), "{text}");
    assert!(
        text.contains("is on a read-only filesystem: it can be read (log, state, verify, export …) but not written"),
        "{text}"
    );
    assert!(text.contains("is full: free some space and try again"), "{text}");
    s.ok(&["verify", out_file.to_str().unwrap()]);
}

/// Bytes that are not UTF-8 are reported with their line and
/// byte offset, in scripts, decision files, streams and records.
#[test]
fn invalid_utf8_is_reported_with_line_and_byte_offset() {
    let s = Store::new();
    let path = s.path("bad.json");
    std::fs::write(&path, b"{\n  \"game\": \"r\xffally\",\n}").unwrap();
    failed_with(
        &s.run(&["run", path.to_str().unwrap()]),
        2,
        "bad.json:2: $: not UTF-8 text: byte 0xff at byte offset 14 (column 13)",
    );
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let decision = s.path("d.json");
    std::fs::write(&decision, b"[\n{\"type\": \"begin-turn\",\n \"first\": \"al\xc3lies\"}]").unwrap();
    failed_with(
        &s.run(&["play", "skips", decision.to_str().unwrap()]),
        2,
        "d.json:3: $: not UTF-8 text: byte 0xc3 at byte offset 38 (column 14)",
    );
    let mut child = s
        .cmd()
        .args(["play", "skips", "-", "--stream"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"\n{\"type\":\"move\",\"piece\":\"pi\xe9at\",\"to\":[1,0]}\n").unwrap();
    failed_with(
        &child.wait_with_output().unwrap(),
        2,
        "<stdin>:2: $: not UTF-8 text: byte 0xe9 at byte offset 27 (column 27)",
    );
    let record = s.path("skips.jsonl");
    s.ok(&["export", "skips", "-o", record.to_str().unwrap()]);
    let mut bytes = std::fs::read(&record).unwrap();
    let line_starts: Vec<usize> =
        std::iter::once(0).chain(bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1)).collect();
    let at = line_starts[4] + 10;
    bytes[at] = 0xfe;
    std::fs::write(&record, &bytes).unwrap();
    failed_with(
        &s.run(&["verify", record.to_str().unwrap()]),
        1,
        &format!("skips.jsonl:5: $: not UTF-8 text: byte 0xfe at byte offset {at} (column 11)"),
    );
}

/// For `view -o`: the page goes through an unpredictably named
/// temporary file; a link planted at the old fixed path is not followed.
#[test]
fn view_does_not_follow_a_link_planted_at_its_temporary_path() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let victim = s.path("victim.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    std::os::unix::fs::symlink(&victim, s.path(".page.html.partial")).unwrap();
    let page = s.path("page.html");
    s.ok(&["view", "skips", "-o", page.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n", "view wrote through the planted link");
    assert!(std::fs::read_to_string(&page).unwrap().contains("<html"), "no page written");
    let left: Vec<_> = std::fs::read_dir(s.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".partial") && n != ".page.html.partial")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// For play by email: a scenario given to `pbem
/// invite` is read strictly, and a turn file that is not UTF-8 is refused
/// naming its line and byte offset.
#[test]
fn play_by_email_inputs_are_read_strictly() {
    let s = Store::new();
    let key = s.path("tom.key");
    s.ok(&["keygen", "-o", key.to_str().unwrap()]);
    let text = std::fs::read_to_string(root().join("examples/pbem/scenario.json")).unwrap();
    let scenario = s.path("scenario.json");
    std::fs::write(&scenario, format!("{}\n[]\n", text.trim_end())).unwrap();
    let invite = |scenario: &std::path::Path| {
        s.run(&[
            "pbem",
            "invite",
            "--rules",
            "leader-activation@1",
            "--scenario",
            scenario.to_str().unwrap(),
            "--side",
            "allies",
            "--key",
            key.to_str().unwrap(),
            "--game",
            "friday",
            "-o",
            s.path("invite.txt").to_str().unwrap(),
        ])
    };
    let line = text.trim_end().lines().count() + 1;
    failed_with(&invite(&scenario), 2, &format!("scenario.json:{line}: $: text after the end of the JSON value"));
    let twice = text.replacen('{', "{\"units\": [],", 1);
    std::fs::write(&scenario, &twice).unwrap();
    failed_with(&invite(&scenario), 2, "scenario.json:44: units: the key \"units\" is given twice in one object");
    assert!(!s.path("invite.txt").exists());
    let turn = s.path("turn.txt");
    std::fs::write(&turn, b"-----BEGIN ROLLCALL TURN-----\nGame: fr\xffiday\n").unwrap();
    failed_with(
        &s.run(&["turn", "apply", turn.to_str().unwrap()]),
        2,
        "turn.txt:2: $: not UTF-8 text: byte 0xff at byte offset 38 (column 9)",
    );
}

// ---- The PostgreSQL store: migrate, copy, and every command on it ----

#[path = "support/postgres.rs"]
mod postgres_support;

/// A game run into sled, copied to PostgreSQL (`store copy`), read there by
/// the everyday commands, played on there, and copied back to a new sled
/// store: every copy verified, the record byte for byte the same.
#[test]
fn a_game_copied_to_postgres_and_back_reads_verifies_and_plays_the_same() {
    let Some(db) = postgres_support::Database::new("a_game_copied_to_postgres_and_back") else { return };
    let s = Store::new();
    let original = s.exported_rally();
    let url = db.url.as_str();
    // Migrated already by the test's database: a second migrate has nothing to do.
    let migrate = s.ok(&["store", "migrate", "--store", url]);
    assert!(migrate.contains("nothing to do"), "{migrate}");
    failed_with(&s.run(&["store", "migrate"]), 2, "--store postgres://");
    let copied = s.ok(&["store", "copy", "--from", s.db().to_str().unwrap(), "--to", url]);
    assert!(copied.contains("copied rally"), "{copied}");
    let again = s.ok(&["store", "copy", "--from", s.db().to_str().unwrap(), "--to", url]);
    assert!(again.contains("skipped rally"), "a copy made again skips what is there: {again}");
    // Every command reads the game from PostgreSQL as from sled.
    let on_pg = |args: &[&str]| {
        let mut all = vec!["--store", url];
        all.extend_from_slice(args);
        s.ok(&all)
    };
    assert_eq!(on_pg(&["log", "rally"]), s.ok(&["log", "rally"]));
    assert_eq!(on_pg(&["state", "rally", "--at", "14"]), s.ok(&["state", "rally", "--at", "14"]));
    assert!(on_pg(&["verify", "rally"]).contains("verified rally"));
    assert_eq!(on_pg(&["games"]), s.ok(&["games"]));
    let exported = s.path("from-pg.jsonl");
    on_pg(&["export", "rally", "-o", exported.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&exported).unwrap().lines().collect::<Vec<_>>(), original);
    // Played on in PostgreSQL, then the sled store is behind: copying over it is refused.
    let decision = s.path("move.json");
    std::fs::write(&decision, r#"{"type": "move", "piece": "rifles-1", "to": [1, 2]}"#).unwrap();
    on_pg(&["play", "rally", decision.to_str().unwrap()]);
    let refused = s.run(&["store", "copy", "--from", url, "--to", s.db().to_str().unwrap()]);
    failed_with(&refused, 2, "another state of this game");
    // Copied back into a fresh sled store: the longer game, verified.
    let back = Store::new();
    back.ok(&["store", "copy", "--from", url, "--to", back.db().to_str().unwrap(), "rally"]);
    assert!(back.ok(&["verify", "rally"]).contains("verified rally"));
    assert_eq!(back.ok(&["log", "rally"]), on_pg(&["log", "rally"]));
}

/// A database rollcall's tables are not in is refused, naming the command
/// that makes them.
#[test]
fn a_postgres_store_without_the_schema_is_refused_with_the_migrate_command() {
    let Some(db) = postgres_support::Database::new("a_postgres_store_without_the_schema") else { return };
    db.admin_sql("DROP TABLE rollcall_events, rollcall_games, rollcall_notes, rollcall_secrets, rollcall_schema");
    let s = Store::new();
    failed_with(&s.run(&["--store", &db.url, "games"]), 2, "rollcall store migrate --store");
    s.ok(&["store", "migrate", "--store", &db.url]);
    assert!(s.ok(&["--store", &db.url, "games"]).contains("no games in this store"));
}

/// Given `ROLLCALL_STORE` in the environment naming one store, when `--db`
/// names another on the command line, then the command line wins; without
/// the flag the environment holds; and `--store` on the command line wins
/// over `ROLLCALL_DB` and `--db` alike.
#[test]
fn a_store_flag_on_the_command_line_beats_the_environment() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/rally.json").to_str().unwrap()]);
    let other = Store::new();
    other.ok(&["run", fixture("leader-activation/skips.json").to_str().unwrap()]);
    let games = |env: (&str, &PathBuf), args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_rollcall"))
            .env_remove("ROLLCALL_DB")
            .env_remove("ROLLCALL_STORE")
            .env(env.0, env.1)
            .args(args)
            .arg("games")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let db = s.db();
    let (db, other_db) = (db.to_str().unwrap(), other.db());
    let listed = games(("ROLLCALL_STORE", &other_db), &["--db", db]);
    assert!(listed.contains("rally") && !listed.contains("skips"), "--db beats ROLLCALL_STORE: {listed}");
    let listed = games(("ROLLCALL_STORE", &other_db), &[]);
    assert!(listed.contains("skips") && !listed.contains("rally"), "ROLLCALL_STORE alone: {listed}");
    let listed = games(("ROLLCALL_DB", &other_db), &["--store", db]);
    assert!(listed.contains("rally") && !listed.contains("skips"), "--store beats ROLLCALL_DB: {listed}");
    let listed = games(("ROLLCALL_STORE", &other_db), &["--db", other_db.to_str().unwrap(), "--store", db]);
    assert!(listed.contains("rally") && !listed.contains("skips"), "--store beats --db: {listed}");
}

/// Given two games in a PostgreSQL store, when one is removed with
/// `games rm`, then the same confirmations and refusals as on sled hold:
/// off a terminal it needs --yes and removes nothing; with it the game is
/// gone, the other stays, the id is free again; an unknown game is refused.
#[test]
fn games_rm_removes_a_game_from_a_postgres_store_as_from_sled() {
    let Some(db) = postgres_support::Database::new("games_rm_removes_a_game_from_a_postgres_store") else { return };
    let s = Store::new();
    let url = db.url.as_str();
    let on_pg = |args: &[&str]| {
        let mut all = vec!["--store", url];
        all.extend_from_slice(args);
        s.run(&all)
    };
    for name in ["rally", "skips"] {
        assert!(on_pg(&["run", fixture(&format!("leader-activation/{name}.json")).to_str().unwrap()]).status.success());
    }
    let shown = url.split('?').next().unwrap();
    let out = on_pg(&["games", "rm", "rally"]);
    failed_with(&out, 2, "say --yes");
    failed_with(&out, 2, shown);
    assert!(stdout(&on_pg(&["games"])).contains("rally"), "nothing removed");
    let out = on_pg(&["games", "rm", "rally", "--yes", "--json"]);
    let removed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(removed["removed"], true, "{removed}");
    let games = stdout(&on_pg(&["games", "--json"]));
    assert!(!games.contains("\"rally\"") && games.contains("\"skips\""), "{games}");
    failed_with(&on_pg(&["log", "rally"]), 2, "no game \"rally\" in the store");
    failed_with(&on_pg(&["games", "rm", "rally", "--yes"]), 2, "no game \"rally\" in the store");
    let mut client = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    let left: i64 = client.query_one("SELECT COUNT(*) FROM rollcall_events WHERE game = 'rally'", &[]).unwrap().get(0);
    assert_eq!(left, 0, "no event of the removed game is left");
    // The id is free again: the same game plays back to the same head.
    assert!(on_pg(&["run", fixture("leader-activation/rally.json").to_str().unwrap()]).status.success());
    assert!(stdout(&on_pg(&["verify", "rally"])).contains("verified rally"));
}

/// Given a page already written, when `view -o` names it again, then it is
/// refused (exit 2), naming the file and --force, and the page is kept; with
/// --force it is replaced; the default GAME.html (rollcall's own name) is
/// replaced as before.
#[test]
fn view_replaces_a_file_named_by_o_only_with_force() {
    let s = Store::new();
    s.ok(&["run", fixture("leader-activation/rally.json").to_str().unwrap()]);
    let page = s.path("page.html");
    std::fs::write(&page, "mine").unwrap();
    let out = s.run(&["view", "rally", "-o", page.to_str().unwrap()]);
    failed_with(&out, 2, &format!("{} exists: nothing was written (use --force to replace it)", page.display()));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), "mine", "the file is kept");
    s.ok(&["view", "rally", "-o", page.to_str().unwrap(), "--force"]);
    assert!(std::fs::read_to_string(&page).unwrap().starts_with("<!doctype html>"));
    for _ in 0..2 {
        let out = s.cmd().current_dir(s.dir()).args(["view", "rally"]).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    assert!(s.path("rally.html").exists());
}
