//! The command line: every command, its flags, and an example for each.
//! Clap's types only: this folder imports nothing else of the CLI, so the
//! command line reads on its own, and every command is reached from
//! [`Command`]. The flags of a command (or of a family) are in a file of
//! their own: [`play`] (new, play, positions), [`compare`] (diff,
//! simulate, impact, view), [`pbem`], [`rules`], [`store`].

mod compare;
mod pbem;
mod play;
mod rules;
mod store;

pub use compare::{Bookmark, DiffArgs, ImpactArgs, SimulateArgs, ViewArgs};
pub use pbem::{ForkCommand, PbemCommand, TurnCommand};
pub use play::{NewArgs, PlayArgs, PositionArgs};
pub use rules::{GoldenCommand, RulesCommand, ScenarioCommand};
pub use store::{GamesCommand, StoreCommand};

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// rollcall: record, replay, verify and diff the command-and-control layer of
/// tabletop wargames. Every die roll, activation and rally is a seeded,
/// hash-chained event; a pure reducer rebuilds the game from the log.
#[derive(Debug, Parser)]
#[command(
    name = "rollcall",
    version,
    after_help = "Start with: rollcall demo\nExit codes: 0 fine, 1 verification failed or versions differ, 2 bad input or usage,\n3 a decision the rules refuse (with --json, \"error\": {\"kind\": \"input\" or \"refused\"})."
)]
pub struct Args {
    /// The store directory (an embedded sled database).
    /// Default: $XDG_DATA_HOME/rollcall/db, else ~/.local/share/rollcall/db.
    #[arg(long, global = true, env = "ROLLCALL_DB", value_name = "DIR")]
    pub db: Option<PathBuf>,

    /// How long to wait for another rollcall process to let go of the store
    /// (sled lets one process at a time open it) before giving up.
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = 5)]
    pub wait: u64,
    /// The store, by location: a PostgreSQL database
    /// (`postgres://user:password@host/db`, `postgresql:///db?host=/run/postgresql`)
    /// shared by several servers, or a sled directory (as --db). Wins over --db;
    /// set in the environment, it gives way to --db given on the command line.
    #[arg(long, global = true, env = "ROLLCALL_STORE", value_name = "LOCATION")]
    pub store: Option<String>,

    /// Print one JSON document instead of text.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

impl Args {
    /// A flag on the command line beats the environment: `--db DIR` given
    /// there wins over `ROLLCALL_STORE` set outside (`--store` given there
    /// wins over both, and over `ROLLCALL_DB`).
    /// The store the command line or the environment names, if any:
    /// `--store LOCATION` names it as `--db` does, and also a database.
    pub fn named_store(&self) -> Option<PathBuf> {
        self.store.as_ref().map(PathBuf::from).or_else(|| self.db.clone())
    }

    pub fn prefer_command_line(&mut self, matches: &clap::ArgMatches) {
        use clap::parser::ValueSource::CommandLine;
        if matches.value_source("db") == Some(CommandLine) && matches.value_source("store") != Some(CommandLine) {
            self.store = None;
        }
    }
}

impl Command {
    /// Whether the command opens a store once or a few times and then
    /// exits: a store it closes need not free its memory, which the exit
    /// takes back (`rollcall_store::exits_after_closing`). Not a server or
    /// the viewer, which open stores for as long as they run, nor the
    /// commands that play or check many games each in a store of its own.
    pub fn opens_few_stores(&self) -> bool {
        !matches!(
            self,
            Command::Serve { .. }
                | Command::View(_)
                | Command::Simulate(_)
                | Command::Impact(_)
                | Command::Golden(_)
                | Command::Demo
        )
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play a script (scenario + seed + decisions) into the store and narrate it.
    #[command(
        after_help = "Example:\n  rollcall run fixtures/leader-activation/rally.json\n  rollcall run my-game.json --game my-game-2 --json"
    )]
    Run {
        /// The script file.
        script: PathBuf,
        /// Store the game under this id instead of the script's. The game id
        /// is part of the seed: another id draws other dice.
        #[arg(long)]
        game: Option<String>,
    },
    /// Start a new game from a scenario, with fresh random seed shares.
    #[command(
        after_help = "Example:\n  rollcall new --rules leader-activation@1 --scenario scenario.json --game friday\n  rollcall new --rules house.json --scenario scenario.json --table"
    )]
    New(NewArgs),
    /// Make one decision (or a JSON array of them) in a stored game; on a terminal, a turn from a menu.
    #[command(
        after_help = "Example:\n  rollcall play friday\n  rollcall play friday decision.json\n  rollcall play friday --pick 3\n  rollcall play friday --pick 'leader-action' action='moves to the wall'\n  echo '{\"type\":\"command\",\"unit\":\"U2\"}' | rollcall play friday -\n  rollcall play friday - --stream < decisions.jsonl\n  rollcall play --server http://club.example:7878 --token $TOKEN friday decision.json"
    )]
    Play(PlayArgs),
    /// List the decisions legal now, numbered and in words: a side's own
    /// (by default the side awaited), then the referee's inputs.
    #[command(
        after_help = "Example:\n  rollcall moves friday\n  rollcall moves friday --side axis\n  rollcall moves friday --side referee\n  rollcall moves friday --json\n  rollcall play friday --pick 3\n  rollcall play friday --pick 'command rifles-1'\n  rollcall moves friday --server http://dice.example:7878 --token $TOKEN\n  rollcall play friday --server http://dice.example:7878 --token $TOKEN --pick 3"
    )]
    Moves {
        /// A game id in the store, or a record file (.jsonl), read where it
        /// is; with --server, a game id on the dice server.
        game: String,
        /// The side to list for (by default this store's side in a
        /// play-by-email game, the token's side on a dice server, else the
        /// side the game awaits); `referee` for the referee's inputs alone.
        #[arg(long)]
        side: Option<String>,
        /// List the game on a dice server (`rollcall serve`) instead of this store.
        #[arg(long, value_name = "URL")]
        server: Option<String>,
        /// With --server: your side's token, so that the list is your side's
        /// (ignored without --server, so that ROLLCALL_TOKEN may stay set).
        #[arg(long, env = "ROLLCALL_TOKEN", hide_env_values = true)]
        token: Option<String>,
    },
    /// List a game's events, narrated; from the start, or from a seq, a decision or a turn on.
    #[command(
        after_help = "Example:\n  rollcall log rally\n  rollcall log rally --decision 7\n  rollcall log rally --seq 20 --json\n  rollcall log rally.jsonl"
    )]
    Log {
        /// A game id in the store, or a record file (.jsonl), read where it is: nothing is imported.
        game: String,
        /// The same as --seq: show events from this seq on.
        #[arg(long, value_name = "SEQ", conflicts_with = "position")]
        from: Option<u64>,
        #[command(flatten)]
        position: PositionArgs,
    },
    /// Show a game's state, now or after a seq, a decision (with its rolls and facts) or a turn.
    #[command(
        after_help = "Example:\n  rollcall state rally\n  rollcall state rally --decision 7\n  rollcall state rally --seq 12 --json\n  rollcall state rally.jsonl --turn 2"
    )]
    State {
        /// A game id in the store, or a record file (.jsonl), read where it is: nothing is imported.
        game: String,
        /// The same as --seq: the state just after this seq.
        #[arg(long, value_name = "SEQ", conflicts_with = "position")]
        at: Option<u64>,
        #[command(flatten)]
        position: PositionArgs,
    },
    /// Replay a game from its facts, narrated; step by step, or up to the end of a seq, a decision or a turn.
    #[command(
        after_help = "Example:\n  rollcall replay rally --step\n  rollcall replay rally --step --decision 7\n  rollcall replay rally --step --plain\n  rollcall replay rally --turn 1\n  rollcall replay rally --seq 30\n  rollcall replay rally.jsonl --step"
    )]
    Replay {
        /// A game id in the store, or a record file (.jsonl), read where it is: nothing is imported.
        game: String,
        /// Step through the game: on a terminal, an interactive view (back and
        /// forth by event, decision and turn; `?` shows the keys); elsewhere,
        /// the state after each decision, printed.
        #[arg(long)]
        step: bool,
        /// With --step on a terminal: print as off a terminal, no interactive view.
        #[arg(long, requires = "step")]
        plain: bool,
        /// The same as --seq: stop after this seq.
        #[arg(long, value_name = "SEQ", conflicts_with = "position")]
        to: Option<u64>,
        #[command(flatten)]
        position: PositionArgs,
    },
    /// Verify stored games or record files: seeds, legality, facts and chain.
    #[command(
        after_help = "Example:\n  rollcall verify rally\n  rollcall verify rally.jsonl --expect-head 3f2a…\n  rollcall verify http://club.example:7878/games/friday/record\n  rollcall verify season/*.jsonl\n\nWith several targets, each is verified in turn, and a tally ends the report (with --json, one document: {\"ok\", \"records\": [each record's document]}).\nExit 0 when every record is proven, 1 when one fails, 2 when a target cannot be read as a record (its error is printed in its place, and the others are still verified)."
    )]
    Verify {
        /// A game id in the store, a record file (.jsonl), or a record's URL on a dice server; several are verified in turn.
        #[arg(required = true, value_name = "TARGET")]
        targets: Vec<String>,
        /// Also demand that the record ends at this head hash (one target only).
        #[arg(long, value_name = "HASH")]
        expect_head: Option<String>,
    },
    /// Run a record's decisions under two rule versions and show where they part, and why.
    #[command(
        after_help = "Example:\n  rollcall diff rally --b house.json\n  rollcall diff game.jsonl --a combat-hq@base --b combat-hq@multi-bg --all\n\nExit 0 when the versions agree on every decision, 1 when they part, 2 on bad input."
    )]
    Diff(DiffArgs),
    /// Play N seeded games under two rule versions, with the same policy and dice, and compare them.
    #[command(
        after_help = "Example:\n  rollcall simulate fixtures/leader-activation/rally.json --b +natural-6-rallies --games 1000\n  rollcall simulate scenario.json --a combat-hq@base --b combat-hq@multi-bg --games 500 --policy longest-chain --keep sims\n\nExit 0 when no measure differs significantly, 1 when one does, 2 on bad input."
    )]
    Simulate(SimulateArgs),
    /// Run every game of a corpus under its own rules and under B: which part, where, and what changes.
    #[command(
        after_help = "Example:\n  rollcall impact fixtures --b +natural-6-rallies\n  rollcall impact games/ friday --b house.json --json\n\nExit 0 when no game parts on outcome, 1 when one does (or a record does not verify), 2 on bad input."
    )]
    Impact(ImpactArgs),
    /// Write a game as one self-contained HTML page that steps through it and draws the table.
    #[command(
        after_help = "Example:\n  rollcall view rally -o rally.html --bookmark '14:the failed rally'\n  rollcall view showcase.jsonl --diff --b combat-hq@multi-bg\n\nThe page needs no network and embeds the record. Exit 1 (the page is still written) when the record does not verify."
    )]
    View(ViewArgs),
    /// Write a stored game to a record file (JSON Lines).
    #[command(
        after_help = "Example:\n  rollcall export rally -o rally.jsonl\n  rollcall export rally -o - | gzip > rally.jsonl.gz"
    )]
    Export {
        game: String,
        /// The record file, or - for standard output. An existing file is
        /// replaced only with --force; a device or a pipe (/dev/null, a
        /// FIFO) is written into.
        #[arg(short, long)]
        output: PathBuf,
        /// Replace the output file if it exists.
        #[arg(long)]
        force: bool,
    },
    /// Verify a record file and store it as a game (or extend the stored game).
    #[command(
        after_help = "Example:\n  rollcall import rally.jsonl\n  rollcall import friday.jsonl --key allies.key\n\nA record of a game the store has must agree with it and may extend it; one that parts from it is a fork, kept as evidence (exit 1)."
    )]
    Import {
        file: PathBuf,
        /// In a play-by-email game: take up your side again, proven by your
        /// secret key (a new machine, a lost store).
        #[arg(long)]
        key: Option<PathBuf>,
    },
    /// List the games in the store, or remove one.
    #[command(
        args_conflicts_with_subcommands = true,
        after_help = "Example:\n  rollcall games\n  rollcall games --json\n  rollcall games rm friday --yes"
    )]
    Games {
        #[command(subcommand)]
        command: Option<GamesCommand>,
    },
    /// List rulesets, show a rule version's options and constants, a
    /// ruleset's decisions, or the JSON Schemas of rollcall's files.
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Starting points: a ruleset's scenario template.
    #[command(subcommand)]
    Scenario(ScenarioCommand),
    /// Check fixtures against their golden outputs, or rewrite them.
    #[command(subcommand)]
    Golden(GoldenCommand),
    /// Print a shell's completion script for rollcall.
    #[command(
        after_help = "Example:\n  rollcall completions bash > ~/.local/share/bash-completion/completions/rollcall\n  rollcall completions zsh > ~/.zfunc/_rollcall\n  rollcall completions fish > ~/.config/fish/completions/rollcall.fish"
    )]
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Write rollcall's man pages (one per command and subcommand) into a directory.
    #[command(after_help = "Example:\n  rollcall man -o ~/.local/share/man/man1 && man rollcall-verify")]
    Man {
        /// The directory to write the pages into (created if need be).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Make a side's key pair for play by email (ed25519).
    #[command(
        after_help = "Example:\n  rollcall keygen -o allies.key\n\nThe key file is created readable by you only; the public key is printed (and is also in the file)."
    )]
    Keygen {
        /// Where to write the secret key (refused if the file exists).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Start a play-by-email game: invite, accept, start.
    #[command(subcommand)]
    Pbem(PbemCommand),
    /// Exchange turns of a play-by-email game: export yours, apply the opponent's.
    #[command(subcommand)]
    Turn(TurnCommand),
    /// Show the forks of a game kept as evidence (two different turns on one head).
    #[command(subcommand)]
    Fork(ForkCommand),
    /// The store itself: bring a PostgreSQL database's schema up to date,
    /// copy games between stores.
    #[command(
        subcommand,
        after_help = "Example:\n  rollcall store migrate --store postgres://rollcall:secret@db.example/league\n  rollcall store copy --from ~/.local/share/rollcall/db --to postgres://rollcall:secret@db.example/league"
    )]
    Store(StoreCommand),
    /// Run the sealed dice server and referee (HTTP/JSON) on this store.
    #[command(
        after_help = "Example:\n  rollcall serve\n  rollcall serve --addr 0.0.0.0:7878 --db /var/lib/rollcall\n\nLoopback only unless --addr says otherwise. One log line per request on standard error.\nA side plays from a browser at /games/ID/play.\nThe API is described at /openapi.json (docs/openapi.json)."
    )]
    Serve {
        /// Where to listen.
        #[arg(long, default_value = "127.0.0.1:7878")]
        addr: String,
        /// How many sealed turns each new game's chain holds.
        #[arg(long, default_value_t = rollcall_core::sealed::DEFAULT_LENGTH)]
        turns: u64,
    },
    /// Play, replay and verify a game, then catch a tampered die.
    #[command(after_help = "Example:\n  rollcall demo\n  rollcall demo --db /tmp/demo-db")]
    Demo,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every flag and option of every command and subcommand, `--json`
    /// included, says what it does in --help.
    #[test]
    fn every_flag_of_every_command_has_help_text() {
        fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let builtin = matches!(arg.get_id().as_str(), "help" | "version");
                if !builtin && !arg.is_positional() && arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} --{}", arg.get_long().unwrap_or(arg.get_id().as_str())));
                }
            }
            for sub in command.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::Args::command(), "rollcall", &mut missing);
        assert!(missing.is_empty(), "flags without help text:\n{}", missing.join("\n"));
    }
}
