//! Ending the turn: the decisions held written to the store in one append
//! (by the edge, asked through [`Model::request`]), what the model does
//! with the outcome, and the questions after it (export and sign the turn
//! in a play-by-email game).

use rollcall_core::moves::{Field, Shape};
use rollcall_core::words::possessive;
use serde_json::Value;

use super::form::Form;
use super::{decisions, Key, Model, Open, Outcome, Question, Request};

impl Model {
    pub(super) fn end(mut self) -> Model {
        if self.pending.is_empty() {
            return self.after_write();
        }
        let events = self.pending.iter().flat_map(|p| p.events.iter().cloned()).collect();
        self.request = Some(Request::Write { expected: self.base.head(), events, game: Box::new(self.game.clone()) });
        self.said_now("writing the turn to the store…")
    }

    pub(super) fn after_write(self) -> Model {
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
            Outcome::Sent { pick, answer, now } => self.sent(pick, answer, now),
            Outcome::Followed(now) => self.followed(now),
        }
    }

    pub(super) fn answer_key(mut self, question: Question, key: Key) -> Model {
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
    pub(super) fn export_form(&self) -> Form {
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

    pub(super) fn export(mut self, form: Form) -> Model {
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

    pub(super) fn not_exported(mut self) -> Model {
        let said = format!(
            "not exported: `rollcall turn export {} --key KEY -o FILE` signs and writes it when you are ready",
            self.id
        );
        self.said.push(said.clone());
        self.said_now(said)
    }
}
