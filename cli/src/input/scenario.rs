//! The scenario `new --scenario FILE` starts from: the file a scenario, or a
//! script holding one; and where to look when one is refused.

use std::path::Path;

use serde_json::Value;

use crate::fail::Fail;

/// What `new --scenario FILE` starts from: the file itself, a scenario; or
/// a script's `scenario`. Also the prefix its fields have in the file, for
/// their line. Anything else is refused, saying what was expected.
pub fn scenario_of(given: Value, file: &Path, ruleset: &str) -> Result<(Value, &'static str), Fail> {
    match given {
        Value::Object(mut script) if script.contains_key("scenario") && script.contains_key("decisions") => {
            Ok((script.remove("scenario").unwrap_or_default(), "scenario."))
        }
        Value::Object(_) => Ok((given, "")),
        other => {
            let found = match other {
                Value::Array(_) => "a list (a file of decisions?)",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                _ => "null or a boolean",
            };
            Err(fail!(
                "{}:1: $: expected a {ruleset} scenario (an object), or a script whose \"scenario\" is one; found {found}{}",
                file.display(),
                scenario_hint(ruleset, "")
            ))
        }
    }
}

/// Where to see what a scenario looks like, for an error at the top of one
/// (a field it lacks, or one it does not have); nothing deeper down, where
/// the message says enough.
pub fn scenario_hint(ruleset: &str, field: &str) -> String {
    if field.contains(['.', '[']) {
        return String::new();
    }
    format!(" (`rollcall scenario template {ruleset}` writes a scenario to start from; `rollcall rules schema {ruleset}.scenario` describes one)")
}
