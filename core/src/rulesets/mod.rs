//! The built-in rulesets. Each is a module with its own scenario, state,
//! decisions and facts, and one `Ruleset` implementation; adding a ruleset is
//! a module here and a line in [`registry`].

pub mod combat_hq;
pub mod formation_activation;
pub mod leader_activation;
pub mod phoenix_command;

use crate::ruleset::{info, RulesetInfo, Violation};

/// Every built-in ruleset, the registry the engine looks ids up in.
pub fn registry() -> Vec<RulesetInfo> {
    vec![
        info::<leader_activation::LeaderActivation>(),
        info::<phoenix_command::PhoenixCommand>(),
        info::<combat_hq::CombatHq>(),
        info::<formation_activation::FormationActivation>(),
    ]
}

/// The turn in progress, for a decision that needs one: every ruleset's state
/// holds `turn: Option<Turn>`, `None` until the first turn begins.
pub(crate) fn begun<T>(turn: &Option<T>) -> Result<&T, Violation> {
    match turn {
        Some(t) => Ok(t),
        None => crate::refuse!(crate::refusal::Shared::NoTurnBegun, "no turn has begun: begin a turn first"),
    }
}
