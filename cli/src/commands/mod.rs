//! The commands: a file per command or family (`play/`, `impact/`), each a
//! thin function over the core, the store and the server that reads its
//! inputs ([`crate::input`]) and hands what it found to the printer
//! ([`crate::output`]): human text by default, one JSON document with
//! `--json`. [`run()`] dispatches the command line's [`Command`].

pub mod decisions;
pub mod demo;
pub mod diff;
pub mod export;
pub mod games;
pub mod golden;
pub mod impact;
pub mod import;
pub mod manual;
pub mod moves;
pub mod new;
pub mod pbem;
pub mod play;
pub mod read;
pub mod rules;
pub mod run;
pub mod scenario;
pub mod schemas;
pub mod simulate;
pub mod store;
pub mod turn;
pub mod verify;
pub mod view;

use std::process::ExitCode;

use rollcall_core::script::check_game_id;

use crate::args::{Args, Command, ScenarioCommand};
use crate::fail::Fail;
use crate::input::checked::Checked;
use crate::input::position::Position;
use crate::input::store::StoreSpec;
use crate::output;

/// Runs the command `args` names, in the context `cx` (checked once, in main).
pub fn run(args: Args, cx: &Checked) -> Result<ExitCode, Fail> {
    let named = args.named_store();
    let (db, mode) = (&cx.db, cx.mode);
    match args.command {
        Command::Run { script, game } => run::run_script(cx, &script, game),
        Command::New(args) => Ok(output::print(&new::new(db, args)?, mode)),
        Command::Play(args) => play::run(cx, args),
        Command::Moves { game, side } => moves::moves(cx, &game, side),
        Command::Serve { addr, turns } => crate::serve::run(db, &addr, turns),
        Command::Log { game, from, position } => read::log(cx, &game, Position::given(&position, from)),
        Command::State { game, at, position } => {
            Ok(output::print(&read::state(db, &game, Position::given(&position, at))?, mode))
        }
        Command::Replay { game, step, plain, to, position } => {
            read::replay_command(cx, &game, step, plain, Position::given(&position, to))
        }
        Command::Verify { targets, expect_head } => verify::verify_each_target(cx, &targets, expect_head),
        Command::Diff(args) => diff::run(cx, &args),
        Command::Simulate(args) => simulate::run(&args, mode),
        Command::Impact(args) => impact::run(cx, &args),
        Command::View(args) => view::run(cx, args),
        Command::Export { game, output, force } => export::export(cx, &game, &output, force),
        Command::Import { file, key } => import::import(cx, &file, key.as_deref()),
        Command::Games { command } => games::run(cx, command),
        Command::Rules(command) => rules::run(cx, command),
        Command::Scenario(ScenarioCommand::Template { ruleset, output, force }) => {
            scenario::template(&ruleset, output.as_deref(), force)
        }
        Command::Golden(command) => golden::run(cx, command),
        Command::Demo => demo::run(named.map(|named| StoreSpec::new(Some(named)))),
        Command::Completions { shell } => manual::completions(shell),
        Command::Man { output } => manual::man(&output),
        Command::Keygen { output: file } => Ok(output::print(&pbem::keygen(&file)?, mode)),
        Command::Pbem(c) => pbem::pbem(cx, c),
        Command::Turn(c) => turn::turn(cx, c),
        Command::Fork(c) => turn::fork(cx, c),
        Command::Store(command) => self::store::run(cx, command),
    }
}

/// A game id from the command line, checked as `run` and `new` check them.
pub fn checked_game_id(flag: &str, id: String) -> Result<String, Fail> {
    check_game_id(&id).map_err(|m| fail!("{flag} {m}"))?;
    Ok(id)
}

/// 32 bytes from the operating system's randomness: seed shares and keys.
pub fn random_bytes() -> Result<[u8; 32], Fail> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).map_err(|e| fail!("no randomness from the operating system: {e}"))?;
    Ok(bytes)
}
