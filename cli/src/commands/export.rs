//! `rollcall export GAME -o FILE`: a stored game written to a record file.

use std::path::Path;
use std::process::ExitCode;

use rollcall_core::log::{open_game_lines, EventLog};
use rollcall_core::Digest;
use serde_json::{json, Value};

use crate::fail::Fail;
use crate::input;
use crate::input::checked::Checked;
use crate::output::{self, Mode, Report};

pub fn export(cx: &Checked, id: &str, output: &Path, force: bool) -> Result<ExitCode, Fail> {
    use rollcall_store::file::{self, Existing};
    let log = input::store::open_read(&cx.db)?;
    // The chain is checked before a byte is written; then the lines the
    // check read (up to its head: a shared store may grow meanwhile) are
    // copied as they are stored.
    let game = open_game_lines(&log, id, rollcall_core::registry::builtin())?;
    let to_stdout = output == Path::new("-");
    let bar = crate::output::progress::events("export", game.seq(), cx.mode == Mode::Json);
    let lines = log.lines(id, 1)?.take(game.seq() as usize).inspect(|_| crate::output::progress::tick(&bar));
    let count = if to_stdout {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        file::write_lines_to(&mut out, Path::new("<stdout>"), game.header(), lines)
    } else {
        let existing = if force { Existing::Replace } else { Existing::Refuse };
        file::write_lines(output, existing, game.header(), lines)
    };
    crate::output::progress::done(bar);
    let shown = if to_stdout { "standard output".to_string() } else { output.display().to_string() };
    let report = Exported { id, file: shown, events: count?, head: game.head() };
    // With the record on standard output, the report goes to standard error.
    Ok(if to_stdout { output::print_on_stderr(&report, cx.mode) } else { output::print(&report, cx.mode) })
}

/// `rollcall export`: the record written, where.
struct Exported<'a> {
    id: &'a str,
    file: String,
    events: u64,
    head: Digest,
}

impl Report for Exported<'_> {
    fn text(&self) -> Vec<String> {
        vec![format!("wrote {} to {}: {} events; head {}", self.id, self.file, self.events, self.head)]
    }

    fn json(&self) -> Value {
        json!({"game": self.id, "file": self.file, "events": self.events, "head": self.head.to_string()})
    }
}
