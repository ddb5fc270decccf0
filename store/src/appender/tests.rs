//! The appender as a server and as a stream use it: requests gathered into
//! one flush, and each handed over only after a flush begun after it;
//! nothing handed over after a failed flush.

use std::sync::atomic::AtomicUsize;
use std::sync::mpsc;

use rollcall_core::log::MemLog;
use rollcall_core::record::Header;

use super::*;

/// A log whose flushes are `flush`'s: it may count, wait or fail.
struct Flushing<F> {
    log: MemLog,
    flush: F,
}

impl<F: Fn() -> Result<(), LogError> + Send + Sync> EventLog for Flushing<F> {
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
        (self.flush)()
    }
}

/// An appender over a log whose flushes are `flush`'s, its hook handing
/// each flush's requests to the channel returned.
fn appender<T: Send + 'static>(
    gather: Gather,
    flush: impl Fn() -> Result<(), LogError> + Send + Sync + 'static,
) -> (Appender<T, LogError>, mpsc::Receiver<Vec<T>>) {
    let (send, flushed) = mpsc::channel();
    let log = Arc::new(Flushing { log: MemLog::new(), flush });
    let appender = Appender::start(log, gather, move |f| {
        if let Flushed::Durable(batch) = f {
            let _ = send.send(batch);
        }
        Ok(())
    });
    (appender, flushed)
}

/// How many writes a flush found, each time: what each flush could make durable.
#[derive(Default)]
struct Writes {
    written: AtomicUsize,
    seen: Mutex<Vec<usize>>,
}

impl Writes {
    fn write(&self) {
        self.written.fetch_add(1, Ordering::SeqCst);
    }
    fn flush(&self) -> Result<(), LogError> {
        self.seen.lock().unwrap().push(self.written.load(Ordering::SeqCst));
        Ok(())
    }
    fn seen(&self) -> Vec<usize> {
        self.seen.lock().unwrap().clone()
    }
}

const LONG: Duration = Duration::from_secs(600);

/// Given three requests writing at once and a window too long to end first,
/// when each writes and asks for durability in turn, then one flush answers
/// all three, and it began after the last write.
#[test]
fn requests_still_writing_join_the_flush_about_to_begin() {
    let writes = Arc::new(Writes::default());
    let w = writes.clone();
    let (appender, flushed) = appender(Gather { window: LONG, most: 64, ahead: None }, move || w.flush());
    let (a, b, c) = (appender.writing(), appender.writing(), appender.writing());
    for (n, writing) in [a, b, c].into_iter().enumerate() {
        writes.write();
        writing.done(n).unwrap();
    }
    assert_eq!(flushed.recv_timeout(LONG).unwrap(), vec![0, 1, 2]);
    assert_eq!(writes.seen(), vec![3], "one flush, after all three writes");
    assert_eq!(appender.figures().1, 1);
}

/// Given a window too long to wait out, when a lone request (nobody else
/// writing) asks for durability, then it is flushed without waiting for the
/// window; and a request that writes nothing holds no flush back.
#[test]
fn a_lone_request_is_flushed_at_once() {
    let writes = Arc::new(Writes::default());
    let w = writes.clone();
    let (appender, flushed) = appender(Gather { window: LONG, most: 64, ahead: None }, move || w.flush());
    drop(appender.writing());
    writes.write();
    appender.writing().done("lone").unwrap();
    assert_eq!(flushed.recv_timeout(Duration::from_secs(300)).unwrap(), vec!["lone"], "before the window ended");
    assert_eq!(writes.seen(), vec![1]);
}

/// Given a flush cap of two, when two requests wait while a third is still
/// writing, then the two are flushed without waiting for it, and the third
/// gets a flush of its own that began after its write.
#[test]
fn a_full_batch_is_flushed_without_waiting_for_the_rest() {
    let writes = Arc::new(Writes::default());
    let w = writes.clone();
    let (appender, flushed) = appender(Gather { window: LONG, most: 2, ahead: None }, move || w.flush());
    let (late, a, b) = (appender.writing(), appender.writing(), appender.writing());
    for (n, writing) in [a, b].into_iter().enumerate() {
        writes.write();
        writing.done(n).unwrap();
    }
    assert_eq!(flushed.recv_timeout(LONG).unwrap(), vec![0, 1]);
    writes.write();
    late.done(2).unwrap();
    assert_eq!(flushed.recv_timeout(LONG).unwrap(), vec![2]);
    assert_eq!(writes.seen(), vec![2, 3], "two at once, then the third");
    assert_eq!(appender.figures().1, 2);
}

/// What a writer and the flusher did, in order: `write N`, `flush`,
/// `handed N`.
#[derive(Default)]
struct Trace(Mutex<Vec<(&'static str, usize)>>);

impl Trace {
    fn push(&self, what: &'static str, n: usize) {
        self.0.lock().unwrap().push((what, n));
    }

    /// Checks that every request handed over follows a flush that began
    /// after it was written (and after the request handed over before it
    /// was), and returns the requests handed over, in order.
    fn handed(&self) -> Vec<usize> {
        let steps = self.0.lock().unwrap().clone();
        let mut handed = Vec::new();
        for (at, &(what, n)) in steps.iter().enumerate() {
            if what != "handed" {
                continue;
            }
            let written = steps.iter().position(|&s| s == ("write", n)).expect("handed over after it was written");
            let flush = (written + 1..at).find(|&k| steps[k].0 == "flush");
            assert!(flush.is_some(), "{n} is handed over with no flush begun after it was written: {steps:?}");
            handed.push(n);
        }
        handed
    }
}

/// A stream's appender over a log whose `n`th flush fails when `failing`
/// is `Some(n)`, its steps traced.
fn traced(trace: &Arc<Trace>, failing: Option<usize>) -> Appender<usize, LogError> {
    let flushes = AtomicUsize::new(0);
    let t = trace.clone();
    let flush = move || {
        let n = flushes.fetch_add(1, Ordering::SeqCst) + 1;
        t.push("flush", n);
        if Some(n) == failing {
            return Err(LogError::Backend("the disk is gone".into()));
        }
        Ok(())
    };
    let log = Arc::new(Flushing { log: MemLog::new(), flush });
    let t = trace.clone();
    Appender::start(log, Gather::alone(8), move |f| {
        if let Flushed::Durable(batch) = f {
            batch.into_iter().for_each(|n| t.push("handed", n));
        }
        Ok(())
    })
}

/// Given a stream of fifty requests, when each is written and handed on,
/// then each is handed over in order after a flush begun after it; given
/// the fourth flush fails, then nothing is handed over after it, the
/// writer is told the appender stopped, and finishing says why.
#[test]
fn each_request_is_handed_over_after_a_flush_begun_after_it_and_none_after_a_failed_one() {
    for failing in [None, Some(4)] {
        let trace = Arc::new(Trace::default());
        let appender = traced(&trace, failing);
        let mut stopped = None;
        for n in 1..=50 {
            trace.push("write", n);
            if appender.writing().done(n).is_err() {
                stopped = Some(n);
                break;
            }
        }
        let finished = appender.finish();
        let handed = trace.handed();
        match failing {
            None => {
                assert!(finished.is_ok() && stopped.is_none());
                assert_eq!(handed, (1..=50).collect::<Vec<_>>());
            }
            Some(k) => {
                assert!(finished.unwrap_err().to_string().contains("the disk is gone"));
                assert!(stopped.is_some(), "the writer is told the appender stopped");
                let steps = trace.0.lock().unwrap().clone();
                let failed = steps.iter().position(|&s| s == ("flush", k)).unwrap();
                assert!(steps[failed..].iter().all(|s| s.0 != "handed"), "nothing handed over after it: {steps:?}");
                assert_eq!(steps.iter().filter(|s| s.0 == "flush").count(), k, "no flush after the failed one");
                assert_eq!(handed, (1..=handed.len()).collect::<Vec<_>>(), "in order, none skipped");
            }
        }
    }
}

/// Given a first flush that does not finish until the writer has handed on
/// nine more requests, when the writer goes on, then it is not held back:
/// a flush that is slow once is made up by the requests written meanwhile,
/// which the next flush hands over together, never more than `ahead` at
/// once; and a writer never runs more than `ahead` requests past the flush.
#[test]
fn a_writer_runs_ahead_of_a_slow_flush_and_no_further() {
    const AHEAD: usize = 8;
    let handed_on = Arc::new((Mutex::new(0usize), Condvar::new()));
    let flushes = AtomicUsize::new(0);
    let h = handed_on.clone();
    let (appender, flushed) = appender::<usize>(Gather::alone(AHEAD), move || {
        if flushes.fetch_add(1, Ordering::SeqCst) == 0 {
            let (n, more) = &*h;
            let (n, waited) = more.wait_timeout_while(n.lock().unwrap(), LONG, |n| *n < 1 + AHEAD).unwrap();
            if waited.timed_out() {
                return Err(LogError::Backend(format!("the writer stopped at {} while the first flushed", *n)));
            }
        }
        Ok(())
    });
    for n in 1..=3 * AHEAD {
        appender.writing().done(n).unwrap();
        let (handed, more) = &*handed_on;
        *handed.lock().unwrap() = n;
        more.notify_all();
    }
    appender.finish().unwrap();
    let batches: Vec<Vec<usize>> = flushed.try_iter().collect();
    assert!(batches.iter().all(|b| !b.is_empty() && b.len() <= AHEAD), "{batches:?}");
    assert!(batches.iter().any(|b| b.len() > 1), "requests waiting are handed over together: {batches:?}");
    assert_eq!(batches.concat(), (1..=3 * AHEAD).collect::<Vec<_>>());
}

/// Given requests waiting when the appender finishes, then each is flushed
/// and handed over before `finish` returns.
#[test]
fn finishing_flushes_what_waits() {
    let (appender, flushed) = appender::<u32>(Gather::alone(8), || Ok(()));
    for n in 0..5 {
        appender.writing().done(n).unwrap();
    }
    appender.finish().unwrap();
    assert_eq!(flushed.try_iter().flatten().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
}
