//! Where a command's input comes from: a record file or a stored game, and a
//! rule version (inline, or a house-rules file). Below the commands that
//! share them (read, verify, diff, view, moves, pbem, simulate).

use std::fmt;
use std::path::{Path, PathBuf};

use rollcall_core::game::Game;
use rollcall_core::locate::line_of;
use rollcall_core::log::{open_at_head, open_game_with, EventLog, LogError, OpenGameError};
use rollcall_core::record::{Event, Header};
use rollcall_core::registry::{self, builtin};
use rollcall_core::rules::{HouseRules, RuleVersion, VersionSpec};
use rollcall_core::script::RulesRef;
use rollcall_core::strict;
use rollcall_store::file::FileError;
use rollcall_store::Store;

use crate::fail::Fail;
use crate::input::position::{Position, Span};
use crate::input::store::{self, read_bytes};

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
pub fn open(db: &crate::input::store::StoreSpec, target: &str) -> Result<Record, Fail> {
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

/// A store holding the game `target` names, and the game's id: a record
/// file ([`is_record_file`]), read where it is and imported nowhere (read
/// through once to find its head), or the store. For the interactive
/// replay; [`reader`] reads a record as it folds it.
pub fn game_reader(db: &crate::input::store::StoreSpec, target: &str) -> Result<(Box<dyn EventLog>, String), Fail> {
    match Target::of(target) {
        Target::File(path) => {
            let file = rollcall_store::file::RecordFile::open(path).map_err(|e| unreadable(path, e))?;
            let id = file.game().to_string();
            Ok((Box::new(file), id))
        }
        Target::Stored(id) => Ok((Box::new(store::open_read(db)?), id.to_string())),
    }
}

/// What `log`, `state` and `replay` fold a game from, opened.
pub enum Reader {
    /// A record file, its header read and its events to stream: the file
    /// is read once, as the game is folded, and its head is its last event.
    File { path: PathBuf, header: Box<Header>, events: rollcall_store::file::Events },
    /// A stored game.
    Log(Box<dyn EventLog>),
}

/// Opens what `target` names for `log`, `state` or `replay`: the reader,
/// the game's id, and the span of the position `at`, if one is given. A
/// record file without a position is read once, by [`Reader::fold`]; to
/// find a position, it is folded once before, each line taken as read
/// ([`fold_file`]).
pub fn reader(
    db: &crate::input::store::StoreSpec,
    target: &str,
    at: Option<Position>,
) -> Result<(Reader, String, Option<Span>), Fail> {
    match (Target::of(target), at) {
        (Target::File(path), at) => {
            let open = || rollcall_store::file::read(path).map_err(|e| unreadable(path, e));
            let (header, events) = open()?;
            let id = header.game.clone();
            let Some(at) = at else { return Ok((Reader::file(path, header, events), id, None)) };
            // Found in a first pass, which folds the file as `state FILE` does.
            let mut decisions = crate::input::position::Decisions::default();
            fold_file(path, header, events, target, None, |game, decision| decisions.see_folded(game, decision))?;
            let span = decisions.span(&id, at)?;
            let (header, events) = open()?;
            Ok((Reader::file(path, header, events), id, Some(span)))
        }
        (Target::Stored(_), at) => {
            let (log, id) = game_reader(db, target)?;
            let span = at.map(|p| crate::input::position::resolve(&*log, &id, p)).transpose()?;
            Ok((Reader::Log(log), id, span))
        }
    }
}

impl Reader {
    fn file(path: &Path, header: Header, events: rollcall_store::file::Events) -> Reader {
        Reader::File { path: path.to_path_buf(), header: Box::new(header), events }
    }

    /// The game `id`, folded from its first event to the seq `until` (its
    /// end without one), checking every link; `seen` is called with the
    /// game after each event. Errors name `target`: for a record file, the
    /// line and field of a bad line, or the line of a broken link.
    pub fn fold(
        self,
        target: &str,
        id: &str,
        until: Option<u64>,
        mut seen: impl FnMut(&Game, &Event),
    ) -> Result<Game, Fail> {
        match self {
            Reader::Log(log) => open_game_with(&*log, id, until, builtin(), seen).map_err(|e| open_failed(target, e)),
            Reader::File { path, header, events } => {
                let opened = Game::open(*header, builtin()).map_err(|e| OpenGameError::Header(id.to_string(), e));
                let mut game = opened.map_err(|e| open_failed(target, e))?;
                for event in events {
                    if until.is_some_and(|until| game.seq() >= until) {
                        break;
                    }
                    let event = event.map_err(|e| unreadable(&path, e))?;
                    let applied = game.apply(&event).map_err(|e| OpenGameError::Chain(id.to_string(), e));
                    applied.map_err(|e| open_failed(target, e))?;
                    seen(&game, &event);
                }
                Ok(game)
            }
        }
    }

    /// The game `id` at the seq `until` (its head without one): a stored
    /// game at its head from the snapshot its store keeps, where it keeps
    /// one; a record file as [`fold_file`] folds it.
    pub fn at(self, target: &str, id: &str, until: Option<u64>) -> Result<Game, Fail> {
        match (self, until) {
            (Reader::Log(log), None) => open_at_head(&*log, id, builtin()).map_err(|e| open_failed(target, e)),
            (log @ Reader::Log(_), Some(_)) => log.fold(target, id, until, |_, _| {}),
            (Reader::File { path, header, events }, _) => fold_file(&path, *header, events, target, until, |_, _| {}),
        }
    }

    /// A progress bar for folding the game `id` to `until` (its end
    /// without): sized by the file's bytes, or by the stored events.
    pub fn progress(
        &self,
        what: &str,
        id: &str,
        until: Option<u64>,
        quiet: bool,
    ) -> Result<Option<indicatif::ProgressBar>, Fail> {
        Ok(match self {
            Reader::File { path, .. } => crate::output::progress::file(what, path, quiet),
            Reader::Log(log) => {
                let total = match until {
                    Some(until) => until,
                    None => log.head(id)?.seq,
                };
                crate::output::progress::events(what, total, quiet)
            }
        })
    }
}

/// A record file folded as [`Reader::fold`] folds it, to the seq `until`
/// (its end without one), each line taken as it was read where it can be
/// ([`Game::apply_line`]) and parsed only where it cannot; `seen` is called
/// with the game after each event, and whether the event was a decision.
fn fold_file(
    path: &Path,
    header: Header,
    mut events: rollcall_store::file::Events,
    target: &str,
    until: Option<u64>,
    mut seen: impl FnMut(&Game, bool),
) -> Result<Game, Fail> {
    let id = header.game.clone();
    let opened = Game::open(header, builtin()).map_err(|e| OpenGameError::Header(id.clone(), e));
    let mut game = opened.map_err(|e| open_failed(target, e))?;
    // The fold reads no decision itself: its reader proves their bodies.
    events.scan_decisions();
    while until.is_none_or(|until| game.seq() < until) {
        let decisions = game.decisions();
        let Some(read) = events.next_taking(|line, proof, _| game.apply_line_proven(line, proof)) else { break };
        if let Some(event) = read.map_err(|e| unreadable(path, e))? {
            let applied = game.apply(&event).map_err(|e| OpenGameError::Chain(id.clone(), e));
            applied.map_err(|e| open_failed(target, e))?;
        }
        // A decision, and only a decision, counts one more.
        seen(&game, game.decisions() != decisions);
    }
    Ok(game)
}

/// A game that could not be opened from `target`: for a record file, the
/// error names the file and the line (event seq N is line N + 1) and says
/// how to see the whole report.
fn open_failed(target: &str, e: OpenGameError) -> Fail {
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
            Record::File(..) => crate::output::progress::file(what, Path::new(target), quiet),
            Record::Stored(_, log, game) => crate::output::progress::events(what, log.head(game)?.seq, quiet),
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

/// What a stored game's lines are fed to, each taken as read where it can
/// be: verify's [`Verifier`](rollcall_core::game::Verifier) and diff's
/// [`Diff`](rollcall_core::diff::Diff).
pub trait TakesLines {
    type Error;
    /// Takes a line as read, or says `false` and changes nothing.
    fn take_line(&mut self, line: &[u8]) -> bool;
    /// Takes a parsed event.
    fn push(&mut self, event: &Event) -> Result<(), Self::Error>;
    /// The failure of a line that could not be read.
    fn unreadable(&self, e: LogError) -> Self::Error;
}

impl TakesLines for rollcall_core::game::Verifier {
    type Error = rollcall_core::game::VerifyFailure;
    fn take_line(&mut self, line: &[u8]) -> bool {
        self.take_line(line)
    }
    fn push(&mut self, event: &Event) -> Result<(), Self::Error> {
        self.push(event)
    }
    fn unreadable(&self, e: LogError) -> Self::Error {
        self.unreadable(e)
    }
}

impl TakesLines for rollcall_core::diff::Diff<'_> {
    type Error = rollcall_core::diff::DiffError;
    fn take_line(&mut self, line: &[u8]) -> bool {
        self.take_line(line)
    }
    fn push(&mut self, event: &Event) -> Result<(), Self::Error> {
        self.push(event)
    }
    fn unreadable(&self, e: LogError) -> Self::Error {
        self.unreadable(e)
    }
}

/// Feeds the stored game `id`'s record lines to `taker`, as a record file's
/// lines are fed: each taken as read where it can be, parsed and pushed
/// where it cannot (which names its fault). A line that cannot be read or
/// parsed, or says another seq than its own, is the store's damage at that
/// seq, as [`EventLog::events`] would say. `tick` is called after each line.
pub fn take_stored_lines<T: TakesLines>(
    taker: &mut T,
    id: &str,
    lines: impl Iterator<Item = Result<String, LogError>>,
    mut tick: impl FnMut(),
) -> Result<(), T::Error> {
    for (seq, line) in (1u64..).zip(lines) {
        let line = line.map_err(|e| taker.unreadable(e))?;
        if !taker.take_line(line.as_bytes()) {
            let corrupt = |reason: String| LogError::Corrupt { game: id.to_string(), seq, reason };
            let event =
                rollcall_core::record::parse_event(&line).map_err(|e| taker.unreadable(corrupt(e.to_string())))?;
            if event.seq != seq {
                return Err(taker.unreadable(corrupt(format!("stored under seq {seq} but says seq {}", event.seq))));
            }
            taker.push(&event)?;
        }
        tick();
    }
    Ok(())
}

/// A rule version from `ruleset@version[+option][+name=value]…` or a house-rules file.
pub fn rule_version(arg: &str) -> Result<(RuleVersion, VersionSpec), Fail> {
    if arg.ends_with(".json") || Path::new(arg).is_file() {
        let bytes = read_bytes(Path::new(arg))?;
        let house: HouseRules = strict::parse_as(&bytes).map_err(|e| Fail::msg(e.in_file(arg)))?;
        let text = String::from_utf8_lossy(&bytes);
        let resolved = RulesRef::House(house.clone())
            .resolve("", builtin())
            .map_err(|(field, message)| fail!("{arg}:{}: {field}: {message}", line_of(&text, &field)))?;
        let spec = registry::version(&house.base).map_err(|e| fail!("{arg}: base: {e}"))?;
        Ok((resolved, spec))
    } else {
        registry::inline_version(arg).map_err(|e| Fail::msg(e.to_string()))
    }
}
