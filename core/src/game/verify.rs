//! Verification: every decision of a record re-decided on the state before
//! it, with the dice its seed (or its table, or its revealed sealed turn)
//! gives, and the rolls and facts that follow demanded byte for byte, with
//! an intact chain. One event at a time ([`Verifier`]), so that it streams.

use std::collections::VecDeque;
use std::fmt::Display;

use serde::Deserialize;
use serde_json::Value;

use super::linked::{Asked, Decide, Decided, Expected, Link};
use super::{check_decision_number, check_link, malformed, sequence_gap, ApplyError, Game, LinkCheck};
use crate::canon;
use crate::chain::ChainedLines;
use crate::dice::{draw, Roll, TableDice};
use crate::digest::Digest;
use crate::fault::{Fault, Faulted};
use crate::keys;
use crate::record::{
    self, CheckpointBody, DecisionBody, DecisionSeen, Event, FactBody, Head, Header, Kind, LinkProof, RevealBody,
    RollBodyV1, SeedMode,
};
use crate::ruleset::{DecisionReader, KeptDecision, Registry};
use crate::sealed;
use crate::untagged::Tagged;
use crate::words::possessive;

/// What a verified record proved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub events: u64,
    pub decisions: u64,
    pub head: Digest,
    pub mode: SeedMode,
    pub turn: u32,
    /// Checkpoints each side signed (none in a game without sides' keys).
    pub signed: std::collections::BTreeMap<String, u64>,
    /// Decisions after the last checkpoint: made, but not yet signed.
    pub unsigned: u64,
    /// The header lists the sides' keys and they sign their turns: every
    /// decision names its side (a sealed game's server attributes them).
    pub sides: bool,
    /// A sealed game: which turns are proven, which is still sealed.
    pub sealed: Option<SealedReport>,
}

impl Verified {
    /// What this verification does and does not prove, in one sentence.
    pub fn guarantee(&self) -> &'static str {
        match self.mode {
            SeedMode::Open => "every roll is the one the committed seed gives, every decision was legal, every fact follows, and nothing was dropped, reordered or re-rolled",
            SeedMode::Table => "every decision was legal, every fact follows from the dice entered, and the chain is whole; the dice themselves were rolled by hand and are UNPROVEN",
            SeedMode::Sealed => "every decision was legal and made by the side the server says made it, every fact follows, nothing was dropped, reordered or re-rolled, and every die of a revealed turn is the one the server committed to before the game began",
        }
    }

    /// What the sides' signatures prove, when the header lists their keys.
    pub fn signatures(&self) -> Option<String> {
        if !self.sides {
            return None;
        }
        let signed: Vec<String> = self.signed.iter().map(|(side, n)| format!("{side} {n}")).collect();
        let signed = if signed.is_empty() { "none yet".to_string() } else { signed.join(", ") };
        let tail = match self.unsigned {
            0 => "every decision is signed by the side that made it".to_string(),
            n => format!("the last {n} decision(s) are not signed yet (a turn in progress)"),
        };
        Some(format!("signed turns: {signed}; {tail}, and every decision was its own side's (or a referee decision)"))
    }
}

/// What verify proved of a sealed game's dice, turn by turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedReport {
    /// Turns revealed and every die drawn again: (turn, first decision, last decision).
    pub proven: Vec<(u64, u64, u64)>,
    /// The turn in play, sealed until it ends: (turn, first decision, last decision).
    pub open: Option<(u64, u64, u64)>,
}

impl SealedReport {
    /// "sealed turns 1–4 proven (decisions 1–37); sealed turn 5 (decisions 38–41) sealed until the turn ends".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        match (self.proven.first(), self.proven.last()) {
            (Some(a), Some(b)) if a.0 == b.0 => parts.push(format!(
                "sealed turn {} proven (decisions {}–{}: every die drawn again from its revealed value)",
                a.0, a.1, b.2
            )),
            (Some(a), Some(b)) => parts.push(format!(
                "sealed turns {}–{} proven (decisions {}–{}: every die drawn again from its revealed value)",
                a.0, b.0, a.1, b.2
            )),
            _ => parts.push("no sealed turn revealed yet".into()),
        }
        if let Some((turn, first, last)) = self.open {
            parts.push(format!(
                "sealed turn {turn} (decisions {first}–{last}) is sealed until the turn ends: its decisions are legal with the dice the server gave, which are not proven yet"
            ));
        }
        parts.join("; ")
    }
}

/// Why a record does not verify: the first bad seq (none for the header),
/// which check failed, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct VerifyFailure {
    pub seq: Option<u64>,
    pub kind: Fault,
    pub reason: String,
}

impl VerifyFailure {
    /// The failure at `seq` (none for the header) that `fault` explains.
    pub fn at(seq: Option<u64>, fault: Faulted) -> VerifyFailure {
        VerifyFailure { seq, kind: fault.kind, reason: fault.message }
    }
}

impl From<ApplyError> for VerifyFailure {
    fn from(e: ApplyError) -> Self {
        VerifyFailure { seq: Some(e.seq), kind: e.kind, reason: e.reason }
    }
}

impl std::fmt::Display for VerifyFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.seq {
            Some(seq) => write!(f, "seq {seq}: {}", self.reason),
            None => write!(f, "{}", self.reason),
        }
    }
}

/// Verifies a record, streaming: re-decides every decision on the state
/// before it, with dice from the seed (or the table's dice), and demands the
/// logged rolls and facts byte for byte and an intact chain.
pub fn verify<E: Display>(
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
    registry: &Registry,
) -> Result<Verified, VerifyFailure> {
    verify_each(header, events, registry, |_, _| {})
}

/// [`verify`], calling `seen` with the game and each event once it is folded in.
pub fn verify_each<E: Display>(
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
    registry: &Registry,
    seen: impl FnMut(&Game, &Event),
) -> Result<Verified, VerifyFailure> {
    verify_game(header, events, registry, seen).map(|(verified, _)| verified)
}

/// [`verify_each`], handing back the verified game at its end as well.
pub fn verify_game<E: Display>(
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
    registry: &Registry,
    mut seen: impl FnMut(&Game, &Event),
) -> Result<(Verified, Game), VerifyFailure> {
    let mut verifier = Verifier::new(header, registry)?;
    for event in events {
        let event = event.map_err(|e| verifier.unreadable(e))?;
        verifier.push(&event)?;
        seen(verifier.game(), &event);
    }
    verifier.finish()
}

/// Verification one event at a time: what [`verify`] runs, and what a turn
/// file's events go through on top of a stored game ([`Verifier::resume`]).
///
/// In a sealed game the dice of the turn in play are not known until the
/// server reveals the turn's chain value: a decision is then re-decided with
/// the dice the record shows (so its legality and facts are checked at once),
/// its rolls are remembered, and each is drawn again when the reveal comes.
pub struct Verifier {
    game: Game,
    /// The rolls and facts the decision being checked must still show,
    /// with the canonical bytes their links hash.
    expected: VecDeque<Expected>,
    /// The canonical bytes of the event being checked.
    scratch: Vec<u8>,
    /// A sealed decision waiting for its rolls.
    held: Option<Held>,
    /// The rolls of the sealed turn in play, drawn again at its reveal.
    sealed_rolls: Vec<Roll>,
    /// Sealed turns proven so far: (turn, first decision, last decision).
    proven: Vec<(u64, u64, u64)>,
    /// Whether a decision taken from its line and checked as read is kept
    /// ([`Verifier::keep_decisions`]), and the last one so kept, with who
    /// made it (its `by`), when it brought no dice.
    keeps_decisions: bool,
    kept: Option<(KeptDecision, Option<String>)>,
}

/// A sealed decision and the rolls after it, not yet folded in.
struct Held {
    decision: Event,
    body: DecisionBody,
    rolls: Vec<Event>,
}

impl Verifier {
    /// Verification of a record from its header, under its ruleset in `registry`.
    pub fn new(header: &Header, registry: &Registry) -> Result<Verifier, VerifyFailure> {
        let game = Game::open(header.clone(), registry)
            .map_err(|e| VerifyFailure::at(None, e.kind().because(e.to_string())))?;
        Ok(Verifier::resume(game))
    }

    /// Verification of events that continue `game` (which must stand between
    /// two decisions, as every stored game does).
    pub fn resume(game: Game) -> Verifier {
        Verifier {
            game,
            expected: VecDeque::new(),
            scratch: Vec::with_capacity(512),
            held: None,
            sealed_rolls: Vec::new(),
            proven: Vec::new(),
            keeps_decisions: false,
            kept: None,
        }
    }

    /// The failure for an event that could not be read where the next is due.
    pub fn unreadable(&self, e: impl Display) -> VerifyFailure {
        // After the events read so far: a held sealed decision and its rolls
        // are read, though not yet in the game.
        VerifyFailure::at(Some(self.head().0 + 1), Fault::Unreadable.because(e.to_string()))
    }

    /// The game so far (a held sealed decision is not in it yet).
    pub fn game(&self) -> &Game {
        &self.game
    }

    fn head(&self) -> (u64, Digest) {
        match &self.held {
            Some(h) => {
                let last = h.rolls.last().unwrap_or(&h.decision);
                (last.seq, last.hash)
            }
            None => (self.game.seq(), self.game.head()),
        }
    }

    /// Folds in the next event from its line as read, proving all
    /// [`Verifier::push`] would without building the event: a roll or fact
    /// line that is, byte for byte, the one this verifier expects next (its
    /// body, kind and seq as decided, and its link from the head); or the
    /// canonical line of the decision due next, which the rules accept.
    /// Otherwise nothing changes and `false` says so: parse the line and
    /// [`Verifier::push`] it (which names what differs).
    pub fn take_line(&mut self, line: &[u8]) -> bool {
        self.take_line_proven(line, None)
    }

    /// [`Verifier::take_line`], given what a reader ahead proved of the
    /// line ([`LinkProof`]): a line proven from the head is not hashed again.
    pub fn take_line_proven(&mut self, line: &[u8], proof: Option<&LinkProof>) -> bool {
        self.take_line_read(line, proof, None)
    }

    /// [`Verifier::take_line_proven`], given too the decision a reader ahead
    /// read from the line ([`DecisionReader::read`]) with the reader
    /// [`Verifier::decision_reader`] gave: the decision is not read again.
    pub fn take_line_read(&mut self, line: &[u8], proof: Option<&LinkProof>, read: Option<KeptDecision>) -> bool {
        self.take_decided_line(line, proof) || self.take_decision(line, proof, read).is_some()
    }

    /// [`Verifier::take_line_read`], adding the line, when it is taken, to
    /// `into`, lines chained so far to where this verifier's game stands: a
    /// line taken is the canonical line of the event the game's head now
    /// links, so it goes on as the kernel proved it, not hashed again where
    /// it is written. A line not taken (`false`), or lines that end
    /// elsewhere, leave `into` as it was.
    pub fn take_line_into(
        &mut self,
        line: &[u8],
        proof: Option<&LinkProof>,
        read: Option<KeptDecision>,
        into: &mut ChainedLines,
    ) -> bool {
        let (seq, head) = self.head();
        if *into.to() != (Head { seq, hash: head }) {
            return false;
        }
        // A canonical line is UTF-8 text of an event's shape: a line that is
        // not is not taken, and is read the slow way, which names its fault.
        let (Ok(text), Some((kind, body))) = (std::str::from_utf8(line), record::kind_and_body(line)) else {
            return false;
        };
        if !self.take_line_read(line, proof, read) {
            return false;
        }
        let (seq, hash) = self.head();
        into.push_made(text.to_string(), seq, kind, hash, body);
        true
    }

    /// How the proven game's ruleset reads a decision's text on no state,
    /// for a reader ahead ([`Verifier::take_line_read`]).
    pub fn decision_reader(&self) -> DecisionReader {
        self.game.machine.decision_reader()
    }

    /// [`Verifier::take_line_proven`] for a roll or fact line only: the one
    /// the decision being checked leads to next.
    pub fn take_decided_line(&mut self, line: &[u8], proof: Option<&LinkProof>) -> bool {
        // A line proven from the head links to the hash it states, so if it
        // is the expected event's line, that hash is the expected link.
        let proven = record::proven_link(proof, &self.game.head);
        self.take_expected(proven, |want, hash| want.is_line(line, hash))
    }

    /// Folds in the next event from the canonical bytes its link hashes and
    /// its link, as the game that played it decided them
    /// ([`Decided`]), when they are, byte for byte, those of the roll
    /// or fact this verifier expects next, and the link chains from the
    /// head: what [`Verifier::take_line`] proves of a line. Otherwise
    /// nothing changes and `false` says so: [`Verifier::push`] the event
    /// (which names what differs).
    pub(crate) fn take_decided(&mut self, bytes: &[u8], hash: &Digest) -> bool {
        self.take_expected(None, |want, link| want.bytes == bytes && link == hash)
    }

    /// Folds in the roll or fact expected next when `is_it` says the event
    /// at hand is it, given the link the expected event's bytes make from
    /// the head: `proven`, the link of the event at hand when a reader
    /// ahead proved it (the same link, if it is the expected event), or
    /// hashed here.
    fn take_expected(&mut self, proven: Option<Digest>, is_it: impl FnOnce(&Expected, &Digest) -> bool) -> bool {
        if self.held.is_some() {
            return false;
        }
        let Some(want) = self.expected.front() else { return false };
        let hash = proven.unwrap_or_else(|| record::link_bytes(&self.game.head, &want.bytes));
        if !is_it(want, &hash) {
            return false;
        }
        let want = self.expected.pop_front().expect("looked at above");
        if let Some(fact) = want.fact {
            self.game.machine.evolve_decided(fact);
        }
        self.game.seq += 1;
        self.game.head = hash;
        true
    }

    /// Takes the line of the decision due now, in a game whose dice are not
    /// sealed, when it is canonical, next in the chain (its link hashed
    /// over the line's own bytes) and the rules accept it: it is re-decided
    /// as [`Verifier::push`] would re-decide it, its rolls and facts are
    /// then expected, and the line's body is handed back. The decision is
    /// read typed from its text, and checked there, when that plainly
    /// stands for the checks of its value ([`Machine::read_text`]); else
    /// from its value. A refused decision, or any other line, is left to
    /// the parse (`None`, and nothing changes), which names the fault. A
    /// decision a reader ahead `read` from this line is taken as read.
    pub(crate) fn take_decision<'l>(
        &mut self,
        line: &'l [u8],
        proof: Option<&LinkProof>,
        read: Option<KeptDecision>,
    ) -> Option<&'l [u8]> {
        self.kept = None;
        if self.held.is_some() || !self.expected.is_empty() || self.dice_sealed() {
            return None;
        }
        let game = &mut self.game;
        // A proven line's body is proved canonical and read for its number,
        // side and dice in one pass, as a reader scanning decisions does:
        // serde's read of the body after a scan of it was a fifth of
        // verify's fold.
        let mut scanned = proof.copied();
        if let Some(p) = scanned.as_mut() {
            p.scan_decision(line);
        }
        let proof = scanned.as_ref();
        let seen_at = proof.and_then(|p| p.decision_seen(&game.head));
        let bytes = line;
        let line = game.next_line(bytes, proof).filter(|l| l.kind == Kind::Decision)?;
        let body = std::str::from_utf8(line.body).ok()?;
        // As `redecide` reads it: the shape, then the dice only if it has them.
        let mut read_seen = None;
        let (number, by, has_dice) = record::decision_seen(seen_at, bytes, body, &mut read_seen)?;
        check_decision_number(number, game.decisions).ok()?;
        // Kept with the body it was read from, which another version writes
        // as it is: not a body with a `null` member that version leaves out.
        let keeps = self.keeps_decisions && !has_dice && !record::decision_has_null(line.body);
        let dice = match has_dice {
            true => Some(serde_json::from_str::<TableDice>(canon::member_str(body, b"dice")?).ok()?),
            false => None,
        };
        let value;
        let mut kept = None;
        // A decision read ahead from this line is the one `read_text` would
        // read here, and its text is not looked for.
        let machine = &game.machine;
        let read = read.and_then(|read| machine.read_kept_owned(read));
        let tagged = match read {
            Some(_) => Tagged::new("", None),
            None => canon::tagged_member(body, b"decision")?,
        };
        let text = tagged.text();
        let decision = match read.or_else(|| machine.read_text(tagged)) {
            Some(read) => {
                if keeps {
                    kept = read.kept().map(|k| (k, by.map(str::to_string)));
                }
                Asked::Read(read)
            }
            None => {
                value = serde_json::from_str::<Value>(text).ok()?;
                Asked::Value(&value)
            }
        };
        let expected = game.decide_expected(decision, Decide { dice: dice.as_ref(), by, as_drawn: None }, None).ok()?;
        game.count_decision(number, by);
        game.seq = line.seq;
        game.head = line.hash;
        self.expected = expected;
        self.kept = kept;
        Some(line.body)
    }

    /// For diff: each decision taken from its line and checked as read is
    /// kept, for another version of the ruleset to decide as it was read
    /// ([`Verifier::kept_decision`]).
    pub(crate) fn keep_decisions(&mut self) {
        self.keeps_decisions = true;
    }

    /// The decision [`Verifier::take_decision`] last took, as read and
    /// checked, with who made it (its `by`), when it was read from its text,
    /// brought no dice, has no `null` member, and decisions are kept. Its
    /// number is the proven game's count of decisions.
    pub(crate) fn kept_decision(&self) -> Option<(&KeptDecision, Option<&str>)> {
        self.kept.as_ref().map(|(kept, by)| (kept, by.as_deref()))
    }

    /// The rolls and facts the decision being checked leads to, as
    /// [`Decided::rolls_and_facts`] gives them: each is the recorded
    /// one, once the record shows it (or the proof fails).
    pub(crate) fn expected(&self) -> impl ExactSizeIterator<Item = (Kind, &[u8])> {
        self.expected.iter().map(|want| (want.kind, &want.bytes[..want.body_end]))
    }

    /// `decision`, the decision just pushed, and the rolls and facts the
    /// proof expects after it, as the events they will be in the record
    /// (each fact to be read from its body: the typed ones stay with the
    /// proof, which folds them in).
    pub(crate) fn expected_events(&self, decision: &Event) -> Decided {
        let mut events = Vec::with_capacity(1 + self.expected.len());
        let mut links = Vec::with_capacity(1 + self.expected.len());
        let mut bytes = Vec::new();
        let body_end = record::linked_bytes(decision.seq, decision.kind, &decision.body, &mut bytes)
            .expect("the proof encoded this decision");
        events.push(decision.clone());
        links.push(Link { bytes, body_end, fact: None });
        let mut head = decision.hash;
        for (i, want) in self.expected.iter().enumerate() {
            head = record::link_bytes(&head, &want.bytes);
            let seq = decision.seq + 1 + i as u64;
            events.push(Event { seq, kind: want.kind, body: want.body(), hash: head });
            links.push(Link { bytes: want.bytes.clone(), body_end: want.body_end, fact: None });
        }
        Decided { events, links, drawn: Vec::new() }
    }

    /// Verifies the events another game decided and folded in (a script
    /// played a decision ahead of its verification), calling `seen` with
    /// this verifier's game and each event once it is folded in. The
    /// decision is re-decided as any recorded one is; each roll and fact is
    /// taken by the bytes its link hashed when it is the one expected
    /// ([`Verifier::take_decided`]), and otherwise pushed, which names what
    /// differs.
    pub(crate) fn push_decided(
        &mut self,
        decided: &Decided,
        mut seen: impl FnMut(&Game, &Event),
    ) -> Result<(), VerifyFailure> {
        for (i, (event, link)) in decided.events.iter().zip(&decided.links).enumerate() {
            if i == 0 || !self.take_decided(&link.bytes, &event.hash) {
                self.push(event)?;
            }
            seen(&self.game, event);
        }
        Ok(())
    }

    /// Checks the next event and folds it in.
    pub fn push(&mut self, event: &Event) -> Result<(), VerifyFailure> {
        let fail = |fault: Faulted| VerifyFailure::at(Some(event.seq), fault);
        let (seq, head) = self.head();
        if event.seq != seq + 1 {
            return Err(fail(sequence_gap(seq + 1, event.seq)));
        }
        if self.held.is_some() {
            if event.kind == Kind::Roll {
                check_link(&head, event, None).map_err(fail)?;
                self.held.as_mut().expect("held").rolls.push(event.clone());
                return Ok(());
            }
            self.settle_held()?;
        }
        match self.expected.pop_front() {
            Some(want) => {
                // The recorded event is the decided one: the same kind and
                // body at the same seq (its place was checked above). Bodies
                // hold integers only, so equal bodies have equal canonical
                // bytes, and the decided event's are the bytes its link
                // hashes: the recorded body is not encoded again.
                self.scratch.clear();
                let same = event.kind == want.kind
                    && canon::append(&event.body, &mut self.scratch).is_ok()
                    && self.scratch == want.body_bytes();
                if !same {
                    return Err(fail(mismatch(&self.game, want.kind, &want.body(), event)));
                }
                return self.game.apply_linked(event, LinkCheck::Bytes(&want.bytes), want.fact).map_err(VerifyFailure::from);
            }
            None => match event.kind {
                Kind::Decision if self.dice_sealed() => return self.hold(event).map_err(fail),
                Kind::Decision => {
                    self.redecide(event).map_err(fail)?;
                    // `redecide` checked its link from the head: it is not hashed again.
                    return self.game.apply_linked(event, LinkCheck::Decided, None).map_err(VerifyFailure::from);
                }
                Kind::Checkpoint => self.check_checkpoint(event).map_err(fail)?,
                Kind::Reveal => self.check_reveal(event).map_err(fail)?,
                other => {
                    return Err(fail(Fault::ExtraEvent.because(format!(
                        "a {} where a decision should be: decision {} is over, so this event is extra (an added roll is a re-roll)",
                        other.name(),
                        self.game.decisions()
                    ))))
                }
            },
        }
        self.game.apply(event).map_err(VerifyFailure::from)
    }

    /// The turn in play is sealed and this game does not hold its value.
    fn dice_sealed(&self) -> bool {
        self.game.sealed.as_ref().is_some_and(|s| s.value.is_none())
    }

    /// Checks a decision's place, then holds it until its rolls are in.
    fn hold(&mut self, event: &Event) -> Result<(), Faulted> {
        let body = self.decision_body(event)?;
        self.held = Some(Held { decision: event.clone(), body, rolls: Vec::new() });
        Ok(())
    }

    /// A decision's link, body and number.
    fn decision_body(&mut self, event: &Event) -> Result<DecisionBody, Faulted> {
        // A changed decision is a broken link first: say so before re-deciding it.
        self.check_link(event)?;
        let body: DecisionBody = serde_json::from_value(event.body.clone()).map_err(malformed)?;
        check_decision_number(body.number, self.game.decisions())?;
        Ok(body)
    }

    /// Re-decides a held sealed decision with the dice its rolls show, checks
    /// them, folds them in, and expects its facts.
    fn settle_held(&mut self) -> Result<(), VerifyFailure> {
        let Some(held) = self.held.take() else { return Ok(()) };
        let at = |seq: u64, fault: Faulted| VerifyFailure::at(Some(seq), fault);
        let mut recorded = TableDice::new();
        for r in &held.rolls {
            let roll: RollBodyV1 = serde_json::from_value(r.body.clone()).map_err(|e| at(r.seq, malformed(e)))?;
            recorded.entry(roll.label).or_default().push(roll.value);
        }
        let mut expected = self
            .game
            .decide_expected(
                Asked::Value(&held.body.decision),
                Decide { by: held.body.by.as_deref(), ..Decide::default() },
                Some(&recorded),
            )
            .map_err(|refusal| {
                at(
                    held.decision.seq,
                    Fault::DecisionRefused.because(format!(
                        "decision {} is refused by {}: {refusal}",
                        held.body.number,
                        self.game.header.rules.label()
                    )),
                )
            })?;
        self.game.apply(&held.decision)?;
        for r in &held.rolls {
            match expected.pop_front() {
                Some(want)
                    if want.kind == Kind::Roll
                        && canon::to_bytes(&r.body).ok().as_deref() == Some(want.body_bytes()) => {}
                Some(want) => return Err(at(r.seq, mismatch(&self.game, want.kind, &want.body(), r))),
                None => {
                    return Err(at(r.seq, Fault::ExtraEvent.because("a roll the rules did not ask for: a re-roll")))
                }
            }
            let roll: RollBodyV1 = serde_json::from_value(r.body.clone()).expect("read above");
            self.sealed_rolls.push(roll.to_roll().map_err(|e| at(r.seq, Fault::MalformedEvent.because(e)))?);
            self.game.apply(r)?;
        }
        self.expected = expected;
        Ok(())
    }

    /// Re-decides a decision on the state before it; its rolls and facts
    /// are then expected, in order.
    fn redecide(&mut self, event: &Event) -> Result<(), Faulted> {
        // A changed decision is a broken link first: say so before re-deciding it.
        self.check_link(event)?;
        // The decision is read where it is, not copied out of the event.
        let body = match DecisionSeen::deserialize(&event.body) {
            Ok(seen) => seen,
            Err(e) => return Err(self.decision_body(event).err().unwrap_or_else(|| malformed(e))),
        };
        check_decision_number(body.number, self.game.decisions())?;
        let dice = match &body.dice {
            Some(_) => DecisionBody::deserialize(&event.body).map_err(malformed)?.dice,
            None => None,
        };
        let expected = self
            .game
            .decide_expected(
                Asked::Value(&event.body["decision"]),
                Decide { dice: dice.as_ref(), by: body.by.as_deref(), as_drawn: None },
                None,
            )
            .map_err(|refusal| {
                Fault::DecisionRefused.because(format!(
                    "decision {} is refused by {}: {refusal}",
                    body.number,
                    self.game.header.rules.label()
                ))
            })?;
        self.expected.extend(expected);
        Ok(())
    }

    /// A reveal: the sealed turn in play, a value that hashes to the one
    /// before it (the commitment, or the last value revealed), the decisions
    /// the turn covered, and every die of the turn drawn again from it.
    fn check_reveal(&mut self, event: &Event) -> Result<(), Faulted> {
        self.check_link(event)?;
        let Some(sealed) = self.game.sealed.clone() else {
            return Err(Fault::RevealUnsealed.because("a reveal in a game without sealed dice"));
        };
        let body: RevealBody = serde_json::from_value(event.body.clone()).map_err(malformed)?;
        if body.turn != sealed.index {
            return Err(Fault::RevealTurn.because(format!(
                "a reveal of sealed turn {} where sealed turn {} is in play",
                body.turn, sealed.index
            )));
        }
        if sealed::step(&body.value) != sealed.previous {
            let before = if sealed.index == 1 {
                "the server's commitment in the header".to_string()
            } else {
                format!("the value revealed for sealed turn {}", sealed.index - 1)
            };
            return Err(Fault::RevealValue.because(format!(
                "the value revealed for sealed turn {} does not hash to {before}: the server changed its dice",
                body.turn
            )));
        }
        if (body.first, body.last) != (sealed.first, self.game.decisions()) {
            return Err(Fault::RevealDecisions.because(format!(
                "the reveal of sealed turn {} names decisions {}–{}, but the turn covered decisions {}–{}",
                body.turn,
                body.first,
                body.last,
                sealed.first,
                self.game.decisions()
            )));
        }
        let seed = self.game.seed.expect("a sealed game has a seed");
        let turn_seed = sealed::turn_seed(&seed, body.turn, &body.value);
        for r in &self.sealed_rolls {
            let drawn = draw(&turn_seed, r.decision, &r.label, r.index, r.die);
            if drawn != r.value {
                return Err(Fault::DieDiffers.because(format!(
                    "roll {} '{}' #{} of decision {} is {} in the record, but the revealed value of sealed turn {} gives {drawn}",
                    r.die.name(),
                    r.label,
                    r.index,
                    r.decision,
                    r.value,
                    body.turn
                )));
            }
        }
        self.sealed_rolls.clear();
        self.proven.push((body.turn, body.first, body.last));
        Ok(())
    }

    /// A side's checkpoint: a side of the header, a signature that verifies
    /// under its key over (game, the turn's start, the head, side), and only
    /// that side's decisions since the last checkpoint.
    fn check_checkpoint(&mut self, event: &Event) -> Result<(), Faulted> {
        if self.game.header.sides.is_empty() {
            return Err(Fault::CheckpointUnkeyed
                .because("a checkpoint in a game whose header lists no sides' keys: nobody can have signed it"));
        }
        self.check_link(event)?;
        let header = &self.game.header;
        let body: CheckpointBody = serde_json::from_value(event.body.clone()).map_err(malformed)?;
        let Some(key) = header.key_of(&body.side) else {
            return Err(Fault::CheckpointSide
                .because(format!("a checkpoint signed by {:?}, which is not a side of this game", body.side)));
        };
        let turns = &self.game.turns;
        let message = keys::checkpoint_message(&header.game, &turns.start, &self.game.head, &body.side);
        if !key.verifies(&message, &body.signature) {
            return Err(Fault::SignatureInvalid.because(format!(
                "{} signature does not verify under {} key {}: the turn it closes was changed, or the signature is forged",
                possessive(&body.side),
                possessive(&body.side),
                key.short()
            )));
        }
        if let Some(other) = turns.deciders.iter().find(|s| **s != body.side) {
            return Err(Fault::CheckpointOtherSide.because(format!(
                "{} signs a turn with decisions {other} made: each side signs its own turn",
                body.side
            )));
        }
        Ok(())
    }

    /// Checks an event's link, keeping the canonical bytes it hashes in
    /// `scratch` (folding the event in then hashes them, not encodes again).
    fn check_link(&mut self, event: &Event) -> Result<(), Faulted> {
        self.scratch.clear();
        record::linked_bytes(event.seq, event.kind, &event.body, &mut self.scratch)
            .map_err(|e| Fault::MalformedEvent.because(e.to_string()))?;
        check_link(&self.game.head, event, Some(&self.scratch))
    }

    /// The end of the events: whole decisions only.
    pub fn finish(mut self) -> Result<(Verified, Game), VerifyFailure> {
        self.settle_held()?;
        let sealed = self.game.sealed.as_ref().map(|s| SealedReport {
            proven: self.proven.clone(),
            open: (s.first <= self.game.decisions()).then_some((s.index, s.first, self.game.decisions())),
        });
        let game = self.game;
        if let Some(want) = self.expected.front() {
            let (kind, body) = (want.kind, &want.body());
            return Err(VerifyFailure {
                seq: Some(game.seq() + 1),
                kind: Fault::Truncated,
                reason: format!(
                    "the record ends in the middle of decision {}: its {} {} is missing",
                    game.decisions(),
                    kind.name(),
                    short_body(kind, body, &game)
                ),
            });
        }
        let verified = Verified {
            events: game.seq(),
            decisions: game.decisions(),
            head: game.head(),
            mode: game.header.mode,
            turn: game.turn(),
            signed: game.turns.signed.clone(),
            unsigned: if game.header.sides.is_empty() || game.header.mode == SeedMode::Sealed {
                0
            } else {
                game.turns.unsigned
            },
            sides: !game.header.sides.is_empty() && game.header.mode != SeedMode::Sealed,
            sealed,
        };
        Ok((verified, game))
    }
}

fn short_body(kind: Kind, body: &Value, game: &Game) -> String {
    match kind {
        Kind::Roll => serde_json::from_value::<RollBodyV1>(body.clone())
            .map(|r| format!("'{}' #{}", r.label, r.index))
            .unwrap_or_default(),
        Kind::Fact => serde_json::from_value::<FactBody>(body.clone())
            .map(|f| format!("({})", game.machine.narrate(&f.fact)))
            .unwrap_or_default(),
        Kind::Decision | Kind::Checkpoint | Kind::Reveal => String::new(),
    }
}

fn mismatch(game: &Game, kind: Kind, expected: &Value, event: &Event) -> Faulted {
    match (kind, event.kind) {
        (Kind::Roll, Kind::Roll) => {
            let want: RollBodyV1 = serde_json::from_value(expected.clone()).expect("our own roll");
            match serde_json::from_value::<RollBodyV1>(event.body.clone()) {
                Ok(got) if got.label == want.label && got.index == want.index && got.die == want.die => {
                    let source = match game.header.mode {
                        SeedMode::Open => "the committed seed gives",
                        SeedMode::Table => "the table dice of the decision give",
                        SeedMode::Sealed => "the sealed dice give",
                    };
                    Fault::DieDiffers.because(format!(
                        "roll {} '{}' #{} of decision {} is {} in the record, but {source} {}",
                        want.die, want.label, want.index, want.decision, got.value, want.value
                    ))
                }
                Ok(got) => Fault::RollDiffers.because(format!(
                    "the record rolls {} '{}' #{} where the rules roll {} '{}' #{}",
                    got.die, got.label, got.index, want.die, want.label, want.index
                )),
                Err(e) => malformed(e),
            }
        }
        (Kind::Fact, Kind::Fact) => {
            let want: FactBody = serde_json::from_value(expected.clone()).expect("our own fact");
            let got = serde_json::from_value::<FactBody>(event.body.clone())
                .map(|f| game.machine.narrate(&f.fact))
                .unwrap_or_else(|_| event.body.to_string());
            Fault::FactDiffers.because(format!(
                "the fact differs from what the rules decide: the record says \"{}\", the rules say \"{}\"",
                got,
                game.machine.narrate(&want.fact)
            ))
        }
        (want, got) => Fault::EventOutOfPlace.because(format!(
            "expected a {} {} here, found a {}: an event was dropped, added or moved",
            want.name(),
            short_body(want, expected, game),
            got.name()
        )),
    }
}
