//! Play by email: the handshake that starts a game nobody could choose the
//! dice of, and the signed turn files that carry it on.
//!
//! - [`armour`]: how a message survives email (the transport).
//! - [`Invite`], [`Accept`]: the handshake. The inviting side commits to its
//!   seed share; the other side answers with its own share; the inviting side
//!   then reveals its share in the game's header, which travels in the first
//!   turn file. Nobody chooses the seed: the inviter fixed his share before
//!   seeing the other, and the other chose his without knowing the first.
//! - [`TurnFile`]: the events a side adds after the head its opponent last
//!   acknowledged, ending in the side's signed checkpoint.
//! - [`exchange`]: exporting and applying turns against a store, forks kept
//!   as evidence.
//!
//! Every message is canonical JSON inside the armour: one spelling per
//! meaning, so what is signed and hashed cannot change in transit unnoticed.

pub mod armour;
pub mod exchange;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::canon;
use crate::digest::Digest;
use crate::keys::{self, PublicKey, SecretKey, Signature};
use crate::record::Head;
use crate::record::{self, Event, Header, SideKey};
use crate::rules::RuleVersion;
use crate::rules::Versions;
use crate::seed::Share;

/// Why a message cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    #[error(transparent)]
    Armour(#[from] armour::ArmourError),
    #[error("{0}")]
    Content(String),
}

fn content(message: impl Into<String>) -> MessageError {
    MessageError::Content(message.into())
}

/// The canonical bytes of `value`, which must be a JSON object.
fn canonical<T: Serialize>(value: &T) -> Vec<u8> {
    canon::of(value).expect("messages hold no floats").into_bytes()
}

/// Parses canonical JSON into `T`: unknown fields, duplicate keys, trailing
/// text and any other spelling than the canonical one are refused.
fn parse_canonical<T: DeserializeOwned + Serialize>(what: &str, bytes: &[u8]) -> Result<T, MessageError> {
    let value: T = serde_json::from_slice(bytes).map_err(|e| content(format!("the {what} is not readable: {e}")))?;
    if canonical(&value) != bytes {
        return Err(content(format!(
            "the {what} is not in canonical form (a field repeated, reordered or spelled another way): it was changed"
        )));
    }
    Ok(value)
}

/// Signs the canonical form of `terms` as a handshake message of `kind`.
fn sign_terms<T: Serialize>(kind: &str, terms: &T, key: &SecretKey) -> Signature {
    key.sign(&keys::handshake_message(kind, &Digest::of(&canonical(terms))))
}

fn verify_terms<T: Serialize>(kind: &str, terms: &T, key: &PublicKey, signature: &Signature) -> bool {
    key.verifies(&keys::handshake_message(kind, &Digest::of(&canonical(terms))), signature)
}

/// The rule version a game is to be played under, as the handshake names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Terms {
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub options: std::collections::BTreeMap<String, bool>,
    pub constants: std::collections::BTreeMap<String, i64>,
}

impl Terms {
    pub fn of(rules: &RuleVersion) -> Terms {
        Terms {
            version: rules.version.clone(),
            name: rules.name.clone(),
            options: rules.options.clone(),
            constants: rules.constants.clone(),
        }
    }

    pub fn rules(&self) -> RuleVersion {
        RuleVersion {
            version: self.version.clone(),
            name: self.name.clone(),
            options: self.options.clone(),
            constants: self.constants.clone(),
        }
    }
}

/// The invitation's terms: the game, its rules and scenario, the inviting
/// side with its key, and its commitment to a seed share it keeps secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InviteTerms {
    pub format: String,
    pub game: String,
    pub rules: Terms,
    pub scenario: Value,
    pub inviter: SideKey,
    /// `blake3(share)` of the inviter's share.
    pub commitment: Digest,
}

/// An invitation, signed by the inviting side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invite {
    pub terms: InviteTerms,
    pub signature: Signature,
}

pub const INVITE: &str = "rollcall-invite-1";
pub const ACCEPT: &str = "rollcall-accept-1";
pub const TURN: &str = "rollcall-turn-1";

impl Invite {
    pub fn new(terms: InviteTerms, key: &SecretKey) -> Invite {
        let signature = sign_terms("invite", &terms, key);
        Invite { terms, signature }
    }

    pub fn payload(&self) -> Vec<u8> {
        canonical(self)
    }

    /// Its identity: the blake3 of its canonical bytes, which the answer names.
    pub fn id(&self) -> Digest {
        Digest::of(&self.payload())
    }

    pub fn armour(&self) -> String {
        armour::encode(
            "INVITE",
            &[
                ("Game", self.terms.game.clone()),
                ("Rules", self.terms.rules.version.clone()),
                ("From", self.terms.inviter.name.clone()),
            ],
            &self.payload(),
        )
    }

    /// Reads an invitation and checks the inviter's signature.
    pub fn read(text: &str) -> Result<Invite, MessageError> {
        let a = armour::decode(text)?;
        expect_kind(&a, "INVITE")?;
        let invite: Invite = parse_canonical("invitation", &a.payload)?;
        if invite.terms.format != INVITE {
            return Err(content(format!("not an invitation this build reads (format {:?})", invite.terms.format)));
        }
        a.check_field("Game", &invite.terms.game).map_err(content)?;
        if !verify_terms("invite", &invite.terms, &invite.terms.inviter.key, &invite.signature) {
            return Err(content(format!(
                "the invitation's signature does not verify under {} key {}: it was changed or forged",
                crate::words::possessive(&invite.terms.inviter.name),
                invite.terms.inviter.key.short()
            )));
        }
        Ok(invite)
    }
}

/// The answer's terms: the invitation it accepts, the answering side with its
/// key, and its seed share, revealed (the inviter is already bound).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceptTerms {
    pub format: String,
    pub game: String,
    /// The blake3 of the invitation's canonical bytes.
    pub invite: Digest,
    pub accepter: SideKey,
    pub share: Share,
}

/// The answer to an invitation, signed by the answering side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accept {
    pub terms: AcceptTerms,
    pub signature: Signature,
}

impl Accept {
    pub fn new(terms: AcceptTerms, key: &SecretKey) -> Accept {
        let signature = sign_terms("accept", &terms, key);
        Accept { terms, signature }
    }

    pub fn payload(&self) -> Vec<u8> {
        canonical(self)
    }

    pub fn armour(&self) -> String {
        armour::encode(
            "ACCEPT",
            &[("Game", self.terms.game.clone()), ("From", self.terms.accepter.name.clone())],
            &self.payload(),
        )
    }

    /// Reads an answer and checks the answering side's signature.
    pub fn read(text: &str) -> Result<Accept, MessageError> {
        let a = armour::decode(text)?;
        expect_kind(&a, "ACCEPT")?;
        let accept: Accept = parse_canonical("answer", &a.payload)?;
        if accept.terms.format != ACCEPT {
            return Err(content(format!("not an answer this build reads (format {:?})", accept.terms.format)));
        }
        a.check_field("Game", &accept.terms.game).map_err(content)?;
        if !verify_terms("accept", &accept.terms, &accept.terms.accepter.key, &accept.signature) {
            return Err(content(format!(
                "the answer's signature does not verify under {} key {}: it was changed or forged",
                crate::words::possessive(&accept.terms.accepter.name),
                accept.terms.accepter.key.short()
            )));
        }
        Ok(accept)
    }
}

fn expect_kind(a: &armour::Armoured, kind: &str) -> Result<(), MessageError> {
    if a.kind != kind {
        let what = |k: &str| match k {
            "INVITE" => "an invitation",
            "ACCEPT" => "an answer to an invitation",
            "TURN" => "a turn file",
            _ => "another kind of message",
        };
        return Err(content(format!("this is {} (ROLLCALL {}), not {}", what(&a.kind), a.kind, what(kind))));
    }
    Ok(())
}

/// The game header both sides agreed on: the inviter's terms, both keys in
/// the scenario's order of sides, and both shares (an open game).
pub fn agreed_header(
    invite: &Invite,
    accept: &Accept,
    inviter_share: Share,
    sides: &[String],
) -> Result<Header, String> {
    if inviter_share.commitment() != invite.terms.commitment {
        return Err(format!(
            "{} revealed share does not match the commitment {} of the invitation",
            crate::words::possessive(&invite.terms.inviter.name),
            invite.terms.commitment.short()
        ));
    }
    if accept.terms.invite != invite.id() || accept.terms.game != invite.terms.game {
        return Err("the answer is to another invitation".into());
    }
    let (inviter, accepter) = (&invite.terms.inviter, &accept.terms.accepter);
    if inviter.name == accepter.name {
        return Err(format!("both sides chose {:?}: the answer must take the other side", inviter.name));
    }
    if inviter.key == accepter.key {
        return Err("both sides signed with the same key: each side needs its own (rollcall keygen)".into());
    }
    let mut keyed = Vec::new();
    let mut parties = Vec::new();
    for side in sides {
        let (key, share) = if *side == inviter.name {
            (inviter.key, inviter_share)
        } else if *side == accepter.name {
            (accepter.key, accept.terms.share)
        } else {
            return Err(format!(
                "the scenario has a side {side:?} that neither player took (play by email is for two sides)"
            ));
        };
        keyed.push(SideKey { name: side.clone(), key });
        parties.push(record::Party { name: side.clone(), commitment: Some(share.commitment()), share: Some(share) });
    }
    let rules = invite.terms.rules.rules();
    Ok(Header {
        game: invite.terms.game.clone(),
        rules_hash: rules.hash(),
        rules,
        scenario: invite.terms.scenario.clone(),
        mode: record::SeedMode::Open,
        parties,
        sides: keyed,
        server: None,
    })
}

/// A turn file: what a side sends its opponent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TurnFile {
    pub format: String,
    pub game: String,
    /// The sending side: every checkpoint in the file is its signature.
    pub side: String,
    /// The head the turn starts from (the head the opponent acknowledged).
    pub previous: Head,
    /// The head it ends at: the sender's checkpoint.
    pub head: Head,
    /// The game's header, in a game's first turn file: its record line, as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<crate::record::HeaderV1>")]
    pub header: Option<Value>,
    /// The events after `previous`: their record lines, as JSON (the
    /// payload being canonical, each is its line byte for byte).
    #[schemars(with = "Vec<crate::record::EventV1>")]
    pub events: Vec<Value>,
    /// A sealed game's turn file comes from its dice server (`side` is
    /// `server`): the server's signature over (game, previous, head), where a
    /// side's turn ends with its checkpoint instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
}

impl TurnFile {
    pub fn payload(&self) -> Vec<u8> {
        canonical(self)
    }

    /// The events' record lines.
    pub fn lines(&self) -> Vec<String> {
        self.events.iter().map(|e| canon::to_string(e).expect("record lines hold no floats")).collect()
    }

    /// A record line as the payload holds it.
    pub fn line_value(line: &str) -> Value {
        serde_json::from_str(line).expect("a record line is JSON")
    }

    pub fn armour(&self) -> String {
        armour::encode(
            "TURN",
            &[
                ("Game", self.game.clone()),
                ("Side", self.side.clone()),
                ("From", format!("{} {}", self.previous.seq, self.previous.hash)),
                ("To", format!("{} {}", self.head.seq, self.head.hash)),
            ],
            &self.payload(),
        )
    }

    /// Reads a turn file (armoured, or its bare JSON) and checks its shape:
    /// the clear lines match, the events are record lines in seq order from
    /// `previous`, and the last is the sender's checkpoint at `head`. What
    /// the events prove (chain, signatures, legality, dice) is checked when
    /// the turn is applied to a game.
    /// A header it carries is read knowing the rule versions of `versions`.
    pub fn read(text: &str, versions: &dyn Versions) -> Result<(TurnFile, Option<Header>, Vec<Event>), MessageError> {
        let a = armour::decode(text)?;
        expect_kind(&a, "TURN")?;
        let turn: TurnFile = parse_canonical("turn file", &a.payload)?;
        if turn.format != TURN {
            return Err(content(format!("not a turn file this build reads (format {:?})", turn.format)));
        }
        a.check_field("Game", &turn.game).map_err(content)?;
        a.check_field("Side", &turn.side).map_err(content)?;
        a.check_field("From", &format!("{} {}", turn.previous.seq, turn.previous.hash)).map_err(content)?;
        a.check_field("To", &format!("{} {}", turn.head.seq, turn.head.hash)).map_err(content)?;
        let header = match &turn.header {
            None => None,
            Some(value) => {
                let line = canon::to_string(value).map_err(|e| content(format!("the header: {e}")))?;
                let h = record::parse_header(&line, versions).map_err(|e| content(format!("the header: {e}")))?;
                if h.game != turn.game {
                    return Err(content(format!("the header is of game {:?}, not {:?}", h.game, turn.game)));
                }
                Some(h)
            }
        };
        let mut events = Vec::with_capacity(turn.events.len());
        for (i, line) in turn.lines().iter().enumerate() {
            let e = record::parse_event(line).map_err(|e| content(format!("event {}: {e}", i + 1)))?;
            if e.seq != turn.previous.seq + 1 + i as u64 {
                return Err(content(format!(
                    "event {} is seq {}, where seq {} was due: events were dropped, added or moved",
                    i + 1,
                    e.seq,
                    turn.previous.seq + 1 + i as u64
                )));
            }
            events.push(e);
        }
        if turn.side == crate::sealed::SERVER {
            if turn.signature.is_none() {
                return Err(content(
                    "a turn file from the dice server carries the server's signature: this one has none",
                ));
            }
            let at_head = match events.last() {
                Some(last) => last.seq == turn.head.seq && last.hash == turn.head.hash,
                None => turn.head == turn.previous,
            };
            if !at_head {
                return Err(content("the turn's last event is not the head it names"));
            }
            return Ok((turn, header, events));
        }
        if turn.signature.is_some() {
            return Err(content("a side's turn file is signed by its checkpoint, not by a server signature"));
        }
        match events.last() {
            Some(last)
                if last.kind == record::Kind::Checkpoint
                    && last.seq == turn.head.seq
                    && last.hash == turn.head.hash => {}
            Some(last) if last.kind != record::Kind::Checkpoint => {
                return Err(content(format!(
                    "the turn does not end with {} signed checkpoint: an unsigned turn is refused",
                    crate::words::possessive(&turn.side)
                )))
            }
            Some(_) => return Err(content("the turn's last event is not the head it names")),
            None => return Err(content("the turn file holds no events: not even the sender's checkpoint")),
        }
        Ok((turn, header, events))
    }
}
