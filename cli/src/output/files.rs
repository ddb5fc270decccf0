//! Files a command writes whole: through a new, unpredictably named
//! temporary file renamed into place, so a reader never sees half of one;
//! or new files only, never replacing one (keys, play-by-email messages).

use std::io::Write;
use std::path::Path;

use rollcall_store::file::Existing;

use crate::fail::{Context, Fail};

/// Writes the page through a new, unpredictably named temporary file
/// renamed into place: a link at the target or beside it is never followed.
pub fn write_atomically(path: &Path, existing: Existing, bytes: &[u8]) -> Result<(), Fail> {
    use rollcall_store::file::write_file;
    write_file(path, existing, |out, tmp| {
        out.write_all(bytes).map_err(|e| rollcall_store::file::FileError::Io {
            path: tmp.display().to_string(),
            message: e.to_string(),
        })
    })
    .map_err(|e| Fail::msg(e.to_string()))
}

/// Writes a new file, refusing to replace one; `secret` makes it readable by
/// its owner only, from its creation on.
pub fn write_new(path: &Path, text: &str, secret: bool) -> Result<(), Fail> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true).mode(if secret { 0o600 } else { 0o644 });
    let mut file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            fail!("{}: the file exists; choose another name (nothing was written)", path.display())
        }
        _ => fail!("{}: {e}", path.display()),
    })?;
    file.write_all(text.as_bytes()).and_then(|_| file.sync_all()).with_context(|| path.display().to_string())
}

/// Writes a message to a new file, or to standard output for `-`.
pub fn write_message(output: &str, text: &str) -> Result<(), Fail> {
    if output == "-" {
        let mut out = std::io::stdout();
        out.write_all(text.as_bytes()).and_then(|_| out.flush()).context("stdout")
    } else {
        write_new(Path::new(output), text, false)
    }
}
