//! `rollcall play`: a decision (or several) made in a stored game.

pub mod server;
pub mod terminal;
