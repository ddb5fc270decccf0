//! Sealed dice: a server's hash chain, revealed turn by turn.
//!
//! At game creation the server draws a secret `x_N` and builds the chain
//! `x_{k-1} = H(x_k)` down to `x_0`, its commitment, which the header
//! publishes before any player's share exists. The dice of sealed turn `k`
//! come from the game seed (the players' shares) and `x_k`:
//!
//! ```text
//! H(x)            = blake3::derive_key(CHAIN_CONTEXT, x)
//! turn seed of k  = blake3::derive_key(TURN_SEED_CONTEXT, game seed ‖ k (u64 BE) ‖ x_k)
//! ```
//!
//! then the addressed dice of [`crate::dice`] with that seed. When the turn
//! ends, the server appends a `reveal` event carrying `x_k`; anyone checks
//! `H(x_k) = x_{k-1}` and draws every die of the turn again. The server could
//! not choose a die (it fixed `x_0` before the shares existed), and no player
//! could foresee one (nobody knows `x_k` before its turn is over); the
//! server's operator can foresee the dice of turns not yet revealed.
//!
//! Which sealed turn a decision belongs to is fixed by the record — the
//! decisions between two reveals — not by a rule version, so `diff` under
//! other rules still draws the same die for the same address.

use crate::dice::Seed;
use crate::digest::Digest;
use crate::record::Head;
/// What a sealed record writes of the dice server: its commitment in the
/// header, and a `reveal` event's body (the record's own wire types).
pub use crate::record::{RevealBody, ServerCommitment};

/// The `derive_key` context of the chain step. Changing it breaks every sealed record.
pub const CHAIN_CONTEXT: &str = "rollcall 2026-11-30 sealed dice chain v1";
/// The `derive_key` context of a sealed turn's seed.
pub const TURN_SEED_CONTEXT: &str = "rollcall 2026-11-30 sealed turn seed v1";
/// How many sealed turns a chain holds unless the server is told otherwise.
pub const DEFAULT_LENGTH: u64 = 10_000;

/// What a server signs to vouch for a head: (game, seq, head).
pub fn head_message(game: &str, head: &Head) -> Vec<u8> {
    let mut out = b"rollcall server head v1\n".to_vec();
    out.extend_from_slice(&(game.len() as u64).to_be_bytes());
    out.extend_from_slice(game.as_bytes());
    out.extend_from_slice(&head.seq.to_be_bytes());
    out.extend_from_slice(head.hash.as_bytes());
    out
}

/// What a server signs over a turn file: (game, previous head, head).
pub fn turn_message(game: &str, previous: &Head, head: &Head) -> Vec<u8> {
    let mut out = b"rollcall server turn v1\n".to_vec();
    out.extend_from_slice(&(game.len() as u64).to_be_bytes());
    out.extend_from_slice(game.as_bytes());
    out.extend_from_slice(&previous.seq.to_be_bytes());
    out.extend_from_slice(previous.hash.as_bytes());
    out.extend_from_slice(&head.seq.to_be_bytes());
    out.extend_from_slice(head.hash.as_bytes());
    out
}

/// The side name a server's turn files are sent by.
pub const SERVER: &str = "server";

/// One step down the chain: `x_{k-1} = H(x_k)`.
pub fn step(x: &Digest) -> Digest {
    Digest(blake3::derive_key(CHAIN_CONTEXT, x.as_bytes()))
}

/// The seed of sealed turn `k`'s dice.
pub fn turn_seed(game_seed: &Seed, k: u64, x_k: &Digest) -> Seed {
    let mut material = Vec::with_capacity(72);
    material.extend_from_slice(&game_seed.0);
    material.extend_from_slice(&k.to_be_bytes());
    material.extend_from_slice(x_k.as_bytes());
    Seed(blake3::derive_key(TURN_SEED_CONTEXT, &material))
}

/// The server's secret chain. Kept in its store, never sent.
#[derive(Clone, PartialEq, Eq)]
pub struct Chain {
    secret: Digest,
    length: u64,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Chain(length {}, commitment {})", self.length, self.commitment().short())
    }
}

impl Chain {
    /// The chain whose top `x_N` is `secret` (32 random bytes, drawn by the caller).
    pub fn new(secret: [u8; 32], length: u64) -> Chain {
        Chain { secret: Digest(secret), length }
    }

    pub fn length(&self) -> u64 {
        self.length
    }

    /// `x_k`, for `k` in `0..=length` (`x_0` is the commitment).
    pub fn value(&self, k: u64) -> Option<Digest> {
        if k > self.length {
            return None;
        }
        let mut x = self.secret;
        for _ in k..self.length {
            x = step(&x);
        }
        Some(x)
    }

    pub fn commitment(&self) -> Digest {
        self.value(0).expect("x_0 exists")
    }

    /// The secret as stored: `x_N` and the length.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.secret.as_bytes().to_vec();
        out.extend_from_slice(&self.length.to_be_bytes());
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Option<Chain> {
        if bytes.len() != 40 {
            return None;
        }
        let secret = Digest(bytes[..32].try_into().ok()?);
        let length = u64::from_be_bytes(bytes[32..].try_into().ok()?);
        Some(Chain { secret, length })
    }
}

/// Where a sealed game's chain stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedTurn {
    /// The sealed turn in play, from 1.
    pub index: u64,
    /// `x_{index-1}`: the commitment, or the last value revealed.
    pub previous: Digest,
    /// The first decision of the sealed turn in play.
    pub first: u64,
    /// `x_index`, when this game holds it (the server does; a verifier does not).
    pub value: Option<Digest>,
    /// How many turns the chain holds.
    pub length: u64,
}

impl SealedTurn {
    pub fn new(server: &ServerCommitment) -> SealedTurn {
        SealedTurn { index: 1, previous: server.commitment, first: 1, value: None, length: server.length }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_steps_down_to_its_commitment() {
        let chain = Chain::new([5; 32], 20);
        for k in 1..=20 {
            assert_eq!(step(&chain.value(k).unwrap()), chain.value(k - 1).unwrap());
        }
        assert_eq!(chain.value(21), None);
        assert_eq!(Chain::from_bytes(&chain.to_bytes()), Some(chain.clone()));
    }

    /// Pins the derivations: a change here changes every sealed record. The
    /// values were computed independently with Python's blake3.
    #[test]
    fn known_answers() {
        let chain = Chain::new([5; 32], 3);
        assert_eq!(chain.commitment().to_string(), KNOWN_COMMITMENT);
        let seed = turn_seed(&Seed([1; 32]), 2, &chain.value(2).unwrap());
        assert_eq!(crate::digest::hex32(&seed.0), KNOWN_TURN_SEED);
    }

    const KNOWN_COMMITMENT: &str = "acafcdaebb960915f765ad439f55615e7e4abe0bbd758f199cad34a783a3b41b";
    const KNOWN_TURN_SEED: &str = "76946a21a62657081b3f6c0dbb867c05485c3c2b908c5ba41b93d1d6e4abd91a";
}
