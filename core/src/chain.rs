//! Record lines known to chain on from a head: what a game being created
//! hands its store ([`crate::log::EventLog::append_pending_lines`]).
//!
//! A [`ChainedLines`] is made only by checking lines ([`ChainedLines::check`],
//! [`ChainedLines::push_line`]), or by the kernel, which wrote or proved
//! each line it adds: a game that decided them ([`crate::game::Game::play_lines`]),
//! a verifier that took them as read
//! ([`crate::game::verify::Verifier::take_line_into`]). So a store writes them
//! as they are, once the head it holds is the one they chain from: each line
//! is hashed once, where it is made, not again by the thread that writes it.

use std::ops::Range;

use crate::canon;
use crate::digest::Digest;
use crate::record::{self, Head, Kind};

/// An event's record line, split into its members: its seq, kind and hash,
/// and its body's canonical bytes, as the line holds them.
#[derive(Debug, Clone, Copy)]
pub struct CheckedLine<'l> {
    pub seq: u64,
    pub kind: Kind,
    pub hash: Digest,
    pub body: &'l [u8],
    /// The whole line.
    pub line: &'l str,
}

/// Why lines do not chain on from a head.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unchained(pub String);

/// Checks `lines` as an append at `head`: each line must be an event's
/// canonical line (its body proved canonical), its seq the next, and the
/// hash it states its link from the one before (hashed over the line's own
/// bytes, as verify hashes them); the first must be a decision, a
/// checkpoint or a reveal. Returns the new head and each line split into
/// its members.
pub fn check_lines<'l>(head: &Head, lines: &'l [String]) -> Result<(Head, Vec<CheckedLine<'l>>), Unchained> {
    let mut at = *head;
    let mut checked = Vec::with_capacity(lines.len());
    for line in lines {
        let parts = split_line(&at, line)?;
        if checked.is_empty() && !starts_an_append(parts.kind) {
            return Err(Unchained("an append starts with a decision, a checkpoint or a reveal".into()));
        }
        let parts = follows(&at, parts, line)?;
        at = Head { seq: parts.seq, hash: parts.hash };
        checked.push(parts);
    }
    if checked.is_empty() {
        return Err(Unchained("an append starts with a decision, a checkpoint or a reveal".into()));
    }
    Ok((at, checked))
}

/// Whether an event of this kind may start an append: a decision (its rolls
/// and facts follow it), a checkpoint or a reveal.
fn starts_an_append(kind: Kind) -> bool {
    matches!(kind, Kind::Decision | Kind::Checkpoint | Kind::Reveal)
}

/// One line checked to follow `at` (see [`check_lines`]).
fn check_line<'l>(at: &Head, line: &'l str) -> Result<CheckedLine<'l>, Unchained> {
    follows(at, split_line(at, line)?, line)
}

/// A line split into its members, its body proved canonical.
fn split_line<'l>(at: &Head, line: &'l str) -> Result<record::LineParts<'l>, Unchained> {
    record::split_shape(line.as_bytes())
        .filter(|parts| canon::is_canonical_bytes(parts.body))
        .ok_or_else(|| Unchained(format!("the line after seq {} is not an event's canonical line", at.seq)))
}

/// The line split as `parts`, once its seq is the next after `at` and its
/// hash its link from `at`.
fn follows<'l>(at: &Head, parts: record::LineParts<'l>, line: &'l str) -> Result<CheckedLine<'l>, Unchained> {
    if parts.seq != at.seq + 1 {
        return Err(Unchained(format!("seq {} does not follow {}", parts.seq, at.seq)));
    }
    if record::link_pieces(&at.hash, parts.hashed) != parts.hash {
        return Err(Unchained(format!("seq {} does not chain from the head", parts.seq)));
    }
    Ok(CheckedLine { seq: parts.seq, kind: parts.kind, hash: parts.hash, body: parts.body, line })
}

/// Record lines that chain on from a head, each split into its members.
#[derive(Debug)]
pub struct ChainedLines {
    lines: Vec<String>,
    /// Each line's seq, kind, hash, and where its body stands in it.
    parts: Vec<(u64, Kind, Digest, Range<usize>)>,
    from: Head,
    to: Head,
}

impl ChainedLines {
    /// No lines yet, at `from`.
    pub fn new(from: Head) -> ChainedLines {
        ChainedLines { lines: Vec::new(), parts: Vec::new(), from, to: from }
    }

    /// `lines` checked as [`check_lines`] checks them, at `from`.
    pub fn check(from: &Head, lines: Vec<String>) -> Result<ChainedLines, Unchained> {
        let (to, checked) = check_lines(from, &lines)?;
        let parts = checked.iter().map(|c| (c.seq, c.kind, c.hash, body_range(c))).collect();
        Ok(ChainedLines { parts, from: *from, to, lines })
    }

    /// Adds `line`, checked to follow the last (as [`check_lines`] checks
    /// each line); refused, and nothing added, if it does not.
    pub fn push_line(&mut self, line: String) -> Result<(), Unchained> {
        let checked = check_line(&self.to, &line)?;
        let part = (checked.seq, checked.kind, checked.hash, body_range(&checked));
        self.add(line, part);
        Ok(())
    }

    /// Adds a line the kernel wrote, or proved to be the canonical line of
    /// the event whose link from the last line is `hash`, at `seq`, with its
    /// body at `body`.
    pub(crate) fn push_made(&mut self, line: String, seq: u64, kind: Kind, hash: Digest, body: Range<usize>) {
        debug_assert_eq!(seq, self.to.seq + 1, "a made line follows the last");
        debug_assert!(
            check_line(&self.to, &line).is_ok_and(|c| c.hash == hash && c.body == &line.as_bytes()[body.clone()])
        );
        self.add(line, (seq, kind, hash, body));
    }

    fn add(&mut self, line: String, part: (u64, Kind, Digest, Range<usize>)) {
        self.to = Head { seq: part.0, hash: part.2 };
        self.lines.push(line);
        self.parts.push(part);
    }

    /// Adds `next`'s lines after these; refused, and nothing added, unless
    /// they chain on from the last of these.
    pub fn append(&mut self, next: ChainedLines) -> Result<(), Unchained> {
        if next.from != self.to {
            return Err(Unchained(format!(
                "lines from seq {} {} do not follow seq {} {}",
                next.from.seq, next.from.hash, self.to.seq, self.to.hash
            )));
        }
        self.lines.extend(next.lines);
        self.parts.extend(next.parts);
        self.to = next.to;
        Ok(())
    }

    /// Takes the lines before the last that starts an append (a decision, a
    /// checkpoint, a reveal): whole decisions, to be written while these
    /// go on from where they end. None (an empty run) if no line but the
    /// first starts one.
    pub fn take_whole(&mut self) -> ChainedLines {
        let at = self.parts.iter().rposition(|p| starts_an_append(p.1)).unwrap_or(0);
        if at == 0 {
            return ChainedLines::new(self.from);
        }
        let (seq, _, hash, _) = self.parts[at - 1];
        let cut = Head { seq, hash };
        let lines = self.lines.drain(..at).collect();
        let parts = self.parts.drain(..at).collect();
        let taken = ChainedLines { lines, parts, from: self.from, to: cut };
        self.from = cut;
        taken
    }

    /// Takes every line, these going on, empty, from where they end.
    pub fn take(&mut self) -> ChainedLines {
        std::mem::replace(self, ChainedLines::new(self.to))
    }

    /// The head the lines chain on from.
    pub fn from(&self) -> &Head {
        &self.from
    }

    /// The head the last line leads to (for no lines, where they start).
    pub fn to(&self) -> &Head {
        &self.to
    }

    /// How many lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The lines, as given.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// Each line split into its members.
    pub fn checked(&self) -> impl DoubleEndedIterator<Item = CheckedLine<'_>> + ExactSizeIterator + '_ {
        self.lines.iter().zip(&self.parts).map(|(line, (seq, kind, hash, body))| CheckedLine {
            seq: *seq,
            kind: *kind,
            hash: *hash,
            body: &line.as_bytes()[body.clone()],
            line,
        })
    }
}

/// Where a checked line's body stands in it.
fn body_range(c: &CheckedLine<'_>) -> Range<usize> {
    let start = c.body.as_ptr() as usize - c.line.as_ptr() as usize;
    start..start + c.body.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Event;

    fn rally() -> (Head, Vec<Event>, Vec<String>) {
        let text = include_str!("../../fixtures/leader-activation/rally.json");
        let script = crate::script::Script::parse(text, "rally", crate::registry::builtin()).unwrap();
        let mut events = Vec::new();
        script.play(|_, e| events.push(e.clone())).unwrap();
        let root = Head { seq: 0, hash: record::header_hash(&script.header).unwrap() };
        let lines = events.iter().map(|e| record::encode_event(e).unwrap()).collect();
        (root, events, lines)
    }

    fn members(chained: &ChainedLines) -> Vec<(u64, Kind, Digest, Vec<u8>, String)> {
        chained.checked().map(|c| (c.seq, c.kind, c.hash, c.body.to_vec(), c.line.to_string())).collect()
    }

    #[test]
    fn lines_are_checked_as_their_events_are() {
        // Given the rally game's events and their lines
        let (root, events, lines) = rally();
        // When its lines are checked as an append from its start
        let (head, checked) = check_lines(&root, &lines).unwrap();
        // Then they pass where its events pass, each split into its members
        assert_eq!(head, crate::log::check_append("rally", &root, &events).unwrap());
        for (line, event) in checked.iter().zip(&events) {
            assert_eq!((line.seq, line.kind, line.hash), (event.seq, event.kind, event.hash));
            assert_eq!(line.body, crate::canon::to_bytes(&event.body).unwrap());
        }
    }

    #[test]
    fn a_line_that_does_not_chain_or_is_not_canonical_is_refused() {
        let (root, _, lines) = rally();
        let refused = |lines: &[String], why: &str| match check_lines(&root, lines) {
            Err(Unchained(reason)) => assert!(reason.contains(why), "{reason}"),
            other => panic!("{why}: {:?}", other.map(|(head, _)| head)),
        };
        // A body changed after it was hashed
        let mut changed = lines.clone();
        changed[1] = changed[1].replacen("\"decision\":1,", "\"decision\":2,", 1);
        refused(&changed, "does not chain");
        // A body that is not canonical (a space), whatever its hash says
        let mut spaced = lines.clone();
        spaced[0] = spaced[0].replacen("{\"body\":{", "{\"body\":{ ", 1);
        refused(&spaced, "not an event's canonical line");
        // A line left out
        refused(&[lines[0].clone(), lines[2].clone()], "does not follow");
        // An append that starts with a roll or a fact, or holds nothing
        refused(&lines[1..], "starts with a decision");
        refused(&[], "starts with a decision");
    }

    #[test]
    fn lines_pushed_one_by_one_or_joined_are_the_lines_checked_at_once() {
        // Given the rally game's lines, checked at once from its start
        let (root, _, lines) = rally();
        let whole = ChainedLines::check(&root, lines.clone()).unwrap();
        let (head, _) = check_lines(&root, &lines).unwrap();
        assert_eq!((*whole.from(), *whole.to(), whole.lines()), (root, head, &lines[..]));
        // When they are pushed one by one, and joined from two halves
        let mut pushed = ChainedLines::new(root);
        for line in &lines {
            pushed.push_line(line.clone()).unwrap();
        }
        let half = lines.iter().skip(1).position(|l| l.contains("\"kind\":\"decision\"")).unwrap() + 1;
        let mut joined = ChainedLines::check(&root, lines[..half].to_vec()).unwrap();
        let second = ChainedLines::check(joined.to(), lines[half..].to_vec()).unwrap();
        joined.append(second).unwrap();
        // Then each holds the same lines, split alike
        assert_eq!(members(&pushed), members(&whole));
        assert_eq!(members(&joined), members(&whole));
        assert_eq!(*pushed.to(), head);
        // And lines that do not follow are refused, leaving what was there
        assert!(ChainedLines::check(&head, lines.clone()).is_err());
        assert!(pushed.push_line(lines[0].clone()).is_err());
        assert!(pushed.append(ChainedLines::check(&root, lines.clone()).unwrap()).is_err());
        assert_eq!(members(&pushed), members(&whole));
    }

    #[test]
    fn whole_decisions_are_taken_and_the_rest_goes_on_from_them() {
        // Given the rally game's lines, pushed one by one
        let (root, _, lines) = rally();
        let mut chained = ChainedLines::check(&root, lines.clone()).unwrap();
        let last_start = chained.checked().rposition(|c| starts_an_append(c.kind)).unwrap();
        assert!(last_start > 0, "the rally game holds more than one decision");
        // When the whole decisions are taken
        let taken = chained.take_whole();
        // Then they are every line before the last decision, and the rest follows them
        assert_eq!(taken.lines(), &lines[..last_start]);
        assert_eq!((*taken.from(), taken.to()), (root, chained.from()));
        assert_eq!(chained.lines(), &lines[last_start..]);
        // And taking again yields nothing: only one decision is left
        assert!(chained.take_whole().is_empty());
        let rest = chained.take();
        assert_eq!((rest.len(), chained.len(), chained.from()), (lines.len() - last_start, 0, rest.to()));
    }
}
