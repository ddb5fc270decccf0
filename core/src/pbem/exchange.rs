//! Play by email against a store: the handshake, exporting a turn, applying
//! the opponent's, and forks kept as evidence.
//!
//! What a store notes beside its games (see [`EventLog::note`]):
//! - `side/<game>`: the side this store plays (none: it only follows the game);
//! - `acked/<game>`: the head the opponent last acknowledged (where the next
//!   turn file starts);
//! - `handshake/<game>`: the invitation (and answer) of a game being set up,
//!   with the inviter's secret share until the game starts;
//! - `fork/<game>/<seq>/<hash>`: a turn or record that parted from this
//!   store's game at `seq`, kept as evidence.
//!
//! **Invariant:** a refused turn writes nothing but, for a fork, its evidence.

use serde::{Deserialize, Serialize};

use super::{agreed_header, Accept, AcceptTerms, Invite, InviteTerms, MessageError, TurnFile, ACCEPT, INVITE, TURN};
use crate::game::{Game, Verifier};
use crate::keys::SecretKey;
use crate::log::{open_game, EventLog, LogError, OpenGameError};
use crate::record::{self, Event, Head, Header, Kind, SideKey};
use crate::rules::RuleVersion;
use crate::ruleset::{Actor, Registry};
use crate::seed::Share;
use crate::words::possessive;

/// Why an exchange step did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ExchangeError {
    /// The input is not what this step takes, or does not fit this store now
    /// (out of order, unknown game, wrong key): usage, exit 2.
    #[error("{0}")]
    Input(String),
    /// The input fails verification (chain, signatures, sides, legality,
    /// dice, a share that breaks its commitment): exit 1.
    #[error("{0}")]
    Refused(String),
    /// The input's events fail verification: exit 1, with the check that
    /// failed ([`crate::game::VerifyFailure::kind`]).
    #[error("{message}")]
    Unverified { kind: crate::fault::Fault, message: String },
    /// The input parts from this store's game: kept as evidence, exit 1.
    #[error("{message}")]
    Fork { message: String, evidence: String },
    #[error(transparent)]
    Log(#[from] LogError),
}

impl From<MessageError> for ExchangeError {
    fn from(e: MessageError) -> Self {
        match e {
            MessageError::Armour(a) => ExchangeError::Refused(a.to_string()),
            MessageError::Content(c) => ExchangeError::Refused(c),
        }
    }
}

impl From<OpenGameError> for ExchangeError {
    fn from(e: OpenGameError) -> Self {
        match e {
            OpenGameError::Log(l) => ExchangeError::Log(l),
            other => ExchangeError::Refused(other.to_string()),
        }
    }
}

fn input(message: impl Into<String>) -> ExchangeError {
    ExchangeError::Input(message.into())
}

fn refused(message: impl Into<String>) -> ExchangeError {
    ExchangeError::Refused(message.into())
}

fn side_note(game: &str) -> String {
    format!("side/{game}")
}

fn acked_note(game: &str) -> String {
    format!("acked/{game}")
}

fn handshake_note(game: &str) -> String {
    format!("handshake/{game}")
}

fn fork_prefix(game: &str) -> String {
    format!("fork/{game}/")
}

/// The notes this store keeps on `game` for play by email, by key: the side
/// it plays, the head its opponent acknowledged, the handshake, and the
/// forks it keeps as evidence. They go with the game: removed with it
/// (`games rm`), carried with it into another store (`store copy`).
pub fn notes(log: &dyn EventLog, game: &str) -> Result<Vec<(String, Vec<u8>)>, LogError> {
    let mut notes = Vec::new();
    for key in [side_note(game), acked_note(game), handshake_note(game)] {
        if let Some(value) = log.note(&key)? {
            notes.push((key, value));
        }
    }
    notes.extend(log.notes(&fork_prefix(game))?);
    Ok(notes)
}

/// The side this store plays in `game`, if any.
pub fn local_side(log: &dyn EventLog, game: &str) -> Result<Option<String>, LogError> {
    Ok(log.note(&side_note(game))?.map(|v| String::from_utf8_lossy(&v).into_owned()))
}

/// Records that this store plays `side` in `game` (its key was shown).
pub fn take_side(log: &dyn EventLog, game: &str, side: &str) -> Result<(), LogError> {
    log.set_note(&side_note(game), Some(side.as_bytes()))
}

/// The head the opponent last acknowledged, if any.
pub fn acked(log: &dyn EventLog, game: &str) -> Result<Option<Head>, LogError> {
    match log.note(&acked_note(game))? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| LogError::Corrupt {
            game: game.into(),
            seq: 0,
            reason: format!("acked note: {e}"),
        }),
    }
}

fn set_acked(log: &dyn EventLog, game: &str, head: &Head) -> Result<(), LogError> {
    log.set_note(&acked_note(game), Some(&serde_json::to_vec(head).expect("serialises")))
}

/// A game's handshake as one side keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Handshake {
    /// `inviter` or `accepter`.
    pub role: String,
    pub invite: Invite,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept: Option<Accept>,
    /// The inviter's share, secret until the game's header reveals it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<Share>,
}

fn handshake(log: &dyn EventLog, game: &str) -> Result<Option<Handshake>, ExchangeError> {
    match log.note(&handshake_note(game))? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            ExchangeError::Log(LogError::Corrupt { game: game.into(), seq: 0, reason: format!("handshake note: {e}") })
        }),
    }
}

fn set_handshake(log: &dyn EventLog, game: &str, h: &Handshake) -> Result<(), LogError> {
    log.set_note(&handshake_note(game), Some(&serde_json::to_vec(h).expect("serialises")))
}

/// The sides of a scenario under a rule version of a ruleset in `registry`
/// (the game is loaded, keyless).
pub fn scenario_sides(
    game: &str,
    rules: &RuleVersion,
    scenario: &serde_json::Value,
    registry: &Registry,
) -> Result<Vec<String>, String> {
    let header = Header {
        game: game.to_string(),
        rules_hash: rules.hash(),
        rules: rules.clone(),
        scenario: scenario.clone(),
        mode: record::SeedMode::Table,
        parties: Vec::new(),
        sides: Vec::new(),
        server: None,
    };
    Game::open(header, registry).map(|g| g.sides()).map_err(|e| e.to_string())
}

fn refuse_if_known(log: &dyn EventLog, game: &str) -> Result<(), ExchangeError> {
    if log.head(game).is_ok() {
        return Err(input(format!("a game {game:?} is already in this store")));
    }
    Ok(())
}

/// What the inviting side offers: a game, under these rules and this
/// scenario, with itself on this side.
#[derive(Debug, Clone)]
pub struct Offer<'a> {
    pub game: &'a str,
    pub rules: &'a RuleVersion,
    pub scenario: serde_json::Value,
    pub side: &'a str,
}

/// Step 1, the inviting side: its offer, its key, and a fresh secret share
/// (the caller draws it). The share stays in this store until `start`.
pub fn invite(
    log: &dyn EventLog,
    offer: Offer<'_>,
    key: &SecretKey,
    share: Share,
    registry: &Registry,
) -> Result<Invite, ExchangeError> {
    let Offer { game, rules, scenario, side } = offer;
    refuse_if_known(log, game)?;
    let sides = scenario_sides(game, rules, &scenario, registry).map_err(input)?;
    if sides.len() != 2 {
        return Err(input(format!("play by email is for two sides; this scenario has {}", sides.join(", "))));
    }
    if !sides.iter().any(|s| s == side) {
        return Err(input(format!("--side {side:?}: the scenario's sides are {}", sides.join(" and "))));
    }
    let terms = InviteTerms {
        format: INVITE.into(),
        game: game.to_string(),
        rules: super::Terms::of(rules),
        scenario,
        inviter: SideKey { name: side.to_string(), key: key.public() },
        commitment: share.commitment(),
    };
    let invite = Invite::new(terms, key);
    set_handshake(
        log,
        game,
        &Handshake { role: "inviter".into(), invite: invite.clone(), accept: None, share: Some(share) },
    )?;
    Ok(invite)
}

/// Step 2, the invited side: checks the invitation, takes the other side,
/// and answers with its key and its share.
pub fn accept(
    log: &dyn EventLog,
    invite_text: &str,
    key: &SecretKey,
    share: Share,
    registry: &Registry,
) -> Result<(Invite, Accept), ExchangeError> {
    let invite = Invite::read(invite_text)?;
    let game = invite.terms.game.clone();
    refuse_if_known(log, &game)?;
    let rules = invite.terms.rules.rules();
    let sides = scenario_sides(&game, &rules, &invite.terms.scenario, registry)
        .map_err(|e| refused(format!("the invitation's scenario: {e}")))?;
    let Some(side) = sides.iter().find(|s| **s != invite.terms.inviter.name) else {
        return Err(refused(format!(
            "the invitation's side {:?} is not one of the scenario's",
            invite.terms.inviter.name
        )));
    };
    if key.public() == invite.terms.inviter.key {
        return Err(input("this is the inviter's own key: answer with your side's key (rollcall keygen)"));
    }
    let terms = AcceptTerms {
        format: ACCEPT.into(),
        game: game.clone(),
        invite: invite.id(),
        accepter: SideKey { name: side.clone(), key: key.public() },
        share,
    };
    let accept = Accept::new(terms, key);
    set_handshake(
        log,
        &game,
        &Handshake { role: "accepter".into(), invite: invite.clone(), accept: Some(accept.clone()), share: None },
    )?;
    log.set_note(&side_note(&game), Some(side.as_bytes()))?;
    Ok((invite, accept))
}

/// Step 3, the inviting side: checks the answer, reveals its share in the
/// game's header, and creates the game. The header travels to the opponent
/// in the first turn file. The game's ruleset is one of `registry`'s.
pub fn start(
    log: &dyn EventLog,
    accept_text: &str,
    key: &SecretKey,
    registry: &Registry,
) -> Result<Header, ExchangeError> {
    let accept = Accept::read(accept_text)?;
    let game = accept.terms.game.clone();
    let Some(mut hs) = handshake(log, &game)? else {
        return Err(input(format!(
            "this store sent no invitation for game {game:?}: start the game where you invited from"
        )));
    };
    let share = match (&hs.role[..], hs.share) {
        ("inviter", Some(share)) => share,
        _ => return Err(input(format!("this store answered the invitation to {game:?}; the inviter starts the game"))),
    };
    if accept.terms.invite != hs.invite.id() {
        return Err(refused(
            "the answer is to another invitation (the invitation it names is not the one this store sent)",
        ));
    }
    if key.public() != hs.invite.terms.inviter.key {
        return Err(input(format!(
            "this is not the key the invitation was signed with ({})",
            hs.invite.terms.inviter.key.short()
        )));
    }
    refuse_if_known(log, &game)?;
    let rules = hs.invite.terms.rules.rules();
    let sides = scenario_sides(&game, &rules, &hs.invite.terms.scenario, registry).map_err(input)?;
    let header = agreed_header(&hs.invite, &accept, share, &sides).map_err(refused)?;
    Game::open(header.clone(), registry).map_err(|e| refused(e.to_string()))?;
    log.create(&header)?;
    log.set_note(&side_note(&game), Some(hs.invite.terms.inviter.name.as_bytes()))?;
    hs.accept = Some(accept);
    hs.share = None;
    set_handshake(log, &game, &hs)?;
    Ok(header)
}

/// The side `key` plays in a stored game, checked against the store's side.
fn side_of_key(log: &dyn EventLog, header: &Header, key: &SecretKey) -> Result<String, ExchangeError> {
    let Some(side) = header.side_of(&key.public()) else {
        let listed: Vec<String> = header.sides.iter().map(|s| format!("{} {}", s.name, s.key.short())).collect();
        return Err(input(format!(
            "this key ({}) is not a key of game {:?}'s sides ({})",
            key.public().short(),
            header.game,
            listed.join(", ")
        )));
    };
    if let Some(mine) = local_side(log, &header.game)? {
        if mine != side {
            return Err(input(format!(
                "this store plays {mine} in game {:?}, but the key is {}",
                header.game,
                possessive(side)
            )));
        }
    }
    Ok(side.to_string())
}

/// Whether this store may decide in `game` now, and as which side: in a game
/// with sides' keys, only the store's own side, and only while it holds the
/// turn (it has not signed and sent a turn the opponent has not answered).
pub fn decider(log: &dyn EventLog, game: &Game) -> Result<Option<String>, ExchangeError> {
    let header = game.header();
    if header.sides.is_empty() {
        return Ok(None);
    }
    let Some(me) = local_side(log, &header.game)? else {
        return Err(input(format!(
            "this store follows game {:?} but plays no side of it: only the sides decide (their stores made or accepted the invitation)",
            header.game
        )));
    };
    let turns = game.turns();
    if let Some((signer, seq)) = &turns.last {
        if *signer == me && turns.unsigned == 0 {
            let opponent = header.sides.iter().find(|s| s.name != me).map(|s| s.name.clone()).unwrap_or_default();
            return Err(input(format!(
                "you signed and sent your turn (checkpoint at seq {seq}): wait for {} turn file, then `rollcall turn apply`",
                possessive(&opponent)
            )));
        }
    }
    Ok(Some(me))
}

/// What `export` made.
pub struct Exported {
    pub turn: TurnFile,
    /// The checkpoint signed now (none when the turn was signed already: a re-send).
    pub checkpoint: Option<Event>,
    /// Decisions in the turn.
    pub decisions: u64,
    /// Whose decision the game awaits after the turn.
    pub awaited: Actor,
}

/// Exports this store's turn of `game`: signs a checkpoint if the turn is not
/// signed yet, and gathers the events after the head the opponent last
/// acknowledged (with the header, if he has nothing yet).
pub fn export(
    log: &dyn EventLog,
    game_id: &str,
    key: &SecretKey,
    registry: &Registry,
) -> Result<Exported, ExchangeError> {
    let mut game = open_game(log, game_id, None, registry)?;
    let header = game.header().clone();
    if header.sides.is_empty() {
        return Err(input(format!("game {game_id:?} lists no sides' keys: it is not a play-by-email game (start one with `rollcall pbem invite`)")));
    }
    let side = side_of_key(log, &header, key)?;
    let turns = game.turns();
    let signed_already = matches!(&turns.last, Some((s, _)) if *s == side) && turns.unsigned == 0;
    let checkpoint = if signed_already {
        None
    } else {
        let event = game.checkpoint(&side, key).map_err(input)?;
        log.append(game_id, &game.head(), std::slice::from_ref(&event))?;
        game.apply(&event).map_err(|e| refused(e.to_string()))?;
        Some(event)
    };
    let previous = acked(log, game_id)?.unwrap_or(Head { seq: 0, hash: game.root() });
    if stored_hash(log, game_id, &game, previous.seq)? != Some(previous.hash) {
        return Err(refused(format!(
            "the head your opponent acknowledged (seq {} {}) is not in this store's game: it has been changed since",
            previous.seq,
            previous.hash.short()
        )));
    }
    let mut lines = Vec::new();
    let mut decisions = 0;
    for e in log.events(game_id, previous.seq + 1)? {
        let e = e?;
        decisions += u64::from(e.kind == Kind::Decision);
        lines.push(TurnFile::line_value(&record::encode_event(&e).map_err(|e| refused(e.to_string()))?));
    }
    let header_line = (previous.seq == 0)
        .then(|| TurnFile::line_value(&record::encode_header(&header).expect("a stored header encodes")));
    let turn = TurnFile {
        format: TURN.into(),
        game: game_id.to_string(),
        side,
        previous,
        head: Head { seq: game.seq(), hash: game.head() },
        header: header_line,
        events: lines,
        signature: None,
    };
    Ok(Exported { turn, checkpoint, decisions, awaited: game.awaited() })
}

/// The hash of the event at `seq` of a stored game (the root for 0).
fn stored_hash(log: &dyn EventLog, id: &str, game: &Game, seq: u64) -> Result<Option<crate::Digest>, LogError> {
    if seq == 0 {
        return Ok(Some(game.root()));
    }
    match log.events(id, seq)?.next() {
        Some(e) => {
            let e = e?;
            Ok((e.seq == seq).then_some(e.hash))
        }
        None => Ok(None),
    }
}

/// What `apply` did.
pub struct Applied {
    /// The game before the new events (to narrate them on).
    pub before: Game,
    /// The events added to the store (none when it had them all already).
    pub events: Vec<Event>,
    /// Events of the turn this store had already.
    pub known: u64,
    /// The game was created from the turn file's header.
    pub created: bool,
    pub side: String,
    pub head: Head,
}

/// Applies the opponent's turn file: verifies every event on top of this
/// store's game (chain, legality, dice, the sender's signatures, every
/// decision his or a referee's), then appends them, or refuses with the
/// exact reason and writes nothing (a fork is kept as evidence).
pub fn apply(log: &dyn EventLog, text: &str, registry: &Registry) -> Result<Applied, ExchangeError> {
    let (turn, header, events) = TurnFile::read(text, registry)?;
    if let Some(mine) = local_side(log, &turn.game)? {
        if mine == turn.side {
            return Err(input(format!(
                "this is {} own turn file, and this store plays {mine}: send it to the opponent",
                possessive(&mine)
            )));
        }
    }
    if log.head(&turn.game).is_err() {
        if let Some(h) = &header {
            check_server_signature(h, &turn)?;
        }
        return create_from_turn(log, &turn, header, events, registry);
    }
    let stored = log.header(&turn.game)?;
    check_server_signature(&stored, &turn)?;
    if let Some(h) = &header {
        if let Some(field) = header_difference(&stored, h) {
            return Err(refused(format!(
                "the turn file's header is not this game's: {field} differs (a swapped key, other rules or another game with the same id)"
            )));
        }
    }
    let game = open_game(log, &turn.game, None, registry)?;
    let ours = Head { seq: game.seq(), hash: game.head() };
    if turn.previous.seq > ours.seq {
        return Err(input(format!(
            "this turn starts at seq {} but this store's game ends at seq {}: a turn is missing. Apply the turns before it first (or ask {} to export again: a turn file starts where you last acknowledged)",
            turn.previous.seq, ours.seq, turn.side
        )));
    }
    if stored_hash(log, &turn.game, &game, turn.previous.seq)? != Some(turn.previous.hash) {
        let evidence = keep_fork(log, &turn, turn.previous.seq, &turn.lines())?;
        return Err(ExchangeError::Fork {
            message: format!(
                "the turn starts from a head this store's game never had (seq {} {}): {} played on from another branch. Kept as evidence: rollcall fork show {}",
                turn.previous.seq,
                turn.previous.hash.short(),
                turn.side,
                turn.game
            ),
            evidence,
        });
    }
    // Events this store has already must be byte for byte its own.
    let overlap = ours.seq - turn.previous.seq;
    let mut known = 0;
    for (theirs, stored) in events.iter().zip(log.events(&turn.game, turn.previous.seq + 1)?) {
        let stored = stored?;
        if stored.hash != theirs.hash {
            let at = (theirs.seq - turn.previous.seq - 1) as usize;
            let evidence = keep_fork(log, &turn, theirs.seq, &turn.lines()[at..])?;
            return Err(ExchangeError::Fork {
                message: format!(
                    "{} turn parts from this store's game at seq {}: a second, different turn on a head already played on (a re-roll?). Kept as evidence: rollcall fork show {}",
                    possessive(&turn.side), theirs.seq, turn.game
                ),
                evidence,
            });
        }
        known += 1;
    }
    let new: Vec<Event> = events.into_iter().skip(overlap as usize).collect();
    if new.is_empty() {
        return Ok(Applied { before: game, events: Vec::new(), known, created: false, side: turn.side, head: ours });
    }
    let before = game.clone();
    let game = verify_turn(game, &turn, &new)?;
    let head = log.append(&turn.game, &ours.hash, &new)?;
    debug_assert_eq!(head.hash, game.head());
    set_acked(log, &turn.game, &turn.head)?;
    Ok(Applied { before, events: new, known, created: false, side: turn.side, head })
}

/// A turn file from a sealed game's server carries its signature, which must
/// verify under the server's key in the header; a side's turn file has none.
fn check_server_signature(header: &Header, turn: &TurnFile) -> Result<(), ExchangeError> {
    if turn.side != crate::sealed::SERVER {
        return Ok(());
    }
    let Some(server) = &header.server else {
        return Err(refused(format!(
            "game {:?} has no dice server, yet the turn file says it comes from one",
            turn.game
        )));
    };
    let message = crate::sealed::turn_message(&turn.game, &turn.previous, &turn.head);
    match &turn.signature {
        Some(sig) if server.key.verifies(&message, sig) => Ok(()),
        _ => Err(refused(format!(
            "the server's signature does not verify under the server's key {}: the turn file was changed or forged",
            server.key.short()
        ))),
    }
}

/// Verifies a turn's new events on top of `game`: every event, and every
/// checkpoint the sender's.
fn verify_turn(game: Game, turn: &TurnFile, events: &[Event]) -> Result<Game, ExchangeError> {
    let mut verifier = Verifier::resume(game);
    for e in events {
        if e.kind == Kind::Checkpoint {
            let body: record::CheckpointBody =
                serde_json::from_value(e.body.clone()).map_err(|e| refused(e.to_string()))?;
            if body.side != turn.side {
                return Err(refused(format!(
                    "seq {}: a checkpoint by {} in {} turn file: a turn carries its sender's signatures only",
                    e.seq,
                    body.side,
                    possessive(&turn.side)
                )));
            }
        }
        verifier.push(e).map_err(|f| unverified(turn, f))?;
    }
    let (_, game) = verifier.finish().map_err(|f| unverified(turn, f))?;
    Ok(game)
}

fn unverified(turn: &TurnFile, f: crate::game::VerifyFailure) -> ExchangeError {
    ExchangeError::Unverified { kind: f.kind, message: format!("{} turn does not verify: {f}", possessive(&turn.side)) }
}

/// A game's first turn file, which carries its header: the game is created
/// from it, whole or not at all. The store that answered the invitation
/// checks the header against the handshake first.
fn create_from_turn(
    log: &dyn EventLog,
    turn: &TurnFile,
    header: Option<Header>,
    events: Vec<Event>,
    registry: &Registry,
) -> Result<Applied, ExchangeError> {
    let Some(header) = header else {
        return Err(input(format!(
            "this store does not know game {:?}, and only a game's first turn file carries its header: apply the first turn file first",
            turn.game
        )));
    };
    if turn.previous.seq != 0 {
        return Err(input(format!(
            "this store does not know game {:?}, and this turn starts at seq {}: apply the game's first turn file first",
            turn.game, turn.previous.seq
        )));
    }
    if let Some(hs) = handshake(log, &turn.game)? {
        check_against_handshake(&hs, &header)?;
    }
    let game = Game::open(header.clone(), registry).map_err(|e| refused(e.to_string()))?;
    if turn.previous.hash != game.root() {
        return Err(refused("the turn does not start from its own header's hash"));
    }
    let before = game.clone();
    let game = verify_turn(game, turn, &events)?;
    log.begin(&header)?;
    let written = log.append_pending(&turn.game, &game_root(&before), &events).and_then(|_| log.commit(&turn.game));
    let head = match written {
        Ok(head) => head,
        Err(e) => {
            let _ = log.abandon(&turn.game);
            return Err(e.into());
        }
    };
    debug_assert_eq!(head.hash, game.head());
    set_acked(log, &turn.game, &turn.head)?;
    Ok(Applied { before, events, known: 0, created: true, side: turn.side.clone(), head })
}

fn game_root(game: &Game) -> crate::Digest {
    game.root()
}

/// The answering side checks the header the inviter built: the terms it was
/// invited on, its own key and share, and the inviter's share against the
/// commitment of the invitation.
fn check_against_handshake(hs: &Handshake, header: &Header) -> Result<(), ExchangeError> {
    let (Some(accept), "accepter") = (&hs.accept, hs.role.as_str()) else { return Ok(()) };
    let inviter = &hs.invite.terms.inviter.name;
    let Some(share) = header.parties.iter().find(|p| p.name == *inviter).and_then(|p| p.share) else {
        return Err(refused(format!("the header does not reveal {} share", possessive(inviter))));
    };
    if share.commitment() != hs.invite.terms.commitment {
        return Err(refused(format!(
            "{} revealed share does not match the commitment {} it made in the invitation: refused (a share changed after seeing yours would let {inviter} choose the dice)",
            possessive(inviter),
            hs.invite.terms.commitment.short()
        )));
    }
    let sides: Vec<String> = header.sides.iter().map(|s| s.name.clone()).collect();
    let expected = agreed_header(&hs.invite, accept, share, &sides).map_err(refused)?;
    if let Some(field) = header_difference(&expected, header) {
        return Err(refused(format!("the header is not the one agreed in the handshake: {field} differs")));
    }
    Ok(())
}

/// The first field (a JSON path) where two headers differ, if they do.
pub fn header_difference(a: &Header, b: &Header) -> Option<String> {
    let a: serde_json::Value = serde_json::from_str(&record::encode_header(a).ok()?).ok()?;
    let b: serde_json::Value = serde_json::from_str(&record::encode_header(b).ok()?).ok()?;
    first_difference(&a, &b, "$")
}

fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys()) {
                match (x.get(key), y.get(key)) {
                    (Some(p), Some(q)) => {
                        if let Some(d) = first_difference(p, q, &format!("{at}.{key}")) {
                            return Some(d);
                        }
                    }
                    _ => return Some(format!("{at}.{key}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]")))
        }
        _ if a == b => None,
        _ => Some(at.to_string()),
    }
}

/// A turn or record that parted from this store's game, kept as evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fork {
    pub game: String,
    /// Where it came from: `turn file`, or `record FILE`.
    pub source: String,
    /// The sending side, for a turn file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<String>,
    /// The first seq at which it differs from this store's game.
    pub seq: u64,
    /// Its events from `seq` on, as record lines (up to its first checkpoint
    /// after the fork, at most [`FORK_EVENTS`]).
    pub events: Vec<String>,
}

/// The most events of the other branch a fork keeps.
pub const FORK_EVENTS: usize = 10_000;

fn keep_fork(log: &dyn EventLog, turn: &TurnFile, seq: u64, lines: &[String]) -> Result<String, ExchangeError> {
    let fork = Fork {
        game: turn.game.clone(),
        source: "turn file".into(),
        side: Some(turn.side.clone()),
        seq,
        events: branch(lines),
    };
    Ok(keep(log, &fork)?)
}

/// A branch's lines up to its first checkpoint, at most [`FORK_EVENTS`].
pub fn branch(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for line in lines.iter().take(FORK_EVENTS) {
        out.push(line.clone());
        if line.contains("\"kind\":\"checkpoint\"") {
            break;
        }
    }
    out
}

/// Stores a fork's evidence under `fork/<game>/<seq>/<hash of its first event>`.
pub fn keep(log: &dyn EventLog, fork: &Fork) -> Result<String, LogError> {
    let first = fork.events.first().map(|l| crate::Digest::of(l.as_bytes()).to_string()).unwrap_or_default();
    let key = format!("{}{:020}/{first}", fork_prefix(&fork.game), fork.seq);
    log.set_note(&key, Some(&serde_json::to_vec(fork).expect("serialises")))?;
    Ok(key)
}

/// The forks kept for `game`, oldest fork point first.
pub fn forks(log: &dyn EventLog, game: &str) -> Result<Vec<Fork>, LogError> {
    log.notes(&fork_prefix(game))?
        .into_iter()
        .map(|(key, bytes)| {
            serde_json::from_slice(&bytes).map_err(|e| LogError::Corrupt {
                game: game.into(),
                seq: 0,
                reason: format!("fork note {key}: {e}"),
            })
        })
        .collect()
}

/// After an import that extended a game, the opponent has at least what the
/// record held: it becomes the acknowledged head.
pub fn acknowledge(log: &dyn EventLog, game: &str, head: &Head) -> Result<(), LogError> {
    set_acked(log, game, head)
}

/// What a record of a game the store has came to ([`extend`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extension {
    /// The record parts from the stored game at `seq`: refused, and kept as
    /// evidence under `evidence` (a note key).
    Fork { seq: u64, evidence: String },
    /// Nothing: the stored game, at `head`, holds every event of the record.
    Nothing { head: Head },
    /// The stored game, extended by `appended` events after the seq `from`;
    /// its head now `head`.
    Extended { appended: u64, from: u64, head: crate::Digest },
}

/// Why a record could not extend the stored game; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ExtendError<E> {
    /// The record's header differs from the stored game's at `field`: it is
    /// another game with the same id.
    #[error("a game {game:?} is in the store, and this record's header differs from it at {field}: it is another game with the same id")]
    OtherGame { game: String, field: String },
    /// The record does not verify.
    #[error("does not verify: {0}")]
    Unverified(crate::game::VerifyFailure),
    /// The record could not be read again.
    #[error("{0}")]
    Read(E),
    #[error(transparent)]
    Log(#[from] LogError),
}

/// Extends the stored game `header.game` with a record of it: the record
/// must be the same game (the same header) and agree with every stored
/// event; what it holds beyond the store's head is appended, whole
/// decisions at a time, `batch` events or so an append. A record that parts
/// from the stored game is a fork: refused, and kept as evidence (`source`
/// says where it came from, `record FILE`).
///
/// `read` gives the record's events from its first, each time it is
/// called: once to verify the whole record against the store, once more to
/// append what the store lacks, so the record is never held whole.
pub fn extend<E: std::fmt::Display, I: IntoIterator<Item = Result<Event, E>>>(
    log: &dyn EventLog,
    header: &Header,
    source: &str,
    mut read: impl FnMut() -> Result<I, E>,
    batch: usize,
    registry: &Registry,
) -> Result<Extension, ExtendError<E>> {
    let id = &header.game;
    let stored = log.header(id)?;
    if let Some(field) = header_difference(&stored, header) {
        return Err(ExtendError::OtherGame { game: id.clone(), field });
    }
    let ours = log.head(id)?;
    let events = read().map_err(ExtendError::Read)?;
    let (verified, fork) = verify_against_store(log, header, ours.seq, source, events, registry)?;
    if let Some(fork) = fork {
        let evidence = keep(log, &fork)?;
        return Ok(Extension::Fork { seq: fork.seq, evidence });
    }
    if verified.events <= ours.seq {
        return Ok(Extension::Nothing { head: ours });
    }
    let (appended, head) = append_beyond(log, id, &ours, read().map_err(ExtendError::Read)?, batch)?;
    Ok(Extension::Extended { appended, from: ours.seq, head })
}

/// The record verified whole, and each of its events up to the stored
/// head `ours` compared with the store's: the first that differs begins a
/// fork, its branch kept as [`branch`] keeps one.
fn verify_against_store<E: std::fmt::Display>(
    log: &dyn EventLog,
    header: &Header,
    ours: u64,
    source: &str,
    events: impl IntoIterator<Item = Result<Event, E>>,
    registry: &Registry,
) -> Result<(crate::game::Verified, Option<Fork>), ExtendError<E>> {
    let mut stored_events = log.events(&header.game, 1)?;
    let mut fork: Option<Fork> = None;
    let result = crate::game::verify_each(header, events, registry, |_, e| {
        if e.seq <= ours && fork.is_none() {
            let same = matches!(stored_events.next(), Some(Ok(s)) if s.hash == e.hash);
            if !same {
                let game = header.game.clone();
                fork = Some(Fork { game, source: source.to_string(), side: None, seq: e.seq, events: Vec::new() });
            }
        }
        if let Some(f) = fork.as_mut() {
            let open =
                f.events.len() < FORK_EVENTS && !f.events.last().is_some_and(|l| l.contains("\"kind\":\"checkpoint\""));
            if open {
                f.events.push(record::encode_event(e).unwrap_or_default());
            }
        }
    });
    drop(stored_events);
    Ok((result.map_err(ExtendError::Unverified)?, fork))
}

/// Appends the events after the stored head `ours`, whole decisions at a
/// time: how many, and the head they lead to.
fn append_beyond<E>(
    log: &dyn EventLog,
    id: &str,
    ours: &Head,
    events: impl IntoIterator<Item = Result<Event, E>>,
    batch_events: usize,
) -> Result<(u64, crate::Digest), ExtendError<E>> {
    let mut head = ours.hash;
    let mut batch: Vec<Event> = Vec::new();
    let mut appended = 0u64;
    for event in events {
        let event = event.map_err(ExtendError::Read)?;
        if event.seq <= ours.seq {
            continue;
        }
        if matches!(event.kind, Kind::Decision | Kind::Checkpoint) && batch.len() >= batch_events {
            head = log.append(id, &head, &batch)?.hash;
            appended += batch.len() as u64;
            batch.clear();
        }
        batch.push(event);
    }
    if !batch.is_empty() {
        head = log.append(id, &head, &batch)?.hash;
        appended += batch.len() as u64;
    }
    Ok((appended, head))
}
