//! rollcall-server: the sealed dice server's logic, which `rollcall serve`
//! carries over HTTP (cli/src/serve/) and any other transport could carry
//! the same way: games waiting for their sides' shares, decisions by a
//! side's token on the head it expects ([`batch`]: a request's decisions
//! decided on a copy of the game, with no I/O), each turn's chain value
//! revealed when the turn ends, and the games read back. It depends on the
//! core and the store, never on the CLI.
//!
//! **Invariant: a turn's chain value leaves the server only in the reveal
//! that ends the turn.** It is kept in the store's secrets and in memory,
//! never in a note, an answer or a log line.

pub mod batch;
mod error;
mod service;

pub use error::ApiError;
pub use service::carry::{carry_sealed, carry_waiting, CarriedWaiting};
pub use service::{chain_secret, waiting_note, CreateGame, Service, Status, Watch, Watched};
