//! `rollcall simulate`: many seeded games of one scenario under two rule
//! versions, played by the same policy with the same addressed dice, and
//! their distributions side by side (the statistics are `rollcall_core::sim::stats`).
//!
//! Game `i` under A and under B has the same scenario, the same seed shares
//! and the same policy stream: a die both roll has one face, and the two
//! games part only where the rules make them. The games are played in
//! parallel (rayon) and gathered in order, so the report depends on the
//! seed alone; how long it took goes to standard error.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;
use rollcall_core::game::{Game, OpenError};
use rollcall_core::locate::line_of;
use rollcall_core::rules::RuleVersion;
use rollcall_core::script::Script;
use rollcall_core::sim::stats::{self, Comparison, Estimate, GameSummary, Row};
use rollcall_core::sim::{self, Limits, Pair, Run, Simulator};
use serde_json::{json, Value};

use crate::args::SimulateArgs;
use crate::fail::{Context, Fail};
use crate::input::source::rule_version;
use crate::input::store::read_file;
use crate::output::Said;

/// What the input gives: the scenario, the parties' names, and A unless --a says.
struct Input {
    scenario: Value,
    parties: Vec<String>,
    rules: Option<RuleVersion>,
    text: String,
}

pub fn run(args: &SimulateArgs, mode: crate::output::Mode) -> Result<ExitCode, Fail> {
    let input = read_input(&args.input)?;
    let a = match (&args.a, &input.rules) {
        (Some(a), _) => rule_version(a)?.0,
        (None, Some(rules)) => rules.clone(),
        (None, None) => {
            return Err(fail!(
                "{}: a scenario file needs --a VERSION, the rule version it is played under",
                args.input.display()
            ))
        }
    };
    let b = match args.b.strip_prefix('+') {
        Some(_) => rollcall_core::registry::relative_version(&a, &args.b).map_err(|e| fail!("--b: {e}"))?,
        None => rule_version(&args.b)?.0,
    };
    if a.ruleset() != b.ruleset() {
        return Err(fail!("--b: {} is not a version of {}, A's ruleset", b.label(), a.ruleset()));
    }
    let simulator = sim::simulator(a.ruleset()).map_err(|e| Fail::msg(e.to_string()))?;
    let policies = simulator.policies();
    if !policies.iter().any(|(name, _)| *name == args.policy) {
        let known: Vec<String> = policies.iter().map(|(n, about)| format!("  {n}: {about}")).collect();
        return Err(fail!("--policy {:?}: {} has\n{}", args.policy, a.ruleset(), known.join("\n")));
    }
    if args.games == 0 {
        return Err(Fail::msg("--games: play at least one game"));
    }
    let run = Run {
        scenario: input.scenario.clone(),
        parties: input.parties.clone(),
        a,
        b,
        policy: args.policy.clone(),
        seed: args.seed,
        limits: Limits { decisions: args.decisions, turns: Some(args.turns), play_on: false },
    };
    check_scenario(&run, &args.input, &input.text)?;
    let started = Instant::now();
    let pairs = play_all(&*simulator, &run, args, mode)?;
    let seconds = started.elapsed().as_secs_f64();
    let decisions: u64 = pairs.iter().map(|(a, b, _)| a.decisions + b.decisions).sum();
    eprintln!(
        "simulated {} × 2 games ({decisions} decisions) in {seconds:.1} s on {} threads: {:.1} ms a game, {:.0} decisions a second",
        args.games,
        rayon::current_num_threads(),
        1000.0 * seconds / (2 * args.games) as f64,
        decisions as f64 / seconds.max(1e-9)
    );
    let comparison = stats::compare(&simulator.measures(), simulator.winning(), &pairs);
    let differ = comparison.significant().next().is_some();
    let report = Said {
        lines: text_of(args, &run, &*simulator, &comparison),
        json: json_of(args, &run, &*simulator, &comparison),
        code: if differ { ExitCode::from(1) } else { ExitCode::SUCCESS },
        verdict: None,
    };
    Ok(crate::output::print(&report, mode))
}

/// Reads a script (its scenario, parties and rules) or a bare scenario.
fn read_input(path: &Path) -> Result<Input, Fail> {
    let text = read_file(path)?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| fail!("{}:{}: not JSON: {e}", path.display(), e.line()))?;
    if value.get("scenario").is_some() && value.get("decisions").is_some() {
        let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "game".into());
        let script = Script::parse(&text, &stem, rollcall_core::registry::builtin())
            .map_err(|e| fail!("{}:{}: {}: {}", path.display(), e.line, e.field, e.message))?;
        let parties = script.header.parties.iter().map(|p| p.name.clone()).collect();
        return Ok(Input { scenario: script.header.scenario, parties, rules: Some(script.header.rules), text });
    }
    let sides = value.get("sides").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut parties: Vec<String> = sides
        .iter()
        .filter_map(|s| s.as_str().or_else(|| s.get("id").and_then(Value::as_str)).map(String::from))
        .collect();
    if parties.is_empty() {
        parties = vec!["a".into(), "b".into()];
    }
    Ok(Input { scenario: value, parties, rules: None, text })
}

/// The scenario must load under both versions, or nothing is played.
fn check_scenario(run: &Run, path: &Path, text: &str) -> Result<(), Fail> {
    let header = run.header(0);
    for rules in [&run.a, &run.b] {
        Game::open(sim::under(&header, rules.clone()), rollcall_core::registry::builtin()).map_err(|e| match e {
            OpenError::Scenario(s) => fail!(
                "{}:{}: {}: {} (under {})",
                path.display(),
                line_of(text, &s.field),
                s.field,
                s.message,
                rules.label()
            ),
            other => fail!("{}: {other}", path.display()),
        })?;
    }
    Ok(())
}

/// Plays every pair in parallel, in order of their index; keeps records if asked.
fn play_all(
    simulator: &dyn Simulator,
    run: &Run,
    args: &SimulateArgs,
    mode: crate::output::Mode,
) -> Result<Vec<(GameSummary, GameSummary, Option<u64>)>, Fail> {
    if let Some(dir) = &args.keep {
        for side in ["a", "b"] {
            std::fs::create_dir_all(dir.join(side)).with_context(|| dir.join(side).display().to_string())?;
        }
    }
    let progress = (std::io::stderr().is_terminal() && mode == crate::output::Mode::Text).then(|| {
        let bar = indicatif::ProgressBar::new(args.games);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games, {eta} left")
                .expect("a valid template"),
        );
        bar
    });
    let pairs = (0..args.games)
        .into_par_iter()
        .map(|index| {
            let pair = run.pair(simulator, index, args.keep.is_some()).map_err(|e| Fail::msg(e.to_string()))?;
            if let Some(dir) = &args.keep {
                keep(dir, run, index, &pair)?;
            }
            if let Some(bar) = &progress {
                bar.inc(1);
            }
            Ok((pair.a.summary, pair.b.summary, pair.parted_at))
        })
        .collect::<Result<Vec<_>, Fail>>();
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    pairs
}

/// Writes game `index` under A and under B as records `verify`, `replay` and `import` take.
fn keep(dir: &Path, run: &Run, index: u64, pair: &Pair) -> Result<(), Fail> {
    let header = run.header(index);
    for (side, header, played) in [("a", header.clone(), &pair.a), ("b", sim::under(&header, run.b.clone()), &pair.b)] {
        let path = dir.join(side).join(format!("{}.jsonl", header.game));
        rollcall_store::file::write(
            &path,
            rollcall_store::file::Existing::Replace,
            &header,
            played.events.iter().cloned().map(Ok::<_, String>),
        )?;
    }
    Ok(())
}

/// The settings in which B differs from A, as `name a → b`.
fn changes(a: &RuleVersion, b: &RuleVersion) -> Vec<String> {
    let mut out = Vec::new();
    if a.version != b.version {
        out.push(format!("version {} → {}", a.version, b.version));
    }
    for (name, value) in &b.options {
        let before = a.options.get(name).copied().unwrap_or(false);
        if before != *value {
            let word = |v: bool| if v { "on" } else { "off" };
            out.push(format!("{name} {} → {}", word(before), word(*value)));
        }
    }
    for (name, value) in &b.constants {
        match a.constants.get(name) {
            Some(before) if before == value => {}
            Some(before) => out.push(format!("{name} {before} → {value}")),
            None => out.push(format!("{name} → {value}")),
        }
    }
    out
}

fn limits_text(limits: &Limits) -> String {
    let turns = limits.turns.map(|t| format!("turn {t} is over, ")).unwrap_or_default();
    format!("until the game is over, {turns}or {} decisions", limits.decisions)
}

fn value_text(row: &Row, e: &Estimate) -> String {
    match row.kind {
        "rate" => format!("{:.3} [{:.3}, {:.3}]", e.value, e.low, e.high),
        _ => format!("{:.2} [{:.2}, {:.2}]", e.value, e.low, e.high),
    }
}

fn difference_text(row: &Row, e: &Estimate) -> String {
    match row.kind {
        "rate" => format!("{:+.3} [{:+.3}, {:+.3}]", e.value, e.low, e.high),
        _ => format!("{:+.2} [{:+.2}, {:+.2}]", e.value, e.low, e.high),
    }
}

fn p_text(p: Option<f64>) -> String {
    match p {
        None => "—".into(),
        Some(p) if p < 0.001 => "<0.001".into(),
        Some(p) => format!("{p:.3}"),
    }
}

fn text_of(args: &SimulateArgs, run: &Run, simulator: &dyn Simulator, c: &Comparison) -> Vec<String> {
    let mut lines = Vec::new();
    let about = simulator.policies().into_iter().find(|(n, _)| *n == run.policy).map(|(_, a)| a).unwrap_or_default();
    lines.push(format!("simulate {}: {} games under each version, seed {}", args.input.display(), c.games, run.seed));
    lines.push(format!("policy {}: {about}", run.policy));
    lines.push(format!("A = {}", run.a.label()));
    lines.push(format!("B = {}", run.b.label()));
    let changed = changes(&run.a, &run.b);
    lines.push(format!(
        "B changes: {}",
        if changed.is_empty() { "nothing (the same settings)".into() } else { changed.join(", ") }
    ));
    lines.push(format!("each game: {}", limits_text(&run.limits)));
    for (label, endings) in ["A", "B"].iter().zip(&c.endings) {
        let ended: Vec<String> = endings.iter().map(|(how, n)| format!("{n} {}", ending_text(*how))).collect();
        lines.push(format!("  ended under {label}: {}", ended.join(", ")));
    }
    lines.push("\nmeans per game (rates pooled over games), 95% intervals; B − A paired by game:".to_string());
    lines.push(format!("{:<26} {:<28} {:<28} {:<30} {:>7}", "measure", "A", "B", "B − A", "p"));
    for row in &c.rows {
        let a = row.a.as_ref().map(|e| value_text(row, e)).unwrap_or_else(|| "no trials".into());
        let b = row.b.as_ref().map(|e| value_text(row, e)).unwrap_or_else(|| "no trials".into());
        let d = row.difference.as_ref().map(|e| difference_text(row, e)).unwrap_or_else(|| "—".into());
        let mark = if row.significant { " *" } else { "" };
        lines.push(format!("{:<26} {a:<28} {b:<28} {d:<30} {:>7}{mark}", row.name, p_text(row.p)));
    }
    lines.push("\nwhat each measure counts:".to_string());
    for row in &c.rows {
        lines.push(format!("  {}: {}", row.name, row.what));
    }
    match (&c.winner_by, &c.no_winner) {
        (Some(how), _) => lines.push(format!("  wins:SIDE: {how}")),
        (None, Some(why)) => lines.push(format!("who wins: not measured: {why}")),
        _ => {}
    }
    for (name, why) in &c.absent {
        lines.push(format!("{name}: not measured for {}: {why}", run.a.ruleset()));
    }
    match c.first_parting {
        None => lines.push("\nA and B play every game alike: the same decisions, dice and facts".to_string()),
        Some((game, decision)) => lines.push(format!(
            "\nA and B part in {} of {} games (first: game {game}, at decision {decision})",
            c.parted, c.games
        )),
    }
    let significant: Vec<&Row> = c.significant().collect();
    if significant.is_empty() {
        lines.push(format!(
            "no significant difference between A and B (Holm-corrected over {} measures, family-wise α = {})",
            c.rows.len(),
            c.alpha
        ));
    } else {
        lines.push(format!(
            "significant differences (*; Holm-corrected over {} measures, family-wise α = {}):",
            c.rows.len(),
            c.alpha
        ));
        for row in significant {
            let d = row.difference.as_ref().map(|e| difference_text(row, e)).unwrap_or_default();
            lines.push(format!("  {}: B − A = {d}, p {} ({})", row.name, p_text(row.p), row.test));
        }
    }
    lines
}

fn ending_text(how: sim::Ending) -> &'static str {
    match how {
        sim::Ending::Over => "over (a side won or could not go on)",
        sim::Ending::Turns => "at the turn limit",
        sim::Ending::Decisions => "at the decision limit",
    }
}

fn json_of(args: &SimulateArgs, run: &Run, simulator: &dyn Simulator, c: &Comparison) -> Value {
    json!({
        "input": args.input.display().to_string(),
        "games": c.games,
        "seed": run.seed,
        "policy": run.policy,
        "policies": simulator.policies().into_iter().map(|(name, about)| json!({"name": name, "about": about})).collect::<Vec<_>>(),
        "a": run.a.label(),
        "b": run.b.label(),
        "a_rules_hash": run.a.hash().to_string(),
        "b_rules_hash": run.b.hash().to_string(),
        "changes": changes(&run.a, &run.b),
        "limits": {"turns": run.limits.turns, "decisions": run.limits.decisions},
        "differ": c.significant().next().is_some(),
        "comparison": c,
    })
}
