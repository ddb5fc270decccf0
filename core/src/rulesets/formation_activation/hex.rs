//! The map: hexes by their printed number, and the hex distance between them.
//!
//! **Coordinate system.** A hex is named as it is printed on a hex-and-counter
//! map: four digits `CCRR`, the column `CC` then the row `RR` (`"0304"` is
//! column 3, row 4). Hexes are flat-topped and stand in vertical columns;
//! columns are numbered left to right, rows top to bottom, and every
//! **even-numbered column sits half a hex lower** than the odd-numbered
//! columns beside it (so `0201` touches `0101` on its lower right, and `0200`
//! touches it on its upper right).
//!
//! For distances a hex is converted to axial (cube) coordinates:
//! `q = column`, `r = row − ⌊(column − 1) / 2⌋`, `s = −q − r`, and the hex
//! distance is `(|Δq| + |Δr| + |Δs|) / 2`: the number of hex sides a path
//! crosses. Integers only; nothing is rounded.
//!
//! A **stack** is the units in one hex.

use serde::{Deserialize, Serialize};

/// A hex of the map, by its printed number `CCRR` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Hex {
    /// `CC`, numbered left to right.
    pub column: u8,
    /// `RR`, numbered top to bottom.
    pub row: u8,
}

impl Hex {
    pub const fn new(column: u8, row: u8) -> Hex {
        Hex { column, row }
    }

    /// Axial coordinates `(q, r)`; `s = −q − r`.
    fn axial(self) -> (i32, i32) {
        let q = i32::from(self.column);
        let r = i32::from(self.row) - (q - 1).div_euclid(2);
        (q, r)
    }

    /// The hex distance: how many hex sides the shortest path crosses.
    pub fn distance(self, other: Hex) -> u32 {
        let (q1, r1) = self.axial();
        let (q2, r2) = other.axial();
        let (dq, dr) = (q1 - q2, r1 - r2);
        let ds = -dq - dr;
        (dq.unsigned_abs() + dr.unsigned_abs() + ds.unsigned_abs()) / 2
    }
}

impl std::fmt::Display for Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:02}{:02}", self.column, self.row)
    }
}

impl TryFrom<String> for Hex {
    type Error = String;

    fn try_from(text: String) -> Result<Hex, String> {
        let digits = text.as_bytes();
        if digits.len() != 4 || !digits.iter().all(u8::is_ascii_digit) {
            return Err(format!(
                "{text:?} is not a hex number: write four digits CCRR, column then row (e.g. \"0304\")"
            ));
        }
        let two = |i: usize| (digits[i] - b'0') * 10 + (digits[i + 1] - b'0');
        Ok(Hex::new(two(0), two(2)))
    }
}

impl From<Hex> for String {
    fn from(hex: Hex) -> String {
        hex.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(text: &str) -> Hex {
        Hex::try_from(text.to_string()).unwrap()
    }

    #[test]
    fn a_hex_reads_and_prints_as_its_map_number() {
        assert_eq!(hex("0304"), Hex::new(3, 4));
        assert_eq!(Hex::new(3, 4).to_string(), "0304");
        assert_eq!(serde_json::to_value(Hex::new(12, 7)).unwrap(), serde_json::json!("1207"));
        assert_eq!(
            Hex::try_from("304".to_string()).unwrap_err(),
            "\"304\" is not a hex number: write four digits CCRR, column then row (e.g. \"0304\")"
        );
        assert!(Hex::try_from("03a4".to_string()).is_err());
    }

    /// Odd columns stand high, even columns half a hex lower: the six
    /// neighbours differ by column parity.
    #[test]
    fn each_hex_has_six_neighbours_at_distance_one() {
        // Odd column 03: up, down, and the hexes of rows 03 and 04 in 02 and 04.
        let odd = hex("0304");
        let odd_neighbours = ["0303", "0305", "0203", "0204", "0403", "0404"];
        // Even column 04: up, down, and rows 04 and 05 in 03 and 05.
        let even = hex("0404");
        let even_neighbours = ["0403", "0405", "0304", "0305", "0504", "0505"];
        for (centre, neighbours) in [(odd, odd_neighbours), (even, even_neighbours)] {
            let mut found = Vec::new();
            for column in 0..=8 {
                for row in 0..=8 {
                    let h = Hex::new(column, row);
                    if centre.distance(h) == 1 {
                        found.push(h.to_string());
                    }
                }
            }
            let mut expected: Vec<String> = neighbours.iter().map(|s| s.to_string()).collect();
            expected.sort();
            found.sort();
            assert_eq!(found, expected, "neighbours of {centre}");
            assert_eq!(centre.distance(centre), 0);
        }
    }

    #[test]
    fn distances_count_hex_sides() {
        // Straight down a column.
        assert_eq!(hex("0301").distance(hex("0306")), 5);
        // Across columns: each column step also covers half a row.
        assert_eq!(hex("0101").distance(hex("0501")), 4);
        assert_eq!(hex("0101").distance(hex("0503")), 4);
        assert_eq!(hex("0101").distance(hex("0504")), 5);
        assert_eq!(hex("0101").distance(hex("0500")), 4);
        assert_eq!(hex("0101").distance(hex("0505")), 6);
        // Symmetric, and column 00 works like any other even column.
        assert_eq!(hex("0001").distance(hex("0101")), 1);
        assert_eq!(hex("0000").distance(hex("0101")), 1);
        assert_eq!(hex("0812").distance(hex("0205")), hex("0205").distance(hex("0812")));
    }
}
