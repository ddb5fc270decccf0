//! `rollcall rules decisions RULESET`: a ruleset's decisions, their fields
//! read from the decision schema, each with an example.

use rollcall_core::registry;
use rollcall_core::schema::{self};
use serde_json::{json, Map, Value};

use crate::fail::Fail;
use crate::output::Said;

/// One example of each decision type of each ruleset, in the ids of the
/// ruleset's template where it has them; a test decodes each with the
/// ruleset's own decoder and checks that every type has one.
const EXAMPLES: &[(&str, &[&str])] = &[
    (
        "leader-activation",
        &[
            r#"{"type": "begin-turn", "first": "axis"}"#,
            r#"{"type": "activate", "leader": "lt-adams"}"#,
            r#"{"type": "self-rally"}"#,
            r#"{"type": "command", "unit": "rifles-1"}"#,
            r#"{"type": "unit-action", "unit": "rifles-1", "action": "fires at gruppe-1"}"#,
            r#"{"type": "leader-action", "action": "moves to the wall"}"#,
            r#"{"type": "rally", "units": ["rifles-2"]}"#,
            r#"{"type": "end-activation"}"#,
            r#"{"type": "skip", "side": "axis"}"#,
            r#"{"type": "break", "piece": "rifles-2", "reason": "fails its morale test"}"#,
            r#"{"type": "lock-in-close-combat", "leader": "lt-vogel"}"#,
            r#"{"type": "free-from-close-combat", "leader": "lt-vogel"}"#,
            r#"{"type": "move", "piece": "lt-adams", "to": [10, 20]}"#,
            r#"{"type": "remove", "piece": "gruppe-1", "reason": "destroyed by rifles-1's fire"}"#,
        ],
    ),
    (
        "phoenix-command",
        &[
            r#"{"type": "begin-turn"}"#,
            r#"{"type": "strategic-move", "unit": "section", "moves": {"cpl-hart": [0, 130], "pte-ames": [20, 130]}}"#,
            r#"{"type": "contact", "unit": "section", "enemy": "pickets", "in_contact": true}"#,
            r#"{"type": "begin-operations"}"#,
            r#"{"type": "activate", "unit": "section"}"#,
            r#"{"type": "accumulate"}"#,
            r#"{"type": "pass"}"#,
            r#"{"type": "spend-cp"}"#,
            r#"{"type": "actions", "actions": [{"type": "move", "figure": "cpl-hart", "to": [0, 30]}, {"type": "hold", "figure": "pte-ames"}]}"#,
            r#"{"type": "stop"}"#,
            r#"{"type": "set-interrupt"}"#,
            r#"{"type": "sighted", "target": "section", "by": "pickets"}"#,
            r#"{"type": "interrupt", "by": "pickets", "fire": [{"figure": "pickets-1", "weapon": "ak47", "target": "pte-ames", "mode": "ragged", "odds": 5}]}"#,
            r#"{"type": "self-rally"}"#,
            r#"{"type": "steady-unit"}"#,
            r#"{"type": "rally"}"#,
            r#"{"type": "rally-panicked", "figure": "pte-bird"}"#,
            r#"{"type": "abandon"}"#,
            r#"{"type": "forced-rally", "figure": "pte-bird", "in_sight": ["pickets"]}"#,
            r#"{"type": "rout", "unit": "section", "moves": {"pte-bird": [40, -100]}, "reached_cover": true}"#,
            r#"{"type": "take-cover", "moves": {"pte-ames": [25, 10]}}"#,
            r#"{"type": "take-command"}"#,
            r#"{"type": "consolidate", "organisation": "section"}"#,
            r#"{"type": "detach", "units": ["section"]}"#,
            r#"{"type": "reorganise", "organisation": "platoon", "replaces": ["1st-squad", "2nd-squad"], "into": [{"id": "1st-squad", "leader": "sgt-ash", "teams": [{"id": "1a"}, {"id": "2a"}]}]}"#,
            r#"{"type": "command-check", "unit": "section", "reason": "the pickets open fire"}"#,
            r#"{"type": "brevet", "unit": "section", "leader": "pte-ames"}"#,
            r#"{"type": "melee-response", "escape": true, "escape_to": [20, 100]}"#,
            r#"{"type": "injury", "target": "pte-ames", "effect": "light-wound"}"#,
            r#"{"type": "casualty", "figure": "pte-bird", "effect": "killed", "reason": "hit by the pickets' fire"}"#,
        ],
    ),
    (
        "combat-hq",
        &[
            r#"{"type": "begin-turn", "first": "germans"}"#,
            r#"{"type": "pulse", "battle_group": "bg-hart", "number": 4, "orders": [{"do": "activate", "command_group": "a-coy", "units": ["a-1pl"]}, {"do": "enter", "command_group": "b-coy"}]}"#,
            r#"{"type": "enter-reserve", "command_group": "1-kp"}"#,
            r#"{"type": "end-turn"}"#,
            r#"{"type": "move", "unit": "a-1pl", "to_tenths": [170, 340]}"#,
        ],
    ),
    (
        "formation-activation",
        &[
            r#"{"type": "begin-turn"}"#,
            r#"{"type": "draw-chit"}"#,
            r#"{"type": "move", "unit": "t-72", "to": "0507"}"#,
            r#"{"type": "fire", "unit": "m1-a", "at": "0408"}"#,
            r#"{"type": "assault", "unit": "t-72", "at": "0404"}"#,
            r#"{"type": "end-activation"}"#,
            r#"{"type": "reaction-fire", "unit": "m1-a", "at": "0408"}"#,
            r#"{"type": "disrupt", "unit": "m1-a", "reason": "reaction fire from t-72"}"#,
            r#"{"type": "eliminate", "unit": "t-72", "reason": "destroyed by fire from m1-a"}"#,
            r#"{"type": "place", "unit": "m1-a", "hex": "0304"}"#,
            r#"{"type": "relocate", "unit": "m1-a", "to": "0305", "reason": "retreats from the assault"}"#,
        ],
    ),
];

/// The ruleset an argument names: `ruleset`, or a version of it
/// (`ruleset@version[+option…]`).
pub fn known_ruleset(arg: &str) -> Result<&'static str, Fail> {
    let id = arg.split(['@', '+']).next().unwrap_or(arg);
    registry::find(id).map(|info| info.id).map_err(|e| fail!("{e} (rollcall rules list names them)"))
}

/// The example of decision `kind` of `ruleset`, as written.
fn example(ruleset: &str, kind: &str) -> Option<&'static str> {
    let (_, examples) = EXAMPLES.iter().find(|(id, _)| *id == ruleset)?;
    examples
        .iter()
        .copied()
        .find(|text| serde_json::from_str::<Value>(text).expect("the examples are JSON")["type"] == kind)
}

/// One decision type as `rules decisions` shows it, read from the schema.
fn decision_rows(ruleset: &str) -> Vec<Value> {
    let schema = schema::decisions(ruleset).expect("every ruleset has a decision schema");
    let defs = schema.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let branches = schema["oneOf"].as_array().cloned().unwrap_or_default();
    branches
        .iter()
        .map(|branch| {
            let kind = branch["properties"]["type"]["const"].as_str().unwrap_or_default();
            let required: Vec<&str> =
                branch["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let fields: Vec<Value> = branch["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(name, _)| *name != "type")
                .map(|(name, field)| {
                    json!({"name": name, "type": type_name(field, &defs), "required": required.contains(&name.as_str()),
                        "description": field.get("description"), "default": field.get("default")})
                })
                .collect();
            json!({"type": kind, "description": branch.get("description"), "fields": fields,
                "example": example(ruleset, kind).map(|text| serde_json::from_str::<Value>(text).expect("JSON"))})
        })
        .collect()
}

/// A tagged union's tag and its values: the property every branch of its
/// `oneOf` fixes with a `const` (`"type"` for decisions, `"do"` for orders).
fn tagged(def: &Value) -> Option<(String, Vec<String>)> {
    let branches = def.get("oneOf")?.as_array()?;
    let first = branches.first()?.get("properties")?.as_object()?;
    let tag = first.iter().find(|(_, p)| p.get("const").is_some()).map(|(name, _)| name.clone())?;
    let forms: Option<Vec<String>> =
        branches.iter().map(|b| b["properties"][&tag]["const"].as_str().map(str::to_string)).collect();
    Some((tag, forms?))
}

/// A field's type in a few words: `string`, `integer`, `list of string`,
/// `[integer, integer]`, `one of "a", "b"`, or a named type's shape.
fn type_name(schema: &Value, defs: &Map<String, Value>) -> String {
    if let Some(name) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        return match defs.get(name) {
            Some(def) if tagged(def).is_some() => {
                let (tag, _) = tagged(def).unwrap_or_default();
                format!("{name} (an object by its \"{tag}\")")
            }
            Some(def) if def.get("properties").is_some() => format!("{name} (an object)"),
            Some(def) => format!("{name} ({})", type_name(def, defs)),
            None => name.to_string(),
        };
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        return format!("one of {}", choices.iter().map(Value::to_string).collect::<Vec<_>>().join(", "));
    }
    if let Some(constant) = schema.get("const") {
        return constant.to_string();
    }
    let constants: Vec<String> =
        schema["oneOf"].as_array().into_iter().flatten().filter_map(|o| o.get("const")).map(Value::to_string).collect();
    if !constants.is_empty() {
        return format!("one of {}", constants.join(", "));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let names: Vec<String> =
                options.iter().filter(|o| o["type"] != "null").map(|o| type_name(o, defs)).collect();
            return names.join(" or ");
        }
    }
    let kinds: Vec<&str> = match &schema["type"] {
        Value::String(kind) => vec![kind.as_str()],
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).filter(|k| *k != "null").collect(),
        _ => vec![],
    };
    match kinds.first().copied() {
        Some("array") if schema.get("minItems").is_some() && schema["minItems"] == schema["maxItems"] => {
            let item = type_name(&schema["items"], defs);
            let n = schema["minItems"].as_u64().unwrap_or(0) as usize;
            format!("[{}]", vec![item; n].join(", "))
        }
        Some("array") => format!("list of {}", type_name(&schema["items"], defs)),
        Some("object") => match schema.get("additionalProperties") {
            Some(values) if values.is_object() => format!("map of string to {}", type_name(values, defs)),
            _ => "object".to_string(),
        },
        Some(kind) => kind.to_string(),
        None => "any JSON".to_string(),
    }
}

/// `rollcall rules decisions RULESET [--json]`.
pub fn decisions(arg: &str) -> Result<Said, Fail> {
    let ruleset = known_ruleset(arg)?;
    let rows = decision_rows(ruleset);
    let types = named_types(ruleset);
    let mut lines = Vec::new();
    lines.push(format!(
        "{ruleset}: {} decision types (`rollcall rules schema {ruleset}.decision` has the JSON Schema)",
        rows.len()
    ));
    for row in &rows {
        lines.push(format!("\n{}", row["type"].as_str().unwrap_or_default()));
        if let Some(text) = row["description"].as_str() {
            lines.push(format!("  {}", text.replace('\n', " ")));
        }
        for field in row["fields"].as_array().into_iter().flatten() {
            let need = match (&field["required"], &field["default"]) {
                (Value::Bool(true), _) => "required".to_string(),
                (_, Value::Null) => "optional".to_string(),
                (_, default) => format!("optional, default {default}"),
            };
            let about =
                field["description"].as_str().map(|d| format!(": {}", d.replace('\n', " "))).unwrap_or_default();
            lines.push(format!(
                "  {:<16} {} ({need}){about}",
                field["name"].as_str().unwrap_or_default(),
                field["type"].as_str().unwrap_or_default()
            ));
        }
        let kind = row["type"].as_str().unwrap_or_default();
        lines.push(format!("  example: {}", example(ruleset, kind).unwrap_or("(none)")));
    }
    if !types.is_empty() {
        lines.push("\ntypes:".to_string());
    }
    for t in &types {
        let (name, about, shape) = (&t["name"], &t["description"], &t["shape"]);
        lines.push(format!(
            "  {}: {}\n      {}",
            name.as_str().unwrap_or_default(),
            about.as_str().unwrap_or_default(),
            shape.as_str().unwrap_or_default()
        ));
    }
    let json = json!({"ruleset": ruleset, "schema": format!("{ruleset}.decision"), "decisions": rows, "types": types});
    Ok(Said::done(lines, json))
}

/// The named types the decisions' fields use: what each is, and its shape.
fn named_types(ruleset: &str) -> Vec<Value> {
    let schema = schema::decisions(ruleset).expect("every ruleset has a decision schema");
    let Some(defs) = schema.get("$defs").and_then(Value::as_object) else { return Vec::new() };
    let mut out = Vec::new();
    for (name, def) in defs {
        let about = def["description"].as_str().unwrap_or_default().replace('\n', " ");
        let shape = match def.get("properties").and_then(Value::as_object) {
            _ if tagged(def).is_some() => {
                let (tag, forms) = tagged(def).unwrap_or_default();
                format!("an object whose \"{tag}\" is {}", forms.join(" | "))
            }
            Some(fields) => {
                let required: Vec<&str> =
                    def["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                let fields: Vec<String> = fields
                    .iter()
                    .map(|(field, schema)| {
                        let mark = if required.contains(&field.as_str()) { "" } else { "?" };
                        format!("{field}{mark}: {}", type_name(schema, defs))
                    })
                    .collect();
                format!("{{{}}}  (? optional)", fields.join(", "))
            }
            None => type_name(def, defs),
        };
        out.push(json!({"name": name, "description": about, "shape": shape}));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::scenario::template_text;
    use rollcall_core::ruleset::Refusal;

    /// Given each ruleset's template, when its examples are fed to the
    /// ruleset's own decoder, then each decodes; and every decision type of
    /// the schema has exactly one example.
    #[test]
    fn every_decision_type_has_one_example_the_ruleset_decodes() {
        for info in registry::all() {
            let scenario: Value = serde_json::from_str(template_text(info.id).expect("a template")).unwrap();
            let rules =
                registry::version(info.id).unwrap().resolve(&Default::default(), &Default::default(), "").unwrap();
            let machine = (info.load)(&scenario, &rules).unwrap_or_else(|e| panic!("{}: the template: {e}", info.id));
            let (_, examples) = EXAMPLES.iter().find(|(id, _)| *id == info.id).expect("examples");
            for text in *examples {
                let example: Value = serde_json::from_str(text).unwrap();
                if let Err(Refusal::Malformed { field, message }) = machine.author(&example) {
                    panic!("{}: the example {text} does not decode: {field}: {message}", info.id);
                }
            }
            let schema = schema::decisions(info.id).unwrap();
            let types: Vec<&str> = schema["oneOf"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["properties"]["type"]["const"].as_str().unwrap())
                .collect();
            let given: Vec<String> = examples
                .iter()
                .map(|t| serde_json::from_str::<Value>(t).unwrap()["type"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(given, types, "{}: one example per decision type, in the schema's order", info.id);
        }
    }

    /// Given a decision of the wrong shape, when decoded, then it is
    /// refused as malformed: the test above can fail.
    #[test]
    fn a_misspelt_example_would_not_decode() {
        let info = registry::find("leader-activation").unwrap();
        let scenario: Value = serde_json::from_str(template_text(info.id).unwrap()).unwrap();
        let rules = registry::version(info.id).unwrap().resolve(&Default::default(), &Default::default(), "").unwrap();
        let machine = (info.load)(&scenario, &rules).unwrap();
        let bad = serde_json::json!({"type": "command", "unti": "rifles-1"});
        assert!(matches!(machine.author(&bad), Err(Refusal::Malformed { .. })));
    }

    #[test]
    fn type_names_read_the_schema() {
        let defs: Map<String, Value> = serde_json::from_value(serde_json::json!({
            "Point": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
            "Mode": {"oneOf": [{"const": "aimed"}, {"const": "ragged"}]}
        }))
        .unwrap();
        let cases = [
            (serde_json::json!({"type": "string"}), "string"),
            (serde_json::json!({"type": ["integer", "null"]}), "integer"),
            (serde_json::json!({"type": "array", "items": {"type": "string"}}), "list of string"),
            (serde_json::json!({"$ref": "#/$defs/Point"}), "Point ([integer, integer])"),
            (serde_json::json!({"$ref": "#/$defs/Mode"}), "Mode (one of \"aimed\", \"ragged\")"),
            (serde_json::json!({"enum": ["a", "b"]}), "one of \"a\", \"b\""),
            (
                serde_json::json!({"type": "object", "additionalProperties": {"$ref": "#/$defs/Point"}}),
                "map of string to Point ([integer, integer])",
            ),
        ];
        for (schema, expected) in cases {
            assert_eq!(type_name(&schema, &defs), expected, "{schema}");
        }
    }
}
