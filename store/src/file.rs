//! Record files: JSON Lines, one header line then one line per event.
//!
//! Reading streams: [`read`] parses the header and hands back an iterator
//! that parses one line at a time, so a record of any length verifies in
//! constant memory. Every line must end with a newline: a last line without
//! one was cut short. A record whose game id breaks the rule `run` and `new`
//! apply is not read at all: it could not have been made by rollcall, and
//! its id would reach file names and terminals.
//!
//! Transport is not content: a record that went through email may come back
//! with CRLF line ends and blank lines at its end. Those are taken off and
//! counted ([`Events::normalised`]), so a command can say what it
//! normalised; anything else (a blank line inside the record, a changed
//! byte) is the content's and stays an error.
//!
//! Writing goes to a temporary file beside the target, created exclusively
//! under an unpredictable name (so a link planted there is never followed),
//! and renamed into place, so a failed export leaves nothing half-written;
//! an existing file is replaced only when the caller says so. [`write_to`]
//! streams a record to any writer (standard output).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use rollcall_core::digest::Digest;
use rollcall_core::game::{Verified, Verifier, VerifyFailure};
use rollcall_core::log::{EventLog, Head, LogError};
use rollcall_core::record::{self, Event, Header};
use rollcall_core::script::valid_game_id;
use rollcall_core::strict;

/// A record file that cannot be read, with the line and field at fault.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{path}:{line}: {field}: {message}")]
    Line { path: String, line: u64, field: String, message: String },
    /// Not a record this build will read at all (a game id `run` and `new`
    /// would refuse): bad input, not a failed verification.
    #[error("{path}:{line}: {field}: {message}")]
    Refused { path: String, line: u64, field: String, message: String },
    /// The target of a write exists and the caller did not ask to replace it.
    #[error("{path} exists: nothing was written (use --force to replace it)")]
    Exists { path: String },
}

/// What a write does when its target exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Refuse, writing nothing.
    Refuse,
    /// Replace it (a link there is replaced, not followed).
    Replace,
}

fn io(path: &Path, e: impl std::fmt::Display) -> FileError {
    FileError::Io { path: path.display().to_string(), message: e.to_string() }
}

/// The events of a record file, parsed one line at a time.
pub struct Events {
    path: PathBuf,
    reader: BufReader<File>,
    line: u64,
    /// The byte offset of the next line.
    offset: u64,
    done: bool,
    normalised: Normalised,
}

/// Transport noise taken off a record while reading it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Normalised {
    /// Lines that ended in CR LF.
    pub crlf: u64,
    /// Blank lines after the last line.
    pub trailing_blank: u64,
}

impl Normalised {
    /// "2,001 CRLF line ends and 2 blank lines at the end", or none.
    pub fn describe(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.crlf > 0 {
            parts.push(format!("{} CRLF line end(s)", self.crlf));
        }
        if self.trailing_blank > 0 {
            parts.push(format!("{} blank line(s) at the end", self.trailing_blank));
        }
        (!parts.is_empty()).then(|| parts.join(" and "))
    }
}

impl Events {
    /// What was taken off so far (all of it, once the events are read).
    pub fn normalised(&self) -> Normalised {
        self.normalised
    }
}

impl Events {
    /// The next line, offered first to `take` as it was read (its text,
    /// without the line end): a line `take` folds in as it is is not parsed
    /// (`Ok(None)`); any other is parsed into its event (`Ok(Some)`).
    /// `None` at the end of the record.
    pub fn next_taking(&mut self, mut take: impl FnMut(&[u8]) -> bool) -> Option<Result<Option<Event>, FileError>> {
        if self.done {
            return None;
        }
        let mut bytes = Vec::new();
        let mut blank = 0;
        loop {
            self.line += 1;
            bytes.clear();
            match read_line(&self.path, &mut self.reader, self.line, &mut self.offset, &mut bytes, &mut self.normalised)
            {
                Ok(None) => {
                    self.done = true;
                    self.normalised.trailing_blank += blank;
                    return None;
                }
                Ok(Some("")) => blank += 1,
                Ok(Some(_)) if blank > 0 => {
                    self.done = true;
                    return Some(Err(FileError::Line {
                        path: self.path.display().to_string(),
                        line: self.line - blank,
                        field: "$".into(),
                        message: "a blank line inside the record: lines were removed or the record was edited".into(),
                    }));
                }
                Ok(Some(text)) if take(text.as_bytes()) => return Some(Ok(None)),
                Ok(Some(text)) => {
                    return Some(record::parse_event(text).map(Some).map_err(|e| FileError::Line {
                        path: self.path.display().to_string(),
                        line: self.line,
                        field: e.field,
                        message: e.message,
                    }))
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

impl Iterator for Events {
    type Item = Result<Event, FileError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_taking(|_| false).map(|read| read.map(|event| event.expect("a line not taken is parsed")))
    }
}

/// Verifies a record file's events, as [`rollcall_core::game::verify`]
/// does, calling `tick` after each. A roll or fact line that is, byte for
/// byte, the one the re-decided decision leads to is taken as it was read
/// ([`Verifier::take_line`]): only decisions and what differs are parsed.
pub fn verify(header: &Header, events: &mut Events, mut tick: impl FnMut()) -> Result<Verified, VerifyFailure> {
    let mut verifier = Verifier::new(header)?;
    while let Some(read) = events.next_taking(|line| verifier.take_line(line)) {
        match read {
            Ok(None) => {}
            Ok(Some(event)) => verifier.push(&event)?,
            Err(e) => return Err(verifier.unreadable(e)),
        }
        tick();
    }
    verifier.finish().map(|(verified, _)| verified)
}

/// Reads one newline-terminated line into `bytes` and hands back its text
/// (without the newline, or a CR before it, which is counted); `None` at the
/// end of the file. `offset` is the line's byte offset in the file, and
/// moves past it.
fn read_line<'b>(
    path: &Path,
    reader: &mut impl BufRead,
    line: u64,
    offset: &mut u64,
    bytes: &'b mut Vec<u8>,
    normalised: &mut Normalised,
) -> Result<Option<&'b str>, FileError> {
    let error =
        |message: String| FileError::Line { path: path.display().to_string(), line, field: "$".into(), message };
    let n = reader.read_until(b'\n', bytes).map_err(|e| error(format!("cannot read: {e}")))?;
    let start = *offset;
    *offset += n as u64;
    if n == 0 {
        return Ok(None);
    }
    if bytes.pop() != Some(b'\n') {
        return Err(error("the last line has no newline: the record was cut short".into()));
    }
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
        normalised.crlf += 1;
    }
    let first_line = usize::try_from(line).unwrap_or(usize::MAX);
    strict::utf8_from(bytes, first_line, start).map(Some).map_err(|e| error(e.message))
}

/// Opens a record file: its header, and its events as a stream.
pub fn read(path: &Path) -> Result<(Header, Events), FileError> {
    let file = File::open(path).map_err(|e| io(path, e))?;
    let mut reader = BufReader::new(file);
    let mut bytes = Vec::new();
    let mut offset = 0;
    let mut normalised = Normalised::default();
    let Some(text) = read_line(path, &mut reader, 1, &mut offset, &mut bytes, &mut normalised)? else {
        return Err(FileError::Line {
            path: path.display().to_string(),
            line: 1,
            field: "$".into(),
            message: "the file is empty: a record starts with a header line".into(),
        });
    };
    let header = record::parse_header(text).map_err(|e| FileError::Line {
        path: path.display().to_string(),
        line: 1,
        field: e.field,
        message: e.message,
    })?;
    if !valid_game_id(&header.game) {
        return Err(FileError::Refused {
            path: path.display().to_string(),
            line: 1,
            field: "$.game".into(),
            message: format!(
                "{} is not a game id: rollcall makes ids of 1–64 letters, digits, '.', '_' or '-' (not starting with '.'), so this record was not made by rollcall and is not read",
                rollcall_core::text::quoted(&header.game, 80)
            ),
        });
    }
    let names = header.parties.iter().enumerate().map(|(i, p)| (format!("$.seed.parties[{i}].name"), &p.name));
    for (field, name) in names.chain(header.rules.name.iter().map(|n| ("$.rules.name".to_string(), n))) {
        if let Some(c) = rollcall_core::bounds::control_character(name) {
            return Err(FileError::Refused {
                path: path.display().to_string(),
                line: 1,
                field,
                message: format!("{} holds the control character {c}: not read", rollcall_core::text::quoted(name, 80)),
            });
        }
    }
    Ok((header, Events { path: path.to_path_buf(), reader, line: 1, offset, done: false, normalised }))
}

/// Writes a record to `out`: the header line, then each event's line as it
/// comes. Returns how many events were written.
pub fn write_to<E: std::fmt::Display>(
    out: &mut impl Write,
    name: &Path,
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
) -> Result<u64, FileError> {
    let lines = events.into_iter().map(|event| {
        let event = event.map_err(|e| e.to_string())?;
        record::encode_event(&event).map_err(|e| e.to_string())
    });
    write_lines_to(out, name, header, lines)
}

/// Writes a record from its header and its event lines as they are (a
/// store's lines, each the canonical bytes its link hashed): the record
/// copied, not written again. Returns the number of events.
pub fn write_lines_to<E: std::fmt::Display>(
    out: &mut impl Write,
    name: &Path,
    header: &Header,
    lines: impl IntoIterator<Item = Result<String, E>>,
) -> Result<u64, FileError> {
    let line = record::encode_header(header).map_err(|e| io(name, e))?;
    writeln!(out, "{line}").map_err(|e| io(name, e))?;
    let mut count = 0;
    for line in lines {
        let line = line.map_err(|e| io(name, e))?;
        writeln!(out, "{line}").map_err(|e| io(name, e))?;
        count += 1;
    }
    out.flush().map_err(|e| io(name, e))?;
    Ok(count)
}

/// [`write_lines_to`] the file `path`, as [`write_file`] writes.
pub fn write_lines<E: std::fmt::Display>(
    path: &Path,
    existing: Existing,
    header: &Header,
    lines: impl IntoIterator<Item = Result<String, E>>,
) -> Result<u64, FileError> {
    write_file(path, existing, |mut out, tmp_path| write_lines_to(&mut out, tmp_path, header, lines))
}

/// Writes a record to the file `path` as [`write_file`] writes.
pub fn write<E: std::fmt::Display>(
    path: &Path,
    existing: Existing,
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
) -> Result<u64, FileError> {
    write_file(path, existing, |mut out, tmp_path| write_to(&mut out, tmp_path, header, events))
}

/// Writes the file `path`: `fill` writes into a new temporary file beside
/// it (created exclusively, under an unpredictable name, so a link planted
/// there is never followed), which is synced, then renamed into place. An
/// existing `path` is refused or replaced as `existing` says (a link there
/// is replaced, not followed); on any error nothing is left behind.
pub fn write_file<T>(
    path: &Path,
    existing: Existing,
    fill: impl FnOnce(&mut dyn Write, &Path) -> Result<T, FileError>,
) -> Result<T, FileError> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| io(path, "not a file name"))?;
    let exists = || FileError::Exists { path: path.display().to_string() };
    if existing == Existing::Refuse && std::fs::symlink_metadata(path).is_ok() {
        return Err(exists());
    }
    let prefix = format!(".{}.", name.to_string_lossy());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".partial");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // As readable as any file the user makes (the umask applies).
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(|e| io(dir, format!("cannot create a temporary file: {e}")))?;
    let tmp_path = tmp.path().to_path_buf();
    let mut out = std::io::BufWriter::new(tmp.as_file_mut());
    let result = fill(&mut out, &tmp_path)?;
    out.flush().map_err(|e| io(&tmp_path, e))?;
    drop(out);
    tmp.as_file().sync_all().map_err(|e| io(&tmp_path, e))?;
    let persisted = match existing {
        Existing::Replace => tmp.persist(path),
        Existing::Refuse => tmp.persist_noclobber(path),
    };
    match persisted {
        Ok(_) => Ok(result),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Err(exists()),
        Err(e) => Err(io(path, e.error)),
    }
}

/// A record file read as a store that holds its one game, for a reader
/// that needs the head before the events (to find a position in the game,
/// or to page through it): nothing is imported. Opening reads every line
/// once (so a malformed record is refused there, naming its line and field)
/// to find the head; the events then stream from the file again, so memory
/// stays bounded by a line, not by the record. A reader that can take the
/// head as the last event streams [`read`] instead, and reads the file
/// once. It cannot be written.
pub struct RecordFile {
    path: PathBuf,
    header: Header,
    head: Head,
}

impl RecordFile {
    pub fn open(path: &Path) -> Result<RecordFile, FileError> {
        let (header, events) = read(path)?;
        let root = record::header_hash(&header).map_err(|e| FileError::Line {
            path: path.display().to_string(),
            line: 1,
            field: "$".into(),
            message: e.to_string(),
        })?;
        let mut head = Head { seq: 0, hash: root };
        for event in events {
            let event = event?;
            head = Head { seq: event.seq, hash: event.hash };
        }
        Ok(RecordFile { path: path.to_path_buf(), header, head })
    }

    /// The game id the record holds.
    pub fn game(&self) -> &str {
        &self.header.game
    }

    fn this(&self, game: &str) -> Result<(), LogError> {
        if game == self.header.game {
            Ok(())
        } else {
            Err(LogError::UnknownGame(game.to_string()))
        }
    }

    fn read_only(&self) -> LogError {
        LogError::Backend(format!("{} is a record file, read and never written", self.path.display()))
    }
}

impl EventLog for RecordFile {
    fn begin(&self, _: &Header) -> Result<Head, LogError> {
        Err(self.read_only())
    }
    fn append_pending(&self, _: &str, _: &Digest, _: &[Event]) -> Result<Head, LogError> {
        Err(self.read_only())
    }
    fn commit(&self, _: &str) -> Result<Head, LogError> {
        Err(self.read_only())
    }
    fn abandon(&self, _: &str) -> Result<(), LogError> {
        Err(self.read_only())
    }
    fn incomplete(&self) -> Result<Vec<String>, LogError> {
        Ok(Vec::new())
    }
    fn create(&self, _: &Header) -> Result<Head, LogError> {
        Err(self.read_only())
    }
    fn append(&self, _: &str, _: &Digest, _: &[Event]) -> Result<Head, LogError> {
        Err(self.read_only())
    }
    fn events<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<Event, LogError>> + 'a>, LogError> {
        self.this(game)?;
        let (_, events) = read(&self.path).map_err(|e| LogError::Backend(e.to_string()))?;
        let id = game.to_string();
        let head = self.head.seq;
        Ok(Box::new(
            events
                .map(move |event| {
                    event.map_err(|e| LogError::Corrupt {
                        game: id.clone(),
                        seq: 0,
                        reason: format!("{e} (the file changed)"),
                    })
                })
                .filter(move |event| event.as_ref().map_or(true, |e| e.seq >= from_seq && e.seq <= head)),
        ))
    }
    fn games(&self) -> Result<Vec<String>, LogError> {
        Ok(vec![self.header.game.clone()])
    }
    fn header(&self, game: &str) -> Result<Header, LogError> {
        self.this(game)?;
        Ok(self.header.clone())
    }
    fn head(&self, game: &str) -> Result<Head, LogError> {
        self.this(game)?;
        Ok(self.head)
    }
    fn note(&self, _: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(None)
    }
    fn set_note(&self, _: &str, _: Option<&[u8]>) -> Result<(), LogError> {
        Err(self.read_only())
    }
    fn notes(&self, _: &str) -> Result<Vec<(String, Vec<u8>)>, LogError> {
        Ok(Vec::new())
    }
    fn swap_note(&self, _: &str, _: Option<&[u8]>, _: Option<&[u8]>) -> Result<bool, LogError> {
        Err(self.read_only())
    }
    fn secret(&self, _: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(None)
    }
    fn set_secret(&self, _: &str, _: &[u8]) -> Result<Vec<u8>, LogError> {
        Err(self.read_only())
    }
}
