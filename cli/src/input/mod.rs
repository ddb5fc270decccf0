//! What a command reads, and from where: the store (where it is, opening
//! it, the inputs commands share: [`store`]), a record file or a stored
//! game and a rule version ([`source`]), a position in a game
//! ([`position`]), the scenario `new` starts from ([`scenario`]), a script read in two streaming passes
//! ([`script_file`]), and the context `main` checks once for every command
//! ([`checked`]). Below the commands, which share it.

pub mod checked;
pub mod keys;
pub mod position;
pub mod scenario;
pub mod script_file;
pub mod source;
pub mod store;
