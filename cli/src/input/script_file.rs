//! A script read from its file in two streaming passes, so that `run` holds
//! one decision at a time, not the script: it appends in bounded batches
//! inside one all-or-nothing creation.
//!
//! A script is one JSON object whose keys may come in any order (serde reads
//! a struct's fields in whatever order the text gives them): `decisions`
//! may come before the `scenario` they are played in. So the file is read
//! twice. The first pass checks the whole script, as strictly as
//! [`Script::parse_bytes`] does, and keeps everything but the decisions,
//! each of which is checked and dropped. The second pass finds the
//! `decisions` array again and hands out one decision at a time, with its
//! text and line, for `run` to play and append.
//!
//! A script the first pass refuses is parsed again whole by
//! [`Script::parse_bytes`], whose error names the file, line and field as
//! it always has: bad input costs memory, a good script does not.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use rollcall_core::dice::TableDice;
use rollcall_core::locate::line_of;
use rollcall_core::record::Header;
use rollcall_core::script::{split_dice, Script};
use rollcall_core::strict;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::fail::Fail;
use crate::input::store::read_bytes;

/// How much of the file each pass reads at a time.
const READ_BYTES: usize = 1 << 16;

/// The header of the script at `path` if the whole script is one `run` can
/// play (strict JSON; a header that opens a game; every decision's dice
/// well formed): `None` when it is not, or cannot be read.
pub(crate) fn checked_header(path: &Path, default_game: &str) -> Option<Header> {
    let file = File::open(path).ok()?;
    let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(READ_BYTES, file));
    let fields = Prelude.deserialize(&mut de).ok()?;
    de.end().ok()?;
    let (header, _) =
        Script::header(b"", &Value::Object(fields), default_game, rollcall_core::registry::builtin()).ok()?;
    Some(header)
}

/// Why the script at `path` cannot be played, as the whole text parsed at
/// once says it: file, line, field.
pub(crate) fn refusal(path: &Path, default_game: &str) -> Fail {
    let bytes = match read_bytes(path) {
        Ok(bytes) => bytes,
        Err(fail) => return fail,
    };
    match Script::parse_bytes(&bytes, default_game, rollcall_core::registry::builtin()) {
        Err(e) => fail!("{}:{}: {}: {}", path.display(), e.line, e.field, e.message),
        Ok(_) => changed(path),
    }
}

/// The file is not what the first pass read: written to while `run` read it.
fn changed(path: &Path) -> Fail {
    fail!("{}: the script changed while it was read (nothing was written)", path.display())
}

/// The script's top-level object, every field but `decisions` kept as
/// [`strict::parse`] reads it; `decisions` becomes an empty array once each
/// decision has been read strictly and its dice split off.
struct Prelude;

impl<'de> DeserializeSeed<'de> for Prelude {
    type Value = Map<String, Value>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Prelude {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a script: one JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if fields.contains_key(&key) {
                return Err(de::Error::custom(format!("the key {key:?} is given twice")));
            }
            let value = if key == "decisions" {
                map.next_value_seed(EachDecision)?;
                Value::Array(Vec::new())
            } else {
                map.next_value_seed(strict::Piece)?
            };
            fields.insert(key, value);
        }
        Ok(fields)
    }
}

/// The `decisions` array, each read strictly and its dice split off, then
/// dropped.
struct EachDecision;

impl<'de> DeserializeSeed<'de> for EachDecision {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EachDecision {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of decisions")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(decision) = seq.next_element_seed(strict::Piece)? {
            split_dice(decision).map_err(|(field, message)| de::Error::custom(format!("{field}: {message}")))?;
        }
        Ok(())
    }
}

/// One decision of the script: where it is, its text, and what it says.
pub(crate) struct Decision {
    /// Its index in `decisions`.
    pub index: usize,
    /// The line it begins on.
    line: usize,
    text: String,
    pub decision: Value,
    pub dice: Option<TableDice>,
}

impl Decision {
    /// The line, in the script, of `field` (`decisions[3].leader`) of this
    /// decision: as [`line_of`] finds it in the whole text.
    pub fn line_of(&self, field: &str) -> usize {
        let within = field.strip_prefix(&format!("decisions[{}]", self.index)).unwrap_or(field);
        self.line + line_of(&self.text, within) - 1
    }
}

/// The decisions of a script [`checked_header`] has checked, one at a time
/// (the second pass).
pub(crate) struct Decisions<'a> {
    path: &'a Path,
    file: BufReader<File>,
    /// The line the next byte is on.
    line: usize,
    /// The text of the decision being read, byte by byte.
    kept: Option<Vec<u8>>,
    next: usize,
}

impl<'a> Decisions<'a> {
    /// Opens the script and reads up to its first decision.
    pub(crate) fn open(path: &'a Path) -> Result<Decisions<'a>, Fail> {
        let file = File::open(path).map_err(|e| fail!("{}: {e}", path.display()))?;
        let mut d = Decisions { path, file: BufReader::with_capacity(READ_BYTES, file), line: 1, kept: None, next: 0 };
        d.expect(b'{')?;
        loop {
            let key = d.string()?;
            let key: String = serde_json::from_slice(&key).map_err(|_| changed(path))?;
            d.expect(b':')?;
            if key == "decisions" {
                d.expect(b'[')?;
                return Ok(d);
            }
            d.skip_value()?;
            d.expect(b',')?;
        }
    }

    /// The next decision, or `None` after the last.
    pub(crate) fn next(&mut self) -> Result<Option<Decision>, Fail> {
        self.whitespace()?;
        match (self.peek()?, self.next) {
            (Some(b']'), _) => return Ok(None),
            (Some(b','), n) if n > 0 => self.expect(b',')?,
            (_, 0) => {}
            _ => return Err(changed(self.path)),
        }
        let line = self.line;
        self.kept = Some(Vec::new());
        let skipped = self.skip_value();
        let text = self.kept.take().unwrap_or_default();
        skipped?;
        let text = String::from_utf8(text).map_err(|_| changed(self.path))?;
        let value = strict::parse(text.as_bytes()).map_err(|_| changed(self.path))?;
        let (decision, dice) = split_dice(value).map_err(|_| changed(self.path))?;
        let index = self.next;
        self.next += 1;
        Ok(Some(Decision { index, line, text, decision, dice }))
    }

    fn peek(&mut self) -> Result<Option<u8>, Fail> {
        let buffer = self.file.fill_buf().map_err(|e| fail!("{}: {e}", self.path.display()))?;
        Ok(buffer.first().copied())
    }

    /// Takes bytes while `step` says to, a buffer at a time: each byte taken
    /// counts its line and goes into the decision being kept. `Ok(false)`
    /// if the file ended before `step` said it was done.
    fn scan(&mut self, mut step: impl FnMut(u8) -> Scan) -> Result<bool, Fail> {
        loop {
            let buffer = self.file.fill_buf().map_err(|e| fail!("{}: {e}", self.path.display()))?;
            if buffer.is_empty() {
                return Ok(false);
            }
            let (mut taken, mut done) = (buffer.len(), false);
            for (i, &b) in buffer.iter().enumerate() {
                match step(b) {
                    Scan::Take => continue,
                    Scan::TakeLast => taken = i + 1,
                    Scan::Stop => taken = i,
                }
                done = true;
                break;
            }
            let bytes = &buffer[..taken];
            self.line += bytes.iter().filter(|&&b| b == b'\n').count();
            if let Some(kept) = self.kept.as_mut() {
                kept.extend_from_slice(bytes);
            }
            self.file.consume(taken);
            if done {
                return Ok(true);
            }
        }
    }

    fn whitespace(&mut self) -> Result<(), Fail> {
        self.scan(|b| if matches!(b, b' ' | b'\t' | b'\r' | b'\n') { Scan::Take } else { Scan::Stop }).map(drop)
    }

    /// Skips whitespace, then `byte`, which must come next.
    fn expect(&mut self, byte: u8) -> Result<(), Fail> {
        self.whitespace()?;
        let mut found = None;
        self.scan(|b| {
            found = Some(b);
            Scan::TakeLast
        })?;
        if found == Some(byte) {
            Ok(())
        } else {
            Err(changed(self.path))
        }
    }

    /// A string, with its quotes, as written.
    fn string(&mut self) -> Result<Vec<u8>, Fail> {
        self.expect(b'"')?;
        let mut raw = vec![b'"'];
        let mut in_string = InString::default();
        let closed = self.scan(|b| {
            raw.push(b);
            if in_string.ends_at(b) {
                Scan::TakeLast
            } else {
                Scan::Take
            }
        })?;
        if closed {
            Ok(raw)
        } else {
            Err(changed(self.path))
        }
    }

    /// Skips one value (the first pass found the text strict JSON).
    fn skip_value(&mut self) -> Result<(), Fail> {
        self.whitespace()?;
        let ended = match self.peek()? {
            Some(b'"') => return self.string().map(drop),
            Some(b'{' | b'[') => {
                let (mut depth, mut string) = (0usize, None::<InString>);
                self.scan(|b| {
                    if let Some(s) = string.as_mut() {
                        if s.ends_at(b) {
                            string = None;
                        }
                        return Scan::Take;
                    }
                    match b {
                        b'"' => string = Some(InString::default()),
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return Scan::TakeLast;
                            }
                        }
                        _ => {}
                    }
                    Scan::Take
                })?
            }
            // A number, `true`, `false` or `null`: up to what follows it.
            _ => {
                self.scan(|b| {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                        Scan::Stop
                    } else {
                        Scan::Take
                    }
                })?;
                true
            }
        };
        if ended {
            Ok(())
        } else {
            Err(changed(self.path))
        }
    }
}

/// What [`Decisions::scan`] does with a byte.
enum Scan {
    /// Takes it and goes on.
    Take,
    /// Takes it and stops.
    TakeLast,
    /// Stops before it.
    Stop,
}

/// Where a scan stands inside a JSON string, after its opening quote.
#[derive(Default)]
struct InString {
    /// The byte before was a backslash: this one is escaped.
    escaped: bool,
}

impl InString {
    /// Whether `b`, the next byte, closes the string.
    fn ends_at(&mut self, b: u8) -> bool {
        match (self.escaped, b) {
            (true, _) => {
                self.escaped = false;
                false
            }
            (false, b'\\') => {
                self.escaped = true;
                false
            }
            (false, b'"') => true,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_across_the_reads_buffers_are_read_as_the_whole_text_reads_them() {
        // Given a script of more decisions than one read holds, with strings
        // that hold brackets, quotes, backslashes and newlines, and numbers
        // last in their objects
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let decisions: Vec<Value> = (0..4000)
            .map(|i| serde_json::json!({"type": "move", "note": format!("[{i}] {{\\\"}}\n\\"), "to": [i, -i], "n": i}))
            .collect();
        let text = format!(
            "{{\"decisions\": [\n{}\n], \"scenario\": {{}}}}",
            decisions.iter().map(|d| serde_json::to_string_pretty(d).unwrap()).collect::<Vec<_>>().join(",\n")
        );
        assert!(text.len() > 2 * READ_BYTES, "the script spans several reads");
        std::fs::write(&path, &text).unwrap();
        // When they are read one at a time
        let mut read = Decisions::open(&path).unwrap();
        // Then each is the decision written, on the line it starts on
        for (index, want) in decisions.iter().enumerate() {
            let d = read.next().unwrap().unwrap();
            assert_eq!((d.index, &d.decision), (index, want));
            if index % 97 == 0 {
                let field = format!("decisions[{index}].note");
                assert_eq!(d.line_of(&field), line_of(&text, &field));
            }
        }
        assert!(read.next().unwrap().is_none());
    }

    #[test]
    fn each_decision_is_handed_out_with_its_line_wherever_decisions_are() {
        // Given a script whose decisions come before its scenario, written over several lines
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let text = "{\"about\": \"a [tricky] \\\"}\\\" text\",\n \"decisions\": [\n  {\"type\": \"pass\"},\n  {\"type\":\n   \"move\", \"to\": [1, 2]}\n ],\n \"scenario\": {}\n}\n";
        std::fs::write(&path, text).unwrap();
        // When the decisions are read one at a time
        let mut decisions = Decisions::open(&path).unwrap();
        let first = decisions.next().unwrap().unwrap();
        let second = decisions.next().unwrap().unwrap();
        // Then each comes with its index, value and line, and the field's line is the whole text's
        assert!(decisions.next().unwrap().is_none());
        assert_eq!((first.index, first.decision["type"].as_str()), (0, Some("pass")));
        assert_eq!((second.index, second.decision["to"][1].as_u64()), (1, Some(2)));
        assert_eq!(first.line_of("decisions[0]"), 3);
        assert_eq!(second.line_of("decisions[1].to"), line_of(text, "decisions[1].to"));
        assert_eq!(second.line_of("decisions[1].to"), 5);
    }
}
