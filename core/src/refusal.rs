//! Kinds of refusal: a stable kebab-case name for each reason the rules
//! refuse a decision, which a test and a `--json` consumer can match.
//!
//! Each ruleset declares its own kinds with [`refusal_kinds!`](crate::refusal_kinds):
//! where a refusal enforces a sentence of the rules, the kind is that rule's
//! name and its doc comment quotes the sentence; where it follows an open
//! point of docs/rules/INTERPRETATIONS.md, it names the open point. The ideas all
//! rulesets share (an unknown piece, a turn not begun, not your turn, a
//! malformed decision) are the [`Shared`] kinds.

use serde::Serialize;

/// A kind of refusal: its stable name and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct RefusalKind {
    /// The stable kebab-case name, e.g. `not-your-turn`.
    pub name: &'static str,
    /// What it means: the rule it enforces (quoted) or the open point it follows.
    #[serde(skip)]
    pub about: &'static str,
}

impl std::fmt::Display for RefusalKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Declares an enum of refusal kinds, each with its kebab-case name and its
/// doc comment (which becomes [`RefusalKind::about`]):
///
/// ```ignore
/// refusal_kinds! {
///     /// The refusals of a ruleset.
///     pub enum Refused {
///         /// "It may not be activated at another time during that turn."
///         ActivatedOnce = "activated-once",
///     }
/// }
/// ```
#[macro_export]
macro_rules! refusal_kinds {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[doc = $doc:literal])+ $variant:ident = $kebab:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl $name {
            /// Every kind, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The kind's stable name and meaning.
            pub const fn kind(self) -> $crate::refusal::RefusalKind {
                match self {
                    $( $name::$variant => $crate::refusal::RefusalKind {
                        name: $kebab,
                        about: $crate::refusal::trim_doc(concat!($($doc),+)),
                    }, )+
                }
            }

            /// Every kind's name and meaning.
            pub fn kinds() -> Vec<$crate::refusal::RefusalKind> {
                Self::ALL.iter().map(|k| k.kind()).collect()
            }
        }

        impl From<$name> for $crate::refusal::RefusalKind {
            fn from(kind: $name) -> Self {
                kind.kind()
            }
        }
    };
}

/// A doc comment as written (`/// text` gives `" text"`), without its
/// leading space and final newline.
#[doc(hidden)]
pub const fn trim_doc(doc: &'static str) -> &'static str {
    let bytes = doc.as_bytes();
    let mut start = 0;
    while start < bytes.len() && bytes[start] == b' ' {
        start += 1;
    }
    let mut end = bytes.len();
    while end > start && (bytes[end - 1] == b'\n' || bytes[end - 1] == b' ') {
        end -= 1;
    }
    let (_, rest) = bytes.split_at(start);
    let (trimmed, _) = rest.split_at(end - start);
    match std::str::from_utf8(trimmed) {
        Ok(s) => s,
        Err(_) => doc,
    }
}

refusal_kinds! {
    /// The refusals every ruleset shares: the idea is the engine's, not one
    /// rules text's.
    pub enum Shared {
        /// The decision does not parse, names no decision of the ruleset, or
        /// has a field out of range: it is bad input, not a rules refusal.
        Malformed = "malformed",
        /// The decision is not the deciding side's to make (the other side's,
        /// or the game awaits the other side).
        NotTheSides = "not-the-sides",
        /// The decision's dice could not be had: a table die the decision
        /// does not roll, or one it rolls and the table does not give.
        Dice = "dice",
        /// The decision names a piece (leader, unit, figure, organisation,
        /// battle group, command group) the game does not have.
        Unknown = "unknown",
        /// The decision names a piece that is out of play: removed,
        /// eliminated, or with no figure left in play.
        OutOfPlay = "out-of-play",
        /// The decision names a side the game does not have.
        NotASide = "not-a-side",
        /// No turn has begun: the first decision of a game begins a turn.
        NoTurnBegun = "no-turn-begun",
        /// A turn begins only when the one before it is over.
        TurnNotOver = "turn-not-over",
        /// The turn is over: nothing more happens in it; begin the next.
        TurnOver = "turn-over",
        /// It is the other side's (or another piece's) turn to act.
        NotYourTurn = "not-your-turn",
        /// Another piece is still being activated: its activation ends first.
        StillActive = "still-active",
        /// Nothing is being activated: this decision belongs to an activation.
        NothingActive = "nothing-active",
        /// The decision names one piece twice where each acts once.
        NamedTwice = "named-twice",
        /// The decision names nothing where it must name at least one piece.
        NothingNamed = "nothing-named",
        /// The piece named is not friendly to the one giving the order.
        NotFriendly = "not-friendly",
        /// The piece named is friendly where an enemy is meant.
        NotAnEnemy = "not-an-enemy",
        /// A referee decision that would change nothing: the piece already
        /// is (or is not) what it says.
        NoChange = "no-change",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_has_its_kebab_name_and_its_doc_comment_as_meaning() {
        let kind = Shared::NoTurnBegun.kind();
        assert_eq!(kind.name, "no-turn-begun");
        assert_eq!(kind.about, "No turn has begun: the first decision of a game begins a turn.");
        let about = Shared::NoChange.kind().about;
        assert!(about.starts_with("A referee decision") && about.ends_with("what it says."), "{about:?}");
    }

    #[test]
    fn shared_kind_names_are_unique_and_kebab_case() {
        let names: Vec<&str> = Shared::kinds().iter().map(|k| k.name).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        assert!(names.iter().all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-')));
    }

    #[test]
    fn every_rulesets_kinds_are_kebab_case_described_and_unique_beside_the_shared_ones() {
        for info in crate::registry::all() {
            let kinds: Vec<RefusalKind> = (info.refusals)().into_iter().chain(Shared::kinds()).collect();
            let mut names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), kinds.len(), "{}: a kind named twice", info.id);
            for k in &kinds {
                let kebab = k.name.split('-').all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase()));
                assert!(kebab, "{}: {:?} is not kebab-case", info.id, k.name);
                assert!(!k.about.is_empty() && !k.about.contains('\n'), "{}: {} says what it means", info.id, k.name);
            }
        }
    }
}
