//! The `rollcall` binary: glue. `main` parses the command line ([`args`]),
//! checks once the context every command runs in
//! ([`input::checked::Checked`]) and calls [`commands::run()`], which
//! returns the exit code; only this crate prints or exits. Exit codes
//! ([`output::exit`]): 0 fine, 1 verification failed or versions differ, 2
//! bad input or usage (bad input names the file, line and field, and
//! nothing is written), 3 a decision the rules refuse.
//!
//! The crate in layers, each a folder, each importing only those below it:
//! [`args`] (the command line, clap's types alone) and [`fail`] (the
//! failure that exits 2) at the bottom; [`output`] (the one printer, the
//! record's page) above them; [`input`] (the store, record files, scripts,
//! rule versions, positions) above it; [`tui`] (the terminal's models) and
//! [`serve`] (the dice server's HTTP) above those; [`commands`] (a file per
//! command or family) at the top. `tests/house.rs` holds it.

/// `println!` for text that may hold text from a record or an input: every
/// control character but the newline is escaped ([`output::say`]).
macro_rules! say {
    () => {
        $crate::output::say("")
    };
    ($($arg:tt)*) => {
        $crate::output::say(&format!($($arg)*))
    };
}

/// A [`fail::Fail`] that the formatted message says all of.
macro_rules! fail {
    ($($arg:tt)*) => {
        $crate::fail::Fail::msg(format!($($arg)*))
    };
}

/// `print!`, escaped as [`say!`] escapes ([`output::show`]).
macro_rules! show {
    ($($arg:tt)*) => {
        $crate::output::show(&format!($($arg)*))
    };
}

mod args;
mod commands;
mod fail;
mod input;
mod output;
mod serve;
mod tui;

use std::process::ExitCode;

/// jemalloc rather than the C library's allocator. A game created whole
/// is made on the command's thread and written on another: every line,
/// and every decision's values, allocated on one thread and freed on the
/// other, which glibc's arenas pay for with a lock; with jemalloc's
/// thread caches, `run` and `import` of a 100k-event game take 0.80 × the
/// time, at a peak of 38–40 MiB against 29–30 (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    // Piped into `head`, a command should stop quietly, not panic on a
    // closed pipe: restore the default SIGPIPE that Rust's runtime ignores.
    // SAFETY: called first thing, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let matches = <args::Args as clap::CommandFactory>::command().get_matches();
    let mut args = <args::Args as clap::FromArgMatches>::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    args.prefer_command_line(&matches);
    input::store::set_wait(std::time::Duration::from_secs(args.wait));
    if args.command.opens_few_stores() {
        rollcall_store::exits_after_closing();
    }
    let cx = input::checked::Checked::new(&args);
    let code = match commands::run(args, &cx) {
        Ok(code) => code,
        Err(fail) => {
            let message = output::suggest::annotate(&fail.message(), input::store::game_ids);
            output::exit::input(&rollcall_core::text::escape_lines(&message), cx.mode)
        }
    };
    report_peak_memory();
    code
}

/// With `ROLLCALL_PEAK_RSS` set, prints this process's peak resident memory
/// (Linux's VmHWM) to stderr: how the benchmarks measure memory. A parent's
/// `getrusage` cannot: a child spawned by a large process inherits its high
/// water mark.
fn report_peak_memory() {
    if std::env::var_os("ROLLCALL_PEAK_RSS").is_none() {
        return;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        let kib = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim();
        eprintln!("rollcall: peak-rss-kib {kib}");
    }
}
