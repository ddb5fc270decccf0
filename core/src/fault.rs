//! Kinds of verification fault: a stable kebab-case name for each reason a
//! header, an event or a record does not verify, which a test and a `--json`
//! consumer can match. The message beside the kind says what was found, in
//! words; the kind says which check found it.

use serde::Serialize;

/// Declares the fault kinds, each with its kebab-case name and its doc
/// comment (what it means, returned by [`Fault::about`]).
macro_rules! faults {
    ( $( $(#[doc = $doc:literal])+ $variant:ident = $kebab:literal, )+ ) => {
        /// Which check a header, an event or a record failed.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Fault {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl Fault {
            /// Every kind, in declaration order.
            pub const ALL: &'static [Fault] = &[$(Fault::$variant),+];

            /// The kind's stable kebab-case name.
            pub const fn name(self) -> &'static str {
                match self {
                    $( Fault::$variant => $kebab, )+
                }
            }

            /// What the kind means.
            pub const fn about(self) -> &'static str {
                match self {
                    $( Fault::$variant => crate::refusal::trim_doc(concat!($($doc),+)), )+
                }
            }
        }
    };
}

faults! {
    /// A rules constant or option in the header is out of its range.
    HeaderRulesRange = "header-rules-range",
    /// The header's rules hash does not match the settings it lists: the
    /// rules or options were changed.
    HeaderRulesHash = "header-rules-hash",
    /// A party's share does not match its commitment in the header.
    CommitmentMismatch = "commitment-mismatch",
    /// The header does not open a game: an unknown ruleset, a share
    /// missing, or sides' keys that are not the scenario's sides.
    Header = "header",
    /// The header's scenario does not load under its rules.
    Scenario = "scenario",
    /// A line does not read as an event of the record.
    Unreadable = "unreadable",
    /// An event's body does not read as its kind's (or a fact as the ruleset's).
    MalformedEvent = "malformed-event",
    /// An event's seq is not the next one: events are missing, inserted or moved.
    SeqOutOfOrder = "seq-out-of-order",
    /// An event's hash does not chain from the one before it (or the header).
    LinkBroken = "link-broken",
    /// A decision's number is not the next one: a decision was dropped,
    /// repeated or moved.
    DecisionNumber = "decision-number",
    /// The rules refuse a recorded decision on the state before it.
    DecisionRefused = "decision-refused",
    /// A recorded die's value is not the one the seed (or the table's dice,
    /// or the sealed turn's revealed value) gives.
    DieDiffers = "die-differs",
    /// A recorded roll is not the die, label or index the rules roll.
    RollDiffers = "roll-differs",
    /// A recorded fact is not the one the rules decide.
    FactDiffers = "fact-differs",
    /// A different kind of event stands where the rules expect one: an
    /// event was dropped, added or moved.
    EventOutOfPlace = "event-out-of-place",
    /// An event after a decision is over where a decision should be (an
    /// added roll is a re-roll).
    ExtraEvent = "extra-event",
    /// The record ends in the middle of a decision.
    Truncated = "truncated",
    /// The record ends at a head other than the one expected.
    HeadDiffers = "head-differs",
    /// A reveal in a game without sealed dice.
    RevealUnsealed = "reveal-unsealed",
    /// A reveal of a sealed turn other than the one in play.
    RevealTurn = "reveal-turn",
    /// A revealed value that does not hash to the one before it: the server
    /// changed its dice.
    RevealValue = "reveal-value",
    /// A reveal naming decisions other than those its turn covered.
    RevealDecisions = "reveal-decisions",
    /// A checkpoint in a game whose header lists no sides' keys.
    CheckpointUnkeyed = "checkpoint-unkeyed",
    /// A checkpoint signed by a name that is not a side of the game.
    CheckpointSide = "checkpoint-side",
    /// A checkpoint's signature does not verify under its side's key.
    SignatureInvalid = "signature-invalid",
    /// A checkpoint signs a turn with decisions another side made.
    CheckpointOtherSide = "checkpoint-other-side",
}

impl Fault {
    /// This fault, explained by `message`.
    pub fn because(self, message: impl Into<String>) -> Faulted {
        Faulted { kind: self, message: message.into() }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Fault {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A fault and the message that says what was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Faulted {
    pub kind: Fault,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fault_has_a_distinct_kebab_case_name_and_says_what_it_means() {
        let mut names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
        for name in &names {
            assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{name}");
            assert!(!name.starts_with('-') && !name.ends_with('-'), "{name}");
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Fault::ALL.len());
        for fault in Fault::ALL {
            assert!(fault.about().ends_with('.') && !fault.about().starts_with(' '), "{fault}: {}", fault.about());
        }
    }

    #[test]
    fn a_fault_serialises_as_its_name() {
        assert_eq!(serde_json::to_value(Fault::LinkBroken).unwrap(), "link-broken");
    }
}
