//! Group commit: appends are written as they come, and one flush makes a
//! batch of them durable at once, instead of one fsync each.
//!
//! A request that has appended asks for durability and waits; a single
//! flusher thread takes every request made so far, flushes once, and
//! answers them all. A request made during a flush waits for the next one,
//! so nothing is acknowledged before a flush that began after its write.
//! A flush that fails stops the server: acknowledging nothing more is the
//! only safe answer when the disk refuses.
//!
//! **Gathering:** a request on its way to an append says so first
//! ([`GroupCommit::writing`]). Before each flush the flusher waits, for at
//! most [`Gather::window`], while such requests are still writing and
//! fewer than [`Gather::most`] are waiting: they join this flush instead
//! of each paying the next. A lone request (nobody else writing) is
//! flushed at once. Waiting only delays the flush; what it acknowledges is
//! still only what was written before the flush began.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rollcall_core::log::EventLog;

/// How long the flusher gathers requests before a flush.
#[derive(Debug, Clone, Copy)]
pub struct Gather {
    /// The longest a flush waits for requests still writing.
    pub window: Duration,
    /// A flush waits for no more once this many requests wait for it.
    pub most: u64,
}

impl Default for Gather {
    /// A few hundred microseconds: a fraction of one flush on a disk that
    /// honours fsync (about 1–5 ms), so a batch grows from the requests
    /// already under way without a lone client noticing.
    fn default() -> Gather {
        Gather { window: Duration::from_micros(400), most: 64 }
    }
}

#[derive(Default)]
struct Requests {
    requested: u64,
    done: u64,
    /// Requests on their way to an append, not yet asking for durability.
    writing: u64,
}

struct Inner {
    requests: Mutex<Requests>,
    wake: Condvar,
    done: tokio::sync::watch::Sender<u64>,
    decisions: AtomicU64,
    flushes: AtomicU64,
}

/// The flusher, shared by every request.
pub struct GroupCommit {
    inner: Arc<Inner>,
}

/// A request on its way to an append (see [`GroupCommit::writing`]): the
/// flusher may wait for it. Handed to [`GroupCommit::durable`], or dropped
/// when the request writes nothing.
pub struct Writing<'a> {
    commit: &'a GroupCommit,
    open: bool,
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        if self.open {
            self.commit.inner.requests.lock().expect("not poisoned").writing -= 1;
            self.commit.inner.wake.notify_one();
        }
    }
}

impl GroupCommit {
    pub fn start(log: Arc<dyn EventLog + Send + Sync>) -> GroupCommit {
        GroupCommit::start_with(log, Gather::default())
    }

    pub fn start_with(log: Arc<dyn EventLog + Send + Sync>, gather: Gather) -> GroupCommit {
        let (done, _) = tokio::sync::watch::channel(0);
        let inner = Arc::new(Inner {
            requests: Mutex::new(Requests::default()),
            wake: Condvar::new(),
            done,
            decisions: AtomicU64::new(0),
            flushes: AtomicU64::new(0),
        });
        let flusher = inner.clone();
        std::thread::Builder::new()
            .name("rollcall-flush".into())
            .spawn(move || flush_forever(&flusher, &*log, gather))
            .expect("a thread for the flusher");
        GroupCommit { inner }
    }

    /// Says a request is on its way to an append: a flush about to begin
    /// may wait a moment for it.
    pub fn writing(&self) -> Writing<'_> {
        self.inner.requests.lock().expect("not poisoned").writing += 1;
        Writing { commit: self, open: true }
    }

    /// Waits until everything written before this call is durable.
    pub async fn durable(&self, mut writing: Writing<'_>, decisions: u64) {
        let ticket = {
            let mut r = self.inner.requests.lock().expect("not poisoned");
            r.requested += 1;
            r.writing -= 1;
            writing.open = false;
            r.requested
        };
        self.inner.decisions.fetch_add(decisions, Ordering::Relaxed);
        self.inner.wake.notify_one();
        let mut done = self.inner.done.subscribe();
        let _ = done.wait_for(|d| *d >= ticket).await;
    }

    /// (decisions made durable, flushes made) so far.
    pub fn figures(&self) -> (u64, u64) {
        (self.inner.decisions.load(Ordering::Relaxed), self.inner.flushes.load(Ordering::Relaxed))
    }
}

fn flush_forever(inner: &Inner, log: &dyn EventLog, gather: Gather) {
    loop {
        let target = {
            let mut r = inner.requests.lock().expect("not poisoned");
            while r.requested <= r.done {
                r = inner.wake.wait(r).expect("not poisoned");
            }
            let deadline = Instant::now() + gather.window;
            while r.writing > 0 && r.requested - r.done < gather.most {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                r = inner.wake.wait_timeout(r, left).expect("not poisoned").0;
            }
            r.requested
        };
        if let Err(e) = log.sync() {
            eprintln!(
                "rollcall serve: cannot flush the store ({e}): stopping, so that nothing unflushed is acknowledged"
            );
            std::process::exit(70);
        }
        inner.flushes.fetch_add(1, Ordering::Relaxed);
        inner.requests.lock().expect("not poisoned").done = target;
        inner.done.send_replace(target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rollcall_core::log::MemLog;
    use rollcall_core::record::{Event, Header};
    use rollcall_core::{log::Head, log::LogError, Digest};

    /// A log that counts its flushes, and how many writes each flush found.
    #[derive(Default)]
    struct Counting {
        log: MemLog,
        written: AtomicU64,
        flushed: Mutex<Vec<u64>>,
    }

    impl EventLog for Counting {
        fn begin(&self, header: &Header) -> Result<Head, LogError> {
            self.log.begin(header)
        }
        fn append_pending(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
            self.log.append_pending(game, expected, events)
        }
        fn commit(&self, game: &str) -> Result<Head, LogError> {
            self.log.commit(game)
        }
        fn abandon(&self, game: &str) -> Result<(), LogError> {
            self.log.abandon(game)
        }
        fn incomplete(&self) -> Result<Vec<String>, LogError> {
            self.log.incomplete()
        }
        fn append(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
            self.log.append(game, expected, events)
        }
        fn events<'a>(
            &'a self,
            game: &str,
            from_seq: u64,
        ) -> Result<Box<dyn Iterator<Item = Result<Event, LogError>> + 'a>, LogError> {
            self.log.events(game, from_seq)
        }
        fn games(&self) -> Result<Vec<String>, LogError> {
            self.log.games()
        }
        fn header(&self, game: &str) -> Result<Header, LogError> {
            self.log.header(game)
        }
        fn head(&self, game: &str) -> Result<Head, LogError> {
            self.log.head(game)
        }
        fn note(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
            self.log.note(key)
        }
        fn set_note(&self, key: &str, value: Option<&[u8]>) -> Result<(), LogError> {
            self.log.set_note(key, value)
        }
        fn notes(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, LogError> {
            self.log.notes(prefix)
        }
        fn swap_note(&self, key: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> Result<bool, LogError> {
            self.log.swap_note(key, old, new)
        }
        fn secret(&self, key: &str) -> Result<Option<Vec<u8>>, LogError> {
            self.log.secret(key)
        }
        fn set_secret(&self, key: &str, value: &[u8]) -> Result<Vec<u8>, LogError> {
            self.log.set_secret(key, value)
        }
        fn sync(&self) -> Result<(), LogError> {
            self.flushed.lock().unwrap().push(self.written.load(Ordering::SeqCst));
            Ok(())
        }
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    /// Writes one event (counted) and asks for durability.
    async fn write<'a>(log: &Counting, commit: &'a GroupCommit, writing: Writing<'a>) {
        log.written.fetch_add(1, Ordering::SeqCst);
        commit.durable(writing, 1).await;
    }

    /// Given three requests writing at once and a window too long to end
    /// first, when each writes and asks for durability in turn, then one
    /// flush answers all three, and it began after the last write.
    #[test]
    fn requests_still_writing_join_the_flush_about_to_begin() {
        let log = Arc::new(Counting::default());
        let commit = GroupCommit::start_with(log.clone(), Gather { window: Duration::from_secs(600), most: 64 });
        let (a, b, c) = (commit.writing(), commit.writing(), commit.writing());
        runtime().block_on(async {
            tokio::join!(write(&log, &commit, a), write(&log, &commit, b), write(&log, &commit, c));
        });
        assert_eq!(*log.flushed.lock().unwrap(), vec![3], "one flush, after all three writes");
        assert_eq!(commit.figures(), (3, 1));
    }

    /// Given a window too long to wait out, when a lone request (nobody else
    /// writing) asks for durability, then it is flushed without waiting for
    /// the window; and a request that writes nothing holds no flush back.
    #[test]
    fn a_lone_request_is_flushed_at_once() {
        let log = Arc::new(Counting::default());
        let commit = GroupCommit::start_with(log.clone(), Gather { window: Duration::from_secs(600), most: 64 });
        drop(commit.writing());
        let waited = runtime().block_on(async {
            tokio::time::timeout(Duration::from_secs(300), write(&log, &commit, commit.writing())).await
        });
        assert!(waited.is_ok(), "flushed before the window ended");
        assert_eq!(*log.flushed.lock().unwrap(), vec![1]);
    }

    /// Given a flush cap of two, when two requests wait while a third is
    /// still writing, then the two are flushed without waiting for it, and
    /// the third gets a flush of its own that began after its write.
    #[test]
    fn a_full_batch_is_flushed_without_waiting_for_the_rest() {
        let log = Arc::new(Counting::default());
        let commit = GroupCommit::start_with(log.clone(), Gather { window: Duration::from_secs(600), most: 2 });
        let (late, a, b) = (commit.writing(), commit.writing(), commit.writing());
        runtime().block_on(async {
            tokio::join!(write(&log, &commit, a), write(&log, &commit, b));
            write(&log, &commit, late).await;
        });
        assert_eq!(*log.flushed.lock().unwrap(), vec![2, 3], "two at once, then the third");
        assert_eq!(commit.figures(), (3, 2));
    }
}
