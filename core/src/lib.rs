//! rollcall-core: the pure heart of rollcall.
//!
//! Events, addressed dice, seeds and commitments, the hash-chained record,
//! rule versions, the rulesets (each a decider: `initial`, `decide`,
//! `evolve`), and replay and verify as functions over event iterators.
//!
//! **Invariant:** this crate does no I/O: no files, no clocks, no thread-local
//! randomness. Callers read and write; this crate computes.

pub mod bounds;
pub mod canon;
pub mod chain;
pub mod dice;
pub mod diff;
pub mod digest;
pub mod fault;
pub mod game;
pub mod geometry;
pub mod golden;
pub mod impact;
pub mod keys;
pub mod locate;
pub mod log;
pub mod moves;
pub mod name;
pub mod pbem;
pub mod proposal;
pub mod record;
pub mod refusal;
pub mod registry;
pub mod rules;
pub mod ruleset;
pub mod rulesets;
pub mod schema;
pub mod script;
pub mod sealed;
pub mod seed;
pub mod sim;
pub mod strict;
#[cfg(test)]
pub(crate) mod testing;
pub mod text;
pub mod untagged;
pub mod words;

pub use dice::{Dice, Die, Roll, Seed, TableDice};
pub use digest::Digest;
pub use game::{verify, Game, Verified, VerifyFailure};
pub use record::{Event, Header, Kind, SeedMode};
pub use rules::RuleVersion;
pub use ruleset::{Refusal, Ruleset, ScenarioError, Violation};
