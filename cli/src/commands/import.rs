//! `rollcall import FILE`: a record verified and stored as a new game, or
//! extending the stored game it continues.

use std::path::Path;
use std::process::ExitCode;

use rollcall_core::game::{Verified, Verifier, VerifyFailure};
use rollcall_core::log::EventLog;
use rollcall_core::pbem::exchange::{self, ExtendError, Extension};
use rollcall_core::record::Header;
use rollcall_core::Digest;
use serde_json::{json, Value};

use crate::fail::Fail;
use crate::input;
use crate::input::checked::Checked;
use crate::input::store::{has_game, keep_snapshot};
use crate::output::record::verified_json;
use crate::output::{self, Mode, Report};

/// `rollcall import FILE`: verifies the record while it writes it into a
/// game being created, which appears whole once the record has verified to
/// its end (and not at all otherwise). A record that extends a game in the
/// store appends what the store lacks, after verifying the whole record.
pub fn import(cx: &Checked, file: &Path, key: Option<&Path>) -> Result<ExitCode, Fail> {
    let (header, _) = rollcall_store::file::read(file)?;
    let side = match key {
        Some(path) => Some(crate::input::keys::side_of_key_file(&header, path)?),
        None => None,
    };
    let log = input::store::open(&cx.db)?;
    let imported = if has_game(&log, &header.game)? {
        import_extend(&log, file, &header)?
    } else {
        import_new(&log, file, cx.mode)?
    };
    let code = output::print(&imported, cx.mode);
    if let (Some(side), true) = (&side, code == ExitCode::SUCCESS) {
        exchange::take_side(&log, &header.game, side)?;
        output::note(cx.mode, || format!("this store plays {side} in {}", header.game));
    }
    Ok(code)
}

/// What `import` did with a record.
enum Imported {
    /// A new game, verified.
    New { file: String, verified: Box<Verified>, header: Box<Header> },
    /// A record that parts from the stored game at `seq`: kept as evidence
    /// under `evidence`.
    Fork { id: String, file: String, seq: u64, evidence: String },
    /// Nothing: the stored game, at `head`, holds every event of the record.
    Nothing { id: String, file: String, head: rollcall_core::log::Head },
    /// The stored game, extended by `appended` events after `from`.
    Extended { id: String, file: String, appended: u64, from: u64, head: Digest },
}

impl Report for Imported {
    fn text(&self) -> Vec<String> {
        vec![match self {
            Imported::New { file, verified: v, header } => {
                format!("imported {} from {file}: {} events, verified; head {}", header.game, v.events, v.head)
            }
            Imported::Fork { id, file, seq, .. } => format!(
                "FORK: {file} parts from the stored game {id} at seq {seq}: kept as evidence (rollcall fork show {id}); nothing else was written"
            ),
            Imported::Nothing { id, file, head } => format!(
                "nothing to import: the store's game {id} already holds every event of {file} (and is at seq {})",
                head.seq
            ),
            Imported::Extended { id, file, appended, from, head } => format!(
                "extended {id} from {file}: the record verified, and {appended} events after seq {from} were appended; head {head}"
            ),
        }]
    }

    fn json(&self) -> Value {
        match self {
            Imported::New { verified, header, .. } => verified_json(&header.game, verified, header),
            Imported::Fork { id, seq, evidence, .. } => {
                json!({"ok": false, "game": id, "fork": seq, "evidence": evidence})
            }
            Imported::Nothing { id, head, .. } => {
                json!({"ok": true, "game": id, "appended": 0, "head": head.hash.to_string()})
            }
            Imported::Extended { id, appended, head, .. } => {
                json!({"ok": true, "game": id, "appended": appended, "head": head.to_string()})
            }
        }
    }

    fn code(&self) -> ExitCode {
        ExitCode::from(u8::from(matches!(self, Imported::Fork { .. })))
    }
}

fn import_new(log: &(dyn EventLog + Sync), file: &Path, mode: Mode) -> Result<Imported, Fail> {
    let (header, mut events) = rollcall_store::file::read(file)?;
    let not_imported = |f: VerifyFailure| fail!("{}: does not verify, so it was not imported: {f}", file.display());
    let mut verifier = Verifier::new(&header, rollcall_core::registry::builtin()).map_err(not_imported)?;
    // Verified as `verify FILE` verifies: a line that is byte for byte the
    // one the game leads to is taken as read, and written as it is.
    events.read_decisions(verifier.decision_reader());
    let bar = crate::output::progress::file("import", file, mode == Mode::Json);
    let (verified, at_head) = input::store::Creation::make(log, &header, |creation| {
        loop {
            // A line taken as read goes on as the verifier proved it.
            let batch = creation.batch();
            let read = events.next_taking(|line, proof, read| verifier.take_line_into(line, proof, read, batch));
            match read {
                None => break,
                Some(Ok(None)) => creation.hand_when_full()?,
                Some(Ok(Some(event))) => {
                    verifier.push(&event).map_err(not_imported)?;
                    let line = rollcall_core::record::encode_event(&event);
                    creation.push(line.map_err(|e| fail!("{}: seq {}: {e}", file.display(), event.seq))?)?;
                }
                Some(Err(e)) => return Err(not_imported(verifier.unreadable(e))),
            };
            crate::output::progress::tick(&bar);
        }
        let at_head = verifier.game().clone();
        let (verified, _) = verifier.finish().map_err(not_imported)?;
        creation.commit()?;
        Ok((verified, at_head))
    })?;
    crate::output::progress::done(bar);
    keep_snapshot(log, &header.game, &at_head);
    Ok(Imported::New { file: file.display().to_string(), verified: Box::new(verified), header: Box::new(header) })
}

/// Import of a record of a game the store has: extended as
/// [`exchange::extend`] extends it (the same game, agreeing with every
/// stored event; a record that parts from it is a fork, kept as evidence).
fn import_extend(log: &dyn EventLog, file: &Path, header: &Header) -> Result<Imported, Fail> {
    let (id, shown) = (header.game.clone(), file.display().to_string());
    let read = || rollcall_store::file::read(file).map(|(_, events)| events);
    let source = format!("record {}", file.display());
    let extension = exchange::extend(
        log,
        header,
        &source,
        read,
        input::store::RUN_BATCH_EVENTS,
        rollcall_core::registry::builtin(),
    )
    .map_err(|e| match e {
        ExtendError::OtherGame { .. } => fail!("{shown}: {e} (nothing was written)"),
        ExtendError::Unverified(f) => fail!("{shown}: does not verify, so it was not imported: {f}"),
        ExtendError::Read(e) => e.into(),
        ExtendError::Log(e) => e.into(),
    })?;
    Ok(match extension {
        Extension::Fork { seq, evidence } => Imported::Fork { id, file: shown, seq, evidence },
        Extension::Nothing { head } => Imported::Nothing { id, file: shown, head },
        Extension::Extended { appended, from, head } => Imported::Extended { id, file: shown, appended, from, head },
    })
}
