//! End-to-end tests of `rollcall simulate`: the real binary on the
//! project's fixtures. Simulation is seeded: the same seed gives the same
//! report, byte for byte; a version against itself agrees; an option that
//! only changes bookkeeping changes no game; a change that matters is
//! reported as significant; and every game kept as a record verifies.

use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "support/binary.rs"]
mod binary;
use binary::{rollcall, text};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name).to_str().unwrap().to_string()
}

/// Runs simulate with `--json`; returns the exit code and the report.
fn simulate(args: &[&str]) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["simulate"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = rollcall(&dir.path().join("db"), &all);
    let code = out.status.code().unwrap();
    assert!(code == 0 || code == 1, "simulate {args:?} failed: {}", text(&out));
    (code, serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out))))
}

fn row<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["comparison"]["rows"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap_or_else(|| {
        panic!("no row {name} in {report:#}");
    })
}

fn significant(report: &Value) -> Vec<String> {
    let rows = report["comparison"]["rows"].as_array().unwrap();
    rows.iter().filter(|r| r["significant"] == true).map(|r| r["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn simulate_is_reproducible_from_its_seed() {
    let script = fixture("combat-hq/showcase.json");
    let run = |seed: &str| {
        let dir = tempfile::tempdir().unwrap();
        let out = rollcall(
            &dir.path().join("db"),
            &["simulate", &script, "--b", "combat-hq@multi-bg", "--games", "24", "--seed", seed, "--turns", "3"],
        );
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let first = run("7");
    assert_eq!(first, run("7"), "the same seed gave another report");
    assert_ne!(first, run("8"), "another seed gave the same report: the seed plays no part");
    let (_, a) = simulate(&[&script, "--b", "combat-hq@multi-bg", "--games", "24", "--seed", "7", "--turns", "3"]);
    let (_, b) = simulate(&[&script, "--b", "combat-hq@multi-bg", "--games", "24", "--seed", "7", "--turns", "3"]);
    assert_eq!(a, b);
    assert!(row(&a, "command-rolls")["a"]["value"].as_f64().unwrap() > 0.0, "no command dice were rolled: {a:#}");
}

/// A version against itself: every pair is the same game, so no measure
/// differs and the command exits 0, for every ruleset and its policies.
#[test]
fn a_version_against_itself_agrees() {
    for (script, policy) in [
        ("leader-activation/rally.json", "rally-first"),
        ("phoenix-command/five-turns.json", "spend-cp"),
        ("combat-hq/showcase.json", "longest-chain"),
        ("formation-activation/62nd-regiment.json", "operate-all"),
        ("formation-activation/62nd-regiment.json", "random"),
    ] {
        let (code, report) =
            simulate(&[&fixture(script), "--b", "+", "--games", "30", "--turns", "2", "--policy", policy]);
        assert_eq!(code, 0, "{script}: {report:#}");
        assert_eq!(report["comparison"]["parted"], 0, "{script}: {report:#}");
        assert!(significant(&report).is_empty(), "{script}");
        assert!(row(&report, "decisions")["a"]["value"].as_f64().unwrap() > 5.0, "{script}: the games went nowhere");
    }
}

/// L1 only changes bookkeeping: over 1,000 simulated games with rallies,
/// no game parts and no measure differs.
#[test]
fn skill_as_roll_modifier_changes_no_outcome_over_1000_games() {
    let (code, report) = simulate(&[
        &fixture("leader-activation/rally.json"),
        "--b",
        "+skill-as-roll-modifier",
        "--games",
        "1000",
        "--turns",
        "2",
        "--policy",
        "rally-first",
    ]);
    assert_eq!(report["changes"][0], "skill-as-roll-modifier off → on");
    assert_eq!((code, report["comparison"]["parted"].as_u64()), (0, Some(0)), "{report:#}");
    assert!(significant(&report).is_empty());
    assert!(row(&report, "rally-tests")["a"]["value"].as_f64().unwrap() > 0.5, "few rallies: L1 was not exercised");
}

/// F2 only changes bookkeeping: over 1,000 simulated games, no game parts
/// and no measure differs, with units rallying beside their HQ.
#[test]
fn leadership_adds_to_rating_changes_no_outcome_over_1000_games() {
    let (code, report) = simulate(&[
        &fixture("formation-activation/rally-leadership-adds-to-rating.json"),
        "--b",
        "+leadership-adds-to-rating",
        "--games",
        "1000",
        "--turns",
        "2",
    ]);
    assert_eq!((code, report["comparison"]["parted"].as_u64()), (0, Some(0)), "{report:#}");
    assert!(significant(&report).is_empty());
    assert!(row(&report, "rally-tests")["a"]["value"].as_f64().unwrap() > 0.5, "few rallies: F2 was not exercised");
}

/// A change that matters: a harder rally target lowers the rally success,
/// significantly, and the command exits 1.
#[test]
fn a_harder_rally_target_is_a_significant_difference() {
    let (code, report) = simulate(&[
        &fixture("leader-activation/rally.json"),
        "--b",
        "+rally-target=5",
        "--games",
        "200",
        "--turns",
        "3",
        "--policy",
        "rally-first",
    ]);
    assert_eq!(code, 1, "{report:#}");
    assert!(significant(&report).contains(&"rally-success".to_string()), "{report:#}");
    let d = &row(&report, "rally-success")["difference"];
    assert!(d["value"].as_f64().unwrap() < -0.1 && d["high"].as_f64().unwrap() < 0.0, "{d}");
    assert!(report["comparison"]["parted"].as_u64().unwrap() > 100);
}

/// Phoenix Command names a winner: the shares of games each side won are rows.
#[test]
fn phoenix_command_reports_who_wins() {
    let (_, report) =
        simulate(&[&fixture("phoenix-command/farmhouse-assault.json"), "--b", "+", "--games", "20", "--turns", "8"]);
    assert!(report["comparison"]["winner_by"].is_string());
    let wins: Vec<&Value> = report["comparison"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["name"].as_str().unwrap().starts_with("wins:"))
        .collect();
    assert!(!wins.is_empty(), "no game was won in 8 turns: {report:#}");
    let (_, leader) = simulate(&[&fixture("leader-activation/rally.json"), "--b", "+", "--games", "2"]);
    assert!(leader["comparison"]["no_winner"].as_str().unwrap().contains("command phase"));
}

/// Every kept game is a record that verify, import and replay take.
#[test]
fn kept_games_verify_import_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("kept");
    let db = dir.path().join("db");
    let out = rollcall(
        &db,
        &[
            "simulate",
            &fixture("phoenix-command/five-turns.json"),
            "--b",
            "+stray-fire",
            "--games",
            "3",
            "--turns",
            "2",
            "--keep",
            keep.to_str().unwrap(),
        ],
    );
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    for side in ["a", "b"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(keep.join(side)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        assert_eq!(files.len(), 3, "{side}: {files:?}");
        for file in &files {
            let out = rollcall(&db, &["verify", file.to_str().unwrap()]);
            assert!(out.status.success(), "{}: {}", file.display(), text(&out));
        }
        let side_db = dir.path().join(format!("db-{side}"));
        let out = rollcall(&side_db, &["import", files[0].to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out));
        let out = rollcall(&side_db, &["replay", "sim-1-0"]);
        assert!(out.status.success() && text(&out).contains("#1 "), "{}", text(&out));
    }
}

#[test]
fn bad_input_names_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let scenario = dir.path().join("scenario.json");
    let script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("leader-activation/rally.json")).unwrap()).unwrap();
    std::fs::write(&scenario, script["scenario"].to_string()).unwrap();
    let s = scenario.to_str().unwrap();
    let fails = |args: &[&str], needle: &str| {
        let out = rollcall(&db, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(needle), "{args:?}: expected {needle:?} in {}", text(&out));
    };
    fails(&["simulate", s, "--b", "+natural-6-rallies", "--games", "2"], "needs --a VERSION");
    fails(
        &["simulate", s, "--a", "leader-activation@1", "--b", "combat-hq@base", "--games", "2"],
        "not a version of leader-activation",
    );
    fails(
        &["simulate", s, "--a", "leader-activation@1", "--b", "+", "--games", "2", "--policy", "cautious"],
        "rally-first",
    );
    fails(&["simulate", s, "--a", "combat-hq@base", "--b", "+", "--games", "2"], "scenario.json:");
    // A bare scenario with --a plays.
    let out = rollcall(&db, &["simulate", s, "--a", "leader-activation@1", "--b", "+", "--games", "2"]);
    assert!(out.status.success(), "{}", text(&out));
}
