//! The built-in rulesets. Each is a module with its own scenario, state,
//! decisions and facts, and one `Ruleset` implementation; adding a ruleset is
//! a module here and a line in [`registry`].

pub mod combat_hq;
pub mod formation_activation;
pub mod leader_activation;
pub mod phoenix_command;

use crate::ruleset::{info, RulesetInfo};

/// Every built-in ruleset, the registry the engine looks ids up in.
pub fn registry() -> Vec<RulesetInfo> {
    vec![
        info::<leader_activation::LeaderActivation>(),
        info::<phoenix_command::PhoenixCommand>(),
        info::<combat_hq::CombatHq>(),
        info::<formation_activation::FormationActivation>(),
    ]
}
