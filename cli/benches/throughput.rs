//! Throughput and memory of the whole pipeline, printed as figures.
//!
//! `cargo bench -p rollcall-cli --bench throughput` (add `-- --decisions N`
//! to change the game length, `-- --keep DIR` to keep the generated scripts
//! and records, `-- --creation-only` to time only the games created whole;
//! each creation, `run` and `import`, is timed three times, each into a
//! store of its own, and its median taken, as is the reference's).
//! It generates a long seeded game of leader
//! activation, then times the real binary as child processes — `run` (the
//! script streamed in two passes into one all-or-nothing creation),
//! `export`, `verify` of the file and of the store, and `play --stream`
//! (one durable append per decision) — and reads each child's peak
//! memory (VmHWM), which it reports with `ROLLCALL_PEAK_RSS` set. It also times dice draws and
//! decide-and-apply in this process. Figures, not assertions: the machines
//! are shared and noisy. See docs/benchmarks.md.

use std::io::{Seek, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use rollcall_core::dice::{draw, Die, Seed};
use rollcall_core::script::Script;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_rollcall");

fn scenario() -> Value {
    let mut leaders = Vec::new();
    let mut units = Vec::new();
    for (s, side) in ["red", "blue"].iter().enumerate() {
        for l in 0..3 {
            let (x, y) = (l * 1000, s as i64 * 2000);
            leaders.push(json!({"id": format!("{side}-{l}"), "side": side, "at": [x, y]}));
            for (u, skill) in ["elite", "trained", "conscript"].iter().enumerate() {
                units.push(json!({"id": format!("{side}-{l}-{u}"), "side": side, "skill": skill, "at": [x + 20 * u as i64, y + 40]}));
            }
        }
    }
    json!({"sides": ["red", "blue"], "leaders": leaders, "units": units})
}

/// The decisions of one turn, in order; some will be refused by the state
/// (a rally when nothing is broken) and are dropped by the generator.
fn turn(t: usize) -> Vec<Value> {
    let sides = if t.is_multiple_of(2) { ["red", "blue"] } else { ["blue", "red"] };
    let mut out = vec![
        json!({"type": "break", "piece": format!("red-{}-{}", t % 3, t % 3), "reason": "fire"}),
        json!({"type": "break", "piece": format!("blue-{}-{}", (t + 1) % 3, t % 3), "reason": "fire"}),
        json!({"type": "begin-turn", "first": sides[0]}),
    ];
    for l in 0..3 {
        for side in sides {
            out.push(json!({"type": "activate", "leader": format!("{side}-{l}")}));
            for u in 0..3 {
                out.push(json!({"type": "command", "unit": format!("{side}-{l}-{u}")}));
                out.push(json!({"type": "unit-action", "unit": format!("{side}-{l}-{u}"), "action": "fires"}));
            }
            out.push(json!({"type": "leader-action", "action": "moves"}));
            out.push(json!({"type": "rally", "units": (0..3).map(|u| format!("{side}-{l}-{u}")).collect::<Vec<_>>()}));
            for u in 0..3 {
                out.push(json!({"type": "rally", "units": [format!("{side}-{l}-{u}")]}));
            }
            out.push(json!({"type": "end-activation"}));
        }
    }
    out
}

/// A script of about `n` legal decisions.
fn script(n: usize) -> Value {
    let shares = [[0x11u8; 32], [0x22u8; 32]].map(|b| b.iter().map(|x| format!("{x:02x}")).collect::<String>());
    let mut s = json!({
        "game": format!("bench-{n}"), "rules": "leader-activation@1", "scenario": scenario(),
        "seed": {"mode": "open", "parties": [{"name": "red", "share": shares[0]}, {"name": "blue", "share": shares[1]}]},
        "decisions": []
    });
    let parsed = Script::parse(&s.to_string(), "bench", rollcall_core::registry::builtin()).unwrap();
    let mut game = rollcall_core::Game::open(parsed.header, rollcall_core::registry::builtin()).unwrap();
    let mut decisions = Vec::with_capacity(n);
    let mut t = 0;
    while decisions.len() < n {
        for d in turn(t) {
            if decisions.len() == n {
                break;
            }
            if game.play(&d, None).is_ok() {
                decisions.push(d);
            }
        }
        t += 1;
    }
    s["decisions"] = Value::Array(decisions);
    s
}

/// A command that reads a record file, run three times: the median of its
/// times and the largest of its peaks. One run of a process of tens of
/// milliseconds swings by half on a shared two-core machine; the median of
/// three is steadier, and unlike the best of three it does not pick the
/// run that had the machine to itself.
fn median_of_3(args: &[&str]) -> (f64, f64) {
    let (t, peak, _) = median_child(args, None);
    (t, peak)
}

/// Three runs of the binary given `input`: the median time, the highest
/// peak RSS, and the median run's stdout.
fn median_child(args: &[&str], input: Option<&[u8]>) -> (f64, f64, String) {
    let runs: Vec<(f64, f64, String)> = (0..3).map(|_| child(args, input)).collect();
    let peak = runs.iter().map(|r| r.1).fold(0.0, f64::max);
    let (t, _, out) = median_run(runs, |r| r.0);
    (t, peak, out)
}

/// The run of the median time among `runs`.
fn median_run<T>(mut runs: Vec<T>, time: impl Fn(&T) -> f64) -> T {
    runs.sort_by(|a, b| time(a).total_cmp(&time(b)));
    runs.swap_remove(runs.len() / 2)
}

/// Three runs of a command that creates a game: the first into the store
/// it is given (`None`: the caller's), the others each into a new store of
/// its own under `dir`, dropped after. The median time and the highest peak.
fn median_creation(
    dir: &std::path::Path,
    name: &str,
    create: impl Fn(Option<&str>) -> (f64, f64, String),
) -> (f64, f64) {
    let mut runs = vec![create(None)];
    for i in 1..3 {
        let store = dir.join(format!("{name}-again-{i}"));
        runs.push(create(Some(store.to_str().unwrap())));
        std::fs::remove_dir_all(&store).unwrap();
    }
    let peak = runs.iter().map(|r| r.1).fold(0.0, f64::max);
    (median_run(runs, |r| r.0).0, peak)
}

/// Runs the binary; returns (seconds, peak RSS of the child in MiB, stdout).
fn child(args: &[&str], stdin: Option<&[u8]>) -> (f64, f64, String) {
    let start = Instant::now();
    let mut c = Command::new(BIN)
        .args(args)
        .env_remove("ROLLCALL_DB")
        .env_remove("ROLLCALL_STORE")
        .env("ROLLCALL_PEAK_RSS", "1")
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Drain stdout while the child runs: a full pipe would stall it. Only
    // its first MiB is kept (a replay of a long game prints hundreds).
    let mut stdout = c.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            let n = std::io::Read::read(&mut stdout, &mut chunk).unwrap();
            if n == 0 {
                break;
            }
            if out.len() < 1 << 20 {
                out.extend_from_slice(&chunk[..n]);
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    });
    if let Some(input) = stdin {
        c.stdin.take().unwrap().write_all(input).unwrap();
    }
    let mut stderr = c.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut out).unwrap();
        out
    });
    let status = c.wait().unwrap();
    let seconds = start.elapsed().as_secs_f64();
    let out = reader.join().unwrap();
    let errors = errors.join().unwrap();
    // The child reports its own peak (VmHWM): a parent's rusage would count
    // the high water mark this large process passes on at spawn.
    let peak_kib: f64 = errors
        .lines()
        .find_map(|l| l.strip_prefix("rollcall: peak-rss-kib "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the child reports its peak memory");
    assert!(status.success(), "rollcall {args:?} failed: {errors}");
    (seconds, peak_kib / 1024.0, out)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args
        .iter()
        .position(|a| a == "--decisions")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    // `--keep DIR`: leave the generated scripts and records in DIR, to profile a command on them.
    let keep = args.iter().position(|a| a == "--keep").and_then(|i| args.get(i + 1)).cloned();
    // `--creation-only`: only the games created whole (`run`, `export`, `import`) and their reference.
    let creation_only = args.iter().any(|a| a == "--creation-only");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    println!("rollcall throughput, {} build", if cfg!(debug_assertions) { "debug" } else { "release" });

    let seed = Seed([7; 32]);
    let draws = 1_000_000u64;
    let start = Instant::now();
    let mut sum = 0u64;
    for i in 0..draws {
        sum += u64::from(draw(&seed, i, "bench", 0, Die::D6));
    }
    let secs = start.elapsed().as_secs_f64();
    println!("dice: {:.0} addressed d6 draws/s (checksum {sum})", draws as f64 / secs);

    for n in [n / 10, n] {
        let s = script(n);
        let text = s.to_string();
        let path = dir.path().join(format!("bench-{n}.json"));
        std::fs::write(&path, &text).unwrap();
        // Kept at once: a profile of `run` can start on it while the bench goes on.
        if let Some(keep) = &keep {
            std::fs::create_dir_all(keep).unwrap();
            std::fs::copy(&path, std::path::Path::new(keep).join(format!("bench-{n}.json"))).unwrap();
        }
        let parsed = Script::parse(&text, "bench", rollcall_core::registry::builtin()).unwrap();
        let start = Instant::now();
        let mut events = 0u64;
        parsed.play(|_, _| events += 1).unwrap();
        let secs = start.elapsed().as_secs_f64();
        println!("\n{n} decisions, {events} events");
        println!("  in process: decide + apply  {:>10.0} decisions/s", n as f64 / secs);

        let game = format!("bench-{n}");
        // The game id is part of the seed: keep the script's, whose dice made these decisions legal.
        // Median of three creations: the first into the store the figures
        // below read, the others into stores of their own, dropped after.
        let (t_run, rss) = median_creation(dir.path(), "run", |store| {
            child(&["--db", store.unwrap_or(db), "run", path.to_str().unwrap()], None)
        });
        println!(
            "  run (check, then append)   {t_run:>8.2} s  {:>10.0} events/s  peak {rss:>6.1} MiB  (median of 3)",
            events as f64 / t_run
        );
        goal_abs("run, peak RSS", rss, 64.0, false, "MiB");
        let record = dir.path().join(format!("{game}.jsonl"));
        let (t, rss, _) = child(&["--db", db, "export", &game, "-o", record.to_str().unwrap()], None);
        let bytes = std::fs::metadata(&record).unwrap().len();
        if let Some(keep) = &keep {
            std::fs::copy(&record, std::path::Path::new(keep).join(format!("{game}.jsonl"))).unwrap();
        }
        println!(
            "  export                      {t:>8.2} s  {:>10.0} events/s  peak {rss:>6.1} MiB  ({:.1} MiB record)",
            events as f64 / t,
            bytes as f64 / 1048576.0
        );
        goal_abs("export, peak RSS", rss, 64.0, false, "MiB");
        // The reference for the commands that read the record or its
        // script whole: each line decoded and chained, in this process.
        let mut references: Vec<f64> = (0..3).map(|_| decode_and_chain(&record)).collect();
        references.sort_by(f64::total_cmp);
        let reference = references[1];
        println!(
            "  decode + chain reference    {reference:>8.2} s  {:>10.0} events/s  (in this process, median of 3)",
            events as f64 / reference
        );
        // The exported record into a store of its own: verified as it is written.
        let fresh = dir.path().join(format!("import-{n}"));
        let (t_import, rss) = median_creation(dir.path(), "import", |store| {
            let store = store.unwrap_or(fresh.to_str().unwrap());
            child(&["--db", store, "import", record.to_str().unwrap()], None)
        });
        println!(
            "  import (verify, then append) {t_import:>7.2} s  {:>10.0} events/s  peak {rss:>6.1} MiB  (median of 3)",
            events as f64 / t_import
        );
        goal_abs("import, peak RSS", rss, 64.0, false, "MiB");
        // A game created whole from a script or a record, at most three
        // times the reference's time: the store's writing in its shadow.
        goal_at_most("run, time against the reference", t_run * 1e3, reference * 1e3, 3.0, "ms");
        goal_at_most("import, time against the reference", t_import * 1e3, reference * 1e3, 3.0, "ms");
        let stored = dir_bytes(&fresh);
        let (per_event, record_per_event) = (stored as f64 / events as f64, bytes as f64 / events as f64);
        println!(
            "  store after import          {:.1} MiB: {per_event:.0} B per event (the record: {record_per_event:.0} B per event)",
            stored as f64 / 1048576.0
        );
        goal_at_most("store size after import", per_event, record_per_event, 1.5, "B per event");
        std::fs::remove_dir_all(&fresh).unwrap();
        if creation_only {
            continue;
        }
        let (t, rss) = median_of_3(&["verify", record.to_str().unwrap()]);
        let verified = events as f64 / t;
        println!(
            "  verify file (streaming)     {t:>8.2} s  {:>10.0} events/s  peak {rss:>6.1} MiB  (median of 3)",
            events as f64 / t
        );
        goal("verify file", events as f64 / t, events as f64 / reference, 0.5, "events/s");
        goal_abs("verify file", events as f64 / t, 800_000.0, true, "events/s");
        goal_abs("verify file, peak RSS", rss, 64.0, false, "MiB");
        let (t, rss, _) = child(&["--db", db, "verify", &game], None);
        println!("  verify stored game          {t:>8.2} s  {:>10.0} events/s  peak {rss:>6.1} MiB", events as f64 / t);
        goal_abs("verify stored game, peak RSS", rss, 64.0, false, "MiB");
        // A change that moves no outcome (every command was within 100 mm):
        // the record proven, then every decision under A and B.
        let (t, rss) = median_of_3(&["diff", record.to_str().unwrap(), "--b", "+command-range-trained-mm=120"]);
        println!(
            "  diff file (proven; A, B)    {t:>8.2} s  {:>10.0} events/s  peak {rss:>6.1} MiB  (median of 3)",
            events as f64 / t
        );
        // diff proves the record as verify does, and decides B beside it: its
        // goal is 0.4 M events/s, half of verify's 0.8 M.
        goal("diff file, against verify file", events as f64 / t, verified, 0.5, "events/s");
        goal_abs("diff file", events as f64 / t, 400_000.0, true, "events/s");
        goal_abs("diff file, peak RSS", rss, 64.0, false, "MiB");
        let (t, rss, _) = child(&["--db", db, "state", &game], None);
        println!("  open + replay (state)       {t:>8.2} s  {:>10.0} events/s  peak {rss:>6.1} MiB", events as f64 / t);
        goal_abs("state of a stored game, peak RSS", rss, 64.0, false, "MiB");
        let (t, rss, _) = child(&["--db", db, "replay", &game], None);
        println!("  replay (narrated, stored)   {t:>8.2} s  {:>10.0} events/s  peak {rss:>6.1} MiB", events as f64 / t);
        goal_abs("replay of a stored game, peak RSS", rss, 64.0, false, "MiB");
        let (t, rss) = median_of_3(&["state", record.to_str().unwrap()]);
        println!(
            "  state FILE (replay a file)  {t:>8.2} s  {:>10.0} events/s  peak {rss:>6.1} MiB  (median of 3)",
            events as f64 / t
        );
        println!("    {:.2}× the decode + chain reference ({:.0} events/s)", reference / t, events as f64 / reference);
        goal_abs("state FILE (replay of a record file)", events as f64 / t, 1_500_000.0, true, "events/s");
        goal_abs("state FILE, peak RSS", rss, 64.0, false, "MiB");
        if n <= 2_000 {
            // Whole process, best of five (a cold start is mostly the loader).
            let best = (0..5).map(|_| child(&["verify", record.to_str().unwrap()], None).0).fold(f64::MAX, f64::min);
            let noop = (0..5).map(|_| child(&["rules", "list"], None).0).fold(f64::MAX, f64::min);
            println!(
                "  verify file, whole process  {:>8.1} ms (best of 5; `rollcall rules list` {:.1} ms)",
                best * 1e3,
                noop * 1e3
            );
            goal_abs("verify 2,000-decision file, whole process", best * 1e3, 10.0, false, "ms");
        }
    }

    if creation_only {
        return;
    }
    phoenix_command(dir.path(), db, keep.as_deref());
    golden_check(dir.path());

    // play of one decision on a stored game: a short game beside the long one.
    let short = script(100).to_string();
    let short_path = dir.path().join("bench-short.json");
    std::fs::write(&short_path, &short).unwrap();
    child(&["--db", db, "run", short_path.to_str().unwrap()], None);
    let once = |game: &str| {
        let decision = r#"{"type":"move","piece":"red-0","to":[1,0]}"#;
        let runs: Vec<f64> =
            (0..3).map(|_| child(&["--db", db, "play", game, "-"], Some(decision.as_bytes())).0).collect();
        runs.into_iter().fold(f64::MAX, f64::min)
    };
    let (t_short, t_long) = (once("bench-100"), once(&format!("bench-{n}")));
    println!(
        "\nplay of one decision on a stored game: {:.1} ms at 100 decisions, {:.1} ms at {n}",
        t_short * 1e3,
        t_long * 1e3
    );
    let ratio = t_long / t_short;
    let met = if ratio <= 2.0 { "met" } else { "NOT met" };
    println!("  GOAL play on a {n}-decision game / on a 100-decision game: {ratio:.2} (goal <= 2): {met}");

    // Durable appends: one flush per decision.
    let k = 300;
    let script = dir.path().join("scenario.json");
    std::fs::write(&script, scenario().to_string()).unwrap();
    child(
        &[
            "--db",
            db,
            "new",
            "--rules",
            "leader-activation",
            "--scenario",
            script.to_str().unwrap(),
            "--game",
            "stream",
        ],
        None,
    );
    let lines: String = (0..k).map(|i| format!("{{\"type\":\"move\",\"piece\":\"red-0\",\"to\":[{i},0]}}\n")).collect();
    let stream = ["--db", db, "play", "stream", "-", "--stream"];
    // The same stream with no decision: the process's start and the
    // store's opening, which a stream pays once. The median of three runs
    // (the game grows by k decisions a run; play does not slow with it).
    let (t0, _, _) = median_child(&stream, Some(b""));
    // Then rounds of the stream beside its references, each round's three
    // runs one after the other, so that a slow spell of the shared disk
    // falls on the stream and its reference alike; the goal is taken from
    // the round of the median ratio. Two references: records appended to a
    // growing file, and written into room laid out ahead (zeroed), where a
    // sync need not write the file's length — the least work; the goal is
    // held to the better of the two.
    /// One round: the stream's seconds and peak MiB, then each reference's seconds.
    struct Round {
        stream: f64,
        rss: f64,
        growing: f64,
        laid_out: f64,
    }
    impl Round {
        /// The stream's figure over the better reference's: the goal's ratio.
        fn ratio(&self) -> f64 {
            self.growing.min(self.laid_out) / self.stream
        }
    }
    let mut rounds: Vec<Round> = (0..5)
        .map(|_| {
            let (t, rss, out) = child(&stream, Some(lines.as_bytes()));
            assert_eq!(out.lines().filter(|l| l.starts_with("ok ")).count(), k, "every decision acknowledged");
            let growing = fsync_per_record(dir.path(), k, false);
            let laid_out = fsync_per_record(dir.path(), k, true);
            Round { stream: t, rss, growing, laid_out }
        })
        .collect();
    let rss = rounds.iter().map(|r| r.rss).fold(0.0, f64::max);
    let median = |of: &dyn Fn(&Round) -> f64| {
        let mut v: Vec<f64> = rounds.iter().map(of).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (t, growing, laid_out) = (median(&|r| r.stream), median(&|r| r.growing), median(&|r| r.laid_out));
    println!(
        "\nplay --stream: {k} decisions, each durable before its ack: {:.2} ms per decision, peak {rss:.1} MiB \
         (starting and opening the store alone: {:.1} ms; each decision beyond it: {:.3} ms; medians of 5 rounds)",
        t * 1000.0 / k as f64,
        t0 * 1000.0,
        (t - t0).max(0.0) * 1000.0 / k as f64
    );
    println!(
        "  fsync per record: {:.3} ms appended to a growing file, {:.3} ms into room laid out ahead (medians of the same rounds)",
        growing * 1000.0 / k as f64,
        laid_out * 1000.0 / k as f64
    );
    rounds.sort_by(|a, b| a.ratio().total_cmp(&b.ratio()));
    let round = &rounds[rounds.len() / 2];
    goal(
        "play --stream (durable appends), the round of median ratio",
        k as f64 / round.stream,
        k as f64 / round.growing.min(round.laid_out),
        0.8,
        "decisions/s",
    );
    // Not the goal (which counts the process's start, as a user's stream
    // pays it): each decision beyond the start against one sync, to tell
    // the two costs apart.
    println!(
        "  each decision beyond the start: {:.2} × the better fsync per record",
        laid_out.min(growing) / (t - t0).max(f64::MIN_POSITIVE)
    );

    postgres_beside_sled(dir.path(), n / 10);
}

/// verify of phoenix-command records (goal: ≥ 0.4 M events/s):
/// `simulate` plays seeded games of the `three-turns` fixture's scenario
/// with its random policy and keeps each as a record (a game ends when a
/// side has no unit left: about 7 k events each). The records are verified
/// in one process (`verify` of several targets, as a league verifies a
/// season), its start included once, as the leader-activation figure's one
/// process includes it; the reference is the decode + chain of the same
/// files. Each record verified as its own process is printed too: that adds
/// eight process starts (about 3.4 ms each, a fifth of the time).
fn phoenix_command(dir: &std::path::Path, db: &str, keep: Option<&str>) {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/phoenix-command/three-turns.json");
    let sims = dir.join("phoenix");
    // B is A itself: no difference, so `simulate` exits 0.
    let args = ["--db", db, "simulate", fixture, "--b", "phoenix-command@1", "--games", "8", "--seed", "7"];
    child(
        &[&args[..], &["--turns", "100000", "--decisions", "100000", "--keep", sims.to_str().unwrap()]].concat(),
        None,
    );
    let mut records: Vec<_> = std::fs::read_dir(sims.join("a")).unwrap().map(|e| e.unwrap().path()).collect();
    records.sort();
    let events: usize = records.iter().map(|r| std::fs::read_to_string(r).unwrap().lines().count() - 1).sum();
    if let Some(keep) = keep {
        for r in &records {
            std::fs::copy(
                r,
                std::path::Path::new(keep).join(format!("phoenix-{}", r.file_name().unwrap().to_str().unwrap())),
            )
            .unwrap();
        }
    }
    let (mut each, mut each_peak) = (0.0, 0.0f64);
    for r in &records {
        let (t, rss) = median_of_3(&["verify", r.to_str().unwrap()]);
        each += t;
        each_peak = each_peak.max(rss);
    }
    let files: Vec<&str> = records.iter().map(|r| r.to_str().unwrap()).collect();
    let (took, peak) = median_of_3(&[&["verify"], &files[..]].concat());
    let reference: f64 = records.iter().map(|r| decode_and_chain(r)).sum();
    println!(
        "\nphoenix-command: {} simulated games, {events} events\n  \
         verify files, one process     {took:>6.2} s  {:>10.0} events/s  peak {peak:>6.1} MiB  (median of 3)\n  \
         verify files, one process each {each:>5.2} s  {:>10.0} events/s  peak {each_peak:>6.1} MiB  (each the median of 3)",
        records.len(),
        events as f64 / took,
        events as f64 / each
    );
    goal("verify phoenix-command files", events as f64 / took, events as f64 / reference, 0.5, "events/s");
    goal_abs("verify phoenix-command files", events as f64 / took, 400_000.0, true, "events/s");
}

/// `golden check` of 1,000 games of 2,000 events (goal: < 5 s): one
/// generated leader-activation script of at least 2,000 events, kept 1,000
/// times under `golden/`, blessed once, then checked (the median of three
/// runs): each fixture is parsed, played, verified and narrated, and its
/// outputs compared with the files beside it. The reference is the least of
/// that work, in this process: each game parsed and played, one at a time.
fn golden_check(dir: &std::path::Path) {
    let (games, least) = (1_000, 2_000);
    let mut n = least * 10 / 22;
    let (text, events) = loop {
        let text = script(n).to_string();
        let mut events = 0usize;
        Script::parse(&text, "bench", rollcall_core::registry::builtin()).unwrap().play(|_, _| events += 1).unwrap();
        if events >= least {
            break (text, events);
        }
        n += 10;
    };
    let gold = dir.join("golden/leader-activation");
    std::fs::create_dir_all(&gold).unwrap();
    for i in 0..games {
        std::fs::write(gold.join(format!("g{i:04}.json")), &text).unwrap();
    }
    let (gold, db) = (gold.to_str().unwrap(), dir.join("golden-db"));
    child(&["--db", db.to_str().unwrap(), "golden", "bless", gold], None);
    let (t, rss, out) = median_child(&["--db", db.to_str().unwrap(), "golden", "check", gold], None);
    assert!(out.contains(&format!("{games} fixtures match")), "every fixture matches: {out}");
    let start = Instant::now();
    for _ in 0..games {
        Script::parse(&text, "bench", rollcall_core::registry::builtin()).unwrap().play(|_, _| {}).unwrap();
    }
    let reference = start.elapsed().as_secs_f64();
    println!(
        "\ngolden check: {games} fixtures of {n} decisions, {events} events each ({:.1} M events)\n  \
         golden check                {t:>8.2} s  {:>10.0} events/s  peak {rss:>6.1} MiB  (median of 3)\n  \
         parse and play, one core, in this process: {reference:.2} s ({:.2}× the check's time)",
        (games * events) as f64 / 1e6,
        (games * events) as f64 / t,
        reference / t
    );
    goal_abs("golden check, 1,000 games x 2,000 events", t, 5.0, false, "s");
}

/// Prints a figure beside a reference measured in this run, their ratio, and
/// the ratio the goal asks for (higher is better).
fn goal(name: &str, figure: f64, reference: f64, want: f64, unit: &str) {
    let ratio = figure / reference;
    let met = if ratio >= want { "met" } else { "NOT met" };
    println!("  GOAL {name}: {figure:.0} {unit} / reference {reference:.0} = {ratio:.2} (goal >= {want}): {met}");
}

/// Prints a figure beside a reference measured in this run, their ratio, and
/// the most the goal allows (lower is better).
fn goal_at_most(name: &str, figure: f64, reference: f64, most: f64, unit: &str) {
    let ratio = figure / reference;
    let met = if ratio <= most { "met" } else { "NOT met" };
    println!("  GOAL {name}: {figure:.0} {unit} / reference {reference:.0} = {ratio:.2} (goal <= {most}): {met}");
}

/// The bytes of every file under `dir`.
fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                dir_bytes(&e.path())
            } else {
                meta.len()
            }
        })
        .sum()
}

/// Prints a figure beside an absolute goal (`at_least`: the figure must reach it).
fn goal_abs(name: &str, figure: f64, want: f64, at_least: bool, unit: &str) {
    let met = if (figure >= want) == at_least { "met" } else { "NOT met" };
    let sign = if at_least { ">=" } else { "<" };
    println!("  GOAL {name}: {figure:.1} {unit} (goal {sign} {want} {unit}): {met}");
}

/// The reference for verify: each line of the record decoded once into a
/// typed structure and the blake3 chain taken over the bytes it hashes, in
/// this process. Seconds.
fn decode_and_chain(record: &std::path::Path) -> f64 {
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Line {
        seq: u64,
        kind: String,
        body: Value,
        hash: String,
    }
    let text = std::fs::read_to_string(record).unwrap();
    let start = Instant::now();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let mut head = rollcall_core::digest::Digest::of(header.as_bytes());
    let mut buf = Vec::with_capacity(512);
    for line in lines {
        let typed: Line = serde_json::from_str(line).unwrap();
        // The hashed bytes are the line without its `"hash"` member.
        let at = line.rfind(",\"hash\":\"").unwrap();
        buf.clear();
        buf.extend_from_slice(head.as_bytes());
        buf.extend_from_slice(&line.as_bytes()[..at]);
        buf.extend_from_slice(&line.as_bytes()[at + 74..]);
        head = rollcall_core::digest::Digest::of(&buf);
        assert_eq!(head.to_string(), typed.hash, "the reference chains seq {}", typed.seq);
    }
    start.elapsed().as_secs_f64()
}

/// The reference for durable appends: `k` record-sized lines written to a
/// file, each followed by an fsync (`fdatasync`); into zeros written and
/// synced ahead if `laid_out`. Seconds.
fn fsync_per_record(dir: &std::path::Path, k: usize, laid_out: bool) -> f64 {
    let path = dir.join("fsync-reference");
    let mut f = std::fs::File::create(&path).unwrap();
    let line = [b'x'; 230];
    if laid_out {
        f.write_all(&vec![0u8; line.len() * k]).unwrap();
        f.sync_all().unwrap();
        f.rewind().unwrap();
    }
    let start = Instant::now();
    for _ in 0..k {
        f.write_all(&line).unwrap();
        f.sync_data().unwrap();
    }
    let t = start.elapsed().as_secs_f64();
    std::fs::remove_file(path).unwrap();
    t
}

#[path = "../../tests/support/postgres.rs"]
mod postgres_support;

/// The same appends into sled and into PostgreSQL, in this run: a game
/// created in one step (`run`), durable appends one decision at a time
/// (`play --stream`), and the dice server with one and with two processes.
/// Needs `ROLLCALL_TEST_POSTGRES` (see the README); skipped without it.
fn postgres_beside_sled(dir: &std::path::Path, n: usize) {
    let Some(database) = postgres_support::Database::new("throughput (PostgreSQL)") else { return };
    let pg = database.url.as_str();
    let sled_dir = dir.join("beside-db");
    let sled = sled_dir.to_str().unwrap();
    println!("\nsled beside PostgreSQL (a local cluster on a unix socket, fsync on)");
    let text = script(n).to_string();
    let path = dir.join("pg-bench.json");
    std::fs::write(&path, &text).unwrap();
    let mut events = 0u64;
    Script::parse(&text, "bench", rollcall_core::registry::builtin()).unwrap().play(|_, _| events += 1).unwrap();
    for (name, store, flag) in [("sled", sled, "--db"), ("PostgreSQL", pg, "--store")] {
        let (t, _, _) = child(&[flag, store, "run", path.to_str().unwrap()], None);
        println!("  {name:<10} run: {events} events in one creation   {:>10.0} events/s", events as f64 / t);
    }
    let scenario_file = dir.join("pg-scenario.json");
    std::fs::write(&scenario_file, scenario().to_string()).unwrap();
    let k = 300;
    let lines: String = (0..k).map(|i| format!("{{\"type\":\"move\",\"piece\":\"red-0\",\"to\":[{i},0]}}\n")).collect();
    for (name, store, flag) in [("sled", sled, "--db"), ("PostgreSQL", pg, "--store")] {
        let new = [
            "new",
            "--rules",
            "leader-activation",
            "--scenario",
            scenario_file.to_str().unwrap(),
            "--game",
            "pg-stream",
        ];
        child(&[&[flag, store][..], &new[..]].concat(), None);
        let (t, _, _) = child(&[flag, store, "play", "pg-stream", "-", "--stream"], Some(lines.as_bytes()));
        println!(
            "  {name:<10} play --stream: {k} durable appends     {:>10.0} decisions/s  ({:.2} ms each)",
            k as f64 / t,
            t * 1000.0 / k as f64
        );
    }
    let games = 25;
    let per_game = 100;
    let sled_serve = dir.join("serve-db");
    let reference = serve_rate(&[&["--db", sled_serve.to_str().unwrap()]], games, per_game, "s");
    println!("  sled       serve, 1 server:  {games} games × {per_game} decisions  {reference:>8.0} decisions/s  (the reference)");
    let pg_args = ["--store", pg];
    let mut one = 0.0;
    for servers in [1, 2] {
        let stores: Vec<&[&str]> = (0..servers).map(|_| &pg_args[..]).collect();
        let rate = serve_rate(&stores, games, per_game, &format!("p{servers}-"));
        // No goal in figures for PostgreSQL: beside sled's one
        // server, and two servers beside one.
        let beside = if servers == 1 {
            one = rate;
            String::new()
        } else {
            format!(", {:.2}× one server", rate / one)
        };
        println!(
            "  PostgreSQL serve, {servers} server{}: {games} games × {per_game} decisions  {rate:>8.0} decisions/s  ({:.2}× sled's one server{beside})",
            if servers == 1 { " " } else { "s" },
            rate / reference
        );
    }
}

/// Starts one `serve` per store, creates `games` sealed games and plays
/// `per_game` referee moves in each, one client thread per game spreading
/// its requests over the servers: decisions/s.
fn serve_rate(stores: &[&[&str]], games: usize, per_game: u64, prefix: &str) -> f64 {
    use std::io::BufRead;
    let mut children = Vec::new();
    let mut urls = Vec::new();
    for store in stores {
        let mut c = Command::new(BIN)
            .args(*store)
            .args(["serve", "--addr", "127.0.0.1:0", "--turns", "10000"])
            .env_remove("ROLLCALL_DB")
            .env_remove("ROLLCALL_STORE")
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let stderr = std::io::BufReader::new(c.stderr.take().unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on ").nth(1) {
                    let _ = tx.send(rest.split(' ').next().unwrap().to_string());
                }
            }
        });
        urls.push(rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the server listens"));
        children.push(c);
    }
    let scenario: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/pbem/scenario.json")).unwrap(),
    )
    .unwrap();
    let post = |url: &str, token: Option<&str>, body: &Value| -> (u16, Value) {
        let mut r = ureq::post(url);
        if let Some(t) = token {
            r = r.set("Authorization", &format!("Bearer {t}"));
        }
        match r.set("Content-Type", "application/json").send_string(&body.to_string()) {
            Ok(a) => (a.status(), serde_json::from_str(&a.into_string().unwrap()).unwrap()),
            Err(ureq::Error::Status(s, a)) => (s, serde_json::from_str(&a.into_string().unwrap()).unwrap()),
            Err(e) => panic!("{e}"),
        }
    };
    let key = |b: u8| rollcall_core::keys::SecretKey::from_bytes([b; 32]).public().to_hex();
    let mut tokens = Vec::new();
    for g in 0..games {
        let base = &urls[g % urls.len()];
        let id = format!("{prefix}{g}");
        let body = json!({"game": id, "rules": "leader-activation@1", "scenario": scenario,
            "sides": [{"name": "allies", "key": key(1)}, {"name": "axis", "key": key(2)}]});
        let (s, created) = post(&format!("{base}/games"), None, &body);
        assert_eq!(s, 201, "{created}");
        let token = created["tokens"]["allies"].as_str().unwrap().to_string();
        for (side, n) in [("allies", 7u8), ("axis", 8)] {
            let share = json!({"share": rollcall_core::digest::hex32(&[n; 32])});
            let (s, v) = post(&format!("{base}/games/{id}/share"), created["tokens"][side].as_str(), &share);
            assert_eq!(s, 200, "{v}");
        }
        tokens.push((id, token));
    }
    let start = Instant::now();
    let handles: Vec<_> = tokens
        .into_iter()
        .enumerate()
        .map(|(g, (id, token))| {
            let urls = urls.clone();
            std::thread::spawn(move || {
                let status: Value =
                    serde_json::from_str(&ureq::get(&format!("{}/games/{id}", urls[0])).call().unwrap().into_string().unwrap())
                        .unwrap();
                let mut expected = status["head"]["hash"].as_str().unwrap().to_string();
                for i in 0..per_game {
                    let base = &urls[(g + i as usize) % urls.len()];
                    let body = json!({"expected_head": expected, "decision": {"type": "move", "piece": "rifles-1", "to": [i, 0]}});
                    let r = ureq::post(&format!("{base}/games/{id}/decisions"))
                        .set("Authorization", &format!("Bearer {token}"))
                        .send_string(&body.to_string())
                        .unwrap();
                    let v: Value = serde_json::from_str(&r.into_string().unwrap()).unwrap();
                    expected = v["head"]["hash"].as_str().unwrap().to_string();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let rate = (games as u64 * per_game) as f64 / start.elapsed().as_secs_f64();
    for mut c in children {
        c.kill().unwrap();
        c.wait().unwrap();
    }
    rate
}
