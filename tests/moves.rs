//! `rollcall moves` and `rollcall play --pick` as a player uses them: the
//! decisions legal now, numbered and in words, for the side awaited or the
//! side asked for; the same listing as JSON (valid against its published
//! schema), from a stored game or a record file; one of them played by its
//! number or its words, its fields given as FIELD=VALUE; and every bad input
//! refused with exit 2 (a refusal of the rules with exit 3), nothing written.

use std::process::Output;

use serde_json::{json, Value};

#[path = "support/binary.rs"]
mod binary;
use binary::{failed_with, root, stderr, stdout, Store};

fn fixture(name: &str) -> Value {
    let path = root().join("fixtures").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The `rally` fixture's game after its first `n` decisions, stored as `rally`.
fn rally_after(s: &Store, n: usize) {
    let mut script = fixture("leader-activation/rally.json");
    script["decisions"] = Value::Array(script["decisions"].as_array().unwrap()[..n].to_vec());
    let path = s.path_text("rally.json");
    std::fs::write(&path, script.to_string()).unwrap();
    s.ok(&["run", &path]);
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}{}", stdout(out), stderr(out)))
}

fn head(s: &Store, game: &str) -> String {
    json_of(&s.run(&["state", game, "--json"]))["head"].as_str().unwrap().to_string()
}

/// The number `moves` gives the entry whose pick words are `pick`.
fn number_of(s: &Store, args: &[&str], pick: &str) -> String {
    let listing = json_of(&s.run(&[&["moves", "--json"], args].concat()));
    let entries = listing["groups"].as_array().unwrap().iter().flat_map(|g| g["entries"].as_array().unwrap().iter());
    let found = entries.clone().find(|e| e["pick"] == pick);
    found.unwrap_or_else(|| panic!("{pick} not listed in {listing:#}"))["n"].to_string()
}

/// Given Lt. Adams activated, `moves` says what allies may do, numbered,
/// in the rules' words, with ranges and target numbers; then the referee's
/// inputs; and how to play one.
#[test]
fn moves_lists_what_the_side_awaited_may_do_in_words() {
    let s = Store::new();
    rally_after(&s, 2);
    let text = s.ok(&["moves", "rally"]);
    for line in [
        "game rally, turn 1, after seq 4 (decision 2): allies to decide",
        "What allies may do now:",
        "Command a unit",
        "   1. lt-adams commands rifles-1 (Trained, 50 mm away; its command range is 100 mm)",
        "      in range: 50 mm of 100 mm",
        "lt-adams rallies mortar, rifles-2 (one D6 test; his activation ends)",
        "      rally test: needs 5+ on a d6; rolls rally d6",
        "      give action=… (text)",
        "The referee's inputs (either side may enter them):",
        "Play one: rollcall play rally --pick N, with the fields it asks for as FIELD=VALUE",
    ] {
        assert!(text.contains(line), "expected {line:?} in:\n{text}");
    }
    assert!(!text.contains("commands mortar"), "a broken unit is rallied, not commanded:\n{text}");
    // The other side has nothing of its own while Lt. Adams activates.
    let axis = s.ok(&["moves", "rally", "--side", "axis"]);
    assert!(axis.contains("axis has nothing of its own to decide now."), "{axis}");
    assert!(axis.contains("Break a leader or unit") && !axis.contains("Command a unit"), "{axis}");
    let referee = s.ok(&["moves", "rally", "--side", "referee"]);
    assert!(referee.contains("What the referee may do now:") && !referee.contains("Command a unit"), "{referee}");
    failed_with(&s.run(&["moves", "rally", "--side", "neutrals"]), 2, "\"neutrals\" is not a side of this game");
    failed_with(&s.run(&["moves", "nowhere"]), 2, "no game \"nowhere\"");
}

/// `moves --json` is the engine's listing, as the published schema
/// describes it; a record file lists the same as its stored game.
#[test]
fn moves_json_is_the_listing_its_schema_describes_from_a_store_or_a_record() {
    let s = Store::new();
    rally_after(&s, 2);
    let listing = json_of(&s.run(&["moves", "rally", "--json"]));
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("docs/schemas/moves.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&listing).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "moves --json does not validate:\n{}", errors.join("\n"));
    assert_eq!((listing["game"].as_str(), listing["side"].as_str()), (Some("rally"), Some("allies")));
    let numbers: Vec<u64> = listing["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["entries"].as_array().unwrap().iter().map(|e| e["n"].as_u64().unwrap()))
        .collect();
    assert_eq!(numbers, (1..=numbers.len() as u64).collect::<Vec<_>>());
    let command = &listing["groups"][0]["entries"][0];
    assert_eq!(command["decision"], json!({"type": "command", "unit": "rifles-1"}));
    assert_eq!(command["range"], json!({"distance": 50, "limit": 100, "unit": "mm"}));
    let record = s.path_text("rally.jsonl");
    s.ok(&["export", "rally", "-o", &record]);
    assert_eq!(json_of(&s.run(&["moves", &record, "--json"])), listing);
}

/// A decision is played by its number or its words; a free field is given
/// as FIELD=VALUE; what it did is narrated as `play` narrates.
#[test]
fn play_pick_plays_a_listed_decision_by_its_number_or_its_words() {
    let s = Store::new();
    rally_after(&s, 2);
    let n = number_of(&s, &["rally"], "command unit=rifles-1");
    let out = s.ok(&["play", "rally", "--pick", &n]);
    assert!(out.contains("lt-adams commands rifles-1"), "{out}");
    let out = s.ok(&["play", "rally", "--pick", "unit-action rifles-1", "action=fires on the farm"]);
    assert!(out.contains("fires on the farm"), "{out}");
    let out = s.ok(&["play", "rally", "--pick", "leader-action", "action=moves to the wall", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["events"][0]["body"]["decision"], json!({"type": "leader-action", "action": "moves to the wall"}));
    let out = s.ok(&["play", "rally", "--pick", "move", "piece=lt-adams", "to=10,20"]);
    assert!(out.contains("lt-adams"), "{out}");
    let out = s.ok(&["play", "rally", "--pick", "rally units=mortar,rifles-2"]);
    assert!(out.contains("rally"), "{out}");
    s.ok(&["verify", "rally"]);
    // The game is now the fixture's, decision for decision, up to its rally
    // (of the same two units, listed in the order of their ids).
    let mut fixture = fixture("leader-activation/rally.json");
    fixture["decisions"][6]["units"] = json!(["mortar", "rifles-2"]);
    let log = json_of(&s.run(&["log", "rally", "--json"]));
    let decisions: Vec<&Value> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "decision")
        .map(|e| &e["body"]["decision"])
        .collect();
    let expected: Vec<&Value> = fixture["decisions"].as_array().unwrap()[..7].iter().collect();
    assert_eq!(decisions, expected);
}

/// No such entry, a field missing, unknown or unreadable, a malformed
/// FIELD=VALUE, a side the game lacks, no decision at all: exit 2, a
/// message naming what is wrong, nothing written.
#[test]
fn play_pick_refuses_bad_input_with_exit_2_and_writes_nothing() {
    let s = Store::new();
    rally_after(&s, 2);
    let before = head(&s, "rally");
    let cases: &[(&[&str], &str)] = &[
        (&["--pick", "99"], "there is no decision 99: the list has"),
        (
            &["--pick", "command rifles-9"],
            "no decision listed is \"command rifles-9\" (did you mean \"command unit=rifles-1\"?)",
        ),
        (&["--pick", "leader-action"], "this decision needs action (text): give each as FIELD=VALUE"),
        (
            &["--pick", "leader-action", "action=x", "to=1,2"],
            "\"to\" is not a field of this decision (its fields: action)",
        ),
        (&["--pick", "move", "piece=nobody", "to=1,2"], "piece: \"nobody\" is not one of"),
        (&["--pick", "move", "piece=mortar", "to=north"], "to: \"north\" is not a point: write x,y"),
        (&["--pick", "leader-action", "moves"], "\"moves\": give a field of the picked decision as FIELD=VALUE"),
        (&["--pick", "1", "--side", "neutrals"], "--side neutrals: \"neutrals\" is not a side of this game"),
        (&[], "name a decision file (or - for standard input), or pick one of `rollcall moves rally` with --pick N"),
    ];
    for (args, needle) in cases {
        let out = s.run(&[&["play", "rally"], *args].concat());
        failed_with(&out, 2, needle);
        assert!(out.stdout.is_empty(), "{args:?}: {}", stdout(&out));
    }
    let out = s.run(&["play", "rally", "--pick", "99", "--json"]);
    assert_eq!(json_of(&out)["error"]["kind"], "input");
    // A usage clap refuses: --pick with --stream.
    failed_with(&s.run(&["play", "rally", "-", "--pick", "1", "--stream"]), 2, "cannot be used with");
    assert_eq!(head(&s, "rally"), before, "nothing was written");
}

/// A field's value the rules refuse (a move that stays in its hex) is a
/// refusal of the rules: exit 3, nothing written.
#[test]
fn play_pick_with_a_field_the_rules_refuse_exits_3_and_writes_nothing() {
    let s = Store::new();
    let mut script = fixture("formation-activation/two-chits.json");
    script["seed"] = json!({"mode": "open", "parties": [{"name": "nato", "share": "11".repeat(32)}, {"name": "warsaw-pact", "share": "22".repeat(32)}]});
    script["decisions"] = json!([{"type": "begin-turn"}]);
    let path = s.path_text("two-chits.json");
    std::fs::write(&path, script.to_string()).unwrap();
    s.ok(&["run", &path]);
    // Chits are drawn until a formation is active.
    for _ in 0..3 {
        if json_of(&s.run(&["moves", "two-chits", "--json"]))["side"].is_string() {
            break;
        }
        s.ok(&["play", "two-chits", "--pick", "draw-chit"]);
    }
    let listing = json_of(&s.run(&["moves", "two-chits", "--json"]));
    let moving = listing["groups"].as_array().unwrap().iter().find(|g| g["type"] == "move").expect("a unit may move");
    let entry = &moving["entries"][0];
    let unit = entry["decision"]["unit"].as_str().unwrap();
    let state = json_of(&s.run(&["state", "two-chits", "--json"]));
    let here = state["state"]["units"][unit]["hex"].as_str().unwrap().to_string();
    let before = head(&s, "two-chits");
    let out = s.run(&["play", "two-chits", "--pick", &entry["n"].to_string(), &format!("to={here}")]);
    failed_with(&out, 3, "a move ends in another hex (nothing was written)");
    assert_eq!(head(&s, "two-chits"), before);
}

/// In a table game the dice rolled by hand are a field of the decision
/// that draws them: `moves` says which, and `--pick` takes them.
#[test]
fn a_table_game_takes_the_dice_rolled_at_the_table_as_a_field() {
    let s = Store::new();
    let script = fixture("leader-activation/rally.json");
    let scenario = s.path_text("scenario.json");
    std::fs::write(&scenario, script["scenario"].to_string()).unwrap();
    s.ok(&["new", "--rules", "leader-activation@1", "--scenario", &scenario, "--table", "--game", "table"]);
    s.ok(&["play", "table", "--pick", "begin-turn first=allies"]);
    s.ok(&["play", "table", "--pick", "activate lt-adams"]);
    let text = s.ok(&["moves", "table"]);
    assert!(text.contains("give dice=… (JSON: the faces rolled, {\"rally\": [...]})"), "{text}");
    failed_with(&s.run(&["play", "table", "--pick", "rally mortar"]), 2, "this decision needs dice");
    let out = s.ok(&["play", "table", "--pick", "rally mortar", r#"dice={"rally": [6]}"#]);
    assert!(out.contains("6"), "{out}");
    let state = json_of(&s.run(&["state", "table", "--json"]));
    assert_eq!(state["state"]["pieces"]["mortar"]["broken"], false, "a 6 rallies the mortar (4+): {state:#}");
}
