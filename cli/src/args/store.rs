//! The store's commands: `games` (and `games rm`), `store migrate`, `store copy`.

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum GamesCommand {
    /// Remove a game from the store for good: its events and this store's
    /// notes on it (the side it plays, forks kept as evidence).
    #[command(
        after_help = "Example:\n  rollcall export friday -o friday.jsonl && rollcall games rm friday\n  rollcall games rm scratch --yes\n\nAsks first on a terminal; elsewhere (a script, a pipe) it needs --yes."
    )]
    Rm {
        /// The game id.
        game: String,
        /// Remove without asking.
        #[arg(long, short = 'y')]
        yes: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Create or upgrade rollcall's tables in a PostgreSQL database
    /// (store/migrations/, each in one transaction). Run it once before the
    /// first `serve --store URL`, and after an upgrade of rollcall.
    #[command(after_help = "Example:\n  rollcall store migrate --store postgres://rollcall:secret@db.example/league")]
    Migrate,
    /// Copy games from one store to another (sled to PostgreSQL, or back),
    /// each verified before it is written and read back after: a game
    /// appears in the target whole or not at all, with what this store keeps
    /// on it (for a play-by-email game, the side it plays, the handshake and
    /// the forks kept as evidence; for a sealed game, what its server needs).
    /// A game a dice server still waits on for its sides' shares goes too, so
    /// that a server over the target takes the rest with the tokens handed
    /// out. Games the target holds already, at the same head, are skipped;
    /// one the target holds otherwise is refused.
    #[command(
        after_help = "Example:\n  rollcall store copy --from ~/.local/share/rollcall/db --to postgres://rollcall:secret@db.example/league\n  rollcall store copy --from postgres://db.example/league --to /backup/rollcall-db friday"
    )]
    Copy {
        /// The store to read: a sled directory or a PostgreSQL URL.
        #[arg(long, value_name = "LOCATION")]
        from: String,
        /// The store to write: a sled directory or a PostgreSQL URL (migrated).
        #[arg(long, value_name = "LOCATION")]
        to: String,
        /// The games to copy (default: every game of the source).
        games: Vec<String>,
    },
}
