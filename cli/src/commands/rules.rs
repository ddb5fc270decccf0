//! `rollcall rules list`, `rules show` and `rules refusals`: the rulesets,
//! a rule version's settings, and a ruleset's kinds of refusal.

use std::process::ExitCode;

use rollcall_core::refusal::{RefusalKind, Shared};
use rollcall_core::registry;
use rollcall_core::rules::{RuleVersion, SettingKind, VersionSpec};
use rollcall_core::ruleset::RulesetInfo;
use serde_json::{json, Value};

use crate::args::RulesCommand;
use crate::fail::Fail;
use crate::input::checked::Checked;
use crate::input::source::rule_version;
use crate::output::{self, Report};

/// Runs `rollcall rules …`.
pub fn run(cx: &Checked, command: RulesCommand) -> Result<ExitCode, Fail> {
    let mode = cx.mode;
    match command {
        RulesCommand::List => Ok(output::print(&rules_list(), mode)),
        RulesCommand::Show { version } => Ok(output::print(&rules_show(&version)?, mode)),
        RulesCommand::Refusals { ruleset } => Ok(output::print(&rules_refusals(&ruleset)?, mode)),
        RulesCommand::Decisions { ruleset } => Ok(output::print(&super::decisions::decisions(&ruleset)?, mode)),
        RulesCommand::Schema { name, output } => super::schemas::schema(name.as_deref(), output.as_deref()),
    }
}

/// `rollcall rules list`: each ruleset and its versions.
struct RulesList(Vec<(RulesetInfo, Vec<VersionSpec>)>);

fn rules_list() -> RulesList {
    RulesList(registry::all().into_iter().map(|info| (info, (info.versions)())).collect())
}

impl Report for RulesList {
    fn text(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (info, versions) in &self.0 {
            lines.push(format!("{}: {}", info.id, info.title));
            lines.extend(versions.iter().map(|v| format!("  {:<28} {}", v.id(), v.summary)));
        }
        lines
    }

    fn json(&self) -> Value {
        let rows: Vec<Value> = self.0.iter().map(|(info, versions)| json!({"ruleset": info.id, "title": info.title, "versions": versions.iter().map(|v| json!({"id": v.id(), "summary": v.summary})).collect::<Vec<_>>()})).collect();
        json!({"rulesets": rows})
    }
}

/// `rollcall rules refusals RULESET`: the kinds of refusal of a ruleset,
/// its own, then the shared ones.
struct RulesRefusals {
    ruleset: &'static str,
    own: Vec<RefusalKind>,
    shared: Vec<RefusalKind>,
}

fn rules_refusals(id: &str) -> Result<RulesRefusals, Fail> {
    let info = registry::find(id).map_err(|e| Fail::msg(e.to_string()))?;
    Ok(RulesRefusals { ruleset: info.id, own: (info.refusals)(), shared: Shared::kinds() })
}

impl Report for RulesRefusals {
    fn text(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (title, kinds) in [(self.ruleset, &self.own), ("shared", &self.shared)] {
            lines.push(format!("{title}:"));
            for k in kinds {
                lines.push(format!("  {}", k.name));
                lines.extend(k.about.lines().map(|line| format!("      {}", line.trim())));
            }
        }
        lines
    }

    fn json(&self) -> Value {
        let group =
            |kinds: &[RefusalKind]| kinds.iter().map(|k| crate::output::exit::refusal_json(*k)).collect::<Vec<_>>();
        json!({"ruleset": self.ruleset, "refusals": group(&self.own), "shared": group(&self.shared)})
    }
}

/// `rollcall rules show VERSION`: a rule version's settings and the ranges
/// of its scenarios' numbers.
struct RulesShow {
    rules: RuleVersion,
    spec: VersionSpec,
    bounds: Vec<rollcall_core::bounds::Bound>,
}

fn rules_show(arg: &str) -> Result<RulesShow, Fail> {
    let (rules, spec) = rule_version(arg)?;
    let bounds = (registry::find(rules.ruleset()).map_err(|e| Fail::msg(e.to_string()))?.scenario_bounds)();
    Ok(RulesShow { rules, spec, bounds })
}

impl Report for RulesShow {
    fn text(&self) -> Vec<String> {
        let (rules, spec) = (&self.rules, &self.spec);
        let mut lines = vec![format!("{} — {}", rules.label(), spec.summary), format!("rules hash {}", rules.hash())];
        for kind in [SettingKind::Option, SettingKind::Constant] {
            lines.push(format!(
                "\n{}:",
                if kind == SettingKind::Option {
                    "options (open points of the text; off is the default reading)"
                } else {
                    "constants"
                }
            ));
            for s in spec.settings.iter().filter(|s| s.kind == kind) {
                let value = match kind {
                    SettingKind::Option => rollcall_core::rules::SettingValue::Flag(rules.options[s.name]),
                    SettingKind::Constant => rollcall_core::rules::SettingValue::Integer(rules.constants[s.name]),
                };
                let changed = if value != s.default { format!("  (default {})", s.default) } else { String::new() };
                let point = s.point.map(|p| format!(" [{p}]")).unwrap_or_default();
                let range = s.range.map(|(min, max)| format!("  range {min}..={max}")).unwrap_or_default();
                lines.push(format!("  {} = {value}{changed}{range}{point}", s.name));
                lines.push(format!("      {}", s.help));
                lines.push(format!("      settles: {}", s.settles));
            }
        }
        let (min, max) = rollcall_core::bounds::NUMBER_RANGE;
        lines.push(format!(
            "\nnumbers of a scenario (checked when it loads; every other number of a scenario or decision: {min}..={max}):"
        ));
        lines.extend(self.bounds.iter().map(|b| format!("  {}: {}..={}", b.path, b.min, b.max)));
        if self.bounds.is_empty() {
            lines.push("  (no narrower ranges)".into());
        }
        lines
    }

    fn json(&self) -> Value {
        let (rules, spec) = (&self.rules, &self.spec);
        let mut rows = Vec::new();
        for s in &spec.settings {
            let value = match s.kind {
                SettingKind::Option => json!(rules.options[s.name]),
                SettingKind::Constant => json!(rules.constants[s.name]),
            };
            let default = serde_json::to_value(s.default).expect("serialises");
            rows.push(
                json!({"name": s.name, "kind": if s.kind == SettingKind::Option { "option" } else { "constant" },
                "value": value, "default": default, "range": s.range.map(|(min, max)| [min, max]), "point": s.point,
                "settles": s.settles, "help": s.help}),
            );
        }
        let (min, max) = rollcall_core::bounds::NUMBER_RANGE;
        let scenario: Vec<Value> =
            self.bounds.iter().map(|b| json!({"path": b.path, "range": [b.min, b.max]})).collect();
        json!({"version": rules.version, "name": rules.name, "hash": rules.hash().to_string(),
            "summary": spec.summary, "settings": rows,
            "numbers": {"scenario": scenario, "every_other": [min, max]}})
    }
}
