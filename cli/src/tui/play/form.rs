//! The free fields of a decision (or the key and file of an export), asked
//! one at a time: a field chosen from a list (one of, several of, yes or
//! no) as a sub-menu; any other typed on one line, read as `play --pick`
//! reads a `FIELD=VALUE` ([`Shape::read`]), its example offered as the
//! default. A value that does not read is refused with the reason, and the
//! field asked again. Pure: keys in, a form or its answers out.

use rollcall_core::moves::{Field, Shape};
use serde_json::Value;

use crate::tui::{wrap, Key};

/// One line of a field's sub-menu: what it shows, and the answer it gives
/// (none: the field is left out).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pick {
    label: String,
    typed: Option<String>,
}

/// The fields of one thing to fill in, and how far the user is.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    /// What is filled in ("#5 a leader or unit moves on the table").
    pub title: String,
    pub fields: Vec<Field>,
    /// The field asked now.
    pub at: usize,
    /// The answers so far, as typed; a field left out is not there.
    pub given: Vec<(String, String)>,
    /// What is typed, for a field typed on a line.
    pub input: String,
    /// The line of the sub-menu under the cursor.
    pub cursor: usize,
    /// The lines marked, for a field of several choices.
    pub marked: Vec<bool>,
    /// Why the last answer was not taken.
    pub error: String,
}

/// A form after a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Asking(Form),
    /// Every field answered: [`Form::given`] holds the answers.
    Filled(Form),
    Cancelled,
}

impl Form {
    /// A form asking `fields` in order, from the first.
    pub fn new(title: String, fields: Vec<Field>) -> Form {
        let mut form = Form {
            title,
            fields,
            at: 0,
            given: Vec::new(),
            input: String::new(),
            cursor: 0,
            marked: Vec::new(),
            error: String::new(),
        };
        form.ask(0);
        form
    }

    /// The same form, asking field `name` (and those after it) again,
    /// saying why: the engine refused what was given for it.
    pub fn again(mut self, name: &str, why: String) -> Form {
        let at = self.fields.iter().position(|f| f.name == name).unwrap_or(0);
        let later: Vec<&str> = self.fields[at..].iter().map(|f| f.name.as_str()).collect();
        self.given.retain(|(n, _)| !later.contains(&n.as_str()));
        self.ask(at);
        self.error = why;
        self
    }

    /// The answer given for `name`, as typed.
    pub fn answer(&self, name: &str) -> Option<&str> {
        self.given.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn field(&self) -> &Field {
        &self.fields[self.at]
    }

    /// Sets up field `at` to be asked: its default under the cursor, or
    /// marked.
    fn ask(&mut self, at: usize) {
        self.at = at;
        self.input.clear();
        self.error.clear();
        let field = &self.fields[at];
        let default = default_text(field);
        let Some((picks, several)) = picks(field) else { return };
        if several {
            let chosen: Vec<String> = default.iter().flat_map(|d| d.split(',')).map(str::to_string).collect();
            self.marked = picks.iter().map(|p| p.typed.as_ref().is_some_and(|t| chosen.contains(t))).collect();
            self.cursor = 0;
        } else {
            self.cursor = picks.iter().position(|p| p.typed == default).unwrap_or(0);
        }
    }

    /// The form after `key`.
    pub fn key(mut self, key: Key) -> Step {
        if matches!(key, Key::Esc | Key::Interrupt) {
            return Step::Cancelled;
        }
        self.error.clear();
        match picks(self.field()) {
            Some((picks, several)) => self.pick_key(&picks, several, key),
            None => self.typed_key(key),
        }
    }

    fn typed_key(mut self, key: Key) -> Step {
        match key {
            Key::Enter => {
                let typed = self.input.trim().to_string();
                self.take(if typed.is_empty() { None } else { Some(typed) })
            }
            Key::Backspace => {
                self.input.pop();
                Step::Asking(self)
            }
            Key::Char(c) => {
                self.input.push(c);
                Step::Asking(self)
            }
            _ => Step::Asking(self),
        }
    }

    fn pick_key(mut self, picks: &[Pick], several: bool, key: Key) -> Step {
        let last = picks.len().saturating_sub(1);
        match key {
            Key::Up | Key::Char('k') => self.cursor = self.cursor.saturating_sub(1),
            Key::Down | Key::Char('j') => self.cursor = (self.cursor + 1).min(last),
            Key::PageUp => self.cursor = self.cursor.saturating_sub(10),
            Key::PageDown => self.cursor = (self.cursor + 10).min(last),
            Key::Home => self.cursor = 0,
            Key::End => self.cursor = last,
            Key::Char(' ') if several => {
                if let Some(m) = self.marked.get_mut(self.cursor) {
                    *m = !*m;
                }
            }
            Key::Enter if several => {
                let chosen: Vec<&str> = picks
                    .iter()
                    .zip(&self.marked)
                    .filter(|(_, m)| **m)
                    .filter_map(|(p, _)| p.typed.as_deref())
                    .collect();
                if chosen.is_empty() && !self.field().required {
                    return self.next(None);
                }
                return self.check(chosen.join(","));
            }
            Key::Enter => {
                return match picks.get(self.cursor).and_then(|p| p.typed.clone()) {
                    Some(typed) => self.check(typed),
                    None => self.next(None),
                };
            }
            Key::Char(_) => self.error = choosing_words(several).into(),
            _ => {}
        }
        Step::Asking(self)
    }

    /// Takes what was typed (none: nothing), or the default.
    fn take(mut self, typed: Option<String>) -> Step {
        let field = self.field();
        match typed.or_else(|| default_text(field)) {
            Some(text) if text == "-" && !field.required => self.next(None),
            Some(text) => self.check(text),
            None if !field.required => self.next(None),
            None => {
                self.error = format!("{} must be given: {}", field.name, field.shape.words());
                Step::Asking(self)
            }
        }
    }

    /// The field's answer if it reads as its shape says; else the field
    /// asked again, with the reason.
    fn check(mut self, text: String) -> Step {
        match self.field().shape.read(&text) {
            Ok(_) => self.next(Some(text)),
            Err(why) => {
                self.error = why;
                self.input.clear();
                Step::Asking(self)
            }
        }
    }

    fn next(mut self, answer: Option<String>) -> Step {
        if let Some(text) = answer {
            let name = self.field().name.clone();
            self.given.push((name, text));
        }
        if self.at + 1 >= self.fields.len() {
            return Step::Filled(self);
        }
        self.ask(self.at + 1);
        Step::Asking(self)
    }

    /// What the form shows in `rows` lines of `width`: the field asked,
    /// what it is, its default, the answers so far, then its sub-menu (the
    /// cursor's line marked `true`) or the line typed.
    pub fn lines(&self, width: usize, rows: usize) -> Vec<(String, bool)> {
        let field = self.field();
        let mut head: Vec<String> = vec![self.title.clone(), String::new()];
        let whose = if field.referee { " (the referee's input)" } else { "" };
        head.push(format!("field {} of {}: {}{whose}", self.at + 1, self.fields.len(), field.name));
        head.push(format!("  {}", field.about));
        head.push(format!("  {}", field.shape.words()));
        head.push(match (default_text(field), field.required) {
            (Some(d), true) => format!("  default: {d} (Enter takes it)"),
            (Some(d), false) => format!("  default: {d} (Enter takes it; - leaves it out)"),
            (None, false) => "  may be left out (Enter leaves it out)".to_string(),
            (None, true) => match (&field.shape, &field.example) {
                (Shape::Dice { .. }, Some(e)) => format!("  type the faces rolled, e.g. {e}"),
                _ => "  no default: it must be given".to_string(),
            },
        });
        for (name, value) in &self.given {
            head.push(format!("  given: {name} = {value}"));
        }
        head.push(String::new());
        let mut lines: Vec<(String, bool)> = head.iter().flat_map(|l| wrap(l, width)).map(|l| (l, false)).collect();
        match picks(field) {
            Some((picks, several)) => {
                lines.push((format!("  ({})", choosing_words(several)), false));
                let room = rows.saturating_sub(lines.len() + 2).max(3);
                let start = (self.cursor + 1).saturating_sub(room);
                for (i, p) in picks.iter().enumerate().skip(start).take(room) {
                    let mark = match (several, self.marked.get(i)) {
                        (true, Some(true)) => "[x] ",
                        (true, _) => "[ ] ",
                        _ => "",
                    };
                    let cursor = if i == self.cursor { "> " } else { "  " };
                    lines.push((format!("{cursor}{mark}{}", p.label), i == self.cursor));
                }
            }
            None => lines.push((format!("{}> {}_", field.name, self.input), true)),
        }
        if !self.error.is_empty() {
            lines.push((String::new(), false));
            lines.extend(wrap(&format!("✗ {} — try again", self.error), width).into_iter().map(|l| (l, false)));
        }
        lines
    }
}

fn choosing_words(several: bool) -> &'static str {
    if several {
        "↑↓ move, Space marks or unmarks, Enter takes those marked, Esc goes back"
    } else {
        "↑↓ move, Enter chooses, Esc goes back"
    }
}

/// A field's sub-menu, if it is chosen from a list (and whether several
/// may be chosen): its choices, yes and no, and "leave it out" where it
/// may be.
fn picks(field: &Field) -> Option<(Vec<Pick>, bool)> {
    let pick =
        |label: &str, value: &Value| Pick { label: label.to_string(), typed: Some(typed_text(&field.shape, value)) };
    let (mut picks, several) = match &field.shape {
        Shape::OneOf { choices } => (choices.iter().map(|c| pick(&c.label, &c.value)).collect::<Vec<_>>(), false),
        Shape::SomeOf { choices, .. } => (choices.iter().map(|c| pick(&c.label, &c.value)).collect(), true),
        Shape::Flag => (vec![pick("yes", &Value::Bool(true)), pick("no", &Value::Bool(false))], false),
        _ => return None,
    };
    if !field.required && !several {
        picks.push(Pick { label: "(leave it out)".into(), typed: None });
    }
    Some((picks, several))
}

/// The field's example as a user would type it, offered as its default
/// (never for the dice rolled at a table: those are rolled, not chosen).
pub fn default_text(field: &Field) -> Option<String> {
    match (&field.shape, &field.example) {
        (Shape::Dice { .. }, _) | (_, None | Some(Value::Null)) => None,
        (shape, Some(example)) => Some(typed_text(shape, example)),
    }
}

/// A value as a user types it for its shape (what [`Shape::read`] reads
/// back): `120,40` for a point, `a,b` for several choices, `yes` for a
/// flag, JSON for a list or an object.
pub fn typed_text(shape: &Shape, value: &Value) -> String {
    let bare = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match (shape, value) {
        (Shape::Flag, Value::Bool(yes)) => if *yes { "yes" } else { "no" }.to_string(),
        (Shape::Point { .. } | Shape::SomeOf { .. }, Value::Array(items)) => {
            items.iter().map(bare).collect::<Vec<_>>().join(",")
        }
        (Shape::EachOf { .. } | Shape::ListOf { .. } | Shape::Dice { .. } | Shape::Json, v) => v.to_string(),
        (_, v) => bare(v),
    }
}
