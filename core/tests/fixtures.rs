//! Every script under `fixtures/` plays, verifies, and produces the golden
//! outputs kept beside it (`NAME.narrative.txt`, `NAME.state.txt`,
//! `NAME.turns.txt`).
//!
//! To accept a change of behaviour, rewrite the expected files with
//! `cargo run -p rollcall-cli -- golden bless fixtures` (or
//! `ROLLCALL_BLESS=1 cargo test -p rollcall-core --test fixtures`) and review
//! the diff before committing. CI never blesses: with `CI` set, blessing is
//! refused.

use std::path::{Path, PathBuf};

use rollcall_core::golden::{script_outputs, Collector};
use rollcall_core::script::Script;

fn scripts(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(scripts(&path));
        } else if path.extension().is_some_and(|e| e == "json") && !path.to_string_lossy().ends_with(".house.json") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn fixtures_match_their_golden_outputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let bless = std::env::var_os("ROLLCALL_BLESS").is_some();
    assert!(!(bless && std::env::var_os("CI").is_some()), "refusing to bless golden files under CI");
    let mut failures = Vec::new();
    let all = scripts(&root);
    assert!(!all.is_empty(), "no fixtures found under {}", root.display());
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let script = Script::parse(&text, &stem, rollcall_core::registry::builtin())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let outputs = script_outputs(&script).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (suffix, actual) in outputs.files() {
            let expected_path = path.with_file_name(format!("{stem}.{suffix}"));
            if bless {
                std::fs::write(&expected_path, actual).unwrap();
                continue;
            }
            match std::fs::read_to_string(&expected_path) {
                Ok(expected) if expected == actual => {}
                Ok(expected) => failures.push(format!(
                    "{} differs:\n--- expected\n{expected}\n+++ actual\n{actual}",
                    expected_path.display()
                )),
                Err(_) => failures.push(format!("{} is missing (bless to create it)", expected_path.display())),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\nIf the change is intended: cargo run -p rollcall-cli -- golden bless fixtures",
        failures.join("\n\n")
    );
}

/// A script's outputs are collected a decision ahead of its verification,
/// digesting the state at the end of a turn as the decision ending it
/// begins; they are those of the collector handed each decision's events
/// once all of them are folded in, which keeps a copy of the state until
/// it knows.
#[test]
fn a_script_collected_ahead_gives_the_outputs_of_one_collected_as_played() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    for path in scripts(&root) {
        let text = std::fs::read_to_string(&path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let script = Script::parse(&text, &stem, rollcall_core::registry::builtin()).unwrap();
        let mut collector = Collector::default();
        let game = script.play(|g, e| collector.see(g, e)).unwrap();
        assert_eq!(script_outputs(&script).unwrap(), collector.finish(&game), "{}", path.display());
    }
}

/// N59's dispute parts where its `about` says: played by default
/// (`phoenix-command@3`), then diffed against
/// `detached-units-leave-the-target`, it parts at decision 7, the
/// detachment whose CP blew the ambush (only A keeps 1b as the target), and
/// the ambush's fire at 1b's figure, decision 8, is refused under B.
#[test]
fn the_detached_target_dispute_parts_under_its_option_at_the_detachment() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/phoenix-command/disputes/detached-target.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let script = Script::parse(&text, "detached-target", rollcall_core::registry::builtin()).unwrap();
    let mut events = Vec::new();
    script.play(|_, e| events.push(e.clone())).unwrap();
    let a = script.header.rules.clone();
    let mut b = a.clone();
    b.options.insert("detached-units-leave-the-target".into(), true);
    let report = rollcall_core::diff::diff(
        &script.header,
        events.into_iter().map(Ok::<_, String>),
        &a,
        &b,
        true,
        rollcall_core::registry::builtin(),
    )
    .unwrap();
    let numbers: Vec<u64> = report.divergences.iter().map(|d| d.number).collect();
    assert_eq!(numbers[..2], [7, 8], "{}", report.summary());
    let rollcall_core::diff::Outcome::Decided { facts, .. } = &report.divergences[0].a else {
        panic!("decision 7 is refused under A: {:?}", report.divergences[0]);
    };
    assert!(facts.iter().any(|f| f.starts_with("1b detached from 1-sqd on the CP that blew j's ambush")), "{facts:?}");
    let rollcall_core::diff::Outcome::Refused { reason } = &report.divergences[1].b else {
        panic!("decision 8 is not refused under B: {:?}", report.divergences[1]);
    };
    assert!(reason.contains("1b-1 is not in 1-sqd"), "{reason}");
    for d in &report.divergences {
        println!("divergence: seq {} · decision {}", d.seq, d.number);
    }
}
