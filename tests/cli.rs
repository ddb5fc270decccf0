//! The command line as a script uses it: exit codes and `--json` errors,
//! positions (`--seq`, `--decision`, `--turn`), store housekeeping, and the
//! README's tour run from the README's own text.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

#[path = "support/binary.rs"]
mod binary;
use binary::{failed_with, root, stderr, stdout, Store};

fn fixture(name: &str) -> String {
    root().join("fixtures").join(name).to_str().unwrap().to_string()
}

impl Store {
    fn rally(&self) -> &Store {
        self.ok(&["run", &fixture("leader-activation/rally.json")]);
        self
    }
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}{}", stdout(out), stderr(out)))
}

// ---- The output mode ----

/// `--json` is the command line's, not each command's: given before the
/// command or after it (as the README writes it), the same document; a
/// failure says so in JSON either way, and `games rm` takes it too.
#[test]
fn json_is_one_flag_given_before_or_after_the_command() {
    let s = Store::new();
    s.rally();
    for args in [vec!["log", "rally", "--seq", "30"], vec!["verify", "rally"], vec!["games"], vec!["rules", "list"]] {
        let after = s.ok(&[args.as_slice(), &["--json"]].concat());
        let before = s.ok(&[&["--json"], args.as_slice()].concat());
        assert_eq!(before, after, "{args:?}");
        serde_json::from_str::<Value>(&after).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {after}"));
    }
    let out = s.run(&["--json", "log", "nope"]);
    failed_with(&out, 2, "no game");
    assert_eq!(json_of(&out)["error"]["kind"], "input");
    let out = s.run(&["games", "rm", "rally", "--yes", "--json"]);
    assert_eq!(json_of(&out)["removed"], true, "{}", stdout(&out));
}

// ---- Exit codes a script can use ----

/// Given a stored game awaiting allies' begin-turn, when a well-formed
/// decision the rules refuse is played, then it exits 3 (not 2), and with
/// `--json` says `"kind": "refused"`; a malformed one exits 2, `"input"`.
#[test]
fn a_rules_refusal_exits_3_and_malformed_input_exits_2() {
    let s = Store::new();
    s.ok(&["run", &fixture("leader-activation/skips.json")]);
    let refused = s.path_text("refused.json");
    std::fs::write(&refused, r#"{"type": "activate", "leader": "lt-vogel"}"#).unwrap();
    let malformed = s.path_text("malformed.json");
    std::fs::write(&malformed, r#"{"type": "activate", "leader": 7}"#).unwrap();

    let out = s.run(&["play", "skips", &refused]);
    failed_with(&out, 3, "refused.json:1: $: refused: turn 1 is over: no leader is left to activate");
    let out = s.run(&["play", "skips", &malformed]);
    failed_with(&out, 2, "malformed.json:1: $: invalid type: integer `7`, expected a string");

    let out = s.run(&["play", "skips", &refused, "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let v = json_of(&out);
    assert_eq!(
        (v["ok"].as_bool(), v["error"]["kind"].as_str(), v["error"]["exit"].as_u64()),
        (Some(false), Some("refused"), Some(3))
    );
    assert!(v["error"]["message"].as_str().unwrap().contains("turn 1 is over"), "{v}");
    assert_eq!(v["error"]["refusal"]["kind"], "turn-over", "the kind of refusal, beside the message: {v}");
    assert!(v["error"]["refusal"]["about"].as_str().unwrap().contains("begin the next"), "{v}");
    let out = s.run(&["play", "skips", &malformed, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["error"]["kind"], "input");
    assert_eq!(json_of(&out)["error"].get("refusal"), None, "bad input is no refusal");
    // Any bad input, in any command, is told apart the same way.
    let out = s.run(&["state", "no-such-game", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["error"]["kind"], "input");
    // Without --json, standard output stays empty for a script to test.
    assert!(s.run(&["play", "skips", &refused]).stdout.is_empty());
}

#[test]
fn a_refusal_in_a_script_or_a_stream_exits_3_and_writes_nothing() {
    let s = Store::new();
    let script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("leader-activation/rally.json")).unwrap()).unwrap();
    let mut bad = script.clone();
    bad["decisions"][2] = serde_json::json!({"type": "command", "unit": "gruppe-1"});
    let path = s.path_text("bad.json");
    std::fs::write(&path, serde_json::to_string_pretty(&bad).unwrap()).unwrap();
    let out = s.run(&["run", &path, "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(json_of(&out)["error"]["kind"], "refused");
    assert_eq!(json_of(&out)["error"]["refusal"]["kind"], "not-friendly");
    assert!(!s.ok(&["games", "--json"]).contains("rally"), "nothing was written");

    s.ok(&["run", &fixture("leader-activation/skips.json")]);
    let lines = s.path_text("lines.jsonl");
    std::fs::write(&lines, "{\"type\": \"activate\", \"leader\": \"lt-vogel\"}\n").unwrap();
    failed_with(&s.run(&["play", "skips", &lines, "--stream"]), 3, "lines.jsonl:1: $: refused:");
    let out = s.run(&["play", "skips", &lines, "--stream", "--json"]);
    assert_eq!(json_of(&out)["error"]["refusal"]["kind"], "turn-over");

    // A stream of JSON lines that fails part way ends with its error as one
    // more line: every line of standard output is a JSON document.
    std::fs::write(&lines, "{\"type\": \"begin-turn\", \"first\": \"allies\"}\nnot json\n").unwrap();
    let out = s.run(&["play", "skips", &lines, "--stream", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}{}", stdout(&out), stderr(&out));
    let documents: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}\n{}", stdout(&out))))
        .collect();
    assert_eq!(documents.len(), 2, "the decision played, then the error: {documents:?}");
    assert_eq!(documents[1]["ok"], false);
    assert_eq!(documents[1]["error"]["kind"], "input");
    assert!(documents[1]["error"]["message"].as_str().unwrap().contains("lines.jsonl:2"), "{}", documents[1]);

    // Refused part way: the decisions before it are acknowledged (each once
    // its sync returns, on a thread of its own), then the refusal is said,
    // last, every time (a race would show in twenty rounds).
    let played = [
        r#"{"type": "begin-turn", "first": "allies"}"#,
        r#"{"type": "activate", "leader": "lt-adams"}"#,
        r#"{"type": "end-activation"}"#,
        r#"{"type": "activate", "leader": "nobody"}"#,
    ];
    std::fs::write(&lines, played.map(|l| format!("{l}\n")).concat()).unwrap();
    for round in 0..20 {
        s.ok(&["run", &fixture("leader-activation/skips.json"), "--game", &format!("skips-{round}")]);
        let out = s.run(&["play", &format!("skips-{round}"), &lines, "--stream", "--json"]);
        let documents: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(out.status.code(), Some(3), "{}{}", stdout(&out), stderr(&out));
        let oks = documents.iter().take_while(|d| d["ok"] == true).count();
        assert_eq!((oks, documents.len()), (3, 4), "three acknowledgements, then the refusal: {documents:?}");
        assert_eq!(documents[3]["error"]["kind"], "refused", "{documents:?}");
        assert!(documents[3]["error"]["message"].as_str().unwrap().contains("lines.jsonl:4"), "{documents:?}");
    }
}

/// `rules refusals RULESET` lists the ruleset's kinds of refusal, then the
/// shared ones, each with the rule it follows; `--json` gives the same.
#[test]
fn rules_refusals_lists_every_kind_a_refusal_can_carry() {
    let s = Store::new();
    let text = s.ok(&["rules", "refusals", "leader-activation"]);
    assert!(text.starts_with("leader-activation:\n  not-a-leader\n"), "{text}");
    assert!(text.contains("  no-skip-left\n      \"You get as many skips as you have leaders less.\""), "{text}");
    assert!(text.contains("\nshared:\n  malformed\n"), "{text}");
    let v: Value = serde_json::from_str(&s.ok(&["rules", "refusals", "combat-hq", "--json"])).unwrap();
    assert_eq!(v["ruleset"], "combat-hq");
    let names: Vec<&str> = v["refusals"].as_array().unwrap().iter().map(|k| k["kind"].as_str().unwrap()).collect();
    assert!(names.contains(&"artillery-waits-for-a-command-group"), "{names:?}");
    assert!(v["shared"].as_array().unwrap().iter().any(|k| k["kind"] == "not-your-turn"), "{v}");
    failed_with(&s.run(&["rules", "refusals", "chess"]), 2, "chess");
}

// ---- One numbering: --seq, --decision, --turn ----

/// The seq of the decision event numbered `n` in `log --json`.
fn seq_of_decision(s: &Store, game: &str, n: u64) -> u64 {
    let v: Value = serde_json::from_str(&s.ok(&["log", game, "--json"])).unwrap();
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "decision")
        .nth(n as usize - 1)
        .map(|e| e["seq"].as_u64().unwrap())
        .unwrap()
}

/// Given the rally game (15 decisions, decision 7 the failed rally with its
/// roll), the state at `--decision 7` is the state after its last fact, as
/// at the seq before decision 8; `--seq` and the old `--at` agree.
#[test]
fn state_takes_a_seq_a_decision_or_a_turn() {
    let s = Store::new();
    s.rally();
    let eighth = seq_of_decision(&s, "rally", 8);
    let at = |args: &[&str]| -> Value {
        let mut all = vec!["state", "rally", "--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&s.ok(&all)).unwrap()
    };
    let by_decision = at(&["--decision", "7"]);
    let by_seq = at(&["--seq", &(eighth - 1).to_string()]);
    assert_eq!(by_decision, by_seq);
    assert_eq!(by_decision["decisions"], 7);
    assert_eq!(at(&["--at", &(eighth - 1).to_string()]), by_seq, "--at is --seq");
    // Turn 1 is the whole game: its state is the end state.
    assert_eq!(at(&["--turn", "1"]), at(&[]));
    // One position at a time.
    failed_with(&s.run(&["state", "rally", "--seq", "3", "--decision", "2"]), 2, "cannot be used with");
    failed_with(&s.run(&["state", "rally", "--at", "3", "--turn", "1"]), 2, "cannot be used with");
}

/// Out-of-range positions are errors in every command that takes one, and
/// the message says what the game has.
#[test]
fn a_position_the_game_does_not_have_is_an_error_everywhere() {
    let s = Store::new();
    s.rally();
    for command in ["state", "replay", "log"] {
        failed_with(&s.run(&[command, "rally", "--seq", "999"]), 2, "there is no seq 999");
        failed_with(
            &s.run(&[command, "rally", "--decision", "16"]),
            2,
            "game \"rally\" has 15 decisions (1–15); there is no decision 16",
        );
        failed_with(&s.run(&[command, "rally", "--decision", "0"]), 2, "there is no decision 0");
        failed_with(
            &s.run(&[command, "rally", "--turn", "2"]),
            2,
            "game \"rally\" has turn 1 only; there is no turn 2",
        );
    }
    // The older flags too: replay --to 999 used to play everything silently.
    failed_with(&s.run(&["replay", "rally", "--to", "999"]), 2, "there is no seq 999");
    failed_with(&s.run(&["log", "rally", "--from", "999"]), 2, "there is no seq 999");
    failed_with(&s.run(&["state", "rally", "--at", "999"]), 2, "there is no seq 999");
}

/// Given the Combat HQ showcase (turn 2 begins at decision 11, turn 3 at
/// 18), replay --turn 2 stops after the last event of decision 17, and log
/// --turn 3 starts at decision 18's event; replay --decision 7 ends with
/// decision 7's roll, not before it.
#[test]
fn replay_and_log_take_decisions_and_turns_as_the_narrative_numbers_them() {
    let s = Store::new();
    s.ok(&["run", &fixture("combat-hq/showcase.json")]);
    let replay: Value =
        serde_json::from_str(&s.ok(&["replay", "combat-hq-showcase", "--turn", "2", "--json"])).unwrap();
    assert_eq!(replay["seq"].as_u64(), Some(seq_of_decision(&s, "combat-hq-showcase", 18) - 1));
    let narrative = replay["events"].as_array().unwrap().last().unwrap()["narrative"].as_str().unwrap().to_string();
    assert!(!narrative.contains("Turn 3"), "{narrative}");
    let log: Value = serde_json::from_str(&s.ok(&["log", "combat-hq-showcase", "--turn", "3", "--json"])).unwrap();
    let first = &log["events"][0];
    assert_eq!(
        (first["seq"].as_u64(), first["kind"].as_str()),
        (Some(seq_of_decision(&s, "combat-hq-showcase", 18)), Some("decision"))
    );
    let text = s.ok(&["log", "combat-hq-showcase", "--decision", "11"]);
    assert!(text.lines().next().unwrap().contains("#11 begin-turn"), "{text}");

    let rally = Store::new();
    rally.rally();
    let out = rally.ok(&["replay", "rally", "--decision", "7"]);
    assert!(out.contains("roll d6 rally#0 = 4") && out.contains("all remain broken"), "{out}");
    assert!(!out.contains("#8 "), "{out}");
}

/// A record file answers every position as the stored game it was
/// exported from does: `state`, `replay` and `log`, by seq, decision and
/// turn, out of range too. (A file is folded once to find the position,
/// then once to it; the store reads its own.)
#[test]
fn a_record_file_takes_every_position_its_stored_game_takes() {
    let s = Store::new();
    s.ok(&["run", &fixture("combat-hq/showcase.json")]);
    let record = s.path_text("showcase.jsonl");
    s.ok(&["export", "combat-hq-showcase", "--output", &record]);
    let last = seq_of_decision(&s, "combat-hq-showcase", 18);
    let (seq, last) = (last.to_string(), (last - 1).to_string());
    let positions: [&[&str]; 11] = [
        &["--seq", "0"],
        &["--seq", "1"],
        &["--seq", &last],
        &["--seq", &seq],
        &["--decision", "1"],
        &["--decision", "11"],
        &["--decision", "17"],
        &["--turn", "2"],
        &["--turn", "3"],
        &["--decision", "999"],
        &["--turn", "99"],
    ];
    for command in ["state", "replay", "log"] {
        for position in positions {
            let run = |target: &str| {
                let out = s.run(&[&[command, target, "--json"], position].concat());
                (out.status.code(), stdout(&out), stderr(&out))
            };
            assert_eq!(run(&record), run("combat-hq-showcase"), "{command} {position:?}");
        }
    }
}

/// `verify` of several targets, as a league checks a season's records:
/// each report as one target's would be, then a tally; the exit code is the
/// worst (2 for a target that is not a record, 1 for a record that fails,
/// else 0), and every target is verified whatever comes before it. With
/// `--json`, one document lists each record's. `--expect-head` names one
/// record's head: with several targets it is refused, exit 2.
#[test]
fn verify_takes_several_targets_and_exits_with_the_worst() {
    let s = Store::new();
    s.rally();
    let good = s.path_text("rally.jsonl");
    s.ok(&["export", "rally", "--output", &good]);
    let bad = s.path_text("bad.jsonl");
    let text = std::fs::read_to_string(&good).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(5);
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let missing = s.path_text("missing.jsonl");

    let alone = s.ok(&["verify", &good]);
    let both = s.ok(&["verify", &good, "rally"]);
    assert!(both.starts_with(&alone), "{both}");
    assert!(both.ends_with("\n2 records: 2 proven\n"), "{both}");

    let out = s.run(&["verify", &bad, &good]);
    failed_with(&out, 1, "verification FAILED for");
    assert!(stdout(&out).contains(&format!("verified {good}")), "the record after a failing one is verified");
    assert!(stdout(&out).ends_with(&format!("2 records: 1 proven, 1 FAILED ({bad})\n")), "{}", stdout(&out));

    let out = s.run(&["verify", &missing, &bad, "rally"]);
    failed_with(&out, 2, &format!("error: {missing}: no such record file"));
    assert!(stdout(&out).contains("verified rally"), "{}", stdout(&out));
    let tally = format!("3 records: 1 proven, 1 FAILED ({bad}), 1 not read ({missing})\n");
    assert!(stdout(&out).ends_with(&tally), "{}", stdout(&out));

    let out = s.run(&["verify", "--json", &good, &missing, &bad]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let doc = json_of(&out);
    assert_eq!(doc["ok"], false);
    let records = doc["records"].as_array().unwrap();
    assert_eq!(records.len(), 3, "{doc}");
    assert_eq!(records[0], json_of(&s.run(&["verify", "--json", &good])), "each record's document as alone");
    assert_eq!(records[1]["error"]["exit"], 2, "{doc}");
    assert_eq!((records[2]["ok"].clone(), records[2]["target"].as_str()), (Value::Bool(false), Some(bad.as_str())));
    assert_eq!(json_of(&s.run(&["verify", "--json", &good, "rally"]))["ok"], true);

    let head = json_of(&s.run(&["verify", "--json", &good]))["head"].as_str().unwrap().to_string();
    s.ok(&["verify", &good, "--expect-head", &head]);
    let out = s.run(&["verify", &good, "rally", "--expect-head", &head]);
    failed_with(&out, 2, "--expect-head: it names one record's head, and 2 targets were given");
    assert_eq!(stdout(&out), "", "nothing is verified");
}

/// The Combat HQ diff labels each divergence with the turn the narrative
/// puts its decision in: the decision that begins turn 1 is in turn 1 (it
/// said turn 0).
#[test]
fn diff_numbers_turns_as_the_narrative_does() {
    let s = Store::new();
    s.ok(&["run", &fixture("combat-hq/showcase.json")]);
    let out = s.run(&["diff", "combat-hq-showcase", "--b", "combat-hq@multi-bg", "--all", "--json"]);
    let v = json_of(&out);
    // Turns begin at decisions 1, 11, 18 and 24 (showcase.narrative.txt).
    let turn_of = |n: u64| match n {
        1..=10 => 1,
        11..=17 => 2,
        18..=23 => 3,
        _ => 4,
    };
    let divergences = v["divergences"].as_array().unwrap();
    assert!(!divergences.is_empty(), "{v}");
    for d in divergences.iter().chain(v["reasoning"].as_array().unwrap()) {
        assert_eq!(d["turn"].as_u64(), Some(turn_of(d["number"].as_u64().unwrap())), "{d}");
    }
    assert!(!stdout(&s.run(&["diff", "combat-hq-showcase", "--b", "combat-hq@multi-bg", "--all"])).contains("turn 0"));
}

// ---- Store housekeeping ----

#[test]
fn games_rm_removes_a_game_after_asking_or_with_yes() {
    let s = Store::new();
    s.rally();
    s.ok(&["run", &fixture("leader-activation/skips.json")]);
    // Off a terminal, without --yes: refused, nothing removed.
    let out = s.run(&["games", "rm", "rally"]);
    failed_with(&out, 2, "say --yes");
    failed_with(&out, 2, &s.db().display().to_string());
    assert!(s.ok(&["games"]).contains("rally"));
    let out = s.ok(&["games", "rm", "rally", "--yes"]);
    assert!(out.contains("removed game rally") && out.contains(&s.db().display().to_string()), "{out}");
    let games = s.ok(&["games", "--json"]);
    assert!(!games.contains("\"rally\"") && games.contains("\"skips\""), "{games}");
    failed_with(&s.run(&["log", "rally"]), 2, &format!("no game \"rally\" in the store {}", s.db().display()));
    failed_with(&s.run(&["games", "rm", "rally", "--yes"]), 2, "no game \"rally\" in the store");
    // The id is free again: the same game plays back to the same head.
    s.rally();
    assert!(s.ok(&["verify", "rally"]).contains("verified rally"));
}

/// A reading command on a store that does not exist is an error naming it,
/// and creates nothing; every store error names the store.
#[test]
fn a_store_that_does_not_exist_is_an_error_for_reading_commands() {
    let s = Store::new();
    let db = s.db().display().to_string();
    let decision = s.path_text("d.json");
    std::fs::write(&decision, r#"{"type": "end-activation"}"#).unwrap();
    let record = s.path_text("x.jsonl");
    for args in [
        vec!["games"],
        vec!["log", "rally"],
        vec!["state", "rally"],
        vec!["replay", "rally"],
        vec!["verify", "rally"],
        vec!["export", "rally", "-o", record.as_str()],
        vec!["diff", "rally", "--b", "+natural-6-rallies"],
        vec!["play", "rally", decision.as_str()],
        vec!["games", "rm", "rally", "--yes"],
        vec!["fork", "show", "rally"],
    ] {
        let out = s.run(&args);
        failed_with(&out, 2, &format!("no store at {db}"));
        assert!(!s.db().exists(), "rollcall {args:?} created the store");
    }
    s.rally();
    failed_with(&s.run(&["state", "nope"]), 2, &format!("no game \"nope\" in the store {db}"));
    failed_with(&s.run(&["run", &fixture("leader-activation/rally.json")]), 2, &db);
}

// ---- The README's tour, run from the README's text ----

/// The commands of the README's five-minute tour (its `sh` blocks), each
/// with the output lines the README shows after it (`# ` comments).
fn tour() -> Vec<(String, Vec<String>)> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("## A five-minute tour").expect("the README has a tour");
    let end = start + readme[start..].find("\n## ").expect("a section follows the tour");
    let mut commands: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_block = false;
    for line in readme[start..end].lines() {
        match (in_block, line.trim_start().starts_with("```")) {
            (false, true) => in_block = line.trim() == "```sh",
            (true, true) => in_block = false,
            (true, false) if line.starts_with('#') => {
                commands.last_mut().expect("output follows a command").1.push(line.trim_start_matches('#').to_string())
            }
            (true, false) if !line.trim().is_empty() => commands.push((line.to_string(), Vec::new())),
            _ => {}
        }
    }
    commands
}

/// Pasted line by line into one shell, the tour's commands all run, exit as
/// the README says (1 for a verification that fails or versions that part,
/// 0 otherwise), and print what the README shows (`…` stands for any text).
/// Two substitutions keep the test in its own sandbox: the scratch
/// directory `/tmp/rollcall-tour` is a temporary one, and `cargo build` is
/// skipped (cargo built this binary, and the README's PATH line points at it).
#[test]
fn the_readmes_tour_runs_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = dir.path().join("rollcall-tour");
    let bin = Path::new(env!("CARGO_BIN_EXE_rollcall")).parent().unwrap().to_str().unwrap().to_string();
    let commands = tour();
    assert!(commands.len() >= 10 && commands.iter().any(|(c, _)| c.starts_with("rollcall diff")), "{commands:?}");
    assert!(
        commands.iter().all(|(c, _)| !c.contains("target/debug/rollcall ") && !c.starts_with("$ ")),
        "every line is a shell command as it stands"
    );
    let mut script = String::from("set -u\n");
    for (i, (command, _)) in commands.iter().enumerate() {
        if command.starts_with("cargo build") {
            continue;
        }
        let command =
            command.replace("/tmp/rollcall-tour", sandbox.to_str().unwrap()).replace("$PWD/target/debug", &bin);
        script.push_str(&format!("{command}\necho \"@@tour {i} exit $?@@\"\n"));
    }
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(root())
        .env_remove("ROLLCALL_DB")
        .env_remove("CI")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = stdout(&out);
    let mut rest = text.as_str();
    for (i, (command, shown)) in commands.iter().enumerate() {
        if command.starts_with("cargo build") {
            continue;
        }
        let marker = format!("@@tour {i} exit ");
        let at = rest.find(&marker).unwrap_or_else(|| panic!("{command}: did not run:\n{text}\n{}", stderr(&out)));
        let output = &rest[..at];
        let code: i32 = rest[at + marker.len()..].split("@@").next().unwrap().parse().unwrap();
        rest = &rest[at + marker.len()..];
        let fails = command.contains("# exit 1") || shown.iter().any(|l| l.contains("FAILED"));
        assert_eq!(code, i32::from(fails), "{command}\n{output}\n{}", stderr(&out));
        for line in shown {
            for fragment in line.split('…').map(str::trim).filter(|f| !f.is_empty()) {
                let fragment = fragment.replace("/tmp/rollcall-tour", sandbox.to_str().unwrap());
                assert!(
                    output.contains(&fragment),
                    "{command}: the README shows {fragment:?}, the output is:\n{output}"
                );
            }
        }
    }
    assert!(
        !root().join("rally.jsonl").exists() || git_tracks("rally.jsonl"),
        "the tour leaves nothing in the repository"
    );
}

fn git_tracks(path: &str) -> bool {
    Command::new("git")
        .args(["ls-files", "--error-unmatch", path])
        .current_dir(root())
        .output()
        .is_ok_and(|o| o.status.success())
}

// ---- Help ----

/// Every command and every command group shows an example in its --help.
#[test]
fn every_command_and_group_has_an_example() {
    let help = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_rollcall")).args(args).arg("--help").output().unwrap();
        assert!(out.status.success(), "{args:?}");
        stdout(&out)
    };
    let commands_of = |text: &str| -> Vec<String> {
        text.split("Commands:")
            .nth(1)
            .map(|list| {
                list.lines()
                    .skip(1)
                    .take_while(|l| l.starts_with("  "))
                    .filter_map(|l| l.split_whitespace().next().map(String::from))
                    .filter(|c| c != "help")
                    .collect()
            })
            .unwrap_or_default()
    };
    let top = commands_of(&help(&[]));
    assert!(top.len() > 15, "{top:?}");
    for command in top {
        let text = help(&[command.as_str()]);
        assert!(text.contains("Example"), "rollcall {command} --help has no example:\n{text}");
        for sub in commands_of(&text) {
            let text = help(&[command.as_str(), sub.as_str()]);
            assert!(text.contains("Example"), "rollcall {command} {sub} --help has no example:\n{text}");
        }
    }
}

/// The top-level commands, as `rollcall --help` lists them.
fn commands(s: &Store) -> Vec<String> {
    let help = s.ok(&["--help"]);
    let listed = help.split("Commands:").nth(1).unwrap().split("\n\n").next().unwrap();
    listed.lines().filter_map(|l| l.split_whitespace().next()).filter(|c| *c != "help").map(String::from).collect()
}

/// Completions for every shell name every command, and write nothing to the store.
#[test]
fn completions_name_every_command_for_every_shell() {
    let s = Store::new();
    let commands = commands(&s);
    assert!(commands.len() > 20, "{commands:?}");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = s.ok(&["completions", shell]);
        for command in &commands {
            assert!(script.contains(command.as_str()), "{shell}: no {command} in the completions");
        }
    }
    assert!(s.ok(&["completions", "bash"]).contains("--expect-head"), "flags complete too");
    let out = s.run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2), "an unknown shell is bad input");
    assert!(!s.db().exists(), "completions opened no store");
}

/// A man page for rollcall and for every command and subcommand,
/// each with the command's flags.
#[test]
fn man_writes_a_page_for_every_command() {
    let s = Store::new();
    let dir = s.path_text("man");
    assert!(s.ok(&["man", "-o", &dir]).contains("man pages into"));
    for command in commands(&s) {
        let page = Path::new(&dir).join(format!("rollcall-{command}.1"));
        assert!(page.is_file(), "no page for {command}");
    }
    let verify = std::fs::read_to_string(Path::new(&dir).join("rollcall-verify.1")).unwrap();
    assert!(verify.contains(".TH") && verify.contains("expect\\-head"), "{verify}");
    assert!(Path::new(&dir).join("rollcall-pbem-invite.1").is_file(), "subcommands have pages");
    assert!(Path::new(&dir).join("rollcall.1").is_file());
}

/// A misspelt game id, ruleset, option or decision type is answered with
/// the closest right one.
#[test]
fn a_misspelt_name_gets_a_did_you_mean() {
    let s = Store::new();
    s.rally();
    failed_with(&s.run(&["state", "rallly"]), 2, "no game \"rallly\" in the store");
    failed_with(&s.run(&["state", "rallly"]), 2, "(did you mean rally?)");
    failed_with(&s.run(&["diff", "rally", "--b", "+natural-6-rally"]), 2, "(did you mean natural-6-rallies?)");
    failed_with(&s.run(&["diff", "rally", "--b", "leader-activaton@1"]), 2, "(did you mean leader-activation?)");
    let dir = tempfile::tempdir().unwrap();
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("fixtures/leader-activation/rally.json")).unwrap())
            .unwrap();
    script["decisions"][1]["type"] = "activte".into();
    let path = dir.path().join("typo.json");
    std::fs::write(&path, serde_json::to_string_pretty(&script).unwrap()).unwrap();
    failed_with(
        &s.run(&["run", path.to_str().unwrap(), "--game", "typo"]),
        2,
        "unknown variant `activte`, expected one of",
    );
    failed_with(&s.run(&["run", path.to_str().unwrap(), "--game", "typo"]), 2, "(did you mean activate?)");
}

// ---- A dice server out of reach ----

/// A server that cannot be reached is named once, with what went wrong on
/// the way: exit 2, nothing else said twice.
#[test]
fn a_server_out_of_reach_is_named_once_with_what_went_wrong() {
    // Given a port nothing listens on
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/games/friday");
    // When a record is fetched from it
    let s = Store::new();
    let out = s.run(&["verify", &url]);
    // Then the failure names the URL once, and the refused connection
    failed_with(&out, 2, "cannot reach the server: Connection Failed");
    assert_eq!(stderr(&out).matches(&url).count(), 1, "{}", stderr(&out));
}
