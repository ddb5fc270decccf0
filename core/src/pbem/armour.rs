//! Armour: how a turn file or a handshake message survives email.
//!
//! ```text
//! -----BEGIN ROLLCALL TURN-----
//! Game: friday
//! Side: allies
//! From: 0 5e0c…
//! To: 41 9bc1…
//! Checksum: 3a7f…
//!
//! eyJldmVudHMiOlsieyJib2R5Ijp7ImRlY2lzaW9uIjp7ImZpcnN0IjoiYWxsaWVzIiwi
//! …
//! -----END ROLLCALL TURN-----
//! ```
//!
//! The payload is canonical JSON, base64 without padding (no `=` for a
//! quoted-printable mail client to mangle) in lines of 64 characters, so no
//! line comes near email's 76- or 998-character limits. The lines before the
//! blank line are for people (and for a mail filter): each is checked against
//! the payload, and the checksum (blake3 of the payload) tells a damaged file
//! from a forged one. What the payload signs and hashes is canonical; the
//! armour around it is tolerant:
//! - CRLF or LF line ends, trailing spaces and blank lines;
//! - text before and after the armour (a letter, a signature);
//! - reply quoting: any run of `>` (with or without spaces) before each line;
//! - a clear line wrapped by a mail client (its continuation is joined back).
//!
//! A clear line given twice is refused (nothing ambiguous). Any other change inside the armour is refused, naming what differs.

use base64::engine::general_purpose::STANDARD_NO_PAD;
use base64::Engine;

use crate::digest::Digest;

/// The length of a payload line.
const LINE: usize = 64;

/// An armoured message, read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Armoured {
    /// `TURN`, `INVITE`, `ACCEPT`.
    pub kind: String,
    /// The clear lines, in order.
    pub fields: Vec<(String, String)>,
    pub payload: Vec<u8>,
}

/// Why a text is not a well-formed armoured message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArmourError {
    #[error("no `-----BEGIN ROLLCALL …-----` line: this is not a rollcall file (or the armour's first line was cut)")]
    NoBegin,
    #[error("line {0}: no `-----END ROLLCALL {1}-----` line after the BEGIN line: the message was cut short")]
    NoEnd(usize, String),
    #[error("line {line}: {message}")]
    Damaged { line: usize, message: String },
    #[error(
        "the checksum does not match the content: a character inside the armour was changed (the content hashes to {found}, the armour says {stated})"
    )]
    Checksum { stated: String, found: String },
}

/// Armours `payload` as a `kind` message with the given clear lines (the
/// checksum is added last).
pub fn encode(kind: &str, fields: &[(&str, String)], payload: &[u8]) -> String {
    let mut out = format!("-----BEGIN ROLLCALL {kind}-----\n");
    for (name, value) in fields {
        out.push_str(&format!("{name}: {value}\n"));
    }
    out.push_str(&format!("Checksum: {}\n\n", Digest::of(payload)));
    let body = STANDARD_NO_PAD.encode(payload);
    for chunk in body.as_bytes().chunks(LINE) {
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("-----END ROLLCALL {kind}-----\n"));
    out
}

/// A line with its transport noise removed: CR, trailing spaces, and reply
/// quoting (`>`, `> > `, `>>`).
fn clean(line: &str) -> &str {
    let mut s = line.trim_end_matches(['\r', ' ', '\t']);
    loop {
        let t = s.trim_start_matches([' ', '\t']);
        match t.strip_prefix('>') {
            Some(rest) => s = rest,
            None => return t,
        }
    }
}

fn begin_kind(line: &str) -> Option<&str> {
    line.strip_prefix("-----BEGIN ROLLCALL ")?.strip_suffix("-----")
}

/// Reads the first armoured message in `text`, of any kind.
pub fn decode(text: &str) -> Result<Armoured, ArmourError> {
    let lines: Vec<&str> = text.split('\n').map(clean).collect();
    let (begin, kind) = lines
        .iter()
        .enumerate()
        .find_map(|(i, l)| begin_kind(l).map(|k| (i, k.to_string())))
        .ok_or(ArmourError::NoBegin)?;
    let end_line = format!("-----END ROLLCALL {kind}-----");
    let end = lines[begin + 1..]
        .iter()
        .position(|l| *l == end_line)
        .map(|p| begin + 1 + p)
        .ok_or_else(|| ArmourError::NoEnd(begin + 1, kind.clone()))?;
    let inside = &lines[begin + 1..end];
    let blank = inside.iter().position(|l| l.is_empty()).unwrap_or(inside.len());
    let mut fields: Vec<(String, String)> = Vec::new();
    for (i, line) in inside[..blank].iter().enumerate() {
        match line.split_once(": ") {
            Some((name, value)) if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic()) => {
                // Two `Game:` lines: which one does the reader believe?
                if fields.iter().any(|(n, _)| n == name) {
                    return Err(ArmourError::Damaged {
                        line: begin + 2 + i,
                        message: format!("a second `{name}:` line: a clear line may be given once"),
                    });
                }
                fields.push((name.to_string(), value.to_string()))
            }
            // A clear line wrapped by a mail client: its continuation.
            _ => match fields.last_mut() {
                Some((_, value)) => value.push_str(line.trim()),
                None => {
                    return Err(ArmourError::Damaged {
                        line: begin + 2 + i,
                        message: format!("expected a `Name: value` line, found {line:?}"),
                    })
                }
            },
        }
    }
    let mut body = String::new();
    for (i, line) in inside[blank..].iter().enumerate() {
        if let Some(c) = line.chars().find(|c| !c.is_ascii_alphanumeric() && !"+/ \t".contains(*c)) {
            return Err(ArmourError::Damaged {
                line: begin + 2 + blank + i,
                message: format!("{c:?} is not a base64 character: the armour was changed"),
            });
        }
        body.extend(line.chars().filter(|c| !c.is_whitespace()));
    }
    let payload = STANDARD_NO_PAD.decode(body.as_bytes()).map_err(|e| ArmourError::Damaged {
        line: begin + 2 + blank,
        message: format!("the content is not whole base64 ({e}): the armour was changed or cut"),
    })?;
    let stated = fields.iter().position(|(n, _)| n == "Checksum").map(|i| fields.remove(i).1);
    let found = Digest::of(&payload).to_string();
    match stated {
        Some(stated) if stated == found => {}
        Some(stated) => return Err(ArmourError::Checksum { stated, found }),
        None => {
            return Err(ArmourError::Damaged {
                line: begin + 1,
                message: "no `Checksum:` line: the armour was changed".into(),
            })
        }
    }
    Ok(Armoured { kind, fields, payload })
}

impl Armoured {
    /// The value of a clear line.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// Checks that the clear line `name` says `value` (the payload's word).
    pub fn check_field(&self, name: &str, value: &str) -> Result<(), String> {
        match self.field(name) {
            Some(v) if v == value => Ok(()),
            Some(v) => Err(format!(
                "the armour's clear line `{name}: {v}` does not match the content ({value}): the file was changed"
            )),
            None => Err(format!("the armour has no `{name}:` line: the file was changed")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (String, Vec<u8>) {
        let payload: Vec<u8> = (0..=255u8).cycle().take(700).collect();
        let text = encode("TURN", &[("Game", "friday".into()), ("Side", "allies".into())], &payload);
        (text, payload)
    }

    #[test]
    fn lines_stay_short_and_round_trip() {
        let (text, payload) = sample();
        assert!(text.lines().all(|l| l.len() <= 76), "{text}");
        assert!(!text.contains('='));
        let back = decode(&text).unwrap();
        assert_eq!(back.payload, payload);
        assert_eq!(back.field("Game"), Some("friday"));
        assert_eq!(back.kind, "TURN");
    }

    #[test]
    fn survives_email() {
        let (text, payload) = sample();
        let crlf = text.replace('\n', "\r\n");
        let quoted: String = text.lines().map(|l| format!("> {l}\n")).collect();
        let double: String = text.lines().map(|l| format!(">> {l}  \r\n")).collect();
        let letter = format!("Hi Tom,\n\nmy turn below.\n\n{text}\n\n\n-- \nJerry\n\n\n");
        for variant in [crlf, quoted, double, letter] {
            assert_eq!(decode(&variant).unwrap().payload, payload, "{variant}");
        }
        // A clear line wrapped by a mail client.
        let wrapped = text.replace("Side: allies", "Side: all\n ies");
        assert_eq!(decode(&wrapped).unwrap().field("Side"), Some("allies"));
    }

    #[test]
    fn a_changed_character_is_refused() {
        let (text, _) = sample();
        let body_line = text.lines().nth(5).unwrap();
        let mut changed = body_line.to_string();
        let c = if changed.starts_with('A') { "B" } else { "A" };
        changed.replace_range(0..1, c);
        let damaged = text.replacen(body_line, &changed, 1);
        assert!(matches!(decode(&damaged), Err(ArmourError::Checksum { .. })), "{:?}", decode(&damaged));
        let bad_char = text.replacen(body_line, &format!("*{}", &body_line[1..]), 1);
        assert!(matches!(decode(&bad_char), Err(ArmourError::Damaged { .. })));
        let cut: String = text.lines().take(6).map(|l| format!("{l}\n")).collect();
        assert!(matches!(decode(&cut), Err(ArmourError::NoEnd(..))));
        assert!(matches!(decode("hello"), Err(ArmourError::NoBegin)));
    }

    #[test]
    fn a_clear_line_given_twice_is_refused() {
        let (text, _) = sample();
        let twice = text.replacen("Side: allies\n", "Side: allies\nSide: axis\n", 1);
        match decode(&twice) {
            Err(ArmourError::Damaged { line, message }) => {
                assert_eq!(line, 4);
                assert!(message.contains("a second `Side:` line"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
