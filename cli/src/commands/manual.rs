//! `rollcall completions SHELL` and `rollcall man -o DIR`: generated from
//! the same clap definitions the parser uses (clap_complete, clap_mangen),
//! so they cannot drift from the commands.

use std::path::Path;
use std::process::ExitCode;

use clap::CommandFactory;

use crate::args::Args;
use crate::fail::{Context, Fail};

/// Prints the completion script of `shell` to standard output.
pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode, Fail> {
    let mut command = Args::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "rollcall", &mut script);
    crate::output::document(&script)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes `rollcall.1` and a page per subcommand (`rollcall-verify.1`,
/// `rollcall-pbem-invite.1`, …) into `dir`.
pub fn man(dir: &Path) -> Result<ExitCode, Fail> {
    std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
    let command = Args::command();
    let mut written = 0;
    write_pages(&command, "rollcall", dir, &mut written)?;
    say!("wrote {written} man pages into {}", dir.display());
    Ok(ExitCode::SUCCESS)
}

fn write_pages(command: &clap::Command, name: &str, dir: &Path, written: &mut usize) -> Result<(), Fail> {
    let page = command.clone().name(name.to_string());
    let mut bytes = Vec::new();
    clap_mangen::Man::new(page).render(&mut bytes).map_err(|e| fail!("{name}: {e}"))?;
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, bytes).with_context(|| path.display().to_string())?;
    *written += 1;
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, written)?;
    }
    Ok(())
}
