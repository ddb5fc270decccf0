//! What the interactive turn shows, as lines: the menu (or the field
//! asked, or the question, or, on a server, whose decision it waits for),
//! the table, the narrative with the last decision's outcome marked, and a
//! status line.

use super::{decisions, lines, served, wrap, Model, Open, Panes, Question, Screen, Venue, HELP};
use crate::output::listing::entry_lines;
use rollcall_core::words::possessive;

impl Model {
    /// What the screen shows in panes of `panes`' sizes.
    pub fn screen(&self, panes: Panes) -> Screen {
        let (menu_title, menu) = match &self.open {
            Open::Decide(_, form) | Open::Export(form) => {
                (" fill in ".to_string(), form.lines(panes.menu_width, panes.menu_rows))
            }
            Open::Finished(said) => {
                let mut out: Vec<(String, bool)> =
                    said.iter().flat_map(|l| wrap(l, panes.menu_width)).map(|l| (l, false)).collect();
                out.push((String::new(), false));
                out.push(("(any key leaves)".to_string(), true));
                (" the turn is sent ".to_string(), out)
            }
            Open::Menu | Open::Ask(_) => (self.menu_title(), self.menu_lines(panes.menu_rows, panes.menu_width)),
        };
        let question = match &self.open {
            Open::Ask(q) => Some(self.question(*q)),
            _ => None,
        };
        let who = match (&self.venue, &self.by) {
            (Venue::Server { url }, Some(side)) => format!("you play {side} on the server {url}"),
            (Venue::Server { url }, None) => format!("on the server {url}"),
            (Venue::Store, Some(side)) => format!("you play {side}, by email"),
            (Venue::Store, None) => "every side plays on this machine".to_string(),
        };
        let keys = match self.venue {
            Venue::Store => HELP,
            Venue::Server { .. } => served::HELP,
        };
        Screen {
            title: format!("rollcall play · {} · {} · {who}", self.id, self.rules),
            menu_title,
            menu,
            state: lines(&self.game.render()).iter().flat_map(|l| wrap(l, panes.table_width)).collect(),
            narrative: self.narrative(panes.narrative_rows, panes.narrative_width),
            question,
            message: self.message.clone(),
            status: self.status(),
            help: self.help.then(|| keys.iter().map(|(keys, what)| format!("{keys:<12} {what}")).collect()),
        }
    }

    /// Where the game is, and what the keys do here.
    fn status(&self) -> String {
        let at = format!("turn {} · seq {} · {} to decide", self.game.turn(), self.game.seq(), self.game.awaited());
        match self.venue {
            Venue::Store => format!("{at} · {} not written · ? keys · q quit", decisions(self.pending.len())),
            Venue::Server { .. } if self.ended => format!("{at} · the game has ended · q quit"),
            Venue::Server { .. } if self.waiting_for().is_some() => {
                format!("{at} · waiting: the server is read every second · ? keys · q quit")
            }
            Venue::Server { .. } => format!("{at} · Enter sends the decision to the server · ? keys · q quit"),
        }
    }

    fn menu_title(&self) -> String {
        match &self.side {
            Some(side) => format!(" what {side} may do "),
            None => " the referee's inputs ".to_string(),
        }
    }

    /// The listing, the entry under the cursor marked, as many lines as
    /// fit with that entry among them.
    fn menu_lines(&self, rows: usize, width: usize) -> Vec<(String, bool)> {
        let l = &self.listing;
        let whom = self.side.clone().unwrap_or_else(|| "the referee".into());
        let own = l.groups.iter().any(|g| !g.referee);
        let server = self.venue != Venue::Store;
        let first = match (&self.side, own, l.is_empty()) {
            _ if self.ended => "The game has ended: nothing more may be decided (q quits).".to_string(),
            _ if self.waiting_for().is_some() => format!(
                "Waiting for {} to decide: their decisions appear here as the server makes them (q quits).",
                self.listing.awaited
            ),
            (_, _, true) if server => format!("Nothing is legal for {whom} now (q quits)."),
            (_, _, true) => format!("Nothing is legal for {whom} now: e ends the turn, q quits."),
            (Some(side), false, _) => {
                format!("{side} has nothing of its own to decide now ({} to decide).", self.game.awaited())
            }
            _ => format!("What {whom} may do now:"),
        };
        let mut out: Vec<(String, bool)> = wrap(&first, width).into_iter().map(|l| (l, false)).collect();
        if self.ended {
            return out;
        }
        let mut referee_said = false;
        for group in &l.groups {
            if group.referee && !referee_said && self.side.is_some() {
                out.push((String::new(), false));
                out.push(("The referee's inputs (either side may enter them):".to_string(), false));
                referee_said = true;
            }
            out.push((String::new(), false));
            out.push((group.title.clone(), false));
            for entry in &group.entries {
                let chosen = entry.n == self.cursor + 1;
                let first = out.len();
                for line in entry_lines(entry) {
                    out.extend(wrap(&line, width).into_iter().map(|piece| (piece, chosen)));
                }
                if let (true, Some(rest)) = (chosen, out[first].0.strip_prefix(' ')) {
                    out[first].0 = format!(">{rest}");
                }
            }
        }
        let last = out.iter().rposition(|(_, chosen)| *chosen).unwrap_or(0);
        out.drain(..(last + 1).saturating_sub(rows.max(1)));
        out
    }

    /// The events before the turn, then this turn's, the last decision's
    /// marked: the last `rows` lines.
    fn narrative(&self, rows: usize, width: usize) -> Vec<(String, bool)> {
        let mut out: Vec<(String, bool)> = Vec::new();
        let mut add = |line: &str, marked: bool| out.extend(wrap(line, width).into_iter().map(|l| (l, marked)));
        // On a server, what is new since the game was last read is marked.
        let fresh = self.earlier.len().saturating_sub(self.fresh);
        for (i, line) in self.earlier.iter().enumerate() {
            add(line, i >= fresh);
        }
        if !self.written.is_empty() || !self.pending.is_empty() {
            add("— this turn —", false);
        }
        for line in &self.written {
            add(line, false);
        }
        for (i, p) in self.pending.iter().enumerate() {
            for line in &p.lines {
                add(line, i + 1 == self.pending.len());
            }
        }
        out.drain(..out.len().saturating_sub(rows.max(1)));
        out
    }

    fn question(&self, question: Question) -> String {
        let awaited = self.game.awaited().to_string();
        match (question, &self.by) {
            (Question::Discard, _) => format!(
                "quit and throw away the {} not written? y: quit, writing nothing · n: go back · e: write first",
                decisions(self.pending.len())
            ),
            (Question::EndTurn, Some(me)) => format!(
                "{awaited} to decide now: {} turn is over. End it? y: write it, then export · n: not yet",
                possessive(me)
            ),
            (Question::EndTurn, None) => {
                format!("{awaited} to decide now. End the turn here? y: write it · n: play on as {awaited}")
            }
            (Question::Export, _) => {
                "export and sign this turn now? y: choose the key and the file · n: not now".into()
            }
        }
    }
}
