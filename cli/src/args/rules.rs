//! The rules author's reference commands: `rules`, `scenario`, `golden`.

use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Example:\n  rollcall rules list\n  rollcall rules show leader-activation@1+natural-6-rallies\n  rollcall rules show house.json --json\n  rollcall rules refusals leader-activation\n  rollcall rules decisions combat-hq"
)]
pub enum RulesCommand {
    /// Every ruleset and its versions.
    #[command(after_help = "Example:\n  rollcall rules list")]
    List,
    /// Every option and constant of a version (or house-rules file): value,
    /// default, and the rules sentence it settles.
    #[command(
        after_help = "Example:\n  rollcall rules show leader-activation\n  rollcall rules show house.json --json"
    )]
    Show {
        /// `ruleset`, `ruleset@version`, or a house-rules JSON file.
        version: String,
    },
    /// Every kind of refusal of a ruleset (its own, then the shared ones):
    /// the stable name `--json` output and serve carry in `"refusal"`, and
    /// the rule or open point it follows.
    #[command(
        after_help = "Example:\n  rollcall rules refusals leader-activation\n  rollcall rules refusals combat-hq --json"
    )]
    Refusals {
        /// The ruleset id, e.g. `leader-activation`.
        ruleset: String,
    },
    /// Each decision type of a ruleset: its fields (type, required or not,
    /// what it means) and an example.
    #[command(
        after_help = "Example:\n  rollcall rules decisions leader-activation\n  rollcall rules decisions phoenix-command --json"
    )]
    Decisions {
        /// The ruleset (`rollcall rules list` names them).
        ruleset: String,
    },
    /// JSON Schemas of rollcall's files: each ruleset's scripts, scenarios,
    /// decisions and facts, house rules, record lines and turn files.
    /// Without NAME, lists them; with NAME, prints that one.
    #[command(
        after_help = "Example:\n  rollcall rules schema\n  rollcall rules schema leader-activation.decision\n  rollcall rules schema -o docs/schemas"
    )]
    Schema {
        /// The schema to print or write (e.g. `combat-hq.scenario`); default: all.
        name: Option<String>,
        /// Write the schema(s) into this directory as NAME.json (created if
        /// need be; files there of the same names are replaced).
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
#[command(after_help = "Example:\n  rollcall scenario template combat-hq -o scenario.json")]
pub enum ScenarioCommand {
    /// Write a small starting scenario of a ruleset, which `new` and a
    /// script's `scenario` accept as it is; edit it into your own.
    #[command(
        after_help = "Example:\n  rollcall scenario template leader-activation -o scenario.json\n  rollcall new --rules leader-activation@1 --scenario scenario.json --game friday"
    )]
    Template {
        /// The ruleset (`rollcall rules list` names them).
        ruleset: String,
        /// The file to write (default: standard output). An existing file is
        /// replaced only with --force.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Replace the file -o names if it exists.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Example:\n  rollcall golden check fixtures\n  rollcall golden bless fixtures/leader-activation"
)]
pub enum GoldenCommand {
    /// Replay and verify every script in DIR and compare with the expected files.
    #[command(after_help = "Example:\n  rollcall golden check fixtures")]
    Check(GoldenArgs),
    /// Rewrite the expected files of every script in DIR (refused when CI is set).
    #[command(after_help = "Example:\n  rollcall golden bless fixtures/leader-activation")]
    Bless(GoldenArgs),
}

#[derive(Debug, ClapArgs)]
pub struct GoldenArgs {
    pub dir: PathBuf,
}
