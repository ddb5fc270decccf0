//! The built-in rulesets, above the kernel: the registry of the four
//! ([`builtin`]), which the CLI, the store and the tests hand the kernel
//! wherever it opens a game or reads a header, and look-ups by id among
//! them (`leader-activation`, `combat-hq@multi-bg`,
//! `leader-activation@1+natural-6-rallies`). The kernel
//! ([`crate::ruleset::Registry`]) knows the shape of a ruleset, not which
//! rulesets there are.

use crate::rules::{RuleVersion, RulesError, VersionSpec};
use crate::ruleset::{Registry, RulesetInfo};

static BUILTIN: Registry = Registry::new(crate::rulesets::BUILTIN);

/// The built-in rulesets, to hand the kernel.
pub fn builtin() -> &'static Registry {
    &BUILTIN
}

/// Every built-in ruleset.
pub fn all() -> Vec<RulesetInfo> {
    builtin().all().to_vec()
}

/// Finds a built-in ruleset by id.
pub fn find(id: &str) -> Result<RulesetInfo, RulesError> {
    builtin().find(id)
}

/// Finds a version by `ruleset@version`, or a ruleset's default by `ruleset`.
pub fn version(id: &str) -> Result<VersionSpec, RulesError> {
    builtin().version(id)
}

/// A rule version written inline ([`crate::rules::inline_version`]) of a
/// built-in ruleset.
pub fn inline_version(arg: &str) -> Result<(RuleVersion, VersionSpec), RulesError> {
    crate::rules::inline_version(arg, builtin())
}

/// A rule version relative to another ([`crate::rules::relative_version`])
/// of a built-in ruleset.
pub fn relative_version(base: &RuleVersion, overrides: &str) -> Result<RuleVersion, RulesError> {
    crate::rules::relative_version(base, overrides, builtin())
}
