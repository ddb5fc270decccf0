//! Record files: JSON Lines, one header line then one line per event.
//!
//! Reading streams: [`read`] parses the header and hands back an iterator
//! that parses one line at a time, so a record of any length verifies in
//! constant memory. Every line must end with a newline: a last line without
//! one was cut short.
//!
//! Transport is not content: a record that went through email may come back
//! with CRLF line ends and blank lines at its end. Those are taken off and
//! counted ([`Events::normalised`]), so a command can say what it
//! normalised; anything else (a blank line inside the record, a changed
//! byte) is the content's and stays an error. Writing goes to a temporary file beside the target and
//! is renamed into place, so a failed export leaves nothing half-written.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use rollcall_core::record::{self, Event, Header};

/// A record file that cannot be read, with the line and field at fault.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{path}:{line}: {field}: {message}")]
    Line { path: String, line: u64, field: String, message: String },
}

fn io(path: &Path, e: impl std::fmt::Display) -> FileError {
    FileError::Io { path: path.display().to_string(), message: e.to_string() }
}

/// The events of a record file, parsed one line at a time.
pub struct Events {
    path: PathBuf,
    reader: BufReader<File>,
    line: u64,
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

impl Iterator for Events {
    type Item = Result<Event, FileError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut text = String::new();
        let mut blank = 0;
        loop {
            self.line += 1;
            text.clear();
            match read_line(&self.path, &mut self.reader, self.line, &mut text, &mut self.normalised) {
                Ok(false) => {
                    self.done = true;
                    self.normalised.trailing_blank += blank;
                    return None;
                }
                Ok(true) if text.is_empty() => blank += 1,
                Ok(true) if blank > 0 => {
                    self.done = true;
                    return Some(Err(FileError::Line {
                        path: self.path.display().to_string(),
                        line: self.line - blank,
                        field: "$".into(),
                        message: "a blank line inside the record: lines were removed or the record was edited".into(),
                    }));
                }
                Ok(true) => {
                    return Some(record::parse_event(&text).map_err(|e| FileError::Line {
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

/// Reads one newline-terminated line into `text` (without the newline, or a
/// CR before it, which is counted). `Ok(false)` at the end of the file.
fn read_line(
    path: &Path,
    reader: &mut impl BufRead,
    line: u64,
    text: &mut String,
    normalised: &mut Normalised,
) -> Result<bool, FileError> {
    let n = reader.read_line(text).map_err(|e| FileError::Line {
        path: path.display().to_string(),
        line,
        field: "$".into(),
        message: format!("not UTF-8 text: {e}"),
    })?;
    if n == 0 {
        return Ok(false);
    }
    if !text.ends_with('\n') {
        return Err(FileError::Line {
            path: path.display().to_string(),
            line,
            field: "$".into(),
            message: "the last line has no newline: the record was cut short".into(),
        });
    }
    text.pop();
    if text.ends_with('\r') {
        text.pop();
        normalised.crlf += 1;
    }
    Ok(true)
}

/// Opens a record file: its header, and its events as a stream.
pub fn read(path: &Path) -> Result<(Header, Events), FileError> {
    let file = File::open(path).map_err(|e| io(path, e))?;
    let mut reader = BufReader::new(file);
    let mut text = String::new();
    let mut normalised = Normalised::default();
    if !read_line(path, &mut reader, 1, &mut text, &mut normalised)? {
        return Err(FileError::Line {
            path: path.display().to_string(),
            line: 1,
            field: "$".into(),
            message: "the file is empty: a record starts with a header line".into(),
        });
    }
    let header = record::parse_header(&text).map_err(|e| FileError::Line {
        path: path.display().to_string(),
        line: 1,
        field: e.field,
        message: e.message,
    })?;
    Ok((header, Events { path: path.to_path_buf(), reader, line: 1, done: false, normalised }))
}

/// Writes a record: the header and every event, via a temporary file renamed
/// into place. The events are written as they come.
pub fn write<E: std::fmt::Display>(
    path: &Path,
    header: &Header,
    events: impl IntoIterator<Item = Result<Event, E>>,
) -> Result<u64, FileError> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| io(path, "not a file name"))?;
    let tmp = dir.join(format!(".{}.partial", name.to_string_lossy()));
    let result = (|| {
        let mut out = std::io::BufWriter::new(File::create(&tmp).map_err(|e| io(&tmp, e))?);
        let line = record::encode_header(header).map_err(|e| io(path, e))?;
        writeln!(out, "{line}").map_err(|e| io(&tmp, e))?;
        let mut count = 0;
        for event in events {
            let event = event.map_err(|e| io(path, e))?;
            let line = record::encode_event(&event).map_err(|e| io(path, e))?;
            writeln!(out, "{line}").map_err(|e| io(&tmp, e))?;
            count += 1;
        }
        let file = out.into_inner().map_err(|e| io(&tmp, e))?;
        file.sync_all().map_err(|e| io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| io(path, e))?;
        Ok(count)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
