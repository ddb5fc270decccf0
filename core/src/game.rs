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

use serde_json::Value;

use crate::canon;
use crate::dice::{Dice, Seed, TableDice};
use crate::digest::Digest;
use crate::record::{self, DecisionBody, Event, FactBody, Header, Kind, RollBodyV1, SeedMode};
use crate::ruleset::{self, Machine, Refusal, ScenarioError};
use crate::seed::game_seed;

/// Why a game cannot be opened from its header.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("header: {0}")]
    Header(String),
    #[error("scenario: {0}")]
    Scenario(#[from] ScenarioError),
}

/// Why an event does not fold into the game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("seq {seq}: {reason}")]
pub struct ApplyError {
    pub seq: u64,
    pub reason: String,
}

/// Checks what a header claims about itself: the rules hash and the commitments.
pub fn check_header(header: &Header) -> Result<(), String> {
    if let Ok(spec) = ruleset::version(&header.rules.version) {
        spec.check_ranges(&header.rules).map_err(|e| format!("rules.{e}"))?;
    }
    let computed = header.rules.hash();
    if computed != header.rules_hash {
        return Err(format!(
            "the rules hash {} does not match the settings listed for {} (they hash to {}): the rules or options were changed",
            header.rules_hash.short(),
            header.rules.label(),
            computed.short()
        ));
    }
    for party in &header.parties {
        if let (Some(share), Some(commitment)) = (party.share, party.commitment) {
            if share.commitment() != commitment {
                return Err(format!(
                    "party {:?}'s share does not match its commitment {}: a share or a commitment was changed",
                    party.name,
                    commitment.short()
                ));
            }
        }
    }
    Ok(())
}

/// A game in play.
pub struct Game {
    header: Header,
    root: Digest,
    machine: Box<dyn Machine>,
    seed: Option<Seed>,
    head: Digest,
    seq: u64,
    decisions: u64,
    /// Under diff, a rule version may need fewer dice than the table rolled.
    tolerate_unused_dice: bool,
}

impl Clone for Game {
    fn clone(&self) -> Self {
        Game {
            header: self.header.clone(),
            root: self.root,
            machine: self.machine.boxed_clone(),
            seed: self.seed,
            head: self.head,
            seq: self.seq,
            decisions: self.decisions,
            tolerate_unused_dice: self.tolerate_unused_dice,
        }
    }
}

impl Game {
    /// The game before its first event.
    pub fn open(header: Header) -> Result<Game, OpenError> {
        check_header(&header).map_err(OpenError::Header)?;
        let info = ruleset::find(header.rules.ruleset()).map_err(|e| OpenError::Header(e.to_string()))?;
        let machine = (info.load)(&header.scenario, &header.rules)?;
        let seed = match header.mode {
            SeedMode::Open => {
                let shares: Vec<_> = header.parties.iter().filter_map(|p| p.share).collect();
                if shares.len() != header.parties.len() || shares.is_empty() {
                    return Err(OpenError::Header("an open game needs every party's share".into()));
                }
                Some(game_seed(&header.game, &shares))
            }
            SeedMode::Table => None,
        };
        let root = record::header_hash(&header).map_err(|e| OpenError::Header(e.to_string()))?;
        Ok(Game { header, root, machine, seed, head: root, seq: 0, decisions: 0, tolerate_unused_dice: false })
    }

    pub fn header(&self) -> &Header {
        &self.header
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

    /// Runs a decision on the current state: the events it leads to, chained
    /// from the head. Nothing changes until they are applied.
    pub fn decide(&self, decision: &Value, dice: Option<&TableDice>) -> Result<Vec<Event>, Refusal> {
        let number = self.decisions + 1;
        let mut rolled = match (self.header.mode, dice, &self.seed) {
            (SeedMode::Open, None, Some(seed)) => Dice::seeded(seed, number),
            (SeedMode::Open, Some(_), _) => {
                return Err(Refusal::Malformed {
                    field: "dice".into(),
                    message:
                        "this game draws its dice from its committed seed: a decision may not bring dice of its own"
                            .into(),
                })
            }
            (SeedMode::Table, Some(given), _) => Dice::table(given, number),
            (SeedMode::Table, None, _) => Dice::table(&EMPTY_DICE, number),
            (SeedMode::Open, None, None) => unreachable!("an open game has a seed"),
        };
        let facts = self.machine.decide(decision, &mut rolled)?;
        let rolls = if self.tolerate_unused_dice {
            rolled.rolls().to_vec()
        } else {
            rolled.finish().map_err(|e| Refusal::Violation(e.into()))?
        };
        let mut bodies = Vec::with_capacity(1 + rolls.len() + facts.len());
        let body = DecisionBody { number, decision: decision.clone(), dice: dice.cloned() };
        bodies.push((Kind::Decision, serde_json::to_value(body).expect("serialises")));
        for roll in &rolls {
            bodies.push((Kind::Roll, serde_json::to_value(RollBodyV1::from(roll)).expect("serialises")));
        }
        for fact in facts {
            bodies.push((Kind::Fact, serde_json::to_value(FactBody { decision: number, fact }).expect("serialises")));
        }
        let mut head = self.head;
        let mut events = Vec::with_capacity(bodies.len());
        for (i, (kind, body)) in bodies.into_iter().enumerate() {
            let seq = self.seq + 1 + i as u64;
            let hash = record::link(&head, seq, kind, &body).map_err(|e| Refusal::Malformed {
                field: e.path.replacen("$.body.decision", "decision", 1),
                message: e.message,
            })?;
            head = hash;
            events.push(Event { seq, kind, body, hash });
        }
        Ok(events)
    }

    /// Folds one event in: checks its place and link, counts decisions,
    /// evolves facts. Replay is this, over the log.
    pub fn apply(&mut self, event: &Event) -> Result<(), ApplyError> {
        let fail = |reason: String| ApplyError { seq: event.seq, reason };
        if event.seq != self.seq + 1 {
            return Err(fail(sequence_gap(self.seq + 1, event.seq)));
        }
        let link = record::link(&self.head, event.seq, event.kind, &event.body).map_err(|e| fail(e.to_string()))?;
        if link != event.hash {
            return Err(fail(broken_link(event.seq)));
        }
        match event.kind {
            Kind::Decision => {
                let body: DecisionBody = serde_json::from_value(event.body.clone()).map_err(|e| fail(e.to_string()))?;
                if body.number != self.decisions + 1 {
                    return Err(fail(format!(
                        "decision number {} out of order: expected {}",
                        body.number,
                        self.decisions + 1
                    )));
                }
                self.decisions = body.number;
            }
            Kind::Roll => {}
            Kind::Fact => {
                let body: FactBody = serde_json::from_value(event.body.clone()).map_err(|e| fail(e.to_string()))?;
                self.machine.evolve(&body.fact).map_err(|e| fail(format!("unreadable fact: {e}")))?;
            }
        }
        self.seq = event.seq;
        self.head = event.hash;
        Ok(())
    }

    /// Decides and applies a decision: what `play` does.
    pub fn play(&mut self, decision: &Value, dice: Option<&TableDice>) -> Result<Vec<Event>, Refusal> {
        let events = self.decide(decision, dice)?;
        for e in &events {
            self.apply(e).expect("events just decided chain from the head");
        }
        Ok(events)
    }

    /// For diff: a rule version that needs fewer dice than a table game
    /// rolled for a decision is not refused for it (the table rolled what
    /// the record's own rules needed).
    pub fn tolerate_unused_table_dice(&mut self) {
        self.tolerate_unused_dice = true;
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

    /// One line of narrative for an event.
    pub fn narrate(&self, event: &Event) -> String {
        narrate_with(&*self.machine, event)
    }
}

static EMPTY_DICE: TableDice = TableDice::new();

fn sequence_gap(expected: u64, found: u64) -> String {
    if found > expected {
        format!("expected seq {expected}, found {found}: {} event(s) are missing", found - expected)
    } else {
        format!("expected seq {expected}, found {found}: an event was inserted, repeated or moved")
    }
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
    match event.kind {
        Kind::Decision => {
            let body: Result<DecisionBody, _> = serde_json::from_value(event.body.clone());
            match body {
                Ok(b) => {
                    let mut line = format!("#{} {}", b.number, describe_decision(&b.decision));
                    if let Some(dice) = &b.dice {
                        let rolled: Vec<String> = dice.iter().map(|(l, v)| format!("{l}={v:?}")).collect();
                        line.push_str(&format!("  (table dice: {})", rolled.join(" ")));
                    }
                    line
                }
                Err(_) => format!("# unreadable decision {}", event.body),
            }
        }
        Kind::Roll => match serde_json::from_value::<RollBodyV1>(event.body.clone()) {
            Ok(r) => format!("    roll {} {}#{} = {}", r.die, r.label, r.index, r.value),
            Err(_) => format!("    unreadable roll {}", event.body),
        },
        Kind::Fact => match serde_json::from_value::<FactBody>(event.body.clone()) {
            Ok(f) => format!("    {}", machine.narrate(&f.fact)),
            Err(_) => format!("    unreadable fact {}", event.body),
        },
    }
}

/// `{"type":"command","unit":"U2"}` as `command unit=U2`.
pub fn describe_decision(decision: &Value) -> String {
    let Some(map) = decision.as_object() else {
        return decision.to_string();
    };
    let mut parts = Vec::new();
    if let Some(t) = map.get("type").and_then(Value::as_str) {
        parts.push(t.to_string());
    }
    for (k, v) in map {
        if k == "type" {
            continue;
        }
        let v = match v {
            Value::String(s) => s.clone(),
            Value::Array(items) if items.iter().all(Value::is_string) => {
                items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(",")
            }
            other => other.to_string(),
        };
        parts.push(format!("{k}={v}"));
    }
    parts.join(" ")
}

/// What a verified record proved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub events: u64,
    pub decisions: u64,
    pub head: Digest,
    pub mode: SeedMode,
    pub turn: u32,
}

impl Verified {
    /// What this verification does and does not prove, in one sentence.
    pub fn guarantee(&self) -> &'static str {
        match self.mode {
            SeedMode::Open => "every roll is the one the committed seed gives, every decision was legal, every fact follows, and nothing was dropped, reordered or re-rolled",
            SeedMode::Table => "every decision was legal, every fact follows from the dice entered, and the chain is whole; the dice themselves were rolled by hand and are UNPROVEN",
        }
    }
}

/// Why a record does not verify: the first bad seq (none for the header) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct VerifyFailure {
    pub seq: Option<u64>,
    pub reason: String,
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
) -> Result<Verified, VerifyFailure> {
    verify_each(header, events, |_, _| {})
}

/// [`verify`], calling `seen` with the game and each event once it is folded in.
pub fn verify_each<E: Display>(
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
    seen: impl FnMut(&Game, &Event),
) -> Result<Verified, VerifyFailure> {
    verify_game(header, events, seen).map(|(verified, _)| verified)
}

/// [`verify_each`], handing back the verified game at its end as well.
pub fn verify_game<E: Display>(
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
    mut seen: impl FnMut(&Game, &Event),
) -> Result<(Verified, Game), VerifyFailure> {
    let mut game = Game::open(header.clone()).map_err(|e| VerifyFailure { seq: None, reason: e.to_string() })?;
    let mut expected: VecDeque<(Kind, Value)> = VecDeque::new();
    for event in events {
        let next = game.seq() + 1;
        let event = event.map_err(|e| VerifyFailure { seq: Some(next), reason: e.to_string() })?;
        let fail = |reason: String| VerifyFailure { seq: Some(event.seq), reason };
        if event.seq != next {
            return Err(fail(sequence_gap(next, event.seq)));
        }
        match expected.pop_front() {
            Some((kind, body)) => {
                if kind != event.kind || canon::to_bytes(&body).ok() != canon::to_bytes(&event.body).ok() {
                    return Err(fail(mismatch(&game, kind, &body, &event)));
                }
            }
            None => {
                if event.kind != Kind::Decision {
                    return Err(fail(format!(
                        "a {} where a decision should be: decision {} is over, so this event is extra (an added roll is a re-roll)",
                        event.kind.name(),
                        game.decisions()
                    )));
                }
                // A changed decision is a broken link first: say so before re-deciding it.
                let link =
                    record::link(&game.head, event.seq, event.kind, &event.body).map_err(|e| fail(e.to_string()))?;
                if link != event.hash {
                    return Err(fail(broken_link(event.seq)));
                }
                let body: DecisionBody = serde_json::from_value(event.body.clone()).map_err(|e| fail(e.to_string()))?;
                if body.number != game.decisions() + 1 {
                    return Err(fail(format!(
                        "decision number {} where {} was due: a decision was dropped, repeated or moved",
                        body.number,
                        game.decisions() + 1
                    )));
                }
                let decided = game.decide(&body.decision, body.dice.as_ref()).map_err(|refusal| {
                    fail(format!("decision {} is refused by {}: {refusal}", body.number, header.rules.label()))
                })?;
                expected.extend(decided.into_iter().skip(1).map(|e| (e.kind, e.body)));
            }
        }
        game.apply(&event).map_err(|e| VerifyFailure { seq: Some(e.seq), reason: e.reason })?;
        seen(&game, &event);
    }
    if let Some((kind, body)) = expected.front() {
        return Err(VerifyFailure {
            seq: Some(game.seq() + 1),
            reason: format!(
                "the record ends in the middle of decision {}: its {} {} is missing",
                game.decisions(),
                kind.name(),
                short_body(*kind, body, &game)
            ),
        });
    }
    let verified = Verified {
        events: game.seq(),
        decisions: game.decisions(),
        head: game.head(),
        mode: header.mode,
        turn: game.turn(),
    };
    Ok((verified, game))
}

fn short_body(kind: Kind, body: &Value, game: &Game) -> String {
    match kind {
        Kind::Roll => serde_json::from_value::<RollBodyV1>(body.clone())
            .map(|r| format!("'{}' #{}", r.label, r.index))
            .unwrap_or_default(),
        Kind::Fact => serde_json::from_value::<FactBody>(body.clone())
            .map(|f| format!("({})", game.machine.narrate(&f.fact)))
            .unwrap_or_default(),
        Kind::Decision => String::new(),
    }
}

fn mismatch(game: &Game, kind: Kind, expected: &Value, event: &Event) -> String {
    match (kind, event.kind) {
        (Kind::Roll, Kind::Roll) => {
            let want: RollBodyV1 = serde_json::from_value(expected.clone()).expect("our own roll");
            match serde_json::from_value::<RollBodyV1>(event.body.clone()) {
                Ok(got) if got.label == want.label && got.index == want.index && got.die == want.die => {
                    let source = match game.header.mode {
                        SeedMode::Open => "the committed seed gives",
                        SeedMode::Table => "the table dice of the decision give",
                    };
                    format!(
                        "roll {} '{}' #{} of decision {} is {} in the record, but {source} {}",
                        want.die, want.label, want.index, want.decision, got.value, want.value
                    )
                }
                Ok(got) => format!(
                    "the record rolls {} '{}' #{} where the rules roll {} '{}' #{}",
                    got.die, got.label, got.index, want.die, want.label, want.index
                ),
                Err(e) => e.to_string(),
            }
        }
        (Kind::Fact, Kind::Fact) => {
            let want: FactBody = serde_json::from_value(expected.clone()).expect("our own fact");
            let got = serde_json::from_value::<FactBody>(event.body.clone())
                .map(|f| game.machine.narrate(&f.fact))
                .unwrap_or_else(|_| event.body.to_string());
            format!(
                "the fact differs from what the rules decide: the record says \"{}\", the rules say \"{}\"",
                got,
                game.machine.narrate(&want.fact)
            )
        }
        (want, got) => format!(
            "expected a {} {} here, found a {}: an event was dropped, added or moved",
            want.name(),
            short_body(want, expected, game),
            got.name()
        ),
    }
}
