//! Where a command's input comes from: a record file or a stored game, and a
//! rule version (inline, or a house-rules file). Below the commands that
//! share them (`commands.rs`, `diff.rs`, `view.rs`, `pbem.rs`, `simulate.rs`).

use std::fmt;
use std::path::Path;

use rollcall_core::locate::line_of;
use rollcall_core::log::{EventLog, LogError};
use rollcall_core::record::{Event, Header};
use rollcall_core::registry;
use rollcall_core::rules::{HouseRules, RuleVersion, VersionSpec};
use rollcall_core::script::RulesRef;
use rollcall_core::strict;
use rollcall_store::file::FileError;
use rollcall_store::Store;

use crate::store::{self, read_bytes, Fail};

/// Whether a command's target names a record file (one that exists, or any
/// name ending `.jsonl`) rather than a stored game.
pub fn is_record_file(target: &str) -> bool {
    Path::new(target).is_file() || target.ends_with(".jsonl")
}

/// What a command's target names: the one place that tells a record file
/// from a stored game.
pub enum Target<'a> {
    /// A record file ([`is_record_file`]), read where it is.
    File(&'a Path),
    /// A game in the store, by its id.
    Stored(&'a str),
}

impl Target<'_> {
    pub fn of(target: &str) -> Target<'_> {
        if is_record_file(target) {
            Target::File(Path::new(target))
        } else {
            Target::Stored(target)
        }
    }
}

/// A record file that could not be read: a script is said to be one, any
/// other failure is the file's.
fn unreadable(path: &Path, e: FileError) -> Fail {
    match refuse_script(path) {
        Err(script) => script,
        Ok(()) => Fail::from(e),
    }
}

/// A record file or a stored game, opened: its header, and its events to
/// stream once.
pub enum Record {
    File(Header, rollcall_store::file::Events),
    Stored(Header, Store, String),
}

/// For a record file that could not be read: whether it is a script (one
/// JSON object with a scenario and decisions), which a record command says
/// plainly (exit 2) instead of reporting its second line as a broken
/// record. Read only when the record could not be, so a record is read once.
pub fn refuse_script(path: &Path) -> Result<(), Fail> {
    let Ok(bytes) = std::fs::read(path) else { return Ok(()) };
    let script = serde_json::from_slice::<serde_json::Value>(&bytes)
        .is_ok_and(|v| v.get("scenario").is_some() && v.get("decisions").is_some());
    if script {
        let name = path.display();
        return Err(fail!("{name} is a script, not a record: `rollcall run {name}` plays it"));
    }
    Ok(())
}

/// Opens what `target` names: a record file ([`is_record_file`]), or else a
/// game in the store.
pub fn open(db: &crate::store::StoreSpec, target: &str) -> Result<Record, Fail> {
    match Target::of(target) {
        Target::File(path) => {
            let (header, events) = rollcall_store::file::read(path).map_err(|e| unreadable(path, e))?;
            Ok(Record::File(header, events))
        }
        Target::Stored(id) => {
            let log = store::open_read(db)?;
            let header = log.header(id)?;
            Ok(Record::Stored(header, log, id.to_string()))
        }
    }
}

/// What `log`, `state` and `replay` read, and the game's id: a record file
/// ([`is_record_file`]), read where it is and imported nowhere, or a game
/// in the store.
pub fn game_reader(db: &crate::store::StoreSpec, target: &str) -> Result<(Box<dyn EventLog>, String), Fail> {
    match Target::of(target) {
        Target::File(path) => {
            let file = rollcall_store::file::RecordFile::open(path).map_err(|e| unreadable(path, e))?;
            let id = file.game().to_string();
            Ok((Box::new(file), id))
        }
        Target::Stored(id) => Ok((Box::new(store::open_read(db)?), id.to_string())),
    }
}

/// A game that could not be opened from `target`: for a record file, the
/// error names the file and the line (event seq N is line N + 1) and says
/// how to see the whole report.
pub fn open_failed(target: &str, e: rollcall_core::log::OpenGameError) -> Fail {
    use rollcall_core::log::OpenGameError;
    if !is_record_file(target) {
        return e.into();
    }
    match e {
        OpenGameError::Chain(_, e) => fail!(
            "{target}:{}: seq {}: {} (`rollcall verify {target}` reports the whole record)",
            e.seq + 1,
            e.seq,
            e.reason
        ),
        other => fail!("{target}: {other}"),
    }
}

/// Why an event of a record could not be read: a line of the file, or the store.
#[derive(Debug)]
pub enum ReadError {
    File(FileError),
    Log(LogError),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::File(e) => e.fmt(f),
            ReadError::Log(e) => e.fmt(f),
        }
    }
}

impl From<ReadError> for Fail {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::File(e) => e.into(),
            ReadError::Log(e) => e.into(),
        }
    }
}

impl Record {
    pub fn header(&self) -> &Header {
        match self {
            Record::File(header, _) | Record::Stored(header, _, _) => header,
        }
    }

    /// A progress bar for reading this record (on a terminal, not with
    /// `--json`): sized by the file's bytes or the stored game's events.
    pub fn progress(&self, what: &str, target: &str, quiet: bool) -> Result<Option<indicatif::ProgressBar>, Fail> {
        Ok(match self {
            Record::File(..) => crate::progress::file(what, Path::new(target), quiet),
            Record::Stored(_, log, game) => crate::progress::events(what, log.head(game)?.seq, quiet),
        })
    }

    /// The events, first to last.
    pub fn events(&mut self) -> Result<Box<dyn Iterator<Item = Result<Event, ReadError>> + '_>, Fail> {
        Ok(match self {
            Record::File(_, events) => Box::new(events.map(|e| e.map_err(ReadError::File))),
            Record::Stored(_, log, game) => Box::new(log.events(game, 1)?.map(|e| e.map_err(ReadError::Log))),
        })
    }
}

/// A rule version from `ruleset@version[+option][+name=value]…` or a house-rules file.
pub fn rule_version(arg: &str) -> Result<(RuleVersion, VersionSpec), Fail> {
    if arg.ends_with(".json") || Path::new(arg).is_file() {
        let bytes = read_bytes(Path::new(arg))?;
        let house: HouseRules = strict::parse_as(&bytes).map_err(|e| Fail::msg(e.in_file(arg)))?;
        let text = String::from_utf8_lossy(&bytes);
        let resolved = RulesRef::House(house.clone())
            .resolve("")
            .map_err(|(field, message)| fail!("{arg}:{}: {field}: {message}", line_of(&text, &field)))?;
        let spec = registry::version(&house.base).map_err(|e| fail!("{arg}: base: {e}"))?;
        Ok((resolved, spec))
    } else {
        registry::inline_version(arg).map_err(|e| Fail::msg(e.to_string()))
    }
}
