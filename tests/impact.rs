//! End-to-end tests of `rollcall impact`: the real binary over corpora of
//! the project's golden fixtures, of records generated with
//! `rollcall_core::sim::random_game`, and of games in a store. Every option
//! that parts a fixture under `diff` (the user guide's open points) parts it under
//! impact, and impact names it; an option that only changes bookkeeping
//! changes no outcome over the fixtures or over 1,000 simulated games.

use std::path::Path;

use serde_json::Value;

#[path = "support/binary.rs"]
mod binary;
use binary::{rollcall, root, text};

fn fixtures() -> String {
    root().join("fixtures").to_str().unwrap().to_string()
}

/// Runs impact with `--json` on `targets`; returns the exit code and the report.
fn impact(targets: &[&str], b: &str) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["impact"];
    args.extend_from_slice(targets);
    args.extend_from_slice(&["--b", b, "--json"]);
    let out = rollcall(&dir.path().join("db"), &args);
    let code = out.status.code().unwrap();
    assert!(code == 0 || code == 1, "impact {targets:?} --b {b} failed: {}", text(&out));
    (code, serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out))))
}

/// The games that part on outcome, by file name relative to the fixtures.
fn parting(report: &Value, class: &str) -> Vec<String> {
    report["parting"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["class"] == class)
        .map(|g| g["game"].as_str().unwrap().rsplit("fixtures/").next().unwrap().to_string())
        .collect()
}

fn count(report: &Value, field: &str) -> u64 {
    report[field].as_u64().unwrap_or_else(|| panic!("no {field} in {report:#}"))
}

/// Every option with a fixture where its readings part (the user guide's open points),
/// as B over the whole fixture corpus: impact exits 1 and names that
/// fixture among the games that part on outcome, with its first divergence.
#[test]
fn every_option_that_parts_a_fixture_parts_it_over_the_corpus() {
    let cases = [
        ("+natural-1-fails", "leader-activation/disputes/natural-1-fails.json"),
        ("+natural-6-rallies", "leader-activation/disputes/natural-6-rallies.json"),
        ("+self-rally-skill-modifier", "leader-activation/disputes/self-rally-skill-modifier.json"),
        (
            "+failed-self-rally-keeps-leader-unactivated",
            "leader-activation/disputes/failed-self-rally-keeps-leader-unactivated.json",
        ),
        ("+rallied-units-stay-idle", "leader-activation/disputes/rallied-units-stay-idle.json"),
        ("+last-activation-rule", "leader-activation/disputes/last-activation-rule.json"),
        ("+command-check-equal-passes", "phoenix-command/three-turns.json"),
        ("+strict-majority", "phoenix-command/ambush.json"),
        ("+initiative-tie-roll-off=false", "phoenix-command/three-turns.json"),
        ("+no-check-on-entering-los", "phoenix-command/ambush.json"),
        ("+stray-fire=false", "phoenix-command/stray-fire.json"),
        ("+double-time-bars-fire-for-the-turn", "phoenix-command/farmhouse-assault.json"),
        ("+artillery-waits-for-a-command-group", "combat-hq/artillery-alone.json"),
        ("+rally-per-hex=false", "formation-activation/rally-per-hex.json"),
        ("+operations-per-activation=1", "formation-activation/two-operations.json"),
        ("combat-hq@multi-bg", "combat-hq/showcase.json"),
    ];
    let corpus = fixtures();
    for (b, fixture) in cases {
        let (code, report) = impact(&[&corpus], b);
        assert_eq!(code, 1, "{b}: {report:#}");
        let parts = parting(&report, "outcome");
        assert!(parts.iter().any(|p| p == fixture), "{b}: {fixture} is not among {parts:?}");
        assert_eq!(count(&report, "part_on_outcome"), parts.len() as u64);
        let games = count(&report, "games");
        assert_eq!(
            games,
            count(&report, "agreeing") + count(&report, "part_on_outcome") + count(&report, "part_in_reasoning_only")
        );
        // Games of the other rulesets are skipped, each with its reason; none is unproven.
        let skipped = report["skipped"].as_array().unwrap();
        assert!(!skipped.is_empty(), "{b}: nothing skipped");
        assert_eq!(games + skipped.len() as u64, fixture_count(), "{b}: the corpus is every fixture");
        assert!(report["unproven"].as_array().unwrap().is_empty());
        let game =
            report["parting"].as_array().unwrap().iter().find(|g| g["game"].as_str().unwrap().ends_with(fixture));
        let game = game.unwrap();
        assert!(
            game["first"].is_object() || game["setup"]["setup"] != "same",
            "{b}: {fixture} parts with no first divergence and no set-up: {game:#}"
        );
        // Only an outcome that differs counts: some decision type says so.
        let outcome: u64 =
            report["by_decision"].as_object().unwrap().values().map(|c| c["outcome"].as_u64().unwrap()).sum();
        assert_eq!(outcome, count(&report, "divergent_decisions"), "{b}");
    }
}

/// natural-6-rallies, in numbers: the one rally test of the corpus that
/// changes its verdict, the units it rallies, and the three pieces that
/// end the game unbroken under B; the text report says the same.
#[test]
fn the_report_counts_what_changes_per_decision_fact_and_final_state() {
    let (_, report) = impact(&[&fixtures()], "+natural-6-rallies");
    assert_eq!(report["by_decision"]["rally"]["outcome"], 1, "{report:#}");
    let rally = &report["by_fact"]["rally-tested"];
    assert_eq!(rally["changed"], 1, "{report:#}");
    assert!(rally["a"].as_u64().unwrap() >= 7);
    assert_eq!(report["by_fact"]["units-rallied"]["new"], 1);
    assert_eq!(report["end_fields"]["/pieces/*/broken"]["places"], 3);
    let game = &report["parting"][0];
    assert_eq!(game["first"]["decision"], "rally units=rifles-1,rifles-2,mortar");
    assert_eq!(game["first"]["turn"], 1);
    assert_eq!(game["end"]["places"], 3);
    assert_eq!(game["end"]["sample"][0]["a"], true);
    assert_eq!(game["end"]["sample"][0]["b"], false);

    let dir = tempfile::tempdir().unwrap();
    let out = rollcall(&dir.path().join("db"), &["impact", &fixtures(), "--b", "+natural-6-rallies"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report = String::from_utf8(out.stdout).unwrap();
    let compared = format!(
        "11 games compared: 10 agree, 1 part on outcome, 0 part only in reasoning; {} skipped",
        fixture_count() - 11
    );
    for needle in [
        compared.as_str(),
        "games that part on outcome:",
        "natural-6-rallies.json (A = leader-activation@1, B = leader-activation@1+natural-6-rallies)",
        "seq 5 · decision 3 · turn 1: rally units=rifles-1,rifles-2,mortar",
        "the final states differ at 3 place(s): /pieces/*/broken ×3",
        "rally-tested: 1 of 7 change verdict",
        "phoenix-command@1: natural-6-rallies: phoenix-command@1 has no such setting",
    ] {
        assert!(report.contains(needle), "no {needle:?} in\n{report}");
    }
    // Gathered in corpus order though compared in parallel: the same report twice.
    let again = rollcall(&dir.path().join("db"), &["impact", &fixtures(), "--b", "+natural-6-rallies"]);
    assert_eq!(String::from_utf8(again.stdout).unwrap(), report);
}

/// Writes `games` random legal games of `version` (each of `decisions`
/// decisions) as records under `dir`; returns how many have `option` off.
fn random_records(dir: &Path, version: &str, games: u64, decisions: usize, option: &str) -> u64 {
    let mut off = 0;
    for i in 0..games {
        let ruleset = version.split('@').next().unwrap_or(version);
        let header = binary::random_record(&dir.join(format!("{ruleset}-{i}.jsonl")), version, 1000 + i, decisions);
        off += u64::from(!header.rules.options.get(option).copied().unwrap_or(true));
    }
    off
}

/// L1 (`skill-as-roll-modifier`) and F2 (`leadership-adds-to-rating`)
/// only change bookkeeping: over the fixtures and over 1,000 simulated
/// games (500 of each ruleset) no game parts on outcome. A change that
/// matters (a rally target of 5) parts the same simulated corpus, so the
/// corpus can tell.
#[test]
fn bookkeeping_only_options_change_no_outcome_over_fixtures_and_1000_simulated_games() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    let off_l1 = random_records(&corpus, "leader-activation@1", 500, 30, "skill-as-roll-modifier");
    let off_f2 = random_records(&corpus, "formation-activation@1", 500, 30, "leadership-adds-to-rating");
    assert!(off_l1 > 100 && off_f2 > 100, "too few games have the option off: {off_l1}, {off_f2}");
    let corpus = corpus.to_str().unwrap();
    for (b, games) in [("+skill-as-roll-modifier", 11), ("+leadership-adds-to-rating", 9)] {
        let (code, report) = impact(&[&fixtures()], b);
        assert_eq!((code, count(&report, "part_on_outcome")), (0, 0), "{b} over the fixtures: {report:#}");
        assert_eq!(count(&report, "games"), games, "{b}");
        let (code, report) = impact(&[corpus], b);
        assert_eq!(code, 0, "{b} over the simulated games: {}", report["summary"]);
        assert_eq!(count(&report, "games"), 500, "{b}: {}", report["summary"]);
        assert_eq!(count(&report, "part_on_outcome"), 0);
        assert_eq!(report["skipped"].as_array().unwrap().len(), 500, "the other ruleset's games");
        assert!(count(&report, "decisions") >= 500 * 30);
    }
    let (code, report) = impact(&[corpus], "+rally-target=5");
    assert_eq!(code, 1, "{}", report["summary"]);
    assert!(count(&report, "part_on_outcome") > 0);
    assert!(report["by_fact"]["rally-tested"]["changed"].as_u64().unwrap() > 0, "{report:#}");
}

/// Each game's own version against itself (B sets what A has) agrees on
/// every game, in outcome and in reasoning, and exits 0.
#[test]
fn a_version_against_itself_agrees() {
    let dir = tempfile::tempdir().unwrap();
    // Random games play the constants at their defaults: rally-target is 3.
    random_records(dir.path(), "leader-activation@1", 40, 40, "-");
    let (code, report) = impact(&[dir.path().to_str().unwrap()], "+rally-target=3");
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(count(&report, "games"), 40);
    assert_eq!(count(&report, "agreeing"), 40, "{report:#}");
    assert!(report["end_fields"].as_object().unwrap().is_empty());
    // Another target parts some of the same games.
    let (code, report) = impact(&[dir.path().to_str().unwrap()], "+rally-target=5");
    assert_eq!(code, 1, "{}", report["summary"]);
}

/// A store's game, its exported record and its script are one corpus, and
/// give the same verdict; a record that does not verify is reported, not
/// compared, and exits 1.
#[test]
fn store_games_records_and_scripts_make_one_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let script = root().join("fixtures/leader-activation/disputes/natural-6-rallies.json");
    let script = script.to_str().unwrap();
    assert!(rollcall(&db, &["run", script]).status.success());
    let record = dir.path().join("game.jsonl");
    let record = record.to_str().unwrap();
    assert!(rollcall(&db, &["export", "natural-6-rallies", "-o", record]).status.success());
    let out = rollcall(&db, &["impact", "natural-6-rallies", record, script, "--b", "+natural-6-rallies", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(count(&report, "part_on_outcome"), 3, "{report:#}");
    let firsts: Vec<&Value> = report["parting"].as_array().unwrap().iter().map(|g| &g["first"]).collect();
    assert!(firsts.iter().all(|f| *f == firsts[0]), "{firsts:#?}");
    assert_eq!(report["parting"][0]["game"], "natural-6-rallies");

    // Forge a die: the record no longer verifies, and is not compared.
    let forged = std::fs::read_to_string(record).unwrap().replacen("\"value\":6", "\"value\":5", 1);
    let forged_path = dir.path().join("forged.jsonl");
    std::fs::write(&forged_path, forged).unwrap();
    let (code, report) = impact(&[forged_path.to_str().unwrap()], "+natural-6-rallies");
    assert_eq!(code, 1);
    assert_eq!(count(&report, "games"), 0);
    let unproven = report["unproven"].as_array().unwrap();
    assert_eq!(unproven.len(), 1);
    assert!(unproven[0]["reason"].as_str().unwrap().contains("seq"), "{unproven:#?}");
}

/// Bad input exits 2 with a message naming what is wrong, before any game is compared.
#[test]
fn bad_input_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    for (args, needle) in [
        (vec!["impact", &fixtures(), "--b", "+no-such-reading"], "no version of any ruleset has these settings"),
        (vec!["impact", "no/such/dir", "--b", "+natural-6-rallies"], "no/such/dir: no such file or directory"),
        (vec!["impact", "no-such-game", "--b", "+natural-6-rallies"], "not a file, a directory or a game in the store"),
        (vec!["impact", &fixtures(), "--b", "no-such-ruleset@1"], "no-such-ruleset"),
    ] {
        let out = rollcall(&db, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(needle), "{args:?}: no {needle:?} in {}", text(&out));
        assert!(out.stdout.is_empty(), "{args:?} printed a report");
    }
    // A version no game of the corpus is of.
    let leader = root().join("fixtures/leader-activation");
    let out = rollcall(&db, &["impact", leader.to_str().unwrap(), "--b", "combat-hq@base"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no game of the corpus could be compared"), "{}", text(&out));
}

/// The games of the fixtures corpus: every script (not house rules) and record under fixtures/.
fn fixture_count() -> u64 {
    fn walk(dir: &std::path::Path) -> u64 {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                let name = p.to_string_lossy().to_string();
                if p.is_dir() {
                    walk(&p)
                } else {
                    u64::from((name.ends_with(".json") && !name.ends_with(".house.json")) || name.ends_with(".jsonl"))
                }
            })
            .sum()
    }
    walk(std::path::Path::new(&fixtures()))
}

/// `-o report.html`: one self-contained page with the same report as
/// `--json` — it names every parting game, each with an anchor the list
/// links to, and loads nothing from the network; an existing file is
/// replaced only with --force.
#[test]
fn the_html_report_names_every_parting_game_and_needs_no_network() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let page_path = dir.path().join("report.html");
    let page = page_path.to_str().unwrap();
    let corpus = root().join("fixtures/leader-activation");
    let corpus = corpus.to_str().unwrap();
    let out = rollcall(&db, &["impact", corpus, "--b", "+natural-6-rallies", "-o", page]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("wrote the report to"), "{}", text(&out));
    let html = std::fs::read_to_string(&page_path).unwrap();
    let (_, report) = impact(&[corpus], "+natural-6-rallies");
    let games: Vec<&str> = report["parting"].as_array().unwrap().iter().map(|g| g["game"].as_str().unwrap()).collect();
    assert!(!games.is_empty());
    for (i, game) in games.iter().enumerate() {
        assert!(html.contains(&format!("<a href=\"#game-{i}\">{game}</a>")), "{game} not linked:\n{html}");
        assert!(html.contains(&format!("id=\"game-{i}\"><h3>{game}</h3>")), "{game} has no section:\n{html}");
    }
    assert!(html.contains(report["summary"].as_str().unwrap()), "{html}");
    for (kind, _) in report["by_decision"].as_object().unwrap() {
        assert!(html.contains(&format!("<td>{kind}</td>")), "decision type {kind} missing");
    }
    for (kind, _) in report["by_fact"].as_object().unwrap() {
        assert!(html.contains(&format!("<td>{kind}</td>")), "fact type {kind} missing");
    }
    for external in ["http://", "https://", "src=", "<link", "@import"] {
        assert!(!html.contains(external), "the page loads {external}");
    }

    let again = rollcall(&db, &["impact", corpus, "--b", "+natural-6-rallies", "-o", page]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("exists: nothing was written (use --force to replace it)"), "{}", text(&again));
    std::fs::write(&page_path, "old").unwrap();
    let forced = rollcall(&db, &["impact", corpus, "--b", "+natural-6-rallies", "-o", page, "--force"]);
    assert_eq!(forced.status.code(), Some(1), "{}", text(&forced));
    assert_eq!(std::fs::read_to_string(&page_path).unwrap(), html, "the same report gives the same page");
}
