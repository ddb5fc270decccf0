//! A fact or a decision read from a record's line without serde's buffering.
//!
//! A ruleset's `Fact` and `Decision` are internally tagged enums,
//! `{"type":"turn-began",…}`, and serde reads such an enum by first
//! buffering every member of the object (its `Content`), since the tag may
//! come anywhere: for `state FILE`, which folds facts as they were written,
//! that was nearly half its fold, and reading each decision a sixth of
//! verify's reader. In a record the tag's place is known: a line is
//! canonical, and the scan that proves a fact's body or finds a decision in
//! its line ([`crate::record::fact_scanned`], [`crate::canon::tagged_member`])
//! finds its `type` member on the way. It is then read in serde's externally
//! tagged form, `{"turn-began":{…the other members…}}`, which serde reads
//! straight into the variant. [`tagged_enum!`] declares that read beside
//! each ruleset's enum, from the very same variants, so the two reads
//! cannot drift apart; the tagged read stays every other input's, and has
//! the last word on a text the untagged read refuses.

use std::ops::Range;

/// A fact's or a decision's canonical text, and where in it its `type`
/// member is (when it is a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tagged<'t> {
    text: &'t str,
    tag: Option<(usize, usize)>,
}

impl<'t> Tagged<'t> {
    /// A fact's or decision's text whose `type` member's value (a string,
    /// quotes and all) stands at `tag` in it, if it has one.
    pub(crate) fn new(text: &'t str, tag: Option<Range<usize>>) -> Tagged<'t> {
        Tagged { text, tag: tag.map(|t| (t.start, t.end)) }
    }

    /// The text as written: `{…,"type":"…",…}`.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The text in serde's externally tagged form: `{"<type>":{…}}`, the
    /// object without its `type` member (and one comma beside it) inside an
    /// object keyed by the type's string as written. `None` when it has no
    /// `type` member that is a string.
    pub fn untagged(&self) -> Option<String> {
        let (start, end) = self.tag?;
        let text = self.text;
        let tag = text.get(start..end)?;
        // `"type":` stands just before the value; one comma goes with it,
        // the one after it, or when it is the last member, the one before.
        let member =
            start.checked_sub(KEY.len()).filter(|&m| text.get(m..start) == Some(KEY) && tag.starts_with('"'))?;
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

/// A ruleset's `Fact` or `Decision` read in serde's externally tagged
/// form ([`Tagged::untagged`]); [`tagged_enum!`] declares it.
pub trait ReadUntagged: Sized {
    /// What `text` (`{"<type>":{…}}`) stands for; `None` when serde's
    /// externally tagged read refuses it.
    fn read_untagged(text: &str) -> Option<Self>;
}

/// Declares a ruleset's internally tagged enum (its `Fact`, its
/// `Decision`) as written, and beside it its [`ReadUntagged`]: serde's
/// externally tagged read of the same variants (`#[serde(remote = …)]`,
/// which takes the enum's name as a string, given first), their fields
/// and their attributes, named as the enum names them (`rename_all =
/// "kebab-case"`) and refusing a member no field takes
/// (`deny_unknown_fields`), as the enum's own read does — but for a unit
/// variant, which serde's tagged read takes with members it ignores (a
/// decision so written then fails its round trip) and the untagged read
/// refuses: it is read as a struct variant of no fields.
macro_rules! tagged_enum {
    (
        $remote:literal;
        $(#[$attr:meta])*
        pub enum $name:ident {
            $( $(#[$vattr:meta])* $variant:ident $({ $($fields:tt)* })? ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        pub enum $name {
            $( $(#[$vattr])* $variant $({ $($fields)* })? ),*
        }

        const _: () = {
            /// The enum's variants read externally tagged ([`crate::untagged`]).
            #[derive(serde::Deserialize)]
            #[serde(remote = $remote, rename_all = "kebab-case", deny_unknown_fields)]
            #[allow(dead_code)]
            enum Untagged {
                // A unit variant read as a struct variant of no fields:
                // `{"<type>":{}}`, as its untagged form is written.
                $( $(#[$vattr])* $variant { $($($fields)*)? } ),*
            }

            impl $crate::untagged::ReadUntagged for $name {
                fn read_untagged(text: &str) -> Option<$name> {
                    let mut de = serde_json::Deserializer::from_str(text);
                    let value = Untagged::deserialize(&mut de).ok()?;
                    // Nothing after it but whitespace, as `from_str` demands.
                    de.end().ok().map(|()| value)
                }
            }
        };
    };
}

pub(crate) use tagged_enum;

#[cfg(test)]
mod tests {
    use std::fmt::Debug;

    use serde::de::DeserializeOwned;
    use serde_json::Value;

    use super::*;
    use crate::record::{fact_scanned, Kind};
    use crate::ruleset::Ruleset;
    use crate::sim::{self, Generator, Simulation};

    fn at(text: &str) -> Tagged<'_> {
        let start = text.find("\"type\":").map(|m| m + KEY.len());
        let end = start.map(|s| s + text[s + 1..].find('"').unwrap() + 2);
        Tagged::new(text, start.zip(end).map(|(s, e)| s..e))
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
        assert_eq!(Tagged::new(escaped, Some(16..22)).untagged().as_deref(), Some(r#"{"x\"y":{"a":"t"}}"#));
        assert_eq!(at(r#"{"a":1}"#).untagged(), None);
        // A type that is not a string is left to the tagged read.
        assert_eq!(Tagged::new(r#"{"type":1}"#, Some(8..9)).untagged(), None);
    }

    /// The facts and the decisions of a few random games of `G`'s
    /// ruleset (two of each of its versions), as their text.
    fn texts_of<G: Generator>() -> (Vec<String>, Vec<String>) {
        let (mut facts, mut decisions) = (Vec::new(), Vec::new());
        for version in <G::Ruleset as Ruleset>::versions() {
            for seed in 1..=2 {
                let header = G::header(seed, &version.id());
                let mut sim = Simulation::<G::Ruleset>::new(header, sim::play_rng(seed)).unwrap();
                let policy = sim::random_policy::<G>();
                while sim.game().decisions() < 200 && !G::over(sim.state()) {
                    for event in sim.step(&*policy).unwrap() {
                        let (texts, member) = match event.kind {
                            Kind::Fact => (&mut facts, "fact"),
                            Kind::Decision => (&mut decisions, "decision"),
                            _ => continue,
                        };
                        texts.push(crate::canon::to_string(&event.body[member]).unwrap());
                    }
                }
            }
        }
        (facts, decisions)
    }

    /// `fact` (a fact's or a decision's text) changed each way a record's
    /// could be while staying canonical:
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

    /// A text as a record's reader finds it, and its untagged form.
    type Found = (String, Option<String>);

    /// Each text, and each change of it, read untagged (its `type` found
    /// by `find`, as a record's reader finds it) as it is read tagged: the
    /// same fact or decision, or refused by both; but a unit variant's,
    /// which only the tagged read takes (`checked_text` then reads it so).
    fn read_alike<T: ReadUntagged + DeserializeOwned + serde::Serialize + PartialEq + Debug>(
        what: &str,
        texts: &[String],
        find: fn(&str) -> Option<Found>,
    ) {
        let mut types: Vec<String> =
            texts.iter().map(|f| serde_json::from_str::<Value>(f).unwrap()["type"].as_str().unwrap().into()).collect();
        types.sort();
        types.dedup();
        assert!(types.len() >= 4, "{what}: the games bring few kinds: {types:?}");
        let (mut read, mut refused) = (0, 0);
        let distinct: std::collections::BTreeSet<&String> = texts.iter().collect();
        for original in distinct {
            for (n, text) in std::iter::once(original.clone()).chain(changed(original, &types)).enumerate() {
                let (found, untagged) = find(&text).unwrap_or_else(|| panic!("{what}: not canonical: {text}"));
                assert_eq!(found, text);
                let tagged = serde_json::from_str::<T>(&text).ok();
                let untagged = untagged.and_then(|u| T::read_untagged(&u));
                match (&untagged, &tagged) {
                    (Some(_), _) => assert_eq!(untagged, tagged, "{what}: {text}"),
                    // A unit variant, which the tagged read takes with
                    // members it ignores (the round trip then refuses it).
                    (None, Some(read)) => {
                        let written = serde_json::to_value(read).unwrap();
                        assert_eq!(
                            written.as_object().map(|o| o.len()),
                            Some(1),
                            "{what}: read tagged, not untagged: {text}"
                        );
                    }
                    (None, None) => {}
                }
                // Every text a game wrote is read untagged.
                assert!(n > 0 || untagged.is_some(), "{what}: not read untagged: {text}");
                if tagged.is_some() {
                    read += 1;
                } else {
                    refused += 1;
                }
            }
        }
        // Neither side holds vacuously.
        assert!(refused > read && read > texts.len().min(100), "{what}: {read} read, {refused} refused");
    }

    /// [`read_alike`] for the facts and the decisions of `G`'s games.
    fn facts_and_decisions_read_alike<G: Generator>()
    where
        <G::Ruleset as Ruleset>::Fact: PartialEq + Debug,
        <G::Ruleset as Ruleset>::Decision: PartialEq + Debug,
    {
        let (facts, decisions) = texts_of::<G>();
        let fact = |text: &str| {
            let body = format!("{{\"decision\":1,\"fact\":{text}}}");
            fact_scanned(&body).map(|found| (found.text().to_string(), found.untagged()))
        };
        read_alike::<<G::Ruleset as Ruleset>::Fact>(&format!("{} facts", G::RULESET), &facts, fact);
        let decision = |text: &str| {
            let body = format!("{{\"by\":null,\"decision\":{text},\"number\":1}}");
            let found = crate::canon::tagged_member(&body, b"decision")?;
            Some((found.text().to_string(), found.untagged()))
        };
        read_alike::<<G::Ruleset as Ruleset>::Decision>(&format!("{} decisions", G::RULESET), &decisions, decision);
    }

    #[test]
    fn leader_activation_facts_and_decisions_read_untagged_as_tagged() {
        facts_and_decisions_read_alike::<sim::leader_activation::LeaderGames>();
    }

    #[test]
    fn phoenix_command_facts_and_decisions_read_untagged_as_tagged() {
        facts_and_decisions_read_alike::<sim::phoenix_command::PhoenixGames>();
    }

    #[test]
    fn combat_hq_facts_and_decisions_read_untagged_as_tagged() {
        facts_and_decisions_read_alike::<sim::combat_hq::CombatGames>();
    }

    #[test]
    fn formation_activation_facts_and_decisions_read_untagged_as_tagged() {
        facts_and_decisions_read_alike::<sim::formation_activation::FormationGames>();
    }
}
