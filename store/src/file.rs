//! Record files: JSON Lines, one header line then one line per event.
//!
//! Reading streams: [`read`] parses the header and hands back an iterator
//! that parses one line at a time, so a record of any length verifies in
//! constant memory. The lines are read on a thread of their own, a few
//! batches ahead, which proves each line's link as it reads it
//! ([`LinkProof`]): hashing the chain and folding the game run on two
//! cores. Every line must end with a newline: a last line without one was
//! cut short. A record whose game id breaks the rule `run` and `new` apply
//! is not read at all: it could not have been made by rollcall, and its id
//! would reach file names and terminals.
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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

use rollcall_core::digest::Digest;
use rollcall_core::game::{Verified, Verifier, VerifyFailure};
use rollcall_core::log::{EventLog, Head, LogError};
use rollcall_core::record::{self, Event, Header, LinkChain, LinkProof};
use rollcall_core::ruleset::{DecisionReader, KeptDecision};
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
///
/// The file is read on a thread of its own, a few batches of lines ahead
/// of the caller, and each line's link is checked there as it is read
/// ([`LinkProof`]): the fold that takes the lines then neither hashes nor
/// scans a line whose link was proven from its head. The proof covers the
/// bytes the caller is given (the same buffer, handed over), so a file
/// changed while it is read cannot slip a line past it. Errors reach the
/// caller in the file's order, as if it read each line itself.
pub struct Events {
    path: PathBuf,
    line: u64,
    done: bool,
    normalised: Normalised,
    ahead: Ahead,
}

/// The reader ahead: not started until the first line is asked for (a
/// caller that wants only the header reads nothing more), then running.
enum Ahead {
    /// `line`, the last line read (the header's), ends at `offset`.
    Waiting {
        reader: BufReader<File>,
        line: u64,
        offset: u64,
        chain: Option<LinkChain>,
        /// Reads each proven decision line's decision as well, if given.
        decisions: Option<DecisionReader>,
    },
    Running {
        batches: Receiver<Batch>,
        /// Batches handed over and not yet taken ([`read_ahead`]).
        queued: Arc<AtomicUsize>,
        batch: Batch,
        next: usize,
        start: usize,
    },
    Gone,
}

/// Lines read ahead: their text, one after another without line ends, and
/// what was read of each.
#[derive(Default)]
struct Batch {
    text: Vec<u8>,
    reads: Vec<Read>,
}

/// One read of the reader ahead.
enum Read {
    /// A line, ending at `end` in the batch's text (a CR before its newline
    /// taken off and counted in `crlf`), with its link's proof if it has
    /// one. A line with a proof is not yet proved UTF-8 text (the fold's
    /// scan of it does that, or the parse); `offset` is where it starts in
    /// the file, to say where a byte is not. A proven decision line's
    /// decision, read when the caller asked ([`Events::read_decisions`]).
    Line { end: usize, crlf: bool, proof: Option<LinkProof>, decision: Option<KeptDecision>, offset: u64 },
    /// The end of the file.
    End,
    /// A line that could not be read: the last read.
    Failed(FileError),
}

/// What a batch holds before it is handed over, and how many are read ahead.
const BATCH_BYTES: usize = 64 << 10;
const BATCHES_AHEAD: usize = 4;

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

    /// Has the reader ahead read each proven decision line's decision with
    /// `reader` too, on its own thread, and hand it to the fold with the
    /// line ([`Events::next_taking`]): a fold that decides every decision
    /// (verify, diff) then does not read them itself. Before the first
    /// line is read; afterwards, and without proofs, it changes nothing.
    pub fn read_decisions(&mut self, reader: DecisionReader) {
        if let Ahead::Waiting { chain: Some(_), decisions, .. } = &mut self.ahead {
            *decisions = Some(reader);
        }
    }

    /// Has the reader ahead prove decision lines' bodies canonical too,
    /// and read their number and `by` as the fold would
    /// ([`LinkChain::scanning_decisions`]), while the fold is behind it:
    /// for a fold that reads no decision itself (`state`, `replay` and
    /// `log` of a file), so that the two threads share its work about
    /// evenly ([`read_ahead`]). Before the first line is read; afterwards,
    /// and without proofs, it changes nothing.
    pub fn scan_decisions(&mut self) {
        if let Ahead::Waiting { chain: chain @ Some(_), .. } = &mut self.ahead {
            *chain = chain.take().map(LinkChain::scanning_decisions);
        }
    }
}

impl Events {
    /// The next line, offered first to `take` as it was read (its text,
    /// without the line end, what the reader ahead proved of it, and the
    /// decision it read from it, if asked to: [`Events::read_decisions`]): a
    /// line `take` folds in as it is is not parsed (`Ok(None)`); any other
    /// is parsed into its event (`Ok(Some)`). `None` at the end of the
    /// record.
    pub fn next_taking(
        &mut self,
        mut take: impl FnMut(&[u8], Option<&LinkProof>, Option<KeptDecision>) -> bool,
    ) -> Option<Result<Option<Event>, FileError>> {
        if self.done {
            return None;
        }
        let mut blank = 0;
        loop {
            self.line += 1;
            let (range, proof, decision, offset) = match self.next_read() {
                Read::Line { end, crlf, proof, decision, offset } => {
                    let Ahead::Running { start, .. } = &mut self.ahead else { unreachable!("a line was read") };
                    self.normalised.crlf += u64::from(crlf);
                    (std::mem::replace(start, end)..end, proof, decision, offset)
                }
                Read::End => {
                    self.done = true;
                    self.normalised.trailing_blank += blank;
                    return None;
                }
                Read::Failed(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            let Ahead::Running { batch, .. } = &self.ahead else { unreachable!("a line was read") };
            let text = &batch.text[range];
            if text.is_empty() {
                blank += 1;
            } else if blank > 0 {
                self.done = true;
                return Some(Err(FileError::Line {
                    path: self.path.display().to_string(),
                    line: self.line - blank,
                    field: "$".into(),
                    message: "a blank line inside the record: lines were removed or the record was edited".into(),
                }));
            } else if take(text, proof.as_ref(), decision) {
                return Some(Ok(None));
            } else {
                let Ok(text) = std::str::from_utf8(text) else {
                    self.done = true;
                    let e = check_utf8(&self.path, self.line, offset, text).err();
                    return Some(Err(e.unwrap_or_else(|| io(&self.path, "a line is not UTF-8 text"))));
                };
                return Some(record::parse_event(text).map(Some).map_err(|e| FileError::Line {
                    path: self.path.display().to_string(),
                    line: self.line,
                    field: e.field,
                    message: e.message,
                }));
            }
        }
    }

    /// The reader ahead's next read, starting it at the first.
    fn next_read(&mut self) -> Read {
        if let Ahead::Waiting { .. } = self.ahead {
            let Ahead::Waiting { reader, line, offset, chain, decisions } =
                std::mem::replace(&mut self.ahead, Ahead::Gone)
            else {
                unreachable!("matched above")
            };
            let (send, batches) = sync_channel(BATCHES_AHEAD);
            let queued = Arc::new(AtomicUsize::new(0));
            let (path, handed) = (self.path.clone(), queued.clone());
            let spawned = std::thread::Builder::new()
                .name("record reader".into())
                .spawn(move || read_ahead(&path, reader, line, offset, (chain, decisions), (&send, &handed)));
            if let Err(e) = spawned {
                return Read::Failed(io(&self.path, format!("cannot start a thread to read it: {e}")));
            }
            self.ahead = Ahead::Running { batches, queued, batch: Batch::default(), next: 0, start: 0 };
        }
        let Ahead::Running { batches, queued, batch, next, start } = &mut self.ahead else {
            return Read::Failed(io(&self.path, "read after its end"));
        };
        if *next == batch.reads.len() {
            match batches.recv() {
                Ok(read) => {
                    queued.fetch_sub(1, Ordering::Relaxed);
                    (*batch, *next, *start) = (read, 0, 0);
                }
                Err(_) => return Read::Failed(io(&self.path, "its reader stopped before the end")),
            }
        }
        *next += 1;
        std::mem::replace(&mut batch.reads[*next - 1], Read::End)
    }
}

impl Iterator for Events {
    type Item = Result<Event, FileError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_taking(|_, _, _| false).map(|read| read.map(|event| event.expect("a line not taken is parsed")))
    }
}

/// The reader ahead: reads the lines after `line` (the header's), in
/// batches, each line's link proven down the `chain` while it holds (none,
/// when the caller asked for no proofs), and each proven decision line's
/// decision read with `decisions`, if given. Stops after the end, a line
/// that cannot be read, or when the caller is gone.
///
/// A chain that scans decision bodies ([`Events::scan_decisions`]) does so
/// in a batch only while the fold is behind, half the batches it may hold
/// still `queued`; otherwise it leaves them to the fold, which reads them
/// the same way. The busier thread sheds that share of the work, whichever
/// it is on this ruleset's record and this machine.
fn read_ahead(
    path: &Path,
    mut reader: BufReader<File>,
    mut line: u64,
    mut offset: u64,
    (mut chain, decisions): (Option<LinkChain>, Option<DecisionReader>),
    (send, queued): (&SyncSender<Batch>, &AtomicUsize),
) {
    let shares = chain.as_ref().is_some_and(LinkChain::scans_decisions);
    loop {
        if let Some(chain) = chain.as_mut().filter(|_| shares) {
            chain.scan_decisions(queued.load(Ordering::Relaxed) >= BATCHES_AHEAD / 2);
        }
        let mut batch = Batch { text: Vec::with_capacity(BATCH_BYTES + 1024), reads: Vec::with_capacity(512) };
        let mut last = false;
        while !last && batch.text.len() < BATCH_BYTES {
            line += 1;
            let (begin, start) = (batch.text.len(), offset);
            let read = match read_bytes(path, &mut reader, line, &mut offset, &mut batch.text) {
                Ok(Some(crlf)) => {
                    let text = &batch.text[begin..];
                    let proof = chain.as_mut().and_then(|chain| chain.prove(text));
                    let decision =
                        proof.as_ref().zip(decisions).and_then(|(p, read)| read.read(p.decision_text(text)?));
                    // A proven line is proved UTF-8 by the fold that takes
                    // it, or its parse (`next_taking`): only the others here.
                    let unreadable = if proof.is_some() { None } else { check_utf8(path, line, start, text).err() };
                    match unreadable {
                        None => Read::Line { end: batch.text.len(), crlf, proof, decision, offset: start },
                        Some(e) => Read::Failed(e),
                    }
                }
                Ok(None) => Read::End,
                Err(e) => Read::Failed(e),
            };
            last = !matches!(read, Read::Line { .. });
            batch.reads.push(read);
        }
        // Counted before it is sent, so that the count taken on receipt
        // never runs below zero.
        queued.fetch_add(1, Ordering::Relaxed);
        if send.send(batch).is_err() || last {
            return;
        }
    }
}

/// Verifies a record file's events, as [`rollcall_core::game::verify`]
/// does, calling `tick` after each. A roll or fact line that is, byte for
/// byte, the one the re-decided decision leads to is taken as it was read
/// ([`Verifier::take_line`]): only decisions and what differs are parsed.
pub fn verify(header: &Header, events: &mut Events, mut tick: impl FnMut()) -> Result<Verified, VerifyFailure> {
    let mut verifier = Verifier::new(header, rollcall_core::registry::builtin())?;
    events.read_decisions(verifier.decision_reader());
    while let Some(read) = events.next_taking(|line, proof, read| verifier.take_line_read(line, proof, read)) {
        match read {
            Ok(None) => {}
            Ok(Some(event)) => verifier.push(&event)?,
            Err(e) => return Err(verifier.unreadable(e)),
        }
        tick();
    }
    verifier.finish().map(|(verified, _)| verified)
}

/// Reads one newline-terminated line onto the end of `bytes` (without the
/// newline, or a CR before it: `Some(true)` says there was one); `None` at
/// the end of the file. `offset` is the line's byte offset in the file, and
/// moves past it. The line is not yet proved UTF-8 text ([`check_utf8`]).
fn read_bytes(
    path: &Path,
    reader: &mut impl BufRead,
    line: u64,
    offset: &mut u64,
    bytes: &mut Vec<u8>,
) -> Result<Option<bool>, FileError> {
    let error =
        |message: String| FileError::Line { path: path.display().to_string(), line, field: "$".into(), message };
    let begin = bytes.len();
    let n = read_until_newline(reader, bytes).map_err(|e| error(format!("cannot read: {e}")))?;
    *offset += n as u64;
    if n == 0 {
        return Ok(None);
    }
    if bytes.pop() != Some(b'\n') {
        return Err(error("the last line has no newline: the record was cut short".into()));
    }
    let crlf = bytes.len() > begin && bytes.last() == Some(&b'\r');
    if crlf {
        bytes.pop();
    }
    Ok(Some(crlf))
}

/// [`BufRead::read_until`] a newline, found with the `memchr` crate's
/// vector search rather than the standard library's word-at-a-time one:
/// the reader ahead looks for every newline of a record, a tenth of its
/// instructions in `std`'s.
fn read_until_newline(reader: &mut impl BufRead, bytes: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut read = 0;
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let (done, used) = match memchr::memchr(b'\n', buffer) {
            Some(i) => (true, i + 1),
            None => (buffer.is_empty(), buffer.len()),
        };
        bytes.extend_from_slice(&buffer[..used]);
        reader.consume(used);
        read += used;
        if done {
            return Ok(read);
        }
    }
}

/// Line `line`, at byte offset `start`, as UTF-8 text, or where it is not.
fn check_utf8<'t>(path: &Path, line: u64, start: u64, text: &'t [u8]) -> Result<&'t str, FileError> {
    let first_line = usize::try_from(line).unwrap_or(usize::MAX);
    strict::utf8_from(text, first_line, start).map_err(|e| FileError::Line {
        path: path.display().to_string(),
        line,
        field: "$".into(),
        message: e.message,
    })
}

/// Opens a record file: its header, and its events as a stream.
pub fn read(path: &Path) -> Result<(Header, Events), FileError> {
    read_proving(path, true)
}

/// [`read`], each line's link proven by the reader ahead (`prove`) or left
/// to the fold (to show the two read alike).
fn read_proving(path: &Path, prove: bool) -> Result<(Header, Events), FileError> {
    let file = File::open(path).map_err(|e| io(path, e))?;
    let mut reader = BufReader::new(file);
    let mut bytes = Vec::new();
    let mut offset = 0;
    let mut normalised = Normalised::default();
    let Some(crlf) = read_bytes(path, &mut reader, 1, &mut offset, &mut bytes)? else {
        return Err(FileError::Line {
            path: path.display().to_string(),
            line: 1,
            field: "$".into(),
            message: "the file is empty: a record starts with a header line".into(),
        });
    };
    normalised.crlf += u64::from(crlf);
    let text = check_utf8(path, 1, 0, &bytes)?;
    let header = record::parse_header(text, rollcall_core::registry::builtin()).map_err(|e| FileError::Line {
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
    // The chain starts from the hash of the header line as read (which
    // `parse_header` proved canonical); were it not the game's, no proof
    // would be from the fold's head, and none would be trusted.
    let chain = prove.then(|| LinkChain::new(&bytes));
    let ahead = Ahead::Waiting { reader, line: 1, offset, chain, decisions: None };
    Ok((header, Events { path: path.to_path_buf(), line: 1, done: false, normalised, ahead }))
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
///
/// A `path` that is (or links to) a character device or a pipe —
/// `/dev/null`, `/dev/stdout`, a FIFO — is written into as a shell's `>`
/// writes, whatever `existing` says: it keeps nothing to lose, and a file
/// renamed over it would put a plain file where the device was.
pub fn write_file<T>(
    path: &Path,
    existing: Existing,
    fill: impl FnOnce(&mut dyn Write, &Path) -> Result<T, FileError>,
) -> Result<T, FileError> {
    if is_device_or_pipe(path) {
        let file = std::fs::OpenOptions::new().write(true).open(path).map_err(|e| io(path, e))?;
        let mut out = std::io::BufWriter::new(file);
        let result = fill(&mut out, path)?;
        out.flush().map_err(|e| io(path, e))?;
        return Ok(result);
    }
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

/// Whether `path` names (through any links) a character device or a pipe.
fn is_device_or_pipe(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device() || m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
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

#[cfg(test)]
mod tests {
    use super::*;
    use rollcall_core::game::Game;
    use rollcall_core::script::Script;

    /// A fixture's record, as `export` writes it.
    fn record(ruleset: &str, name: &str) -> Vec<u8> {
        let path = format!("{}/../fixtures/{ruleset}/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let script =
            Script::parse(&std::fs::read_to_string(path).unwrap(), name, rollcall_core::registry::builtin()).unwrap();
        let mut events = Vec::new();
        script.play(|_, e| events.push(Ok::<_, String>(e.clone()))).unwrap();
        let mut bytes = Vec::new();
        write_to(&mut bytes, Path::new("-"), &script.header, events).unwrap();
        bytes
    }

    /// A table game's decisions bring their dice in their bodies, which
    /// verify's fold reads for the number, side and dice in one pass with
    /// the line's proof: a die the decision does not use, a die changed, a
    /// `null` in place of the dice and the dice taken out, every link
    /// holding, are each refused (or, the die changed, decided otherwise
    /// and refused at the fact), and alike when the fold reads the body
    /// with serde.
    #[test]
    fn a_table_games_dice_are_read_alike_with_the_proof_and_without() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record.jsonl");
        let check = |bytes: &[u8]| alike(&path, bytes);
        let bytes = record("phoenix-command", "ambush");
        assert!(check(&bytes).starts_with("Ok(\"Ok("), "the untouched record verifies: {}", check(&bytes));
        let dice = br#""dice":{"check:ambush-1":[3],"check:ambush-2":[0]}"#;
        let changes: [&[u8]; 4] = [
            br#""dice":{"check:ambush-1":[3],"check:ambush-2":[0],"check:ambush-9":[4]}"#,
            br#""dice":{"check:ambush-1":[4],"check:ambush-2":[0]}"#,
            br#""dice":null"#,
            b"",
        ];
        for to in changes {
            let to = if to.is_empty() { Vec::new() } else { [to, b","].concat() };
            let changed = rechained(&bytes, &[&dice[..], b","].concat(), &to);
            assert_ne!(changed, bytes, "{}", String::from_utf8_lossy(&to));
            let outcome = check(&changed);
            assert!(outcome.contains("Err("), "{}: {outcome}", String::from_utf8_lossy(&to));
        }
    }

    /// [`outcomes`] of `bytes`, written to `path`, with the reader's proofs,
    /// once they are shown to be the outcomes without them.
    fn alike(path: &Path, bytes: &[u8]) -> String {
        std::fs::write(path, bytes).unwrap();
        let proven = outcomes(path, true);
        assert_eq!(proven, outcomes(path, false), "{}", String::from_utf8_lossy(bytes));
        proven
    }

    /// What verify and `state` make of the file (each outcome, or its
    /// error, spelt out), and what was normalised: the reader's proofs on
    /// or off (and with them, verify's decisions read ahead and `state`'s
    /// decision bodies scanned ahead).
    fn outcomes(path: &Path, prove: bool) -> String {
        let verified = read_proving(path, prove).map(|(header, mut events)| {
            let verified = verify(&header, &mut events, || {}).map(|v| format!("{:?} {:?}", v.head, v.turn));
            format!("{verified:?} {:?}", events.normalised())
        });
        let folded = read_proving(path, prove).and_then(|(header, mut events)| {
            let mut game = Game::open(header, rollcall_core::registry::builtin()).map_err(|e| io(path, e))?;
            // As `state FILE` folds it.
            events.scan_decisions();
            while let Some(read) = events.next_taking(|line, proof, _| game.apply_line_proven(line, proof)) {
                if let Some(event) = read? {
                    game.apply(&event).map_err(|e| io(path, e))?;
                }
            }
            Ok(format!("{} {} {:?} {}", game.head(), game.decisions(), game.turns(), game.state()))
        });
        format!("{verified:?}\n{folded:?}")
    }

    /// The reader ahead's proofs change no outcome: every byte of a record
    /// changed in turn (to a neighbour, a newline, a byte that is not
    /// UTF-8, or a CR), and the record with CRLF line ends and blank lines
    /// after it, read with and without them, verify and fold alike.
    #[test]
    fn proofs_read_ahead_change_no_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record.jsonl");
        let check = |bytes: &[u8]| alike(&path, bytes);
        let bytes = record("leader-activation", "rally");
        assert!(check(&bytes).starts_with("Ok(\"Ok("), "the untouched record verifies: {}", check(&bytes));
        // Every byte of the header and the first events, then every fifth.
        let start = bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').nth(4).unwrap().0;
        let (mut failed, mut tried) = (0, 0);
        for (n, at) in (0..start).chain((start..bytes.len()).step_by(5)).enumerate() {
            let mut changed = bytes.clone();
            tried += 1;
            changed[at] = match n % 5 {
                0 => bytes[at] ^ 1,
                1 => bytes[at].wrapping_add(1),
                2 => b'\n',
                3 => 0xff,
                _ => b'\r',
            };
            failed += usize::from(!check(&changed).starts_with("Ok(\"Ok("));
        }
        assert!(failed > tried * 9 / 10, "only {failed} of {tried} changes failed");
        // A line changed and the chain hashed again from it, so that every
        // link holds: the proof's shape holds too, and what is wrong is
        // left for the fold's scan (a space, a byte that is not UTF-8).
        for (from, to) in [(&b"{\"body\":{"[..], &b"{\"body\": {"[..]), (b"\"rifles-1\"", b"\"rifles\xff1\"")] {
            let changed = rechained(&bytes, from, to);
            assert_ne!(changed, bytes, "{}", String::from_utf8_lossy(from));
            assert!(check(&changed).contains("Err("), "{}", String::from_utf8_lossy(to));
        }
        // A decision changed, every link holding, so that verify's reader
        // ahead reads it ([`Events::read_decisions`]): a field the rules do
        // not know, a type, a leader, a control character, a key out of
        // order. Each is refused, and alike when the fold reads it itself.
        let decisions: [(&[u8], &[u8]); 5] = [
            (br#"{"first":"allies","#, br#"{"first":"allies","spare":1,"#),
            (br#""type":"activate""#, br#""type":"activated""#),
            (br#""leader":"lt-adams""#, br#""leader":"lt-adamz""#),
            (br#""fires on the farm""#, br#""fires on\u0001the farm""#),
            (br#"{"leader":"lt-adams","type":"activate"}"#, br#"{"type":"activate","leader":"lt-adams"}"#),
        ];
        for (from, to) in decisions {
            let outcome = check(&rechained(&bytes, from, to));
            assert!(outcome.contains("Err("), "{}: {outcome}", String::from_utf8_lossy(to));
        }
        let crlf = String::from_utf8(bytes.clone()).unwrap().replace('\n', "\r\n") + "\r\n\n";
        assert!(check(crlf.as_bytes()).contains("crlf: "), "normalised");
        for ruleset in ["phoenix-command", "combat-hq", "formation-activation"] {
            let dir = format!("{}/../fixtures/{ruleset}", env!("CARGO_MANIFEST_DIR"));
            let mut names: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
            names.sort();
            let first = names.iter().find(|p| p.extension().is_some_and(|e| e == "json")).unwrap();
            let name = first.file_stem().unwrap().to_str().unwrap();
            assert!(check(&record(ruleset, name)).starts_with("Ok(\"Ok("), "{ruleset}/{name} verifies");
        }
    }

    /// A device or a pipe is written into, not replaced by a file, with or
    /// without leave to replace what is there. (Through a link made here to
    /// `/dev/null`, so that a failure replaces the link, not the device.)
    #[cfg(unix)]
    #[test]
    fn a_device_or_a_pipe_is_written_into_not_replaced() {
        use std::io::Read;
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &Path, existing, text: &'static [u8]| {
            write_file(path, existing, |out, _| out.write_all(text).map_err(|e| io(path, e)))
        };
        let null = dir.path().join("null");
        std::os::unix::fs::symlink("/dev/null", &null).unwrap();
        for existing in [Existing::Refuse, Existing::Replace] {
            let written = write(&null, existing, b"a record\n");
            assert!(written.is_ok(), "{written:?}");
            assert!(std::fs::metadata(&null).unwrap().file_type().is_char_device(), "the link still names the device");
        }
        let fifo = dir.path().join("pipe");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo");
        // Opened to read first, without waiting for a writer, so that a
        // write that misses the pipe fails the test instead of hanging it.
        let mut reader = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(&fifo).unwrap();
        write(&fifo, Existing::Refuse, b"through the pipe\n").unwrap();
        let mut got = Vec::new();
        reader.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"through the pipe\n");
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the pipe is still a pipe");
        let mut names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["null", "pipe"], "no temporary file is left beside them");
    }

    /// `record` with the first `from` after its header made `to`, and every
    /// hash from that line on written again so that each link holds.
    fn rechained(record: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
        const HASH: &[u8] = b",\"hash\":\"";
        let header_end = record.iter().position(|&b| b == b'\n').unwrap() + 1;
        let at = header_end + record[header_end..].windows(from.len()).position(|w| w == from).unwrap();
        let changed = [&record[..at], to, &record[at + from.len()..]].concat();
        let mut out = changed[..header_end].to_vec();
        let mut previous = Digest::of(&changed[..header_end - 1]);
        for line in changed[header_end..].split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let hash = line.windows(HASH.len()).rposition(|w| w == HASH).unwrap();
            let hashed = [&line[..hash], &line[hash + HASH.len() + 65..]].concat();
            previous = record::link_bytes(&previous, &hashed);
            out.extend_from_slice(&line[..hash + HASH.len()]);
            out.extend_from_slice(previous.to_string().as_bytes());
            out.extend_from_slice(&line[hash + HASH.len() + 64..]);
            out.push(b'\n');
        }
        out
    }
}
