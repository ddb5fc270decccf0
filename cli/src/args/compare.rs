//! The commands that compare rule versions, or show a game: `diff`,
//! `simulate`, `impact`, `view`.

use std::path::PathBuf;
use std::str::FromStr;

use clap::Args as ClapArgs;
use serde::Serialize;

/// `rollcall diff TARGET --b VERSION`.
#[derive(Debug, ClapArgs)]
pub struct DiffArgs {
    /// A game id in the store, or a record file (.jsonl).
    pub target: String,
    /// Version A: `ruleset@version` or a house-rules file (default: the record's own).
    #[arg(long)]
    pub a: Option<String>,
    /// Version B: `ruleset@version[+option][+name=value]…`, a house-rules
    /// file, or `+option…` for version A with those settings changed.
    #[arg(long)]
    pub b: String,
    /// Report every divergent decision, grouped by turn (default: the first).
    #[arg(long)]
    pub all: bool,
}

/// `rollcall simulate`'s arguments.
#[derive(Debug, ClapArgs)]
pub struct SimulateArgs {
    /// A scenario JSON file (name its version with --a), or a script, whose
    /// scenario and rules (the default A) are taken; a script's decisions are
    /// not played.
    pub input: PathBuf,
    /// Version A: `ruleset@version[+option]…` or a house-rules file
    /// (default: the script's rules).
    #[arg(long)]
    pub a: Option<String>,
    /// Version B: `ruleset@version[+option]…`, a house-rules file, or
    /// `+option…` for A with those settings changed.
    #[arg(long)]
    pub b: String,
    /// How many games to play under each version.
    #[arg(long)]
    pub games: u64,
    /// The run's seed: the same seed gives the same games and report.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How both sides play: `random`, or the ruleset's purposeful policy
    /// (an unknown name lists them).
    #[arg(long, default_value = "random")]
    pub policy: String,
    /// A game stops once it is past this turn (or when it is over).
    #[arg(long, default_value_t = 6)]
    pub turns: u32,
    /// A game stops after this many decisions at most.
    #[arg(long, default_value_t = 3000)]
    pub decisions: u64,
    /// Write every game as a record: DIR/a/GAME.jsonl and DIR/b/GAME.jsonl
    /// (the two share their game id, as they share their dice: import them
    /// into different stores).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
}

/// `rollcall impact`'s arguments.
#[derive(Debug, ClapArgs)]
pub struct ImpactArgs {
    /// Directories (every script `*.json`, not `*.house.json`, and record
    /// `*.jsonl` under them), script or record files, or game ids in the store.
    #[arg(required = true, value_name = "DIR|GAME")]
    pub targets: Vec<String>,
    /// Version B: `ruleset@version[+option][+name=value]…` or a house-rules
    /// file (games of other rulesets are skipped), or `+option…` for each
    /// game's own rules with those settings changed (games whose rules lack
    /// them are skipped).
    #[arg(long)]
    pub b: String,
    /// Also write the report as one self-contained HTML page (no network
    /// needed) to this file; an existing file is replaced only with --force.
    #[arg(short, long, value_name = "REPORT.html")]
    pub output: Option<PathBuf>,
    /// Replace the -o file if it exists.
    #[arg(long, requires = "output")]
    pub force: bool,
}

/// `rollcall view`'s arguments.
#[derive(Debug, ClapArgs)]
pub struct ViewArgs {
    /// A game id in the store, or a record file (.jsonl).
    pub target: String,
    /// The page to write (default: GAME.html in the current directory,
    /// replaced if there). An existing file -o names is replaced only with --force.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Replace the file -o names if it exists.
    #[arg(long)]
    pub force: bool,
    /// A named step: SEQ:label (repeat).
    #[arg(long = "bookmark", value_name = "SEQ:LABEL")]
    pub bookmarks: Vec<Bookmark>,
    /// Show the record's decisions under two rule versions, side by side.
    #[arg(long, requires = "b")]
    pub diff: bool,
    /// With --diff, version A (default: the record's own).
    #[arg(long, requires = "diff")]
    pub a: Option<String>,
    /// With --diff, version B: as for `diff --b`.
    #[arg(long, requires = "diff")]
    pub b: Option<String>,
}

/// A named step of the game: `--bookmark 14:the failed rally`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bookmark {
    /// The event the bookmark points at (0: before the first event).
    pub seq: u64,
    pub label: String,
}

impl FromStr for Bookmark {
    type Err = String;

    fn from_str(text: &str) -> Result<Bookmark, String> {
        let (seq, label) =
            text.split_once(':').ok_or_else(|| format!("{text:?}: write SEQ:label, e.g. 14:the failed rally"))?;
        let seq = seq.trim().parse::<u64>().map_err(|_| format!("{text:?}: {seq:?} is not an event seq"))?;
        let label = label.trim();
        if label.is_empty() {
            return Err(format!("{text:?}: the label is empty"));
        }
        Ok(Bookmark { seq, label: label.to_string() })
    }
}
