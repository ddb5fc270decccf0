//! The registry of built-in rulesets, above the kernel: what looks a ruleset
//! or a rule version up by id (`leader-activation`, `combat-hq@multi-bg`,
//! `leader-activation@1+natural-6-rallies`). The kernel ([`crate::ruleset`])
//! knows the shape of a ruleset, not which rulesets there are.

use serde_json::Value;

use crate::rules::{RuleVersion, RulesError, VersionSpec};
use crate::ruleset::RulesetInfo;

/// Every built-in ruleset.
pub fn all() -> Vec<RulesetInfo> {
    crate::rulesets::registry()
}

/// Finds a ruleset by id.
pub fn find(id: &str) -> Result<RulesetInfo, RulesError> {
    all().into_iter().find(|r| r.id == id).ok_or_else(|| {
        RulesError::UnknownRuleset(id.to_string(), all().iter().map(|r| r.id).collect::<Vec<_>>().join(", "))
    })
}

/// Finds a version by `ruleset@version`, or a ruleset's default by `ruleset`.
pub fn version(id: &str) -> Result<VersionSpec, RulesError> {
    let (ruleset, version) = match id.split_once('@') {
        Some((r, v)) => (r, Some(v)),
        None => (id, None),
    };
    let info = find(ruleset)?;
    let versions = (info.versions)();
    match version {
        None => Ok(versions.into_iter().next().expect("a ruleset has a version")),
        Some(v) => {
            let known = versions.iter().map(|s| s.id()).collect::<Vec<_>>().join(", ");
            versions.into_iter().find(|s| s.version == v).ok_or(RulesError::UnknownVersion {
                ruleset: ruleset.to_string(),
                version: v.to_string(),
                known,
            })
        }
    }
}

type Overrides = std::collections::BTreeMap<String, Value>;

/// `+name`, `+name=true|false|on|off`, `+name=N`: options and constants to set.
fn parse_overrides<'a>(
    spec: &VersionSpec,
    parts: impl Iterator<Item = &'a str>,
) -> Result<(Overrides, Overrides), RulesError> {
    let mut options = Overrides::new();
    let mut constants = Overrides::new();
    for part in parts.filter(|p| !p.is_empty()) {
        let (name, value) = part.split_once('=').unwrap_or((part, "true"));
        let Some(setting) = spec.setting(name) else {
            return Err(RulesError::Unknown {
                field: name.to_string(),
                version: spec.id(),
                known: spec.settings.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
            });
        };
        let parsed: Value = match value {
            "true" | "on" => Value::Bool(true),
            "false" | "off" => Value::Bool(false),
            n => n.parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::String(n.to_string())),
        };
        match setting.kind {
            crate::rules::SettingKind::Option => options.insert(name.to_string(), parsed),
            crate::rules::SettingKind::Constant => constants.insert(name.to_string(), parsed),
        };
    }
    Ok((options, constants))
}

/// A rule version written inline: `ruleset[@version][+option][+name=value]…`,
/// e.g. `leader-activation@1+natural-6-rallies+rally-target=4`. A bare option
/// name turns it on; `name=true|false` sets an option, `name=N` a constant.
pub fn inline_version(arg: &str) -> Result<(RuleVersion, VersionSpec), RulesError> {
    let mut parts = arg.split('+');
    let spec = version(parts.next().unwrap_or_default())?;
    let (options, constants) = parse_overrides(&spec, parts)?;
    let mut resolved = spec.resolve(&options, &constants, "")?;
    if arg.contains('+') {
        resolved.name = Some(arg.to_string());
    }
    Ok((resolved, spec))
}

/// A rule version relative to another: `+option`, `+option=false`,
/// `+constant=N` applied on top of `base` — for `diff --b +option`, "the
/// record's own rules with this one reading changed".
pub fn relative_version(base: &RuleVersion, overrides: &str) -> Result<RuleVersion, RulesError> {
    let spec = version(&base.version)?;
    let mut options: Overrides = base.options.iter().map(|(k, v)| (k.clone(), Value::Bool(*v))).collect();
    let mut constants: Overrides = base.constants.iter().map(|(k, v)| (k.clone(), Value::from(*v))).collect();
    let (new_options, new_constants) = parse_overrides(&spec, overrides.split('+'))?;
    options.extend(new_options);
    constants.extend(new_constants);
    let mut resolved = spec.resolve(&options, &constants, "")?;
    resolved.name = Some(format!("{}{overrides}", base.label()));
    Ok(resolved)
}
