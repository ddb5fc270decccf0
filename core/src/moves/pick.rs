//! Picking an entry of a listing — by its number, or by its words
//! (`command unit=rifles-1`, or the values alone: `command rifles-1`) — and
//! filling in its fields from what a user typed (`to=120,40`), into the
//! decision to send.

use serde_json::Value;

use super::{Entry, Listing};
use crate::proposal::form::members_fit;

/// Why nothing was picked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PickError {
    #[error("nothing is legal for {whom} now: there is nothing to pick")]
    NothingListed { whom: String },
    #[error("there is no decision {n}: the list has {count} (1 to {count})")]
    OutOfRange { n: usize, count: usize },
    #[error("no decision listed is {text:?}{}", near_words(.near))]
    NoMatch { text: String, near: Vec<String> },
    #[error("{text:?} is more than one decision listed: {}; give its number", .matches.join("; "))]
    Ambiguous { text: String, matches: Vec<String> },
}

fn near_words(near: &[String]) -> String {
    match near {
        [] => String::new(),
        some => format!(" (did you mean {}?)", some.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(" or ")),
    }
}

/// Why an entry's decision could not be made from what was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FillError {
    #[error("{name:?} is not a field of this decision ({})", fields_or_none(.fields))]
    UnknownField { name: String, fields: Vec<String> },
    #[error("{name} is given twice")]
    Twice { name: String },
    #[error("{name}: {message}")]
    Bad { name: String, message: String },
    #[error("this decision needs {}", .fields.join(", "))]
    Missing { fields: Vec<String> },
}

fn fields_or_none(fields: &[String]) -> String {
    if fields.is_empty() {
        "it has none: it is sent as listed".into()
    } else {
        format!("its fields: {}", fields.join(", "))
    }
}

/// Lower case, single spaces.
fn normal(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// `command unit=rifles-1` as `command rifles-1`.
fn values_only(pick: &str) -> String {
    pick.split(' ').map(|w| w.split_once('=').map_or(w, |(_, v)| v)).collect::<Vec<_>>().join(" ")
}

impl Listing {
    /// The entry numbered `n`, or whose words are `text`: its `pick`
    /// (`command unit=rifles-1`) or that with the values alone
    /// (`command rifles-1`), in any case.
    pub fn pick(&self, text: &str) -> Result<&Entry, PickError> {
        let count = self.len();
        if count == 0 {
            let whom = self.side.clone().unwrap_or_else(|| "the referee".into());
            return Err(PickError::NothingListed { whom });
        }
        if let Ok(n) = text.trim().parse::<usize>() {
            return self.entries().find(|e| e.n == n).ok_or(PickError::OutOfRange { n, count });
        }
        let wanted = normal(text);
        let matches: Vec<&Entry> = self
            .entries()
            .filter(|e| {
                let pick = normal(&e.pick);
                pick == wanted || values_only(&pick) == wanted
            })
            .collect();
        match matches.as_slice() {
            [one] => Ok(one),
            [] => Err(PickError::NoMatch { text: text.to_string(), near: self.near(&wanted) }),
            many => Err(PickError::Ambiguous {
                text: text.to_string(),
                matches: many.iter().map(|e| format!("{} {}", e.n, e.pick)).collect(),
            }),
        }
    }

    /// Entries whose words begin as `wanted` does (its first word, the
    /// decision type), for a suggestion.
    fn near(&self, wanted: &str) -> Vec<String> {
        let first = wanted.split(' ').next().unwrap_or_default();
        self.entries().filter(|e| normal(&e.pick).starts_with(first)).take(3).map(|e| e.pick.clone()).collect()
    }
}

impl Entry {
    /// Whether `decision` is this entry's: its fixed members as listed, and
    /// every other member one of its fields, fitting it (what a family with
    /// free fields admits).
    pub fn admits(&self, decision: &Value) -> bool {
        let Some(fixed) = self.decision.as_object() else { return false };
        members_fit(fixed, &self.fields, decision)
    }

    /// The decision to send: the listed one with `given` fields (name and
    /// value as typed) read into it. Every required field must be given;
    /// `defaults`: a field not given takes its example instead (for a UI
    /// that offers the example as the default).
    pub fn fill(&self, given: &[(String, String)], defaults: bool) -> Result<Value, FillError> {
        let mut decision = self.decision.clone();
        let names: Vec<String> = self.fields.iter().map(|f| f.name.clone()).collect();
        for (i, (name, text)) in given.iter().enumerate() {
            let Some(field) = self.fields.iter().find(|f| f.name == *name) else {
                return Err(FillError::UnknownField { name: name.clone(), fields: names });
            };
            if given[..i].iter().any(|(n, _)| n == name) {
                return Err(FillError::Twice { name: name.clone() });
            }
            let value = field.shape.read(text).map_err(|message| FillError::Bad { name: name.clone(), message })?;
            decision[name.as_str()] = value;
        }
        let mut missing = Vec::new();
        for f in &self.fields {
            if decision.get(&f.name).is_some() {
                continue;
            }
            match (&f.example, defaults, f.required) {
                (Some(example), true, _) => decision[f.name.as_str()] = example.clone(),
                (_, _, true) => missing.push(f.words()),
                _ => {}
            }
        }
        if !missing.is_empty() {
            return Err(FillError::Missing { fields: missing });
        }
        Ok(decision)
    }
}
