//! Files a command writes whole: through a new, unpredictably named
//! temporary file renamed into place, so a reader never sees half of one.

use std::path::Path;

use rollcall_store::file::Existing;

use crate::fail::Fail;

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
