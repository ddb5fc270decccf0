//! The free fields of a listed decision, described so that a terminal menu
//! or a web page can prompt for them without knowing the ruleset: a name
//! (the decision's member), what it is for, its kind with unit and bounds
//! where the engine knows them, whether the referee gives it, and an
//! example the engine accepts.
//!
//! A [`Shape`] also says which values fit ([`Shape::fits`]: what a listed
//! family admits) and reads a value from the words a user types
//! ([`Shape::read`]: `120,40` for a point, `rifles-1,rifles-2` for several).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::DiceDrawn;
use crate::bounds::NUMBER_RANGE;
use crate::dice::Roll;

/// A member of a decision to fill in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Field {
    /// The decision's member ("to", "action").
    pub name: String,
    /// What it is, in words.
    pub about: String,
    pub shape: Shape,
    /// It must be given; otherwise it may be left out (the decision's
    /// default, said in `about`).
    pub required: bool,
    /// An input the engine cannot compute (where a figure ends up, the odds
    /// read from a table): the players' or the referee's word.
    pub referee: bool,
    /// A value with which the decision is accepted (none: left out).
    #[serde(default)]
    pub example: Option<Value>,
    /// Its choices are listed as proposed, not each tried with the
    /// example's other fields (another field depends on which are chosen).
    #[serde(skip)]
    pub keep_choices: bool,
}

/// One choice among several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Choice {
    pub value: Value,
    /// The choice in words ("rifles-1 (Elite, 84 mm away)").
    pub label: String,
}

/// One form an item of a list may take: its fixed members and its fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Form {
    pub item: Map<String, Value>,
    pub says: String,
    #[serde(default)]
    pub fields: Vec<Field>,
}

/// What a field holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Shape {
    /// Free text (no control characters).
    Text,
    /// Yes or no.
    Flag,
    /// A whole number in `min..=max`.
    Integer {
        min: i64,
        max: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unit: Option<String>,
    },
    /// A point on the table, `[x, y]`.
    Point { unit: String },
    /// A hex of the map: four digits, column then row ("0304").
    Hex,
    /// One of the choices.
    OneOf { choices: Vec<Choice> },
    /// A list of `min..=max` different choices.
    SomeOf { choices: Vec<Choice>, min: usize, max: usize },
    /// An object from some of the keys (figures) to a value each.
    EachOf { keys: Vec<Choice>, value: Box<Shape> },
    /// A list of `min..=max` items, each of one of the forms; with `once`,
    /// no two items have the same value of that member (one action per figure).
    ListOf {
        forms: Vec<Form>,
        min: usize,
        max: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        once: Option<String>,
    },
    /// Dice rolled by hand at the table: by label, the faces in order
    /// (`dice`: those the decision draws as listed; other values of its
    /// other fields may draw others).
    Dice { dice: Vec<DiceDrawn> },
    /// A value as the decision's JSON Schema gives it (`rules schema`):
    /// too free to describe here.
    Json,
}

impl Field {
    /// A required field.
    pub fn new(name: &str, about: impl Into<String>, shape: Shape, example: Value) -> Field {
        Field {
            name: name.into(),
            about: about.into(),
            shape,
            required: true,
            referee: false,
            example: Some(example),
            keep_choices: false,
        }
    }

    /// A field that may be left out (none: no example, left out).
    pub fn optional(name: &str, about: impl Into<String>, shape: Shape, example: Option<Value>) -> Field {
        Field {
            name: name.into(),
            about: about.into(),
            shape,
            required: false,
            referee: false,
            example,
            keep_choices: false,
        }
    }

    /// The same, as the referee's input (an outcome the engine cannot compute).
    pub fn by_referee(mut self) -> Field {
        self.referee = true;
        self
    }

    /// The same, its choices listed as proposed (see [`Field::keep_choices`]).
    pub fn keeping_choices(mut self) -> Field {
        self.keep_choices = true;
        self
    }

    /// The table dice of a decision in a table game: `example` from the faces a probe drew.
    pub(crate) fn table_dice(dice: &[DiceDrawn], rolls: &[Roll]) -> Field {
        let mut example = Map::new();
        for r in rolls {
            let faces = example.entry(r.label.clone()).or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(faces) = faces {
                faces.push(Value::from(r.value));
            }
        }
        Field {
            name: "dice".into(),
            about: "the dice rolled at the table for it, by label, in order".into(),
            shape: Shape::Dice { dice: dice.to_vec() },
            required: true,
            referee: false,
            example: Some(Value::Object(example)),
            keep_choices: true,
        }
    }

    /// Whether `value` fits the field.
    pub fn fits(&self, value: &Value) -> bool {
        self.shape.fits(value)
    }

    /// "to (a point in mm, x,y; the referee's)".
    pub fn words(&self) -> String {
        let whose = if self.referee { "; the referee's" } else { "" };
        let optional = if self.required { "" } else { "; may be left out" };
        format!("{} ({}{whose}{optional})", self.name, self.shape.words())
    }
}

/// An integer within `NUMBER_RANGE` (every decision's numbers lie there).
pub fn any_integer(unit: Option<&str>) -> Shape {
    Shape::Integer { min: NUMBER_RANGE.0, max: NUMBER_RANGE.1, unit: unit.map(str::to_string) }
}

/// Choices from values and labels.
pub fn choices<I, V, L>(items: I) -> Vec<Choice>
where
    I: IntoIterator<Item = (V, L)>,
    V: Into<Value>,
    L: Into<String>,
{
    items.into_iter().map(|(value, label)| Choice { value: value.into(), label: label.into() }).collect()
}

fn integer_in(value: &Value, min: i64, max: i64) -> bool {
    value.as_i64().is_some_and(|n| (min..=max).contains(&n))
}

fn is_point(value: &Value) -> bool {
    let within = |v: &Value| integer_in(v, NUMBER_RANGE.0, NUMBER_RANGE.1);
    value.as_array().is_some_and(|xy| xy.len() == 2 && xy.iter().all(within))
}

fn is_hex(value: &Value) -> bool {
    value.as_str().is_some_and(|s| s.len() == 4 && s.bytes().all(|b| b.is_ascii_digit()))
}

impl Shape {
    /// Whether `value` fits: what a listed family admits.
    pub fn fits(&self, value: &Value) -> bool {
        match self {
            Shape::Text => value.as_str().is_some_and(|s| !s.chars().any(char::is_control)),
            Shape::Flag => value.is_boolean(),
            Shape::Integer { min, max, .. } => integer_in(value, *min, *max),
            Shape::Point { .. } => is_point(value),
            Shape::Hex => is_hex(value),
            Shape::OneOf { choices } => choices.iter().any(|c| c.value == *value),
            Shape::SomeOf { choices, min, max } => value.as_array().is_some_and(|items| {
                let distinct = items.iter().enumerate().all(|(i, v)| !items[..i].contains(v));
                (*min..=*max).contains(&items.len())
                    && distinct
                    && items.iter().all(|v| choices.iter().any(|c| c.value == *v))
            }),
            Shape::EachOf { keys, value: each } => value.as_object().is_some_and(|map| {
                map.iter().all(|(k, v)| keys.iter().any(|c| c.value.as_str() == Some(k)) && each.fits(v))
            }),
            Shape::ListOf { forms, min, max, once } => value.as_array().is_some_and(|items| {
                let once_each = match once {
                    None => true,
                    Some(member) => {
                        let seen: Vec<&Value> = items.iter().filter_map(|i| i.get(member)).collect();
                        seen.iter().enumerate().all(|(i, v)| !seen[..i].contains(v))
                    }
                };
                (*min..=*max).contains(&items.len())
                    && once_each
                    && items.iter().all(|item| forms.iter().any(|f| f.fits(item)))
            }),
            // The dice listed are those of the example: other values of the
            // other fields may draw others, so any label fits here.
            Shape::Dice { .. } => value.as_object().is_some_and(|map| {
                map.values().all(|faces| faces.as_array().is_some_and(|f| f.iter().all(|v| integer_in(v, 0, i64::MAX))))
            }),
            Shape::Json => true,
        }
    }

    /// What it holds, in words: "a point in mm: x,y".
    pub fn words(&self) -> String {
        match self {
            Shape::Text => "text".into(),
            Shape::Flag => "yes or no".into(),
            Shape::Integer { min, max, unit } => {
                let unit = unit.as_ref().map(|u| format!(" {u}")).unwrap_or_default();
                if (*min, *max) == NUMBER_RANGE {
                    format!("a whole number{unit}")
                } else {
                    format!("a whole number{unit}, {min} to {max}")
                }
            }
            Shape::Point { unit } => format!("a point in {unit}: x,y"),
            Shape::Hex => "a hex: four digits CCRR".into(),
            Shape::OneOf { choices } => format!("one of {}", values(choices)),
            Shape::SomeOf { choices, min, max } => {
                let count = if min == max { format!("{min}") } else { format!("{min} to {max}") };
                format!("{count} of {}, comma-separated", values(choices))
            }
            Shape::EachOf { keys, value } => {
                format!("JSON: an object from some of {} to {} each", values(keys), value.words())
            }
            Shape::ListOf { min, max, .. } => format!("JSON: a list of {min} to {max} items"),
            Shape::Dice { dice } => {
                let labels: Vec<String> = dice.iter().map(|d| format!("\"{}\": [...]", d.label)).collect();
                format!("JSON: the faces rolled, {{{}}}", labels.join(", "))
            }
            Shape::Json => "JSON, as `rollcall rules schema` gives it".into(),
        }
    }

    /// Reads a value from what a user typed: a point as `x,y`, several
    /// choices comma-separated, a flag as yes/no; a list, an object or the
    /// table dice as JSON. The value read must fit.
    pub fn read(&self, text: &str) -> Result<Value, String> {
        let text = text.trim();
        let value = match self {
            Shape::Text => Value::String(text.to_string()),
            Shape::Flag => match text.to_ascii_lowercase().as_str() {
                "yes" | "y" | "true" | "on" => Value::Bool(true),
                "no" | "n" | "false" | "off" => Value::Bool(false),
                _ => return Err(format!("{text:?} is not yes or no")),
            },
            Shape::Integer { .. } => match text.parse::<i64>() {
                Ok(n) => Value::from(n),
                Err(_) => return Err(format!("{text:?} is not a whole number")),
            },
            Shape::Point { .. } => read_point(text)?,
            Shape::Hex | Shape::OneOf { .. } => read_choice(self, text),
            Shape::SomeOf { .. } => {
                let items: Vec<Value> =
                    text.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| read_choice(self, s)).collect();
                Value::Array(items)
            }
            Shape::EachOf { .. } | Shape::ListOf { .. } | Shape::Dice { .. } | Shape::Json => {
                serde_json::from_str(text).map_err(|e| format!("this field is JSON: {e}"))?
            }
        };
        if self.fits(&value) {
            Ok(value)
        } else {
            Err(format!("{text:?} is not {}", self.words()))
        }
    }
}

/// A choice by its value as typed (a number where the choices are numbers).
fn read_choice(shape: &Shape, text: &str) -> Value {
    let numbers = match shape {
        Shape::OneOf { choices } | Shape::SomeOf { choices, .. } => choices.iter().any(|c| c.value.is_number()),
        _ => false,
    };
    match text.parse::<i64>() {
        Ok(n) if numbers => Value::from(n),
        _ => Value::String(text.to_string()),
    }
}

fn read_point(text: &str) -> Result<Value, String> {
    let bare = text.trim_start_matches('[').trim_end_matches(']');
    let parts: Vec<&str> = bare.split(',').map(str::trim).collect();
    match parts.as_slice() {
        [x, y] => match (x.parse::<i64>(), y.parse::<i64>()) {
            (Ok(x), Ok(y)) => Ok(Value::Array(vec![x.into(), y.into()])),
            _ => Err(format!("{text:?} is not a point: write x,y in whole numbers")),
        },
        _ => Err(format!("{text:?} is not a point: write x,y in whole numbers")),
    }
}

/// The first few choices' values, for a prompt.
fn values(choices: &[Choice]) -> String {
    let shown: Vec<String> = choices
        .iter()
        .take(6)
        .map(|c| match &c.value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    let more = if choices.len() > 6 { format!(", … ({} in all)", choices.len()) } else { String::new() };
    if shown.is_empty() {
        "nothing".into()
    } else {
        format!("{}{more}", shown.join(", "))
    }
}

impl Form {
    /// A form of fixed members (a JSON object) and fields.
    pub fn new(item: Value, says: impl Into<String>, fields: Vec<Field>) -> Form {
        let item = match item {
            Value::Object(map) => map,
            other => panic!("a form is an object, not {other}"),
        };
        Form { item, says: says.into(), fields }
    }

    /// Whether `item` fits: its fixed members as given, every other member
    /// one of the fields and fitting it, every required field there.
    pub fn fits(&self, item: &Value) -> bool {
        members_fit(&self.item, &self.fields, item)
    }
}

/// Whether `value` (an object) has `fixed`'s members as they are, and
/// every other member a field it fits (`null` counting as left out), with
/// every required field given.
pub(crate) fn members_fit(fixed: &Map<String, Value>, fields: &[Field], value: &Value) -> bool {
    let Some(map) = value.as_object() else { return false };
    let fixed_as_given = fixed.iter().all(|(k, v)| map.get(k) == Some(v));
    let others_fit =
        map.iter().filter(|(k, _)| !fixed.contains_key(*k)).all(|(k, v)| match fields.iter().find(|f| f.name == *k) {
            Some(f) => (v.is_null() && !f.required) || f.fits(v),
            None => false,
        });
    let required_given = fields.iter().filter(|f| f.required).all(|f| map.get(&f.name).is_some_and(|v| !v.is_null()));
    fixed_as_given && others_fit && required_given
}
