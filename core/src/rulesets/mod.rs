//! The built-in rulesets. Each is a module with its own scenario, state,
//! decisions and facts, and one `Ruleset` implementation; adding a ruleset is
//! a module here and a line in [`BUILTIN`].

pub mod combat_hq;
pub mod formation_activation;
pub mod leader_activation;
pub mod phoenix_command;

use crate::ruleset::{info, RulesetInfo, Violation};

/// Every built-in ruleset, in the order they are listed: what
/// [`crate::registry::builtin`] looks ids up in.
pub const BUILTIN: &[RulesetInfo] = &[
    info::<leader_activation::LeaderActivation>(),
    info::<phoenix_command::PhoenixCommand>(),
    info::<combat_hq::CombatHq>(),
    info::<formation_activation::FormationActivation>(),
];

/// The turn in progress, for a decision that needs one: every ruleset's state
/// holds `turn: Option<Turn>`, `None` until the first turn begins.
pub(crate) fn begun<T>(turn: &Option<T>) -> Result<&T, Violation> {
    match turn {
        Some(t) => Ok(t),
        None => crate::refuse!(crate::refusal::Shared::NoTurnBegun, "no turn has begun: begin a turn first"),
    }
}
