//! Appends made durable apart from their writing: a writer appends
//! ([`Appender::append`], the store's deferred append) and goes on, and one
//! flusher thread makes every append written so far durable with one
//! [`EventLog::sync`], then hands over what each append asked to be told
//! ([`Flushed::Durable`]). `rollcall play --stream` decides its next
//! decision while the one before is synced, and prints each
//! acknowledgement from the flusher; the dice server answers each request
//! once a flush has taken it (group commit: one flush for every request
//! made meanwhile, not an fsync each).
//!
//! **Invariant: nothing is handed over as durable before a flush that began
//! after its append was written.** A request made during a flush waits for
//! the next one. A flush that fails stops the appender: nothing more is
//! made durable or handed over ([`Flushed::Failed`] says why), and a
//! writer asking for durability is told the appender stopped.
//!
//! **Gathering:** a request on its way to an append says so first
//! ([`Appender::writing`]). Before each flush the flusher waits, for at
//! most [`Gather::window`], while such requests are still writing and
//! fewer than [`Gather::most`] wait: they join this flush instead of each
//! paying the next. A lone request is flushed at once. Waiting only delays
//! a flush; what it makes durable is still only what was written before it
//! began.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rollcall_core::digest::Digest;
use rollcall_core::log::{EventLog, Head, LogError};
use rollcall_core::record::{Event, Kind};

/// How the flusher gathers requests, and how far writers may run ahead.
#[derive(Debug, Clone, Copy)]
pub struct Gather {
    /// The longest a flush waits for requests still writing.
    pub window: Duration,
    /// A flush waits for no more once this many requests wait for it.
    pub most: usize,
    /// How many requests may wait for a flush before the next waits for
    /// room ([`Writing::done`] blocks); none: no limit, for writers that
    /// must not block (a server's async tasks).
    pub ahead: Option<usize>,
}

impl Gather {
    /// A server's: a few hundred microseconds, a fraction of one flush on a
    /// disk that honours fsync (about 1–5 ms), so a batch grows from the
    /// requests already under way without a lone client noticing; no limit
    /// on the requests waiting.
    pub fn server() -> Gather {
        Gather { window: Duration::from_micros(400), most: 64, ahead: None }
    }

    /// A single writer's (a stream of decisions): no waiting, since nobody
    /// else writes; the writer runs at most `ahead` requests ahead of the
    /// flushes, so a slow flush is made up by the requests written
    /// meanwhile, in bounded memory.
    pub fn alone(ahead: usize) -> Gather {
        Gather { window: Duration::ZERO, most: usize::MAX, ahead: Some(ahead) }
    }
}

/// What a flush did, as the appender's hook is told.
pub enum Flushed<'a, T> {
    /// These requests, in the order they were made, are durable.
    Durable(Vec<T>),
    /// The flush failed: the appender stops, and the requests waiting are
    /// dropped, never durable.
    Failed(&'a LogError),
}

/// The appender stopped (a flush failed, or its hook did): nothing more is
/// made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the store's appends are no longer made durable: a flush failed")]
pub struct Stopped;

struct State<T> {
    /// Requests written, waiting for a flush, in order.
    waiting: Vec<T>,
    /// Requests on their way to an append, not yet asking for durability.
    writing: usize,
    /// No more requests: the flusher ends once those waiting are flushed.
    closed: bool,
    /// A flush or the hook failed: nothing more is made durable.
    stopped: bool,
}

struct Shared<T> {
    log: Arc<dyn EventLog + Send + Sync>,
    state: Mutex<State<T>>,
    /// Wakes the flusher: a request waits, or one stopped writing.
    wake: Condvar,
    /// Wakes writers waiting for room.
    room: Condvar,
    /// [`Gather::ahead`].
    ahead: Option<usize>,
    decisions: AtomicU64,
    flushes: AtomicU64,
}

impl<T> Shared<T> {
    fn state(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().expect("not poisoned")
    }
}

/// The store's appends, each made durable by a flush begun after it, on a
/// thread of their own (see the module's documentation). `E` is what the
/// hook may fail with, and a failed flush becomes.
pub struct Appender<T, E> {
    shared: Arc<Shared<T>>,
    flusher: Option<JoinHandle<Result<(), E>>>,
}

/// A request on its way to an append (see [`Appender::writing`]): the
/// flusher may wait for it. [`Writing::done`] asks for durability; dropped,
/// the request wrote nothing and holds no flush back.
pub struct Writing<'a, T> {
    shared: &'a Shared<T>,
    open: bool,
}

impl<T> Drop for Writing<'_, T> {
    fn drop(&mut self) {
        if self.open {
            self.shared.state().writing -= 1;
            self.shared.wake.notify_one();
        }
    }
}

impl<T> Writing<'_, T> {
    /// Asks that everything written before now be made durable; `done` is
    /// handed to the hook once it is. With [`Gather::ahead`], waits while
    /// that many requests wait already. Refused once the appender stopped.
    pub fn done(mut self, done: T) -> Result<(), Stopped> {
        let shared = self.shared;
        let mut state = shared.state();
        state.writing -= 1;
        self.open = false;
        loop {
            if state.stopped || state.closed {
                shared.wake.notify_one();
                return Err(Stopped);
            }
            match shared.ahead {
                Some(ahead) if state.waiting.len() >= ahead => {
                    state = shared.room.wait(state).expect("not poisoned");
                }
                _ => break,
            }
        }
        state.waiting.push(done);
        drop(state);
        shared.wake.notify_one();
        Ok(())
    }
}

impl<T: Send + 'static, E: From<LogError> + Send + 'static> Appender<T, E> {
    /// Starts the flusher over `log`. `hook` is called on the flusher's
    /// thread after each flush; an error from it stops the appender, as a
    /// failed flush does, and is what [`Appender::finish`] returns.
    pub fn start(
        log: Arc<dyn EventLog + Send + Sync>,
        gather: Gather,
        hook: impl FnMut(Flushed<'_, T>) -> Result<(), E> + Send + 'static,
    ) -> Appender<T, E> {
        let shared = Arc::new(Shared {
            log,
            state: Mutex::new(State { waiting: Vec::new(), writing: 0, closed: false, stopped: false }),
            wake: Condvar::new(),
            room: Condvar::new(),
            ahead: gather.ahead,
            decisions: AtomicU64::new(0),
            flushes: AtomicU64::new(0),
        });
        let flusher = shared.clone();
        let flusher = std::thread::Builder::new()
            .name("rollcall-flush".into())
            .spawn(move || flush_until_closed(&flusher, gather, hook))
            .expect("a thread for the flusher");
        Appender { shared, flusher: Some(flusher) }
    }
}

impl<T, E> Appender<T, E> {
    /// Says a request is on its way to an append: a flush about to begin
    /// may wait a moment for it.
    pub fn writing(&self) -> Writing<'_, T> {
        self.shared.state().writing += 1;
        Writing { shared: &self.shared, open: true }
    }

    /// Appends `events` to `game` on the head `expected` without waiting
    /// for durability ([`EventLog::append_deferred`]): durable once a
    /// request made after it is handed over.
    pub fn append(&self, game: &str, expected: &Digest, events: &[Event]) -> Result<Head, LogError> {
        let head = self.shared.log.append_deferred(game, expected, events)?;
        let decisions = events.iter().filter(|e| e.kind == Kind::Decision).count();
        self.shared.decisions.fetch_add(decisions as u64, Ordering::Relaxed);
        Ok(head)
    }

    /// Whether the appender stopped: a writer goes on no further.
    pub fn stopped(&self) -> bool {
        self.shared.state().stopped
    }

    /// (decisions appended, flushes made) so far.
    pub fn figures(&self) -> (u64, u64) {
        (self.shared.decisions.load(Ordering::Relaxed), self.shared.flushes.load(Ordering::Relaxed))
    }

    /// Takes no more requests, waits until those waiting are flushed and
    /// handed over, and stops the flusher: what made it stop early, if
    /// anything did.
    pub fn finish(mut self) -> Result<(), E> {
        self.close();
        match self.flusher.take().map(JoinHandle::join) {
            None | Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) => Err(e),
            Some(Err(panic)) => std::panic::resume_unwind(panic),
        }
    }

    fn close(&self) {
        self.shared.state().closed = true;
        self.shared.wake.notify_all();
        self.shared.room.notify_all();
    }
}

impl<T, E> Drop for Appender<T, E> {
    /// An appender dropped unfinished (a server stopping) lets its flusher
    /// end once what waits is flushed.
    fn drop(&mut self) {
        self.close();
    }
}

/// The flusher: each round, the requests waiting (after gathering), one
/// flush, the hook told; until closed with none waiting, or stopped.
fn flush_until_closed<T, E: From<LogError>>(
    shared: &Shared<T>,
    gather: Gather,
    mut hook: impl FnMut(Flushed<'_, T>) -> Result<(), E>,
) -> Result<(), E> {
    let result = (|| {
        while let Some(batch) = next_batch(shared, gather) {
            shared.room.notify_all();
            if let Err(e) = shared.log.sync() {
                hook(Flushed::Failed(&e))?;
                return Err(E::from(e));
            }
            shared.flushes.fetch_add(1, Ordering::Relaxed);
            hook(Flushed::Durable(batch))?;
        }
        Ok(())
    })();
    if result.is_err() {
        let mut state = shared.state();
        state.stopped = true;
        state.waiting.clear();
    }
    shared.room.notify_all();
    result
}

/// The requests the next flush makes durable, once one waits and the
/// writers gathered for have written (or the window closed); none once the
/// appender is closed and nothing waits.
fn next_batch<T>(shared: &Shared<T>, gather: Gather) -> Option<Vec<T>> {
    let mut state = shared.state();
    while state.waiting.is_empty() {
        if state.closed {
            return None;
        }
        state = shared.wake.wait(state).expect("not poisoned");
    }
    let deadline = Instant::now() + gather.window;
    while state.writing > 0 && state.waiting.len() < gather.most && !state.closed {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        state = shared.wake.wait_timeout(state, left).expect("not poisoned").0;
    }
    Some(std::mem::take(&mut state.waiting))
}

#[cfg(test)]
mod tests;
