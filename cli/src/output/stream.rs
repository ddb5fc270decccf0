//! A command's output as it goes: each [`Item`] printed as it is made, in
//! text a line each, in JSON one line each or the elements of an array
//! field of one document (see [`Stream`]); and the error document that ends
//! a document a failure interrupts ([`print_error_json`]).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use rollcall_core::text;
use serde_json::Value;

use super::{print_json, Mode};
use crate::fail::{Context, Fail};

/// ([`Stream::array`]) is begun and not yet closed: a record that turned
/// out bad part way. Standard output is one per process, and so is this.
static ARRAY_OPEN: AtomicBool = AtomicBool::new(false);

/// Whether standard output holds JSON lines ([`Stream::lines`]): an error
/// then follows as one more line.
static LINES_BEGUN: AtomicBool = AtomicBool::new(false);

/// Prints the error document `error` (`{"ok": false, "error": …}`, an
/// object). When a stream's array is open on standard output, the failure
/// ends that document instead of starting another: the array is closed and
/// `error`'s fields follow it, so standard output is still one JSON
/// document, holding the items printed before the failure and the error.
/// After JSON lines ([`Stream::lines`]) it is one more compact line.
pub fn print_error_json(error: &Value) {
    let Value::Object(fields) = error else { panic!("an error document is a JSON object") };
    if ARRAY_OPEN.swap(false, Ordering::SeqCst) {
        println!("{}", text::escape_json(&close(fields.clone())));
    } else if LINES_BEGUN.load(Ordering::SeqCst) {
        println!("{}", text::escape_json(&error.to_string()));
    } else {
        print_json(error);
    }
}

/// One item of a stream: a line for a person, or a JSON value.
pub trait Item {
    /// The line a person reads (escaped as `say!` escapes when printed).
    fn text(&self) -> String;

    /// The item as JSON.
    fn json(&self) -> Value;
}

/// Where a [`Stream`] puts its items in JSON.
enum Json {
    /// One compact JSON document a line, flushed as it is printed.
    Lines,
    /// The elements of an array field of one document, printed as they
    /// come; `count` so far.
    Array { key: &'static str, count: usize },
    /// The elements of an array field of one document, kept (in a
    /// temporary file) until the document is printed.
    Kept(Spilled),
}

/// Prints items as a command makes them: in text, a line each; in JSON, as
/// [`Json`] says. Beside its items, a stream may hold `asides`: a line in
/// text, an element of another array of the document in JSON.
pub struct Stream {
    mode: Mode,
    json: Json,
    asides: Option<Spilled>,
    /// In text, the lines printed and not yet written: a stream of many
    /// lines (`run`'s narrative, `log` and `replay` of a long game) writes
    /// them a block at a time, not with a write of its own for each (a
    /// tenth of `run`'s time went to a hundred thousand writes). Written
    /// before anything else the stream prints, at its end, and when it is
    /// dropped.
    text: std::io::BufWriter<std::io::Stdout>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        let _ = self.text.flush();
    }
}

/// An array field of a document printed at its end: its elements, as they
/// will be printed, wait in a temporary file rather than in memory (`run
/// --json` holds a narrative item for every event, `replay --step --json`
/// a whole state for every decision).
struct Spilled {
    key: &'static str,
    /// Opened at the first element.
    file: Option<std::io::BufWriter<std::fs::File>>,
    count: usize,
}

impl Spilled {
    fn new(key: &'static str) -> Spilled {
        Spilled { key, file: None, count: 0 }
    }

    fn push(&mut self, value: &Value) -> Result<(), Fail> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(std::io::BufWriter::new(
                tempfile::tempfile().context("a temporary file for the JSON document")?,
            )),
        };
        let separator = if self.count == 0 { "" } else { ",\n" };
        write!(file, "{separator}{}", text::escape_json(&indented(value)))
            .context("the JSON document's temporary file")?;
        self.count += 1;
        Ok(())
    }

    /// Prints the field, `"key": […]`, its elements copied from the file.
    fn print(self, out: &mut impl Write) -> Result<(), Fail> {
        match self.file {
            None => write!(out, "  \"{}\": []", self.key).context("stdout"),
            Some(file) => {
                let mut file =
                    file.into_inner().map_err(|e| e.into_error()).context("the JSON document's temporary file")?;
                use std::io::Seek;
                file.rewind().context("the JSON document's temporary file")?;
                writeln!(out, "  \"{}\": [", self.key).context("stdout")?;
                std::io::copy(&mut file, out).context("stdout")?;
                write!(out, "\n  ]").context("stdout")
            }
        }
    }
}

/// Each field of `fields` as `serde_json::to_string_pretty` prints it in a
/// document (`  "key": value`), escaped.
fn pretty_fields(fields: serde_json::Map<String, Value>) -> Vec<String> {
    fields
        .into_iter()
        .map(|(key, value)| {
            let one = serde_json::to_string_pretty(&Value::Object([(key, value)].into_iter().collect()))
                .expect("JSON values print");
            let field = one.strip_prefix("{\n").and_then(|f| f.strip_suffix("\n}")).expect("an object of one field");
            text::escape_json(field).into_owned()
        })
        .collect()
}

/// The text of a document of `rest`'s fields and the array field `key`
/// around that field, as `serde_json::to_string_pretty` prints the whole
/// document (escaped): what comes before the field, and after it.
fn around(rest: serde_json::Map<String, Value>, key: &str) -> (String, String) {
    let (before, after): (serde_json::Map<String, Value>, serde_json::Map<String, Value>) =
        rest.into_iter().partition(|(k, _)| k.as_str() < key);
    let head = pretty_fields(before).into_iter().fold("{\n".to_string(), |head, field| head + &field + ",\n");
    let tail = pretty_fields(after).into_iter().fold(String::new(), |tail, field| tail + ",\n" + &field) + "\n}";
    (head, tail)
}

/// Prints the document of `rest`'s fields and the array field `spilled`
/// in its place among them.
fn print_with_spilled(rest: serde_json::Map<String, Value>, spilled: Spilled) -> Result<(), Fail> {
    let (head, tail) = around(rest, spilled.key);
    let mut out = std::io::stdout().lock();
    write!(out, "{head}").context("stdout")?;
    spilled.print(&mut out)?;
    writeln!(out, "{tail}").context("stdout")
}

/// A stream's buffer of text lines (see [`Stream`]).
fn text_buffer() -> std::io::BufWriter<std::io::Stdout> {
    std::io::BufWriter::with_capacity(64 << 10, std::io::stdout())
}

impl Stream {
    /// Each item a line: a text line, or one compact JSON document, each
    /// flushed as soon as it is printed.
    pub fn lines(mode: Mode) -> Stream {
        Stream { mode, json: Json::Lines, asides: None, text: text_buffer() }
    }

    /// In JSON, one document whose array field `key` holds the items,
    /// printed as they come; [`Stream::finish`] adds the document's other
    /// fields, which must all sort after `key` (serde_json sorts a
    /// document's keys).
    pub fn array(mode: Mode, key: &'static str) -> Stream {
        Stream { mode, json: Json::Array { key, count: 0 }, asides: None, text: text_buffer() }
    }

    /// As [`Stream::array`], with the items kept until
    /// [`Stream::finish`] prints the document: for a document whose other
    /// fields, known at the end, come before `key`.
    pub fn kept(mode: Mode, key: &'static str) -> Stream {
        Stream { mode, json: Json::Kept(Spilled::new(key)), asides: None, text: text_buffer() }
    }

    /// Asides go, in JSON, to the array field `key` of the document.
    /// The field must sort after every other field of the document, and
    /// the stream must be a [`Stream::array`].
    pub fn with_asides(mut self, key: &'static str) -> Stream {
        debug_assert!(matches!(self.json, Json::Array { .. }), "asides follow a streamed array");
        self.asides = Some(Spilled::new(key));
        self
    }

    /// Prints (or, for a kept array, keeps) one item.
    pub fn push(&mut self, item: &dyn Item) -> Result<(), Fail> {
        match (self.mode, &mut self.json) {
            (_, Json::Lines) => self.print_lines([item])?,
            (Mode::Text, _) => self.say(&item.text())?,
            (Mode::Json, Json::Array { key, count }) => {
                ARRAY_OPEN.store(true, Ordering::SeqCst);
                print!("{}", text::escape_json(&element(key, *count, &item.json())));
                *count += 1;
            }
            (Mode::Json, Json::Kept(kept)) => kept.push(&item.json())?,
        }
        Ok(())
    }

    /// Prints `items` as [`Stream::push`] prints each in turn; a stream of
    /// lines prints them in one write (`play --stream`'s acknowledgements
    /// of decisions synced while the ones before were printed).
    pub fn push_all<I: Item>(&mut self, items: &[I]) -> Result<(), Fail> {
        match self.json {
            Json::Lines => self.print_lines(items.iter().map(|item| item as &dyn Item)),
            _ => items.iter().try_for_each(|item| self.push(item)),
        }
    }

    /// A stream of lines: each item a line (its text, or one compact JSON
    /// document), all of them in one write, flushed.
    fn print_lines<'a>(&mut self, items: impl IntoIterator<Item = &'a dyn Item>) -> Result<(), Fail> {
        let lines: String = items
            .into_iter()
            .map(|item| match self.mode {
                Mode::Text => text::escape_lines(&item.text()).into_owned() + "\n",
                Mode::Json => text::escape_json(&item.json().to_string()).into_owned() + "\n",
            })
            .collect();
        if lines.is_empty() {
            return Ok(());
        }
        if self.mode == Mode::Json {
            LINES_BEGUN.store(true, Ordering::SeqCst);
        }
        self.text.flush().context("stdout")?;
        let mut out = std::io::stdout().lock();
        out.write_all(lines.as_bytes()).and_then(|_| out.flush()).context("stdout")
    }

    /// A line only a person reads: printed in text, not in JSON.
    pub fn note(&mut self, line: impl FnOnce() -> String) -> Result<(), Fail> {
        match self.mode {
            Mode::Text => self.say(&line()),
            Mode::Json => Ok(()),
        }
    }

    /// In text, a line (escaped as `say!` escapes it) into the stream's buffer.
    fn say(&mut self, line: &str) -> Result<(), Fail> {
        writeln!(self.text, "{}", text::escape_lines(line)).context("stdout")
    }

    /// An aside: in text, the line `text` makes; in JSON, the value `json`
    /// makes, an element of the asides' array (printed at the end).
    pub fn aside(&mut self, text: impl FnOnce() -> String, json: impl FnOnce() -> Value) -> Result<(), Fail> {
        match (self.mode, &mut self.asides) {
            (Mode::Text, _) => self.say(&text())?,
            (Mode::Json, Some(asides)) => asides.push(&json())?,
            (Mode::Json, None) => {}
        }
        Ok(())
    }

    /// Ends the stream: in text, prints `last` (the closing lines); in
    /// JSON, the rest of the document, whose other fields are `rest`'s.
    pub fn finish(mut self, last: &[String], rest: Value) -> Result<(), Fail> {
        let Value::Object(mut rest) = rest else { panic!("a stream's document is a JSON object") };
        if self.mode == Mode::Text {
            last.iter().try_for_each(|line| self.say(line))?;
            return self.text.flush().context("stdout");
        }
        match (self.mode, &self.json, self.asides.take()) {
            (Mode::Json, Json::Array { key, count: 1.. }, Some(asides)) => {
                debug_assert!(rest.keys().all(|k| k.as_str() < asides.key), "{} is the last field", asides.key);
                let end = end(key, rest);
                let mut out = std::io::stdout().lock();
                writeln!(
                    out,
                    "{},",
                    text::escape_json(end.strip_suffix("\n}").expect("a document ends with its brace"))
                )
                .context("stdout")?;
                asides.print(&mut out)?;
                ARRAY_OPEN.store(false, Ordering::SeqCst);
                writeln!(out, "\n}}").context("stdout")?;
                return Ok(());
            }
            // No item, so no aside either.
            (_, _, Some(asides)) => {
                rest.insert(asides.key.to_string(), Value::Array(Vec::new()));
            }
            (_, _, None) => {}
        }
        match (self.mode, std::mem::replace(&mut self.json, Json::Lines)) {
            (Mode::Text, _) => {}
            (Mode::Json, Json::Lines) => {}
            (Mode::Json, Json::Kept(kept)) => print_with_spilled(rest, kept)?,
            (Mode::Json, Json::Array { key, count: 0 }) => {
                rest.insert(key.to_string(), Value::Array(Vec::new()));
                print_json(&Value::Object(rest));
            }
            (Mode::Json, Json::Array { key, .. }) => {
                ARRAY_OPEN.store(false, Ordering::SeqCst);
                println!("{}", text::escape_json(&end(key, rest)))
            }
        }
        Ok(())
    }
}

/// The element at `index` of the array `key` that begins a document, as
/// `serde_json::to_string_pretty` prints it there, with what comes before
/// it (the document's start, or the comma after the element before).
fn element(key: &str, index: usize, value: &Value) -> String {
    let before = if index == 0 { format!("{{\n  \"{key}\": [\n") } else { ",\n".to_string() };
    before + &indented(value)
}

/// `value` as `serde_json::to_string_pretty` prints it as an element of an
/// array field of a document.
fn indented(value: &Value) -> String {
    let element = serde_json::to_string_pretty(value).expect("JSON values print");
    element.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

/// The end of a document whose first field, the array `key`, has at least
/// one element printed: the array's end, then the fields `rest`.
fn end(key: &str, rest: serde_json::Map<String, Value>) -> String {
    debug_assert!(rest.keys().all(|k| k.as_str() > key), "{key} is the first field of the document");
    close(rest)
}

/// The end of a document whose first field, an array, has at least one
/// element printed: the array's end, then the fields `rest`.
fn close(rest: serde_json::Map<String, Value>) -> String {
    let tail = serde_json::to_string_pretty(&Value::Object(rest)).expect("JSON values print");
    match tail.strip_prefix("{\n") {
        Some(fields) => format!("\n  ],\n{fields}"),
        None => "\n  ]\n}".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document printed around an array field whose elements come from
    /// elsewhere is the document `to_string_pretty` prints, byte for byte.
    #[test]
    fn a_spilled_field_sits_in_the_pretty_document_where_it_sorts() {
        let items = vec![serde_json::json!({"b": [1, {"c": null}], "a": "x"}), serde_json::json!(2)];
        for key in ["a", "m", "z"] {
            let rest = serde_json::json!({"events": 3, "game": "g", "nested": {"k": [true]}, "y": []});
            let Value::Object(rest) = rest else { unreachable!() };
            let mut whole = rest.clone();
            whole.insert(key.to_string(), Value::Array(items.clone()));
            let (head, tail) = around(rest, key);
            let elements = items.iter().map(indented).collect::<Vec<_>>().join(",\n");
            let printed = format!("{head}  \"{key}\": [\n{elements}\n  ]{tail}");
            assert_eq!(printed, serde_json::to_string_pretty(&Value::Object(whole)).unwrap(), "{key}");
        }
        let (head, tail) = around(serde_json::Map::new(), "only");
        assert_eq!(format!("{head}  \"only\": []{tail}"), "{\n  \"only\": []\n}");
    }

    /// Given documents whose first field is an array of none, one or three
    /// elements (nested, with newlines and control characters in strings),
    /// when the array is printed element by element, then the bytes are the
    /// document's as printed whole.
    #[test]
    fn a_streamed_array_prints_the_document_printed_whole() {
        let elements: Vec<Value> = (0..3)
            .map(|i| serde_json::json!({"seq": i, "narrative": "a\nb\u{7}", "body": {"list": [1, {"x": []}], "o": {}}}))
            .collect();
        for n in [1, 3] {
            for rest in [serde_json::json!({"game": "g", "head": "h", "state": {"a": [1]}}), serde_json::json!({})] {
                let mut whole = rest.clone();
                whole["events"] = Value::Array(elements[..n].to_vec());
                let mut streamed: String =
                    elements[..n].iter().enumerate().map(|(i, v)| element("events", i, v)).collect();
                let Value::Object(rest) = rest else { unreachable!() };
                streamed += &end("events", rest);
                assert_eq!(streamed, serde_json::to_string_pretty(&whole).unwrap(), "{n} elements");
            }
        }
    }

    /// Given an array streamed part way, when a failure ends the document,
    /// then the bytes are one JSON document: the elements printed, and the
    /// error's fields after them.
    #[test]
    fn a_failure_part_way_ends_the_streamed_document() {
        let error =
            serde_json::json!({"ok": false, "error": {"kind": "input", "exit": 2, "message": "f:5: seq 4: bad"}});
        let Value::Object(fields) = error.clone() else { unreachable!() };
        for n in [1, 2] {
            let mut streamed: String =
                (0..n).map(|i| element("events", i, &serde_json::json!({"seq": i + 1}))).collect();
            streamed += &close(fields.clone());
            let document: Value = serde_json::from_str(&streamed).expect("one JSON document");
            assert_eq!(document["events"].as_array().map(Vec::len), Some(n), "{streamed}");
            assert_eq!(document["error"], error["error"]);
            assert_eq!(document["ok"], false);
        }
    }
}
