//! `rollcall replay GAME --step` on a terminal: an interactive view of a
//! game that steps forward and back by event, decision and turn, jumps to a
//! seq, a decision or a turn, keeps bookmarks, and shows the narrative, the
//! rendered state and the dice of the current decision side by side.
//!
//! The view is a pure model: [`Replay`] is what the game is (read once from
//! the store, which is then released), [`Model`] is where the user is, and
//! [`Model::key`] moves it (state + key -> state); [`Model::screen`] says
//! what the screen shows (model -> lines). Only [`term`] touches a
//! terminal: it draws a [`Screen`] with ratatui and feeds keys back.
//!
//! [`play`] is `rollcall play GAME` on a terminal, built the same way: a
//! turn played from a menu of the decisions legal now.

pub mod play;
mod replay;
pub mod term;

pub use replay::Replay;

use std::collections::BTreeSet;

use crate::input::position::Position;
use crate::output::view::DieProof;

/// A key, as the model knows it (the terminal's are mapped onto these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Enter,
    Esc,
    Backspace,
    Left,
    Right,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    /// Ctrl-C.
    Interrupt,
}

/// Where the user is in a [`Replay`], and what is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// The position shown (0: the scenario; n: just after seq n).
    pub at: usize,
    pub bookmarks: BTreeSet<usize>,
    pub help: bool,
    /// The jump prompt's text, while it is open.
    pub prompt: Option<String>,
    /// A line for the status bar: what the last key did or why it could not.
    pub message: String,
    pub quit: bool,
}

/// The keys, as `?` shows them.
pub const HELP: &[(&str, &str)] = &[
    ("→ l n space", "next event"),
    ("← h p", "previous event"),
    ("↓ j ]", "to the end of the next decision"),
    ("↑ k [", "to the end of the previous decision"),
    ("PgDn }", "to the end of the next turn"),
    ("PgUp {", "to the end of the previous turn"),
    ("Home g / End G", "the scenario / the last event"),
    (":", "jump: d 7 (decision), t 2 (turn), s 30 or 30 (seq); Enter to go, Esc to cancel"),
    ("m", "bookmark this position (again: remove it)"),
    ("b / B", "next / previous bookmark"),
    ("?", "this help (any key closes it)"),
    ("q  Ctrl-C", "quit"),
];

impl Model {
    pub fn new(at: usize) -> Model {
        Model { at, bookmarks: BTreeSet::new(), help: false, prompt: None, message: String::new(), quit: false }
    }

    /// The model after `key`.
    pub fn key(mut self, replay: &Replay, key: Key) -> Model {
        self.message.clear();
        if key == Key::Interrupt {
            self.quit = true;
            return self;
        }
        if self.help {
            self.help = false;
            return self;
        }
        if let Some(text) = self.prompt.take() {
            return self.prompt_key(replay, text, key);
        }
        let last = replay.last();
        let ends = |turns: bool| ends(replay, turns);
        let next = |ends: Vec<usize>, at: usize| ends.into_iter().find(|&e| e > at);
        let previous = |ends: Vec<usize>, at: usize| ends.into_iter().rev().find(|&e| e < at);
        let moved = match key {
            Key::Char('q') => {
                self.quit = true;
                return self;
            }
            Key::Char('?') => {
                self.help = true;
                return self;
            }
            Key::Char(':') => {
                self.prompt = Some(String::new());
                return self;
            }
            Key::Char('m') => {
                self.toggle_bookmark();
                return self;
            }
            Key::Right | Key::Char('l' | 'n' | ' ') => (self.at < last).then(|| self.at + 1),
            Key::Left | Key::Char('h' | 'p') => self.at.checked_sub(1),
            Key::Down | Key::Char('j' | ']') => next(ends(false), self.at),
            Key::Up | Key::Char('k' | '[') => previous(ends(false), self.at),
            Key::PageDown | Key::Char('}') => next(ends(true), self.at),
            Key::PageUp | Key::Char('{') => previous(ends(true), self.at),
            Key::Home | Key::Char('g') => Some(0),
            Key::End | Key::Char('G') => Some(last),
            Key::Char('b') if self.bookmarks.is_empty() => {
                self.message = "no bookmarks yet: m marks this position".into();
                return self;
            }
            Key::Char('b') => self.bookmarks.range(self.at + 1..).next().or(self.bookmarks.iter().next()).copied(),
            Key::Char('B') if self.bookmarks.is_empty() => {
                self.message = "no bookmarks yet: m marks this position".into();
                return self;
            }
            Key::Char('B') => {
                self.bookmarks.range(..self.at).next_back().or(self.bookmarks.iter().next_back()).copied()
            }
            _ => {
                self.message = "? shows the keys".into();
                return self;
            }
        };
        match moved {
            Some(at) => self.at = at,
            None if self.at == 0 => self.message = "at the scenario, before the first event".into(),
            None => self.message = "at the last event".into(),
        }
        self
    }

    /// Bookmarks the position, or removes its bookmark.
    fn toggle_bookmark(&mut self) {
        if !self.bookmarks.remove(&self.at) {
            self.bookmarks.insert(self.at);
            self.message = format!("bookmarked seq {}", self.at);
        } else {
            self.message = format!("bookmark at seq {} removed", self.at);
        }
    }

    /// The model after `key` while the `:` prompt holds `text`.
    fn prompt_key(mut self, replay: &Replay, mut text: String, key: Key) -> Model {
        match key {
            Key::Esc => {}
            Key::Enter => match parse_jump(&text).and_then(|p| replay.resolve(p)) {
                Ok(at) => self.at = at,
                Err(why) => self.message = why,
            },
            Key::Backspace => {
                text.pop();
                self.prompt = Some(text);
            }
            Key::Char(c) => {
                text.push(c);
                self.prompt = Some(text);
            }
            _ => self.prompt = Some(text),
        }
        self
    }

    /// What the screen shows, `height` lines of `width` characters for the
    /// narrative (a longer line is wrapped, not cut).
    pub fn screen(&self, replay: &Replay, height: usize, width: usize) -> Screen {
        let frame = &replay.frames[self.at];
        let mut narrative = Vec::new();
        for (i, f) in replay.frames.iter().enumerate().take(self.at + 1) {
            for line in &f.narration {
                narrative.extend(wrap(line, width).into_iter().map(|piece| (piece, i == self.at)));
            }
        }
        let skip = narrative.len().saturating_sub(height.max(1));
        narrative.drain(..skip);
        let dice = match replay.decision_at(self.at) {
            None => vec!["(no decision here)".to_string()],
            Some(d) => {
                let of: Vec<String> = replay
                    .dice
                    .iter()
                    .filter(|die| die.decision == d.number && die.seq as usize <= self.at)
                    .map(|die| format!("seq {:<5} {}  [{}]", die.seq, die.text, proof_word(die.proof)))
                    .collect();
                if of.is_empty() {
                    vec![format!("decision {}: no dice rolled", d.number)]
                } else {
                    of
                }
            }
        };
        let marks: Vec<String> = self.bookmarks.iter().map(|b| b.to_string()).collect();
        let mut status = format!(
            "seq {}/{} · decision {}/{} · turn {}",
            self.at,
            replay.last(),
            frame.decision,
            replay.decisions.list.len(),
            frame.turn
        );
        if self.bookmarks.contains(&self.at) {
            status.push_str(" · bookmarked");
        }
        if !marks.is_empty() {
            status.push_str(&format!(" · bookmarks: {}", marks.join(", ")));
        }
        status.push_str(" · ? keys · q quit");
        Screen {
            title: format!("rollcall replay · {} · {} · {}", replay.game, replay.rules, replay.integrity),
            narrative,
            state: frame.state.clone(),
            dice,
            status,
            prompt: self.prompt.as_ref().map(|p| format!("jump to (d N, t N, s N): {p}")),
            message: self.message.clone(),
            help: self.help.then(|| HELP.iter().map(|(keys, what)| format!("{keys:<16} {what}")).collect()),
        }
    }
}

/// `line` in pieces of at most `width` characters, broken after a word
/// where one fits; the pieces after the first are indented by two more
/// than the line, so a reader sees that they go on.
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let lead = chars.iter().take_while(|c| **c == ' ').count();
    let indent = " ".repeat(lead + 2);
    let mut out = Vec::new();
    let mut rest = &chars[..];
    loop {
        let prefix = if out.is_empty() { "" } else { indent.as_str() };
        // Room for at least a few characters, however narrow the pane.
        let room = width.saturating_sub(prefix.len()).max(4);
        if rest.len() <= room {
            out.push(format!("{prefix}{}", rest.iter().collect::<String>()));
            return out;
        }
        let first_word = if out.is_empty() { lead } else { 0 };
        let cut = rest[..=room].iter().rposition(|c| *c == ' ').filter(|&i| i > first_word).unwrap_or(room);
        out.push(format!("{prefix}{}", rest[..cut].iter().collect::<String>().trim_end()));
        rest = &rest[cut..];
        while rest.first() == Some(&' ') {
            rest = &rest[1..];
        }
        if rest.is_empty() {
            return out;
        }
    }
}

/// What a die's proof is called on the screen.
pub fn proof_word(proof: DieProof) -> &'static str {
    match proof {
        DieProof::Proven => "proven",
        DieProof::Sealed => "sealed until its turn ends",
        DieProof::Unproven => "rolled at the table, unproven",
        DieProof::Unchecked => "not checked: the record fails before it",
    }
}

/// `d 7`, `decision 7`, `#7`, `t 2`, `turn 2`, `s 30`, `seq 30` or `30`.
pub fn parse_jump(text: &str) -> Result<Position, String> {
    let text = text.trim();
    let split = text.find(|c: char| c.is_ascii_digit()).unwrap_or(text.len());
    let (word, number) = text.split_at(split);
    let bad = || format!("{text:?}: write d N (a decision), t N (a turn) or s N (a seq)");
    let number: u64 = number.trim().parse().map_err(|_| bad())?;
    match word.trim() {
        "d" | "decision" | "#" => Ok(Position::Decision(number)),
        "t" | "turn" => Ok(Position::Turn(u32::try_from(number).map_err(|_| bad())?)),
        "s" | "seq" | "" => Ok(Position::Seq(number)),
        _ => Err(bad()),
    }
}

/// A screen, as lines: what [`term`] draws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screen {
    pub title: String,
    /// The narrative up to the position, the last lines that fit; `true`
    /// marks the current event's lines.
    pub narrative: Vec<(String, bool)>,
    pub state: Vec<String>,
    pub dice: Vec<String>,
    pub status: String,
    pub prompt: Option<String>,
    pub message: String,
    pub help: Option<Vec<String>>,
}

/// The seqs a step by decision (or by turn, with `turns`) stops at: 0, then
/// the last event of each decision (or turn).
fn ends(replay: &Replay, turns: bool) -> Vec<usize> {
    let mut ends: Vec<usize> = if turns {
        let mut by_turn: Vec<(u32, usize)> = Vec::new();
        for d in &replay.decisions.list {
            match by_turn.last_mut() {
                Some((t, end)) if *t == d.turn => *end = d.span.last as usize,
                _ => by_turn.push((d.turn, d.span.last as usize)),
            }
        }
        by_turn.into_iter().map(|(_, end)| end).collect()
    } else {
        replay.decisions.list.iter().map(|d| d.span.last as usize).collect()
    };
    ends.insert(0, 0);
    ends
}

#[cfg(test)]
mod tests;
