//! The arguments of the commands that make and play a game: `new`, `play`,
//! and the position `log`, `state` and `replay` take.

use std::path::PathBuf;

use clap::Args as ClapArgs;

/// `rollcall new`'s arguments.
#[derive(Debug, ClapArgs)]
pub struct NewArgs {
    /// A rule version (`ruleset@version`) or a house-rules JSON file.
    #[arg(long)]
    pub rules: String,
    /// The scenario JSON file, or a script (its `scenario` is taken).
    /// `rollcall scenario template RULESET` writes one to start from.
    #[arg(long)]
    pub scenario: PathBuf,
    /// The game id (default: a random one).
    #[arg(long)]
    pub game: Option<String>,
    /// A party to the game (repeat; default: the scenario's sides).
    #[arg(long = "party")]
    pub parties: Vec<String>,
    /// Dice are rolled by hand at a table and entered with each decision.
    #[arg(long)]
    pub table: bool,
}

/// `rollcall play`'s arguments.
#[derive(Debug, ClapArgs)]
pub struct PlayArgs {
    pub game: String,
    /// A decision JSON file, or - for standard input. With --pick, the
    /// picked decision's fields instead, as FIELD=VALUE. With neither, on
    /// a terminal: the turn is played from a menu of the decisions legal now.
    pub decision: Option<String>,
    /// With --pick: the picked decision's fields, as FIELD=VALUE
    /// (`to=120,40`, `action='moves to the wall'`); `rollcall moves` says
    /// which it needs.
    #[arg(value_name = "FIELD=VALUE", requires = "pick")]
    pub fields: Vec<String>,
    /// Play one of the decisions `rollcall moves GAME` lists: its number,
    /// or its words (`'command rifles-1'`, `'command unit=rifles-1'`).
    #[arg(long, value_name = "N|WORDS", conflicts_with_all = ["stream", "server"])]
    pub pick: Option<String>,
    /// With --pick: the side whose list the number is of (as `moves --side`).
    #[arg(long, requires = "pick")]
    pub side: Option<String>,
    /// Read one decision per line and append each as it comes, printing
    /// `ok SEQ HEAD` once it is durable (a failed line stops the stream).
    #[arg(long)]
    pub stream: bool,
    /// Decide through a dice server (`rollcall serve`) instead of this store.
    #[arg(long, value_name = "URL", requires = "token")]
    pub server: Option<String>,
    /// Your side's token for the server (given once, when the game was made).
    #[arg(long, env = "ROLLCALL_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
}

/// `--seq`, `--decision` or `--turn`: at most one.
#[derive(Debug, Clone, Default, ClapArgs)]
#[group(id = "position", multiple = false)]
pub struct PositionArgs {
    /// An event, by its seq (as `log` numbers them; 0 is the scenario, before any event).
    #[arg(long, value_name = "SEQ")]
    pub seq: Option<u64>,
    /// A decision, by its number (the narrative's `#N`): from its decision
    /// event to the last of its rolls and facts.
    #[arg(long, value_name = "N")]
    pub decision: Option<u64>,
    /// A turn, by its number (the narrative's "Turn N begins"): from its
    /// first decision to the last event of its last.
    #[arg(long, value_name = "N")]
    pub turn: Option<u32>,
}
