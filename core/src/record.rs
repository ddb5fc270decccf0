//! The record: JSON Lines, one header line then one line per event, hash-chained.
//!
//! ```text
//! {"format":"rollcall-record","format_version":1,"game":…,"rules":…,"scenario":…,"seed":…}
//! {"body":{…},"hash":"…","kind":"decision","seq":1}
//! {"body":{…},"hash":"…","kind":"roll","seq":2}
//! {"body":{…},"hash":"…","kind":"fact","seq":3}
//! ```
//!
//! `hash(seq) = blake3(hash(seq − 1) || canonical({"body","kind","seq"}))`,
//! and the chain's root, `hash(0)`, is the blake3 of the canonical header
//! line: a changed header breaks the first link.
//!
//! **Invariant:** every line is in canonical form (sorted keys, no whitespace,
//! integers only, lowercase hex). A line that parses but is not canonical is
//! refused, so no byte of a record can change without verify noticing.
//!
//! The wire types here (`*V1`) are their own versioned types, converted to
//! the domain types ([`Header`], [`Event`]) at this boundary. A later format
//! version adds `*V2` types and upcasts old records on read.

use std::collections::BTreeMap;

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::canon;
use crate::dice::{Die, Roll, TableDice};
use crate::digest::Digest;
use crate::keys::{PublicKey, Signature};
use crate::rules::{RuleVersion, SettingKind, Versions};
use crate::seed::Share;
use crate::untagged::Tagged;

/// The format name on every record's first line.
pub const FORMAT: &str = "rollcall-record";
/// The newest format version this build writes and reads. A record is
/// written in the lowest version that can hold it, so a game without sides'
/// keys stays byte for byte what earlier builds wrote:
/// - 1: the header, and decision, roll and fact events;
/// - 2: adds the sides' public keys to the header, the deciding side (`by`)
///   to decisions, signed checkpoints, and sealed dice (the server's
///   commitment in the header, `reveal` events).
pub const FORMAT_VERSION: u32 = 2;

/// How a game's dice are had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SeedMode {
    /// All shares known up front: reproducible and tamper-evident, but a
    /// player can compute future rolls.
    Open,
    /// Dice rolled by hand at a table and entered with each decision:
    /// legality and the chain are proven, the dice themselves are not.
    Table,
    /// Dice from a server's hash chain, committed before the players'
    /// shares existed and revealed turn by turn (see [`crate::sealed`]).
    Sealed,
}

/// A party to the game and its seed commitment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Party {
    pub name: String,
    /// `blake3(share)`; absent in table games.
    pub commitment: Option<Digest>,
    /// The share itself, once revealed (always, in open games).
    pub share: Option<Share>,
}

/// A record's header: what game, under what rules, from what scenario and seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub game: String,
    pub rules: RuleVersion,
    /// The rules hash as recorded (verify checks it against `rules.hash()`).
    pub rules_hash: Digest,
    pub scenario: Value,
    pub mode: SeedMode,
    pub parties: Vec<Party>,
    /// Each side's public key, in the scenario's order: a play-by-email game
    /// lists every side; a solo game or a fixture lists none.
    pub sides: Vec<SideKey>,
    /// The dice server's commitment, in a sealed game.
    pub server: Option<ServerCommitment>,
}

/// A side of the game and the public key it signs its turns with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SideKey {
    pub key: PublicKey,
    pub name: String,
}

impl Header {
    /// The format version this header is written in: the lowest that holds it.
    pub fn format_version(&self) -> u32 {
        if self.sides.is_empty() && self.server.is_none() {
            1
        } else {
            2
        }
    }

    /// The public key of `side`, if the header lists it.
    pub fn key_of(&self, side: &str) -> Option<&PublicKey> {
        self.sides.iter().find(|s| s.name == side).map(|s| &s.key)
    }

    /// The side whose key this is.
    pub fn side_of(&self, key: &PublicKey) -> Option<&str> {
        self.sides.iter().find(|s| &s.key == key).map(|s| s.name.as_str())
    }
}

/// The kinds of event. A decision, its rolls and its facts come together, in
/// that order; a checkpoint (a side's signature closing its turn) and a
/// reveal (a sealed turn's chain value) stand between decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Decision,
    Roll,
    Fact,
    Checkpoint,
    Reveal,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Decision => "decision",
            Kind::Roll => "roll",
            Kind::Fact => "fact",
            Kind::Checkpoint => "checkpoint",
            Kind::Reveal => "reveal",
        }
    }
}

/// The last event of a game: its seq (0 for none) and hash (the header's for none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Head {
    pub seq: u64,
    pub hash: Digest,
}

/// One event of a game's log.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub seq: u64,
    pub kind: Kind,
    pub body: Value,
    pub hash: Digest,
}

/// A decision event's body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionBody {
    /// The decision's place among the game's decisions, from 1: the dice address.
    pub number: u64,
    /// What was asked, in the ruleset's own terms.
    pub decision: Value,
    /// The dice rolled by hand, in a table game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice: Option<TableDice>,
    /// The side that made it, in a game whose header lists the sides' keys
    /// (format 2). A referee decision names the side that made it too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// What folding a decision event reads of its body ([`DecisionBody`]'s
/// shape, the decision itself walked over, not copied).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DecisionSeen {
    pub number: u64,
    #[serde(rename = "decision")]
    _decision: IgnoredAny,
    #[serde(default)]
    pub dice: Option<IgnoredAny>,
    #[serde(default)]
    pub by: Option<String>,
}

/// A fact event's body as folding it checks it ([`FactBody`]'s shape, the
/// fact walked over, not copied: it is read where it is).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FactSeen {
    #[serde(rename = "decision")]
    _decision: u64,
    #[serde(rename = "fact")]
    _fact: IgnoredAny,
}

/// A checkpoint's body: a side signs the turn it closes, over (game, the
/// head after the previous checkpoint or the header, the head just before
/// this event, side). Both heads are known from the chain, so only the side
/// and the signature are written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointBody {
    pub side: String,
    pub signature: Signature,
}

/// A fact event's body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FactBody {
    /// The number of the decision it follows from.
    pub decision: u64,
    pub fact: Value,
}

/// A roll event's body (the wire form of [`Roll`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RollBodyV1 {
    pub decision: u64,
    pub label: String,
    pub index: u32,
    pub die: String,
    pub value: u32,
}

impl From<&Roll> for RollBodyV1 {
    fn from(r: &Roll) -> Self {
        let die = match r.die {
            Die::D6 => "d6".to_string(),
            Die::D10 => "d10".to_string(),
            Die::Pick(n) => format!("pick{n}"),
        };
        RollBodyV1 { decision: r.decision, label: r.label.clone(), index: r.index, die, value: r.value }
    }
}

impl RollBodyV1 {
    pub fn to_roll(&self) -> Result<Roll, String> {
        let die = match self.die.as_str() {
            "d6" => Die::D6,
            "d10" => Die::D10,
            other => match other.strip_prefix("pick").and_then(|n| n.parse::<u32>().ok()) {
                Some(n) if n > 0 => Die::Pick(n),
                _ => return Err(format!("unknown die {other:?} (d6, d10 or pickN)")),
            },
        };
        Ok(Roll { decision: self.decision, label: self.label.clone(), index: self.index, die, value: self.value })
    }
}

/// What the header says of the server: its chain's commitment `x_0`, how
/// many turns the chain holds, and the key it signs heads with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerCommitment {
    pub commitment: Digest,
    pub key: PublicKey,
    pub length: u64,
}

/// A reveal event's body: sealed turn `turn`'s chain value, and the decisions
/// its dice settled (`first..=last`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevealBody {
    pub turn: u64,
    pub value: Digest,
    pub first: u64,
    pub last: u64,
}

/// A line of a record that is not what it should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct LineError {
    /// The field at fault (`$` for the line as a whole).
    pub field: String,
    pub message: String,
}

impl LineError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        LineError { field: field.into(), message: message.into() }
    }
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HeaderV1 {
    format: String,
    format_version: u32,
    game: String,
    rules: RulesV1,
    scenario: Value,
    seed: SeedV1,
    /// Format 2: the sides' public keys.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    sides: Vec<SideKey>,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RulesV1 {
    version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    options: BTreeMap<String, bool>,
    constants: BTreeMap<String, i64>,
    hash: Digest,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct SeedV1 {
    mode: SeedMode,
    parties: Vec<PartyV1>,
    /// Format 2, sealed games: the dice server's commitment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    server: Option<ServerCommitment>,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct PartyV1 {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    commitment: Option<Digest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    share: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EventV1 {
    seq: u64,
    kind: Kind,
    #[schemars(schema_with = "event_body")]
    body: Value,
    hash: Digest,
}

/// The body of a record's event: one form per kind (see `record-event`).
fn event_body(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let decision = generator.subschema_for::<DecisionBody>();
    let roll = generator.subschema_for::<RollBodyV1>();
    let fact = generator.subschema_for::<FactBody>();
    let checkpoint = generator.subschema_for::<CheckpointBody>();
    let reveal = generator.subschema_for::<RevealBody>();
    schemars::json_schema!({
        "description": "By the event's kind: a decision, a roll, a fact, a checkpoint or a reveal.",
        "anyOf": [decision, roll, fact, checkpoint, reveal]
    })
}

fn header_wire(h: &Header) -> HeaderV1 {
    HeaderV1 {
        format: FORMAT.into(),
        format_version: h.format_version(),
        game: h.game.clone(),
        rules: RulesV1 {
            version: h.rules.version.clone(),
            name: h.rules.name.clone(),
            options: h.rules.options.clone(),
            constants: h.rules.constants.clone(),
            hash: h.rules_hash,
        },
        scenario: h.scenario.clone(),
        seed: SeedV1 {
            mode: h.mode,
            parties: h
                .parties
                .iter()
                .map(|p| PartyV1 { name: p.name.clone(), commitment: p.commitment, share: p.share.map(|s| s.to_hex()) })
                .collect(),
            server: h.server.clone(),
        },
        sides: h.sides.clone(),
    }
}

/// The header's canonical line (without the newline).
pub fn encode_header(h: &Header) -> Result<String, canon::CanonError> {
    canon::of(&header_wire(h))
}

/// The chain's root: blake3 of the canonical header line.
pub fn header_hash(h: &Header) -> Result<Digest, canon::CanonError> {
    encode_header(h).map(|line| Digest::of(line.as_bytes()))
}

/// `blake3(previous || canonical({"body","kind","seq"}))`.
pub fn link(previous: &Digest, seq: u64, kind: Kind, body: &Value) -> Result<Digest, canon::CanonError> {
    let mut canonical = Vec::with_capacity(256);
    linked_bytes(seq, kind, body, &mut canonical)?;
    Ok(link_bytes(previous, &canonical))
}

/// `blake3(previous || canonical)`, for the canonical bytes of a link.
pub fn link_bytes(previous: &Digest, canonical: &[u8]) -> Digest {
    let mut hasher = blake3::Hasher::new();
    hasher.update(previous.as_bytes());
    hasher.update(canonical);
    Digest(*hasher.finalize().as_bytes())
}

/// `blake3(previous || hashed[0] || hashed[1])`: [`link_bytes`] over the
/// canonical bytes given in two pieces, as a record line holds them either
/// side of its `"hash"` member ([`LineParts::hashed`]).
pub(crate) fn link_pieces(previous: &Digest, hashed: [&[u8]; 2]) -> Digest {
    let mut hasher = blake3::Hasher::new();
    hasher.update(previous.as_bytes());
    hasher.update(hashed[0]);
    hasher.update(hashed[1]);
    Digest(*hasher.finalize().as_bytes())
}

/// A canonical event line, split where its members are, its body proved
/// canonical but not read.
pub(crate) struct LineParts<'l> {
    pub seq: u64,
    pub kind: Kind,
    pub body: &'l [u8],
    pub hash: Digest,
    /// The bytes its link hashes, `canonical({"body","kind","seq"})`: the
    /// line without its `,"hash":"…"` member, which sorts between the body
    /// and the kind.
    pub hashed: [&'l [u8]; 2],
}

/// Splits a line of the shape of an event's canonical line:
/// `{"body":…,"hash":"<64 lowercase hex>","kind":"…","seq":N}`, its body
/// not yet proved canonical (nor UTF-8): the line is canonical byte for
/// byte when its body is ([`canon::is_canonical_bytes`], which the caller
/// checks, or a fact's reader: [`fact_scanned`]). `None` for any other line
/// (it may still be a good one, or a bad one: [`parse_event`] reads it and
/// names its fault). The inner loop's read: a line so split need not be
/// parsed for its link. A canonical line is UTF-8 text (its body proved so;
/// the rest is ASCII).
pub(crate) fn split_shape(line: &[u8]) -> Option<LineParts<'_>> {
    let at = hash_member_at(line)?;
    let hash = Digest(crate::digest::parse_hex32(std::str::from_utf8(hash_digits(line, at)).ok()?).ok()?);
    split_at(line, at, hash)
}

/// Where the line's own hash member, `,"hash":"`, starts, if it can be its.
fn hash_member_at(line: &[u8]) -> Option<usize> {
    // After the hash come only the kind and the seq, `","kind":"…","seq":N}`
    // with two commas, so the third comma from the end starts the line's own
    // hash member (a body's key `hash` would come before it). Its 64 digits
    // and closing quote hold no comma: it starts 74 bytes before the second
    // comma from the end, or the line is not an event's (the digits are
    // checked by the caller, the members after them by `split_at`).
    let mut at = line.len();
    for _ in 0..2 {
        at = line[..at].iter().rposition(|&c| c == b',')?;
    }
    at = at.checked_sub(HASH_MEMBER.len() + 65)?;
    line[at..].starts_with(HASH_MEMBER).then_some(at)
}

/// The 64 bytes where the digits of the hash member found at `at` stand.
fn hash_digits(line: &[u8], at: usize) -> &[u8] {
    &line[at + HASH_MEMBER.len()..at + HASH_MEMBER.len() + 64]
}

/// The bytes the link of a line whose hash member starts at `at` hashes:
/// the line without that member and its closing quote.
fn hashed_around(line: &[u8], at: usize) -> [&[u8]; 2] {
    [&line[..at], &line[at + HASH_MEMBER.len() + 65..]]
}

/// The kind of a line of an event's shape, and where its body stands in
/// it, found without reading the body (as far as [`line_kind`] reads it);
/// `None` for a line of any other shape.
pub(crate) fn kind_and_body(line: &[u8]) -> Option<(Kind, std::ops::Range<usize>)> {
    let at = hash_member_at(line)?;
    let (_, kind) = kind_and_seq(line, at)?;
    line.starts_with(BODY_MEMBER).then_some((kind, BODY_MEMBER.len()..at))
}

/// `{"body":`, how an event line starts.
pub(crate) const BODY_MEMBER: &[u8] = b"{\"body\":";

/// `,"hash":"`, the start of a line's hash member.
const HASH_MEMBER: &[u8] = b",\"hash\":\"";

/// [`split_shape`] with the hash member found at `at` and its digits read
/// as `hash`, the body not scanned: the members either side of the hash.
fn split_at(line: &[u8], at: usize, hash: Digest) -> Option<LineParts<'_>> {
    let body = body_before(line, at)?;
    let (seq, kind) = kind_and_seq(line, at)?;
    Some(LineParts { seq, kind, body, hash, hashed: hashed_around(line, at) })
}

/// The body of a line whose hash member starts at `at`: what stands
/// between `{"body":` and it.
fn body_before(line: &[u8], at: usize) -> Option<&[u8]> {
    line.get(BODY_MEMBER.len()..at).filter(|_| line.starts_with(BODY_MEMBER))
}

/// The kind and seq of a line whose hash member starts at `at`, read from
/// the members after it (`","kind":"…","seq":N}`).
fn kind_and_seq(line: &[u8], at: usize) -> Option<(u64, Kind)> {
    let tail = line.get(at + HASH_MEMBER.len() + 64..)?;
    let tail = tail.strip_prefix(b"\",\"kind\":\"")?;
    let quote = tail.iter().position(|&c| c == b'"')?;
    let kind = match &tail[..quote] {
        b"decision" => Kind::Decision,
        b"roll" => Kind::Roll,
        b"fact" => Kind::Fact,
        b"checkpoint" => Kind::Checkpoint,
        b"reveal" => Kind::Reveal,
        _ => return None,
    };
    let digits = tail[quote..].strip_prefix(b"\",\"seq\":")?.strip_suffix(b"}")?;
    Some((canonical_u64(digits)?, kind))
}

/// What a reader ahead of the fold proved of one event line, so that the
/// fold need not hash it or find its members again: the line has the shape
/// of an event's ([`split_shape`]; its body is left for the fold to scan),
/// and its link from `from`, hashed over its own bytes, is the hash it
/// states. A record file's reader proves each line on a thread of its own
/// while the fold takes the lines before it; the fold trusts the proof only
/// when `from` is its head.
///
/// A proof holds for the bytes it was made from, and only for them: it is
/// handed back with the very bytes [`LinkProof::of`] was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkProof {
    from: Digest,
    hash: Digest,
    /// Where the line's hash member starts.
    at: usize,
    /// The line's seq, kind and length, as the proof split it: the fold
    /// takes them from here rather than split the line again.
    seq: u64,
    kind: Kind,
    len: usize,
    /// The body was proved canonical with the link ([`LinkChain::scanning_decisions`]).
    canonical: bool,
    /// A decision's body, proved canonical, read as the fold reads it.
    decision: Option<DecisionSeenAt>,
}

/// What folding a decision reads of its body ([`DecisionSeen`]), found by a
/// reader ahead as it proves the body canonical: its number, and where in
/// the line the side that made it (`by`) is written, if it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DecisionSeenAt {
    pub number: u64,
    by: Option<(usize, usize)>,
    /// Whether it brings dice (a `dice` member, not `null`).
    pub dice: bool,
}

/// What folding a decision reads of its body — its number, its side and
/// whether it brings dice — as a reader's pass read it (`seen`, from
/// `line`), else read from `body` with serde (kept in `slot`); `None` when
/// serde cannot read it (the fold then leaves the line to the parse).
pub(crate) fn decision_seen<'a>(
    seen: Option<DecisionSeenAt>,
    line: &'a [u8],
    body: &str,
    slot: &'a mut Option<DecisionSeen>,
) -> Option<(u64, Option<&'a str>, bool)> {
    if let Some(seen) = seen {
        return Some((seen.number, seen.by(line), seen.dice));
    }
    let read = slot.insert(serde_json::from_str::<DecisionSeen>(body).ok()?);
    Some((read.number, read.by.as_deref(), read.dice.is_some()))
}

impl DecisionSeenAt {
    /// `by`, in `line`, the line this was read from.
    pub(crate) fn by<'l>(&self, line: &'l [u8]) -> Option<&'l str> {
        self.by.and_then(|(start, end)| std::str::from_utf8(&line[start..end]).ok())
    }

    /// Proves `body`, a decision line's body within `line`, canonical, as
    /// [`canon::is_canonical_bytes`] does, and reads it as [`DecisionSeen`]
    /// would: `(false, None)` if it is not canonical; `(true, None)` if it
    /// is but this read does not take it (a member [`DecisionSeen`] does not
    /// know or would not take, or a `by` with an escape in it: serde then
    /// reads it, and names the fault). Its members are those of a canonical
    /// object, in order and each once.
    fn read(line: &[u8], body: &[u8]) -> (bool, Option<DecisionSeenAt>) {
        let (mut number, mut decision, mut by, mut dice, mut taken) = (None, false, None, false, true);
        let canonical = canon::scan_members(body, |key, value| match key {
            b"number" => number = canonical_u64(value),
            b"decision" => decision = true,
            b"dice" => dice = value != b"null",
            b"by" if value == b"null" => {}
            b"by" if value.len() >= 2 && value[0] == b'"' && !value.contains(&b'\\') => {
                let start = value.as_ptr() as usize - line.as_ptr() as usize + 1;
                by = Some((start, start + value.len() - 2));
            }
            _ => taken = false,
        });
        let seen = match number {
            Some(number) if canonical && decision && taken => Some(DecisionSeenAt { number, by, dice }),
            _ => None,
        };
        (canonical, seen)
    }
}

impl LinkProof {
    /// The proof of `line`'s link from `previous`, when `line` has the
    /// shape of an event line whose stated hash is that link; else `None`
    /// (the fold reads the line itself, and names its fault).
    pub fn of(previous: &Digest, line: &[u8]) -> Option<LinkProof> {
        // The link is hashed first and its digits compared with the stated
        // ones: reading the 64 digits into bytes instead was a tenth of a
        // reader's work. The members after them are checked after.
        let at = hash_member_at(line)?;
        let hash = link_pieces(previous, hashed_around(line, at));
        if !hash.is_hex(hash_digits(line, at)) {
            return None;
        }
        // The line is split as `split_at` splits it, with no `LineParts` built.
        body_before(line, at)?;
        let (seq, kind) = kind_and_seq(line, at)?;
        Some(LinkProof { from: *previous, hash, at, seq, kind, len: line.len(), canonical: false, decision: None })
    }

    /// The text of the decision in `line`, a decision line this proves (its
    /// body's `decision` member, as the fold finds it once it has proved the
    /// body canonical); `None` for any other line. The body is not proved
    /// canonical here: the fold does that, and reads the line itself if not.
    pub fn decision_text<'l>(&self, line: &'l [u8]) -> Option<Tagged<'l>> {
        canon::tagged_member(std::str::from_utf8(self.decision_body(line)?).ok()?, b"decision")
    }

    /// The body of `line`, a decision line this proves, not yet proved
    /// canonical; `None` for any other line.
    fn decision_body<'l>(&self, line: &'l [u8]) -> Option<&'l [u8]> {
        (self.kind == Kind::Decision).then(|| self.body(line)).flatten()
    }

    /// The body of `line`, the line this proves (of the length it had).
    fn body<'l>(&self, line: &'l [u8]) -> Option<&'l [u8]> {
        (line.len() == self.len).then(|| &line[BODY_MEMBER.len()..self.at])
    }

    /// Proves the body of `line`, a decision line this proves, canonical
    /// and reads it as [`DecisionSeen`] reads it, in one pass
    /// ([`DecisionSeenAt::read`]), as a reader scanning decisions does
    /// ([`LinkChain::scanning_decisions`]); nothing for any other line, or
    /// one scanned already.
    pub(crate) fn scan_decision(&mut self, line: &[u8]) {
        if !self.canonical {
            if let Some(body) = self.decision_body(line) {
                (self.canonical, self.decision) = DecisionSeenAt::read(line, body);
            }
        }
    }

    /// What the fold reads of the decision body of the line this proves,
    /// read with its proof, when `head` is the link it was proven from.
    pub(crate) fn decision_seen(&self, head: &Digest) -> Option<DecisionSeenAt> {
        self.decision.filter(|_| self.from == *head)
    }

    /// `line` split as [`split_shape`] splits it, but not hashed, when this
    /// is its proof and `head` the link it was proven from; and whether its
    /// body was proved canonical with the link (else the fold scans it).
    pub(crate) fn parts<'l>(&self, head: &Digest, line: &'l [u8]) -> Option<(LineParts<'l>, bool)> {
        if self.from != *head {
            return None;
        }
        let body = self.body(line)?;
        let parts =
            LineParts { seq: self.seq, kind: self.kind, body, hash: self.hash, hashed: hashed_around(line, self.at) };
        Some((parts, self.canonical))
    }
}

/// A reader's walk down a record's chain, proving each line's link from
/// the one before it ([`LinkProof`]) while the chain holds: from the hash
/// of the header line, then from each proven line's hash. Once a line is
/// not proven (a line of another shape, or a broken link), no later line
/// is: the fold reads the rest itself, and names the fault.
#[derive(Debug, Clone)]
pub struct LinkChain {
    head: Option<Digest>,
    scans_decisions: bool,
}

impl LinkChain {
    /// A chain starting from the header line as read.
    pub fn new(header_line: &[u8]) -> LinkChain {
        LinkChain { head: Some(Digest::of(header_line)), scans_decisions: false }
    }

    /// This chain, proving each decision line's body canonical too, and
    /// reading its number and its `by` as the fold would, so that the fold
    /// need not scan or read it: for a fold that decides nothing itself
    /// (`state FILE`), whose thread is then the busier of the two.
    pub fn scanning_decisions(self) -> LinkChain {
        LinkChain { scans_decisions: true, ..self }
    }

    /// Whether this chain proves decision bodies too ([`LinkChain::scanning_decisions`]).
    pub fn scans_decisions(&self) -> bool {
        self.scans_decisions
    }

    /// Has this chain prove the decision bodies of the lines after, or
    /// leave them to the fold: a reader ahead takes that share of the work
    /// on only while the fold is behind. Either way the fold reads alike.
    pub fn scan_decisions(&mut self, on: bool) {
        self.scans_decisions = on;
    }

    /// The proof of the next line, if the chain still holds and it is proven.
    pub fn prove(&mut self, line: &[u8]) -> Option<LinkProof> {
        let mut proof = self.head.and_then(|head| LinkProof::of(&head, line));
        if let Some(p) = proof.as_mut().filter(|_| self.scans_decisions) {
            p.scan_decision(line);
        }
        self.head = proof.map(|p| p.hash);
        proof
    }
}

/// The link of a line whose proof chains from `head`, else `None`.
pub(crate) fn proven_link(proof: Option<&LinkProof>, head: &Digest) -> Option<Digest> {
    proof.filter(|p| p.from == *head).map(|p| p.hash)
}

/// A `u64` written as its shortest digits.
fn canonical_u64(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || (digits[0] == b'0' && digits.len() > 1) {
        return None;
    }
    digits.iter().try_fold(0u64, |n, &d| match d {
        b'0'..=b'9' => n.checked_mul(10)?.checked_add(u64::from(d - b'0')),
        _ => None,
    })
}

/// Whether a decision event's canonical body, read as [`DecisionSeen`],
/// writes `by` or `dice` as `null` (a member the game that decides it
/// leaves out instead). Its members are at most `by`, `decision`, `dice`
/// and `number`, in that order, and `number` is an integer: so a `null`
/// `by` starts the body, and a `null` `dice` is the member just before
/// `number`, at its end (a value before `,"number"` that ends in `null` is
/// that literal, after its own key).
pub(crate) fn decision_has_null(body: &[u8]) -> bool {
    let Some(members) = body.strip_suffix(b"}") else { return false };
    let digits = members.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    body.starts_with(br#"{"by":null,"#) || members[..members.len() - digits].ends_with(br#","dice":null,"number":"#)
}

/// A fact event's body, `{"decision":N,"fact":{…}}`, proved canonical
/// ([`canon::is_canonical_bytes`]) as it is split: the fact's own text, and
/// where in it its `type` member's value stands, found on the way (the
/// fact is then read without serde's buffering: [`crate::untagged`]).
/// `None` for any other body, or one not canonical.
pub(crate) fn fact_scanned(body: &str) -> Option<Tagged<'_>> {
    let rest = body.strip_prefix("{\"decision\":")?.strip_suffix('}')?;
    let comma = rest.find(',')?;
    canonical_u64(&rest.as_bytes()[..comma])?;
    let fact = rest[comma..].strip_prefix(",\"fact\":")?;
    let mut tag = None;
    // The fact is the body's member: nested one deep, as a scan of the
    // whole body would count it.
    let canonical = canon::scan_members_at(fact.as_bytes(), 1, |key, value| {
        if key == b"type" {
            let start = value.as_ptr() as usize - fact.as_ptr() as usize;
            tag = Some(start..start + value.len());
        }
    });
    canonical.then(|| Tagged::new(fact, tag))
}

/// Appends `canonical({"body","kind","seq"})` to `out`, written member by
/// member in key order (the body is not copied into a new object); returns
/// where in `out` the body ends.
pub fn linked_bytes(seq: u64, kind: Kind, body: &Value, out: &mut Vec<u8>) -> Result<usize, canon::CanonError> {
    linked_bytes_with(seq, kind, out, |out| canon::append(body, out))
}

/// [`linked_bytes`], the body's canonical bytes written by `body`.
pub fn linked_bytes_with(
    seq: u64,
    kind: Kind,
    out: &mut Vec<u8>,
    body: impl FnOnce(&mut Vec<u8>) -> Result<(), canon::CanonError>,
) -> Result<usize, canon::CanonError> {
    out.extend_from_slice(b"{\"body\":");
    body(out).map_err(|e| canon::CanonError { path: e.path.replacen('$', "$.body", 1), ..e })?;
    let body_end = out.len();
    out.extend_from_slice(b",\"kind\":\"");
    out.extend_from_slice(kind.name().as_bytes());
    out.extend_from_slice(b"\",\"seq\":");
    out.extend_from_slice(seq.to_string().as_bytes());
    out.push(b'}');
    Ok(body_end)
}

/// An event's canonical line from the canonical bytes its link hashed
/// (`canonical({"body","kind","seq"})`, its body ending at `body_end`, as
/// [`linked_bytes`] writes them) and that link: the hash member written
/// where it sorts, between the body and the kind. The same line as
/// [`encode_event`] of the event, with no JSON value read or written.
pub fn event_line(linked: &[u8], body_end: usize, hash: &Digest) -> String {
    let mut line = Vec::with_capacity(linked.len() + HASH_MEMBER.len() + 65);
    line.extend_from_slice(&linked[..body_end]);
    line.extend_from_slice(HASH_MEMBER);
    line.extend_from_slice(&hash.hex());
    line.push(b'"');
    line.extend_from_slice(&linked[body_end..]);
    String::from_utf8(line).expect("canonical bytes are UTF-8 text")
}

/// The kind of event a line of an event's shape names (its `kind`
/// member, after its hash), found without reading the line; `None` for a
/// line of any other shape.
pub fn line_kind(line: &[u8]) -> Option<Kind> {
    kind_and_seq(line, hash_member_at(line)?).map(|(_, kind)| kind)
}

/// An event's canonical line (without the newline).
pub fn encode_event(e: &Event) -> Result<String, canon::CanonError> {
    canon::of(&EventV1 { seq: e.seq, kind: e.kind, body: e.body.clone(), hash: e.hash })
}

fn parse_strict<T: serde::de::DeserializeOwned>(line: &str) -> Result<T, LineError> {
    // The inner loop's way: a scan proves the line canonical without
    // building it, and the typed line is read straight from the text. Any
    // line it does not take goes the slow way, which names the fault.
    if canon::is_canonical(line) {
        if let Ok(typed) = serde_json::from_str(line) {
            return Ok(typed);
        }
    }
    let value: Value = serde_json::from_str(line).map_err(|e| LineError::new("$", format!("not JSON: {e}")))?;
    let canonical = canon::to_bytes(&value).map_err(|e| LineError::new(e.path, e.message))?;
    // Read from the value itself, which is then dropped: its strings and
    // its body move into the typed line rather than being copied.
    let typed: T = serde_path_to_error::deserialize(value)
        .map_err(|e| LineError::new(format!("$.{}", e.path()), e.inner().to_string()))?;
    if canonical != line.as_bytes() {
        return Err(LineError::new(
            "$",
            "the line is not in canonical form (sorted keys, no spaces, lowercase hex): it was edited by hand or by another tool",
        ));
    }
    Ok(typed)
}

/// Parses a header line: strict, canonical, a known format, version and ruleset,
/// and exactly the settings the named rule version declares (looked up in
/// `versions`, the rulesets the caller knows).
pub fn parse_header(line: &str, versions: &dyn Versions) -> Result<Header, LineError> {
    let wire = parse_strict::<HeaderV1>(line)?;
    check_format(&wire)?;
    check_rules(&wire.rules, versions)?;
    let parties = parse_parties(wire.seed.parties, wire.seed.mode)?;
    check_sides(&wire.sides)?;
    check_server(wire.seed.mode, &wire.seed.server)?;
    let format_version = wire.format_version;
    let header = Header {
        game: wire.game,
        rules: RuleVersion {
            version: wire.rules.version,
            name: wire.rules.name,
            options: wire.rules.options,
            constants: wire.rules.constants,
        },
        rules_hash: wire.rules.hash,
        scenario: wire.scenario,
        mode: wire.seed.mode,
        parties,
        sides: wire.sides,
        server: wire.seed.server,
    };
    check_canonical(&header, format_version, line)?;
    Ok(header)
}

/// The format's name, and a format version this build reads.
fn check_format(wire: &HeaderV1) -> Result<(), LineError> {
    if wire.format != FORMAT {
        return Err(LineError::new("$.format", format!("expected {FORMAT:?}, found {:?}", wire.format)));
    }
    if !(1..=FORMAT_VERSION).contains(&wire.format_version) {
        return Err(LineError::new(
            "$.format_version",
            format!(
                "this build reads format versions 1 to {FORMAT_VERSION}, the record is version {}",
                wire.format_version
            ),
        ));
    }
    Ok(())
}

/// A full version id, with every setting of the version and no other.
fn check_rules(rules: &RulesV1, versions: &dyn Versions) -> Result<(), LineError> {
    let spec = versions.version(&rules.version).map_err(|e| LineError::new("$.rules.version", e.to_string()))?;
    if spec.id() != rules.version {
        return Err(LineError::new("$.rules.version", format!("expected a full version id such as {}", spec.id())));
    }
    for s in &spec.settings {
        let present = match s.kind {
            SettingKind::Option => rules.options.contains_key(s.name),
            SettingKind::Constant => rules.constants.contains_key(s.name),
        };
        if !present {
            let table = if s.kind == SettingKind::Option { "options" } else { "constants" };
            return Err(LineError::new(format!("$.rules.{table}.{}", s.name), "missing: a record lists every setting"));
        }
    }
    for (table, names) in
        [("options", rules.options.keys().collect::<Vec<_>>()), ("constants", rules.constants.keys().collect())]
    {
        for name in names {
            let kind = if table == "options" { SettingKind::Option } else { SettingKind::Constant };
            if spec.setting(name).map(|s| s.kind) != Some(kind) {
                return Err(LineError::new(
                    format!("$.rules.{table}.{name}"),
                    format!("{} has no such setting", spec.id()),
                ));
            }
        }
    }
    Ok(())
}

/// The seed's parties, each with its share read; an open or sealed record
/// names each one's commitment and share.
fn parse_parties(wire: Vec<PartyV1>, mode: SeedMode) -> Result<Vec<Party>, LineError> {
    let mut parties = Vec::new();
    for (i, p) in wire.into_iter().enumerate() {
        let share = match &p.share {
            Some(hex) => Some(
                Share::from_hex(hex)
                    .map_err(|e| LineError::new(format!("$.seed.parties[{i}].share"), e.to_string()))?,
            ),
            None => None,
        };
        if mode != SeedMode::Table && (p.commitment.is_none() || share.is_none()) {
            return Err(LineError::new(
                format!("$.seed.parties[{i}]"),
                "an open or sealed record names each party's commitment and share",
            ));
        }
        parties.push(Party { name: p.name, commitment: p.commitment, share });
    }
    Ok(parties)
}

/// A sealed record, and only a sealed one, names the dice server.
fn check_server(mode: SeedMode, server: &Option<ServerCommitment>) -> Result<(), LineError> {
    match (mode, server) {
        (SeedMode::Sealed, None) => {
            Err(LineError::new("$.seed.server", "a sealed record names the dice server's commitment"))
        }
        (SeedMode::Open | SeedMode::Table, Some(_)) => {
            Err(LineError::new("$.seed.server", "only a sealed record names a dice server"))
        }
        _ => Ok(()),
    }
}

/// The header's format version is the one its fields call for, and the line
/// is the header's one spelling.
fn check_canonical(header: &Header, format_version: u32, line: &str) -> Result<(), LineError> {
    if header.format_version() != format_version {
        return Err(LineError::new(
            "$.format_version",
            format!(
                "a header {} is format version {}, not {format_version}",
                if header.sides.is_empty() { "without sides' keys" } else { "with sides' keys" },
                header.format_version()
            ),
        ));
    }
    // One meaning, one spelling: a field the typed header does not keep
    // (`"name":null`, `"commitment":null`, an empty `"sides":[]`) would change
    // the bytes, and so the chain's root, without changing the game.
    if encode_header(header).map_err(|e| LineError::new(e.path, e.message))? != line {
        return Err(LineError::new(
            "$",
            "the header holds a field its meaning does not (a null or an empty list where the field should be left out): it was edited",
        ));
    }
    Ok(())
}

/// Sides are named once each, with a key each.
fn check_sides(sides: &[SideKey]) -> Result<(), LineError> {
    for (i, side) in sides.iter().enumerate() {
        if sides[..i].iter().any(|s| s.name == side.name) {
            return Err(LineError::new(format!("$.sides[{i}].name"), format!("side {:?} is listed twice", side.name)));
        }
        if sides[..i].iter().any(|s| s.key == side.key) {
            return Err(LineError::new(format!("$.sides[{i}].key"), "two sides have the same key"));
        }
    }
    Ok(())
}

/// Parses an event line: strict and canonical, with a body of the right shape.
pub fn parse_event(line: &str) -> Result<Event, LineError> {
    let wire = parse_strict::<EventV1>(line)?;
    let mut roll = None;
    let fast = match wire.kind {
        // The decision and the fact are walked over, not copied.
        Kind::Decision => DecisionSeen::deserialize(&wire.body).is_ok(),
        Kind::Fact => FactSeen::deserialize(&wire.body).is_ok(),
        Kind::Checkpoint => CheckpointBody::deserialize(&wire.body).is_ok(),
        Kind::Reveal => RevealBody::deserialize(&wire.body).is_ok(),
        Kind::Roll => false,
    };
    if fast {
        return Ok(Event { seq: wire.seq, kind: wire.kind, body: wire.body, hash: wire.hash });
    }
    let shape = match wire.kind {
        Kind::Decision => serde_path_to_error::deserialize::<_, DecisionBody>(&wire.body).map(|_| ()),
        Kind::Roll => serde_path_to_error::deserialize::<_, RollBodyV1>(&wire.body).map(|r| roll = Some(r)),
        Kind::Fact => serde_path_to_error::deserialize::<_, FactBody>(&wire.body).map(|_| ()),
        Kind::Checkpoint => serde_path_to_error::deserialize::<_, CheckpointBody>(&wire.body).map(|_| ()),
        Kind::Reveal => serde_path_to_error::deserialize::<_, RevealBody>(&wire.body).map(|_| ()),
    };
    shape.map_err(|e| LineError::new(format!("$.body.{}", e.path()), e.inner().to_string()))?;
    if let Some(body) = roll {
        body.to_roll().map_err(|m| LineError::new("$.body.die", m))?;
    }
    Ok(Event { seq: wire.seq, kind: wire.kind, body: wire.body, hash: wire.hash })
}

#[cfg(test)]
mod tests {
    /// [`decision_has_null`] finds a `null` `by` or `dice` where a scan of
    /// the body's members does, in bodies whose decision holds the same
    /// keys and `null`s.
    #[test]
    fn a_decision_body_with_a_null_member_is_found_as_a_scan_finds_it() {
        let decisions = [
            r#"{"type":"pass"}"#,
            r#"null"#,
            r#"{"by":null,"dice":null,"number":3}"#,
            r#"[null,{"dice":null}]"#,
            r#""dice""#,
            r#"{"x":"\",\"dice\":null"}"#,
        ];
        let members = [None, Some("null"), Some(r#""north""#)];
        let mut tried = 0;
        for decision in decisions {
            for by in members {
                for dice in [None, Some("null"), Some(r#"[{"die":"d6","face":4}]"#)] {
                    let mut body = String::from("{");
                    if let Some(by) = by {
                        body += &format!(r#""by":{by},"#);
                    }
                    body += &format!(r#""decision":{decision},"#);
                    if let Some(dice) = dice {
                        body += &format!(r#""dice":{dice},"#);
                    }
                    body += r#""number":12}"#;
                    assert!(crate::canon::is_canonical(&body), "{body}");
                    let null = |key: &[u8]| crate::canon::member(body.as_bytes(), key) == Some(b"null".as_slice());
                    assert_eq!(decision_has_null(body.as_bytes()), null(b"by") || null(b"dice"), "{body}");
                    tried += 1;
                }
            }
        }
        assert_eq!(tried, 54);
    }

    use super::*;
    use serde_json::json;

    /// A decision body read with its proof ([`DecisionSeenAt::read`]) is
    /// canonical exactly when the scan says so and it is an object, and
    /// where it is taken, it is what serde reads as [`DecisionSeen`]: the
    /// same number and `by`; where serde refuses it, it is not taken. Bodies built to differ: an
    /// unknown member before, between and after the known ones, a `by` that
    /// is `null`, escaped, a number, a number that is negative, too large,
    /// a string, a member missing, the body not an object, not canonical.
    #[test]
    fn a_decision_body_read_ahead_is_what_serde_reads() {
        let mut bodies = vec![
            r#"5"#.to_string(),
            r#"{"decision":{"type":"pass"}}"#.to_string(),
            r#"{"number":3}"#.to_string(),
            r#"{"decision":1,"number":3,"zz":0}"#.to_string(),
            r#"{"a":0,"decision":1,"number":3}"#.to_string(),
            r#"{"decision":1,"dice":{"x":[1]},"extra":true,"number":3}"#.to_string(),
            r#"{"decision":1,"number":-3}"#.to_string(),
            r#"{"decision":1,"number":18446744073709551616}"#.to_string(),
            r#"{"decision":1,"number":"3"}"#.to_string(),
            r#"{"decision":1, "number":3}"#.to_string(),
            r#"{"number":3,"decision":1}"#.to_string(),
        ];
        for by in [r#"null"#, r#""north""#, r#""n\"o""#, r#""é""#, r#"7"#, r#"{"x":1}"#, r#""""#] {
            for dice in ["", r#""dice":null,"#, r#""dice":{"d":[4]},"#] {
                for number in ["0", "12", "18446744073709551615"] {
                    bodies.push(format!(r#"{{"by":{by},"decision":{{"by":"x"}},{dice}"number":{number}}}"#));
                }
            }
        }
        let mut taken = 0;
        for body in &bodies {
            let line = format!("{{\"body\":{body},\"hash\":\"x\"}}");
            let at = line.find(body.as_str()).unwrap();
            let (canonical, seen) = DecisionSeenAt::read(line.as_bytes(), &line.as_bytes()[at..at + body.len()]);
            // A body that is not an object is no decision's: the fold's own
            // scan, then serde, refuse it.
            assert_eq!(canonical, canon::is_canonical(body) && body.starts_with('{'), "{body}");
            let serde = serde_json::from_str::<DecisionSeen>(body);
            if let Some(seen) = seen {
                let serde = serde.unwrap_or_else(|e| panic!("taken, but serde refuses it ({e}): {body}"));
                assert_eq!((seen.number, seen.by(line.as_bytes())), (serde.number, serde.by.as_deref()), "{body}");
                taken += 1;
            }
        }
        assert_eq!(taken, 36, "by null, \"north\", \"é\" and \"\", each with three dice and three numbers");
    }

    #[test]
    fn a_canonical_line_splits_into_its_members_and_the_bytes_its_link_hashes() {
        let previous = Digest::of(b"previous");
        // A body with a member named `hash` of its own.
        let body = json!({"decision": 3, "fact": {"hash": "x", "z": [1, -2]}});
        let hash = link(&previous, 41, Kind::Fact, &body).unwrap();
        let line = encode_event(&Event { seq: 41, kind: Kind::Fact, body: body.clone(), hash }).unwrap();
        fn split_line(line: &[u8]) -> Option<LineParts<'_>> {
            split_shape(line).filter(|parts| canon::is_canonical_bytes(parts.body))
        }
        let parts = split_line(line.as_bytes()).expect("a canonical line splits");
        assert_eq!((parts.seq, parts.kind, parts.hash), (41, Kind::Fact, hash));
        assert_eq!(parts.body, canon::to_bytes(&body).unwrap());
        assert_eq!(link_pieces(&previous, parts.hashed), hash);
        let fact = fact_scanned(std::str::from_utf8(parts.body).unwrap()).expect("a fact's body");
        assert_eq!(fact.text(), r#"{"hash":"x","z":[1,-2]}"#);
        for other in [
            line.replacen(":3,", ": 3,", 1),
            line.replacen("\"kind\":\"fact\"", "\"kind\":\"facts\"", 1),
            line.replacen("\"seq\":41", "\"seq\":041", 1),
            line.replacen("\"seq\":41", "\"seq\":99999999999999999999", 1),
            line.replacen(&hash.to_string()[..8], "ABCDEF01", 1),
            line.replacen("{\"body\"", "{\"bodz\"", 1),
            format!("{line}\n"),
        ] {
            assert!(split_line(other.as_bytes()).is_none(), "{other}");
        }
        for (digits, read) in [("0", Some(0)), ("18446744073709551615", Some(u64::MAX)), ("18446744073709551616", None)]
        {
            assert_eq!(canonical_u64(digits.as_bytes()), read, "{digits}");
        }
        for digits in ["", "00", "01", "-1", "1a", "+1", " 1"] {
            assert_eq!(canonical_u64(digits.as_bytes()), None, "{digits:?}");
        }
    }

    #[test]
    fn a_facts_body_is_read_exactly_when_it_is_canonical_and_its_own_type_member_is_found() {
        let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let bodies = [
            r#"{"decision":3,"fact":{"a":[{"type":"inner"}],"type":"x","z":{"type":"y"}}}"#.to_string(),
            r#"{"decision":3,"fact":{"type":"x"}}"#.into(),
            r#"{"decision":0,"fact":{}}"#.into(),
            r#"{"decision":3,"fact":{"type":1}}"#.into(),
            r#"{"decision":3,"fact":{"a":"ü","type":"x"}}"#.into(),
            // Not canonical, or not a fact's body.
            r#"{"decision":3,"fact":{"type":"x","a":1}}"#.into(),
            r#"{"decision":3,"fact":{"type":"x", "z":1}}"#.into(),
            r#"{"decision":3,"fact":{"type":"x","type":"y"}}"#.into(),
            r#"{"decision":3,"fact":{"a":1.5,"type":"x"}}"#.into(),
            r#"{"decision":3,"fact":{"a":"\u0041","type":"x"}}"#.into(),
            r#"{"decision":3,"fact":2}"#.into(),
            r#"{"decision":3,"extra":1,"fact":{}}"#.into(),
            r#"{"decision":03,"fact":{}}"#.into(),
            r#"{"decision":-3,"fact":{}}"#.into(),
            r#"{"decision":3,"fact":{}} "#.into(),
            r#"{"decision":3,"fact":{}"#.into(),
            // As deep as a canonical body may nest, and one deeper.
            format!(r#"{{"decision":3,"fact":{{"a":{},"type":"x"}}}}"#, nested(97)),
            format!(r#"{{"decision":3,"fact":{{"a":{},"type":"x"}}}}"#, nested(98)),
        ];
        for body in &bodies {
            let read = fact_scanned(body);
            // What the fold did before: the whole body proved canonical, then split.
            let split = body.strip_prefix(r#"{"decision":"#).and_then(|rest| {
                let comma = rest.find(',')?;
                canonical_u64(&rest.as_bytes()[..comma])?;
                rest[comma..].strip_prefix(r#","fact":"#)?.strip_suffix('}').filter(|fact| fact.starts_with('{'))
            });
            let before = split.filter(|_| canon::is_canonical_bytes(body.as_bytes()));
            assert_eq!(read.map(|f| f.text()), before, "{body}");
        }
        let read = fact_scanned(&bodies[0]).unwrap();
        assert_eq!(read, Tagged::new(read.text(), Some(31..34)));
        assert_eq!(read.untagged().as_deref(), Some(r#"{"x":{"a":[{"type":"inner"}],"z":{"type":"y"}}}"#));
        assert_eq!(fact_scanned(&bodies[2]).unwrap().untagged(), None);
        assert_eq!(fact_scanned(&bodies[3]).unwrap().untagged(), None);
    }

    #[test]
    fn a_link_hashes_the_canonical_object_of_seq_kind_and_body() {
        let previous = Digest::of(b"previous");
        let body = json!({"z": 1, "a": ["x\"y", {"q": -3}], "decision": 7});
        for kind in [Kind::Decision, Kind::Roll, Kind::Fact, Kind::Checkpoint, Kind::Reveal] {
            let canonical = canon::to_bytes(&json!({"seq": 12345, "kind": kind, "body": body})).unwrap();
            assert_eq!(link(&previous, 12345, kind, &body).unwrap(), link_bytes(&previous, &canonical));
        }
    }

    #[test]
    fn a_float_in_a_linked_body_is_named_by_its_path() {
        let err = link(&Digest::of(b""), 1, Kind::Fact, &json!({"x": [0, 0.5]})).unwrap_err();
        assert_eq!(err.path, "$.body.x[1]");
    }
}
