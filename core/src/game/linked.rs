//! What a decision is decided into: the canonical bytes each of its
//! events' links hashes (the decision's, then each roll's and fact's),
//! chained from the game's head, each fact as the ruleset decided it
//! (typed, behind the ruleset-erasing boundary). Events, record lines and
//! what verify expects are all written from them, and a game folds the
//! facts in as decided, without reading them back.

use std::collections::VecDeque;

use serde_json::Value;

use super::{Game, Refusal};
use crate::canon;
use crate::chain::ChainedLines;
use crate::dice::{Dice, Drawn, TableDice};
use crate::digest::Digest;
use crate::record::{self, Event, Head, Kind, RollBodyV1, SeedMode};
use crate::ruleset::{KeptDecision, TypedDecision, TypedFact};
use crate::sealed;

impl Game {
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
        let options = Decide { by, ..Decide::default() };
        Some(self.decide_bodies(Asked::Read(read), options, None).and_then(|(after, drawn)| {
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
    pub(super) fn linked(
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
    pub(super) fn decide_expected<'a>(
        &'a self,
        decision: Asked<'a>,
        options: Decide<'_>,
        recorded: Option<&TableDice>,
    ) -> Result<VecDeque<Expected>, Refusal> {
        let (after, _) = self.decide_bodies(decision, options, recorded)?;
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

    /// A decision decided on this game's state as `options` say: the
    /// bodies of the rolls and facts it leads to (in order), and the dice
    /// drawn. `recorded` is a sealed turn's dice as a record shows them,
    /// for verify to decide a turn whose seed is not revealed yet.
    pub(super) fn decide_bodies<'a>(
        &'a self,
        decision: Asked<'a>,
        options: Decide<'_>,
        recorded: Option<&TableDice>,
    ) -> Result<(Vec<Body>, Vec<Drawn>), Refusal> {
        let Decide { dice, by, as_drawn } = options;
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
}

static EMPTY_DICE: TableDice = TableDice::new();

/// The canonical bytes a decided event's link hashes. A value with no
/// canonical form (a fraction in a decision) makes the decision malformed,
/// named by its field.
/// The body's bytes are written by `body`.
pub(super) fn decided_bytes(
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
pub(super) enum Asked<'a> {
    Value(&'a Value),
    Read(TypedDecision<'a>),
}

/// An event a decision leads to, not yet placed in the chain: a roll, or a
/// fact as the ruleset decided it, written out as JSON (for an event) or as
/// canonical bytes (for what verify expects) only once it is placed.
pub(super) enum Body {
    Roll(RollBodyV1),
    Fact(TypedFact),
}

impl Body {
    pub(super) fn kind(&self) -> Kind {
        match self {
            Body::Roll(_) => Kind::Roll,
            Body::Fact(_) => Kind::Fact,
        }
    }

    /// The event's body, in decision `number`.
    pub(super) fn value(&self, number: u64) -> Value {
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
    pub(super) fn into_fact(self) -> Option<TypedFact> {
        match self {
            Body::Fact(fact) => Some(fact),
            Body::Roll(_) => None,
        }
    }

    /// Appends the canonical bytes of [`Body::value`], written straight.
    pub(super) fn append_canonical(&self, number: u64, out: &mut Vec<u8>) -> Result<(), canon::CanonError> {
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

/// How [`Game::decide`] decides a decision; each part is none unless given
/// (`Decide::default()` decides as the game's seed and header alone say).
#[derive(Debug, Clone, Copy, Default)]
pub struct Decide<'a> {
    /// A table game's dice for it: the faces rolled at the table. A game
    /// that draws its dice from its committed seed refuses them.
    pub dice: Option<&'a TableDice>,
    /// The side that makes it. In a game whose header lists the sides' keys
    /// every decision names the side that made it, which must be the
    /// decision's author (or any side, for a referee decision); in one
    /// without, none.
    pub by: Option<&'a str>,
    /// For diff: in a table game, the dice as the record's own rules drew
    /// them (each pick with its cup), in place of the table's faces, so
    /// that a face is reused only for the same die and cup.
    pub as_drawn: Option<&'a [Drawn]>,
}

/// The events a decision leads to (the decision, its rolls, its facts),
/// chained from the head that decided them, and the dice drawn
/// ([`Game::decide`]).
pub struct Decided {
    pub events: Vec<Event>,
    /// Beside each event: the bytes its link hashed, and a fact as typed.
    pub(super) links: Vec<Link>,
    /// The dice as drawn (a pick with its cup).
    pub drawn: Vec<Drawn>,
}

impl std::fmt::Debug for Decided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decided").field("events", &self.events).field("drawn", &self.drawn).finish_non_exhaustive()
    }
}

pub(super) struct Link {
    pub(super) bytes: Vec<u8>,
    /// Where the body ends in `bytes`.
    pub(super) body_end: usize,
    /// A fact as decided, until it is folded in.
    pub(super) fact: Option<TypedFact>,
}

impl Decided {
    /// Each event's record line, from the bytes its link hashed, chained on
    /// from `from`, the head the decision was decided at.
    pub(super) fn lines(&self, from: Head) -> ChainedLines {
        let mut lines = ChainedLines::new(from);
        for (e, l) in self.events.iter().zip(&self.links) {
            // The linked bytes start `{"body":`; the line keeps them before the hash member.
            let body = record::BODY_MEMBER.len()..l.body_end;
            lines.push_made(record::event_line(&l.bytes, l.body_end, &e.hash), e.seq, e.kind, e.hash, body);
        }
        lines
    }

    /// The kind of each roll and fact (the events after the decision), with
    /// the canonical bytes of its link up to the end of its body
    /// (`{"body":…`): what two versions' rolls and facts are compared by.
    pub(crate) fn rolls_and_facts(&self) -> impl ExactSizeIterator<Item = (Kind, &[u8])> {
        self.events[1..].iter().zip(&self.links[1..]).map(|(event, link)| (event.kind, &link.bytes[..link.body_end]))
    }
}

/// A decision decided on a game's state, with its rolls and facts, as the
/// canonical bytes their links hash and the links chained from the game's
/// head ([`Game::decide_linked`]); its events are built only when asked
/// ([`Linked::into_events`]).
pub(crate) struct Linked {
    /// The decision's seq.
    pub(super) seq: u64,
    pub(super) number: u64,
    pub(super) by: Option<String>,
    /// The decision's link, then each roll's and fact's.
    pub(super) links: Vec<Link>,
    /// The head after each link.
    pub(super) heads: Vec<Digest>,
    /// The rolls and facts, as decided.
    pub(super) after: Vec<Body>,
    pub(super) drawn: Vec<Drawn>,
}

impl Linked {
    /// The kind of each roll and fact, with the canonical bytes of its link
    /// up to the end of its body: as [`Decided::rolls_and_facts`].
    pub fn rolls_and_facts(&self) -> impl ExactSizeIterator<Item = (Kind, &[u8])> {
        self.after.iter().zip(&self.links[1..]).map(|(body, link)| (body.kind(), &link.bytes[..link.body_end]))
    }

    /// The events: `decision` (with `dice`), as this was decided from, and
    /// its rolls and facts, each with its body's value.
    pub fn into_events(self, decision: &Value, dice: Option<&TableDice>) -> Decided {
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
        Decided { events, links, drawn }
    }
}

/// [`DecisionBody`] over a decision held elsewhere, its members in key
/// order: written as canonical bytes without copying the decision.
#[derive(serde::Serialize)]
pub(super) struct DecisionBodyOf<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) by: Option<&'a str>,
    pub(super) decision: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) dice: Option<&'a TableDice>,
    pub(super) number: u64,
}

/// An event verify expects, as the canonical bytes its link hashes
/// (`{"body","kind","seq"}`).
pub(super) struct Expected {
    pub(super) kind: Kind,
    pub(super) bytes: Vec<u8>,
    /// Where the body ends in `bytes`.
    pub(super) body_end: usize,
    /// A fact as decided, folded in once the record shows it.
    pub(super) fact: Option<TypedFact>,
}

impl Expected {
    /// The body's canonical bytes.
    pub(super) fn body_bytes(&self) -> &[u8] {
        &self.bytes[b"{\"body\":".len()..self.body_end]
    }

    /// The body as a JSON value: read back only to name what differs.
    pub(super) fn body(&self) -> Value {
        serde_json::from_slice(self.body_bytes()).expect("canonical bytes are JSON")
    }

    /// Whether `line` is this event's line in a record, with link `hash`:
    /// `{"body":…,"hash":"…","kind":"…","seq":…}`, the bytes its link
    /// hashes with the hash put in, in key order.
    pub(super) fn is_line(&self, line: &[u8], hash: &Digest) -> bool {
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
