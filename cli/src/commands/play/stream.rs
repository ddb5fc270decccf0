//! `rollcall play GAME FILE --stream`: one decision a line, each appended
//! as it comes and acknowledged once it is durable.

use std::process::ExitCode;

use rollcall_core::game::Game;
use rollcall_core::log::{open_at_head, EventLog};
use rollcall_core::record::Event;
use rollcall_core::script::split_dice;
use rollcall_core::{strict, Digest};
use serde_json::{json, Value};

use crate::fail::{Context, Fail};
use crate::input;
use crate::input::checked::Checked;
use crate::input::store::{decider, keep_snapshot};
use crate::output::{Item, Stream};

/// `rollcall play GAME FILE --stream`: one decision per line, each appended
/// and made durable (the store's journal synced) before its
/// acknowledgement is printed.
pub fn play_stream(cx: &Checked, id: &str, source: &str) -> Result<ExitCode, Fail> {
    let (db, mode) = (&cx.db, cx.mode);
    let name = if source == "-" { "<stdin>".to_string() } else { source.to_string() };
    let reader: Box<dyn std::io::BufRead> = if source == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        Box::new(std::io::BufReader::new(std::fs::File::open(source).with_context(|| name.clone())?))
    };
    let log = input::store::open_read(db)?;
    let mut game = open_at_head(&log, id)?;
    let by = decider(&log, &game)?;
    let mut stream = Stream::lines(mode);
    let refused = durable_apart(
        || Ok(log.sync()?),
        |acks: Vec<Acknowledged>| stream.push_all(&acks),
        |acknowledge| {
            decide_stream(reader, &name, &mut game, by.as_deref(), |line, expected, events| {
                let head = log.append_deferred(id, expected, events)?;
                Ok(acknowledge(Acknowledged { line, head }))
            })
        },
    )?;
    keep_snapshot(&log, id, &game);
    // Said once every decision before it is acknowledged: after them.
    match refused {
        None => Ok(ExitCode::SUCCESS),
        Some((line, refusal)) => {
            crate::output::exit::refusal(refusal, |r| crate::output::exit::placed(r, at_line(&name, line)), mode)
        }
    }
}

/// How many decisions `durable_apart` lets `decide` write ahead of the
/// sync: with one, a stream with a reader on its acknowledgements took
/// 0.104 ms a decision; with 8, 0.076; with 64, no better (0.077;
/// measured with the throughput bench). Each is written to the store, none
/// acknowledged before its own sync.
const AHEAD: usize = 8;

/// Runs `decide`, which writes each decision it decides to the store and
/// hands its acknowledgement to the function it is given; each is made
/// durable (`sync`) and acknowledged on a second thread, one sync each,
/// in order, while `decide` reads and decides the next decision. So a
/// stream's decisions cost a sync each, not a sync and a decision's work.
/// Nothing is acknowledged before a sync that began after it was written:
/// at the first failed sync the second thread stops, acknowledging nothing
/// more, and `decide` is told to stop (the function returns false). Every
/// decision handed on is synced and acknowledged before `decide`'s own
/// error, if any, is returned; a failed sync's error comes first.
///
/// `acknowledge` is given the decisions synced since it was last called,
/// in order: each as soon as no other waits for its sync; while others
/// wait (decisions come faster than syncs), those synced are held until
/// none waits or `AHEAD` are held, and given together. A sync is then not
/// held back by printing one line at a time: the thread that syncs prints,
/// and one write a line was a tenth of its time in a stream of 300
/// decisions (measured with the throughput bench).
fn durable_apart<A: Send, R>(
    sync: impl Fn() -> Result<(), Fail> + Sync,
    mut acknowledge: impl FnMut(Vec<A>) -> Result<(), Fail> + Send,
    decide: impl FnOnce(&mut dyn FnMut(A) -> bool) -> Result<R, Fail>,
) -> Result<R, Fail> {
    use std::sync::mpsc::TryRecvError;
    std::thread::scope(|scope| {
        // Up to `AHEAD` decisions written and waiting while one syncs: a
        // decision that takes longer than a sync (a leaf of the store split,
        // the thread descheduled by a reader of the acknowledgements on a
        // busy machine) is made up by the quick ones after it instead of
        // leaving the sync idle.
        let (written, to_sync) = std::sync::mpsc::sync_channel::<A>(AHEAD);
        let sync = &sync;
        let syncer = scope.spawn(move || -> Result<(), Fail> {
            let mut synced = Vec::with_capacity(AHEAD);
            loop {
                let next = match to_sync.try_recv() {
                    Ok(next) => next,
                    Err(TryRecvError::Disconnected) => break,
                    Err(TryRecvError::Empty) => {
                        if !synced.is_empty() {
                            acknowledge(std::mem::take(&mut synced))?;
                        }
                        match to_sync.recv() {
                            Ok(next) => next,
                            Err(_) => break,
                        }
                    }
                };
                if let Err(failed) = sync() {
                    // Those synced before are durable: said, then the failure.
                    if !synced.is_empty() {
                        acknowledge(synced)?;
                    }
                    return Err(failed);
                }
                synced.push(next);
                if synced.len() == AHEAD {
                    acknowledge(std::mem::take(&mut synced))?;
                }
            }
            if !synced.is_empty() {
                acknowledge(synced)?;
            }
            Ok(())
        });
        let decided = decide(&mut |ack| written.send(ack).is_ok());
        drop(written);
        syncer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        decided
    })
}

/// The decisions of a `play --stream` source, one a line: each read,
/// decided on `game`, and handed to `append` with its line number, the head
/// it follows and its events; `append` says whether the stream goes on.
/// The first decision the rules refuse ends the stream, and is handed back
/// with its line number, to be said once the decisions before it are.
fn decide_stream(
    mut reader: Box<dyn std::io::BufRead>,
    name: &str,
    game: &mut Game,
    by: Option<&str>,
    mut append: impl FnMut(usize, &Digest, &[Event]) -> Result<bool, Fail>,
) -> Result<Option<(usize, rollcall_core::ruleset::Refusal)>, Fail> {
    let mut offset = 0u64;
    let mut bytes = Vec::new();
    for i in 0.. {
        bytes.clear();
        let n = reader.read_until(b'\n', &mut bytes).with_context(|| format!("{name}:{}", i + 1))?;
        if n == 0 {
            break;
        }
        let start = offset;
        offset += n as u64;
        let line = strict::utf8_from(&bytes, i + 1, start).map_err(|e| Fail::msg(e.in_file(name)))?;
        if line.trim().is_empty() {
            continue;
        }
        let at = at_line(name, i + 1);
        let value: Value = strict::parse(line.trim_end().as_bytes()).map_err(|e| {
            let e = strict::StrictError { line: i + 1, ..e };
            Fail::msg(e.in_file(name))
        })?;
        let (decision, dice) = split_dice(value).map_err(|(f, m)| fail!("{}: {m}", at(&f)))?;
        let expected = game.head();
        let events = match game.play_as(&decision, dice.as_ref(), by) {
            Ok(events) => events,
            Err(refusal) => return Ok(Some((i + 1, refusal))),
        };
        if !append(i + 1, &expected, &events)? {
            break;
        }
    }
    Ok(None)
}

/// Where a field of line `line` of the stream `name` is, as an error says
/// it: `name:line: field` (`$` for the line's whole value).
fn at_line(name: &str, line: usize) -> impl Fn(&str) -> String + '_ {
    move |field| format!("{name}:{line}: {}", if field.is_empty() { "$" } else { field })
}

/// A decision of `play --stream`, durable: its line, and the head it made.
struct Acknowledged {
    line: usize,
    head: rollcall_core::log::Head,
}

impl Item for Acknowledged {
    fn text(&self) -> String {
        format!("ok {} {}", self.head.seq, self.head.hash)
    }

    fn json(&self) -> Value {
        json!({"ok": true, "line": self.line, "seq": self.head.seq, "head": self.head.hash.to_string()})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `durable_apart` did, in order: `append N`, `sync N`, `ack N`.
    struct Trace(std::sync::Mutex<Vec<(&'static str, usize)>>);

    impl Trace {
        fn push(&self, what: &'static str, n: usize) {
            self.0.lock().unwrap().push((what, n));
        }

        /// Checks that every acknowledgement follows a sync of its own that
        /// began after its decision was written, and returns the decisions
        /// acknowledged, in order.
        fn acknowledged(self) -> Vec<usize> {
            let steps = self.0.into_inner().unwrap();
            let mut acked = Vec::new();
            // Where the last sync given to an acknowledgement is.
            let mut last_sync = None;
            for (at, &(what, n)) in steps.iter().enumerate() {
                if what != "ack" {
                    continue;
                }
                let written =
                    steps.iter().position(|&s| s == ("append", n)).expect("acknowledged after it was written");
                let from = last_sync.map_or(written, |s: usize| s.max(written)) + 1;
                let sync = (from..at).find(|&k| steps[k].0 == "sync");
                assert!(sync.is_some(), "ack {n} has no sync of its own after it was written: {steps:?}");
                last_sync = sync;
                acked.push(n);
            }
            acked
        }
    }

    /// Given a stream of ten decisions, when each is handed on, then each
    /// is synced and acknowledged in order, one sync each, after it was
    /// written; given the fourth sync fails, then the first three are
    /// acknowledged, no other, the stream is told to stop, and the sync's
    /// error is returned.
    #[test]
    fn each_decision_is_acknowledged_after_a_sync_of_its_own_and_none_after_a_failed_one() {
        for failing in [None, Some(4)] {
            let trace = Trace(std::sync::Mutex::new(Vec::new()));
            let syncs = std::sync::atomic::AtomicUsize::new(0);
            let result = durable_apart(
                || {
                    let n = syncs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                    trace.push("sync", n);
                    if Some(n) == failing {
                        return Err(fail!("the disk is gone"));
                    }
                    Ok(())
                },
                |acks: Vec<usize>| {
                    acks.into_iter().for_each(|n| trace.push("ack", n));
                    Ok(())
                },
                |acknowledge| {
                    for n in 1..=10 {
                        trace.push("append", n);
                        if !acknowledge(n) {
                            assert!(failing.is_some(), "told to stop only after a failed sync");
                            break;
                        }
                    }
                    Ok(ExitCode::SUCCESS)
                },
            );
            let synced = syncs.into_inner();
            match failing {
                None => {
                    assert!(result.is_ok());
                    assert_eq!(synced, 10, "one sync a decision");
                    assert_eq!(trace.acknowledged(), (1..=10).collect::<Vec<_>>());
                }
                Some(k) => {
                    assert!(result.unwrap_err().to_string().contains("the disk is gone"));
                    assert_eq!(synced, k, "no sync after the failed one");
                    assert_eq!(trace.acknowledged(), (1..k).collect::<Vec<_>>());
                }
            }
        }
    }

    /// Given a stream whose fourth line is bad, when it stops there, then
    /// the three decisions before it are synced and acknowledged before its
    /// error is returned.
    #[test]
    fn a_stream_that_fails_part_way_acknowledges_what_it_wrote_first() {
        let trace = Trace(std::sync::Mutex::new(Vec::new()));
        let syncs = std::sync::atomic::AtomicUsize::new(0);
        let result: Result<(), Fail> = durable_apart(
            || {
                trace.push("sync", syncs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1);
                Ok(())
            },
            |acks: Vec<usize>| {
                acks.into_iter().for_each(|n| trace.push("ack", n));
                Ok(())
            },
            |acknowledge| {
                for n in 1..=3 {
                    trace.push("append", n);
                    assert!(acknowledge(n));
                }
                Err(fail!("line 4: not JSON"))
            },
        );
        assert!(result.unwrap_err().to_string().contains("line 4"));
        assert_eq!(trace.acknowledged(), vec![1, 2, 3]);
    }

    /// Given a first sync that does not finish until the stream has handed
    /// on `AHEAD` more decisions, when the stream goes on, then it is not
    /// held back: a sync that is slow once is made up by the decisions
    /// decided meanwhile (with room for one, the stream would wait on the
    /// sync and the sync on the stream, and the sync gives up); and the
    /// decisions synced while others wait are acknowledged together.
    #[test]
    fn a_stream_decides_ahead_of_a_slow_sync() {
        let handed = std::sync::Mutex::new(0usize);
        let more = std::sync::Condvar::new();
        let syncs = std::sync::atomic::AtomicUsize::new(0);
        let batches = std::sync::Mutex::new(Vec::new());
        let result = durable_apart(
            || {
                if syncs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                    let wait = std::time::Duration::from_secs(20);
                    let (n, waited) =
                        more.wait_timeout_while(handed.lock().unwrap(), wait, |n| *n < 1 + AHEAD).unwrap();
                    if waited.timed_out() {
                        return Err(fail!("the stream stopped at {} decisions while the first synced", *n));
                    }
                }
                Ok(())
            },
            |acks: Vec<usize>| {
                batches.lock().unwrap().push(acks);
                Ok(())
            },
            |acknowledge| {
                for n in 1..=2 * AHEAD {
                    assert!(acknowledge(n));
                    *handed.lock().unwrap() = n;
                    more.notify_all();
                }
                Ok(())
            },
        );
        assert!(result.is_ok(), "{:?}", result.err().map(|e| e.to_string()));
        assert_eq!(syncs.into_inner(), 2 * AHEAD, "one sync a decision");
        // The decisions that waited behind the slow sync are said together,
        // never more than `AHEAD` at once, each once and in order.
        let batches = batches.into_inner().unwrap();
        assert!(batches.iter().all(|b| !b.is_empty() && b.len() <= AHEAD), "{batches:?}");
        assert!(batches.iter().any(|b| b.len() > 1), "decisions waiting are acknowledged together: {batches:?}");
        assert_eq!(batches.concat(), (1..=2 * AHEAD).collect::<Vec<_>>());
    }
}
