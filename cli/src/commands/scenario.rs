//! `rollcall scenario template RULESET`: a small starting scenario of a
//! ruleset, which `new` and a script's `scenario` accept as it is.

use std::path::Path;
use std::process::ExitCode;

use rollcall_store::file::Existing;

use crate::fail::Fail;

/// A starting scenario of each ruleset: small, and one `new` accepts as it is
/// (a test starts a game from each).
const TEMPLATES: &[(&str, &str)] = &[
    ("leader-activation", include_str!("../../assets/templates/leader-activation.json")),
    ("phoenix-command", include_str!("../../assets/templates/phoenix-command.json")),
    ("combat-hq", include_str!("../../assets/templates/combat-hq.json")),
    ("formation-activation", include_str!("../../assets/templates/formation-activation.json")),
];

/// The template scenario of `ruleset`.
pub fn template_text(ruleset: &str) -> Option<&'static str> {
    TEMPLATES.iter().find(|(id, _)| *id == ruleset).map(|(_, text)| *text)
}

/// `rollcall scenario template RULESET [-o FILE [--force]]`.
pub fn template(arg: &str, output: Option<&Path>, force: bool) -> Result<ExitCode, Fail> {
    let ruleset = super::decisions::known_ruleset(arg)?;
    let text = template_text(ruleset).expect("every ruleset has a template");
    match output {
        None => show!("{text}"),
        Some(path) => {
            let existing = if force { Existing::Replace } else { Existing::Refuse };
            crate::output::files::write_atomically(path, existing, text.as_bytes())?;
            say!(
                "wrote a {ruleset} scenario to {} (start a game: rollcall new --rules {ruleset} --scenario {})",
                path.display(),
                path.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
