//! The `rollcall` binary: glue. `main` parses the command line and calls
//! [`commands::run`], which returns the exit code; only this crate prints or
//! exits. Exit codes: 0 fine, 1 verification failed or versions differ,
//! 2 bad input or usage (bad input names the file, line and field, and
//! nothing is written).

mod args;
mod commands;
mod demo;
mod diff;
mod golden;
mod store;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = args::Args::parse();
    match commands::run(args) {
        Ok(code) => code,
        Err(fail) => {
            eprintln!("error: {}", fail.0);
            ExitCode::from(2)
        }
    }
}
