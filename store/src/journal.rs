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
//! (and syncs its file) and only then empties the journal: when the
//! journal grows past [`CHECKPOINT_BYTES`], and when a store opened whole
//! is closed (`SledLog`'s `Drop`), so that the next opening need not read
//! again what sled holds.
//!
//! At open, every entry is read back and applied to sled where sled does
//! not have it yet (see `SledLog::replayed`). sled recovers a prefix of what
//! it was given (its log is written in order) and the journal is written in
//! the same order, under the same lock, so sled's state after a crash is
//! the state after some entry, and the entries after it follow its head.
//!
//! The file is laid out ahead of its entries, zeroed, from the first entry
//! on (a new journal is its header alone): an `fdatasync` that
//! must also write the file's new length writes its inode as well (and, on
//! a journalled filesystem, waits for the journal's commit): 0.097 ms
//! against 0.072 ms a record here, median of 300 (docs/benchmarks.md). So
//! the file keeps its length, and entries say where they end themselves:
//!
//! - a header, `MAGIC ‖ generation (u64 LE)`; emptying the journal is one
//!   new generation written over it (old entries no longer check);
//! - then entries, each `TAG ‖ length (u32 LE) ‖ payload ‖ check`, where
//!   `check = blake3(generation ‖ previous check ‖ payload)[..16]` (the
//!   first entry's previous check is zeros).
//!
//! Reading stops at the first entry that does not check: the zeros after
//! the last one, a torn entry (a crash while it was written: its append was
//! never acknowledged, the sync had not returned), an older generation's
//! entry, or what is left of one after a shorter entry was written over it
//! (it chains from another entry). The next entry is written there.
//! Payload: `game length (u16) ‖ game ‖ expected hash (32) ‖ new head seq
//! (u64) ‖ new head hash (32) ‖ event count (u32) ‖ { seq (u64) ‖ length
//! (u32) ‖ the event as sled stores it }`, integers little-endian.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rollcall_core::digest::Digest;
use rollcall_core::log::Head;

/// The journal's file name, inside the store's directory (beside sled's
/// `conf`, `db` and `snap.*`; sled reads only its own names there).
pub const FILE_NAME: &str = "journal";

/// The journal's first bytes (format 1), before its generation.
const MAGIC: &[u8; 8] = b"rcjrnl01";

/// The header: the magic and the generation.
const HEADER: u64 = 16;

/// The first byte of every entry.
const TAG: u8 = 0xA1;

/// How many bytes of an entry are not its payload: tag, length, check.
const FRAME: usize = 1 + 4 + 16;

/// How long the journal may grow before an append checkpoints it: every
/// opening reads it through, so it is kept short (about a thousand
/// decisions of a leader-activation game).
pub const CHECKPOINT_BYTES: u64 = 256 << 10;

/// How the file's zeroed room grows: by at least this much at a time (a
/// new store takes this much more room; the room stops growing once it holds
/// a checkpoint's worth).
const ROOM: u64 = 64 << 10;

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

/// Where an entry sits in its journal: the generation, and the check of
/// the entry before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    generation: u64,
    previous: [u8; 16],
}

impl Chain {
    fn start(generation: u64) -> Chain {
        Chain { generation, previous: [0; 16] }
    }

    fn check(&self, payload: &[u8]) -> [u8; 16] {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&self.generation.to_le_bytes());
        hasher.update(&self.previous);
        hasher.update(payload);
        hasher.finalize().as_bytes()[..16].try_into().expect("16 bytes")
    }
}

impl Entry {
    /// The entry's bytes, framed and checked where `chain` says it sits;
    /// and the chain after it.
    pub fn encode(&self, chain: Chain) -> (Vec<u8>, Chain) {
        let size = 2 + self.game.len() + 32 + 8 + 32 + 4 + self.events.iter().map(|(_, e)| 12 + e.len()).sum::<usize>();
        let mut out = Vec::with_capacity(FRAME + size);
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
        let check = chain.check(&out[5..]);
        out.extend_from_slice(&check);
        (out, Chain { generation: chain.generation, previous: check })
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

/// What the entries after a journal's header hold, read from where `chain`
/// starts: its entries, how many bytes they take, and the chain after them.
pub fn read_entries(bytes: &[u8], mut chain: Chain) -> (Vec<Entry>, usize, Chain) {
    let mut entries = Vec::new();
    let mut at = 0;
    while let Some((entry, len, next)) = entry_at(&bytes[at..], chain) {
        entries.push(entry);
        at += len;
        chain = next;
    }
    (entries, at, chain)
}

/// The entry at the start of `bytes`, its length and the chain after it, if
/// a whole entry is there and it checks where `chain` says it sits.
fn entry_at(bytes: &[u8], chain: Chain) -> Option<(Entry, usize, Chain)> {
    let (&TAG, rest) = bytes.split_first()? else { return None };
    let size = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let payload = rest.get(4..4 + size)?;
    let check: [u8; 16] = rest.get(4 + size..4 + size + 16)?.try_into().ok()?;
    if chain.check(payload) != check {
        return None;
    }
    Some((Entry::decode(payload)?, FRAME + size, Chain { generation: chain.generation, previous: check }))
}

/// Starts writing the entry just written to the disk, without waiting: the
/// sync that follows (after sled's inserts for the same append) then waits
/// only for what is left. Linux's `sync_file_range(SYNC_FILE_RANGE_WRITE)`;
/// it promises nothing about durability (the `fdatasync` does), so a failure
/// here is left for that sync to meet.
fn start_writeback(file: &File, at: u64, len: usize) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on an open descriptor, with no memory
        // passed to it.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), at as i64, len as i64, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, at, len);
}

/// The journal file, open for appending.
pub struct Journal {
    file: File,
    path: PathBuf,
    /// Where the next entry is written: the header and the entries.
    end: u64,
    /// The file's length: zeroed room from `end` to here.
    room: u64,
    /// Where the next entry sits in the chain.
    chain: Chain,
}

impl Journal {
    /// Opens the journal of the store in `dir` (made, a header alone, if it
    /// is not there yet, or holds no header), and returns it and the entries
    /// it holds.
    pub fn open(dir: &Path) -> std::io::Result<(Journal, Vec<Entry>)> {
        let path = dir.join(FILE_NAME);
        let mut file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let generation = match bytes.get(..HEADER as usize) {
            Some(header) if header[..8] == *MAGIC => u64::from_le_bytes(header[8..].try_into().expect("8 bytes")),
            _ if bytes.iter().all(|b| *b == 0) => {
                // Room is laid out at the first entry: a store that never
                // takes an append to a stored game (one made by `import`)
                // keeps a journal of its header alone.
                let mut journal = Journal { file, path, end: HEADER, room: HEADER, chain: Chain::start(1) };
                journal.write_header()?;
                // The new file's name, durably.
                File::open(dir)?.sync_all()?;
                return Ok((journal, Vec::new()));
            }
            _ => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{} is not a rollcall journal (it does not start with {:?})", path.display(), "rcjrnl01"),
                ))
            }
        };
        let (entries, len, chain) = read_entries(&bytes[HEADER as usize..], Chain::start(generation));
        let journal = Journal { file, path, end: HEADER + len as u64, room: bytes.len() as u64, chain };
        Ok((journal, entries))
    }

    /// Writes the header (the magic and the chain's generation) and syncs it.
    fn write_header(&mut self) -> std::io::Result<()> {
        let mut header = [0u8; HEADER as usize];
        header[..8].copy_from_slice(MAGIC);
        header[8..].copy_from_slice(&self.chain.generation.to_le_bytes());
        self.file.write_all_at(&header, 0)?;
        self.file.sync_data()
    }

    /// Makes the file long enough for `more` bytes after the entries,
    /// zeroed, and syncs its new length.
    fn make_room(&mut self, more: u64) -> std::io::Result<()> {
        let want = self.end + more;
        if want <= self.room {
            return Ok(());
        }
        let room = want.next_multiple_of(ROOM);
        let zeros = vec![0u8; (room - self.room) as usize];
        self.file.write_all_at(&zeros, self.room)?;
        self.file.sync_all()?;
        self.room = room;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes of entries in the journal.
    pub fn len(&self) -> u64 {
        self.end - HEADER
    }

    pub fn is_empty(&self) -> bool {
        self.end == HEADER
    }

    /// Writes an entry after the others, not yet synced; returns where it
    /// begins, to take it back with [`Journal::unwrite`]. Bytes a failed
    /// write left behind are written over by the next entry (they do not
    /// check, so no reader reads past them).
    pub fn write(&mut self, entry: &Entry) -> std::io::Result<u64> {
        let (bytes, chain) = entry.encode(self.chain);
        self.make_room(bytes.len() as u64)?;
        let at = self.end;
        self.file.write_all_at(&bytes, at)?;
        start_writeback(&self.file, at, bytes.len());
        self.end += bytes.len() as u64;
        self.chain = chain;
        Ok(at)
    }

    /// Takes back the last entry, written at `at` (its append failed after
    /// it): its tag is zeroed, durably, so reading stops before it, and the
    /// next entry is written in its place.
    pub fn unwrite(&mut self, at: u64, chain: Chain) -> std::io::Result<()> {
        self.end = at;
        self.chain = chain;
        self.file.write_all_at(&[0], at)?;
        self.file.sync_data()
    }

    /// Where the next entry sits in the chain (to take it back).
    pub fn chain(&self) -> Chain {
        self.chain
    }

    /// A second handle on the file, to sync it without holding the journal.
    pub fn sync_handle(&self) -> std::io::Result<File> {
        self.file.try_clone()
    }

    /// Empties the journal, durably: called once sled holds every entry
    /// durably itself. A new generation is written in the header: the
    /// entries of the old one no longer check.
    pub fn clear(&mut self) -> std::io::Result<()> {
        self.chain = Chain::start(self.chain.generation + 1);
        self.end = HEADER;
        self.write_header()
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

    /// The entries' bytes, one after another from the chain's start.
    fn encoded(entries: &[Entry], generation: u64) -> Vec<u8> {
        let mut chain = Chain::start(generation);
        let mut out = Vec::new();
        for e in entries {
            let (bytes, next) = e.encode(chain);
            out.extend_from_slice(&bytes);
            chain = next;
        }
        out
    }

    #[test]
    fn entries_read_back_as_written() {
        let entries = [entry("a", 0, 3), entry("b-game", 7, 1), entry("a", 3, 0)];
        let bytes = encoded(&entries, 4);
        let (read, len, _) = read_entries(&bytes, Chain::start(4));
        assert_eq!(read, entries);
        assert_eq!(len, bytes.len());
        // Another generation's entries do not check.
        assert_eq!(read_entries(&bytes, Chain::start(5)).0, []);
    }

    /// A journal cut at any byte, or with any byte of its last entry
    /// changed, reads as the entries before it: a torn tail is never read
    /// as an entry. Nor is what is left of an entry after a shorter one was
    /// written over its start.
    #[test]
    fn a_torn_damaged_or_overwritten_tail_reads_as_the_entries_before_it() {
        let first = encoded(&[entry("a", 0, 2)], 1);
        let whole = encoded(&[entry("a", 0, 2), entry("a", 2, 3)], 1);
        for cut in 0..whole.len() {
            let (read, at, _) = read_entries(&whole[..cut], Chain::start(1));
            let expected = usize::from(cut >= first.len());
            assert_eq!(read.len(), expected, "cut at {cut}");
            assert_eq!(at, if expected == 1 { first.len() } else { 0 });
        }
        for i in first.len()..whole.len() {
            let mut damaged = whole.clone();
            damaged[i] ^= 0x40;
            let (read, at, _) = read_entries(&damaged, Chain::start(1));
            assert_eq!((read.len(), at), (1, first.len()), "byte {i} changed");
        }
        // An entry, then a shorter one written over it (the first was taken
        // back), then a copy of the first's bytes after: the copy chains from
        // the wrong entry and is not read.
        let (long, _) = entry("a", 2, 9).encode(Chain::start(1));
        let (short, _) = entry("a", 2, 1).encode(Chain::start(1));
        let bytes = [&short[..], &long[..]].concat();
        assert_eq!(read_entries(&bytes, Chain::start(1)).0, [entry("a", 2, 1)]);
    }

    #[test]
    fn a_journal_keeps_its_length_and_reads_back_after_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, entries) = Journal::open(dir.path()).unwrap();
        assert!(entries.is_empty() && journal.is_empty());
        let length = || std::fs::metadata(dir.path().join(FILE_NAME)).unwrap().len();
        assert_eq!(length(), HEADER, "a new journal is its header alone");
        journal.write(&entry("a", 0, 2)).unwrap();
        let room = length();
        assert_eq!(room, ROOM, "laid out ahead at the first entry, zeroed");
        let chain = journal.chain();
        let at = journal.write(&entry("a", 2, 1)).unwrap();
        assert_eq!(length(), room, "an entry does not change the file's length");
        journal.unwrite(at, chain).unwrap();
        journal.write(&entry("a", 2, 4)).unwrap();
        drop(journal);
        let (mut journal, entries) = Journal::open(dir.path()).unwrap();
        assert_eq!(entries, [entry("a", 0, 2), entry("a", 2, 4)]);
        // Cleared: a new generation; then entries again, read from the start.
        journal.clear().unwrap();
        assert!(journal.is_empty());
        journal.write(&entry("b", 0, 1)).unwrap();
        drop(journal);
        let (journal, entries) = Journal::open(dir.path()).unwrap();
        assert_eq!(entries, [entry("b", 0, 1)]);
        // Room grows when an entry needs it.
        drop(journal);
        let (mut journal, _) = Journal::open(dir.path()).unwrap();
        let big = Entry { events: vec![(1, vec![b'y'; 3 * ROOM as usize / 2])], ..entry("c", 0, 0) };
        journal.write(&big).unwrap();
        assert!(length() > room && length().is_multiple_of(ROOM));
        drop(journal);
        assert_eq!(Journal::open(dir.path()).unwrap().1, [entry("b", 0, 1), big]);
    }

    #[test]
    fn a_file_that_is_not_a_journal_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), b"something else").unwrap();
        let error = Journal::open(dir.path()).err().unwrap().to_string();
        assert!(error.contains("is not a rollcall journal"), "{error}");
    }
}
