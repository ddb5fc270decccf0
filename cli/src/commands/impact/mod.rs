//! `rollcall impact`: a rule change over a corpus of games — every script,
//! record or stored game run under its own rules (A) and under B, as `diff`
//! runs one, and the whole reported (the tallies are `rollcall_core::impact`).
//!
//! Games stream one at a time: a record is read, proven and compared as it
//! is read, a script played first (scripts are small). Games are compared
//! in parallel (rayon), each worker holding one game, and gathered in
//! corpus order, so the report depends on the corpus alone; how long it
//! took goes to standard error.

pub mod page;
mod text;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;
use rollcall_core::diff::DiffError;
use rollcall_core::impact::{self, GameImpact, Impact, Left};
use rollcall_core::log::EventLog;
use rollcall_core::record::{Event, Header};
use rollcall_core::rules::RuleVersion;
use rollcall_core::script::Script;
use rollcall_store::Store;

use crate::args::ImpactArgs;
use crate::fail::{Context, Fail};
use crate::input::source::rule_version;
use crate::input::store::{self, read_file, StoreSpec};
use crate::output::colour::Verdict;
use crate::output::{Line, Mode, Said};
use text::{json_of, text_of};

/// One game of the corpus, before it is read.
#[derive(Debug, Clone)]
enum Input {
    Script(PathBuf),
    Record(PathBuf),
    Stored(String),
}

impl Input {
    fn label(&self) -> String {
        match self {
            Input::Script(p) | Input::Record(p) => p.display().to_string(),
            Input::Stored(id) => id.clone(),
        }
    }
}

/// B as given: one version, or settings changed on each game's own rules.
enum B {
    Version(RuleVersion),
    Relative(String),
}

/// What became of one game.
enum Done {
    Compared(Box<GameImpact>),
    Unproven(Left),
    Skipped(Left),
}

pub fn run(cx: &crate::input::checked::Checked, args: &ImpactArgs) -> Result<ExitCode, Fail> {
    let b = match args.b.strip_prefix('+') {
        Some(_) => {
            applies_somewhere(&args.b)?;
            B::Relative(args.b.clone())
        }
        None => B::Version(rule_version(&args.b)?.0),
    };
    if let Some(path) = &args.output {
        // Refused before the corpus is run, not after.
        if !args.force && (path.exists() || path.is_symlink()) {
            return Err(fail!("{} exists: nothing was written (use --force to replace it)", path.display()));
        }
    }
    let (inputs, log) = corpus(&cx.db, &args.targets)?;
    let started = Instant::now();
    let done = compare_all(&inputs, &b, log.as_ref(), cx.mode)?;
    let mut impact = Impact::default();
    for d in done {
        match d {
            Done::Compared(g) => impact.add(*g),
            Done::Unproven(left) => impact.unproven.push(left),
            Done::Skipped(left) => impact.skipped.push(left),
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "compared {} games ({} decisions) in {seconds:.1} s on {} threads: {:.0} decisions a second",
        impact.games,
        impact.decisions,
        rayon::current_num_threads(),
        impact.decisions as f64 / seconds.max(1e-9)
    );
    if impact.games == 0 && impact.unproven.is_empty() {
        let why = impact.skipped.first().map(|l| format!(": {}: {}", l.game, l.reason)).unwrap_or_default();
        return Err(fail!("--b {}: no game of the corpus could be compared under it{why}", args.b));
    }
    let code = if impact.agree() && impact.unproven.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    if let Some(path) = &args.output {
        write_report(path, args, &impact)?;
    }
    let (mut lines, at) = text_of(args, &impact);
    let verdict = if impact.agree() { Verdict::Good } else { Verdict::Bad };
    lines.extend(args.output.as_ref().map(|path| format!("wrote the report to {}", path.display())));
    let report = Said { lines, json: json_of(args, &impact), code, verdict: Some((Line::At(at), verdict)) };
    Ok(crate::output::print(&report, cx.mode))
}

/// The games `targets` name, in corpus order: the scripts and records under
/// a directory, a file, or a game in the store (then opened, and handed
/// back).
fn corpus(db: &StoreSpec, targets: &[String]) -> Result<(Vec<Input>, Option<Store>), Fail> {
    let mut inputs = Vec::new();
    let mut log = None;
    for target in targets {
        let path = Path::new(target);
        if path.is_dir() {
            walk(path, &mut inputs)?;
        } else if path.is_file() {
            inputs.push(if target.ends_with(".jsonl") {
                Input::Record(path.into())
            } else {
                Input::Script(path.into())
            });
        } else if target.ends_with(".json") || target.ends_with(".jsonl") || target.contains('/') {
            return Err(fail!("{target}: no such file or directory"));
        } else {
            let store = match &log {
                Some(store) => store,
                None => log.insert(store::open(db)?),
            };
            if !store::has_game(store, target)? {
                return Err(fail!("{target}: not a file, a directory or a game in the store"));
            }
            inputs.push(Input::Stored(target.clone()));
        }
    }
    if inputs.is_empty() {
        return Err(fail!("{}: no scripts (*.json) or records (*.jsonl) to compare", targets.join(" ")));
    }
    Ok((inputs, log))
}

/// A `+option…` must be a setting of some version of some ruleset: a typo
/// is bad input, not a corpus of skipped games.
fn applies_somewhere(b: &str) -> Result<(), Fail> {
    let mut first_error = None;
    for info in rollcall_core::registry::all() {
        for spec in (info.versions)() {
            match rollcall_core::registry::relative_version(&spec.defaults(), b) {
                Ok(_) => return Ok(()),
                Err(e) => {
                    first_error.get_or_insert_with(|| format!("{}: {e}", spec.id()));
                }
            }
        }
    }
    Err(fail!("--b {b}: no version of any ruleset has these settings ({})", first_error.unwrap_or_default()))
}

/// Every script and record under `dir`, sorted, as `golden` finds them.
fn walk(dir: &Path, out: &mut Vec<Input>) -> Result<(), Fail> {
    let mut paths = Vec::new();
    let entries = std::fs::read_dir(dir).with_context(|| dir.display().to_string())?;
    for entry in entries {
        paths.push(entry.with_context(|| dir.display().to_string())?.path());
    }
    paths.sort();
    for path in paths {
        let name = path.to_string_lossy();
        if path.is_dir() {
            walk(&path, out)?;
        } else if name.ends_with(".jsonl") {
            out.push(Input::Record(path));
        } else if name.ends_with(".json") && !name.ends_with(".house.json") {
            out.push(Input::Script(path));
        }
    }
    Ok(())
}

/// Compares every game, in parallel, gathered in corpus order.
fn compare_all(inputs: &[Input], b: &B, log: Option<&Store>, mode: Mode) -> Result<Vec<Done>, Fail> {
    let progress = (std::io::stderr().is_terminal() && mode == Mode::Text && inputs.len() > 1).then(|| {
        let bar = indicatif::ProgressBar::new(inputs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games, {eta} left")
                .expect("a valid template"),
        );
        bar
    });
    let done = inputs
        .par_iter()
        .map(|input| {
            let done = compare_one(input, b, log);
            if let Some(bar) = &progress {
                bar.inc(1);
            }
            done
        })
        .collect::<Result<Vec<_>, Fail>>();
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    done
}

/// B for one game, or why B does not apply to it.
fn b_for(header: &Header, b: &B) -> Result<RuleVersion, String> {
    match b {
        B::Version(v) if v.ruleset() == header.rules.ruleset() => Ok(v.clone()),
        B::Version(v) => Err(format!("a {} game; B is a version of {}", header.rules.ruleset(), v.ruleset())),
        B::Relative(overrides) => rollcall_core::registry::relative_version(&header.rules, overrides).map_err(|e| {
            // "…has no such setting (it has: …)": the list is the same for every game of the version.
            let e = e.to_string();
            format!("{}: {}", header.rules.label(), e.split(" (it has:").next().unwrap_or(&e))
        }),
    }
}

fn compare_one(input: &Input, b: &B, log: Option<&Store>) -> Result<Done, Fail> {
    let label = input.label();
    match input {
        Input::Script(path) => {
            let text = read_file(path)?;
            let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "game".into());
            let script = Script::parse(&text, &stem, rollcall_core::registry::builtin())
                .map_err(|e| fail!("{}:{}: {}: {}", path.display(), e.line, e.field, e.message))?;
            let b = match b_for(&script.header, b) {
                Ok(b) => b,
                Err(reason) => return Ok(Done::Skipped(Left { game: label, reason })),
            };
            let mut events = Vec::new();
            script
                .play(|_, e| events.push(e.clone()))
                .map_err(|e| fail!("{}:{}: {}: {}", path.display(), e.line, e.field, e.message))?;
            let events = events.into_iter().map(Ok::<Event, String>);
            let result = impact::game(
                &label,
                &script.header,
                events,
                &script.header.rules,
                &b,
                rollcall_core::registry::builtin(),
            );
            done(label, result)
        }
        Input::Record(path) => {
            let (header, events) = rollcall_store::file::read(path)?;
            let b = match b_for(&header, b) {
                Ok(b) => b,
                Err(reason) => return Ok(Done::Skipped(Left { game: label, reason })),
            };
            let result = impact::game(&label, &header, events, &header.rules, &b, rollcall_core::registry::builtin());
            done(label, result)
        }
        Input::Stored(id) => {
            let log = log.expect("the store is open when a game id is named");
            let header = log.header(id)?;
            let b = match b_for(&header, b) {
                Ok(b) => b,
                Err(reason) => return Ok(Done::Skipped(Left { game: label, reason })),
            };
            let result = impact::game(
                &label,
                &header,
                log.events(id, 1)?,
                &header.rules,
                &b,
                rollcall_core::registry::builtin(),
            );
            done(label, result)
        }
    }
}

fn done(label: String, result: Result<GameImpact, DiffError>) -> Result<Done, Fail> {
    match result {
        Ok(g) => Ok(Done::Compared(Box::new(g))),
        Err(DiffError::Unproven(f)) => Ok(Done::Unproven(Left { game: label, reason: f.to_string() })),
        Err(e @ DiffError::Sealed) => Ok(Done::Skipped(Left { game: label, reason: e.to_string() })),
        Err(e) => Err(fail!("{label}: {e}")),
    }
}

/// Writes the HTML report through a temporary file renamed into place.
fn write_report(path: &Path, args: &ImpactArgs, impact: &Impact) -> Result<(), Fail> {
    use rollcall_store::file::{write_file, Existing, FileError};
    let page = crate::commands::impact::page::render(&args.b, &args.targets, impact);
    let existing = if args.force { Existing::Replace } else { Existing::Refuse };
    write_file(path, existing, |out, tmp| {
        out.write_all(page.as_bytes())
            .map_err(|e| FileError::Io { path: tmp.display().to_string(), message: e.to_string() })
    })
    .map_err(|e| Fail::msg(e.to_string()))
}
