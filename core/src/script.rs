//! Scripts: a scenario, a seed and a list of decisions in one JSON file.
//!
//! How fixtures, bug reports and tests drive the engine:
//!
//! ```json
//! {
//!   "game": "skips",
//!   "rules": "leader-activation@1",
//!   "scenario": { … },
//!   "seed": {"mode": "open", "parties": [{"name": "allies", "share": "<64 hex>"}, …]},
//!   "decisions": [ {"type": "begin-turn", "first": "allies"}, … ]
//! }
//! ```
//!
//! `rules` is a version id, or an object: a version with option and constant
//! overrides (`{"version": …, "options": {…}, "constants": {…}}`), or a house
//! rules object (`{"name": …, "base": …, …}`). In a table game
//! (`"seed": {"mode": "table", "parties": [{"name": "allies"}, …]}`) each
//! decision that rolls carries its dice: `"dice": {"rally": [4]}`.
//!
//! Every error names the field and the line it is on.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::dice::TableDice;
use crate::game::Game;
use crate::locate::line_of;
use crate::record::{Event, Header, Party, SeedMode};
use crate::rules::{HouseRules, RuleVersion, Versions};
use crate::ruleset::{self, Registry};
use crate::seed::Share;
use crate::strict::{self, StrictError};

/// A script that cannot be played, with where the trouble is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {field}: {message}")]
pub struct ScriptError {
    pub line: usize,
    pub field: String,
    pub message: String,
}

impl From<StrictError> for ScriptError {
    fn from(e: StrictError) -> Self {
        ScriptError { line: e.line, field: e.field, message: e.message }
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScriptV1 {
    #[serde(default)]
    game: Option<String>,
    /// Read by [`RulesRef::from_value`], which knows which of its forms an
    /// object is meant to be.
    #[schemars(with = "RulesRef")]
    rules: Value,
    scenario: Value,
    seed: SeedRef,
    decisions: Vec<Value>,
    /// Free text for people: what the script shows.
    #[serde(default)]
    #[allow(dead_code)]
    about: Option<String>,
}

/// A reference to a rule version, as scripts and the CLI write it.
#[derive(Debug, Clone)]
pub enum RulesRef {
    Id(String),
    House(HouseRules),
    Version { version: String, options: BTreeMap<String, Value>, constants: BTreeMap<String, Value> },
}

/// `{"version": …, "options": {…}, "constants": {…}}`: nothing else.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct VersionRefV1 {
    version: String,
    #[serde(default)]
    options: BTreeMap<String, Value>,
    #[serde(default)]
    constants: BTreeMap<String, Value>,
}

impl RulesRef {
    /// Reads the `rules` of a script: a version id; an object with `name` or
    /// `base`, which is a house-rules object; any other object, which is a
    /// version with overrides. Each form refuses fields it does not have, so
    /// a typo (`"option"` for `"options"`) is an error, not a default.
    /// `text` is the script's text, for the line; `where_` prefixes fields.
    pub fn from_value(text: &[u8], value: &Value, where_: &str) -> Result<RulesRef, StrictError> {
        match value {
            Value::String(id) => Ok(RulesRef::Id(id.clone())),
            Value::Object(map) if map.contains_key("name") || map.contains_key("base") => {
                Ok(RulesRef::House(strict::typed(text, value, where_)?))
            }
            Value::Object(_) => {
                let v: VersionRefV1 = strict::typed(text, value, where_)?;
                Ok(RulesRef::Version { version: v.version, options: v.options, constants: v.constants })
            }
            other => {
                let field = where_.trim_end_matches('.').to_string();
                Err(StrictError {
                    line: line_of(&String::from_utf8_lossy(text), &field),
                    column: 0,
                    field,
                    message: format!(
                        "expected a version id (\"leader-activation@1\") or an object with \"version\", or house rules with \"name\" and \"base\"; found {other}"
                    ),
                })
            }
        }
    }

    /// The resolved rule version, looked up in `versions`; errors name the
    /// field under `where_`.
    pub fn resolve(&self, where_: &str, versions: &dyn Versions) -> Result<RuleVersion, (String, String)> {
        let none = BTreeMap::new();
        let (version, options, constants, name) = match self {
            RulesRef::Id(id) => (id, &none, &none, None),
            RulesRef::Version { version, options, constants } => (version, options, constants, None),
            RulesRef::House(h) => (&h.base, &h.options, &h.constants, Some(h.name.clone())),
        };
        let field = match self {
            RulesRef::House(_) => format!("{where_}base"),
            RulesRef::Version { .. } => format!("{where_}version"),
            RulesRef::Id(_) => where_.trim_end_matches('.').to_string(),
        };
        if let Some(c) = name.as_deref().and_then(crate::bounds::control_character) {
            return Err((format!("{where_}name"), format!("the name holds the control character {c}")));
        }
        let spec = versions.version(version).map_err(|e| (field, e.to_string()))?;
        let mut resolved = spec.resolve(options, constants, where_).map_err(|e| {
            let text = e.to_string();
            let field = text.split(':').next().unwrap_or("").to_string();
            (field, text.split_once(": ").map(|(_, m)| m.to_string()).unwrap_or(text))
        })?;
        resolved.name = name;
        Ok(resolved)
    }
}

/// The schema of the three forms [`RulesRef::from_value`] reads.
impl schemars::JsonSchema for RulesRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RulesRef".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let version = generator.subschema_for::<VersionRefV1>();
        let house = generator.subschema_for::<HouseRules>();
        schemars::json_schema!({
            "description": "A rule version: its id (\"leader-activation@1\"), a version with option and constant overrides, or house rules (an object with \"name\" and \"base\").",
            "anyOf": [{"type": "string", "description": "A version id: ruleset@version."}, version, house]
        })
    }
}

/// For JSON read elsewhere (the dice server's requests): the same forms as
/// [`RulesRef::from_value`], as strict; the error names the field under
/// `rules`.
impl<'de> Deserialize<'de> for RulesRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        RulesRef::from_value(b"", &value, "rules.")
            .map_err(|e| serde::de::Error::custom(format!("{}: {}", e.field, e.message)))
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct SeedRef {
    mode: SeedMode,
    parties: Vec<PartyRef>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct PartyRef {
    name: String,
    #[serde(default)]
    share: Option<String>,
}

/// A parsed script: its header and its decisions, each with its table dice.
#[derive(Debug, Clone)]
pub struct Script {
    pub header: Header,
    pub decisions: Vec<(Value, Option<TableDice>)>,
    text: String,
    /// The rulesets it was read with, which it is played under.
    registry: Registry,
}

/// Whether a game id is acceptable: 1–64 of `A–Z a–z 0–9 . _ -`.
pub fn valid_game_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !id.starts_with('.')
}

/// Why a game id is refused, said the same wherever one is given (a script,
/// `--game`, the dice server): `Err` for an id [`valid_game_id`] refuses.
pub fn check_game_id(id: &str) -> Result<(), String> {
    if valid_game_id(id) {
        Ok(())
    } else {
        Err(format!("{id:?} is not a game id: use 1–64 letters, digits, '.', '_' or '-', not starting with '.'"))
    }
}

/// Splits `"dice"` off a decision object: the rest is the ruleset's decision.
pub fn split_dice(mut decision: Value) -> Result<(Value, Option<TableDice>), (String, String)> {
    let dice = match decision.as_object_mut().and_then(|m| m.remove("dice")) {
        None => None,
        Some(d) => Some(
            serde_path_to_error::deserialize::<_, TableDice>(d)
                .map_err(|e| (format!("dice.{}", e.path()), e.inner().to_string()))?,
        ),
    };
    Ok((decision, dice))
}

impl Script {
    /// Parses a script (strictly: see [`crate::strict`]) of a ruleset in
    /// `registry`; `default_game` names the game if the script does not.
    pub fn parse(text: &str, default_game: &str, registry: &Registry) -> Result<Script, ScriptError> {
        Script::parse_bytes(text.as_bytes(), default_game, registry)
    }

    /// [`Script::parse`] from the file's bytes: bytes that are not UTF-8
    /// are an error naming their line and byte offset.
    pub fn parse_bytes(bytes: &[u8], default_game: &str, registry: &Registry) -> Result<Script, ScriptError> {
        let text = strict::utf8(bytes).map_err(ScriptError::from)?;
        let mut value = strict::parse(bytes)?;
        // An array of decisions is taken out rather than copied by the
        // header's typed read (any array of values reads as one); anything
        // else is left for that read to refuse.
        let taken = match value.get_mut("decisions") {
            Some(Value::Array(decisions)) => Some(std::mem::take(decisions)),
            _ => None,
        };
        let (header, wire) = Script::header(bytes, &value, default_game, registry)?;
        let wire = taken.unwrap_or(wire);
        let mut decisions = Vec::with_capacity(wire.len());
        for (i, d) in wire.into_iter().enumerate() {
            decisions.push(split_dice(d).map_err(|(f, m)| {
                let field = format!("decisions[{i}].{f}");
                ScriptError { line: line_of(text, &field), field, message: m }
            })?);
        }
        Ok(Script { header, decisions, text: text.to_string(), registry: *registry })
    }

    /// The header of the script `value` (parsed from `bytes`, which errors
    /// name lines in) and its decisions, not yet split from their dice.
    /// A reader that takes the decisions one at a time hands it the script
    /// with an empty `decisions` array.
    pub fn header(
        bytes: &[u8],
        value: &Value,
        default_game: &str,
        registry: &Registry,
    ) -> Result<(Header, Vec<Value>), ScriptError> {
        let err = |field: String, message: String| ScriptError {
            line: line_of(&String::from_utf8_lossy(bytes), &field),
            field,
            message,
        };
        let wire: ScriptV1 = strict::typed(bytes, value, "")?;
        let game = wire.game.unwrap_or_else(|| default_game.to_string());
        check_game_id(&game).map_err(|m| err("game".into(), m))?;
        let rules = RulesRef::from_value(bytes, &wire.rules, "rules.")?
            .resolve("rules.", registry)
            .map_err(|(f, m)| err(f, m))?;
        let parties = parties(&wire.seed).map_err(|(f, m)| err(f, m))?;
        let rules_hash = rules.hash();
        let header = Header {
            game,
            rules,
            rules_hash,
            scenario: wire.scenario,
            mode: wire.seed.mode,
            parties,
            sides: Vec::new(),
            server: None,
        };
        Game::open(header.clone(), registry).map_err(|e| match e {
            crate::game::OpenError::Scenario(s) => err(format!("scenario.{}", s.field), s.message),
            other => err("seed".into(), other.to_string()),
        })?;
        Ok((header, wire.decisions))
    }

    /// The rulesets the script was read with, which it is played under.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The error for decision `i` refused: its field and line in the script.
    pub fn refusal_error(&self, i: usize, refusal: ruleset::Refusal) -> ScriptError {
        let (field, message) = refusal_field(i, refusal);
        ScriptError { line: line_of(&self.text, &field), field, message }
    }

    /// Plays every decision from the start, handing each event to `sink`.
    /// The first refused decision is an error naming it and its line.
    pub fn play(&self, mut sink: impl FnMut(&Game, &Event)) -> Result<Game, ScriptError> {
        let mut game = Game::open(self.header.clone(), &self.registry).expect("checked by parse");
        for (i, (decision, dice)) in self.decisions.iter().enumerate() {
            let events = game.play(decision, dice.as_ref()).map_err(|refusal| self.refusal_error(i, refusal))?;
            for e in &events {
                sink(&game, e);
            }
        }
        Ok(game)
    }
}

/// The field (`decisions[3].leader`, or `decisions[3]` for the decision as
/// a whole) and the message of decision `i` refused.
pub fn refusal_field(i: usize, refusal: ruleset::Refusal) -> (String, String) {
    match refusal {
        ruleset::Refusal::Malformed { field, message } if field.is_empty() => (format!("decisions[{i}]"), message),
        ruleset::Refusal::Malformed { field, message } => (format!("decisions[{i}].{field}"), message),
        other => (format!("decisions[{i}]"), format!("refused: {}", refused_text(other))),
    }
}

/// The parties of a script's seed, each with its commitment; the error is a
/// field and a message.
fn parties(seed: &SeedRef) -> Result<Vec<Party>, (String, String)> {
    if seed.mode == SeedMode::Sealed {
        return Err((
            "seed.mode".into(),
            "a script draws its own dice (open) or takes them from the table: sealed dice come from a server (rollcall serve)".into(),
        ));
    }
    let mut parties = Vec::new();
    for (i, p) in seed.parties.iter().enumerate() {
        if p.name.is_empty() || crate::bounds::control_character(&p.name).is_some() {
            return Err((
                format!("seed.parties[{i}].name"),
                "a party's name is not empty and holds no control character".into(),
            ));
        }
        let share = match (&p.share, seed.mode) {
            (Some(hex), SeedMode::Open) => {
                Some(Share::from_hex(hex).map_err(|e| (format!("seed.parties[{i}].share"), e.to_string()))?)
            }
            (None, SeedMode::Open) => {
                return Err((
                    format!("seed.parties[{i}]"),
                    "an open game needs each party's 32-byte share, as 64 hex digits".into(),
                ))
            }
            (Some(_), SeedMode::Table) => {
                return Err((
                    format!("seed.parties[{i}].share"),
                    "a table game rolls real dice: its parties have no shares".into(),
                ))
            }
            (None, SeedMode::Table) => None,
            (_, SeedMode::Sealed) => unreachable!("refused above"),
        };
        parties.push(Party { name: p.name.clone(), commitment: share.map(|s| s.commitment()), share });
    }
    if parties.is_empty() {
        return Err(("seed.parties".into(), "a game needs at least one party".into()));
    }
    Ok(parties)
}

fn refused_text(refusal: ruleset::Refusal) -> String {
    match refusal {
        ruleset::Refusal::Violation(v) => v.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::check_game_id;

    #[test]
    fn a_game_id_is_refused_saying_what_an_id_is() {
        // Given the ids a script, --game or the dice server may be handed
        // When each is checked
        // Then a valid one passes, and every other is refused in the same words
        assert_eq!(check_game_id("rally-2.b_c"), Ok(()));
        for bad in ["", ".hidden", "two words", "../etc", &"x".repeat(65)] {
            let message = check_game_id(bad).unwrap_err();
            assert!(message.starts_with(&format!("{bad:?} is not a game id: ")), "{message}");
            assert!(message.ends_with("use 1–64 letters, digits, '.', '_' or '-', not starting with '.'"), "{message}");
        }
    }
}
