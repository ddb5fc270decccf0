//! [`Name`]: a name in a game — a side, a piece, an action, a reason —
//! shared rather than copied.
//!
//! A ruleset's state, its decisions and its facts hold the same few names
//! over and over: each fact names the leader or unit its decision named,
//! and deciding copies the parts of the state it changes. As `String`s,
//! leader activation's names were copied 14 times a decision in `diff`
//! (an allocation and a free each, a tenth of its instructions). A `Name`
//! is an `Arc<str>`: a copy is a count.
//!
//! It is written and read as a plain JSON string, and reads a string
//! straight into its one allocation (serde's own `Arc<str>` reads a
//! `String`, boxes it and copies it again).

use std::fmt;
use std::sync::Arc;

/// A shared, immutable string; see the module docs.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Name(Arc<str>);

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name(Arc::from(s))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(Arc::from(s))
    }
}

/// A name against a text (`name == "red-0"`).
impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

/// As the string's: a name prints in a test's failure as the text it is.
impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Name, E> {
                Ok(Name::from(s))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Name, E> {
                Ok(Name::from(s))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

impl schemars::JsonSchema for Name {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <String as schemars::JsonSchema>::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        <String as schemars::JsonSchema>::schema_id()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <String as schemars::JsonSchema>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::Name;

    /// A name is written, read, printed and compared as its text is.
    #[test]
    fn a_name_is_its_text() {
        let name = Name::from("red-0 \"quoted\" é");
        let json = serde_json::to_string(&name).unwrap();
        assert_eq!(json, serde_json::to_string("red-0 \"quoted\" é").unwrap());
        assert_eq!(serde_json::from_str::<Name>(&json).unwrap(), name);
        // From a reader (no borrowed text) as from a slice.
        assert_eq!(serde_json::from_reader::<_, Name>(json.as_bytes()).unwrap(), name);
        assert!(serde_json::from_str::<Name>("3").is_err());
        assert_eq!(format!("{name} {name:?}"), format!("{} {:?}", "red-0 \"quoted\" é", "red-0 \"quoted\" é"));
        assert!(name == "red-0 \"quoted\" é");
        let map: std::collections::BTreeMap<Name, u32> = [(Name::from("b"), 2), (Name::from("a"), 1)].into();
        assert_eq!(map.get("a"), Some(&1));
        assert_eq!(serde_json::to_string(&map).unwrap(), r#"{"a":1,"b":2}"#);
        assert_eq!(
            serde_json::to_value(schemars::schema_for!(Name)).unwrap()["type"],
            serde_json::to_value(schemars::schema_for!(String)).unwrap()["type"]
        );
    }
}
