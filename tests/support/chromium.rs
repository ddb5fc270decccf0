//! Chromium for the browser tests (`viewer_browser.rs`, `play_browser.rs`,
//! each including it with `#[path]`): found on the machine, launched
//! headless over the DevTools protocol (the `headless_chrome` crate), and
//! every console error and exception of a tab kept.
//!
//! Chromium is Debian's `chromium` (`.ci/run` installs it). Without it a
//! browser test FAILS when `CI` is set, and is skipped with a notice
//! otherwise. `ROLLCALL_CHROMIUM` names another binary.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use headless_chrome::protocol::cdp::types::Event as Cdp;
use headless_chrome::{Browser, LaunchOptions, Tab};

/// Chromium: `ROLLCALL_CHROMIUM`, else the first of the usual names on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ROLLCALL_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let dirs = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
        for dir in std::env::split_paths(&dirs) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// Chromium, or None after a notice that `test` is skipped; under `CI` a
/// missing Chromium fails the test instead.
pub fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    let found = find_chromium();
    if found.is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("CI is set, but Chromium is missing: {test} must run in a real browser (apt-get install chromium; .ci/run does it), or name one with ROLLCALL_CHROMIUM");
        }
        eprintln!("NOTICE: {test} skipped: no Chromium on PATH (apt-get install chromium, or set ROLLCALL_CHROMIUM)");
    }
    found
}

/// Headless Chromium with a profile of its own and a window of `size`.
pub fn launch(chromium: PathBuf, profile: &Path, size: (u32, u32)) -> Browser {
    let flags: Vec<&OsStr> = [
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    let options = LaunchOptions::default_builder()
        .path(Some(chromium.clone()))
        .headless(true) // --headless
        .sandbox(false) // --no-sandbox: CI runs as root
        .enable_gpu(false) // --disable-gpu
        .user_data_dir(Some(profile.to_path_buf()))
        .window_size(Some(size))
        .disable_default_args(true)
        .args(flags)
        .idle_browser_timeout(Duration::from_secs(300))
        .build()
        .unwrap();
    Browser::new(options).unwrap_or_else(|e| panic!("{} would not start: {e:#}", chromium.display()))
}

/// Every console error, exception and error log entry `tab` raises from now on.
pub fn console_errors(tab: &Tab) -> Arc<Mutex<Vec<String>>> {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    tab.enable_log().unwrap();
    tab.enable_runtime().unwrap();
    tab.add_event_listener(Arc::new(move |event: &Cdp| {
        let error = match event {
            Cdp::RuntimeExceptionThrown(e) => Some(format!("exception: {:?}", e.params.exception_details)),
            Cdp::RuntimeConsoleAPICalled(e) if format!("{:?}", e.params.Type) == "Error" => {
                Some(format!("console.error: {:?}", e.params.args.iter().map(|a| &a.value).collect::<Vec<_>>()))
            }
            Cdp::LogEntryAdded(e) if format!("{:?}", e.params.entry.level) == "Error" => {
                Some(format!("log: {}", e.params.entry.text))
            }
            _ => None,
        };
        if let Some(error) = error {
            sink.lock().unwrap().push(error);
        }
    }))
    .unwrap();
    errors
}
