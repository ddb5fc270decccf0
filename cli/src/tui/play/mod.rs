//! `rollcall play GAME` on a terminal: a turn played from a menu. The
//! decisions legal now ([`rollcall_core::moves`], as `rollcall moves` lists
//! them) for the side this store plays in a play-by-email game, else the
//! side the game awaits, then the referee's inputs; Enter picks one, its
//! free fields are asked one by one ([`form`]), it is decided and its
//! outcome (the narrative of its events, dice included) shown, and the
//! menu is listed again for the game after it.
//!
//! **The turn is played on a copy of the game in memory, and written to
//! the store in one append when it ends.** The store only appends and its
//! events are durable, so a decision written there cannot be taken back; a
//! decision of this turn not yet written can (`u`). So the model holds the
//! game as the store has it (its head) and, on top of it, the decisions of
//! this turn, each with the game before it: `u` drops the last and goes
//! back to that game. `e` ends the turn: every decision held is appended in
//! one batch on the head the turn began from (all or nothing, as `play`
//! appends a file of several decisions), and only once the store says it
//! is durable does the interface say "wrote". A crash, a kill or `q`
//! before that leaves the store as it was (`q` asks first); after it,
//! every decision said to be written is there. If the store's game moved
//! on meanwhile (a turn applied from another terminal), the append is
//! refused and nothing is written. In a play-by-email game the turn then
//! ends with "export and sign this turn now?", which writes the turn file
//! as `rollcall turn export` does.
//!
//! Taking back does not re-roll: in an open game a decision's dice are a
//! function of the seed and the decision's number (`core/src/dice.rs`),
//! so a decision taken back and decided again draws the same dice — and
//! anyone holding the header could have computed them anyway. At a table,
//! the faces are typed in as rolled.
//!
//! The model is pure, as the replay's is: [`Model::key`] moves it (state +
//! key -> state), [`Model::screen`] says what the screen shows. What must
//! touch the store or a file (writing the turn, exporting it) the model
//! asks for ([`Model::request`]); the command (`commands/play/terminal.rs`) does it and hands back the
//! [`Outcome`] ([`Model::answer`]); `tui::term` draws and reads keys.

mod form;

use rollcall_core::digest::Digest;
use rollcall_core::game::{describe_decision, Game};
use rollcall_core::moves::{self, Entry, Field, Listing, Shape};
use rollcall_core::record::Event;
use rollcall_core::ruleset::{Actor, Refusal};
use rollcall_core::script::split_dice;
use rollcall_core::text;
use rollcall_core::words::possessive;
use serde_json::Value;

use form::{Form, Step};

use super::{wrap, Key};
use crate::output::listing::only_one_value;

/// What the turn starts from, read from the store.
pub struct Opened {
    /// The game at the store's head.
    pub game: Game,
    /// The side this store plays, in a play-by-email game (its decisions
    /// are made as that side, and the turn ends with an export).
    pub by: Option<String>,
    /// The narrative of the last events before the turn, one line each.
    pub earlier: Vec<String>,
    /// A key file to offer for the export (one here holding the side's key).
    pub key_file: Option<String>,
}

/// Something only the edge can do: the model asks, the command (`commands/play/terminal.rs`) does it.
#[derive(Clone)]
pub enum Request {
    /// Append the turn's events on `expected`, the head the turn began
    /// from, in one batch; `game` is the game after them.
    Write { expected: Digest, events: Vec<Event>, game: Box<Game> },
    /// Sign and export the turn, as `rollcall turn export GAME --key KEY -o OUTPUT`.
    Export { key: String, output: String },
}

/// What the edge did with a [`Request`]: its report, or why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Written(Result<(), String>),
    Exported(Result<Vec<String>, String>),
}

/// A decision of this turn, decided on the copy, not yet written.
#[derive(Clone)]
struct Pending {
    pick: String,
    /// The game before it: where `u` goes back to.
    before: Game,
    events: Vec<Event>,
    /// Its events narrated.
    lines: Vec<String>,
}

/// A question the user answers with y or n.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Question {
    /// Quit, throwing away the decisions not written?
    Discard,
    /// Another side is to decide: end the turn?
    EndTurn,
    /// Export and sign the turn now?
    Export,
}

/// What is open over the game.
#[derive(Clone)]
enum Open {
    Menu,
    /// The fields of an entry, being asked.
    Decide(Box<Entry>, Form),
    /// The key and file of the export, being asked.
    Export(Form),
    Ask(Question),
    /// The turn is over (exported): what was done; any key leaves.
    Finished(Vec<String>),
}

/// An interactive turn: the game, the decisions held, what is open.
#[derive(Clone)]
pub struct Model {
    id: String,
    rules: String,
    by: Option<String>,
    /// The side listed (none: the referee's inputs alone).
    side: Option<String>,
    /// The game as the store has it.
    base: Game,
    /// `base` and the decisions held.
    game: Game,
    pending: Vec<Pending>,
    listing: Listing,
    /// The entry under the cursor (from 0, in number order).
    cursor: usize,
    /// The digits just typed: the number of the entry to go to.
    number: String,
    open: Open,
    help: bool,
    earlier: Vec<String>,
    /// This turn's decisions written so far, narrated.
    written: Vec<String>,
    key_file: Option<String>,
    /// What the last key or outcome did, or why it could not.
    pub message: String,
    /// What the edge must do before the next key.
    pub request: Option<Request>,
    /// What was done, printed when the interface closes.
    pub said: Vec<String>,
    pub quit: bool,
}

/// The keys, as `?` shows them.
pub const HELP: &[(&str, &str)] = &[
    ("↑ k  ↓ j", "move through the decisions (PgUp PgDn Home End too)"),
    ("1 2 …", "go to the decision of that number"),
    ("Enter", "choose it: its fields are asked, then it is decided and its outcome shown"),
    ("u", "take back the last decision not yet written"),
    ("e", "end the turn: write its decisions to the store (then, by email, export it)"),
    ("?", "this help (any key closes it)"),
    ("q  Esc", "quit (asking first if decisions are not written)"),
    ("in a field", "type, then Enter (nothing typed: the default); Esc goes back"),
];

/// Heights and widths of the panes the model fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Panes {
    pub menu_rows: usize,
    pub table_width: usize,
    pub menu_width: usize,
    pub narrative_rows: usize,
    pub narrative_width: usize,
}

/// A screen, as lines: what `tui::term` draws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screen {
    pub title: String,
    /// The left pane's title and lines (`true`: highlighted).
    pub menu_title: String,
    pub menu: Vec<(String, bool)>,
    /// The table: the state as `state` renders it.
    pub state: Vec<String>,
    /// The narrative, the last lines that fit; `true` marks the last
    /// decision's outcome.
    pub narrative: Vec<(String, bool)>,
    /// A question waiting for y or n.
    pub question: Option<String>,
    pub message: String,
    pub status: String,
    pub help: Option<Vec<String>>,
}

impl Model {
    pub fn new(opened: Opened) -> Model {
        let Opened { game, by, earlier, key_file } = opened;
        let header = game.header();
        let side = crate::output::listing::listed_side(&game, None, by.clone());
        Model {
            id: header.game.clone(),
            rules: header.rules.label(),
            by,
            listing: listing(&game, side.as_deref()),
            side,
            base: game.clone(),
            game,
            pending: Vec::new(),
            cursor: 0,
            number: String::new(),
            open: Open::Menu,
            help: false,
            earlier,
            written: Vec::new(),
            key_file,
            message: String::new(),
            request: None,
            said: Vec::new(),
            quit: false,
        }
    }

    /// The model after `key`.
    pub fn key(mut self, key: Key) -> Model {
        self.message.clear();
        // Ctrl-C leaves from anywhere, asking first if decisions are held.
        if key == Key::Interrupt && !matches!(self.open, Open::Ask(Question::Discard)) {
            self.help = false;
            return match self.pending.is_empty() {
                true => self.leave(),
                false => self.opened(Open::Ask(Question::Discard)),
            };
        }
        if self.help {
            self.help = false;
            return self;
        }
        match std::mem::replace(&mut self.open, Open::Menu) {
            Open::Menu => self.menu_key(key),
            Open::Decide(entry, form) => match form.key(key) {
                Step::Asking(form) => self.opened(Open::Decide(entry, form)),
                Step::Filled(form) => self.decide(*entry, Some(form)),
                Step::Cancelled => self.said_now("back to the menu: nothing was decided"),
            },
            Open::Export(form) => match form.key(key) {
                Step::Asking(form) => self.opened(Open::Export(form)),
                Step::Filled(form) => self.export(form),
                Step::Cancelled => self.not_exported(),
            },
            Open::Ask(question) => self.answer_key(question, key),
            Open::Finished(lines) => {
                self.quit = true;
                self.opened(Open::Finished(lines))
            }
        }
    }

    fn leave(mut self) -> Model {
        self.quit = true;
        self
    }

    fn opened(mut self, open: Open) -> Model {
        self.open = open;
        self
    }

    fn said_now(mut self, message: impl Into<String>) -> Model {
        self.message = message.into();
        self
    }

    fn menu_key(mut self, key: Key) -> Model {
        let last = self.listing.len().saturating_sub(1);
        let typed = std::mem::take(&mut self.number);
        match key {
            Key::Char(digit @ '0'..='9') => self.go_to_number(typed, digit),
            Key::Up | Key::Char('k') => self.cursor = self.cursor.saturating_sub(1),
            Key::Down | Key::Char('j') => self.cursor = (self.cursor + 1).min(last),
            Key::PageUp => self.cursor = self.cursor.saturating_sub(10),
            Key::PageDown => self.cursor = (self.cursor + 10).min(last),
            Key::Home | Key::Char('g') => self.cursor = 0,
            Key::End | Key::Char('G') => self.cursor = last,
            Key::Enter => return self.pick(),
            Key::Char('u') => return self.take_back(),
            Key::Char('e') => return self.end(),
            Key::Char('?') => self.help = true,
            Key::Char('q') | Key::Esc if self.pending.is_empty() => self.quit = true,
            Key::Char('q') | Key::Esc => return self.opened(Open::Ask(Question::Discard)),
            _ => self.message = "? shows the keys".into(),
        }
        self
    }

    /// Moves the cursor to the entry whose number is typed: `typed` and
    /// `digit` if the listing has it, else `digit` alone.
    fn go_to_number(&mut self, mut typed: String, digit: char) {
        typed.push(digit);
        let count = self.listing.len();
        let number = match typed.parse::<usize>() {
            Ok(n) if (1..=count).contains(&n) => n,
            _ => {
                typed = digit.to_string();
                match digit.to_digit(10).map(|d| d as usize) {
                    Some(n) if (1..=count).contains(&n) => n,
                    _ => {
                        self.message = format!("the list has {count} decisions (1 to {count})");
                        return;
                    }
                }
            }
        };
        self.cursor = number - 1;
        self.number = typed;
    }

    /// Opens the entry under the cursor: its fields asked, or, with none
    /// to ask, decided at once.
    fn pick(self) -> Model {
        let Some(entry) = self.listing.entries().nth(self.cursor).cloned() else {
            return self.said_now("nothing to choose: nothing is listed (e ends the turn, q quits)");
        };
        let fields: Vec<Field> = entry.fields.iter().filter(|f| !only_one_value(f)).cloned().collect();
        if fields.is_empty() {
            return self.decide(entry, None);
        }
        let form = Form::new(format!("{}. {}", entry.n, entry.says), fields);
        self.opened(Open::Decide(Box::new(entry), form))
    }

    /// Decides `entry` with the fields given in `form`, on the copy.
    fn decide(mut self, entry: Entry, form: Option<Form>) -> Model {
        let given = form.as_ref().map(|f| f.given.clone()).unwrap_or_default();
        let decision = match entry.fill(&given, false).map(split_dice) {
            Ok(Ok(split)) => split,
            Ok(Err((field, message))) => return self.refused(entry, form, Refusal::Malformed { field, message }),
            Err(e) => return self.said_now(format!("{}: {e}", entry.pick)),
        };
        let (decision, dice) = decision;
        let before = self.game.clone();
        match self.game.play_as(&decision, dice.as_ref(), self.by.as_deref()) {
            Ok(events) => self.decided(describe_decision(&decision), before, events),
            Err(refusal) => self.refused(entry, form, refusal),
        }
    }

    /// A refusal: a field named by it is asked again, with the reason;
    /// otherwise the menu says why. Nothing was decided.
    fn refused(mut self, entry: Entry, form: Option<Form>, refusal: Refusal) -> Model {
        if let (Refusal::Malformed { field, message }, Some(form)) = (&refusal, &form) {
            let name = field.split(['.', '[']).next().unwrap_or_default();
            if form.fields.iter().any(|f| f.name == name) {
                let form = form.clone().again(name, message.clone());
                return self.opened(Open::Decide(Box::new(entry), form));
            }
        }
        self.message = format!("{}: refused: {refusal} (nothing was decided)", entry.pick);
        self
    }

    fn decided(mut self, pick: String, before: Game, events: Vec<Event>) -> Model {
        let number = self.game.decisions();
        let lines = events.iter().flat_map(|e| lines(&self.game.narrate(e))).collect();
        self.message = format!("#{number} {pick}: decided (u takes it back; e ends the turn and writes it)");
        self.pending.push(Pending { pick, before, events, lines });
        let was = self.side.clone();
        self.refresh();
        match (was, self.game.awaited()) {
            (Some(was), Actor::Side(now)) if now != was => self.opened(Open::Ask(Question::EndTurn)),
            _ => self,
        }
    }

    /// Lists again for the game as played: this store's side in a
    /// play-by-email game, else the side awaited (none: the referee), as
    /// when the turn opened.
    fn refresh(&mut self) {
        self.side = crate::output::listing::listed_side(&self.game, None, self.by.clone());
        self.listing = listing(&self.game, self.side.as_deref());
        self.cursor = 0;
    }

    fn take_back(mut self) -> Model {
        let Some(last) = self.pending.pop() else {
            let why = if self.written.is_empty() {
                "nothing to take back: no decision made yet"
            } else {
                "nothing to take back: what is written to the store stays there (the store only appends)"
            };
            return self.said_now(why);
        };
        let number = last.before.decisions() + 1;
        self.game = last.before;
        self.refresh();
        self.said_now(format!("took back #{number} {}: it was never written", last.pick))
    }

    /// Ends the turn: asks the edge to write the decisions held.
    fn end(mut self) -> Model {
        if self.pending.is_empty() {
            return self.after_write();
        }
        let events = self.pending.iter().flat_map(|p| p.events.iter().cloned()).collect();
        self.request = Some(Request::Write { expected: self.base.head(), events, game: Box::new(self.game.clone()) });
        self.said_now("writing the turn to the store…")
    }

    fn after_write(self) -> Model {
        match self.by {
            Some(_) => self.opened(Open::Ask(Question::Export)),
            None if self.message.is_empty() => self.said_now("nothing to write: no decision made yet (q quits)"),
            None => self,
        }
    }

    /// The model once the edge has done what it asked.
    pub fn answer(mut self, outcome: Outcome) -> Model {
        self.request = None;
        match outcome {
            Outcome::Written(Ok(())) => {
                let events: usize = self.pending.iter().map(|p| p.events.len()).sum();
                let said = format!(
                    "wrote {} ({events} events) to the store: game {} at seq {}, head {}",
                    decisions(self.pending.len()),
                    self.id,
                    self.game.seq(),
                    self.game.head()
                );
                self.written.extend(self.pending.drain(..).flat_map(|p| p.lines));
                self.base = self.game.clone();
                self.said.push(said.clone());
                self.message = said;
                self.after_write()
            }
            Outcome::Written(Err(e)) => {
                let n = decisions(self.pending.len());
                self.said_now(format!(
                    "{e}: nothing was written; the {n} of this turn are still held (q throws them away)"
                ))
            }
            Outcome::Exported(Ok(lines)) => {
                self.said.extend(lines.iter().cloned());
                self.opened(Open::Finished(lines))
            }
            Outcome::Exported(Err(e)) => {
                let form = self.export_form();
                self.opened(Open::Export(form.again("key", e)))
            }
        }
    }

    fn answer_key(mut self, question: Question, key: Key) -> Model {
        let yes = matches!(key, Key::Char('y' | 'Y'));
        let no = matches!(key, Key::Char('n' | 'N') | Key::Esc);
        match question {
            Question::Discard if yes || key == Key::Interrupt => {
                let n = decisions(self.pending.len());
                self.said.push(format!("quit: threw away {n} not written; the store is as it was"));
                self.quit = true;
                self
            }
            Question::Discard if key == Key::Char('e') => self.end(),
            Question::EndTurn if yes || key == Key::Enter => self.end(),
            Question::Export if yes || key == Key::Enter => {
                let form = self.export_form();
                self.opened(Open::Export(form))
            }
            Question::Export if no => self.not_exported(),
            _ if no => self,
            _ => self.opened(Open::Ask(question)),
        }
    }

    /// The export's two fields: the key file and the turn file.
    fn export_form(&self) -> Form {
        let side = self.by.clone().unwrap_or_default();
        let previous = |name: &str| match &self.open {
            Open::Export(form) => form.answer(name).map(str::to_string),
            _ => None,
        };
        let about = format!("{} secret key file (from `rollcall keygen`)", possessive(&side));
        let mut key = Field::new("key", about, Shape::Text, Value::Null);
        key.example = previous("key").or_else(|| self.key_file.clone()).map(Value::String);
        // The checkpoint the export signs is the next event: the turn file's head.
        let file = previous("output").unwrap_or_else(|| format!("{}-{side}-{}.txt", self.id, self.game.seq() + 1));
        let about = "the turn file to write (a new file): send it to your opponent";
        let output = Field::new("output", about, Shape::Text, Value::String(file));
        Form::new("export and sign this turn".to_string(), vec![key, output])
    }

    fn export(mut self, form: Form) -> Model {
        let (key, output) = (form.answer("key").unwrap_or_default(), form.answer("output").unwrap_or_default());
        if output == "-" {
            let form =
                form.clone().again("output", "give a file's name: the screen is not the place for the turn".into());
            return self.opened(Open::Export(form));
        }
        self.request = Some(Request::Export { key: key.to_string(), output: output.to_string() });
        let form = form.clone();
        self.said_now("signing and exporting the turn…").opened(Open::Export(form))
    }

    fn not_exported(mut self) -> Model {
        let said = format!(
            "not exported: `rollcall turn export {} --key KEY -o FILE` signs and writes it when you are ready",
            self.id
        );
        self.said.push(said.clone());
        self.said_now(said)
    }
}

/// A listing for `side`, or, should the game not have it, the referee's.
fn listing(game: &Game, side: Option<&str>) -> Listing {
    match moves::list(game, side) {
        Ok(listing) => listing,
        Err(_) => moves::list(game, None).expect("the referee's inputs are always listed"),
    }
}

fn decisions(n: usize) -> String {
    match n {
        1 => "1 decision".to_string(),
        n => format!("{n} decisions"),
    }
}

/// A text as lines, escaped for a terminal.
fn lines(text: &str) -> Vec<String> {
    text.trim_end().lines().map(|l| text::escape(l).into_owned()).collect()
}

mod screen;

#[cfg(test)]
mod tests;
