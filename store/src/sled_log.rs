//! The sled-backed event log.
//!
//! Layout: tree `headers` (game id → canonical header line), tree `heads`
//! (game id → seq as u64 big-endian ‖ 32-byte hash), and one tree per game,
//! `events/<id>` (seq as u64 big-endian → canonical event line), so a game's
//! events stream in seq order. An append is one multi-tree transaction (the
//! events and the new head, or nothing) and returns only after `flush`.
//!
//! A game being created lives in tree `pending` (game id → head ‖ header
//! line) while its events go into its `events/<id>` tree in batches; only
//! the commit, one transaction, moves it into `headers` and `heads`. Every
//! reader looks at `headers` only, so a creation killed half-way is
//! invisible, and the next `begin` of the same id clears it. Tree `notes`
//! keeps the commands' small per-game notes, tree `secrets` a dice server's
//! chains and key (never listed).

use std::path::Path;

use rollcall_core::digest::Digest;
use rollcall_core::log::{check_append, EventLog, Head, LogError};
use rollcall_core::record::{self, Event, Header};
use sled::transaction::{ConflictableTransactionError, TransactionError};
use sled::Transactional;

/// A sled database holding games.
pub struct SledLog {
    db: sled::Db,
    headers: sled::Tree,
    heads: sled::Tree,
    pending: sled::Tree,
    notes: sled::Tree,
    secrets: sled::Tree,
}

fn backend(e: impl std::fmt::Display) -> LogError {
    LogError::Backend(e.to_string())
}

fn encode_head(head: &Head) -> [u8; 40] {
    let mut out = [0u8; 40];
    out[..8].copy_from_slice(&head.seq.to_be_bytes());
    out[8..].copy_from_slice(head.hash.as_bytes());
    out
}

fn decode_head(game: &str, bytes: &[u8]) -> Result<Head, LogError> {
    if bytes.len() != 40 {
        return Err(LogError::Corrupt { game: game.into(), seq: 0, reason: "the stored head is not 40 bytes".into() });
    }
    let seq = u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes"));
    let hash = Digest(bytes[8..].try_into().expect("32 bytes"));
    Ok(Head { seq, hash })
}

impl SledLog {
    /// Opens (or creates) the database in `dir`.
    pub fn open(dir: &Path) -> Result<SledLog, LogError> {
        let db = sled::Config::new()
            .path(dir)
            .open()
            .map_err(|e| LogError::Backend(format!("cannot open the store at {}: {e}", dir.display())))?;
        let headers = db.open_tree("headers").map_err(backend)?;
        let heads = db.open_tree("heads").map_err(backend)?;
        let pending = db.open_tree("pending").map_err(backend)?;
        let notes = db.open_tree("notes").map_err(backend)?;
        let secrets = db.open_tree("secrets").map_err(backend)?;
        Ok(SledLog { db, headers, heads, pending, notes, secrets })
    }

    /// Removes a stored game for good: its header, head and events, and the
    /// notes named by `notes` (which side this store plays in it, forks kept
    /// as evidence…), the header, head and notes in one transaction.
    /// Refused for a game the store does not have.
    pub fn remove_game(&self, game: &str, notes: &[String]) -> Result<(), LogError> {
        self.require(game)?;
        let result = (&self.headers, &self.heads, &self.notes).transaction(|(headers, heads, kept)| {
            headers.remove(game.as_bytes())?;
            heads.remove(game.as_bytes())?;
            for key in notes {
                kept.remove(key.as_bytes())?;
            }
            Ok::<_, ConflictableTransactionError<LogError>>(())
        });
        match result {
            Ok(()) => {}
            Err(TransactionError::Abort(e)) => return Err(e),
            Err(TransactionError::Storage(e)) => return Err(backend(e)),
        }
        // Invisible from here; a kill before the drop leaves an events tree
        // no reader looks at, which the next `begin` of the id clears.
        self.db.drop_tree(format!("events/{game}")).map_err(backend)?;
        self.flush()
    }

    fn events_tree(&self, game: &str) -> Result<sled::Tree, LogError> {
        self.db.open_tree(format!("events/{game}")).map_err(backend)
    }

    fn flush(&self) -> Result<(), LogError> {
        self.db.flush().map(|_| ()).map_err(backend)
    }

    fn require(&self, game: &str) -> Result<(), LogError> {
        if self.headers.contains_key(game).map_err(backend)? {
            Ok(())
        } else {
            Err(LogError::UnknownGame(game.to_string()))
        }
    }
}

/// Appends `events` to `tree` after the head stored at `game` in `heads`
/// (the `heads` or the `pending` tree, whose values start with a head), in
/// one transaction.
fn append_to(
    heads: &sled::Tree,
    tree: &sled::Tree,
    game: &str,
    expected: &Digest,
    events: &[Event],
) -> Result<Head, LogError> {
    let mut lines = Vec::with_capacity(events.len());
    for e in events {
        lines.push((e.seq.to_be_bytes(), record::encode_event(e).map_err(backend)?));
    }
    let result = (heads, tree).transaction(|(heads, tree)| {
        let stored = heads
            .get(game.as_bytes())?
            .ok_or(ConflictableTransactionError::Abort(LogError::UnknownGame(game.into())))?;
        let head = decode_head(game, &stored[..40.min(stored.len())]).map_err(ConflictableTransactionError::Abort)?;
        if head.hash != *expected {
            return Err(ConflictableTransactionError::Abort(LogError::StaleHead {
                game: game.to_string(),
                expected: expected.short(),
                seq: head.seq,
                actual: head.hash.short(),
            }));
        }
        let new_head = check_append(game, &head, events).map_err(ConflictableTransactionError::Abort)?;
        for (key, line) in &lines {
            tree.insert(&key[..], line.as_bytes())?;
        }
        let mut value = encode_head(&new_head).to_vec();
        value.extend_from_slice(&stored[40..]);
        heads.insert(game.as_bytes(), value)?;
        Ok(new_head)
    });
    match result {
        Ok(head) => Ok(head),
        Err(TransactionError::Abort(e)) => Err(e),
        Err(TransactionError::Storage(e)) => Err(backend(e)),
    }
}

impl EventLog for SledLog {
    fn begin(&self, header: &Header) -> Result<Head, LogError> {
        let line = record::encode_header(header).map_err(backend)?;
        let game = header.game.as_str();
        if self.headers.contains_key(game).map_err(backend)? {
            return Err(LogError::GameExists(game.to_string()));
        }
        self.abandon(game)?;
        let head = Head { seq: 0, hash: Digest::of(line.as_bytes()) };
        let mut value = encode_head(&head).to_vec();
        value.extend_from_slice(line.as_bytes());
        self.pending.insert(game.as_bytes(), value).map_err(backend)?;
        Ok(head)
    }

    fn append_pending(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        let tree = self.events_tree(game)?;
        append_to(&self.pending, &tree, game, expected, events)
    }

    fn commit(&self, game: &str) -> Result<Head, LogError> {
        // The events first, durably; then the header and head, in one step.
        self.flush()?;
        let result = (&self.pending, &self.headers, &self.heads).transaction(|(pending, headers, heads)| {
            let stored = pending
                .get(game.as_bytes())?
                .ok_or(ConflictableTransactionError::Abort(LogError::UnknownGame(game.into())))?;
            if headers.get(game.as_bytes())?.is_some() {
                return Err(ConflictableTransactionError::Abort(LogError::GameExists(game.into())));
            }
            let head =
                decode_head(game, &stored[..40.min(stored.len())]).map_err(ConflictableTransactionError::Abort)?;
            pending.remove(game.as_bytes())?;
            headers.insert(game.as_bytes(), &stored[40..])?;
            heads.insert(game.as_bytes(), &encode_head(&head)[..])?;
            Ok(head)
        });
        let head = match result {
            Ok(head) => head,
            Err(TransactionError::Abort(e)) => return Err(e),
            Err(TransactionError::Storage(e)) => return Err(backend(e)),
        };
        self.flush()?;
        Ok(head)
    }

    fn abandon(&self, game: &str) -> Result<(), LogError> {
        if self.headers.contains_key(game).map_err(backend)? {
            return Ok(());
        }
        self.db.drop_tree(format!("events/{game}")).map_err(backend)?;
        self.pending.remove(game).map_err(backend)?;
        self.flush()
    }

    fn incomplete(&self) -> Result<Vec<String>, LogError> {
        self.pending
            .iter()
            .keys()
            .map(|k| k.map_err(backend).map(|k| String::from_utf8_lossy(&k).into_owned()))
            .collect()
    }

    fn append(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        let head = self.append_deferred(game, expected, events)?;
        self.flush()?;
        Ok(head)
    }

    fn append_deferred(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        self.require(game)?;
        let tree = self.events_tree(game)?;
        append_to(&self.heads, &tree, game, expected, events)
    }

    fn sync(&self) -> Result<(), LogError> {
        self.flush()
    }

    fn secret(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(self.secrets.get(key).map_err(backend)?.map(|v| v.to_vec()))
    }

    fn set_secret(&self, key: &str, value: &[u8]) -> Result<(), LogError> {
        self.secrets.insert(key, value).map_err(backend)?;
        self.flush()
    }

    fn events<'a>(
        &'a self,
        game: &str,
        from_seq: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<Event, LogError>> + 'a>, LogError> {
        self.require(game)?;
        let tree = self.events_tree(game)?;
        let id = game.to_string();
        Ok(Box::new(tree.range(from_seq.to_be_bytes()..).map(move |item| {
            let (key, value) = item.map_err(backend)?;
            let seq = u64::from_be_bytes(key.as_ref().try_into().map_err(|_| LogError::Corrupt {
                game: id.clone(),
                seq: 0,
                reason: "an event key is not 8 bytes".into(),
            })?);
            let line = std::str::from_utf8(&value).map_err(|e| LogError::Corrupt {
                game: id.clone(),
                seq,
                reason: e.to_string(),
            })?;
            let event = record::parse_event(line).map_err(|e| LogError::Corrupt {
                game: id.clone(),
                seq,
                reason: e.to_string(),
            })?;
            if event.seq != seq {
                return Err(LogError::Corrupt {
                    game: id.clone(),
                    seq,
                    reason: format!("stored under seq {seq} but says seq {}", event.seq),
                });
            }
            Ok(event)
        })))
    }

    fn games(&self) -> Result<Vec<String>, LogError> {
        self.headers
            .iter()
            .keys()
            .map(|k| k.map_err(backend).map(|k| String::from_utf8_lossy(&k).into_owned()))
            .collect()
    }

    fn header(&self, game: &str) -> Result<Header, LogError> {
        let bytes = self.headers.get(game).map_err(backend)?.ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
        let line = std::str::from_utf8(&bytes).map_err(backend)?;
        record::parse_header(line).map_err(|e| LogError::Corrupt {
            game: game.to_string(),
            seq: 0,
            reason: format!("header: {e}"),
        })
    }

    fn head(&self, game: &str) -> Result<Head, LogError> {
        let bytes = self.heads.get(game).map_err(backend)?.ok_or_else(|| LogError::UnknownGame(game.to_string()))?;
        decode_head(game, &bytes)
    }

    fn note(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(self.notes.get(key).map_err(backend)?.map(|v| v.to_vec()))
    }

    fn set_note(&self, key: &str, value: Option<&[u8]>) -> Result<(), LogError> {
        match value {
            Some(v) => self.notes.insert(key, v).map_err(backend)?,
            None => self.notes.remove(key).map_err(backend)?,
        };
        self.flush()
    }

    fn notes(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, LogError> {
        self.notes
            .scan_prefix(prefix)
            .map(|item| {
                let (k, v) = item.map_err(backend)?;
                Ok((String::from_utf8_lossy(&k).into_owned(), v.to_vec()))
            })
            .collect()
    }
}
