//! Deciding on the copy of the game: the entry under the cursor opened
//! (its fields asked, or decided at once), decided or refused, and the
//! last decision of the turn taken back.

use rollcall_core::game::{describe_decision, Game};
use rollcall_core::moves::{Entry, Field};
use rollcall_core::record::Event;
use rollcall_core::ruleset::{Actor, Refusal};
use rollcall_core::script::split_dice;

use super::form::Form;
use super::{lines, listing, Model, Open, Pending, Question, Venue};
use crate::output::listing::only_one_value;

impl Model {
    /// Opens the entry under the cursor: its fields asked, or, with none
    /// to ask, decided at once.
    pub(super) fn pick(self) -> Model {
        let Some(entry) = self.listing.entries().nth(self.cursor).cloned() else {
            return match self.venue {
                Venue::Store => self.said_now("nothing to choose: nothing is listed (e ends the turn, q quits)"),
                Venue::Server { .. } => self.said_now("nothing to choose: nothing is listed (q quits)"),
            };
        };
        let fields: Vec<Field> = entry.fields.iter().filter(|f| !only_one_value(f)).cloned().collect();
        if fields.is_empty() {
            return self.decide(entry, None);
        }
        let form = Form::new(format!("{}. {}", entry.n, entry.says), fields);
        self.opened(Open::Decide(Box::new(entry), form))
    }

    /// Decides `entry` with the fields given in `form`, on the copy; on a
    /// server, sends it there.
    pub(super) fn decide(mut self, entry: Entry, form: Option<Form>) -> Model {
        if self.venue != Venue::Store {
            return self.send(entry, form);
        }
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
    pub(super) fn refused(mut self, entry: Entry, form: Option<Form>, refusal: Refusal) -> Model {
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

    pub(super) fn decided(mut self, pick: String, before: Game, events: Vec<Event>) -> Model {
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
    pub(super) fn refresh(&mut self) {
        self.side = crate::output::listing::listed_side(&self.game, None, self.by.clone());
        self.listing = listing(&self.game, self.side.as_deref());
        self.cursor = 0;
    }

    pub(super) fn take_back(mut self) -> Model {
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
}
