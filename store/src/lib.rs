//! rollcall-store: where games are kept.
//!
//! - [`SledLog`]: the embedded sled log behind `rollcall_core::log::EventLog`;
//! - [`file`]: record files (JSON Lines), read as a stream and written whole.
//!
//! **Invariant:** the hash-chained record is the truth; sled is where it is
//! kept. sled 0.34.7 is pinned exactly and stays behind the trait; every
//! append is checked before it is written and flushed before it returns, and
//! the chain is checked again when a game is opened.

pub mod file;
mod sled_log;

pub use sled_log::{Access, OpenError, OpenOptions, SledLog};
