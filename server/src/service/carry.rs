//! What a dice server keeps beside its games (a sealed game's chain, its
//! sides' token hashes, whether it ended, the server's key; a game waiting
//! for its shares), carried from one store to another by `rollcall store
//! copy`, so that a server over the target goes on with them. Secrets go
//! from store to store only, never through an answer.

use rollcall_core::keys::{PublicKey, SecretKey};
use rollcall_core::log::EventLog;
use rollcall_core::record::Header;

use super::{chain_secret, ended_note, token_note, waiting_note, Waiting};

/// Carries what a dice server keeps beside a sealed game (its chain, the
/// sides' token hashes, whether it ended, and the server's key the header
/// names) from one store to another (`rollcall store copy`), so that a
/// server over the target goes on with the game. Secrets go from store to
/// store only, never through a response. Nothing to carry for a game no
/// server of the source sealed. Refused, writing no secret, when the target's
/// servers sign with another key than the one the game's header names.
pub fn carry_sealed(source: &dyn EventLog, target: &dyn EventLog, header: &Header) -> Result<(), String> {
    let game = header.game.as_str();
    let Some(server) = &header.server else { return Ok(()) };
    let Some(chain) = source.secret(&chain_secret(game)).map_err(|e| e.to_string())? else { return Ok(()) };
    carry_server_key(source, target, server.key, "a sealed game")?;
    carry_chain_and_tokens(source, target, game, &chain)?;
    if let Some(ended) = source.note(&ended_note(game)).map_err(|e| e.to_string())? {
        target.set_note(&ended_note(game), Some(&ended)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A game's server chain (`chain`, read from the source) and its sides'
/// token hashes, into the target; refused if the target keeps another
/// chain for it.
fn carry_chain_and_tokens(
    source: &dyn EventLog,
    target: &dyn EventLog,
    game: &str,
    chain: &[u8],
) -> Result<(), String> {
    if target.set_secret(&chain_secret(game), chain).map_err(|e| e.to_string())? != chain {
        return Err("the target holds another server chain for this game: nothing more was copied".into());
    }
    for (key, hash) in source.notes(&token_note(game, "")).map_err(|e| e.to_string())? {
        target.set_note(&key, Some(&hash)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Makes sure the target's dice servers sign with `key`, the key a game
/// (`what`) was promised: the target keeps it already, or has none and is
/// given the source's (the secret goes from store to store only).
fn carry_server_key(source: &dyn EventLog, target: &dyn EventLog, key: PublicKey, what: &str) -> Result<(), String> {
    let public = |bytes: &[u8]| <[u8; 32]>::try_from(bytes).ok().map(|b| SecretKey::from_bytes(b).public());
    let ours = source.secret("server-key").map_err(|e| e.to_string())?.filter(|k| public(k) == Some(key));
    let theirs = target.secret("server-key").map_err(|e| e.to_string())?;
    match (&ours, &theirs) {
        (_, Some(t)) if public(t) == Some(key) => Ok(()),
        (Some(k), None) => {
            let kept = target.set_secret("server-key", k).map_err(|e| e.to_string())?;
            if public(&kept) != Some(key) {
                return Err("another server key was stored in the target meanwhile: nothing was copied".into());
            }
            Ok(())
        }
        _ => Err(format!(
            "{what} whose server key ({key}) is not the key the target's servers sign with, or not in the source: \
             a server over the target could not go on with it, so nothing was copied (copy it to a store without a server key)"
        )),
    }
}

/// A game a dice server waits on for its sides' shares, as
/// [`carry_waiting`] carried it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CarriedWaiting {
    pub game: String,
    /// Sides that have given their share, of `sides`.
    pub given: usize,
    pub sides: usize,
    /// The target waited on it already, in the same state: nothing written.
    pub present: bool,
}

/// Carries the games a dice server of the source still waits on for their
/// shares into the target (`rollcall store copy`): each one's waiting note
/// (its terms, scenario, sides' keys, the server's commitment and the
/// shares given so far), its chain, its sides' token hashes, and the server
/// key it was promised. A server over the target then takes the shares
/// still to come, with the tokens already handed out, and begins the game.
/// `only`, when not empty, names the games to carry. A game the target
/// holds already, or waits on in another state, is refused, and so is one
/// whose server key the target's servers do not sign with: nothing of it
/// is written (the waiting note, which makes it a game a server knows,
/// goes last).
pub fn carry_waiting(
    source: &dyn EventLog,
    target: &dyn EventLog,
    only: &[String],
) -> Result<Vec<CarriedWaiting>, String> {
    let mut carried = Vec::new();
    for (key, bytes) in source.notes(&waiting_note("")).map_err(|e| e.to_string())? {
        let game = key.strip_prefix(&waiting_note("")).unwrap_or(&key).to_string();
        if !only.is_empty() && !only.contains(&game) {
            continue;
        }
        let fail = |m: &str| format!("game {game:?} (waiting for its shares): {m}");
        let waiting: Waiting =
            serde_json::from_slice(&bytes).map_err(|e| fail(&format!("its note in the source does not read: {e}")))?;
        let mut done = CarriedWaiting {
            game: game.clone(),
            given: waiting.shares.len(),
            sides: waiting.sides.len(),
            present: false,
        };
        match target.note(&key).map_err(|e| e.to_string())? {
            Some(theirs) if theirs == bytes => {
                done.present = true;
                carried.push(done);
                continue;
            }
            Some(_) => return Err(fail("the target waits on it with other shares: nothing of it was copied")),
            None => {}
        }
        if target.head(&game).is_ok() {
            return Err(fail("the target holds a game of that id already: nothing of it was copied"));
        }
        let chain = source
            .secret(&chain_secret(&game))
            .map_err(|e| e.to_string())?
            .ok_or_else(|| fail("its server chain is not in the source: nothing of it was copied"))?;
        carry_server_key(source, target, waiting.server.key, "a game waiting for its shares").map_err(|m| fail(&m))?;
        carry_chain_and_tokens(source, target, &game, &chain).map_err(|m| fail(&m))?;
        if !target.swap_note(&key, None, Some(&bytes)).map_err(|e| e.to_string())?
            && target.note(&key).map_err(|e| e.to_string())?.as_deref() != Some(&bytes[..])
        {
            return Err(fail("another server began waiting on it in the target meanwhile"));
        }
        carried.push(done);
    }
    Ok(carried)
}
