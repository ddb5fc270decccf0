//! Text from a record or an input, made safe to show on a terminal.
//!
//! A record is data from anyone: a game id, a house-rules name or a unit's
//! name may hold an escape sequence (`ESC [ 2 J` clears the screen, others
//! retitle the window or forge colours), a carriage return that overwrites
//! what was printed, a newline that forges a line ("verified …"), or a
//! bidirectional override that shows text in another order than it is read.
//! Wherever such text reaches a terminal it goes through one of these:
//!
//! - [`escape`]: every control character and bidi control, newlines too, as
//!   `\n`, `\r`, `\t` or `\u{1b}` — for one line (a narrative, an id);
//! - [`escape_lines`]: the same but keeping newlines — for text of several
//!   lines the program composed (a rendered state, an error);
//! - [`escape_json`]: for JSON text, the characters serde_json leaves raw
//!   (DEL, C1 controls, bidi controls) as `\u` escapes: the same JSON value;
//! - [`quoted`]: an escaped, quoted and shortened form, for naming a value
//!   in a message.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether a character can change what a terminal shows beyond itself: a
/// control character (C0, DEL, C1) or a bidirectional formatting character.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape_where(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !is_unsafe(c) || keep(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

/// One line of text with every control and bidi character escaped.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_where(text, |_| false)
}

/// Text of several lines: every control and bidi character escaped except
/// the newline.
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| c == '\n')
}

/// JSON text (as serde_json writes it, pretty or not) with DEL, the C1
/// controls and the bidi controls inside its strings written as `\u` escapes:
/// the same JSON value. serde_json already escapes the C0 controls in
/// strings, so a raw newline or tab here is whitespace between tokens.
pub fn escape_json(json: &str) -> Cow<'_, str> {
    if !json.chars().any(|c| is_unsafe(c) && !matches!(c, '\n' | '\t' | '\r')) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        if is_unsafe(c) && !matches!(c, '\n' | '\t' | '\r') {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `"text"`, escaped, and cut to `max_chars` characters (saying how long it
/// was) so a 100 KB value does not flood a message.
pub fn quoted(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        format!("\"{}\"", escape(text))
    } else {
        let head: String = text.chars().take(max_chars).collect();
        format!("\"{}…\" ({count} characters)", escape(&head))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_newlines_and_bidi_controls_are_escaped() {
        assert_eq!(escape("red\u{1b}[31m"), "red\\u{1b}[31m");
        assert_eq!(escape("a\nverified b\r\t"), "a\\nverified b\\r\\t");
        assert_eq!(escape("x\u{202e}y\u{9b}z\u{7f}"), "x\\u{202e}y\\u{9b}z\\u{7f}");
        assert!(matches!(escape("lt-adams (Müller) — 10 mm"), Cow::Borrowed(_)));
    }

    #[test]
    fn escape_lines_keeps_newlines_only() {
        assert_eq!(escape_lines("one\ntwo\u{1b}]0;x\u{7}"), "one\ntwo\\u{1b}]0;x\\u{7}");
    }

    #[test]
    fn escape_json_keeps_the_value() {
        let value = serde_json::json!({"game": "a\u{7f}b\u{85}c\u{1b}\u{202e}"});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let safe = escape_json(&text);
        assert!(!safe.chars().any(|c| is_unsafe(c) && c != '\n'), "{safe}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&safe).unwrap(), value);
    }

    #[test]
    fn quoted_shortens_long_values() {
        assert_eq!(quoted("ab", 5), "\"ab\"");
        assert_eq!(quoted(&"x".repeat(100_000), 3), "\"xxx…\" (100000 characters)");
        assert_eq!(quoted("\u{1b}[2J", 10), "\"\\u{1b}[2J\"");
    }
}
