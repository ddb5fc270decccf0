//! The published JSON Schemas (docs/schemas/) against the binary that makes
//! them and the files they describe: they are what `rollcall rules schema`
//! writes now; every fixture script, the pbem example's scenario and
//! decisions, and the records the fixtures make (header, events, facts)
//! validate against them (turn files: tests/pbem.rs); files the engine
//! refuses do not. Then the commands built on them: `rules decisions` and
//! `scenario template`; and `new` and `verify` given a script.

use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "support/binary.rs"]
mod binary;
use binary::{failed_with, root, stdout, Store};

const RULESETS: [&str; 4] = ["leader-activation", "phoenix-command", "combat-hq", "formation-activation"];

fn schemas_dir() -> PathBuf {
    root().join("docs/schemas")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// The validator of the published schema `name`.
fn validator(name: &str) -> jsonschema::Validator {
    let schema = read_json(&schemas_dir().join(format!("{name}.json")));
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}.json is not a valid schema: {e}"))
}

/// Every way `instance` breaks schema `name`, one line each (none: valid).
fn violations(name: &str, instance: &Value) -> Vec<String> {
    validator(name).iter_errors(instance).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

#[track_caller]
fn assert_valid(name: &str, instance: &Value, what: &str) {
    let errors = violations(name, instance);
    assert!(errors.is_empty(), "{what} does not validate against docs/schemas/{name}.json:\n{}", errors.join("\n"));
}

/// The ruleset of a script's `rules`: an id, a version object or house rules.
fn ruleset_of(rules: &Value) -> String {
    let id = match rules {
        Value::String(id) => id.as_str(),
        other => other.get("version").or(other.get("base")).and_then(Value::as_str).unwrap(),
    };
    id.split(['@', '+']).next().unwrap().to_string()
}

#[test]
fn the_published_schemas_are_what_the_binary_writes() {
    let store = Store::new();
    let fresh = store.path("schemas");
    store.ok(&["rules", "schema", "-o", fresh.to_str().unwrap()]);
    let names = |dir: &Path| {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
        names.sort();
        names
    };
    let refresh = "refresh them with `cargo run -q --bin rollcall -- rules schema -o docs/schemas` and review the diff";
    assert_eq!(
        names(&schemas_dir()),
        names(&fresh),
        "docs/schemas/ holds other files than the binary writes: {refresh}"
    );
    let mut stale = String::new();
    for name in names(&fresh) {
        let published = std::fs::read_to_string(schemas_dir().join(&name)).unwrap();
        let written = std::fs::read_to_string(fresh.join(&name)).unwrap();
        if published != written {
            let diff = similar::TextDiff::from_lines(&published, &written);
            stale.push_str(&format!(
                "{}",
                diff.unified_diff().context_radius(2).header(&format!("docs/schemas/{name}"), "rules schema")
            ));
        }
    }
    assert!(stale.is_empty(), "docs/schemas/ is stale: {refresh}\n{stale}");
}

#[test]
fn every_fixture_script_validates_against_its_rulesets_script_schema() {
    let mut scripts = Vec::new();
    json_files(&root().join("fixtures"), &mut scripts);
    assert!(scripts.len() > 40, "the fixtures are found ({} scripts)", scripts.len());
    let mut seen = std::collections::BTreeSet::new();
    for path in &scripts {
        let script = read_json(path);
        let ruleset = ruleset_of(&script["rules"]);
        assert_valid(&format!("{ruleset}.script"), &script, &path.display().to_string());
        assert_valid(&format!("{ruleset}.scenario"), &script["scenario"], &format!("{}: scenario", path.display()));
        seen.insert(ruleset);
    }
    assert_eq!(seen.len(), RULESETS.len(), "fixtures of every ruleset: {seen:?}");
}

#[test]
fn the_pbem_examples_scenario_and_decisions_validate() {
    let dir = root().join("examples/pbem");
    assert_valid("leader-activation.scenario", &read_json(&dir.join("scenario.json")), "examples/pbem/scenario.json");
    for name in ["allies-1.json", "allies-2.json", "axis-1.json", "axis-2.json"] {
        for (i, decision) in read_json(&dir.join(name)).as_array().unwrap().iter().enumerate() {
            assert_valid("leader-activation.decision", decision, &format!("examples/pbem/{name}[{i}]"));
        }
    }
}

/// A record of each ruleset, as `export` writes it: its header line
/// validates against record-header, every event line against record-event,
/// and every fact against the ruleset's fact schema.
#[test]
fn exported_records_validate_line_by_line() {
    let fixtures = [
        "leader-activation/rally.json",
        "phoenix-command/ambush.json",
        "combat-hq/showcase.json",
        "formation-activation/three-turns.json",
    ];
    for (ruleset, fixture) in RULESETS.iter().zip(fixtures) {
        let store = Store::new();
        let script = root().join("fixtures").join(fixture);
        // The game id is part of the seed: the script's own, or its file's stem.
        let game = read_json(&script)["game"].as_str().map(String::from);
        let game = game.unwrap_or_else(|| script.file_stem().unwrap().to_string_lossy().to_string());
        store.ok(&["run", script.to_str().unwrap()]);
        store.ok(&["export", &game, "-o", &store.path_text("g.jsonl")]);
        let text = std::fs::read_to_string(store.path("g.jsonl")).unwrap();
        let mut lines = text.lines();
        let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_valid("record-header", &header, &format!("{fixture}'s record header"));
        let mut facts = 0;
        for (n, line) in lines.enumerate() {
            let event: Value = serde_json::from_str(line).unwrap();
            assert_valid("record-event", &event, &format!("{fixture}'s record line {}", n + 2));
            if event["kind"] == "fact" {
                facts += 1;
                assert_valid(&format!("{ruleset}.fact"), &event["body"]["fact"], &format!("{fixture}: line {}", n + 2));
            }
        }
        assert!(facts > 0, "{fixture} makes facts");
    }
}

/// The schemas are no blanket `true`: what the engine refuses, they refuse.
#[test]
fn the_schemas_refuse_what_the_engine_refuses() {
    let script = read_json(&root().join("fixtures/leader-activation/rally.json"));
    let cases: Vec<(&str, Value)> = vec![
        ("an unknown decision type", serde_json::json!({"type": "teleport", "unit": "rifles-1"})),
        ("a misspelt field", serde_json::json!({"type": "command", "unti": "rifles-1"})),
        ("a missing field", serde_json::json!({"type": "rally"})),
        ("a wrong type", serde_json::json!({"type": "move", "piece": "lt-adams", "to": [1, 2, 3]})),
    ];
    for (what, decision) in cases {
        assert!(!violations("leader-activation.decision", &decision).is_empty(), "{what} passes the decision schema");
        let mut bad = script.clone();
        bad["decisions"].as_array_mut().unwrap().push(decision);
        assert!(!violations("leader-activation.script", &bad).is_empty(), "{what} passes the script schema");
    }
    let mut bad = script.clone();
    bad["scenario"]["units"][0]["skill"] = "heroic".into();
    assert!(!violations("leader-activation.script", &bad).is_empty(), "an unknown skill passes");
    bad = script.clone();
    bad["seed"]["mode"] = "sealed-ish".into();
    assert!(!violations("leader-activation.script", &bad).is_empty(), "an unknown seed mode passes");
    assert!(!violations("record-header", &script).is_empty(), "a script passes as a record header");
    let three_digits = serde_json::json!({"type": "move", "unit": "t-72", "to": "304"});
    assert!(!violations("formation-activation.decision", &three_digits).is_empty(), "a hex of three digits passes");
}

#[test]
fn rules_schema_lists_prints_and_refuses_an_unknown_name() {
    let store = Store::new();
    let list = store.ok(&["rules", "schema"]);
    for name in ["combat-hq.scenario", "house-rules", "record-header", "record-event", "turn-file"] {
        assert!(list.contains(name), "{name} is listed:\n{list}");
    }
    let printed: Value = serde_json::from_str(&store.ok(&["rules", "schema", "house-rules"])).unwrap();
    assert_eq!(printed, read_json(&schemas_dir().join("house-rules.json")));
    failed_with(&store.run(&["rules", "schema", "house-rule"]), 2, "no schema \"house-rule\"");
}

#[test]
fn rules_decisions_lists_every_type_of_the_schema_with_its_fields_and_an_example() {
    let store = Store::new();
    for ruleset in RULESETS {
        let listed: Value = serde_json::from_str(&store.ok(&["rules", "decisions", ruleset, "--json"])).unwrap();
        let schema = read_json(&schemas_dir().join(format!("{ruleset}.decision.json")));
        let types: Vec<&Value> =
            schema["oneOf"].as_array().unwrap().iter().map(|b| &b["properties"]["type"]["const"]).collect();
        let rows = listed["decisions"].as_array().unwrap();
        assert_eq!(
            rows.iter().map(|r| &r["type"]).collect::<Vec<_>>(),
            types,
            "{ruleset}: the schema's types, in order"
        );
        for row in rows {
            assert!(row["example"].is_object(), "{ruleset} {}: an example", row["type"]);
            assert_valid(
                &format!("{ruleset}.decision"),
                &row["example"],
                &format!("{ruleset}'s example {}", row["type"]),
            );
        }
    }
    let text = store.ok(&["rules", "decisions", "leader-activation"]);
    assert!(text.contains("rally\n  The active leader's rally at the end of his activation.\n  units            list of string (required)\n  example: {\"type\": \"rally\", \"units\": [\"rifles-2\"]}"), "{text}");
    assert!(text.contains("  to               Point ([integer, integer]) (required)"), "{text}");
    assert_eq!(
        store.ok(&["rules", "decisions", "leader-activation@1+natural-6-rallies"]),
        text,
        "a version names its ruleset"
    );
    let combat: Value = serde_json::from_str(&store.ok(&["rules", "decisions", "combat-hq", "--json"])).unwrap();
    let order = combat["types"].as_array().unwrap().iter().find(|t| t["name"] == "Order").unwrap();
    assert_eq!(order["shape"], "an object whose \"do\" is activate | enter", "{order}");
    failed_with(&store.run(&["rules", "decisions", "chess"]), 2, "chess");
}

#[test]
fn every_scenario_template_starts_a_game_and_validates() {
    let store = Store::new();
    for ruleset in RULESETS {
        let file = store.path_text(&format!("{ruleset}.json"));
        store.ok(&["scenario", "template", ruleset, "-o", &file]);
        assert_valid(&format!("{ruleset}.scenario"), &read_json(Path::new(&file)), &format!("the {ruleset} template"));
        let out = store.ok(&["new", "--rules", ruleset, "--scenario", &file, "--game", ruleset, "--json"]);
        let game: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(game["parties"].as_array().unwrap().len(), 2, "{ruleset}: both sides are parties: {out}");
        let printed = stdout(&store.run(&["scenario", "template", ruleset]));
        assert_eq!(printed, std::fs::read_to_string(&file).unwrap(), "{ruleset}: -o writes what stdout shows");
    }
}

#[test]
fn scenario_template_replaces_a_file_only_with_force() {
    let store = Store::new();
    let file = store.path_text("mine.json");
    std::fs::write(&file, "my own scenario").unwrap();
    failed_with(&store.run(&["scenario", "template", "combat-hq", "-o", &file]), 2, "--force");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "my own scenario", "nothing was written");
    store.ok(&["scenario", "template", "combat-hq", "-o", &file, "--force"]);
    assert_valid("combat-hq.scenario", &read_json(Path::new(&file)), "the replaced file");
}

#[test]
fn new_takes_the_scenario_of_a_script() {
    let store = Store::new();
    let script = root().join("fixtures/leader-activation/rally.json");
    store.ok(&[
        "new",
        "--rules",
        "leader-activation@1",
        "--scenario",
        script.to_str().unwrap(),
        "--game",
        "from-script",
    ]);
    let state = store.ok(&["state", "from-script"]);
    assert!(state.contains("carrier"), "the script's scenario is the game's:\n{state}");
}

#[test]
fn new_says_what_it_expected_naming_file_line_and_field() {
    let store = Store::new();
    let list = store.path_text("decisions.json");
    std::fs::write(&list, r#"[{"type": "pass"}]"#).unwrap();
    let out = store.run(&["new", "--rules", "leader-activation", "--scenario", &list]);
    failed_with(&out, 2, &format!("{list}:1: $: expected a leader-activation scenario (an object), or a script whose \"scenario\" is one; found a list"));
    failed_with(&out, 2, "rollcall scenario template leader-activation");
    let mut script = read_json(&root().join("fixtures/leader-activation/rally.json"));
    script["scenario"]["units"][1]["skill"] = "heroic".into();
    let text = serde_json::to_string_pretty(&script).unwrap();
    let line = text.lines().position(|l| l.contains("heroic")).unwrap() + 1;
    let bad = store.path_text("bad.json");
    std::fs::write(&bad, &text).unwrap();
    let out = store.run(&["new", "--rules", "leader-activation", "--scenario", &bad]);
    failed_with(&out, 2, &format!("{bad}:{line}: scenario.units[1].skill: unknown variant `heroic`"));
    assert!(!store.db().exists(), "nothing was written, not even a store");
}

#[test]
fn verify_and_diff_on_a_script_say_it_is_a_script() {
    let store = Store::new();
    let script = root().join("fixtures/leader-activation/rally.json");
    let script = script.to_str().unwrap();
    let expected = format!("{script} is a script, not a record: `rollcall run {script}` plays it");
    failed_with(&store.run(&["verify", script]), 2, &expected);
    failed_with(&store.run(&["verify", script, "--json"]), 2, &expected);
    failed_with(&store.run(&["diff", script, "--b", "+natural-6-rallies"]), 2, &expected);
    failed_with(&store.run(&["state", script]), 2, &expected);
}
