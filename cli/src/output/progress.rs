//! Progress bars for long work (verify, import, export, replay, diff of a
//! long record): on standard error, on a terminal only, never with
//! `--json`, and only when the work is long enough to wait for.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// Records shorter than this go by in a blink: no bar.
pub const LONG: u64 = 5_000;

/// Whether a bar is wanted: a terminal on standard error, not `quiet` (no
/// `--json`), and long work (`events`, when known; a record file's size in
/// bytes / 200 when not: a few hundred bytes an event).
pub fn wanted(terminal: bool, quiet: bool, events: u64) -> bool {
    terminal && !quiet && events >= LONG
}

/// A bar over `events` events, with events/s and an estimate, or none;
/// `quiet` with `--json` (or where the output shows its own progress).
pub fn events(what: &str, events: u64, quiet: bool) -> Option<ProgressBar> {
    if !wanted(std::io::stderr().is_terminal(), quiet, events) {
        return None;
    }
    let bar = ProgressBar::new(events);
    bar.set_style(
        ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} events, {per_sec}, {eta} left")
            .expect("a valid template"),
    );
    bar.set_message(what.to_string());
    Some(bar)
}

/// A bar for a record file: its events are not counted before it is read,
/// so its size stands for them; none when `quiet` (with `--json`).
pub fn file(what: &str, path: &std::path::Path, quiet: bool) -> Option<ProgressBar> {
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if !wanted(std::io::stderr().is_terminal(), quiet, bytes / 200) {
        return None;
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {msg} {pos} events, {per_sec}").expect("a valid template"));
    bar.set_message(what.to_string());
    Some(bar)
}

/// One more event done.
pub fn tick(bar: &Option<ProgressBar>) {
    if let Some(bar) = bar {
        bar.inc(1);
    }
}

/// The work is done: the bar goes.
pub fn done(bar: Option<ProgressBar>) {
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_only_on_a_terminal_without_json_for_long_work() {
        assert!(wanted(true, false, LONG));
        assert!(!wanted(false, false, LONG), "a pipe sees no bar");
        assert!(!wanted(true, true, LONG), "--json sees no bar");
        assert!(!wanted(true, false, LONG - 1), "short work needs no bar");
    }
}
