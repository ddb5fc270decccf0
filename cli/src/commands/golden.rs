//! `rollcall golden check|bless DIR`: golden-file regression.
//!
//! Every script (`*.json`, not `*.house.json`) and record (`*.jsonl`) under
//! DIR is replayed and verified, and its outputs (narrative with head hash,
//! final state, per-turn state digests) are compared with the files kept
//! beside it. `check` prints a unified diff of each difference and exits 1 if
//! any differ; `bless` rewrites them and lists what changed, and refuses to
//! run when `CI` is set, so CI can never accept a change by itself.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;
use rollcall_core::golden::{record_outputs, script_outputs, Outputs};
use rollcall_core::script::Script;
use serde_json::json;
use similar::TextDiff;

use crate::fail::{Context, Fail};
use crate::input::store::read_file;
use crate::output::Said;

fn inputs(dir: &Path) -> Result<Vec<PathBuf>, Fail> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).with_context(|| dir.display().to_string())?;
    for entry in entries {
        let path = entry.with_context(|| dir.display().to_string())?.path();
        let name = path.to_string_lossy();
        if path.is_dir() {
            out.extend(inputs(&path)?);
        } else if (name.ends_with(".json") && !name.ends_with(".house.json")) || name.ends_with(".jsonl") {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

fn outputs(path: &Path) -> Result<Outputs, Fail> {
    if path.extension().is_some_and(|e| e == "jsonl") {
        let (header, events) = rollcall_store::file::read(path)?;
        return record_outputs(&header, events, rollcall_core::registry::builtin())
            .map_err(|f| fail!("{}: does not verify: {f}", path.display()));
    }
    let text = read_file(path)?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let script = Script::parse(&text, &stem, rollcall_core::registry::builtin())
        .map_err(|e| fail!("{}:{}: {}: {}", path.display(), e.line, e.field, e.message))?;
    script_outputs(&script).map_err(|e| fail!("{}: {e}", path.display()))
}

fn expected_path(input: &Path, suffix: &str) -> PathBuf {
    let stem = input.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    input.with_file_name(format!("{stem}.{suffix}"))
}

/// A bar over the fixtures of a directory, on a terminal's standard error
/// only (`check` and `bless` alike): the file at hand, and how many are done.
struct Steps(Option<indicatif::ProgressBar>);

impl Steps {
    fn new(count: usize) -> Steps {
        use std::io::IsTerminal;
        if count < 2 || !std::io::stderr().is_terminal() {
            return Steps(None);
        }
        let bar = indicatif::ProgressBar::new(count as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}").expect("a valid template"),
        );
        Steps(Some(bar))
    }

    /// Work on `input` begins.
    fn at(&self, input: &Path) {
        if let Some(bar) = &self.0 {
            bar.set_message(input.display().to_string());
        }
    }

    /// Work on the file at hand is done.
    fn done_one(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    fn finish(self) {
        if let Some(bar) = self.0 {
            bar.finish_and_clear();
        }
    }
}

/// Each of `input`'s expected files that its outputs do not match, with a
/// unified diff.
fn differences_of(input: &Path) -> Result<Vec<(PathBuf, String)>, Fail> {
    let actual = outputs(input)?;
    let mut differences = Vec::new();
    for (suffix, text) in actual.files() {
        let path = expected_path(input, suffix);
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != text {
            let diff = TextDiff::from_lines(expected.as_str(), text)
                .unified_diff()
                .context_radius(3)
                .header(&format!("{} (expected)", path.display()), &format!("{} (actual)", path.display()))
                .to_string();
            differences.push((path, diff));
        }
    }
    Ok(differences)
}

/// Runs `rollcall golden check` or `rollcall golden bless`.
pub fn run(cx: &crate::input::checked::Checked, command: crate::args::GoldenCommand) -> Result<ExitCode, Fail> {
    use crate::args::GoldenCommand;
    let said = match command {
        GoldenCommand::Check(a) => check(&a.dir)?,
        GoldenCommand::Bless(a) => bless(&a.dir)?,
    };
    Ok(crate::output::print(&said, cx.mode))
}

/// `rollcall golden check DIR`: exit 1 when an expected file differs.
pub fn check(dir: &Path) -> Result<Said, Fail> {
    let all = inputs(dir)?;
    if all.is_empty() {
        return Err(fail!("{}: no scripts (*.json) or records (*.jsonl) to check", dir.display()));
    }
    let steps = Steps::new(all.len());
    // Each input is checked on its own (in parallel, one per core), and the
    // results are taken in order: the report, and the first input that
    // cannot be checked, are as a run one by one would give them.
    let checked: Vec<Result<Vec<(PathBuf, String)>, Fail>> = all
        .par_iter()
        .map(|input| {
            steps.at(input);
            let found = differences_of(input);
            steps.done_one();
            found
        })
        .collect();
    steps.finish();
    let mut differences = Vec::new();
    for found in checked {
        differences.extend(found?);
    }
    let json = json!({
        "checked": all.len(), "ok": differences.is_empty(),
        "differences": differences.iter().map(|(p, d)| json!({"file": p.display().to_string(), "diff": d})).collect::<Vec<_>>(),
    });
    // Each diff ends with its newline, which the line's printing gives.
    let mut lines: Vec<String> =
        differences.iter().map(|(_, diff)| diff.strip_suffix('\n').unwrap_or(diff).to_string()).collect();
    lines.push(if differences.is_empty() {
        format!("golden: {} fixtures match their expected outputs", all.len())
    } else {
        format!(
            "golden: {} of the expected files differ ({} fixtures checked); if the change is intended, run `rollcall golden bless {}` and review the diff",
            differences.len(),
            all.len(),
            dir.display()
        )
    });
    let code = if differences.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    Ok(Said { lines, json, code, verdict: None })
}

/// `rollcall golden bless DIR`: rewrites the expected files that differ.
pub fn bless(dir: &Path) -> Result<Said, Fail> {
    if std::env::var_os("CI").is_some() {
        return Err(Fail::msg(
            "golden bless refuses to run when CI is set: expected outputs change only in a reviewed commit",
        ));
    }
    let all = inputs(dir)?;
    let steps = Steps::new(all.len());
    let mut changed = Vec::new();
    for input in &all {
        steps.at(input);
        let actual = outputs(input)?;
        for (suffix, text) in actual.files() {
            let path = expected_path(input, suffix);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
                std::fs::write(&path, text).with_context(|| path.display().to_string())?;
                changed.push(path.display().to_string());
            }
        }
        steps.done_one();
    }
    steps.finish();
    let mut lines: Vec<String> = changed.iter().map(|c| format!("rewrote {c}")).collect();
    lines.push(format!("golden: {} fixtures blessed, {} files changed", all.len(), changed.len()));
    Ok(Said::done(lines, json!({"blessed": all.len(), "changed": changed})))
}
