//! Sides' keys and signatures: ed25519 (ed25519-dalek), written as lowercase hex.
//!
//! A side of a play-by-email game signs each turn it sends: a signed
//! checkpoint over (game, previous head, head, side), as in Certificate
//! Transparency. Every message signed here starts with a domain string that
//! names what it is, so a signature over one kind of message can never be
//! replayed as another.
//!
//! This module computes only: making a key needs randomness, which the caller
//! (the CLI) draws and hands in as 32 bytes.

use ed25519_dalek::{Signer, SigningKey, VerifyingKey};

use crate::digest::{hex32, parse_hex32, Digest};

/// A side's public key (32 bytes, a valid ed25519 point).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PublicKey(pub [u8; 32]);

/// A signature (64 bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Signature(pub [u8; 64]);

/// A side's secret key. Never printed: `Debug` shows the public half only.
#[derive(Clone)]
pub struct SecretKey(SigningKey);

/// Why a key, a signature or a key file is not what it should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("expected {expected} lowercase hex digits, found {found:?}")]
    Hex { expected: usize, found: String },
    #[error("{0:?} is not an ed25519 public key")]
    NotAPoint(String),
    #[error(
        "{0:?} is a point of small order, not a usable ed25519 public key: no signature can be checked against it"
    )]
    Weak(String),
    #[error("line {line}: {message}")]
    File { line: usize, message: String },
}

impl PublicKey {
    pub fn to_hex(&self) -> String {
        hex32(&self.0)
    }

    /// Parses 64 lowercase hex digits naming a point of the curve that
    /// can check a signature: a point of small order (the all-zero key, the
    /// identity) is refused, since strict verification accepts no signature
    /// under it and anyone could claim it.
    pub fn from_hex(s: &str) -> Result<PublicKey, KeyError> {
        let bytes = parse_hex32(s).map_err(|_| KeyError::Hex { expected: 64, found: s.to_string() })?;
        let key = VerifyingKey::from_bytes(&bytes).map_err(|_| KeyError::NotAPoint(s.to_string()))?;
        if key.is_weak() {
            return Err(KeyError::Weak(s.to_string()));
        }
        Ok(PublicKey(bytes))
    }

    /// A short name for people: the first 12 hex digits.
    pub fn short(&self) -> String {
        self.to_hex()[..12].to_string()
    }

    /// Whether `signature` is this key's over `message` (strict ed25519
    /// verification: no malleable or small-order signatures).
    pub fn verifies(&self, message: &[u8], signature: &Signature) -> bool {
        let Ok(key) = VerifyingKey::from_bytes(&self.0) else { return false };
        key.verify_strict(message, &ed25519_dalek::Signature::from_bytes(&signature.0)).is_ok()
    }
}

impl std::fmt::Display for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PublicKey({})", self.to_hex())
    }
}

impl serde::Serialize for PublicKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> serde::Deserialize<'de> for PublicKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        PublicKey::from_hex(&s).map_err(serde::de::Error::custom)
    }
}

impl Signature {
    pub fn to_hex(&self) -> String {
        let mut out = String::with_capacity(128);
        for b in self.0 {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }

    pub fn from_hex(s: &str) -> Result<Signature, KeyError> {
        let bad = || KeyError::Hex { expected: 128, found: s.to_string() };
        if s.len() != 128 {
            return Err(bad());
        }
        let first = parse_hex32(&s[..64]).map_err(|_| bad())?;
        let second = parse_hex32(&s[64..]).map_err(|_| bad())?;
        let mut bytes = [0u8; 64];
        bytes[..32].copy_from_slice(&first);
        bytes[32..].copy_from_slice(&second);
        Ok(Signature(bytes))
    }

    /// A short name for people: the first 12 hex digits.
    pub fn short(&self) -> String {
        self.to_hex()[..12].to_string()
    }
}

impl std::fmt::Debug for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Signature({})", self.short())
    }
}

impl serde::Serialize for Signature {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> serde::Deserialize<'de> for Signature {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Signature::from_hex(&s).map_err(serde::de::Error::custom)
    }
}

/// The first line of a secret key file.
pub const KEY_FILE_TITLE: &str = "rollcall secret key v1";

impl SecretKey {
    /// The key whose secret is these 32 random bytes.
    pub fn from_bytes(secret: [u8; 32]) -> SecretKey {
        SecretKey(SigningKey::from_bytes(&secret))
    }

    pub fn public(&self) -> PublicKey {
        PublicKey(self.0.verifying_key().to_bytes())
    }

    /// Signs `message` (deterministic: the same message gives the same signature).
    pub fn sign(&self, message: &[u8]) -> Signature {
        Signature(self.0.sign(message).to_bytes())
    }

    /// The text of a key file: a title, the secret, and the public key for people.
    pub fn to_file_text(&self) -> String {
        format!("{KEY_FILE_TITLE}\nsecret: {}\npublic: {}\n", hex32(self.0.as_bytes()), self.public().to_hex())
    }

    /// Reads a key file written by [`SecretKey::to_file_text`]; the public
    /// line, when present, must be the secret's own.
    pub fn from_file_text(text: &str) -> Result<SecretKey, KeyError> {
        let mut lines = text.lines().map(|l| l.trim_end_matches('\r')).enumerate();
        match lines.next() {
            Some((_, KEY_FILE_TITLE)) => {}
            _ => {
                return Err(KeyError::File {
                    line: 1,
                    message: format!("not a rollcall key file: it starts with {KEY_FILE_TITLE:?}"),
                })
            }
        }
        let mut secret = None;
        let mut public = None;
        for (i, line) in lines {
            let at = |message: String| KeyError::File { line: i + 1, message };
            if line.trim().is_empty() {
                continue;
            }
            match line.split_once(": ") {
                Some(("secret", hex)) => {
                    let bytes =
                        parse_hex32(hex.trim()).map_err(|_| at("secret: expected 64 lowercase hex digits".into()))?;
                    secret = Some(SecretKey::from_bytes(bytes));
                }
                Some(("public", hex)) => public = Some((i + 1, hex.trim().to_string())),
                _ => return Err(at(format!("expected `secret: …` or `public: …`, found {line:?}"))),
            }
        }
        let secret = secret.ok_or(KeyError::File { line: 1, message: "no `secret:` line".into() })?;
        if let Some((line, hex)) = public {
            if hex != secret.public().to_hex() {
                return Err(KeyError::File { line, message: "the public key is not the secret key's own".into() });
            }
        }
        Ok(secret)
    }
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretKey(public {})", self.public().to_hex())
    }
}

/// Appends a length-prefixed string: nothing signed can be read two ways.
fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// What a side signs to close a turn: the game, the head its turn started
/// from (the previous checkpoint, or the header), the head it ends at, and
/// the side.
pub fn checkpoint_message(game: &str, previous: &Digest, head: &Digest, side: &str) -> Vec<u8> {
    let mut out = b"rollcall checkpoint v1\n".to_vec();
    put_str(&mut out, game);
    out.extend_from_slice(previous.as_bytes());
    out.extend_from_slice(head.as_bytes());
    put_str(&mut out, side);
    out
}

/// What a side signs in a handshake message (an invitation or an answer):
/// its kind and the blake3 of its canonical body without the signature.
pub fn handshake_message(kind: &str, body: &Digest) -> Vec<u8> {
    let mut out = b"rollcall handshake v1\n".to_vec();
    put_str(&mut out, kind);
    out.extend_from_slice(body.as_bytes());
    out
}

crate::digest::hex_schema!(PublicKey, "PublicKey", 64, "An ed25519 public key, 64 lower-case hex digits.");
crate::digest::hex_schema!(Signature, "Signature", 128, "An ed25519 signature, 128 lower-case hex digits.");

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> SecretKey {
        SecretKey::from_bytes([n; 32])
    }

    #[test]
    fn a_signature_verifies_under_its_key_only() {
        let msg = checkpoint_message("g", &Digest::of(b"a"), &Digest::of(b"b"), "allies");
        let sig = key(1).sign(&msg);
        assert!(key(1).public().verifies(&msg, &sig));
        assert!(!key(2).public().verifies(&msg, &sig));
        let other = checkpoint_message("g", &Digest::of(b"a"), &Digest::of(b"b"), "axis");
        assert!(!key(1).public().verifies(&other, &sig));
        assert_eq!(Signature::from_hex(&sig.to_hex()).unwrap(), sig);
    }

    #[test]
    fn key_files_round_trip_and_refuse_a_mismatched_public_line() {
        let k = key(7);
        let text = k.to_file_text();
        assert_eq!(SecretKey::from_file_text(&text).unwrap().public(), k.public());
        assert_eq!(SecretKey::from_file_text(&text.replace('\n', "\r\n")).unwrap().public(), k.public());
        let wrong = text.replace(&k.public().to_hex(), &key(8).public().to_hex());
        assert!(matches!(SecretKey::from_file_text(&wrong), Err(KeyError::File { line: 3, .. })));
        assert!(SecretKey::from_file_text("hello").is_err());
        assert!(!format!("{k:?}").contains(&hex32(&[7; 32])), "Debug never shows the secret");
    }

    #[test]
    fn public_keys_must_be_points() {
        assert!(PublicKey::from_hex(&key(3).public().to_hex()).is_ok());
        // y = 2 is not the y of any point of the curve.
        let mut bytes = [0u8; 32];
        bytes[0] = 2;
        assert!(matches!(PublicKey::from_hex(&hex32(&bytes)), Err(KeyError::NotAPoint(_))));
        assert!(PublicKey::from_hex("AB").is_err());
    }
}
