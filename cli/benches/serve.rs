//! The dice server under load, printed as figures: 50 games at once, each
//! played by its own client over loopback, every answer durable.
//!
//! `cargo bench -p rollcall-cli --bench serve` (`-- --games N --decisions M`).
//! It runs the release binary's `serve` on a fresh store, creates the games,
//! and times concurrent clients posting referee moves on the heads they
//! expect. It prints decisions/s and flushes per decision (from the
//! server's own count), beside the reference measured in the same run: the
//! same disk's rate of one fsync per small record. Goal: at least 5,000
//! decisions/s across the games on a 2-core machine — well above one fsync per
//! decision, which only group commit gives. See docs/benchmarks.md.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_rollcall");

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The reference: small records appended to a file, each fsynced, for a second.
fn fsyncs_per_second(dir: &std::path::Path) -> f64 {
    let mut file = std::fs::File::create(dir.join("fsync.bin")).unwrap();
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < Duration::from_secs(1) {
        file.write_all(&[7u8; 200]).unwrap();
        file.sync_data().unwrap();
        n += 1;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn post(agent: &ureq::Agent, url: &str, token: Option<&str>, body: &Value) -> Value {
    let mut r = agent.post(url).set("Content-Type", "application/json");
    if let Some(t) = token {
        r = r.set("Authorization", &format!("Bearer {t}"));
    }
    let text = match r.send_string(&body.to_string()) {
        Ok(r) => r.into_string().unwrap(),
        Err(ureq::Error::Status(s, r)) => panic!("{s}: {}", r.into_string().unwrap_or_default()),
        Err(e) => panic!("{e}"),
    };
    serde_json::from_str(&text).unwrap()
}

fn main() {
    let games = arg("--games", 50);
    let decisions = arg("--decisions", 200);
    let dir = tempfile::tempdir().unwrap();
    let reference = fsyncs_per_second(dir.path());
    let mut server = Command::new(BIN)
        .arg("--db")
        .arg(dir.path().join("db"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stderr = server.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("listening on ").nth(1) {
                let _ = tx.send(rest.split(' ').next().unwrap().to_string());
            } else if line.contains("made durable") {
                let _ = tx.send(line);
            }
        }
    });
    let base = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    let scenario: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/pbem/scenario.json")).unwrap(),
    )
    .unwrap();
    let agent = ureq::AgentBuilder::new().build();
    let key = |n: u8| rollcall_core::keys::SecretKey::from_bytes([n; 32]).public().to_hex();
    let mut players = Vec::new();
    for g in 0..games {
        let id = format!("g{g}");
        let created = post(
            &agent,
            &format!("{base}/games"),
            None,
            &json!({"game": id, "rules": "leader-activation@1",
            "scenario": scenario, "sides": [{"name": "allies", "key": key(1)}, {"name": "axis", "key": key(2)}]}),
        );
        let tokens = [
            created["tokens"]["allies"].as_str().unwrap().to_string(),
            created["tokens"]["axis"].as_str().unwrap().to_string(),
        ];
        let mut head = Value::Null;
        for (i, t) in tokens.iter().enumerate() {
            let share = json!({"share": rollcall_core::digest::hex32(&[i as u8 + 3; 32])});
            head = post(&agent, &format!("{base}/games/{id}/share"), Some(t), &share)["head"]["hash"].clone();
        }
        players.push((id, tokens, head.as_str().unwrap().to_string()));
    }
    let start = Instant::now();
    let clients: Vec<_> = players
        .into_iter()
        .map(|(id, tokens, mut head)| {
            let base = base.clone();
            std::thread::spawn(move || {
                let agent = ureq::AgentBuilder::new().build();
                for i in 0..decisions {
                    let body =
                        json!({"expected_head": head, "decision": {"type": "move", "piece": "rifles-1", "to": [i, 0]}});
                    let answer =
                        post(&agent, &format!("{base}/games/{id}/decisions"), Some(&tokens[(i % 2) as usize]), &body);
                    head = answer["head"]["hash"].as_str().unwrap().to_string();
                }
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    let elapsed = start.elapsed().as_secs_f64();
    unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
    server.wait().unwrap();
    let figures = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_default();
    let numbers: Vec<f64> = figures.split(|c: char| !c.is_ascii_digit()).filter_map(|s| s.parse().ok()).collect();
    let (made, flushes) = (numbers.first().copied().unwrap_or(0.0), numbers.get(1).copied().unwrap_or(0.0));
    let total = (games * decisions) as f64;
    let rate = total / elapsed;
    println!("serve: {games} games × {decisions} decisions over loopback, each answer durable");
    println!("  reference: one fsync per 200-byte record on this disk: {reference:.0}/s");
    println!(
        "  {rate:.0} decisions/s ({:.1}× the fsync-per-record reference; goal ≥ 5000/s: {:.2}× the goal, {}); {:.3} flushes per decision ({flushes:.0} flushes for {made:.0} decisions)",
        rate / reference,
        rate / 5000.0,
        if rate >= 5000.0 { "met" } else { "not met" },
        flushes / made.max(1.0)
    );
}
