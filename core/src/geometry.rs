//! Positions and exact distances on the table.
//!
//! Coordinates are integers in whatever unit a ruleset's scenario uses
//! (millimetres for leader activation, tenths of an inch for Phoenix Command),
//! so no float ever reaches a record or a range check: "within range" is
//! `dx² + dy² ≤ range²`, exactly.

use serde::{Deserialize, Serialize};

/// A point on the table, `[x, y]` in the scenario's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(from = "[i64; 2]", into = "[i64; 2]")]
pub struct Point {
    pub x: i64,
    pub y: i64,
}

impl From<[i64; 2]> for Point {
    fn from([x, y]: [i64; 2]) -> Self {
        Point { x, y }
    }
}

impl From<Point> for [i64; 2] {
    fn from(p: Point) -> Self {
        [p.x, p.y]
    }
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

impl Point {
    fn distance_squared(self, other: Point) -> u128 {
        let dx = (i128::from(self.x) - i128::from(other.x)).unsigned_abs();
        let dy = (i128::from(self.y) - i128::from(other.y)).unsigned_abs();
        dx * dx + dy * dy
    }

    /// Whether `other` is at most `range` away (inclusive), exactly.
    pub fn within(self, other: Point, range: u64) -> bool {
        self.distance_squared(other) <= u128::from(range) * u128::from(range)
    }

    /// The distance rounded up to a whole unit: the smallest range that
    /// would reach `other`, so `within(other, distance_ceil(other))` holds.
    pub fn distance_ceil(self, other: Point) -> u64 {
        let d2 = self.distance_squared(other);
        let root = d2.isqrt();
        let root = if root * root == d2 { root } else { root + 1 };
        u64::try_from(root).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_is_inclusive_and_exact() {
        let a = Point { x: 0, y: 0 };
        assert!(a.within(Point { x: 100, y: 0 }, 100));
        assert!(!a.within(Point { x: 101, y: 0 }, 100));
        assert!(a.within(Point { x: 60, y: 80 }, 100));
        assert!(!a.within(Point { x: 60, y: 81 }, 100));
        assert_eq!(a.distance_ceil(Point { x: 60, y: 81 }), 101);
        assert_eq!(a.distance_ceil(Point { x: 60, y: 80 }), 100);
    }
}
