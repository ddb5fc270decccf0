//! What a ruleset proposes a side may decide now, and what it knows of a
//! decision before its dice fall: the words a listing of the decisions
//! legal now ([`crate::moves`]) is made of, and what a ruleset answers
//! [`crate::ruleset::Ruleset::proposals`] and
//! [`crate::ruleset::Ruleset::known`] with.
//!
//! A [`Proposal`] is a decision with the members that are fixed and the
//! free fields a player or the referee fills in ([`form`] describes every
//! kind of field); [`Known`] is what the facts of a decision say before any
//! die falls (a range, a cost, a target number). Nothing here judges
//! legality, or knows a game: `moves` tries each proposal on the game.

pub mod form;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use form::{Choice, Field, Form, Shape};

// ---------------------------------------------------------------------------
// What a ruleset proposes

/// A decision a ruleset proposes for the listing.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    /// The heading it is listed under, in the rules' words ("Command a
    /// unit"); one per decision type.
    pub group: &'static str,
    /// The decision's fixed members, `type` among them.
    pub decision: Map<String, Value>,
    /// One line in a wargamer's words: what it does, and to whom.
    pub says: String,
    /// The members a player or the referee fills in.
    pub fields: Vec<Field>,
    /// Examples to try in order, each the whole decision, when the fields'
    /// own examples may be refused (a reorganisation of one squad or of
    /// several); none: the fields' examples. The first accepted is listed.
    pub examples: Vec<Value>,
    /// What the facts tell (range, cost, target) holds whatever the fields
    /// say (an action's text): kept for a proposal with fields only then.
    pub known_whatever_the_fields: bool,
}

impl Proposal {
    /// A decision with no free field.
    pub fn new(group: &'static str, decision: Value, says: impl Into<String>) -> Proposal {
        let decision = match decision {
            Value::Object(map) => map,
            other => panic!("a proposal is a decision object, not {other}"),
        };
        Proposal {
            group,
            decision,
            says: says.into(),
            fields: Vec::new(),
            examples: Vec::new(),
            known_whatever_the_fields: false,
        }
    }

    /// The same, with a free field.
    pub fn with(mut self, field: Field) -> Proposal {
        self.fields.push(field);
        self
    }

    /// The same, with this whole decision as an example to try, in the
    /// order given, instead of the fields' own examples.
    pub fn example(mut self, decision: Value) -> Proposal {
        self.examples.push(decision);
        self
    }

    /// What its facts tell holds whatever its fields say.
    pub fn known_whatever_the_fields(mut self) -> Proposal {
        self.known_whatever_the_fields = true;
        self
    }

    /// The decision filled with its fields' examples.
    pub(crate) fn filled(&self) -> Value {
        let mut decision = self.decision.clone();
        for f in &self.fields {
            if let Some(example) = &f.example {
                decision.insert(f.name.clone(), example.clone());
            }
        }
        Value::Object(decision)
    }

    /// The examples to try, in order: the proposal's own, else the
    /// fields' examples, then each other choice of its first field of
    /// choices (a family is listed when any choice makes it legal). None
    /// when a one-of field has nothing to choose from.
    pub(crate) fn candidates(&self) -> Vec<Value> {
        if self.fields.iter().any(|f| matches!(&f.shape, Shape::OneOf { choices } if choices.is_empty())) {
            return Vec::new();
        }
        if !self.examples.is_empty() {
            return self.examples.clone();
        }
        let filled = self.filled();
        let mut out = vec![filled.clone()];
        let chosen = |f: &&Field| !f.keep_choices && matches!(f.shape, Shape::OneOf { .. } | Shape::SomeOf { .. });
        let Some(field) = self.fields.iter().find(chosen) else { return out };
        let each: Vec<Value> = match &field.shape {
            Shape::OneOf { choices } => choices.iter().map(|c| c.value.clone()).collect(),
            Shape::SomeOf { choices, min, .. } if *min <= 1 => {
                choices.iter().map(|c| Value::Array(vec![c.value.clone()])).collect()
            }
            _ => Vec::new(),
        };
        for value in each.into_iter().filter(|v| filled.get(&field.name) != Some(v)) {
            let mut other = filled.clone();
            other[field.name.as_str()] = value;
            out.push(other);
        }
        out
    }
}

// ---------------------------------------------------------------------------
// What the engine knows of a decision

/// What the facts of a decision say before any of its dice falls: read by
/// the ruleset from the facts a probe decided.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Known {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<Target>,
}

impl Known {
    /// What `self` and `other` agree on.
    pub(crate) fn agreed(self, other: &Known) -> Known {
        Known {
            range: self.range.filter(|r| other.range.as_ref() == Some(r)),
            cost: self.cost.filter(|c| other.cost.as_ref() == Some(c)),
            targets: self.targets.into_iter().filter(|t| other.targets.contains(t)).collect(),
        }
    }
}

/// A distance measured against a limit: a unit from its leader and the
/// unit's command range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Range {
    pub distance: u64,
    pub limit: u64,
    /// "mm", "tenths of an inch", "hexes".
    pub unit: String,
}

/// What a decision spends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Cost {
    pub amount: u32,
    /// "CP", "command dice", "Staff Orders".
    pub unit: String,
    /// What is left after it, when the facts say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<u32>,
}

/// A roll a decision makes against a number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Target {
    /// What the roll is for: "rally test", "command check of rifle-3".
    pub what: String,
    /// The dice rolled: "d6", "2d6", "d10".
    pub roll: String,
    pub needed: i64,
    pub passes: Passes,
}

/// How a roll meets its target number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Passes {
    /// The roll is the number or more ("3+").
    AtLeast,
    /// The roll is the number or less.
    AtMost,
    /// The roll is less than the number.
    Under,
}

impl Target {
    /// "3+ on a d6", "7 or less on 2d6", "under 9 on a d10".
    pub fn words(&self) -> String {
        let on = if self.roll.starts_with(|c: char| c.is_ascii_digit()) {
            self.roll.clone()
        } else {
            format!("a {}", self.roll)
        };
        match self.passes {
            Passes::AtLeast => format!("{}+ on {on}", self.needed),
            Passes::AtMost => format!("{} or less on {on}", self.needed),
            Passes::Under => format!("under {} on {on}", self.needed),
        }
    }
}

/// Dice a decision draws under one label: never a face, only what they are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiceDrawn {
    /// The label the dice are addressed by ("rally", "check:rifle-3").
    pub label: String,
    /// "d6", "d10", "pick of 5".
    pub die: String,
    /// Drawn however the dice fall (as far as the probes saw).
    pub min: u32,
    /// Drawn on some outcomes (the most the probes saw).
    pub max: u32,
}

impl DiceDrawn {
    /// "rally d6", "2 × morale:0304 d6", "up to 3 × hit:rifle-1 d10".
    pub fn words(&self) -> String {
        let count = match (self.min, self.max) {
            (1, 1) => String::new(),
            (a, b) if a == b => format!("{a} × "),
            (0, 1) => "maybe ".to_string(),
            (0, b) => format!("up to {b} × "),
            (a, b) => format!("{a}–{b} × "),
        };
        format!("{count}{} {}", self.label, self.die)
    }
}
