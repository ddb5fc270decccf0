//! Group commit: appends are written as they come, and one flush makes a
//! batch of them durable at once, instead of one fsync each.
//!
//! A request that has appended asks for durability and waits; a single
//! flusher thread takes every request made so far, flushes once, and
//! answers them all. A request made during a flush waits for the next one,
//! so nothing is acknowledged before a flush that began after its write.
//! A flush that fails stops the server: acknowledging nothing more is the
//! only safe answer when the disk refuses.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use rollcall_core::log::EventLog;

#[derive(Default)]
struct Requests {
    requested: u64,
    done: u64,
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

impl GroupCommit {
    pub fn start(log: Arc<dyn EventLog + Send + Sync>) -> GroupCommit {
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
            .spawn(move || flush_forever(&flusher, &*log))
            .expect("a thread for the flusher");
        GroupCommit { inner }
    }

    /// Waits until everything written before this call is durable.
    pub async fn durable(&self, decisions: u64) {
        let ticket = {
            let mut r = self.inner.requests.lock().expect("not poisoned");
            r.requested += 1;
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

fn flush_forever(inner: &Inner, log: &dyn EventLog) {
    loop {
        let target = {
            let mut r = inner.requests.lock().expect("not poisoned");
            while r.requested <= r.done {
                r = inner.wake.wait(r).expect("not poisoned");
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
