//! JSON Schemas of every file a user writes or reads: each ruleset's
//! scenarios, decisions, facts and scripts, house rules, the record's header
//! and event lines, play-by-email turn files, and the listing of the
//! decisions legal now (`moves --json`).
//!
//! They are generated from the very types serde reads those files with
//! (schemars honours serde's `tag`, `rename_all`, `default`,
//! `deny_unknown_fields` and `from`), as the deserializer sees them: a field
//! with a default is optional. `docs/schemas/` holds them, kept current by a
//! test; `rollcall rules schema` writes them.

use schemars::generate::SchemaSettings;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;

use crate::record::{EventV1, HeaderV1};
use crate::rules::HouseRules;
use crate::ruleset::Ruleset;
use crate::rulesets::{combat_hq, formation_activation, leader_activation, phoenix_command};
use crate::script::ScriptV1;

/// One published schema: its name (the file is `NAME.json`), what it
/// describes, and the schema.
#[derive(Debug, Clone)]
pub struct Published {
    pub name: String,
    pub about: String,
    pub schema: Value,
}

/// Every schema, in a stable order: the four of each ruleset (script,
/// scenario, decision, fact), then house rules, record lines, turn files
/// and the listing of legal decisions.
pub fn all() -> Vec<Published> {
    let mut out = Vec::new();
    out.extend(of_ruleset::<leader_activation::LeaderActivation>());
    out.extend(of_ruleset::<phoenix_command::PhoenixCommand>());
    out.extend(of_ruleset::<combat_hq::CombatHq>());
    out.extend(of_ruleset::<formation_activation::FormationActivation>());
    out.push(publish::<HouseRules>("house-rules", "a house-rules file: a base version, options, constants, a name"));
    out.push(publish::<HeaderV1>("record-header", "the first line of a record (.jsonl): game, rules, scenario, seed"));
    out.push(publish::<EventV1>("record-event", "every later line of a record: one event, its body by its kind"));
    out.push(publish::<crate::pbem::TurnFile>("turn-file", "a play-by-email turn file's JSON (inside its armour)"));
    out.push(publish::<crate::moves::Listing>(
        "moves",
        "the decisions legal now, as `rollcall moves --json` prints them and `GET /games/{id}/moves` answers",
    ));
    out
}

/// The schema named `name`, if there is one.
pub fn named(name: &str) -> Option<Published> {
    all().into_iter().find(|p| p.name == name)
}

/// A ruleset's decision schema: one `oneOf` branch per decision type.
pub fn decisions(ruleset: &str) -> Option<Value> {
    named(&format!("{ruleset}.decision")).map(|p| p.schema)
}

/// The generator every schema is made with: draft 2020-12, as serde
/// deserializes (a field with a default is not required).
fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().for_deserialize().into_generator()
}

fn publish<T: JsonSchema>(name: &str, about: &str) -> Published {
    let mut schema = generator().into_root_schema_for::<T>();
    schema.insert("title".into(), name.into());
    schema.insert("description".into(), capitalised(about).into());
    Published { name: name.into(), about: about.into(), schema: schema.to_value() }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The script, scenario, decision and fact schemas of ruleset `R`.
fn of_ruleset<R>() -> Vec<Published>
where
    R: Ruleset,
    R::Scenario: JsonSchema,
    R::Decision: JsonSchema,
    R::Fact: JsonSchema,
{
    let id = R::ID;
    vec![
        publish::<ScriptOf<R>>(&format!("{id}.script"), &format!("a {id} script: scenario, seed and decisions")),
        publish::<R::Scenario>(&format!("{id}.scenario"), &format!("a {id} scenario (`new --scenario`)")),
        publish::<R::Decision>(&format!("{id}.decision"), &format!("a {id} decision (`decide`)")),
        publish::<R::Fact>(&format!("{id}.fact"), &format!("a {id} fact, as a record's fact events hold it")),
    ]
}

/// A script of ruleset `R`: the script's own schema, with its scenario and
/// its decisions (each of which may carry its table dice) of `R`.
struct ScriptOf<R>(std::marker::PhantomData<R>);

impl<R> JsonSchema for ScriptOf<R>
where
    R: Ruleset,
    R::Scenario: JsonSchema,
    R::Decision: JsonSchema,
{
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("{}Script", R::ID).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut script = ScriptV1::json_schema(generator);
        let scenario = generator.subschema_for::<R::Scenario>();
        let mut decision = R::Decision::json_schema(generator);
        let dice = json_schema!({
            "description": "In a table game: the dice rolled by hand for this decision, by label.",
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "integer", "minimum": 0}}
        });
        for branch in decision.get_mut("oneOf").and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(properties) = branch.get_mut("properties").and_then(Value::as_object_mut) {
                properties.insert("dice".into(), dice.clone().to_value());
            }
        }
        if let Some(properties) = script.get_mut("properties").and_then(Value::as_object_mut) {
            properties.insert("scenario".into(), scenario.to_value());
            properties.insert("decisions".into(), json_schema!({"type": "array", "items": decision}).to_value());
        }
        script
    }
}

/// A hex of the map, as serde reads it (`TryFrom<String>`): four digits.
impl JsonSchema for formation_activation::Hex {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Hex".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A hex of the map, by its printed number: four digits CCRR, column then row (\"0304\").",
            "type": "string",
            "pattern": "^[0-9]{4}$"
        })
    }
}
