//! What `main` checks once, before any command runs, and hands to every
//! command: the store the command line names, and how the command prints.

use crate::args::Args;
use crate::input::store::StoreSpec;
use crate::output::Mode;

/// The context a command runs in.
pub struct Checked {
    /// The store `--store`, `--db` or the environment names (or the
    /// default), resolved.
    pub db: StoreSpec,
    /// Text, or one JSON document (`--json`, before or after the command).
    pub mode: Mode,
}

impl Checked {
    /// The context the command line `args` gives.
    pub fn new(args: &Args) -> Checked {
        Checked { db: StoreSpec::new(args.named_store()), mode: Mode::of(args.json) }
    }
}
