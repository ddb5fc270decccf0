//! Rule versions: a ruleset at a version, with every option and constant set.
//!
//! An **option** settles one open point of `docs/rules/INTERPRETATIONS.md` (a flag:
//! on is the other reading). A **constant** is a number a playing group might
//! change (a command range, a rally target). A version declares every setting
//! with its default and the rules sentence it settles; a [`RuleVersion`] is a
//! version with all of them resolved. A house-rules file is a rule version
//! too: a base version, overrides, and a name.
//!
//! The canonical form of a resolved rule version (version id, every option,
//! every constant) is hashed; the record header carries that hash, and
//! `verify` refuses a record whose settings do not hash to it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::digest::Digest;

/// Whether a setting is an option (a reading of the text) or a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingKind {
    Option,
    Constant,
}

/// A setting's value: a flag for options, an integer for constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SettingValue {
    Flag(bool),
    Integer(i64),
}

impl std::fmt::Display for SettingValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingValue::Flag(b) => write!(f, "{}", if *b { "on" } else { "off" }),
            SettingValue::Integer(i) => write!(f, "{i}"),
        }
    }
}

/// One setting a version declares.
#[derive(Debug, Clone)]
pub struct Setting {
    pub name: &'static str,
    pub kind: SettingKind,
    pub default: SettingValue,
    /// The open point it settles (`L2`, `P1`, …), if any.
    pub point: Option<&'static str>,
    /// The rules sentence it settles, quoted.
    pub settles: &'static str,
    /// What turning it on (or changing it) does.
    pub help: &'static str,
    /// A constant's range, inclusive: the values the rules make sense of and
    /// their arithmetic is checked for. Every constant declares one.
    pub range: Option<(i64, i64)>,
}

impl Setting {
    pub const fn option(name: &'static str, point: &'static str, settles: &'static str, help: &'static str) -> Setting {
        Setting {
            name,
            kind: SettingKind::Option,
            default: SettingValue::Flag(false),
            point: Some(point),
            settles,
            help,
            range: None,
        }
    }

    pub const fn constant(name: &'static str, default: i64, settles: &'static str, help: &'static str) -> Setting {
        Setting {
            name,
            kind: SettingKind::Constant,
            default: SettingValue::Integer(default),
            point: None,
            settles,
            help,
            range: None,
        }
    }

    /// The range a constant's value must lie in, inclusive.
    pub const fn range(mut self, min: i64, max: i64) -> Setting {
        self.range = Some((min, max));
        self
    }

    /// Whether `value` lies in this constant's range.
    pub fn admits(&self, value: i64) -> bool {
        match self.range {
            Some((min, max)) => (min..=max).contains(&value),
            None => true,
        }
    }
}

/// A version of a ruleset: its id and every setting it has.
#[derive(Debug, Clone)]
pub struct VersionSpec {
    pub ruleset: &'static str,
    pub version: &'static str,
    pub summary: &'static str,
    /// Settings whose default differs in this version from the ruleset's first.
    pub settings: Vec<Setting>,
}

impl VersionSpec {
    /// `ruleset@version`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.ruleset, self.version)
    }

    pub fn setting(&self, name: &str) -> Option<&Setting> {
        self.settings.iter().find(|s| s.name == name)
    }

    /// The version with every setting at its default.
    pub fn defaults(&self) -> RuleVersion {
        let mut options = BTreeMap::new();
        let mut constants = BTreeMap::new();
        for s in &self.settings {
            match (s.kind, s.default) {
                (SettingKind::Option, SettingValue::Flag(b)) => {
                    options.insert(s.name.to_string(), b);
                }
                (SettingKind::Constant, SettingValue::Integer(i)) => {
                    constants.insert(s.name.to_string(), i);
                }
                _ => unreachable!("setting {} has a default of the wrong kind", s.name),
            }
        }
        RuleVersion { version: self.id(), name: None, options, constants }
    }

    /// Applies overrides to the defaults, refusing unknown names and values
    /// of the wrong type. `where_` prefixes field names in errors.
    pub fn resolve(
        &self,
        options: &BTreeMap<String, Value>,
        constants: &BTreeMap<String, Value>,
        where_: &str,
    ) -> Result<RuleVersion, RulesError> {
        let mut resolved = self.defaults();
        for (name, value) in options {
            let field = format!("{where_}options.{name}");
            match self.setting(name) {
                Some(s) if s.kind == SettingKind::Option => {
                    let b = value.as_bool().ok_or_else(|| RulesError::WrongType {
                        field: field.clone(),
                        expected: "true or false",
                        found: value.to_string(),
                    })?;
                    resolved.options.insert(name.clone(), b);
                }
                Some(_) => return Err(RulesError::NotAnOption { field, name: name.clone() }),
                None => {
                    return Err(RulesError::Unknown {
                        field,
                        version: self.id(),
                        known: self.names(SettingKind::Option),
                    })
                }
            }
        }
        for (name, value) in constants {
            let field = format!("{where_}constants.{name}");
            match self.setting(name) {
                Some(s) if s.kind == SettingKind::Constant => {
                    let i = value.as_i64().ok_or_else(|| RulesError::WrongType {
                        field: field.clone(),
                        expected: "an integer",
                        found: value.to_string(),
                    })?;
                    if !s.admits(i) {
                        return Err(out_of_range(field, s, i));
                    }
                    resolved.constants.insert(name.clone(), i);
                }
                Some(_) => return Err(RulesError::NotAConstant { field, name: name.clone() }),
                None => {
                    return Err(RulesError::Unknown {
                        field,
                        version: self.id(),
                        known: self.names(SettingKind::Constant),
                    })
                }
            }
        }
        Ok(resolved)
    }

    /// Checks every constant of a resolved version (a record's header, say)
    /// against its range; the field is `constants.NAME`.
    pub fn check_ranges(&self, rules: &RuleVersion) -> Result<(), RulesError> {
        for (name, value) in &rules.constants {
            if let Some(s) = self.setting(name) {
                if !s.admits(*value) {
                    return Err(out_of_range(format!("constants.{name}"), s, *value));
                }
            }
        }
        Ok(())
    }

    fn names(&self, kind: SettingKind) -> String {
        let names: Vec<&str> = self.settings.iter().filter(|s| s.kind == kind).map(|s| s.name).collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }
}

fn out_of_range(field: String, s: &Setting, value: i64) -> RulesError {
    let (min, max) = s.range.expect("a constant out of range has a range");
    RulesError::OutOfRange { field, value, min, max }
}

/// A rule version with every setting resolved: what a game is played under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleVersion {
    /// `ruleset@version`.
    pub version: String,
    /// The house-rules name, if this came from a house-rules file.
    pub name: Option<String>,
    pub options: BTreeMap<String, bool>,
    pub constants: BTreeMap<String, i64>,
}

impl RuleVersion {
    /// The ruleset part of the version id.
    pub fn ruleset(&self) -> &str {
        self.version.split('@').next().unwrap_or(&self.version)
    }

    /// The hash of the canonical form: version id, options and constants
    /// (the house-rules name is a label, not a rule, and is not hashed).
    pub fn hash(&self) -> Digest {
        let canonical = crate::canon::of(&serde_json::json!({
            "version": self.version,
            "options": self.options,
            "constants": self.constants,
        }))
        .expect("rule versions hold flags and integers only");
        Digest::of(canonical.as_bytes())
    }

    /// An option's value. Panics on a name the version does not declare: that
    /// is a bug in the ruleset, not bad input (input is checked by `resolve`).
    pub fn flag(&self, name: &str) -> bool {
        *self.options.get(name).unwrap_or_else(|| panic!("{} declares no option {name}", self.version))
    }

    /// A constant's value; panics like [`RuleVersion::flag`].
    pub fn int(&self, name: &str) -> i64 {
        *self.constants.get(name).unwrap_or_else(|| panic!("{} declares no constant {name}", self.version))
    }

    /// How this version differs from its base version's defaults.
    pub fn overrides(&self, spec: &VersionSpec) -> Vec<(String, SettingValue, SettingValue)> {
        let mut out = Vec::new();
        for s in &spec.settings {
            let value = match s.kind {
                SettingKind::Option => self.options.get(s.name).map(|b| SettingValue::Flag(*b)),
                SettingKind::Constant => self.constants.get(s.name).map(|i| SettingValue::Integer(*i)),
            };
            if let Some(value) = value {
                if value != s.default {
                    out.push((s.name.to_string(), value, s.default));
                }
            }
        }
        out
    }

    /// A short label: the version id, or the house-rules name and its base.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) if name.starts_with(&self.version) => name.clone(),
            Some(name) => format!("{name} (house rules on {})", self.version),
            None => self.version.clone(),
        }
    }
}

/// A house-rules file: a base version, option values, constant overrides, a name.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HouseRules {
    pub name: String,
    pub base: String,
    #[serde(default)]
    pub options: BTreeMap<String, Value>,
    #[serde(default)]
    pub constants: BTreeMap<String, Value>,
}

/// Where a rule version is looked up by id: `ruleset@version`, or a
/// ruleset's id alone for its default version. The kernel is handed one
/// ([`crate::ruleset::Registry`]): it does not know which rulesets there are.
pub trait Versions {
    fn version(&self, id: &str) -> Result<VersionSpec, RulesError>;
}

type Overrides = BTreeMap<String, Value>;

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
            SettingKind::Option => options.insert(name.to_string(), parsed),
            SettingKind::Constant => constants.insert(name.to_string(), parsed),
        };
    }
    Ok((options, constants))
}

/// A rule version written inline: `ruleset[@version][+option][+name=value]…`,
/// e.g. `leader-activation@1+natural-6-rallies+rally-target=4`, its version
/// looked up in `versions`. A bare option name turns it on;
/// `name=true|false` sets an option, `name=N` a constant.
pub fn inline_version(arg: &str, versions: &dyn Versions) -> Result<(RuleVersion, VersionSpec), RulesError> {
    let mut parts = arg.split('+');
    let spec = versions.version(parts.next().unwrap_or_default())?;
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
pub fn relative_version(
    base: &RuleVersion,
    overrides: &str,
    versions: &dyn Versions,
) -> Result<RuleVersion, RulesError> {
    let spec = versions.version(&base.version)?;
    let mut options: Overrides = base.options.iter().map(|(k, v)| (k.clone(), Value::Bool(*v))).collect();
    let mut constants: Overrides = base.constants.iter().map(|(k, v)| (k.clone(), Value::from(*v))).collect();
    let (new_options, new_constants) = parse_overrides(&spec, overrides.split('+'))?;
    options.extend(new_options);
    constants.extend(new_constants);
    let mut resolved = spec.resolve(&options, &constants, "")?;
    resolved.name = Some(format!("{}{overrides}", base.label()));
    Ok(resolved)
}

/// Why a rule version could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("unknown ruleset {0:?} (known: {1})")]
    UnknownRuleset(String, String),
    #[error("{ruleset} has no version {version:?} (known: {known})")]
    UnknownVersion { ruleset: String, version: String, known: String },
    #[error("{field}: {version} has no such setting (it has: {known})")]
    Unknown { field: String, version: String, known: String },
    #[error("{field}: expected {expected}, found {found}")]
    WrongType { field: String, expected: &'static str, found: String },
    #[error("{field}: {name} is a constant, not an option")]
    NotAnOption { field: String, name: String },
    #[error("{field}: {value} is out of range: this constant must lie in {min}..={max}")]
    OutOfRange { field: String, value: i64, min: i64, max: i64 },
    #[error("{field}: {name} is an option, not a constant")]
    NotAConstant { field: String, name: String },
}
