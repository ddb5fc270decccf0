//! A `rollcall serve` child for the tests that talk to the dice server
//! (`tests/serve.rs`, `tests/play_browser.rs`): started on a free loopback
//! port, its log lines kept, stopped with SIGTERM or killed.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A `rollcall serve` child on a free loopback port; its log lines kept.
pub struct Server {
    child: Child,
    url: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// A server over the sled store in `db`, its games `turns` sealed turns long.
    pub fn start(db: &Path, turns: u32) -> Server {
        Server::on(&[OsStr::new("--db"), db.as_os_str()], turns)
    }

    /// A server over the PostgreSQL database at `url`.
    pub fn on_postgres(url: &str, turns: u32) -> Server {
        Server::on(&[OsStr::new("--store"), OsStr::new(url)], turns)
    }

    fn on(store: &[&OsStr], turns: u32) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rollcall"))
            .env_remove("ROLLCALL_DB")
            .env_remove("ROLLCALL_STORE")
            .args(store)
            .args(["serve", "--addr", "127.0.0.1:0", "--turns", &turns.to_string()])
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        let lines = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on ").nth(1) {
                    let _ = tx.send(rest.split(' ').next().unwrap().to_string());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let url = rx.recv_timeout(Duration::from_secs(60)).expect("the server says where it listens");
        Server { child, url, log }
    }

    /// The address of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    /// SIGKILL: no chance to finish anything.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM; it must stop cleanly. Its log lines.
    pub fn stop(mut self) -> Vec<String> {
        unsafe { libc_kill(self.child.id() as i32, 15) };
        let status = self.child.wait().unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let log = self.log.lock().unwrap().clone();
        // What it said when it panicked (each panic and the line after it),
        // then its last lines.
        let panics: Vec<&str> = log
            .iter()
            .enumerate()
            .filter(|(i, _)| log[*i].contains("panicked at") || (*i > 0 && log[*i - 1].contains("panicked at")))
            .map(|(_, l)| l.as_str())
            .collect();
        let last = &log[log.len().saturating_sub(10)..];
        assert!(
            status.success(),
            "a clean shutdown: {status:?}; it said:\n{}\n…\n{}",
            panics.join("\n"),
            last.join("\n")
        );
        log
    }
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

/// The body of `POST /games` for a sealed game `game` with the rules and
/// scenario of `header` (a simulator's random game, say), and its sides in
/// order; side `i`'s key is that of `SecretKey::from_bytes([i + 1; 32])`.
pub fn terms_of(header: &rollcall_core::record::Header, game: &str) -> (serde_json::Value, Vec<String>) {
    use rollcall_core::keys::SecretKey;
    use serde_json::json;
    let registry = rollcall_core::registry::builtin();
    let sides = rollcall_core::game::Game::open(header.clone(), registry).unwrap().sides();
    let keys: Vec<serde_json::Value> = sides
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"name": s, "key": SecretKey::from_bytes([i as u8 + 1; 32]).public().to_hex()}))
        .collect();
    let rules =
        json!({"version": header.rules.version, "options": header.rules.options, "constants": header.rules.constants});
    (json!({"game": game, "rules": rules, "scenario": header.scenario, "sides": keys}), sides)
}
