//! Extreme values for every constant of every ruleset.
//!
//! For each fixture script and each constant of its rule version, values at
//! and beyond the ends of the constant's range, the ends of `i64`, small
//! values and random ones are written as rules two ways: inline
//! (`ruleset@version+name=value`) and as a house-rules file. Each must
//! either be refused naming the constant, or be a version the fixture's
//! game plays under without a panic — as far as the rules let it, since
//! other constants refuse other decisions — and the record it makes must
//! verify. `ROLLCALL_SEED=n` reruns the random values.

mod support;

use rollcall_core::game::{verify, Game};
use rollcall_core::record::Event;
use rollcall_core::registry;
use rollcall_core::rules::{HouseRules, RuleVersion, SettingKind, VersionSpec};
use rollcall_core::script::{RulesRef, Script};
use rollcall_core::strict;
use support::Rng;

/// Every fixture script, parsed.
fn fixtures() -> Vec<(String, Script)> {
    support::fixture_scripts()
        .into_iter()
        .map(|path| {
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            let script =
                Script::parse(&std::fs::read_to_string(&path).unwrap(), &stem, rollcall_core::registry::builtin())
                    .unwrap();
            (path.display().to_string(), script)
        })
        .collect()
}

/// The values tried for a constant with this range.
fn values(range: (i64, i64), rng: &mut Rng) -> Vec<i64> {
    let (min, max) = range;
    let mut out = vec![
        i64::MIN,
        i64::MIN + 1,
        -1_000_000_001,
        -1,
        0,
        1,
        1_000_000_001,
        i64::MAX - 1,
        i64::MAX,
        min,
        max,
        min.saturating_sub(1),
        max.saturating_add(1),
    ];
    out.push(rng.range(min, max));
    out.sort_unstable();
    out.dedup();
    out
}

/// The rules with one constant set, inline or as a house-rules file.
fn rules_with(
    spec: &VersionSpec,
    base: &RuleVersion,
    name: &str,
    value: i64,
    house: bool,
) -> Result<RuleVersion, String> {
    let mut overrides = String::new();
    for (option, on) in &base.options {
        overrides.push_str(&format!("+{option}={on}"));
    }
    for (constant, v) in &base.constants {
        if constant != name {
            overrides.push_str(&format!("+{constant}={v}"));
        }
    }
    if house {
        let text = serde_json::json!({
            "name": "extreme", "base": spec.id(), "options": base.options,
            "constants": base.constants.iter().map(|(k, v)| (k.clone(), if k == name { value } else { *v })).collect::<std::collections::BTreeMap<_, _>>(),
        })
        .to_string();
        let house: HouseRules = strict::parse_as(text.as_bytes()).map_err(|e| e.to_string())?;
        RulesRef::House(house)
            .resolve("", rollcall_core::registry::builtin())
            .map_err(|(field, message)| format!("{field}: {message}"))
    } else {
        registry::inline_version(&format!("{}{overrides}+{name}={value}", spec.id()))
            .map(|(rules, _)| rules)
            .map_err(|e| e.to_string())
    }
}

/// Plays the script's decisions under `header` until the rules refuse one;
/// the events so far (a whole shorter game), or a message naming the field
/// if the game cannot start.
fn play(script: &Script, header: &rollcall_core::Header) -> Result<Vec<Event>, String> {
    let mut game = Game::open(header.clone(), rollcall_core::registry::builtin()).map_err(|e| e.to_string())?;
    let mut events = Vec::new();
    for (decision, dice) in &script.decisions {
        match game.play(decision, dice.as_ref()) {
            Ok(new) => events.extend(new),
            Err(_) => break,
        }
    }
    Ok(events)
}

#[test]
fn every_constant_at_extreme_values_is_refused_or_plays_and_verifies() {
    let seed = support::base_seed();
    let mut rng = Rng(seed);
    let (mut refused, mut played, mut decisions) = (0, 0, 0);
    for (path, script) in fixtures() {
        let spec = registry::version(&script.header.rules.version).unwrap();
        for setting in spec.settings.iter().filter(|s| s.kind == SettingKind::Constant) {
            let range = setting.range.unwrap_or_else(|| panic!("{} declares no range for {}", spec.id(), setting.name));
            for value in values(range, &mut rng) {
                let house = rng.one_in(2);
                let what = format!(
                    "seed {seed}: {path}: {}={value} ({})",
                    setting.name,
                    if house { "house rules" } else { "inline" }
                );
                let outcome = std::panic::catch_unwind(|| {
                    let rules = match rules_with(&spec, &script.header.rules, setting.name, value, house) {
                        Ok(rules) => rules,
                        Err(message) => return Err(message),
                    };
                    let mut header = script.header.clone();
                    header.rules_hash = rules.hash();
                    header.rules = rules;
                    let events = play(&script, &header)?;
                    verify(&header, events.iter().cloned().map(Ok::<_, String>), rollcall_core::registry::builtin())
                        .map(|v| v.decisions)
                        .map_err(|f| format!("DOES NOT VERIFY: {f}"))
                });
                match outcome {
                    Err(_) => panic!("{what}: panics"),
                    Ok(Ok(n)) => {
                        assert!(
                            (range.0..=range.1).contains(&value),
                            "{what}: a value out of range {range:?} was accepted"
                        );
                        played += 1;
                        decisions += n;
                    }
                    Ok(Err(message)) => {
                        assert!(!message.contains("DOES NOT VERIFY"), "{what}: {message}");
                        assert!(message.contains(setting.name), "{what}: refused without naming the field: {message}");
                        refused += 1;
                    }
                }
            }
        }
    }
    println!(
        "{refused} versions refused naming the constant; {played} games played and verified ({decisions} decisions)"
    );
    assert!(refused > 0 && played > 0);
}

/// Every constant of every version declares its range.
#[test]
fn every_constant_has_a_range_that_holds_its_default() {
    for info in registry::all() {
        for spec in (info.versions)() {
            for s in spec.settings.iter().filter(|s| s.kind == SettingKind::Constant) {
                let (min, max) = s.range.unwrap_or_else(|| panic!("{}: {} declares no range", spec.id(), s.name));
                let rollcall_core::rules::SettingValue::Integer(default) = s.default else { panic!("{}", s.name) };
                assert!(
                    min <= default && default <= max,
                    "{}: {}'s default {default} is out of {min}..={max}",
                    spec.id(),
                    s.name
                );
            }
        }
    }
}
