//! The one strict JSON reader every input goes through: scripts, decisions
//! (`play`, `play --stream`), house rules, scenarios — and turn files.
//!
//! serde_json on its own accepts what a person did not mean: a key given
//! twice keeps its last value (`{"leader":"lt-adams","leader":"lt-vogel"}`
//! plays lt-vogel), and `from_slice` on a prefix ignores text after the
//! closing brace. Here both are errors, and so is text that is not UTF-8; each
//! error carries the line and column (or byte offset) and the field:
//!
//! ```
//! use rollcall_core::strict;
//!
//! let value = strict::parse(b"{\"type\": \"pass\"}\n").unwrap();
//! assert_eq!(value["type"], "pass");
//!
//! let twice = strict::parse(b"{\n  \"leader\": \"a\",\n  \"leader\": \"b\"\n}").unwrap_err();
//! assert_eq!((twice.line, twice.field.as_str()), (3, "leader"));
//!
//! let typed: Vec<u32> = strict::parse_as(b"[1, 2]").unwrap();
//! assert_eq!(typed, [1, 2]);
//! ```
//!
//! - [`parse`] reads bytes into a [`Value`];
//! - [`parse_as`] reads bytes into a typed structure (unknown fields are
//!   refused where the type says `deny_unknown_fields`);
//! - [`typed`] turns an already parsed value into a typed structure, naming
//!   the field and its line in the text it came from;
//! - [`Piece`] reads one value of a text read piece by piece, as strictly;
//! - [`utf8`] checks that bytes are UTF-8 text, naming the line and byte
//!   offset of the first that is not.
//!
//! Nesting deeper than serde_json's limit (128) is an error, not a stack
//! overflow.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Serialize;
use serde_json::{Map, Number, Value};

use crate::locate::line_of;

mod ignored;

/// Input that is not strict JSON, with where the trouble is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {field}: {message}")]
pub struct StrictError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column on that line, in bytes (0 when only the line is known).
    pub column: usize,
    /// The field at fault (`decisions[3].leader`), or `$` for the text as a whole.
    pub field: String,
    pub message: String,
}

impl StrictError {
    /// `FILE:LINE: FIELD: MESSAGE`, the form every input error takes.
    pub fn in_file(&self, file: &str) -> String {
        format!("{file}:{}: {}: {}", self.line, self.field, self.message)
    }
}

/// Checks that `bytes` are UTF-8 text; the error names the line and the byte
/// offset (from the start of the text, 0-based) of the first bad byte.
pub fn utf8(bytes: &[u8]) -> Result<&str, StrictError> {
    utf8_from(bytes, 1, 0)
}

/// [`utf8`] for a piece of a longer text (a line of a stream or a record)
/// that begins on line `first_line` at byte offset `first_offset`: the
/// error names the line and the offset in the whole text.
pub fn utf8_from(bytes: &[u8], first_line: usize, first_offset: u64) -> Result<&str, StrictError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let before = &bytes[..at];
        let line = first_line + before.iter().filter(|&&b| b == b'\n').count();
        let column = at - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        let offset = first_offset + at as u64;
        StrictError {
            line,
            column,
            field: "$".into(),
            message: format!(
                "not UTF-8 text: byte 0x{:02x} at byte offset {offset} (column {column}) is not part of a UTF-8 character",
                bytes[at]
            ),
        }
    })
}

/// serde_json's message without its ` at line L column C`: the error says
/// where itself.
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).map(str::to_string).unwrap_or(text)
}

/// Parses UTF-8 JSON text into a value, refusing duplicate keys, text after
/// the value, and bytes that are not UTF-8.
pub fn parse(bytes: &[u8]) -> Result<Value, StrictError> {
    let text = utf8(bytes)?;
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = ValueSeed { at: &Step::Root, duplicate: &duplicate }.deserialize(&mut de).map_err(|e| {
        let field = duplicate.borrow_mut().take().unwrap_or_else(|| "$".to_string());
        let what = without_position(&e);
        let message = if field == "$" { format!("not JSON: {what} (column {})", e.column()) } else { what };
        StrictError { line: e.line(), column: e.column(), field, message }
    })?;
    de.end().map_err(|e| StrictError {
        line: e.line(),
        column: e.column(),
        field: "$".into(),
        message: format!(
            "text after the end of the JSON value (column {}): one value per file, and nothing after it",
            e.column()
        ),
    })?;
    Ok(value)
}

/// Parses UTF-8 JSON text into `T` (see [`parse`] and [`typed`]).
pub fn parse_as<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, StrictError> {
    let value = parse(bytes)?;
    typed(bytes, &value, "")
}

/// Reads a parsed value as `T`. Errors name the field, prefixed with
/// `prefix` (`"rules."`), and the line it is on in `text`, the bytes the
/// value was parsed from.
pub fn typed<T: DeserializeOwned>(text: &[u8], value: &Value, prefix: &str) -> Result<T, StrictError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let field = match (prefix.trim_end_matches('.'), path.as_str()) {
            ("", ".") => "$".to_string(),
            (p, ".") => p.to_string(),
            _ => format!("{prefix}{path}"),
        };
        let line = line_of(&String::from_utf8_lossy(text), &field);
        StrictError { line, column: 0, field, message: e.into_inner().to_string() }
    })
}

/// The first field of `input` that `reread` (the same value read as a typed
/// structure and written back) does not have: a field the typed read
/// ignored. serde ignores every field of an internally tagged enum's unit
/// variant (`{"type":"pass","unit":"x"}` reads as `pass`), whatever
/// `deny_unknown_fields` says; comparing with the value written back finds
/// them, at any depth. `None` when every field was read.
pub fn ignored_field(input: &Value, reread: &Value) -> Option<String> {
    fn walk(input: &Value, reread: &Value, at: &Step<'_>) -> Option<String> {
        match (input, reread) {
            (Value::Object(given), Value::Object(kept)) => given.iter().find_map(|(key, value)| {
                let here = Step::Key(at, key);
                match kept.get(key) {
                    None => Some(here.to_string()),
                    Some(back) => walk(value, back, &here),
                }
            }),
            (Value::Array(given), Value::Array(kept)) if given.len() == kept.len() => {
                given.iter().zip(kept).enumerate().find_map(|(i, (value, back))| walk(value, back, &Step::Index(at, i)))
            }
            _ => None,
        }
    }
    walk(input, reread, &Step::Root)
}

/// [`ignored_field`] of `input` and `typed`, the same value read as a typed
/// structure, without writing it back as a value: what the typed value
/// writes is compared with the input as it is written. (Anything that
/// comparison cannot tell — a map key that is not a string — is written
/// back as a value and compared as [`ignored_field`] compares it.)
pub fn ignored_field_of<T: Serialize + ?Sized>(input: &Value, typed: &T) -> Option<String> {
    match ignored::first(input, typed) {
        Ok(found) => found,
        Err(ignored::Refused) => {
            ignored_field(input, &serde_json::to_value(typed).expect("a value read from JSON writes back as JSON"))
        }
    }
}

/// One value of a longer JSON text that a reader takes piece by piece (a
/// script's decisions, one at a time): read as [`parse`] reads it, refusing
/// a key given twice. The error does not name the field: a reader that
/// needs it parses the whole text with [`parse`].
pub struct Piece;

impl<'de> DeserializeSeed<'de> for Piece {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        let duplicate = RefCell::new(None);
        ValueSeed { at: &Step::Root, duplicate: &duplicate }.deserialize(deserializer)
    }
}

/// Where a value is, for naming a duplicate key's field.
enum Step<'a> {
    Root,
    Key(&'a Step<'a>, &'a str),
    Index(&'a Step<'a>, usize),
}

impl fmt::Display for Step<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Root => Ok(()),
            Step::Key(Step::Root, key) => write!(f, "{key}"),
            Step::Key(parent, key) => write!(f, "{parent}.{key}"),
            Step::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

struct ValueSeed<'a> {
    at: &'a Step<'a>,
    duplicate: &'a RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let at = Step::Index(self.at, items.len());
            match seq.next_element_seed(ValueSeed { at: &at, duplicate: self.duplicate })? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = Step::Key(self.at, &key);
            if out.contains_key(&key) {
                let field = at.to_string();
                *self.duplicate.borrow_mut() = Some(field);
                return Err(de::Error::custom(format!(
                    "the key {key:?} is given twice in one object: which one was meant?"
                )));
            }
            let value = map.next_value_seed(ValueSeed { at: &at, duplicate: self.duplicate })?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_key_is_refused_naming_its_field_and_line() {
        let text = b"{\n  \"decisions\": [\n    {\"type\": \"activate\",\n     \"leader\": \"lt-adams\", \"leader\": \"lt-vogel\"}\n  ]\n}";
        let e = parse(text).unwrap_err();
        assert_eq!(e.field, "decisions[0].leader");
        assert_eq!(e.line, 4);
        assert!(e.message.contains("\"leader\" is given twice"), "{e}");
    }

    #[test]
    fn text_after_the_value_is_refused() {
        let e = parse(b"{\"a\": 1}\n\n} {\"b\": 2}").unwrap_err();
        assert_eq!((e.line, e.column, e.field.as_str()), (3, 1, "$"));
        assert!(e.message.starts_with("text after the end of the JSON value"), "{e}");
        // Whitespace after the value is fine.
        assert_eq!(parse(b"{\"a\": 1}\n\n").unwrap()["a"], 1);
    }

    #[test]
    fn a_syntax_error_names_its_line_and_column() {
        let e = parse(b"{\n  \"rules\": oops\n}").unwrap_err();
        assert_eq!((e.line, e.column, e.field.as_str()), (2, 12, "$"));
        assert_eq!(e.message, "not JSON: expected value (column 12)");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_refused_with_line_and_byte_offset() {
        let e = parse(b"{\n  \"game\": \"ab\xffcd\"\n}").unwrap_err();
        assert_eq!((e.line, e.column), (2, 14));
        assert!(e.message.contains("byte 0xff at byte offset 15 (column 14)"), "{e}");
        let e = utf8_from(b"ok\n\xc3(", 7, 100).unwrap_err();
        assert_eq!((e.line, e.column), (8, 1));
        assert!(e.message.contains("byte 0xc3 at byte offset 103 (column 1)"), "{e}");
    }

    #[test]
    fn keys_may_repeat_in_different_objects() {
        let v = parse(b"[{\"a\": 1}, {\"a\": 2, \"b\": {\"a\": 3}}]").unwrap();
        assert_eq!(v[1]["b"]["a"], 3);
    }

    #[test]
    fn nesting_beyond_the_limit_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        let e = parse(deep.as_bytes()).unwrap_err();
        assert!(e.message.contains("recursion limit"), "{e}");
    }

    #[test]
    fn a_field_the_typed_read_ignored_is_found_at_any_depth() {
        #[derive(serde::Serialize, serde::Deserialize)]
        #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
        enum Decision {
            Pass,
            Orders { orders: Vec<Decision> },
        }
        let read = |text: &str| {
            let input: Value = serde_json::from_str(text).unwrap();
            let decision: Decision = serde_json::from_value(input.clone()).expect("serde accepts it");
            ignored_field(&input, &serde_json::to_value(decision).unwrap())
        };
        assert_eq!(read(r#"{"type":"pass"}"#), None);
        assert_eq!(read(r#"{"type":"pass","unit":"x"}"#).as_deref(), Some("unit"));
        assert_eq!(
            read(r#"{"type":"orders","orders":[{"type":"pass"},{"type":"pass","by":1}]}"#).as_deref(),
            Some("orders[1].by")
        );
    }

    /// Every serde form a decision may take, and the ways a typed read
    /// keeps a field it does not write back.
    mod zoo {
        use std::collections::BTreeMap;

        #[derive(serde::Serialize, serde::Deserialize)]
        #[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
        pub enum Decision {
            Pass,
            Orders {
                orders: Vec<Decision>,
            },
            Move(Move),
            Note {
                #[serde(default, skip_serializing_if = "Option::is_none")]
                text: Option<String>,
                #[serde(default, skip_serializing_if = "Vec::is_empty")]
                tags: Vec<String>,
                #[serde(alias = "squads")]
                teams: Vec<u32>,
                plain: Option<u32>,
            },
            Routes {
                how: How,
                routes: BTreeMap<String, How>,
            },
        }

        #[derive(serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Move {
            pub unit: String,
            pub moves: BTreeMap<String, [i64; 2]>,
            pub how: How,
        }

        #[derive(serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum How {
            March,
            By(String),
            Along(u32, u32),
            Via {
                road: String,
                #[serde(default, skip_serializing_if = "is_false")]
                night: bool,
            },
        }

        fn is_false(b: &bool) -> bool {
            !b
        }
    }

    /// Both answers for `text`, when it reads as a decision of the zoo.
    fn both(text: &str) -> Option<(Option<String>, Option<String>)> {
        let input: Value = serde_json::from_str(text).unwrap();
        let decision: zoo::Decision = serde_json::from_value(input.clone()).ok()?;
        let written_back = serde_json::to_value(&decision).unwrap();
        Some((ignored_field_of(&input, &decision), ignored_field(&input, &written_back)))
    }

    /// Every value of `value` with one change of its shape: a key added to an
    /// object (sorting first, and last), a member set to null or removed, an
    /// item added to or removed from an array.
    fn changes(value: &Value) -> Vec<Value> {
        let mut out = Vec::new();
        match value {
            Value::Object(map) => {
                for extra in ["aa", "zz"] {
                    let mut changed = map.clone();
                    changed.insert(extra.into(), Value::from(1));
                    out.push(Value::Object(changed));
                }
                for (key, item) in map {
                    for v in [Value::Null, Value::Object(Map::new())] {
                        let mut changed = map.clone();
                        changed.insert(key.clone(), v);
                        out.push(Value::Object(changed));
                    }
                    let mut changed = map.clone();
                    changed.remove(key);
                    out.push(Value::Object(changed));
                    for inner in changes(item) {
                        let mut changed = map.clone();
                        changed.insert(key.clone(), inner);
                        out.push(Value::Object(changed));
                    }
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mut changed = items.clone();
                    changed.remove(i);
                    out.push(Value::Array(changed));
                    let mut changed = items.clone();
                    changed.push(item.clone());
                    out.push(Value::Array(changed));
                    for inner in changes(item) {
                        let mut changed = items.clone();
                        changed[i] = inner;
                        out.push(Value::Array(changed));
                    }
                }
            }
            _ => {}
        }
        out
    }

    #[test]
    fn the_field_found_as_written_is_the_one_found_written_back() {
        // More keys than fit the bits of a word.
        let many: Map<String, Value> = (0..70).map(|i| (format!("f{i:02}"), serde_json::json!([i, -i]))).collect();
        let many_routes: Map<String, Value> =
            (0..70).map(|i| (format!("r{i:02}"), serde_json::json!({"via": {"road": "r"}}))).collect();
        let bases = [
            serde_json::json!({"type": "pass"}),
            serde_json::json!({"type": "orders", "orders": [{"type": "pass"}, {"type": "orders", "orders": []}]}),
            serde_json::json!({"type": "move", "unit": "a", "moves": {"f1": [1, 2], "f2": [3, 4]}, "how": "march"}),
            serde_json::json!({"type": "move", "unit": "a", "moves": many, "how": {"by": "rail"}}),
            serde_json::json!({"type": "move", "unit": "a", "moves": {}, "how": {"along": [1, 2]}}),
            serde_json::json!({"type": "move", "unit": "a", "moves": {}, "how": {"via": {"road": "r", "night": true}}}),
            serde_json::json!({"type": "move", "unit": "a", "moves": {}, "how": {"via": {"road": "r", "night": false}}}),
            serde_json::json!({"type": "note", "text": "t", "tags": ["x"], "teams": [1], "plain": 2}),
            serde_json::json!({"type": "note", "text": null, "tags": [], "squads": [1], "plain": null}),
            serde_json::json!({"type": "routes", "how": {"via": {"road": "r"}}, "routes": {"a": "march", "b": {"by": "x"}}}),
            serde_json::json!({"type": "routes", "how": "march", "routes": many_routes}),
        ];
        let mut compared = 0;
        let mut found = 0;
        for base in &bases {
            let mut inputs = vec![base.clone()];
            inputs.extend(changes(base));
            for input in inputs {
                let text = input.to_string();
                if let Some((as_written, written_back)) = both(&text) {
                    assert_eq!(as_written, written_back, "{text}");
                    compared += 1;
                    found += usize::from(as_written.is_some());
                }
            }
        }
        // Enough of each to mean something.
        assert!(compared > 300 && found > 150, "{compared} read, {found} with an ignored field");
    }

    #[test]
    fn a_field_taken_but_not_written_back_is_ignored_too() {
        let read = |text: &str| both(text).map(|(as_written, _)| as_written);
        assert_eq!(read(r#"{"type":"note","teams":[],"plain":null}"#), Some(None));
        assert_eq!(read(r#"{"type":"note","text":null,"teams":[],"plain":null}"#), Some(Some("text".into())));
        assert_eq!(read(r#"{"type":"note","tags":[],"teams":[],"plain":1}"#), Some(Some("tags".into())));
        assert_eq!(read(r#"{"type":"note","squads":[],"plain":1}"#), Some(Some("squads".into())));
        assert_eq!(
            read(r#"{"type":"move","unit":"a","moves":{},"how":{"via":{"road":"r","night":false}}}"#),
            Some(Some("how.via.night".into()))
        );
        assert_eq!(
            read(r#"{"type":"orders","orders":[{"type":"pass"},{"type":"pass","by":1}]}"#),
            Some(Some("orders[1].by".into()))
        );
        // A map keyed by numbers is written back as a value, and compared so.
        let input = serde_json::json!({"1": {"type": "pass", "by": 1}, "2": {"type": "pass"}});
        let keyed: std::collections::BTreeMap<u32, zoo::Decision> = serde_json::from_value(input.clone()).unwrap();
        assert_eq!(ignored_field_of(&input, &keyed).as_deref(), Some("1.by"));
    }

    #[test]
    fn typed_names_the_field_with_its_prefix_and_line() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Rules {
            version: String,
        }
        let text = b"{\"rules\":\n {\"version\": \"x\",\n  \"option\": 1}}";
        let value = parse(text).unwrap();
        let e = typed::<Rules>(text, &value["rules"], "rules.").unwrap_err();
        assert_eq!(e.field, "rules.option");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("unknown field `option`"), "{e}");
    }
}
