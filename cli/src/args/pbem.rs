//! The play-by-email commands: `pbem`, `turn`, `fork`.

use std::path::PathBuf;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Example (two players, each with a store and a key):\n  tom$   rollcall pbem invite --rules leader-activation@1 --scenario s.json --side allies --key allies.key --game friday -o invite.txt\n  jerry$ rollcall pbem accept invite.txt --key axis.key -o accept.txt\n  tom$   rollcall pbem start accept.txt --key allies.key\n  tom$   rollcall play friday decisions.json && rollcall turn export friday --key allies.key -o turn-1.txt"
)]
pub enum PbemCommand {
    /// Invite an opponent: your terms, your side and key, and a commitment to
    /// your seed share (the share stays secret in your store until `start`).
    #[command(
        after_help = "Example:\n  rollcall pbem invite --rules leader-activation@1 --scenario s.json --side allies --key allies.key --game friday -o invite.txt"
    )]
    Invite {
        /// A rule version (`ruleset@version[+option]…`) or a house-rules JSON file.
        #[arg(long)]
        rules: String,
        /// The scenario JSON file.
        #[arg(long)]
        scenario: PathBuf,
        /// The side you play.
        #[arg(long)]
        side: String,
        /// Your secret key file (rollcall keygen).
        #[arg(long)]
        key: PathBuf,
        /// The game id (default: a random one).
        #[arg(long)]
        game: Option<String>,
        /// Where to write the invitation (- for standard output).
        #[arg(short, long)]
        output: String,
    },
    /// Answer an invitation: take the other side, with your key and your seed share.
    #[command(after_help = "Example:\n  rollcall pbem accept invite.txt --key axis.key -o accept.txt")]
    Accept {
        /// The invitation (a file, or - for standard input; pasted email text is fine).
        invite: String,
        /// Your secret key file (rollcall keygen).
        #[arg(long)]
        key: PathBuf,
        /// Where to write the answer (- for standard output).
        #[arg(short, long)]
        output: String,
    },
    /// Start the game from the answer: your share is revealed in the game's
    /// header, which your first turn file carries to the opponent.
    #[command(after_help = "Example:\n  rollcall pbem start accept.txt --key allies.key")]
    Start {
        /// The answer (a file, or - for standard input).
        accept: String,
        /// Your secret key file.
        #[arg(long)]
        key: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Example:\n  rollcall turn export friday --key allies.key -o turn-3.txt\n  rollcall turn apply turn-4.txt\n  rollcall turn fetch http://club.example:7878 friday"
)]
pub enum TurnCommand {
    /// Sign your turn and write the events your opponent has not acknowledged.
    #[command(
        after_help = "Example:\n  rollcall turn export friday --key allies.key -o turn-3.txt\n  rollcall turn export friday --key allies.key -o - | mail -s 'friday, turn 3' jerry@example.org"
    )]
    Export {
        game: String,
        /// Your secret key file.
        #[arg(long)]
        key: PathBuf,
        /// Where to write the turn file (- for standard output).
        #[arg(short, long)]
        output: String,
    },
    /// Fetch what your store lacks of a game on a dice server, verified, as a turn file the server signs.
    #[command(after_help = "Example:\n  rollcall turn fetch http://club.example:7878 friday")]
    Fetch {
        /// The server's address.
        url: String,
        game: String,
    },
    /// Verify the opponent's turn file and add it to your game, narrated.
    #[command(
        after_help = "Example:\n  rollcall turn apply turn-3.txt\n  rollcall turn apply - < email.txt\n\nExit 1 when the turn does not verify or forks the game (the fork is kept: rollcall fork show GAME); 2 when it does not fit (out of order, unknown game)."
    )]
    Apply {
        /// The turn file (a file, or - for standard input; pasted or quoted email text is fine).
        turn: String,
    },
}

#[derive(Debug, Subcommand)]
#[command(after_help = "Example:\n  rollcall fork show friday")]
pub enum ForkCommand {
    /// Both branches of every fork kept for a game, with hashes and signatures.
    #[command(after_help = "Example:\n  rollcall fork show friday")]
    Show { game: String },
}
