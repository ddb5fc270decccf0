//! Canonical bytes: the one serialisation of a JSON value that is hashed.
//!
//! Objects are written with their keys in byte order, no whitespace, strings
//! escaped as `serde_json` escapes them, and integers only. Floats are refused:
//! a record that hashes a float would hash whatever the platform rounded it to.
//! The writer sorts keys itself rather than trusting `serde_json::Map` to be a
//! `BTreeMap`, because a dependency turning on `preserve_order` would silently
//! change every hash.

use serde_json::Value;

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

/// The canonical text of `value` (canonical bytes are always UTF-8).
pub fn to_string(value: &Value) -> Result<String, CanonError> {
    to_bytes(value).map(|bytes| String::from_utf8(bytes).expect("canonical JSON is UTF-8"))
}

/// The canonical text of any serialisable value.
pub fn of<T: serde::Serialize>(value: &T) -> Result<String, CanonError> {
    let value = serde_json::to_value(value).map_err(|e| CanonError { path: "$".into(), message: e.to_string() })?;
    to_string(&value)
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

    #[test]
    fn floats_are_refused_with_their_path() {
        let v = json!({"scenario": {"units": [{"at": [1.5, 2]}]}});
        let err = to_bytes(&v).unwrap_err();
        assert_eq!(err.path, "$.scenario.units[0].at[0]");
        assert!(err.message.contains("not an integer"));
    }
}
