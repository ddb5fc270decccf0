//! Ranges of the numbers a game is given, and the characters of its text.
//!
//! Every integer in a scenario or a decision lies in [`NUMBER_RANGE`]
//! (±1,000,000,000) unless its ruleset declares a narrower range for it
//! ([`Bound`], listed by `rollcall rules show`): so the rules' arithmetic on
//! them (a position plus a deviation, the square of a distance, a count of
//! dice) cannot overflow, and no count asks for billions of dice. Every
//! string is free of control characters, so no scenario or decision can
//! carry a terminal escape sequence into a narrative or forge a line of one.
//! Both are checked when a scenario loads and when a decision is decided,
//! centrally, before a ruleset sees them.

use serde_json::Value;

/// The range of every integer in a scenario or a decision that its ruleset
/// gives no narrower range: ±10⁹. Two coordinates' differences squared and
/// added stay below 2⁶³.
pub const NUMBER_RANGE: (i64, i64) = (-1_000_000_000, 1_000_000_000);

/// A narrower range for the integers at a path of a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// A path pattern: keys separated by `.`, `[]` for every item of a list,
    /// `*` for every key of a map (`weapons.*.max_shots`, `figures[].at[]`).
    pub path: &'static str,
    pub min: i64,
    pub max: i64,
}

impl Bound {
    pub const fn new(path: &'static str, min: i64, max: i64) -> Bound {
        Bound { path, min, max }
    }
}

/// A number out of its range, or text with a control character, at `field`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfBounds {
    /// A path into the value checked (`figures[2].troop_quality`).
    pub field: String,
    pub message: String,
}

/// A step of the path to a value: a key of the checked value's own (not
/// copied: the walk runs for every decision decided), or an index.
#[derive(Debug, Clone)]
enum Part<'a> {
    Key(&'a str),
    Index(usize),
}

fn render(path: &[Part<'_>]) -> String {
    let mut out = String::new();
    for part in path {
        match part {
            Part::Key(k) if out.is_empty() => out.push_str(k),
            Part::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Part::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Whether a concrete path matches a pattern (`a.*.b[]`).
fn matches(pattern: &str, path: &[Part<'_>]) -> bool {
    let mut want: Vec<&str> = Vec::new();
    for key in pattern.split('.') {
        let mut rest = key;
        let mut brackets = 0;
        while let Some(stripped) = rest.strip_suffix("[]") {
            rest = stripped;
            brackets += 1;
        }
        want.push(rest);
        want.extend(std::iter::repeat_n("[]", brackets));
    }
    want.len() == path.len()
        && want.iter().zip(path).all(|(w, p)| match p {
            Part::Key(k) => *w == "*" || w == k,
            Part::Index(_) => *w == "[]",
        })
}

/// The first control character of a string, if any, as `U+001B`.
pub fn control_character(text: &str) -> Option<String> {
    text.chars().find(|c| c.is_control()).map(|c| format!("U+{:04X}", u32::from(c)))
}

/// Whether the canonical JSON text of a value passes [`check`] with no
/// bounds of its own, told plainly from its bytes (`false` says only that
/// the value must be checked): no escape at all (canonical text escapes
/// every control character below U+0020), no U+007F and no C1 control
/// (U+0080–U+009F, `C2 80`–`C2 9F` in UTF-8), and no run of more than
/// nine digits (every integer of nine digits or fewer is inside
/// [`NUMBER_RANGE`]).
pub(crate) fn plainly_within(text: &[u8]) -> bool {
    let mut digits = 0;
    for (i, &byte) in text.iter().enumerate() {
        match byte {
            b'\\' | 0x7f => return false,
            0xc2 if text.get(i + 1).is_some_and(|next| (0x80..=0x9f).contains(next)) => return false,
            b'0'..=b'9' if digits == 9 => return false,
            b'0'..=b'9' => digits += 1,
            _ => digits = 0,
        }
    }
    true
}

/// Checks every integer of `value` against the first bound whose path
/// matches (else [`NUMBER_RANGE`]) and every string and key for control
/// characters. `what` names the value in messages ("a scenario").
pub fn check(value: &Value, bounds: &[Bound]) -> Result<(), OutOfBounds> {
    let mut path = Vec::new();
    walk(value, bounds, &mut path)
}

fn walk<'a>(value: &'a Value, bounds: &[Bound], path: &mut Vec<Part<'a>>) -> Result<(), OutOfBounds> {
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => {
            let (min, max, declared) = bounds
                .iter()
                .find(|b| matches(b.path, path))
                .map_or((NUMBER_RANGE.0, NUMBER_RANGE.1, false), |b| (b.min, b.max, true));
            let inside = n.as_i64().is_some_and(|i| (min..=max).contains(&i));
            if !inside {
                let whose = if declared { "its range" } else { "the range of every number in a game" };
                return Err(OutOfBounds {
                    field: render(path),
                    message: format!("{n} is out of {whose}, {min}..={max}"),
                });
            }
            Ok(())
        }
        Value::String(s) => text(s, path),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Part::Index(i));
                walk(item, bounds, path)?;
                path.pop();
            }
            Ok(())
        }
        Value::Object(map) => {
            for (key, item) in map {
                path.push(Part::Key(key));
                text(key, path)?;
                walk(item, bounds, path)?;
                path.pop();
            }
            Ok(())
        }
        // Floats are left to the typed read, which names the integer it wanted.
        Value::Number(_) | Value::Bool(_) | Value::Null => Ok(()),
    }
}

fn text(s: &str, path: &[Part<'_>]) -> Result<(), OutOfBounds> {
    match control_character(s) {
        None => Ok(()),
        Some(c) => Err(OutOfBounds {
            field: render(path),
            message: format!("{s:?} holds the control character {c}: names and text may not hold control characters"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const BOUNDS: &[Bound] = &[
        Bound::new("weapons.*.max_shots", 0, 100),
        Bound::new("figures[].rating", 0, 9),
        Bound::new("grid[][]", 0, 1),
    ];

    #[test]
    fn a_declared_range_applies_to_its_path_only() {
        let ok = json!({"weapons": {"rifle": {"max_shots": 3}}, "figures": [{"rating": 9, "at": [-5, 7]}]});
        assert_eq!(check(&ok, BOUNDS), Ok(()));
        let e = check(&json!({"weapons": {"rifle": {"max_shots": 101}}}), BOUNDS).unwrap_err();
        assert_eq!(e.field, "weapons.rifle.max_shots");
        assert_eq!(e.message, "101 is out of its range, 0..=100");
        let e = check(&json!({"figures": [{"rating": 1}, {"rating": -1}]}), BOUNDS).unwrap_err();
        assert_eq!(e.field, "figures[1].rating");
        assert_eq!(check(&json!({"grid": [[0, 1], [1, 0]]}), BOUNDS), Ok(()));
        assert_eq!(check(&json!({"grid": [[0, 2]]}), BOUNDS).unwrap_err().field, "grid[0][1]");
    }

    #[test]
    fn every_other_integer_lies_in_the_number_range() {
        assert_eq!(check(&json!({"at": [1_000_000_000, -1_000_000_000]}), BOUNDS), Ok(()));
        let e = check(&json!({"at": [0, i64::MAX]}), BOUNDS).unwrap_err();
        assert_eq!(e.field, "at[1]");
        assert!(e.message.contains("out of the range of every number in a game"), "{}", e.message);
        assert_eq!(check(&json!({"n": u64::MAX}), BOUNDS).unwrap_err().field, "n");
    }

    /// What the plain read of a text vouches for, `check` accepts: every
    /// control character (escaped, DEL, C1) and every integer of ten digits
    /// or more is left to it.
    #[test]
    fn a_plainly_checked_text_is_one_check_accepts() {
        assert!(999_999_999 <= NUMBER_RANGE.1 && -999_999_999 >= NUMBER_RANGE.0);
        // Ten digits are left to `check` even where it accepts them.
        assert!(!plainly_within(b"[1000000000]") && check(&serde_json::json!([1_000_000_000]), &[]).is_ok());
        let plain = [r#"{"a":[-999999999,999999999],"b":"Müller — 1er Zug"}"#, r#"{"type":"end-activation"}"#];
        for text in plain {
            assert!(plainly_within(text.as_bytes()), "{text}");
            assert_eq!(check(&serde_json::from_str(text).unwrap(), &[]), Ok(()), "{text}");
        }
        let left = [
            r#"{"a":1000000001}"#,
            r#"{"a":-1000000001}"#,
            r#"{"a":"x\u001b"}"#,
            r#"{"a":"x\n"}"#,
            "{\"a\":\"x\u{7f}\"}",
            "{\"a\":\"x\u{85}\"}",
            "{\"x\u{9f}\":1}",
        ];
        for text in left {
            assert!(!plainly_within(text.as_bytes()), "{text}");
            assert!(check(&serde_json::from_str(text).unwrap(), &[]).is_err(), "{text}");
        }
    }

    #[test]
    fn text_with_a_control_character_is_refused() {
        let e = check(&json!({"units": [{"id": "ok"}, {"id": "red\u{1b}[31m"}]}), BOUNDS).unwrap_err();
        assert_eq!(e.field, "units[1].id");
        assert!(e.message.contains("U+001B"), "{}", e.message);
        assert_eq!(check(&json!({"a\nb": 1}), BOUNDS).unwrap_err().field, "a\nb");
        assert_eq!(check(&json!({"name": "Gefreiter Müller — 1er Zug"}), BOUNDS), Ok(()));
    }
}
