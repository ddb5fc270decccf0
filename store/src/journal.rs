//! The append journal of a sled store: one `fdatasync` per acknowledged
//! append.
//!
//! sled 0.34.7 makes a write durable with its own flush, which hands the
//! I/O buffer to its threads and ends in `sync_file_range`; the store then
//! syncs sled's file again so that a power cut cannot take the file's new
//! length (see `SledLog::flush`). Two syncs and two thread hand-offs a
//! decision held `play --stream` to 0.35–0.43 × a plain fsync per record
//! (docs/benchmarks.md). So an append is first written here — the game, the
//! head it follows, the head it makes and the events as sled keeps them —
//! and this file alone is synced; sled gets the same writes without a flush
//! and makes them durable in its own time. A *checkpoint* flushes sled
//! (and syncs its file) and only then empties the journal.
//!
//! At open, every entry is read back and applied to sled where sled does
//! not have it yet (see `SledLog::replay`). sled recovers a prefix of what
//! it was given (its log is written in order) and the journal is written in
//! the same order, under the same lock, so sled's state after a crash is
//! the state after some entry, and the entries after it follow its head.
//!
//! An entry is `TAG ‖ length (u32 LE) ‖ payload ‖ blake3(payload)[..16]`.
//! A crash while an entry is written leaves a torn tail: an entry whose
//! length runs past the end of the file or whose check does not match. The
//! append it held was never acknowledged (the sync had not returned), so
//! reading stops there and the tail is cut off. Payload:
//! `game length (u16) ‖ game ‖ expected hash (32) ‖ new head seq (u64) ‖
//! new head hash (32) ‖ event count (u32) ‖ { seq (u64) ‖ length (u32) ‖
//! the event as sled stores it }`, integers little-endian.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rollcall_core::digest::Digest;
use rollcall_core::log::Head;

/// The journal's file name, inside the store's directory (beside sled's
/// `conf`, `db` and `snap.*`; sled reads only its own names there).
pub const FILE_NAME: &str = "journal";

/// The first byte of every entry (format 1).
const TAG: u8 = 0xA1;

/// How long the journal may grow before an append checkpoints it: every
/// opening reads it through, so it is kept short (about a thousand
/// decisions of a leader-activation game).
pub const CHECKPOINT_BYTES: u64 = 256 << 10;

/// One append, as journaled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub game: String,
    /// The head the append followed.
    pub expected: Digest,
    /// The head it made.
    pub head: Head,
    /// Each event's seq and its bytes as sled stores them.
    pub events: Vec<(u64, Vec<u8>)>,
}

impl Entry {
    /// The entry's bytes, framed and checked.
    pub fn encode(&self) -> Vec<u8> {
        let size = 2 + self.game.len() + 32 + 8 + 32 + 4 + self.events.iter().map(|(_, e)| 12 + e.len()).sum::<usize>();
        let mut out = Vec::with_capacity(1 + 4 + size + 16);
        out.push(TAG);
        out.extend_from_slice(&(size as u32).to_le_bytes());
        out.extend_from_slice(&(self.game.len() as u16).to_le_bytes());
        out.extend_from_slice(self.game.as_bytes());
        out.extend_from_slice(self.expected.as_bytes());
        out.extend_from_slice(&self.head.seq.to_le_bytes());
        out.extend_from_slice(self.head.hash.as_bytes());
        out.extend_from_slice(&(self.events.len() as u32).to_le_bytes());
        for (seq, bytes) in &self.events {
            out.extend_from_slice(&seq.to_le_bytes());
            out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(bytes);
        }
        let check = Digest::of(&out[5..]);
        out.extend_from_slice(&check.as_bytes()[..16]);
        out
    }

    /// Reads the payload of a checked entry.
    fn decode(payload: &[u8]) -> Option<Entry> {
        let mut r = payload;
        let game_len = usize::from(u16::from_le_bytes(take(&mut r, 2)?.try_into().ok()?));
        let game = std::str::from_utf8(take(&mut r, game_len)?).ok()?.to_string();
        let expected = Digest(take(&mut r, 32)?.try_into().ok()?);
        let seq = u64::from_le_bytes(take(&mut r, 8)?.try_into().ok()?);
        let hash = Digest(take(&mut r, 32)?.try_into().ok()?);
        let count = u32::from_le_bytes(take(&mut r, 4)?.try_into().ok()?);
        let mut events = Vec::with_capacity(count.min(1 << 16) as usize);
        for _ in 0..count {
            let seq = u64::from_le_bytes(take(&mut r, 8)?.try_into().ok()?);
            let len = u32::from_le_bytes(take(&mut r, 4)?.try_into().ok()?) as usize;
            events.push((seq, take(&mut r, len)?.to_vec()));
        }
        r.is_empty().then_some(Entry { game, expected, head: Head { seq, hash }, events })
    }
}

/// The next `n` bytes of `r`, if it has them.
fn take<'a>(r: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if r.len() < n {
        return None;
    }
    let (head, rest) = r.split_at(n);
    *r = rest;
    Some(head)
}

/// What a journal's bytes hold: its whole entries, and where they end (any
/// bytes after that are a torn tail).
pub fn read_entries(bytes: &[u8]) -> (Vec<Entry>, usize) {
    let mut entries = Vec::new();
    let mut at = 0;
    while let Some((entry, len)) = entry_at(&bytes[at..]) {
        entries.push(entry);
        at += len;
    }
    (entries, at)
}

/// The entry at the start of `bytes` and its length, if a whole, checked
/// entry is there.
fn entry_at(bytes: &[u8]) -> Option<(Entry, usize)> {
    let (&TAG, rest) = bytes.split_first()? else { return None };
    let size = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let payload = rest.get(4..4 + size)?;
    let check = rest.get(4 + size..4 + size + 16)?;
    if Digest::of(payload).as_bytes()[..16] != *check {
        return None;
    }
    Some((Entry::decode(payload)?, 1 + 4 + size + 16))
}

/// The journal file, open for appending.
pub struct Journal {
    file: File,
    path: PathBuf,
    /// The bytes of whole entries in it: the next entry is written here.
    len: u64,
}

impl Journal {
    /// Opens (or creates) the journal of the store in `dir`, returns it and
    /// the entries it holds, and cuts off a torn tail (durably, so that no
    /// later entry is written after bytes a reader would stop at).
    pub fn open(dir: &Path) -> std::io::Result<(Journal, Vec<Entry>)> {
        let path = dir.join(FILE_NAME);
        let mut file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let (entries, whole) = read_entries(&bytes);
        if whole < bytes.len() {
            file.set_len(whole as u64)?;
            file.sync_all()?;
        }
        Ok((Journal { file, path, len: whole as u64 }, entries))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes of entries in the journal.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes an entry at the end, not yet synced. On failure the file is
    /// cut back to the entries before it, so that nothing torn is left for a
    /// later entry to follow; if even that fails, the error says so.
    pub fn write(&mut self, entry: &[u8]) -> std::io::Result<()> {
        let written = self.file.seek(SeekFrom::Start(self.len)).and_then(|_| self.file.write_all(entry));
        match written {
            Ok(()) => {
                self.len += entry.len() as u64;
                Ok(())
            }
            Err(e) => Err(self.cut_back(e)),
        }
    }

    /// Takes back the entry just written (its append failed after it).
    pub fn unwrite(&mut self, entry_len: usize) -> std::io::Result<()> {
        self.len -= entry_len as u64;
        self.file.set_len(self.len)
    }

    fn cut_back(&mut self, cause: std::io::Error) -> std::io::Error {
        match self.file.set_len(self.len) {
            Ok(()) => cause,
            Err(cut) => std::io::Error::new(
                cause.kind(),
                format!("{cause}; and the journal {} could not be cut back after it ({cut})", self.path.display()),
            ),
        }
    }

    /// A second handle on the file, to sync it without holding the journal.
    pub fn sync_handle(&self) -> std::io::Result<File> {
        self.file.try_clone()
    }

    /// Empties the journal, durably: called once sled holds every entry
    /// durably itself.
    pub fn clear(&mut self) -> std::io::Result<()> {
        self.file.set_len(0)?;
        self.file.sync_all()?;
        self.len = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(game: &str, seq: u64, events: usize) -> Entry {
        Entry {
            game: game.into(),
            expected: Digest::of(format!("{game}{seq}").as_bytes()),
            head: Head { seq: seq + events as u64, hash: Digest::of(b"new") },
            events: (0..events).map(|i| (seq + 1 + i as u64, vec![b'x'; 10 + i])).collect(),
        }
    }

    #[test]
    fn entries_read_back_as_written() {
        let entries = [entry("a", 0, 3), entry("b-game", 7, 1), entry("a", 3, 0)];
        let bytes: Vec<u8> = entries.iter().flat_map(Entry::encode).collect();
        let (read, whole) = read_entries(&bytes);
        assert_eq!(read, entries);
        assert_eq!(whole, bytes.len());
    }

    /// A journal cut at any byte, or with any byte of its last entry
    /// changed, reads as the entries before it: a torn tail is never read
    /// as an entry.
    #[test]
    fn a_torn_or_damaged_tail_reads_as_the_entries_before_it() {
        let first = entry("a", 0, 2).encode();
        let last = entry("a", 2, 3).encode();
        let whole: Vec<u8> = [first.clone(), last.clone()].concat();
        for cut in 0..whole.len() {
            let (read, at) = read_entries(&whole[..cut]);
            let expected = usize::from(cut >= first.len());
            assert_eq!(read.len(), expected, "cut at {cut}");
            assert_eq!(at, if expected == 1 { first.len() } else { 0 });
        }
        for i in first.len()..whole.len() {
            let mut damaged = whole.clone();
            damaged[i] ^= 0x40;
            let (read, at) = read_entries(&damaged);
            assert_eq!((read.len(), at), (1, first.len()), "byte {i} changed");
        }
    }

    #[test]
    fn opening_cuts_a_torn_tail_and_writes_after_the_whole_entries() {
        let dir = tempfile::tempdir().unwrap();
        let first = entry("a", 0, 2).encode();
        let second = entry("a", 2, 1).encode();
        std::fs::write(dir.path().join(FILE_NAME), [&first[..], &second[..9]].concat()).unwrap();
        let (mut journal, entries) = Journal::open(dir.path()).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(journal.len(), first.len() as u64);
        journal.write(&second).unwrap();
        drop(journal);
        let (journal, entries) = Journal::open(dir.path()).unwrap();
        assert_eq!(entries, [entry("a", 0, 2), entry("a", 2, 1)]);
        assert_eq!(journal.len(), (first.len() + second.len()) as u64);
    }
}
