//! A side's secret key file (`rollcall keygen`), read for play by email.

use std::path::Path;

use rollcall_core::keys::SecretKey;

use crate::fail::Fail;
use crate::input::store::read_file;

pub fn read_key(path: &Path) -> Result<SecretKey, Fail> {
    use std::os::unix::fs::PermissionsExt;
    let text = read_file(path)?;
    let key = SecretKey::from_file_text(&text).map_err(|e| fail!("{}:{e}", path.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.permissions().mode() & 0o077 != 0 {
            eprintln!(
                "warning: {} is readable by others: anyone who reads it can sign turns as you (chmod 600 {})",
                path.display(),
                path.display()
            );
        }
    }
    Ok(key)
}

/// The side of `header` whose key the key file holds.
pub fn side_of_key_file(header: &rollcall_core::Header, path: &Path) -> Result<String, Fail> {
    let key = read_key(path)?;
    header.side_of(&key.public()).map(String::from).ok_or_else(|| {
        fail!(
            "--key {}: this key ({}) is not a key of game {:?}'s sides (nothing was written)",
            path.display(),
            key.public().short(),
            header.game
        )
    })
}
