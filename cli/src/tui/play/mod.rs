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
//!
//! On a dice server ([`Venue::Server`], [`served`]) the listing is the
//! server's, for the token's side, and a pick is sent at once, decided and
//! written there: nothing is held, taken back or ended.

mod form;

use rollcall_core::digest::Digest;
use rollcall_core::game::Game;
use rollcall_core::moves::{self, Entry, Listing};
use rollcall_core::record::Event;
use rollcall_core::text;
use serde_json::Value;

use form::{Form, Step};
pub use served::{Sent, Served};

use super::{wrap, Key};

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

/// Where the turn is played: where its listing comes from and where a
/// pick goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Venue {
    /// This store: the listing is made here; a pick is decided on a copy
    /// of the game and held until the turn is written (`e`).
    Store,
    /// The dice server at `url`: the listing is the server's, for the
    /// token's side; a pick is sent at once, and decided and written there.
    Server { url: String },
}

/// Something only the edge can do: the model asks, the command (`commands/play/`) does it.
#[derive(Clone)]
pub enum Request {
    /// Append the turn's events on `expected`, the head the turn began
    /// from, in one batch; `game` is the game after them.
    Write { expected: Digest, events: Vec<Event>, game: Box<Game> },
    /// Sign and export the turn, as `rollcall turn export GAME --key KEY -o OUTPUT`.
    Export { key: String, output: String },
    /// Send `decision` (the entry `pick`, its fields filled in) to the
    /// server on `expected`, the head it was listed on.
    Send { pick: String, decision: Value, expected: String },
    /// Read the server's game again if its head is no longer `head`.
    Follow { head: Digest },
}

/// What the edge did with a [`Request`]: its report, or why it failed.
#[derive(Clone)]
pub enum Outcome {
    Written(Result<(), String>),
    Exported(Result<Vec<String>, String>),
    /// What the server answered the decision `pick` (or why nothing was
    /// written), and the game read again after it.
    Sent {
        pick: String,
        answer: Result<Sent, String>,
        now: Result<Box<Served>, String>,
    },
    /// The server's game read again: none while its head has not moved.
    Followed(Result<Option<Box<Served>>, String>),
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
    venue: Venue,
    /// On a server: the last lines of `earlier` that are new since the
    /// game was last read (the last decision's outcome, the opponent's).
    fresh: usize,
    /// On a server: the game has ended; nothing more may be decided.
    ended: bool,
    /// On a server: the last reading of the game failed (its message shown).
    lost: bool,
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
    /// The turn in this store.
    pub fn new(opened: Opened) -> Model {
        let side = crate::output::listing::listed_side(&opened.game, None, opened.by.clone());
        let listing = listing(&opened.game, side.as_deref());
        Model::at(Venue::Store, opened, side, listing)
    }

    fn at(venue: Venue, opened: Opened, side: Option<String>, listing: Listing) -> Model {
        let Opened { game, by, earlier, key_file } = opened;
        let header = game.header();
        Model {
            id: header.game.clone(),
            rules: header.rules.label(),
            by,
            listing,
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
            venue,
            fresh: 0,
            ended: false,
            lost: false,
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
            Key::Char('u') if self.venue == Venue::Store => return self.take_back(),
            Key::Char('e') if self.venue == Venue::Store => return self.end(),
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

mod decide;
mod screen;
mod served;
mod write;

#[cfg(test)]
mod tests;
