//! The turn against a dice server ([`Venue::Server`]): the game and its
//! listing as the server gives them ([`Served`]), a pick sent at once
//! ([`Request::Send`]) and the server's answer shown, and the game read
//! again now and then ([`Request::Follow`]), so that the other side's
//! decisions appear as they are made and the menu comes back when the game
//! awaits this side again.

use rollcall_core::game::Game;
use rollcall_core::moves::{Entry, Listing};

use super::form::Form;
use super::{Model, Open, Opened, Request, Venue};
use crate::output::listing::REFEREE;

/// The keys against a server, as `?` shows them: nothing is held, so
/// nothing is taken back, and nothing is left to write when the turn ends.
pub const HELP: &[(&str, &str)] = &[
    ("↑ k  ↓ j", "move through the decisions (PgUp PgDn Home End too)"),
    ("1 2 …", "go to the decision of that number"),
    ("Enter", "choose it: its fields are asked, then it is sent to the server, which decides it and draws its dice"),
    ("?", "this help (any key closes it)"),
    ("q  Esc", "quit (what the server wrote stays written: it cannot be taken back)"),
    ("in a field", "type, then Enter (nothing typed: the default); Esc goes back"),
];

/// The game as a dice server has it, read by the edge.
#[derive(Clone)]
pub struct Served {
    /// The game, folded here from the server's record (each link checked).
    pub game: Game,
    /// The server's listing for the token's side, made on the game's head.
    pub listing: Listing,
    /// The narrative's last lines, each with the seq of its event.
    pub lines: Vec<(u64, String)>,
    pub ended: bool,
}

/// What the server answered a decision it took. (A refusal of the whole
/// request, or an answer that never came, is the edge's `Err`: the
/// server's message, or the connection's, and what it means for the game.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// Why the server refused the decision, though it answered 200.
    pub refused: Option<String>,
    /// The server's signature over its new head is the server's.
    pub signed: bool,
}

impl Model {
    /// The turn on the dice server at `url`, from the game as it gives it.
    pub fn served(url: String, served: Served) -> Model {
        let side = served.listing.side.clone();
        let opened = Opened { game: served.game.clone(), by: side.clone(), earlier: Vec::new(), key_file: None };
        let mut model = Model::at(Venue::Server { url }, opened, side, served.listing.clone());
        model.took(served);
        model
    }

    /// Whether the server's game is to be read again when no key comes:
    /// on a server, a game not ended, with the menu up (a decision being
    /// filled in is sent on the head it was listed on) and nothing asked.
    pub fn follows(&self) -> bool {
        matches!(self.venue, Venue::Server { .. })
            && !self.ended
            && matches!(self.open, Open::Menu)
            && self.request.is_none()
    }

    /// A while without a key: the server's game read again, if followed.
    pub fn tick(mut self) -> Model {
        if self.follows() {
            self.request = Some(Request::Follow { head: self.game.head() });
        }
        self
    }

    /// The other side, when the game on a server awaits it: what the menu waits for.
    pub(super) fn waiting_for(&self) -> Option<&str> {
        let awaited = self.listing.awaited.as_str();
        let other = awaited != REFEREE && self.side.as_deref() != Some(awaited);
        (matches!(self.venue, Venue::Server { .. }) && !self.ended && other).then_some(awaited)
    }

    /// Sends `entry`, its fields filled in from `form`, to the server, on
    /// the head it was listed on.
    pub(super) fn send(mut self, entry: Entry, form: Option<Form>) -> Model {
        if self.ended {
            return self.said_now("the game has ended: nothing more may be decided (q quits)");
        }
        let given = form.map(|f| f.given).unwrap_or_default();
        match entry.fill(&given, false) {
            Ok(decision) => {
                let (pick, expected) = (entry.pick.clone(), self.listing.head.clone());
                self.request = Some(Request::Send { pick, decision, expected });
                self.said_now(format!("sending {} to the server…", entry.pick))
            }
            Err(e) => self.said_now(format!("{}: {e}", entry.pick)),
        }
    }

    /// What the server answered `pick`, and the game read again after it
    /// (a refusal too: the game may have moved on meanwhile).
    pub(super) fn sent(
        mut self,
        pick: String,
        answer: Result<Sent, String>,
        now: Result<Box<Served>, String>,
    ) -> Model {
        let read = match now {
            Ok(served) => {
                self.took(*served);
                String::new()
            }
            Err(e) => format!(" (the game could not be read again: {e})"),
        };
        self.message = match answer {
            Err(why) => format!("{pick}: {why}"),
            Ok(Sent { refused: Some(why), .. }) => format!("{pick}: refused: {why}: nothing was written"),
            Ok(Sent { signed, refused: None }) => {
                let signature = match signed {
                    true => "signed by the server (checked)",
                    false => "its signature is NOT the server's",
                };
                if !read.is_empty() {
                    self.said.push(format!("{pick}: decided by the server, {signature}"));
                    return self.said_now(format!("{pick}: decided by the server, {signature}{read}"));
                }
                let (n, seq, head) = (self.game.decisions(), self.game.seq(), self.game.head());
                self.said.push(format!(
                    "#{n} {pick}: decided by the server: game {} at seq {seq}, head {head}, {signature}",
                    self.id
                ));
                format!("#{n} {pick}: decided by the server: seq {seq}, head {}, {signature}", head.short())
            }
        } + &read;
        self
    }

    /// The server's game read again: none while it has not moved.
    pub(super) fn followed(mut self, now: Result<Option<Box<Served>>, String>) -> Model {
        match now {
            Ok(None) if self.lost => {
                self.lost = false;
                self.message.clear();
            }
            Ok(None) => {}
            Ok(Some(served)) => {
                let waited = self.waiting_for().is_some();
                self.took(*served);
                self.message = if self.ended {
                    "the game has ended: nothing more may be decided (q quits)".to_string()
                } else if waited && self.waiting_for().is_none() {
                    format!("your decision: {} to decide", self.listing.awaited)
                } else {
                    format!("the game moved on: seq {}, {} to decide", self.game.seq(), self.listing.awaited)
                };
            }
            Err(e) => {
                self.lost = true;
                self.message = format!("{e} (trying again)");
            }
        }
        self
    }

    /// The game as the server now has it, listed again; the lines of the
    /// events new since it was last read are marked.
    fn took(&mut self, served: Served) {
        let Served { game, listing, lines, ended } = served;
        if game.head() != self.game.head() {
            let before = self.game.seq();
            self.fresh = lines.iter().filter(|(seq, _)| *seq > before).count();
            self.cursor = 0;
        }
        self.earlier = lines.into_iter().map(|(_, line)| line).collect();
        self.cursor = self.cursor.min(listing.len().saturating_sub(1));
        (self.side, self.by) = (listing.side.clone(), listing.side.clone());
        self.listing = listing;
        self.base = game.clone();
        self.game = game;
        self.ended = ended;
        self.lost = false;
    }
}
