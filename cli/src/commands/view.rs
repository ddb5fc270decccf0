//! `rollcall view`: a game's page written to a file (the page itself is
//! [`crate::output::view`]'s).

use std::path::PathBuf;
use std::process::ExitCode;

use rollcall_core::record;
use rollcall_store::file::Existing;
use serde_json::json;

use crate::args::ViewArgs;
use crate::fail::Fail;
use crate::output::files::write_atomically;
use crate::output::view::{render_page, Compare, Page, ViewOptions};

/// `rollcall view GAME|RECORD`: writes the page; exit 1 (after writing it)
/// when the record does not verify, since the page then shows a failure.
pub fn run(cx: &crate::input::checked::Checked, args: ViewArgs) -> Result<ExitCode, Fail> {
    let ViewArgs { target, output, force, bookmarks, diff, a, b } = args;
    let versions = b.filter(|_| diff).map(|b| (a, b));
    let target = target.as_str();
    let mut record = crate::input::source::open(&cx.db, target)?;
    let events = match &mut record {
        crate::input::source::Record::File(..) => {
            record.events()?.collect::<Result<Vec<_>, _>>().map_err(|e| fail!("{target}: {e}"))?
        }
        crate::input::source::Record::Stored(..) => record.events()?.collect::<Result<Vec<_>, _>>()?,
    };
    let header = record.header().clone();
    let compare = match versions {
        None => None,
        Some((a, b)) => {
            let (a, b) = crate::commands::diff::versions(&header, a.as_deref(), &b)?;
            Some(Compare { a, b })
        }
    };
    let options = ViewOptions { bookmarks, compare };
    let Page { html: page, verified } =
        render_page(&header, &events, &options).map_err(|e| Fail::msg(e.to_string()))?;
    // A file -o names is replaced only with --force, as `export -o`; the
    // default GAME.html is rollcall's own, and replaced.
    let existing = if force || output.is_none() { Existing::Replace } else { Existing::Refuse };
    let output = output.unwrap_or_else(|| PathBuf::from(format!("{}.html", header.game)));
    write_atomically(&output, existing, page.as_bytes())?;
    let head = match events.last() {
        Some(e) => e.hash.to_string(),
        None => record::header_hash(&header).map(|h| h.to_string()).unwrap_or_default(),
    };
    let json = json!({"game": header.game, "file": output.display().to_string(), "bytes": page.len(),
        "events": events.len(), "head": head, "verified": verified.is_ok()});
    let mut lines = vec![format!(
        "wrote {} for {}: {} events, {} KiB; head {head}",
        output.display(),
        header.game,
        events.len(),
        page.len() / 1024
    )];
    lines.extend(verified.as_ref().err().map(|f| format!("the record does NOT verify ({f}); the page says so")));
    let code = if verified.is_ok() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    Ok(crate::output::print(&crate::output::Said { lines, json, code, verdict: None }, cx.mode))
}
