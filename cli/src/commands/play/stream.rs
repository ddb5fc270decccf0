//! `rollcall play GAME FILE --stream`: one decision a line, each appended
//! as it comes and acknowledged once it is durable.

use std::process::ExitCode;
use std::sync::Arc;

use rollcall_core::game::Game;
use rollcall_core::log::open_at_head;
use rollcall_core::record::Event;
use rollcall_core::script::split_dice;
use rollcall_core::{strict, Digest};
use rollcall_store::appender::{Appender, Flushed, Gather};
use serde_json::{json, Value};

use crate::fail::{Context, Fail};
use crate::input;
use crate::input::checked::Checked;
use crate::input::store::{decider, keep_snapshot};
use crate::output::{Item, Stream};

/// `rollcall play GAME FILE --stream`: one decision per line, each appended
/// as it is decided and made durable (the store's journal synced) by the
/// store's appender while the next is decided; its acknowledgement is
/// printed once it is durable, by the appender's flusher. Every decision
/// written is acknowledged (or the flush that failed says why) before the
/// stream's own end or error.
pub fn play_stream(cx: &Checked, id: &str, source: &str) -> Result<ExitCode, Fail> {
    let (db, mode) = (&cx.db, cx.mode);
    let name = if source == "-" { "<stdin>".to_string() } else { source.to_string() };
    let reader: Box<dyn std::io::BufRead> = if source == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        Box::new(std::io::BufReader::new(std::fs::File::open(source).with_context(|| name.clone())?))
    };
    let log = Arc::new(input::store::open_read(db)?);
    let mut game = open_at_head(&*log, id, rollcall_core::registry::builtin())?;
    let by = decider(&*log, &game)?;
    let mut stream = Stream::lines(mode);
    let appender = Appender::start(log.clone(), Gather::alone(AHEAD), move |flushed| match flushed {
        Flushed::Durable(acks) => stream.push_all(&acks),
        Flushed::Failed(_) => Ok(()),
    });
    let decided = decide_stream(reader, &name, &mut game, by.as_deref(), |line, expected, events| {
        let head = appender.append(id, expected, events)?;
        Ok(appender.writing().done(Acknowledged { line, head }).is_ok())
    });
    // A failed flush's error first: the decisions after it were never durable.
    appender.finish()?;
    let refused = decided?;
    keep_snapshot(&*log, id, &game);
    // Said once every decision before it is acknowledged: after them.
    match refused {
        None => Ok(ExitCode::SUCCESS),
        Some((line, refusal)) => {
            crate::output::exit::refusal(refusal, |r| crate::output::exit::placed(r, at_line(&name, line)), mode)
        }
    }
}

/// How many decisions the stream may write ahead of the flushes that make
/// them durable: a decision that takes longer than a flush (a leaf of the
/// store split, the thread descheduled by a reader of the acknowledgements
/// on a busy machine) is made up by the quick ones after it instead of
/// leaving the flusher idle (the throughput bench's `play --stream`
/// measures it). Each is written to the store, none acknowledged before a
/// flush begun after it.
const AHEAD: usize = 8;

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
