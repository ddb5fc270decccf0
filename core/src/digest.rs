//! A blake3 digest, written as 64 lowercase hex digits.
//!
//! Parsing is strict: upper-case hex is refused, so that every record has one
//! spelling and a one-byte edit of a hash can never go unnoticed.

use std::fmt;
use std::str::FromStr;

/// A 32-byte blake3 output: a chain link, a header hash, a rules hash.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(*blake3::hash(bytes).as_bytes())
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 64 lowercase hex digits, as bytes: every record line written or
    /// put back together from a store spells a digest (a `{:02x}` per byte
    /// was a seventh of verifying a stored game).
    #[inline]
    pub fn hex(&self) -> [u8; 64] {
        // Both digits of a byte at once, from a table of the 256 pairs: a
        // reader ahead spells every line's link to compare it with the
        // line's own digits.
        const PAIRS: [[u8; 2]; 256] = {
            let mut pairs = [[0u8; 2]; 256];
            let mut b = 0;
            while b < 256 {
                pairs[b] = [DIGITS[b >> 4], DIGITS[b & 0x0f]];
                b += 1;
            }
            pairs
        };
        let mut out = [0u8; 64];
        for i in 0..32 {
            let [high, low] = PAIRS[usize::from(self.0[i])];
            out[2 * i] = high;
            out[2 * i + 1] = low;
        }
        out
    }

    /// Whether `hex` is this digest's 64 lowercase hex digits.
    #[inline]
    pub fn is_hex(&self, hex: &[u8]) -> bool {
        self.hex()[..] == *hex
    }

    /// The first `n` hex digits, for narration.
    pub fn short(&self) -> String {
        self.to_string()[..12].to_string()
    }
}

/// The hex digits, in order.
const DIGITS: &[u8; 16] = b"0123456789abcdef";

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(std::str::from_utf8(&self.hex()).expect("hex digits are ASCII"))
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

/// Why a string is not a digest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected 64 lowercase hex digits, found {0:?}")]
pub struct BadHex(pub String);

/// Parses exactly 64 lowercase hex digits into 32 bytes.
pub fn parse_hex32(s: &str) -> Result<[u8; 32], BadHex> {
    let bytes = s.as_bytes();
    if bytes.len() != 64 {
        return Err(BadHex(s.to_string()));
    }
    // Every record line holds a digest: a table, not a match per digit.
    const NIBBLE: [u8; 256] = {
        let mut table = [0xff; 256];
        let mut i = 0;
        while i < 10 {
            table[b'0' as usize + i] = i as u8;
            i += 1;
        }
        let mut i = 0;
        while i < 6 {
            table[b'a' as usize + i] = 10 + i as u8;
            i += 1;
        }
        table
    };
    let mut out = [0u8; 32];
    let mut bad = 0u8;
    for (i, byte) in out.iter_mut().enumerate() {
        let (h, l) = (NIBBLE[usize::from(bytes[2 * i])], NIBBLE[usize::from(bytes[2 * i + 1])]);
        bad |= h | l;
        *byte = h << 4 | (l & 0x0f);
    }
    if bad & 0xf0 != 0 {
        return Err(BadHex(s.to_string()));
    }
    Ok(out)
}

/// Writes 32 bytes as 64 lowercase hex digits.
pub fn hex32(bytes: &[u8; 32]) -> String {
    Digest(*bytes).to_string()
}

impl FromStr for Digest {
    type Err = BadHex;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_hex32(s).map(Digest)
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Read where the text is (every record line holds one): no copy.
        struct Hex;
        impl serde::de::Visitor<'_> for Hex {
            type Value = Digest;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Digest, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(Hex)
    }
}

/// `impl JsonSchema` for a type serde writes as a lower-case hex string.
macro_rules! hex_schema {
    ($type:ty, $name:literal, $digits:literal, $what:literal) => {
        impl schemars::JsonSchema for $type {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "description": $what,
                    "type": "string",
                    "pattern": concat!("^[0-9a-f]{", $digits, "}$")
                })
            }
        }
    };
}
pub(crate) use hex_schema;

hex_schema!(Digest, "Digest", 64, "A blake3 hash, 64 lower-case hex digits.");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_hex_takes_its_own_digits_only() {
        let d = Digest::of(b"rollcall");
        let s = d.to_string();
        assert!(d.is_hex(s.as_bytes()));
        assert!(!d.is_hex(s.to_uppercase().as_bytes()));
        assert!(!d.is_hex(&s.as_bytes()[..63]));
        for i in 0..64 {
            let mut edited = s.clone().into_bytes();
            edited[i] = if edited[i] == b'0' { b'1' } else { b'0' };
            assert!(!d.is_hex(&edited), "digit {i}");
        }
    }

    /// The digits are every byte's `{:02x}`, for every byte value.
    #[test]
    fn writes_each_byte_as_two_lowercase_hex_digits() {
        for first in (0..=255u8).step_by(32) {
            let d = Digest(std::array::from_fn(|i| first.wrapping_add(i as u8)));
            let expected: String = d.0.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(d.to_string(), expected);
        }
    }

    #[test]
    fn round_trips_and_refuses_upper_case() {
        let d = Digest::of(b"rollcall");
        let s = d.to_string();
        assert_eq!(s.len(), 64);
        assert_eq!(s.parse::<Digest>().unwrap(), d);
        assert!(s.to_uppercase().parse::<Digest>().is_err() || s == s.to_uppercase());
        assert!("ab".parse::<Digest>().is_err());
        let upper = "A".repeat(64);
        assert!(upper.parse::<Digest>().is_err());
    }

    #[test]
    fn every_byte_that_is_not_a_lowercase_hex_digit_is_refused_at_every_place() {
        let good = Digest::of(b"rollcall").to_string();
        for place in 0..64 {
            for c in 0..=255u8 {
                let mut bytes = good.clone().into_bytes();
                bytes[place] = c;
                let Ok(text) = String::from_utf8(bytes) else { continue };
                let hex = c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
                assert_eq!(parse_hex32(&text).is_ok(), hex, "{c:#x} at {place}");
            }
        }
    }
}
