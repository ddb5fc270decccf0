//! A fact read from a record's line without serde's buffering.
//!
//! A ruleset's `Fact` is an internally tagged enum, `{"type":"turn-began",…}`,
//! and serde reads such an enum by first buffering every member of the
//! object (its `Content`), since the tag may come anywhere: for `state FILE`,
//! which folds facts as they were written, that was nearly half its fold.
//! In a record the tag's place is known: a line is canonical, and a fact's
//! body is proved so as it is split ([`crate::record::fact_scanned`]), which
//! finds its `type` member on the way. The fact is then read in serde's
//! externally tagged form, `{"turn-began":{…the other members…}}`, which
//! serde reads straight into the variant. [`facts!`] declares that read
//! beside each ruleset's `Fact` enum, from the very same variants, so the two
//! reads cannot drift apart; the tagged read stays every other input's, and
//! has the last word on a fact the untagged read refuses.

use std::ops::Range;

/// A fact's canonical text, and where in it its `type` member is (when it
/// is a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FactText<'t> {
    text: &'t str,
    tag: Option<(usize, usize)>,
}

impl<'t> FactText<'t> {
    /// A fact's text whose `type` member's value (a string, quotes and all)
    /// stands at `tag` in it, if it has one.
    pub(crate) fn new(text: &'t str, tag: Option<Range<usize>>) -> FactText<'t> {
        FactText { text, tag: tag.map(|t| (t.start, t.end)) }
    }

    /// The fact as written: `{…,"type":"…",…}`.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The fact in serde's externally tagged form: `{"<type>":{…}}`, the
    /// object without its `type` member (and one comma beside it) inside an
    /// object keyed by the type's string as written. `None` when the fact
    /// has no `type` member that is a string.
    pub fn untagged(&self) -> Option<String> {
        let (start, end) = self.tag?;
        let text = self.text;
        let tag = &text[start..end];
        // `"type":` stands just before the value; one comma goes with it,
        // the one after it, or when it is the last member, the one before.
        let member = start.checked_sub(KEY.len()).filter(|&m| &text[m..start] == KEY && tag.starts_with('"'))?;
        let before = member.checked_sub(1).map(|b| text.as_bytes()[b]);
        let (cut_start, cut_end) = match (text.as_bytes().get(end), before) {
            (Some(b','), _) => (member, end + 1),
            (_, Some(b',')) => (member - 1, end),
            _ => (member, end),
        };
        let mut untagged = String::with_capacity(text.len() + 4);
        untagged.push('{');
        untagged.push_str(tag);
        untagged.push(':');
        untagged.push_str(&text[..cut_start]);
        untagged.push_str(&text[cut_end..]);
        untagged.push('}');
        Some(untagged)
    }
}

const KEY: &str = "\"type\":";

/// A ruleset's `Fact` read in serde's externally tagged form
/// ([`FactText::untagged`]); [`facts!`] declares it.
pub trait ReadUntagged: Sized {
    /// The fact `text` (`{"<type>":{…}}`) stands for; `None` when serde's
    /// externally tagged read refuses it.
    fn read_untagged(text: &str) -> Option<Self>;
}

/// Declares a ruleset's `Fact` enum as written, and beside it its
/// [`ReadUntagged`]: serde's externally tagged read of the same variants
/// (`#[serde(remote = "Fact")]`), their fields and their attributes, named
/// as the enum names them (`rename_all = "kebab-case"`) and refusing a
/// member no field takes (`deny_unknown_fields`), as the enum's own read
/// does. Every variant is a struct variant, as a fact's is.
macro_rules! facts {
    (
        $(#[$attr:meta])*
        pub enum Fact {
            $(
                $(#[$vattr:meta])*
                $variant:ident { $( $(#[$fattr:meta])* $field:ident : $fty:ty ),* $(,)? }
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        pub enum Fact {
            $( $(#[$vattr])* $variant { $( $(#[$fattr])* $field : $fty ),* } ),*
        }

        /// [`Fact`]'s variants read externally tagged ([`crate::untagged`]).
        #[derive(serde::Deserialize)]
        #[serde(remote = "Fact", rename_all = "kebab-case", deny_unknown_fields)]
        #[allow(dead_code)]
        enum UntaggedFact {
            $( $(#[$vattr])* $variant { $( $(#[$fattr])* $field : $fty ),* } ),*
        }

        impl $crate::untagged::ReadUntagged for Fact {
            fn read_untagged(text: &str) -> Option<Fact> {
                let mut read = serde_json::Deserializer::from_str(text);
                let fact = UntaggedFact::deserialize(&mut read).ok()?;
                read.end().ok().map(|()| fact)
            }
        }
    };
}

pub(crate) use facts;

#[cfg(test)]
mod tests {
    use std::fmt::Debug;

    use serde_json::Value;

    use super::*;
    use crate::record::{fact_scanned, Kind};
    use crate::ruleset::Ruleset;
    use crate::sim::{self, Generator, Simulation};

    fn at(text: &str) -> FactText<'_> {
        let start = text.find("\"type\":").map(|m| m + KEY.len());
        let end = start.map(|s| s + text[s + 1..].find('"').unwrap() + 2);
        FactText::new(text, start.zip(end).map(|(s, e)| s..e))
    }

    #[test]
    fn the_type_member_and_one_comma_beside_it_are_taken_out() {
        for (fact, untagged) in [
            (r#"{"a":1,"type":"x","z":2}"#, r#"{"x":{"a":1,"z":2}}"#),
            (r#"{"type":"x","z":2}"#, r#"{"x":{"z":2}}"#),
            (r#"{"a":1,"type":"x"}"#, r#"{"x":{"a":1}}"#),
            (r#"{"type":"x"}"#, r#"{"x":{}}"#),
        ] {
            assert_eq!(at(fact).untagged().as_deref(), Some(untagged), "{fact}");
        }
        // The type's string as written, escapes and all.
        let escaped = r#"{"a":"t","type":"x\"y"}"#;
        assert_eq!(FactText::new(escaped, Some(16..22)).untagged().as_deref(), Some(r#"{"x\"y":{"a":"t"}}"#));
        assert_eq!(at(r#"{"a":1}"#).untagged(), None);
        // A type that is not a string is left to the tagged read.
        assert_eq!(FactText::new(r#"{"type":1}"#, Some(8..9)).untagged(), None);
    }

    /// The facts of a few random games of `G`'s ruleset, as their text.
    fn facts_of<G: Generator>() -> Vec<String> {
        let mut facts = Vec::new();
        for version in <G::Ruleset as Ruleset>::versions() {
            for seed in 1..=2 {
                let header = G::header(seed, &version.id());
                let mut sim = Simulation::<G::Ruleset>::new(header, sim::play_rng(seed)).unwrap();
                let policy = sim::random_policy::<G>();
                while sim.game().decisions() < 200 && !G::over(sim.state()) {
                    let events = sim.step(&*policy).unwrap();
                    let bodies = events.into_iter().filter(|e| e.kind == Kind::Fact).map(|e| e.body["fact"].clone());
                    facts.extend(bodies.map(|fact| crate::canon::to_string(&fact).unwrap()));
                }
            }
        }
        facts
    }

    /// `fact` changed each way a record's could be while staying canonical:
    /// each member taken out, each value put as another, a member no
    /// variant has put first and last, the type put as another's.
    fn changed(fact: &str, types: &[String]) -> Vec<String> {
        let Ok(Value::Object(members)) = serde_json::from_str::<Value>(fact) else { panic!("{fact}") };
        let mut others: Vec<Value> = vec![
            Value::Null,
            0.into(),
            (-1).into(),
            u64::MAX.into(),
            "x".into(),
            true.into(),
            Value::Array(vec![]),
            Value::Array(vec!["x".into()]),
            serde_json::json!({"type": "x"}),
        ];
        others.extend(types.iter().map(|t| Value::from(t.as_str())));
        let mut changed = Vec::new();
        for key in members.keys() {
            let mut less = members.clone();
            less.remove(key);
            changed.push(Value::Object(less));
            for other in &others {
                let mut one = members.clone();
                one.insert(key.clone(), other.clone());
                changed.push(Value::Object(one));
            }
        }
        for extra in ["0", "~"] {
            let mut more = members.clone();
            more.insert(extra.into(), 1.into());
            changed.push(Value::Object(more));
        }
        changed.iter().map(|c| crate::canon::to_string(c).unwrap()).collect()
    }

    /// Each fact of `G`'s games, and each change of it, read untagged as
    /// it is read tagged: the same fact, or refused by both.
    fn read_alike<G: Generator>()
    where
        <G::Ruleset as Ruleset>::Fact: PartialEq + Debug,
    {
        let facts = facts_of::<G>();
        let mut types: Vec<String> =
            facts.iter().map(|f| serde_json::from_str::<Value>(f).unwrap()["type"].to_string()).collect();
        types.sort();
        types.dedup();
        let types: Vec<String> = types.iter().map(|t| serde_json::from_str::<String>(t).unwrap()).collect();
        assert!(types.len() >= 5, "{}: the games bring few kinds of fact: {types:?}", G::RULESET);
        let (mut read, mut refused) = (0, 0);
        let mut seen = std::collections::BTreeSet::new();
        for fact in &facts {
            if !seen.insert(fact.clone()) {
                continue;
            }
            for text in std::iter::once(fact.clone()).chain(changed(fact, &types)) {
                let body = format!("{{\"decision\":1,\"fact\":{text}}}");
                let scanned = fact_scanned(&body).unwrap_or_else(|| panic!("not canonical: {body}"));
                let tagged = serde_json::from_str::<<G::Ruleset as Ruleset>::Fact>(&text).ok();
                let untagged = scanned.untagged().and_then(|u| <G::Ruleset as Ruleset>::Fact::read_untagged(&u));
                assert_eq!(untagged, tagged, "{}: {text}", G::RULESET);
                if tagged.is_some() {
                    read += 1
                } else {
                    refused += 1
                }
            }
        }
        // Neither side holds vacuously.
        assert!(read > facts.len().min(seen.len()) && refused > read, "{}: {read} read, {refused} refused", G::RULESET);
    }

    #[test]
    fn leader_activation_facts_read_untagged_as_tagged() {
        read_alike::<sim::leader_activation::LeaderGames>();
    }

    #[test]
    fn phoenix_command_facts_read_untagged_as_tagged() {
        read_alike::<sim::phoenix_command::PhoenixGames>();
    }

    #[test]
    fn combat_hq_facts_read_untagged_as_tagged() {
        read_alike::<sim::combat_hq::CombatGames>();
    }

    #[test]
    fn formation_activation_facts_read_untagged_as_tagged() {
        read_alike::<sim::formation_activation::FormationGames>();
    }
}
