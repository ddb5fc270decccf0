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

use std::collections::VecDeque;
use std::fmt::Display;

use serde::Deserialize;
use serde_json::Value;

use crate::canon;
use crate::dice::{draw, Dice, Drawn, Roll, Seed, TableDice};
use crate::digest::Digest;
use crate::fault::{Fault, Faulted};
use crate::keys::{self, SecretKey};
use crate::record::{
    self, CheckpointBody, DecisionBody, DecisionSeen, Event, FactBody, FactSeen, Header, Kind, LinkProof, RevealBody,
    RollBodyV1, SeedMode,
};
use crate::rules::Versions;
use crate::ruleset::{
    Actor, DecisionReader, KeptDecision, Machine, Refusal, Registry, ScenarioError, TypedDecision, TypedFact,
};
use crate::sealed::{self, SealedTurn};
use crate::seed::game_seed;
use crate::untagged::Tagged;
use crate::words::possessive;

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

    /// Runs a decision on the current state: the events it leads to, chained
    /// from the head. Nothing changes until they are applied.
    pub fn decide(&self, decision: &Value, dice: Option<&TableDice>) -> Result<Vec<Event>, Refusal> {
        self.decide_as(decision, dice, None)
    }

    /// [`Game::decide`] by a side: in a game whose header lists the sides'
    /// keys every decision names the side that made it, which must be the
    /// decision's author (or any side, for a referee decision).
    pub fn decide_as(
        &self,
        decision: &Value,
        dice: Option<&TableDice>,
        by: Option<&str>,
    ) -> Result<Vec<Event>, Refusal> {
        self.decide_diffed(decision, dice, by, None).map(|d| d.events)
    }

    /// [`Game::decide_as`], handing back the dice as drawn as well (for a
    /// pick, with its cup). For diff: in a table game, `as_drawn` (the dice as
    /// the record's own rules drew them) replaces the table's faces, so that
    /// a face is reused only for the same die and cup.
    pub fn decide_drawn(
        &self,
        decision: &Value,
        dice: Option<&TableDice>,
        by: Option<&str>,
        as_drawn: Option<&[Drawn]>,
    ) -> Result<(Vec<Event>, Vec<Drawn>), Refusal> {
        self.decide_diffed(decision, dice, by, as_drawn).map(|d| (d.events, d.drawn))
    }

    /// [`Game::decide_drawn`], keeping for each event the canonical bytes its
    /// link hashed and, for a fact, the fact as typed: what the others hand
    /// back part of, and what diff compares as bytes and folds in without
    /// reading back ([`Game::adopt_decided`]).
    pub(crate) fn decide_diffed(
        &self,
        decision: &Value,
        dice: Option<&TableDice>,
        by: Option<&str>,
        as_drawn: Option<&[Drawn]>,
    ) -> Result<DecidedEvents, Refusal> {
        Ok(self.decide_linked(decision, dice, by, as_drawn)?.into_events(decision, dice))
    }

    /// [`Game::decide_diffed`] short of its events: the decision, its rolls
    /// and its facts as the canonical bytes their links hash, chained from
    /// the head, each fact as typed. No JSON value is built: diff compares
    /// a version's decision by these bytes, and folds it in as it is
    /// ([`Game::adopt_linked`]) unless it shows it.
    pub(crate) fn decide_linked(
        &self,
        decision: &Value,
        dice: Option<&TableDice>,
        by: Option<&str>,
        as_drawn: Option<&[Drawn]>,
    ) -> Result<Linked, Refusal> {
        let (after, drawn) = self.decide_bodies(Asked::Value(decision), dice, by, None, as_drawn)?;
        let number = self.decisions + 1;
        // `DecisionBody`'s canonical bytes, written around the decision rather than copying it.
        let body = DecisionBodyOf { by, decision, dice, number };
        self.linked(|out| canon::append_typed(&body, out), by, after, drawn)
    }

    /// [`Game::decide_linked`] for a record's decision the proof read and
    /// checked ([`Verifier::kept_decision`]), given its line's canonical
    /// `body`, which must be the body this game writes for it: its `number`
    /// this game's next (a kept decision's body has no `null` member, which
    /// this game would leave out). `None` when it is not, or the decision
    /// is another ruleset's: decide it from its value.
    pub(crate) fn decide_linked_kept(
        &self,
        kept: &KeptDecision,
        body: &[u8],
        number: u64,
        by: Option<&str>,
    ) -> Option<Result<Linked, Refusal>> {
        if number != self.decisions + 1 {
            return None;
        }
        let read = self.machine.read_kept(kept)?;
        Some(self.decide_bodies(Asked::Read(read), None, by, None, None).and_then(|(after, drawn)| {
            self.linked(
                |out| {
                    out.extend_from_slice(body);
                    Ok(())
                },
                by,
                after,
                drawn,
            )
        }))
    }

    /// The links of a decision decided on this game's state: its body
    /// written by `decision_body`, then its rolls and facts.
    fn linked(
        &self,
        decision_body: impl FnOnce(&mut Vec<u8>) -> Result<(), canon::CanonError>,
        by: Option<&str>,
        after: Vec<Body>,
        drawn: Vec<Drawn>,
    ) -> Result<Linked, Refusal> {
        let number = self.decisions + 1;
        let seq = self.seq + 1;
        let mut links = Vec::with_capacity(1 + after.len());
        let mut heads = Vec::with_capacity(1 + after.len());
        let mut bytes = Vec::with_capacity(256);
        let link = |head: &Digest, bytes: &[u8]| match self.unhashed {
            false => record::link_bytes(head, bytes),
            true => *head,
        };
        let body_end = decided_bytes(seq, Kind::Decision, &mut bytes, decision_body)?;
        let mut head = link(&self.head, &bytes);
        links.push(Link { bytes, body_end, fact: None });
        heads.push(head);
        for (i, b) in after.iter().enumerate() {
            let mut bytes = Vec::with_capacity(256);
            // Written straight from the typed roll or fact, as verify writes
            // what it expects: the same bytes as the body's value.
            let body_end =
                decided_bytes(seq + 1 + i as u64, b.kind(), &mut bytes, |out| b.append_canonical(number, out))?;
            head = link(&head, &bytes);
            links.push(Link { bytes, body_end, fact: None });
            heads.push(head);
        }
        Ok(Linked { seq, number, by: by.map(str::to_string), links, heads, after, drawn })
    }

    /// What verify expects after a recorded decision: the bodies of its rolls
    /// and facts, each with the canonical bytes its link hashes (a recorded
    /// event must have the same body, and its link is checked over these
    /// bytes against the chain, so they are not hashed here).
    fn decide_expected<'a>(
        &'a self,
        decision: Asked<'a>,
        dice: Option<&TableDice>,
        by: Option<&str>,
        recorded: Option<&TableDice>,
    ) -> Result<VecDeque<Expected>, Refusal> {
        let (after, _) = self.decide_bodies(decision, dice, by, recorded, None)?;
        let number = self.decisions + 1;
        let mut expected = VecDeque::with_capacity(after.len());
        for (i, body) in after.into_iter().enumerate() {
            // The decision is at seq + 1.
            let seq = self.seq + 2 + i as u64;
            let kind = body.kind();
            let mut bytes = Vec::with_capacity(256);
            // Written straight from the typed roll or fact: no JSON value is built.
            let body_end = decided_bytes(seq, kind, &mut bytes, |out| body.append_canonical(number, out))?;
            expected.push_back(Expected { kind, bytes, body_end, fact: body.into_fact() });
        }
        Ok(expected)
    }

    /// A decision decided on this game's state with its dice: the bodies of
    /// the rolls and facts it leads to (in order), and the dice drawn.
    fn decide_bodies<'a>(
        &'a self,
        decision: Asked<'a>,
        dice: Option<&TableDice>,
        by: Option<&str>,
        recorded: Option<&TableDice>,
        as_drawn: Option<&[Drawn]>,
    ) -> Result<(Vec<Body>, Vec<Drawn>), Refusal> {
        // Read once: in a game with sides' keys its author is asked first,
        // and it is decided as read.
        let read = self.check_decider(decision, by)?;
        let number = self.decisions + 1;
        if dice.is_some() && self.header.mode != SeedMode::Table {
            return Err(Refusal::Malformed {
                field: "dice".into(),
                message: "this game draws its dice from its committed seed: a decision may not bring dice of its own"
                    .into(),
            });
        }
        let turn_seed;
        let mut rolled = match (self.header.mode, &self.seed, &self.sealed) {
            (SeedMode::Open, Some(seed), _) => Dice::seeded(seed, number),
            (SeedMode::Table, _, _) if as_drawn.is_some() => Dice::as_recorded(as_drawn.unwrap_or_default(), number),
            (SeedMode::Table, _, _) => Dice::table(dice.unwrap_or(&EMPTY_DICE), number),
            (SeedMode::Sealed, Some(seed), Some(sealed)) => match (sealed.value, recorded) {
                (Some(x), _) => {
                    turn_seed = sealed::turn_seed(seed, sealed.index, &x);
                    Dice::seeded(&turn_seed, number)
                }
                (None, Some(recorded)) => Dice::table(recorded, number),
                (None, None) => {
                    return Err(Refusal::Malformed {
                        field: String::new(),
                        message: format!(
                            "the dice of sealed turn {} are held by the server until the turn ends: decide through it (rollcall play --server)",
                            sealed.index
                        ),
                    })
                }
            },
            (_, None, _) | (SeedMode::Sealed, _, None) => unreachable!("an open or sealed game has a seed and a chain"),
        };
        let read = match read {
            Asked::Read(read) => read,
            Asked::Value(decision) => self.machine.read(decision)?,
        };
        let facts = read.decide(&mut rolled)?;
        let drawn = rolled.drawn();
        let rolls = if self.tolerate_unused_dice {
            rolled.rolls().to_vec()
        } else {
            rolled.finish().map_err(|e| Refusal::Violation(e.into()))?
        };
        let mut bodies = Vec::with_capacity(rolls.len() + facts.len());
        bodies.extend(rolls.iter().map(|roll| Body::Roll(RollBodyV1::from(roll))));
        bodies.extend(facts.into_iter().map(Body::Fact));
        Ok((bodies, drawn))
    }

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
    /// written from the canonical bytes its link hashed ([`record::event_line`]):
    /// what a store keeps of it, with no body written again.
    pub fn play_lines(
        &mut self,
        decision: &Value,
        dice: Option<&TableDice>,
    ) -> Result<(Vec<Event>, Vec<String>), Refusal> {
        let mut decided = self.decide_diffed(decision, dice, None, None)?;
        let lines = decided.lines();
        self.adopt_decided(&mut decided);
        Ok((decided.events, lines))
    }

    /// [`Game::play`] by a side (see [`Game::decide_as`]).
    pub fn play_as(
        &mut self,
        decision: &Value,
        dice: Option<&TableDice>,
        by: Option<&str>,
    ) -> Result<Vec<Event>, Refusal> {
        let mut decided = self.decide_diffed(decision, dice, by, None)?;
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
    /// chained from its head ([`Game::decide_diffed`],
    /// [`Verifier::expected_events`]), each fact as typed when it is at hand,
    /// the links not hashed again. Events the game already holds are skipped: a
    /// version that is the record's own rules plays on the proven game,
    /// which folded the record's decision in before its rolls and facts.
    pub(crate) fn adopt_decided(&mut self, decided: &mut DecidedEvents) {
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

static EMPTY_DICE: TableDice = TableDice::new();

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

/// The canonical bytes a decided event's link hashes. A value with no
/// canonical form (a fraction in a decision) makes the decision malformed,
/// named by its field.
/// The body's bytes are written by `body`.
fn decided_bytes(
    seq: u64,
    kind: Kind,
    out: &mut Vec<u8>,
    body: impl FnOnce(&mut Vec<u8>) -> Result<(), canon::CanonError>,
) -> Result<usize, Refusal> {
    record::linked_bytes_with(seq, kind, out, body).map_err(|e| Refusal::Malformed {
        field: e.path.replacen("$.body.decision", "decision", 1),
        message: e.message,
    })
}

/// A decision as the game is asked to decide it: its JSON value, read
/// typed when it is decided; or read already, from its line's text, and
/// checked there ([`Machine::read_text`]).
enum Asked<'a> {
    Value(&'a Value),
    Read(TypedDecision<'a>),
}

/// An event a decision leads to, not yet placed in the chain: a roll, or a
/// fact as the ruleset decided it, written out as JSON (for an event) or as
/// canonical bytes (for what verify expects) only once it is placed.
enum Body {
    Roll(RollBodyV1),
    Fact(TypedFact),
}

impl Body {
    fn kind(&self) -> Kind {
        match self {
            Body::Roll(_) => Kind::Roll,
            Body::Fact(_) => Kind::Fact,
        }
    }

    /// The event's body, in decision `number`.
    fn value(&self, number: u64) -> Value {
        match self {
            Body::Roll(roll) => serde_json::to_value(roll).expect("serialises"),
            Body::Fact(fact) => {
                // `FactBody`'s value, built around the fact rather than copying it.
                let mut body = serde_json::Map::new();
                body.insert("decision".into(), number.into());
                body.insert("fact".into(), fact.value());
                Value::Object(body)
            }
        }
    }

    /// The fact as decided, to fold in (none for a roll).
    fn into_fact(self) -> Option<TypedFact> {
        match self {
            Body::Fact(fact) => Some(fact),
            Body::Roll(_) => None,
        }
    }

    /// Appends the canonical bytes of [`Body::value`], written straight.
    fn append_canonical(&self, number: u64, out: &mut Vec<u8>) -> Result<(), canon::CanonError> {
        match self {
            Body::Roll(roll) => canon::append_typed(roll, out),
            Body::Fact(fact) => {
                // `{"decision":…,"fact":…}`: its keys in order.
                out.extend_from_slice(b"{\"decision\":");
                out.extend_from_slice(number.to_string().as_bytes());
                out.extend_from_slice(b",\"fact\":");
                fact.append_canonical(out)?;
                out.push(b'}');
                Ok(())
            }
        }
    }
}

/// The events a decision leads to (the decision, its rolls, its facts),
/// chained from the head that decided them, and the dice drawn.
pub(crate) struct DecidedEvents {
    pub events: Vec<Event>,
    /// Beside each event: the bytes its link hashed, and a fact as typed.
    links: Vec<Link>,
    pub drawn: Vec<Drawn>,
}

struct Link {
    bytes: Vec<u8>,
    /// Where the body ends in `bytes`.
    body_end: usize,
    /// A fact as decided, until it is folded in.
    fact: Option<TypedFact>,
}

impl DecidedEvents {
    /// Each event's record line, from the bytes its link hashed.
    fn lines(&self) -> Vec<String> {
        self.events.iter().zip(&self.links).map(|(e, l)| record::event_line(&l.bytes, l.body_end, &e.hash)).collect()
    }

    /// The kind of each roll and fact (the events after the decision), with
    /// the canonical bytes of its link up to the end of its body
    /// (`{"body":…`): what two versions' rolls and facts are compared by.
    pub fn rolls_and_facts(&self) -> impl ExactSizeIterator<Item = (Kind, &[u8])> {
        self.events[1..].iter().zip(&self.links[1..]).map(|(event, link)| (event.kind, &link.bytes[..link.body_end]))
    }
}

/// A decision decided on a game's state, with its rolls and facts, as the
/// canonical bytes their links hash and the links chained from the game's
/// head ([`Game::decide_linked`]); its events are built only when asked
/// ([`Linked::into_events`]).
pub(crate) struct Linked {
    /// The decision's seq.
    seq: u64,
    number: u64,
    by: Option<String>,
    /// The decision's link, then each roll's and fact's.
    links: Vec<Link>,
    /// The head after each link.
    heads: Vec<Digest>,
    /// The rolls and facts, as decided.
    after: Vec<Body>,
    drawn: Vec<Drawn>,
}

impl Linked {
    /// The kind of each roll and fact, with the canonical bytes of its link
    /// up to the end of its body: as [`DecidedEvents::rolls_and_facts`].
    pub fn rolls_and_facts(&self) -> impl ExactSizeIterator<Item = (Kind, &[u8])> {
        self.after.iter().zip(&self.links[1..]).map(|(body, link)| (body.kind(), &link.bytes[..link.body_end]))
    }

    /// The events: `decision` (with `dice`), as this was decided from, and
    /// its rolls and facts, each with its body's value.
    pub fn into_events(self, decision: &Value, dice: Option<&TableDice>) -> DecidedEvents {
        let Linked { seq, number, by, mut links, heads, after, drawn } = self;
        let mut body = serde_json::Map::new();
        body.insert("number".into(), number.into());
        body.insert("decision".into(), decision.clone());
        if let Some(dice) = dice {
            body.insert("dice".into(), serde_json::to_value(dice).expect("dice serialise"));
        }
        if let Some(by) = by {
            body.insert("by".into(), by.into());
        }
        let mut events = Vec::with_capacity(links.len());
        events.push(Event { seq, kind: Kind::Decision, body: Value::Object(body), hash: heads[0] });
        for (i, b) in after.into_iter().enumerate() {
            events.push(Event { seq: seq + 1 + i as u64, kind: b.kind(), body: b.value(number), hash: heads[i + 1] });
            links[i + 1].fact = b.into_fact();
        }
        DecidedEvents { events, links, drawn }
    }
}

/// [`DecisionBody`] over a decision held elsewhere, its members in key
/// order: written as canonical bytes without copying the decision.
#[derive(serde::Serialize)]
struct DecisionBodyOf<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    by: Option<&'a str>,
    decision: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    dice: Option<&'a TableDice>,
    number: u64,
}

/// An event verify expects, as the canonical bytes its link hashes
/// (`{"body","kind","seq"}`).
struct Expected {
    kind: Kind,
    bytes: Vec<u8>,
    /// Where the body ends in `bytes`.
    body_end: usize,
    /// A fact as decided, folded in once the record shows it.
    fact: Option<TypedFact>,
}

impl Expected {
    /// The body's canonical bytes.
    fn body_bytes(&self) -> &[u8] {
        &self.bytes[b"{\"body\":".len()..self.body_end]
    }

    /// The body as a JSON value: read back only to name what differs.
    fn body(&self) -> Value {
        serde_json::from_slice(self.body_bytes()).expect("canonical bytes are JSON")
    }

    /// Whether `line` is this event's line in a record, with link `hash`:
    /// `{"body":…,"hash":"…","kind":"…","seq":…}`, the bytes its link
    /// hashes with the hash put in, in key order.
    fn is_line(&self, line: &[u8], hash: &Digest) -> bool {
        const HASH: &[u8] = b",\"hash\":\"";
        let (body, tail) = self.bytes.split_at(self.body_end);
        let hex_end = body.len() + HASH.len() + 64;
        line.len() == self.bytes.len() + HASH.len() + 65
            && line.starts_with(body)
            && line[body.len()..].starts_with(HASH)
            && hash.is_hex(&line[body.len() + HASH.len()..hex_end])
            && line[hex_end] == b'"'
            && line[hex_end + 1..] == *tail
    }
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

/// One line of narrative for an event, by a ruleset's machine.
pub fn narrate_with(machine: &dyn Machine, event: &Event) -> String {
    let mut line = String::new();
    narrate_into(machine, event, &mut line);
    line
}

/// [`narrate_with`], the line appended to `out` (a narrative of many
/// events is written into one string, not a string per event).
pub(crate) fn narrate_into(machine: &dyn Machine, event: &Event, out: &mut String) {
    use std::fmt::Write;
    match event.kind {
        // Read where it is, not copied out of the event: a decision's shape
        // as `DecisionBody` reads it, its table dice read only when it has them.
        Kind::Decision => match (DecisionSeen::deserialize(&event.body), &event.body["dice"]) {
            (Ok(b), dice) if b.dice.is_none() || TableDice::deserialize(dice).is_ok() => {
                let decision = &event.body["decision"];
                write!(out, "#{} ", b.number).expect("a write to a String succeeds");
                describe_decision_into(decision, out);
                if let Some(by) = &b.by {
                    match machine.author(decision).ok() {
                        Some(Actor::Referee) => write!(out, "  [referee decision, made by {by}]"),
                        _ => write!(out, "  [{by}]"),
                    }
                    .expect("a write to a String succeeds");
                }
                if b.dice.is_some() {
                    let dice = TableDice::deserialize(dice).expect("read above");
                    let rolled: Vec<String> = dice.iter().map(|(l, v)| format!("{l}={v:?}")).collect();
                    write!(out, "  (table dice: {})", rolled.join(" ")).expect("a write to a String succeeds");
                }
            }
            _ => write!(out, "# unreadable decision {}", event.body).expect("a write to a String succeeds"),
        },
        Kind::Roll => match RollBodyV1::deserialize(&event.body) {
            Ok(r) => write!(out, "    roll {} {}#{} = {}", r.die, r.label, r.index, r.value),
            Err(_) => write!(out, "    unreadable roll {}", event.body),
        }
        .expect("a write to a String succeeds"),
        // Read where they are, not copied out of the event.
        Kind::Fact => match FactSeen::deserialize(&event.body) {
            Ok(_) => {
                out.push_str("    ");
                out.push_str(&machine.narrate(&event.body["fact"]));
            }
            Err(_) => write!(out, "    unreadable fact {}", event.body).expect("a write to a String succeeds"),
        },
        Kind::Checkpoint => match serde_json::from_value::<CheckpointBody>(event.body.clone()) {
            Ok(c) => write!(out, "== {} signs the turn (signature {})", c.side, c.signature.short()),
            Err(_) => write!(out, "== unreadable checkpoint {}", event.body),
        }
        .expect("a write to a String succeeds"),
        Kind::Reveal => match serde_json::from_value::<RevealBody>(event.body.clone()) {
            Ok(r) => write!(
                out,
                "== sealed turn {} revealed ({}): the dice of decisions {}–{} can be checked",
                r.turn,
                r.value.short(),
                r.first,
                r.last
            ),
            Err(_) => write!(out, "== unreadable reveal {}", event.body),
        }
        .expect("a write to a String succeeds"),
    }
}

/// `{"type":"command","unit":"U2"}` as `command unit=U2`.
pub fn describe_decision(decision: &Value) -> String {
    let mut out = String::new();
    describe_decision_into(decision, &mut out);
    out
}

/// [`describe_decision`], appended to `out`.
fn describe_decision_into(decision: &Value, out: &mut String) {
    use std::fmt::Write;
    let Some(map) = decision.as_object() else {
        write!(out, "{decision}").expect("a write to a String succeeds");
        return;
    };
    let mut separator = "";
    if let Some(t) = map.get("type").and_then(Value::as_str) {
        out.push_str(t);
        separator = " ";
    }
    for (k, v) in map {
        if k == "type" {
            continue;
        }
        out.push_str(separator);
        separator = " ";
        out.push_str(k);
        out.push('=');
        match v {
            Value::String(s) => out.push_str(s),
            Value::Array(items) if items.iter().all(Value::is_string) => {
                for (i, item) in items.iter().filter_map(Value::as_str).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(item);
                }
            }
            other => write!(out, "{other}").expect("a write to a String succeeds"),
        }
    }
}

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
    /// ([`DecidedEvents`]), when they are, byte for byte, those of the roll
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
        let expected = game.decide_expected(decision, dice.as_ref(), by, None).ok()?;
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
    /// [`DecidedEvents::rolls_and_facts`] gives them: each is the recorded
    /// one, once the record shows it (or the proof fails).
    pub(crate) fn expected(&self) -> impl ExactSizeIterator<Item = (Kind, &[u8])> {
        self.expected.iter().map(|want| (want.kind, &want.bytes[..want.body_end]))
    }

    /// `decision`, the decision just pushed, and the rolls and facts the
    /// proof expects after it, as the events they will be in the record
    /// (each fact to be read from its body: the typed ones stay with the
    /// proof, which folds them in).
    pub(crate) fn expected_events(&self, decision: &Event) -> DecidedEvents {
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
        DecidedEvents { events, links, drawn: Vec::new() }
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
        decided: &DecidedEvents,
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
            .decide_expected(Asked::Value(&held.body.decision), None, held.body.by.as_deref(), Some(&recorded))
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
            .decide_expected(Asked::Value(&event.body["decision"]), dice.as_ref(), body.by.as_deref(), None)
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

/// An event body that does not read as its kind's.
fn malformed(e: serde_json::Error) -> Faulted {
    Fault::MalformedEvent.because(e.to_string())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The rally fixture played, and its header.
    fn played() -> (Header, Vec<Event>) {
        let text = include_str!("../../fixtures/leader-activation/rally.json");
        let script = crate::script::Script::parse(text, "rally", crate::registry::builtin()).unwrap();
        let mut game = Game::open(script.header.clone(), crate::registry::builtin()).unwrap();
        let mut events = Vec::new();
        for (decision, dice) in &script.decisions {
            events.extend(game.play(decision, dice.as_ref()).unwrap());
        }
        (script.header, events)
    }

    /// Random games of every ruleset: each line `play_lines` writes from
    /// the bytes its link hashed is the event's canonical line, byte for
    /// byte, and the game plays on as `play` would.
    #[test]
    fn the_lines_a_game_plays_are_its_events_canonical_lines() {
        for ruleset in ["leader-activation", "phoenix-command", "combat-hq", "formation-activation"] {
            let (header, decisions) = crate::sim::random_game(ruleset, 11, 60).unwrap();
            let (mut lined, mut plain) = (
                Game::open(header.clone(), crate::registry::builtin()).unwrap(),
                Game::open(header, crate::registry::builtin()).unwrap(),
            );
            for decision in &decisions {
                let (events, lines) = lined.play_lines(decision, None).unwrap();
                assert_eq!(events, plain.play(decision, None).unwrap(), "{ruleset}");
                let encoded: Vec<String> = events.iter().map(|e| record::encode_event(e).unwrap()).collect();
                assert_eq!(lines, encoded, "{ruleset}");
            }
            assert_eq!((lined.head(), lined.seq()), (plain.head(), plain.seq()), "{ruleset}");
        }
    }

    #[test]
    fn a_line_taken_unparsed_folds_in_as_its_parsed_event_does() {
        let (header, events) = played();
        let (mut parsed, mut taken) = (
            Game::open(header.clone(), crate::registry::builtin()).unwrap(),
            Game::open(header, crate::registry::builtin()).unwrap(),
        );
        for event in &events {
            let line = record::encode_event(event).unwrap();
            parsed.apply(event).unwrap();
            // Every event of this game is a decision, a roll or a fact: each is taken.
            assert!(taken.apply_line(line.as_bytes()), "seq {} is taken", event.seq);
            assert_eq!(
                (taken.head(), taken.decisions(), taken.turns()),
                (parsed.head(), parsed.decisions(), parsed.turns())
            );
            assert_eq!(taken.state(), parsed.state(), "seq {}", event.seq);
            // Taken twice, it is out of its place: refused, and nothing changes.
            assert!(!taken.apply_line(line.as_bytes()));
            assert_eq!(taken.seq(), event.seq);
        }
    }

    #[test]
    fn verify_takes_every_line_of_a_good_record_unparsed_and_leaves_a_refused_decision_to_the_parse() {
        let (header, events) = played();
        let mut verifier = Verifier::new(&header, crate::registry::builtin()).unwrap();
        for event in &events {
            assert!(verifier.take_line(record::encode_event(event).unwrap().as_bytes()), "seq {}", event.seq);
        }
        let (verified, game) = verifier.finish().unwrap();
        assert_eq!((verified.head, game.seq()), (events.last().unwrap().hash, events.len() as u64));

        // The first decision, giving the first move to a side the scenario does not have.
        let mut body = events[0].body.clone();
        body["decision"]["first"] = "nobody".into();
        let hash = record::link(
            &Game::open(header.clone(), crate::registry::builtin()).unwrap().root(),
            1,
            Kind::Decision,
            &body,
        )
        .unwrap();
        let refused = Event { body, hash, ..events[0].clone() };
        let mut verifier = Verifier::new(&header, crate::registry::builtin()).unwrap();
        assert!(!verifier.take_line(record::encode_event(&refused).unwrap().as_bytes()));
        assert_eq!(verifier.game().seq(), 0);
        let failure = verifier.push(&refused).unwrap_err();
        assert_eq!(failure.kind, Fault::DecisionRefused, "{failure}");
    }

    /// A decision whose text the typed read does not vouch for (a member
    /// the rules ignore, a control character, a number out of range) is
    /// left to the parse, which refuses it as a pushed event is refused.
    #[test]
    fn a_decision_the_text_read_does_not_vouch_for_is_left_to_the_parse() {
        let (header, events) = played();
        let root = Game::open(header.clone(), crate::registry::builtin()).unwrap().root();
        let changes: [fn(&mut Value); 3] = [
            |d| d["extra"] = 1.into(),
            |d| d["first"] = "red\u{1b}[31m".into(),
            |d| d["first"] = 10_000_000_000u64.into(),
        ];
        for change in changes {
            let mut body = events[0].body.clone();
            change(&mut body["decision"]);
            let hash = record::link(&root, 1, Kind::Decision, &body).unwrap();
            let refused = Event { body, hash, ..events[0].clone() };
            let mut verifier = Verifier::new(&header, crate::registry::builtin()).unwrap();
            assert!(!verifier.take_line(record::encode_event(&refused).unwrap().as_bytes()), "{:?}", refused.body);
            assert_eq!(verifier.game().seq(), 0);
            let failure = verifier.push(&refused).unwrap_err();
            assert_eq!(failure.kind, Fault::DecisionRefused, "{failure}");
            assert!(failure.to_string().contains("decision"), "{failure}");
        }
    }

    #[test]
    fn a_line_not_canonical_or_not_next_is_left_to_the_parse() {
        let (header, events) = played();
        let line = record::encode_event(&events[0]).unwrap();
        let game = || Game::open(header.clone(), crate::registry::builtin()).unwrap();
        assert!(game().apply_line(line.as_bytes()));
        let spaced = line.replacen("\"body\":", "\"body\": ", 1);
        let upper = line.replacen(&events[0].hash.to_string(), &events[0].hash.to_string().to_uppercase(), 1);
        let later = record::encode_event(&events[1]).unwrap();
        let relinked = record::encode_event(&Event { hash: Digest::of(b"elsewhere"), ..events[0].clone() }).unwrap();
        for other in [spaced, upper, later, relinked, format!("{line} "), line.replace("\"seq\":1}", "\"seq\":01}")] {
            let mut g = game();
            assert!(!g.apply_line(other.as_bytes()), "{other}");
            assert_eq!((g.seq(), g.head()), (0, g.root()), "{other}");
        }
    }

    /// A line whose body is not canonical (a space in it) but whose link is
    /// hashed over its bytes as they are, so that the link holds: refused
    /// by the fold, with a reader's proof and without, for every kind of
    /// line (a fact's body is proved canonical by its own reader,
    /// `record::fact_scanned`; a decision's by the fold when the reader
    /// left it).
    #[test]
    fn a_line_whose_link_holds_but_whose_body_is_not_canonical_is_left_to_the_parse() {
        let (header, events) = played();
        let mut game = Game::open(header.clone(), crate::registry::builtin()).unwrap();
        let mut refused = std::collections::BTreeSet::new();
        for event in &events {
            let line = record::encode_event(event).unwrap();
            let body = record::split_shape(line.as_bytes()).unwrap().body;
            let close = body.as_ptr() as usize - line.as_ptr() as usize + body.len() - 1;
            let spaced = format!("{} {}", &line[..close], &line[close..]);
            let parts = record::split_shape(spaced.as_bytes()).unwrap();
            let link = record::link_pieces(&game.head(), parts.hashed);
            let spaced = spaced.replacen(&event.hash.to_string(), &link.to_string(), 1);
            let proof = record::LinkProof::of(&game.head(), spaced.as_bytes()).expect("its link holds");
            for proof in [None, Some(&proof)] {
                let mut g = game.clone();
                assert!(!g.apply_line_proven(spaced.as_bytes(), proof), "{spaced}");
                assert_eq!((g.seq(), g.head()), (game.seq(), game.head()));
            }
            refused.insert(event.kind.name());
            assert!(game.apply_line(line.as_bytes()), "{line}");
        }
        assert_eq!(refused.into_iter().collect::<Vec<_>>(), ["decision", "fact", "roll"]);
    }

    /// Why replay (`Game::apply`) and verify stop at the first bad event.
    fn replayed_and_verified(header: &Header, events: &[Event]) -> (ApplyError, VerifyFailure) {
        let mut game = Game::open(header.clone(), crate::registry::builtin()).unwrap();
        let replayed = events.iter().find_map(|e| game.apply(e).err()).expect("replay stops");
        let verified = verify(header, events.iter().cloned().map(Ok::<_, String>), crate::registry::builtin())
            .expect_err("verify stops");
        (replayed, verified)
    }

    #[test]
    fn replay_and_verify_say_the_same_of_a_decision_out_of_order_or_a_broken_link() {
        let (header, events) = played();
        // The second decision renumbered 3, and the chain rebuilt over it.
        let mut renumbered = events.clone();
        let second = renumbered.iter().filter(|e| e.kind == Kind::Decision).nth(1).unwrap().seq;
        let mut head = record::header_hash(&header).unwrap();
        for e in renumbered.iter_mut() {
            if e.seq == second {
                e.body["number"] = 3.into();
            }
            e.hash = record::link(&head, e.seq, e.kind, &e.body).unwrap();
            head = e.hash;
        }
        let (replayed, verified) = replayed_and_verified(&header, &renumbered);
        assert_eq!((replayed.seq, Some(replayed.seq)), (second, verified.seq));
        assert_eq!(replayed.reason, "decision number 3 where 2 was due: a decision was dropped, repeated or moved");
        assert_eq!(verified.reason, replayed.reason);
        assert_eq!((replayed.kind, verified.kind), (Fault::DecisionNumber, Fault::DecisionNumber));
        // The same decision changed without rebuilding the chain.
        let mut changed = events;
        changed.iter_mut().find(|e| e.seq == second).unwrap().body["number"] = 3.into();
        let (replayed, verified) = replayed_and_verified(&header, &changed);
        assert!(replayed.reason.starts_with("the hash does not chain"), "{}", replayed.reason);
        assert_eq!(verified.reason, replayed.reason);
        assert_eq!((replayed.kind, verified.kind), (Fault::LinkBroken, Fault::LinkBroken));
    }

    #[test]
    fn a_header_that_lies_about_itself_fails_with_the_claim_it_breaks() {
        let (header, events) = played();
        let verified = |header: &Header| {
            verify(header, events.iter().cloned().map(Ok::<_, String>), crate::registry::builtin()).unwrap_err()
        };
        let mut rehashed = header.clone();
        rehashed.rules_hash = Digest::of(b"other rules");
        let failure = verified(&rehashed);
        assert_eq!((failure.seq, failure.kind), (None, Fault::HeaderRulesHash));
        assert_eq!(
            check_header(&rehashed, crate::registry::builtin()).unwrap_err().message,
            failure.reason.trim_start_matches("header: ")
        );
        let mut recommitted = header.clone();
        recommitted.parties[0].commitment = Some(Digest::of(b"another share"));
        assert_eq!(verified(&recommitted).kind, Fault::CommitmentMismatch);
    }

    #[test]
    fn a_record_cut_short_or_with_an_unreadable_line_fails_as_truncated_or_unreadable() {
        let (header, mut events) = played();
        let last = events.pop().unwrap();
        let failure =
            verify(&header, events.iter().cloned().map(Ok::<_, String>), crate::registry::builtin()).unwrap_err();
        assert_eq!((failure.seq, failure.kind), (Some(last.seq), Fault::Truncated));
        let failure = verify(
            &header,
            [Ok::<_, String>(events[0].clone())]
                .into_iter()
                .chain(std::iter::once(Err("line 3: not JSON".to_string()))),
            crate::registry::builtin(),
        )
        .unwrap_err();
        assert_eq!((failure.seq, failure.kind), (Some(2), Fault::Unreadable));
    }
}
