//! A game in play: the header, the state so far, and the head of the chain.
//!
//! [`Game`] is the one place where the record meets the rules:
//! - [`Game::decide`] runs a decision on the current state and returns the
//!   events it leads to (decision, rolls, facts), chained from the head,
//!   without changing anything;
//! - [`Game::apply`] checks one event's link and folds it in (replay never
//!   re-decides: it evolves facts);
//! - [`verify`] does both for every decision of a record: it re-decides each
//!   on the state before it and demands the same rolls and facts, byte for
//!   byte, and an intact chain.
//!
//! All of it streams: a game is one state and one head, never the whole log.
//!
//! This file holds the game and its fold; `linked.rs` what a decision is
//! decided into (the canonical bytes of its events' links, each fact as
//! the ruleset decided it), `verify.rs` the verifier, `narrate.rs` the
//! narrative of events.

mod linked;
mod narrate;
mod verify;

use serde::Deserialize;
use serde_json::Value;

use crate::canon;
use crate::chain::ChainedLines;
use crate::dice::{Dice, Seed, TableDice};
use crate::digest::Digest;
use crate::fault::{Fault, Faulted};
use crate::keys::{self, SecretKey};
use crate::record::{
    self, CheckpointBody, DecisionSeen, Event, FactSeen, Head, Header, Kind, LinkProof, RevealBody, RollBodyV1,
    SeedMode,
};
use crate::rules::Versions;
use crate::ruleset::{Actor, Machine, Refusal, Registry, ScenarioError, TypedFact};
use crate::sealed::{self, SealedTurn};
use crate::seed::game_seed;
use crate::words::possessive;

pub(crate) use linked::Linked;
use linked::{Asked, DecisionBodyOf};
pub use linked::{Decide, Decided};
pub(crate) use narrate::narrate_into;
pub use narrate::{describe_decision, narrate_with};
pub use verify::{verify, verify_each, verify_game, SealedReport, Verified, Verifier, VerifyFailure};

/// Why a game cannot be opened from its header.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("header: {0}")]
    Header(String),
    /// What the header claims about itself is false ([`check_header`]).
    #[error("header: {0}")]
    Claim(Faulted),
    #[error("scenario: {0}")]
    Scenario(#[from] ScenarioError),
}

/// Why an event does not fold into the game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("seq {seq}: {reason}")]
pub struct ApplyError {
    pub seq: u64,
    pub kind: Fault,
    pub reason: String,
}

impl OpenError {
    /// Which check the header failed.
    pub fn kind(&self) -> Fault {
        match self {
            OpenError::Header(_) => Fault::Header,
            OpenError::Claim(f) => f.kind,
            OpenError::Scenario(_) => Fault::Scenario,
        }
    }
}

/// Checks what a header claims about itself: the rules hash and the
/// commitments (and, when `versions` knows its rule version, the ranges of
/// its constants).
pub fn check_header(header: &Header, versions: &dyn Versions) -> Result<(), Faulted> {
    if let Ok(spec) = versions.version(&header.rules.version) {
        spec.check_ranges(&header.rules).map_err(|e| Fault::HeaderRulesRange.because(format!("rules.{e}")))?;
    }
    let computed = header.rules.hash();
    if computed != header.rules_hash {
        return Err(Fault::HeaderRulesHash.because(format!(
            "the rules hash {} does not match the settings listed for {} (they hash to {}): the rules or options were changed",
            header.rules_hash.short(),
            header.rules.label(),
            computed.short()
        )));
    }
    for party in &header.parties {
        if let (Some(share), Some(commitment)) = (party.share, party.commitment) {
            if share.commitment() != commitment {
                return Err(Fault::CommitmentMismatch.because(format!(
                    "party {:?}'s share does not match its commitment {}: a share or a commitment was changed",
                    party.name,
                    commitment.short()
                )));
            }
        }
    }
    Ok(())
}

/// The header's sides, when it lists keys, are the ruleset's sides, in order.
fn check_sides(header: &Header, sides: &[String]) -> Result<(), String> {
    if header.sides.is_empty() {
        return Ok(());
    }
    let listed: Vec<&str> = header.sides.iter().map(|s| s.name.as_str()).collect();
    if listed != sides.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(format!(
            "the header lists keys for {}, but the scenario's sides are {}",
            listed.join(", "),
            sides.join(", ")
        ));
    }
    Ok(())
}

/// A game in play.
pub struct Game {
    /// Shared, not copied, when a game is cloned to try a decision.
    header: std::sync::Arc<Header>,
    root: Digest,
    /// The rulesets it was opened with, for the games made from it (diff's
    /// versions, a verifier resumed on it).
    registry: Registry,
    machine: Box<dyn Machine>,
    seed: Option<Seed>,
    head: Digest,
    seq: u64,
    decisions: u64,
    /// Under diff, a rule version may need fewer dice than the table rolled.
    tolerate_unused_dice: bool,
    /// Under diff, a rule version's own chain is never written, shown or
    /// checked: its links are not hashed ([`Game::leave_links_unhashed`]).
    unhashed: bool,
    turns: Turns,
    /// Where a sealed game's chain stands.
    sealed: Option<SealedTurn>,
}

/// Where the sides' signed turns stand: the head the open turn started from
/// (after the last checkpoint, or the header's), who signed last, and the
/// sides that decided since.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Turns {
    /// The head after the last checkpoint (the root before the first).
    pub start: Digest,
    /// The side that signed the last checkpoint, and its seq.
    pub last: Option<(String, u64)>,
    /// Sides that made the decisions since the last checkpoint, in order of first decision.
    pub deciders: Vec<String>,
    /// Decisions since the last checkpoint.
    pub unsigned: u64,
    /// Checkpoints each side has signed.
    pub signed: std::collections::BTreeMap<String, u64>,
}

impl Clone for Game {
    fn clone(&self) -> Self {
        Game {
            header: self.header.clone(),
            root: self.root,
            registry: self.registry,
            machine: self.machine.boxed_clone(),
            seed: self.seed,
            head: self.head,
            seq: self.seq,
            decisions: self.decisions,
            tolerate_unused_dice: self.tolerate_unused_dice,
            unhashed: self.unhashed,
            turns: self.turns.clone(),
            sealed: self.sealed.clone(),
        }
    }
}

/// A game's position at its head, kept beside a long game so that opening it
/// to play on need not fold every event again (`log::open_at_head`). What it
/// holds is the store's own: `verify` never reads one. A sealed game keeps
/// none (the chain value of its turn stays with the server).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    pub seq: u64,
    pub head: Digest,
    pub decisions: u64,
    pub turns: Turns,
    pub state: Value,
}

impl Game {
    /// The game's position now, to keep; none for a sealed game.
    pub fn snapshot(&self) -> Option<Snapshot> {
        if self.sealed.is_some() || self.tolerate_unused_dice {
            return None;
        }
        Some(Snapshot {
            seq: self.seq,
            head: self.head,
            decisions: self.decisions,
            turns: self.turns.clone(),
            state: self.machine.state(),
        })
    }

    /// The game of `header` at a snapshot of it. The caller checks that the
    /// snapshot is on the game's chain (the events after it chain from its
    /// head); an error means it is not a snapshot of this game's ruleset.
    pub fn restore(header: Header, snapshot: &Snapshot, registry: &Registry) -> Result<Game, String> {
        let mut game = Game::open(header, registry).map_err(|e| e.to_string())?;
        if game.sealed.is_some() {
            return Err("a sealed game keeps no snapshot".into());
        }
        game.machine.restore(&snapshot.state)?;
        if game.machine.state() != snapshot.state {
            return Err("the snapshot's state does not read back as itself".into());
        }
        game.seq = snapshot.seq;
        game.head = snapshot.head;
        game.decisions = snapshot.decisions;
        game.turns = snapshot.turns.clone();
        Ok(game)
    }

    /// The game before its first event, played under its ruleset in `registry`.
    pub fn open(header: Header, registry: &Registry) -> Result<Game, OpenError> {
        check_header(&header, registry).map_err(OpenError::Claim)?;
        let info = registry.find(header.rules.ruleset()).map_err(|e| OpenError::Header(e.to_string()))?;
        let machine = (info.load)(&header.scenario, &header.rules)?;
        let seed = match header.mode {
            SeedMode::Open | SeedMode::Sealed => {
                let shares: Vec<_> = header.parties.iter().filter_map(|p| p.share).collect();
                if shares.len() != header.parties.len() || shares.is_empty() {
                    return Err(OpenError::Header("an open or sealed game needs every party's share".into()));
                }
                Some(game_seed(&header.game, &shares))
            }
            SeedMode::Table => None,
        };
        let root = record::header_hash(&header).map_err(|e| OpenError::Header(e.to_string()))?;
        check_sides(&header, &machine.sides()).map_err(OpenError::Header)?;
        let turns = Turns { start: root, last: None, deciders: Vec::new(), unsigned: 0, signed: Default::default() };
        let sealed = header.server.as_ref().map(SealedTurn::new);
        Ok(Game {
            header: std::sync::Arc::new(header),
            root,
            registry: *registry,
            machine,
            seed,
            head: root,
            seq: 0,
            decisions: 0,
            tolerate_unused_dice: false,
            unhashed: false,
            turns,
            sealed,
        })
    }

    /// Where a sealed game's chain stands (none in an open or table game).
    pub fn sealed(&self) -> Option<&SealedTurn> {
        self.sealed.as_ref()
    }

    /// The server gives a sealed game the chain value of the turn in play,
    /// so that it can draw that turn's dice: `x_k`, checked against `x_{k-1}`.
    pub fn unseal(&mut self, value: Digest) -> Result<(), String> {
        let sealed = self.sealed.as_mut().ok_or("not a sealed game")?;
        if sealed::step(&value) != sealed.previous {
            return Err(format!("the value given for sealed turn {} does not hash to the one before it", sealed.index));
        }
        sealed.value = Some(value);
        Ok(())
    }

    /// Gives the turn in play another value, without the check
    /// [`Game::unseal`] makes: two games alike but for the dice of the turn
    /// in play, for the test that nothing a dice server answers depends on
    /// a sealed die it has not written. A game given a value this way can
    /// never write a reveal that verifies.
    #[doc(hidden)]
    pub fn reseal_unchecked(&mut self, value: Digest) -> Result<(), String> {
        let sealed = self.sealed.as_mut().ok_or("not a sealed game")?;
        sealed.value = Some(value);
        Ok(())
    }

    /// The reveal event closing the sealed turn in play (the server's; the
    /// game must hold the turn's value).
    pub fn reveal(&self) -> Result<Event, String> {
        let sealed = self.sealed.as_ref().ok_or("not a sealed game")?;
        let value = sealed.value.ok_or("this game does not hold the sealed turn's value")?;
        let body = RevealBody { turn: sealed.index, value, first: sealed.first, last: self.decisions };
        let body = serde_json::to_value(body).expect("serialises");
        let seq = self.seq + 1;
        let hash = record::link(&self.head, seq, Kind::Reveal, &body).map_err(|e| e.to_string())?;
        Ok(Event { seq, kind: Kind::Reveal, body, hash })
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The rulesets this game was opened with.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The hash of the last event (the header's hash before the first).
    pub fn head(&self) -> Digest {
        self.head
    }

    /// The chain's root: the header's hash.
    pub fn root(&self) -> Digest {
        self.root
    }

    /// The seq of the last event (0 before the first).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// How many decisions have been made.
    pub fn decisions(&self) -> u64 {
        self.decisions
    }

    pub fn turn(&self) -> u32 {
        self.machine.turn()
    }

    pub fn render(&self) -> String {
        self.machine.render()
    }

    pub fn state(&self) -> Value {
        self.machine.state()
    }

    /// The canonical bytes of [`Game::state`], appended to `out`
    /// ([`Machine::append_state_canonical`]).
    pub(crate) fn append_state_canonical(&self, out: &mut Vec<u8>) -> Result<(), canon::CanonError> {
        self.machine.append_state_canonical(out)
    }

    /// Whether `other` holds this game's state but for the rule
    /// configuration, compared typed ([`Machine::same_decided`]): what diff
    /// asks of two versions' games.
    pub(crate) fn same_decided_state(&self, other: &Game) -> bool {
        self.machine.same_decided(&*other.machine)
    }

    /// The ruleset's sides, in the scenario's order.
    pub fn sides(&self) -> Vec<String> {
        self.machine.sides()
    }

    /// Whose decision the game awaits: a side, or the referee.
    pub fn awaited(&self) -> Actor {
        self.machine.awaited()
    }

    /// Reads a decision as the ruleset's own type, as its form alone
    /// says (a `Malformed` refusal naming the field if it does not parse):
    /// what any state would read of it the same.
    pub fn parse(&self, decision: &Value) -> Result<(), Refusal> {
        self.machine.read(decision).map(|_| ())
    }

    /// Who may make `decision` now.
    pub fn author(&self, decision: &Value) -> Result<Actor, Refusal> {
        self.machine.author(decision)
    }

    /// The decisions the ruleset proposes for a listing now ([`crate::moves`]).
    pub fn proposals(&self) -> Vec<crate::proposal::Proposal> {
        self.machine.proposals()
    }

    /// Decides `decision` on the current state with `dice` (never the
    /// game's: [`crate::moves`] probes with dice of its own), keeping only
    /// what its facts say before a die falls. Nothing changes.
    pub fn probe(&self, decision: &Value, dice: &mut Dice) -> Result<crate::proposal::Known, Refusal> {
        self.machine.probe(decision, dice)
    }

    /// Where the sides' signed turns stand.
    pub fn turns(&self) -> &Turns {
        &self.turns
    }

    /// Runs a decision on the current state, as `options` say: the events
    /// it leads to (the decision, its rolls, its facts), chained from the
    /// head, and the dice drawn. Nothing changes until they are applied
    /// ([`Game::apply`]; [`Game::play`] decides and applies).
    pub fn decide(&self, decision: &Value, options: Decide<'_>) -> Result<Decided, Refusal> {
        Ok(self.decide_linked(decision, options)?.into_events(decision, options.dice))
    }

    /// [`Game::decide`] short of its events: the decision, its rolls and its
    /// facts as the canonical bytes their links hash, chained from the head,
    /// each fact as typed. No JSON value is built: diff compares a version's
    /// decision by these bytes, and folds it in as it is
    /// ([`Game::adopt_linked`]) unless it shows it.
    pub(crate) fn decide_linked(&self, decision: &Value, options: Decide<'_>) -> Result<Linked, Refusal> {
        let (after, drawn) = self.decide_bodies(Asked::Value(decision), options, None)?;
        let Decide { dice, by, .. } = options;
        let number = self.decisions + 1;
        // `DecisionBody`'s canonical bytes, written around the decision rather than copying it.
        let body = DecisionBodyOf { by, decision, dice, number };
        self.linked(|out| canon::append_typed(&body, out), by, after, drawn)
    }
}

impl Game {
    /// Folds one event in: checks its place and link, counts decisions,
    /// evolves facts. Replay is this, over the log.
    pub fn apply(&mut self, event: &Event) -> Result<(), ApplyError> {
        self.apply_linked(event, LinkCheck::Encode, None)
    }

    /// Folds in the next event from its line as read, when the line is
    /// canonical, next in the chain, and a decision, roll or fact whose body
    /// reads as [`Game::apply`] would read it: the link is hashed over the
    /// line's own bytes and the fact read typed from its text, with no
    /// [`Event`] built. Otherwise nothing changes and `false` says so: parse
    /// the line and [`Game::apply`] it (which names the fault, if any).
    pub fn apply_line(&mut self, line: &[u8]) -> bool {
        self.apply_line_proven(line, None)
    }

    /// [`Game::apply_line`], given what a reader ahead proved of the line
    /// ([`LinkProof`]): a line proven from this game's head is neither
    /// hashed nor scanned again.
    pub fn apply_line_proven(&mut self, bytes: &[u8], proof: Option<&LinkProof>) -> bool {
        // A decision's body the reader ahead left to the fold is proved
        // canonical and read here in the same one pass.
        let mut scanned = proof.copied();
        if let Some(p) = scanned.as_mut() {
            p.scan_decision(bytes);
        }
        let proof = scanned.as_ref();
        // Read with the proof, which holds only from this head.
        let seen = proof.and_then(|p| p.decision_seen(&self.head));
        let Some(line) = self.next_line(bytes, proof) else { return false };
        // Read as text: serde then checks no string of it for UTF-8 again.
        let Ok(body) = std::str::from_utf8(line.body) else { return false };
        match line.kind {
            Kind::Decision => {
                let mut read = None;
                let Some((number, by, _)) = record::decision_seen(seen, bytes, body, &mut read) else { return false };
                if check_decision_number(number, self.decisions).is_err() {
                    return false;
                }
                self.count_decision(number, by);
            }
            Kind::Roll => {
                // As a roll line is read: its body's shape, and a die it names.
                let roll = serde_json::from_str::<RollBodyV1>(body);
                if !roll.is_ok_and(|roll| roll.to_roll().is_ok()) {
                    return false;
                }
            }
            Kind::Fact => {
                let Some(fact) = record::fact_scanned(body) else { return false };
                if !self.machine.evolve_text(fact) {
                    return false;
                }
            }
            Kind::Checkpoint | Kind::Reveal => return false,
        }
        self.seq = line.seq;
        self.head = line.hash;
        true
    }

    /// A canonical line ([`record::split_shape`]) next in this game's chain:
    /// its seq the next, its link from the head hashed over its own bytes
    /// (or proven so by a reader ahead, from this head). A fact's body is
    /// left for its reader to prove canonical as it reads it
    /// ([`record::fact_scanned`]).
    fn next_line<'l>(&self, line: &'l [u8], proof: Option<&LinkProof>) -> Option<record::LineParts<'l>> {
        let (line, canonical) = match proof.and_then(|p| p.parts(&self.head, line)) {
            Some(proven) => proven,
            None => {
                let line = record::split_shape(line).filter(|l| l.seq == self.seq + 1)?;
                (record::link_pieces(&self.head, line.hashed) == line.hash).then_some((line, false))?
            }
        };
        let scanned = canonical || line.kind == Kind::Fact || canon::is_canonical_bytes(line.body);
        (line.seq == self.seq + 1 && scanned).then_some(line)
    }

    /// A decision folded in: its number, and its side among those deciding
    /// since the last checkpoint.
    fn count_decision(&mut self, number: u64, by: Option<&str>) {
        self.decisions = number;
        self.turns.unsigned += 1;
        if let Some(by) = by {
            if !self.turns.deciders.iter().any(|d| d == by) {
                self.turns.deciders.push(by.to_string());
            }
        }
    }

    /// [`Game::apply`], given the canonical bytes the event's link hashes
    /// when the caller has them (they are not encoded again), and for a fact
    /// this game decided, the fact as typed (its body is not read again).
    fn apply_linked(&mut self, event: &Event, link: LinkCheck, decided: Option<TypedFact>) -> Result<(), ApplyError> {
        let fail = |f: Faulted| ApplyError { seq: event.seq, kind: f.kind, reason: f.message };
        let bad_body = |e: serde_json::Error| fail(malformed(e));
        if event.seq != self.seq + 1 {
            return Err(fail(sequence_gap(self.seq + 1, event.seq)));
        }
        match link {
            LinkCheck::Encode => check_link(&self.head, event, None).map_err(fail)?,
            LinkCheck::Bytes(bytes) => check_link(&self.head, event, Some(bytes)).map_err(fail)?,
            LinkCheck::Decided => {}
        }
        match event.kind {
            Kind::Decision => {
                let body = DecisionSeen::deserialize(&event.body).map_err(bad_body)?;
                check_decision_number(body.number, self.decisions).map_err(fail)?;
                self.count_decision(body.number, body.by.as_deref());
            }
            Kind::Checkpoint => {
                let body: CheckpointBody = serde_json::from_value(event.body.clone()).map_err(bad_body)?;
                *self.turns.signed.entry(body.side.clone()).or_default() += 1;
                self.turns.last = Some((body.side, event.seq));
                self.turns.deciders.clear();
                self.turns.unsigned = 0;
                self.turns.start = event.hash;
            }
            Kind::Roll => {}
            Kind::Fact => match decided {
                Some(fact) => self.machine.evolve_decided(fact),
                None => {
                    FactSeen::deserialize(&event.body).map_err(bad_body)?;
                    self.machine
                        .evolve(&event.body["fact"])
                        .map_err(|e| fail(Fault::MalformedEvent.because(format!("unreadable fact: {e}"))))?;
                }
            },
            Kind::Reveal => {
                let body: RevealBody = serde_json::from_value(event.body.clone()).map_err(bad_body)?;
                let sealed = self
                    .sealed
                    .as_mut()
                    .ok_or_else(|| fail(Fault::RevealUnsealed.because("a reveal in a game without sealed dice")))?;
                sealed.index = body.turn + 1;
                sealed.previous = body.value;
                sealed.first = self.decisions + 1;
                sealed.value = None;
            }
        }
        self.seq = event.seq;
        self.head = event.hash;
        Ok(())
    }

    /// Decides and applies a decision: what `play` does.
    pub fn play(&mut self, decision: &Value, dice: Option<&TableDice>) -> Result<Vec<Event>, Refusal> {
        self.play_as(decision, dice, None)
    }

    /// [`Game::play`], handing back each event's record line as well,
    /// written from the canonical bytes its link hashed ([`record::event_line`]),
    /// chained on from the game's head before it: what a store keeps of it,
    /// with no body written again and no link hashed again.
    pub fn play_lines(
        &mut self,
        decision: &Value,
        dice: Option<&TableDice>,
    ) -> Result<(Vec<Event>, ChainedLines), Refusal> {
        let from = Head { seq: self.seq, hash: self.head };
        let mut decided = self.decide(decision, Decide { dice, ..Decide::default() })?;
        let lines = decided.lines(from);
        self.adopt_decided(&mut decided);
        Ok((decided.events, lines))
    }

    /// [`Game::play`] by a side (see [`Decide::by`]).
    pub fn play_as(
        &mut self,
        decision: &Value,
        dice: Option<&TableDice>,
        by: Option<&str>,
    ) -> Result<Vec<Event>, Refusal> {
        let mut decided = self.decide(decision, Decide { dice, by, as_drawn: None })?;
        // Folded in as decided: each fact typed, the links not hashed again.
        self.adopt_decided(&mut decided);
        Ok(decided.events)
    }

    /// Checks who decides: no side in a game without sides' keys; in one
    /// with them, a side of the header that may make this decision — read
    /// to ask its author, and handed back as read.
    fn check_decider<'a>(&'a self, decision: Asked<'a>, by: Option<&str>) -> Result<Asked<'a>, Refusal> {
        let malformed = |message: String| Refusal::Malformed { field: "by".into(), message };
        match (self.header.sides.is_empty(), by) {
            (true, None) => Ok(decision),
            (true, Some(side)) => {
                Err(malformed(format!("this game lists no sides' keys, so a decision names no side ({side:?} given)")))
            }
            (false, None) => Err(malformed(format!(
                "this game lists the sides' keys ({}): every decision names the side that makes it",
                self.header.sides.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
            ))),
            (false, Some(side)) => {
                if self.header.key_of(side).is_none() {
                    return Err(malformed(format!("{side:?} is not a side of this game")));
                }
                let read = match decision {
                    Asked::Read(read) => read,
                    Asked::Value(decision) => self.machine.read(decision)?,
                };
                match read.author() {
                    owner if owner.allows(side) => Ok(Asked::Read(read)),
                    owner => Err(Refusal::NotTheSides { owner: owner.to_string(), by: side.to_string() }),
                }
            }
        }
    }

    /// The checkpoint event closing `side`'s turn at the head: its signature
    /// over (game, the head the turn started from, the head, side).
    pub fn checkpoint(&self, side: &str, key: &SecretKey) -> Result<Event, String> {
        match self.header.key_of(side) {
            None => return Err(format!("{side:?} is not a side of this game (its header lists no key for it)")),
            Some(public) if *public != key.public() => {
                return Err(format!(
                    "this key ({}) is not {}: the header lists {} for {side}",
                    key.public().short(),
                    possessive(side),
                    public.short()
                ))
            }
            Some(_) => {}
        }
        if let Some(other) = self.turns.deciders.iter().find(|s| *s != side) {
            return Err(format!("{other} made decisions since the last checkpoint: {side} cannot sign them"));
        }
        let message = keys::checkpoint_message(&self.header.game, &self.turns.start, &self.head, side);
        let body = CheckpointBody { side: side.to_string(), signature: key.sign(&message) };
        let body = serde_json::to_value(body).expect("serialises");
        let seq = self.seq + 1;
        let hash = record::link(&self.head, seq, Kind::Checkpoint, &body).map_err(|e| e.to_string())?;
        Ok(Event { seq, kind: Kind::Checkpoint, body, hash })
    }

    /// For diff: a rule version that needs fewer dice than a table game
    /// rolled for a decision is not refused for it (the table rolled what
    /// the record's own rules needed).
    pub fn tolerate_unused_table_dice(&mut self) {
        self.tolerate_unused_dice = true;
    }

    /// For diff: a rule version's own game, whose chain is never written,
    /// shown or checked (what it decides is compared with the record as
    /// the bytes of its rolls and facts; the record's chain is the proof's).
    /// Its links are not hashed, and its head stays at its root: blake3 over
    /// every link of version B was a tenth of a diff's main thread.
    pub(crate) fn leave_links_unhashed(&mut self) {
        self.unhashed = true;
    }

    /// For diff: a decision this rule version refuses is skipped, but it
    /// keeps its number, so every later decision keeps its dice address.
    pub fn pass_decision(&mut self) {
        self.decisions += 1;
    }

    /// Folds in events decided by [`Game::decide`] without re-checking their
    /// seq against a record (diff runs a version whose events the record
    /// never held).
    pub fn adopt(&mut self, events: &[Event]) {
        for e in events {
            self.apply(e).expect("events just decided chain from the head");
        }
    }

    /// For diff: folds in the events decided on this game's state and
    /// chained from its head ([`Game::decide`],
    /// [`Verifier::expected_events`]), each fact as typed when it is at hand,
    /// the links not hashed again. Events the game already holds are skipped: a
    /// version that is the record's own rules plays on the proven game,
    /// which folded the record's decision in before its rolls and facts.
    pub(crate) fn adopt_decided(&mut self, decided: &mut Decided) {
        for (event, link) in decided.events.iter().zip(&mut decided.links) {
            if event.seq <= self.seq {
                continue;
            }
            self.apply_linked(event, LinkCheck::Decided, link.fact.take())
                .expect("events just decided chain from the head");
        }
    }

    /// For diff: folds in a decision decided on this game's state
    /// ([`Game::decide_linked`]) as [`Game::adopt_decided`] folds in its
    /// events: the decision counted, each fact as typed, the head moved to
    /// its last link.
    pub(crate) fn adopt_linked(&mut self, linked: Linked) {
        debug_assert_eq!(linked.seq, self.seq + 1, "a decision is folded into the game that decided it");
        self.count_decision(linked.number, linked.by.as_deref());
        for body in linked.after {
            if let Some(fact) = body.into_fact() {
                self.machine.evolve_decided(fact);
            }
        }
        self.seq += linked.links.len() as u64;
        self.head = *linked.heads.last().expect("a decision has its own link");
    }

    /// One line of narrative for an event.
    pub fn narrate(&self, event: &Event) -> String {
        narrate_with(&*self.machine, event)
    }

    /// [`Game::narrate`], the line appended to `out`.
    pub(crate) fn narrate_into(&self, event: &Event, out: &mut String) {
        narrate_into(&*self.machine, event, out)
    }
}

/// How [`Game::apply_linked`] checks an event's link from the head.
enum LinkCheck<'b> {
    /// Over the event's canonical bytes, encoded for it.
    Encode,
    /// Over these bytes, the event's canonical bytes as the caller has them.
    Bytes(&'b [u8]),
    /// Not again: this game decided the event and chained it from its head,
    /// or the caller checked its link from the head already.
    Decided,
}

fn sequence_gap(expected: u64, found: u64) -> Faulted {
    Fault::SeqOutOfOrder.because(if found > expected {
        format!("expected seq {expected}, found {found}: {} event(s) are missing", found - expected)
    } else {
        format!("expected seq {expected}, found {found}: an event was inserted, repeated or moved")
    })
}

fn broken_link(seq: u64) -> String {
    if seq == 1 {
        "the hash does not chain from the header: the header (game, rules, scenario or seed) was changed, or this event was".into()
    } else {
        "the hash does not chain: this event was changed, or one before it was removed, inserted or reordered".into()
    }
}

/// An event's link: its hash must chain from `head` (over `bytes`, the
/// event's canonical bytes, when the caller has them). Replay and verify both
/// check it here, with one message.
fn check_link(head: &Digest, event: &Event, bytes: Option<&[u8]>) -> Result<(), Faulted> {
    let link = match bytes {
        Some(bytes) => record::link_bytes(head, bytes),
        None => record::link(head, event.seq, event.kind, &event.body)
            .map_err(|e| Fault::MalformedEvent.because(e.to_string()))?,
    };
    if link != event.hash {
        return Err(Fault::LinkBroken.because(broken_link(event.seq)));
    }
    Ok(())
}

/// A decision's number: the next after the `decided` ones. Replay and
/// verify both check it here, with one message.
fn check_decision_number(number: u64, decided: u64) -> Result<(), Faulted> {
    if number != decided + 1 {
        return Err(Fault::DecisionNumber.because(format!(
            "decision number {number} where {} was due: a decision was dropped, repeated or moved",
            decided + 1
        )));
    }
    Ok(())
}

/// An event body that does not read as its kind's.
fn malformed(e: serde_json::Error) -> Faulted {
    Fault::MalformedEvent.because(e.to_string())
}

#[cfg(test)]
mod tests;
