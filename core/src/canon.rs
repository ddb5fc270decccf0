//! Canonical bytes: the one serialisation of a JSON value that is hashed.
//!
//! Objects are written with their keys in byte order, no whitespace, strings
//! escaped as `serde_json` escapes them, and integers only. Floats are refused:
//! a record that hashes a float would hash whatever the platform rounded it to.
//! The writer sorts keys itself rather than trusting `serde_json::Map` to be a
//! `BTreeMap`, because a dependency turning on `preserve_order` would silently
//! change every hash.

use serde_json::Value;

use crate::untagged::Tagged;

pub(crate) mod typed;

/// A value that has no canonical form, with the path to the culprit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct CanonError {
    pub path: String,
    pub message: String,
}

/// The canonical bytes of `value`.
pub fn to_bytes(value: &Value) -> Result<Vec<u8>, CanonError> {
    let mut out = Vec::with_capacity(128);
    append(value, &mut out)?;
    Ok(out)
}

/// Appends the canonical bytes of `value` to `out` (on an error, `out` is
/// as it was).
pub fn append(value: &Value, out: &mut Vec<u8>) -> Result<(), CanonError> {
    let start = out.len();
    if fast(value, out).is_ok() {
        return Ok(());
    }
    // Only a value that has no canonical form gets here: write it again,
    // keeping the path this time, to name the culprit.
    out.truncate(start);
    let err = write(value, &mut Vec::new(), &mut String::from("$")).expect_err("the fast writer refused it");
    Err(err)
}

/// The writer of the inner loop: no allocation but `out`'s, no path kept.
/// The same bytes as [`write`], which names the culprit of an error.
fn fast(value: &Value, out: &mut Vec<u8>) -> Result<(), ()> {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => {
            if !(n.is_i64() || n.is_u64()) {
                return Err(());
            }
            // An integer `Number` serialises as its decimal digits.
            serde_json::to_writer(&mut *out, n).expect("a write to a Vec succeeds");
        }
        Value::String(s) => serde_json::to_writer(&mut *out, s).expect("a write to a Vec succeeds"),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                fast(item, out)?;
            }
            out.push(b']');
        }
        Value::Object(map) => {
            // The keys come sorted from a `BTreeMap`; sort them only if not.
            let sorted = map.keys().zip(map.keys().skip(1)).all(|(a, b)| a < b);
            let mut keys: Vec<&String> = Vec::new();
            if !sorted {
                keys = map.keys().collect();
                keys.sort();
            }
            out.push(b'{');
            let member = |i: usize, key: &String, item: &Value, out: &mut Vec<u8>| {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key).expect("a write to a Vec succeeds");
                out.push(b':');
                fast(item, out)
            };
            if sorted {
                for (i, (key, item)) in map.iter().enumerate() {
                    member(i, key, item, out)?;
                }
            } else {
                for (i, key) in keys.into_iter().enumerate() {
                    member(i, key, &map[key], out)?;
                }
            }
            out.push(b'}');
        }
    }
    Ok(())
}

/// Appends the canonical bytes of a typed value's JSON form to `out`,
/// written straight from it rather than through a [`Value`] (on an error,
/// `out` is as it was).
pub fn append_typed<T: serde::Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), CanonError> {
    let start = out.len();
    if typed::append(value, out).is_ok() {
        return Ok(());
    }
    // What the direct writer refuses goes through the value, which names
    // the culprit (or writes what the writer would not vouch for).
    out.truncate(start);
    let value = serde_json::to_value(value).map_err(|e| CanonError { path: "$".into(), message: e.to_string() })?;
    append(&value, out)
}

/// The canonical text of `value` (canonical bytes are always UTF-8).
pub fn to_string(value: &Value) -> Result<String, CanonError> {
    to_bytes(value).map(|bytes| String::from_utf8(bytes).expect("canonical JSON is UTF-8"))
}

/// The canonical text of any serialisable value, written straight from it
/// ([`append_typed`]): a header or an event line builds no JSON value.
pub fn of<T: serde::Serialize>(value: &T) -> Result<String, CanonError> {
    let mut out = Vec::with_capacity(256);
    append_typed(value, &mut out)?;
    Ok(String::from_utf8(out).expect("canonical JSON is UTF-8"))
}

/// Whether `text` is the canonical text of the JSON value it spells, read
/// without building the value: the check of the inner loop, where every
/// record line is read. Conservative: it answers `false` for anything it
/// does not know to be canonical (a key with an escape in it, nesting deeper
/// than serde_json reads), and the caller then takes the slow way — parse,
/// write the canonical bytes, compare — which names the fault, if any.
pub fn is_canonical(text: &str) -> bool {
    is_canonical_bytes(text.as_bytes())
}

/// [`is_canonical`] over bytes, which it proves UTF-8 text too: outside
/// its strings canonical text is ASCII, and a string with a byte past ASCII
/// is checked to be UTF-8.
pub(crate) fn is_canonical_bytes(bytes: &[u8]) -> bool {
    let mut at = 0;
    scan_value(bytes, &mut at, 0) && at == bytes.len()
}

/// The text of member `key`'s value in `object`, the canonical text of an
/// object ([`is_canonical_bytes`]); `None` when it has no such member.
pub(crate) fn member<'b>(object: &'b [u8], key: &[u8]) -> Option<&'b [u8]> {
    member_with(object, key, |_, _| {})
}

/// [`member`], handing each of the member's own members' key and value
/// text to `inner` as it is scanned, when its value is an object.
fn member_with<'b>(object: &'b [u8], key: &[u8], inner: impl FnMut(&'b [u8], &'b [u8])) -> Option<&'b [u8]> {
    if object.first() != Some(&b'{') {
        return None;
    }
    let mut at = 1;
    let mut inner = Some(inner);
    loop {
        let found = scan_string(object, &mut at)?;
        if object.get(at) != Some(&b':') {
            return None;
        }
        at += 1;
        let start = at;
        let scanned = match inner.take_if(|_| found == key && object.get(at) == Some(&b'{')) {
            // As `scan_value` scans an object one deep.
            Some(inner) => scan_object_with(object, &mut at, 1, inner),
            None => scan_value(object, &mut at, 1),
        };
        if !scanned {
            return None;
        }
        if found == key {
            return Some(&object[start..at]);
        }
        if object.get(at) != Some(&b',') {
            return None;
        }
        at += 1;
    }
}

/// [`member`] of an object's text, as text.
pub(crate) fn member_str<'b>(object: &'b str, key: &[u8]) -> Option<&'b str> {
    let found = member(object.as_bytes(), key)?;
    let start = found.as_ptr() as usize - object.as_ptr() as usize;
    object.get(start..start + found.len())
}

/// [`member_str`], and where the member's own `type` member's value is
/// when it is an object that has one (a decision in its event's body),
/// found in the same pass: [`Tagged`].
pub(crate) fn tagged_member<'b>(object: &'b str, key: &[u8]) -> Option<Tagged<'b>> {
    let mut tag = None;
    let found = member_with(object.as_bytes(), key, |key, value| {
        if key == b"type" {
            tag = Some((value.as_ptr() as usize, value.len()));
        }
    })?;
    let start = found.as_ptr() as usize - object.as_ptr() as usize;
    let text = object.get(start..start + found.len())?;
    let tag = tag.map(|(at, len)| at - found.as_ptr() as usize..at - found.as_ptr() as usize + len);
    Some(Tagged::new(text, tag))
}

/// serde_json's own recursion limit is 128.
const MAX_DEPTH: usize = 100;

fn scan_value(b: &[u8], at: &mut usize, depth: usize) -> bool {
    match b.get(*at) {
        Some(b'{') if depth < MAX_DEPTH => scan_object(b, at, depth),
        Some(b'[') if depth < MAX_DEPTH => scan_array(b, at, depth),
        Some(b'"') => scan_string(b, at).is_some(),
        Some(b't') => scan_literal(b, at, b"true"),
        Some(b'f') => scan_literal(b, at, b"false"),
        Some(b'n') => scan_literal(b, at, b"null"),
        Some(b'-' | b'0'..=b'9') => scan_integer(b, at),
        _ => false,
    }
}

fn scan_literal(b: &[u8], at: &mut usize, word: &[u8]) -> bool {
    let found = b[*at..].starts_with(word);
    *at += word.len();
    found
}

/// Members with keys in strictly increasing byte order (so no key twice),
/// no whitespace.
fn scan_object(b: &[u8], at: &mut usize, depth: usize) -> bool {
    scan_object_with(b, at, depth, |_, _| {})
}

/// [`scan_object`], handing each member's key and value text to `member`.
fn scan_object_with<'b>(b: &'b [u8], at: &mut usize, depth: usize, mut member: impl FnMut(&'b [u8], &'b [u8])) -> bool {
    let mut previous: Option<&[u8]> = None;
    scan_items(b, at, b'}', |b, at| {
        // A key with an escape sorts by what it unescapes to: the slow way.
        let Some(key) = scan_string(b, at).filter(|k| !k.contains(&b'\\')) else { return false };
        if previous.is_some_and(|p| p >= key) || b.get(*at) != Some(&b':') {
            return false;
        }
        previous = Some(key);
        *at += 1;
        let start = *at;
        let scanned = scan_value(b, at, depth + 1);
        if scanned {
            member(key, &b[start..*at]);
        }
        scanned
    })
}

/// [`is_canonical_bytes`] for an object, handing each of its own members'
/// key and value text to `member` as the scan goes (all of them only if
/// the object is canonical).
pub(crate) fn scan_members<'b>(object: &'b [u8], member: impl FnMut(&'b [u8], &'b [u8])) -> bool {
    scan_members_at(object, 0, member)
}

/// [`scan_members`] for an object nested `depth` deep in the value being
/// scanned (its members' own nesting counts from there).
pub(crate) fn scan_members_at<'b>(object: &'b [u8], depth: usize, member: impl FnMut(&'b [u8], &'b [u8])) -> bool {
    let mut at = 0;
    object.first() == Some(&b'{') && scan_object_with(object, &mut at, depth, member) && at == object.len()
}

fn scan_array(b: &[u8], at: &mut usize, depth: usize) -> bool {
    scan_items(b, at, b']', |b, at| scan_value(b, at, depth + 1))
}

/// An opening bracket, then items read by `item`, separated by `,`, up to
/// `close`.
fn scan_items<'b>(b: &'b [u8], at: &mut usize, close: u8, mut item: impl FnMut(&'b [u8], &mut usize) -> bool) -> bool {
    *at += 1;
    if b.get(*at) == Some(&close) {
        *at += 1;
        return true;
    }
    loop {
        if !item(b, at) {
            return false;
        }
        match b.get(*at) {
            Some(b',') => *at += 1,
            Some(&c) if c == close => {
                *at += 1;
                return true;
            }
            _ => return false,
        }
    }
}

/// The bytes a string holds as they are: printable ASCII (and DEL), but
/// not `"` or `\\`.
const PLAIN: [bool; 256] = {
    let mut plain = [false; 256];
    let mut c = 0x20;
    while c < 0x80 {
        plain[c] = c != b'"' as usize && c != b'\\' as usize;
        c += 1;
    }
    plain
};

/// A string as serde_json writes it: `"` and `\` escaped, the control
/// characters as `\b \f \n \r \t` or `\u00xx` (lowercase hex), nothing else
/// escaped. Hands back the bytes between the quotes.
fn scan_string<'b>(b: &'b [u8], at: &mut usize) -> Option<&'b [u8]> {
    if b.get(*at) != Some(&b'"') {
        return None;
    }
    *at += 1;
    let start = *at;
    let mut ascii = true;
    loop {
        // The common run first: printable ASCII, neither `"` nor `\\`.
        while b.get(*at).is_some_and(|&c| PLAIN[usize::from(c)]) {
            *at += 1;
        }
        match *b.get(*at)? {
            b'"' => {
                *at += 1;
                let text = &b[start..*at - 1];
                return (ascii || std::str::from_utf8(text).is_ok()).then_some(text);
            }
            b'\\' => match *b.get(*at + 1)? {
                b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => *at += 2,
                b'u' => {
                    let hex = b.get(*at + 2..*at + 6)?;
                    let digit = |c: u8| match c {
                        b'0'..=b'9' => Some(c - b'0'),
                        b'a'..=b'f' => Some(c - b'a' + 10),
                        _ => None,
                    };
                    if &hex[..2] != b"00" {
                        return None;
                    }
                    let code = digit(hex[2])? * 16 + digit(hex[3])?;
                    if code >= 0x20 || matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                        return None;
                    }
                    *at += 6;
                }
                _ => return None,
            },
            c if c < 0x20 => return None,
            c => {
                ascii &= c.is_ascii();
                *at += 1;
            }
        }
    }
}

/// An integer of the i64 or u64 range, as its shortest digits: no `-0`, no
/// leading zero, no fraction or exponent.
fn scan_integer(b: &[u8], at: &mut usize) -> bool {
    let negative = b[*at] == b'-';
    if negative {
        *at += 1;
    }
    let start = *at;
    while b.get(*at).is_some_and(u8::is_ascii_digit) {
        *at += 1;
    }
    let digits = &b[start..*at];
    if digits.is_empty() || digits.len() > 20 || (digits[0] == b'0' && (digits.len() > 1 || negative)) {
        return false;
    }
    if matches!(b.get(*at), Some(b'.' | b'e' | b'E')) {
        return false;
    }
    let magnitude = digits.iter().fold(0u128, |n, d| n * 10 + u128::from(d - b'0'));
    if negative {
        magnitude <= 1u128 << 63
    } else {
        magnitude <= u128::from(u64::MAX)
    }
}

fn write(value: &Value, out: &mut Vec<u8>, path: &mut String) -> Result<(), CanonError> {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.extend_from_slice(i.to_string().as_bytes());
            } else if let Some(u) = n.as_u64() {
                out.extend_from_slice(u.to_string().as_bytes());
            } else {
                return Err(CanonError {
                    path: path.clone(),
                    message: format!(
                        "{n} is not an integer; records hold integers only (distances in millimetres or tenths of an inch)"
                    ),
                });
            }
        }
        Value::String(s) => out.extend_from_slice(serde_json::to_string(s).expect("a string serialises").as_bytes()),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                write(item, out, path)?;
                path.truncate(len);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(serde_json::to_string(key).expect("a key serialises").as_bytes());
                out.push(b':');
                let len = path.len();
                path.push('.');
                path.push_str(key);
                write(&map[key], out, path)?;
                path.truncate(len);
            }
            out.push(b'}');
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A member found with its own `type` is the member [`member_str`]
    /// finds, in the same cases, and its type is its own, not a nested one's
    /// nor another member's.
    #[test]
    fn a_tagged_member_is_the_member_with_its_own_type_found() {
        // As deep as a canonical object may nest, and one deeper.
        let deep = |n: usize| format!(r#"{{"decision":{{"a":{}1{},"type":"x"}}}}"#, "[".repeat(n), "]".repeat(n));
        let (deepest, too_deep) = (deep(98), deep(99));
        for (object, tag) in [
            (r#"{"by":null,"decision":{"leader":"a","type":"activate"},"number":1}"#, Some(r#""activate""#)),
            (r#"{"by":{"type":"side"},"decision":{"a":{"type":"inner"},"b":[{"type":"y"}]},"type":"z"}"#, None),
            (r#"{"decision":{"type":1}}"#, Some("1")),
            (r#"{"decision":[{"type":"x"}]}"#, None),
            (r#"{"decision":"x"}"#, None),
            (r#"{"number":1}"#, None),
            (r#"{"decision":{"type":"x",}}"#, None),
            (deepest.as_str(), Some(r#""x""#)),
            (too_deep.as_str(), None),
        ] {
            let found = tagged_member(object, b"decision");
            assert_eq!(found.map(|f| f.text()), member_str(object, b"decision"), "{object}");
            let read = found.and_then(|f| f.untagged().map(|_| f));
            let at = read.map(|f| {
                let untagged = f.untagged().unwrap();
                untagged[1..].split_once(":{").map(|(tag, _)| tag.to_string()).unwrap()
            });
            match tag {
                Some("1") => assert_eq!(found.and_then(|f| f.untagged()), None, "a type not a string"),
                _ => assert_eq!(at.as_deref(), tag, "{object}"),
            }
        }
    }

    /// Every shape serde gives a typed value, written straight and through
    /// its JSON value: the same bytes.
    #[test]
    fn a_typed_value_is_written_as_its_json_value_is() {
        use serde::Serialize;
        use std::collections::BTreeMap;
        #[derive(Serialize)]
        #[serde(tag = "type", rename_all = "kebab-case")]
        enum Tagged {
            UnitMoved { unit: String, to: (i32, i32), why: Option<String> },
            Nothing,
        }
        #[derive(Serialize)]
        enum External {
            Plain,
            New(u8),
            Pair(u8, i64),
            Fields { z: bool, a: Vec<u32> },
        }
        #[derive(Serialize)]
        struct Unsorted {
            zulu: u64,
            alpha: Vec<Tagged>,
            mike: External,
            #[serde(skip_serializing_if = "Option::is_none")]
            skipped: Option<u8>,
            map: BTreeMap<String, i64>,
            #[serde(flatten)]
            flat: BTreeMap<String, bool>,
            text: &'static str,
            ch: char,
            wrapped: Wrapped,
            unit: (),
        }
        #[derive(Serialize)]
        struct Wrapped(i8);
        let value = Unsorted {
            zulu: u64::MAX,
            alpha: vec![
                Tagged::UnitMoved { unit: "u1".into(), to: (-3, 4), why: None },
                Tagged::UnitMoved { unit: "é\"\n".into(), to: (0, 0), why: Some("tab\t ☃".into()) },
                Tagged::Nothing,
            ],
            mike: External::Fields { z: true, a: vec![1, 2] },
            skipped: None,
            map: [("b".to_string(), -1), ("a".to_string(), i64::MIN), ("".to_string(), 0)].into_iter().collect(),
            flat: [("beta".to_string(), true), ("aardvark".to_string(), false)].into_iter().collect(),
            text: "nul\u{0} \u{1f}",
            ch: '"',
            wrapped: Wrapped(-7),
            unit: (),
        };
        let through_value = |v: &dyn erased::Ser| to_bytes(&v.value()).unwrap();
        mod erased {
            pub trait Ser {
                fn value(&self) -> serde_json::Value;
                fn typed(&self, out: &mut Vec<u8>) -> Result<(), super::CanonError>;
                fn direct(&self, out: &mut Vec<u8>) -> bool;
            }
            impl<T: serde::Serialize> Ser for T {
                fn value(&self) -> serde_json::Value {
                    serde_json::to_value(self).unwrap()
                }
                fn typed(&self, out: &mut Vec<u8>) -> Result<(), super::CanonError> {
                    super::append_typed(self, out)
                }
                fn direct(&self, out: &mut Vec<u8>) -> bool {
                    super::typed::append(self, out).is_ok()
                }
            }
        }
        let cases: Vec<Box<dyn erased::Ser>> = vec![
            Box::new(value),
            Box::new(External::Plain),
            Box::new(External::New(3)),
            Box::new(External::Pair(1, -1)),
            Box::new(Vec::<u8>::new()),
            Box::new(BTreeMap::<String, u8>::new()),
            Box::new(serde_json::json!({"z": {"y": [1, {"b": 2, "a": 1}]}, "a": null})),
        ];
        for case in &cases {
            let mut out = b"kept".to_vec();
            case.typed(&mut out).unwrap();
            assert_eq!(String::from_utf8_lossy(&out[4..]), String::from_utf8_lossy(&through_value(case.as_ref())));
            // The direct writer took it, without the slow way.
            let mut direct = Vec::new();
            assert!(case.direct(&mut direct));
            assert_eq!(direct, out[4..]);
        }
        // What the direct writer refuses, the slow way writes or names.
        let mut out = b"kept".to_vec();
        assert!(append_typed(&[1.5f64], &mut out).is_err());
        assert_eq!(out, b"kept");
        let keyed: BTreeMap<u32, bool> = [(2, true), (10, false)].into_iter().collect();
        let mut out = Vec::new();
        append_typed(&keyed, &mut out).unwrap();
        assert_eq!(out, br#"{"10":false,"2":true}"#);
    }

    proptest::proptest! {
        /// Any string (a control character, a quote, a backslash, any
        /// Unicode) as a value and as a map's key, and integers of every
        /// width at any value: the direct writer writes what serde_json's
        /// value writes, with or without its fast ways.
        #[test]
        fn any_string_or_integer_is_written_as_serde_json_writes_it(
            text in proptest::prelude::any::<String>(),
            key in proptest::prelude::any::<String>(),
            // Short and long strings of the bytes at the edges of what is
            // escaped, at every place in a word of eight.
            tricky in "[a\"\\\\\\x00\\x1f\\x20\\x7f\\x80é!#~]{0,20}",
            wide in proptest::prelude::any::<i64>(),
            unsigned in proptest::prelude::any::<u64>(),
            small in proptest::prelude::any::<i8>(),
            byte in proptest::prelude::any::<u8>(),
            middle in proptest::prelude::any::<i32>(),
        ) {
            #[derive(serde::Serialize)]
            struct Fields {
                text: String,
                tricky: String,
                map: std::collections::BTreeMap<String, i64>,
                unsigned: u64,
                small: i8,
                byte: u8,
                middle: i32,
                both: (u16, i16),
            }
            let value = Fields {
                text,
                map: [(key, wide), (tricky.clone(), -wide.saturating_abs())].into_iter().collect(),
                tricky,
                unsigned,
                small,
                byte,
                middle,
                both: (byte as u16 * 257, small as i16 * 256),
            };
            let mut direct = Vec::new();
            proptest::prop_assert!(typed::append(&value, &mut direct).is_ok());
            proptest::prop_assert_eq!(direct, to_bytes(&serde_json::to_value(&value).unwrap()).unwrap());
        }
    }

    #[test]
    fn keys_are_sorted_and_there_is_no_whitespace() {
        let v = json!({"seq": 3, "body": {"z": [1, -2], "a": "x\"y"}, "kind": "roll"});
        assert_eq!(to_string(&v).unwrap(), r#"{"body":{"a":"x\"y","z":[1,-2]},"kind":"roll","seq":3}"#);
    }

    #[test]
    fn the_fast_writer_writes_what_the_path_keeping_writer_writes() {
        let v = json!({
            "z": [u64::MAX, i64::MIN, 0, -1, {"b": null, "a": true}],
            "é": "tab\t quote\" back\\ nul\u{0} \u{1f} snow ☃",
            "": [[], {}, false],
        });
        let mut slow = Vec::new();
        write(&v, &mut slow, &mut String::from("$")).unwrap();
        assert_eq!(to_bytes(&v).unwrap(), slow);
        let mut out = b"kept".to_vec();
        assert!(append(&json!({"a": [1, 0.5]}), &mut out).is_err());
        assert_eq!(out, b"kept", "a refused value leaves the buffer as it was");
    }

    /// The slow way: parse, write, compare.
    fn canonical_the_slow_way(text: &str) -> bool {
        serde_json::from_str::<Value>(text).ok().and_then(|v| to_bytes(&v).ok()).is_some_and(|c| c == text.as_bytes())
    }

    #[test]
    fn the_scan_knows_canonical_text_from_other_text() {
        let canonical = [
            r#"{"body":{"a":"x\"y","z":[1,-2]},"kind":"roll","seq":3}"#,
            r#"{"":[[],{}],"a":null,"b":true,"c":false}"#,
            "[\"tab\\t nl\\n cr\\r ff\\f bs\\b nul\\u0000 us\\u001f back\\\\ snow ☃ del \u{7f}\"]",
            "18446744073709551615",
            "-9223372036854775808",
            "0",
            r#"{"é":1,"☃":2}"#,
        ];
        for text in canonical {
            assert!(canonical_the_slow_way(text), "{text}");
            assert!(is_canonical(text), "{text}");
        }
        let not = [
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a": 1}"#,
            r#" {"a":1}"#,
            r#"{"a":1} "#,
            "18446744073709551616",
            "-9223372036854775809",
            "-0",
            "01",
            "1.0",
            "1e3",
            r#""\u001F""#,
            r#""\u0009""#,
            r#""\/""#,
            r#""\u0041""#,
            "\"tab\tin\"",
            "[1,]",
            r#"{"a":1,}"#,
            "[1 ]",
            "nul",
            "",
            r#"{"a":1}{"#,
        ];
        for text in not {
            assert!(!canonical_the_slow_way(text), "{text}");
            assert!(!is_canonical(text), "{text}");
        }
    }

    #[test]
    fn the_scan_never_calls_canonical_a_nearby_text_that_is_not() {
        let line = r#"{"body":{"decision":{"type":"rally","units":["red-1","b\"x\\\n"]},"n":[0,-7,18446744073709551615,null,true]},"hash":"00ff","kind":"fact","seq":12}"#;
        assert!(is_canonical(line) && canonical_the_slow_way(line));
        let bytes = line.as_bytes();
        let edits: &[u8] = b" \t\n\"\\{}[],:-0123456789.eEabfnrtu/";
        let (mut agree, mut seen) = (0, 0);
        for i in 0..bytes.len() {
            let mut cut = bytes.to_vec();
            cut.remove(i);
            let mut variants = vec![cut];
            for &c in edits {
                let mut changed = bytes.to_vec();
                changed[i] = c;
                variants.push(changed.clone());
                changed.insert(i, c);
                variants.push(changed);
            }
            for v in variants {
                let Ok(text) = std::str::from_utf8(&v) else { continue };
                // Never canonical where the slow way says not; the scan may
                // send text the slow way (a key with an escape), no more.
                let slow = canonical_the_slow_way(text);
                assert!(!is_canonical(text) || slow, "{text}");
                agree += usize::from(is_canonical(text) == slow);
                seen += 1;
            }
        }
        assert!(agree * 100 > seen * 99, "the scan sends only a few texts the slow way: {agree} of {seen}");
    }

    #[test]
    fn floats_are_refused_with_their_path() {
        let v = json!({"scenario": {"units": [{"at": [1.5, 2]}]}});
        let err = to_bytes(&v).unwrap_err();
        assert_eq!(err.path, "$.scenario.units[0].at[0]");
        assert!(err.message.contains("not an integer"));
    }
}
