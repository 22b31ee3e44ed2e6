//! The data folder is the operator's alone: it holds the accounts and key hashes, the corpus,
//! the cursor secret and the outbox (whose mails carry live sign-in and reset links). Every
//! command that works on it creates files owner-only (mode 0600, folders 0700) by setting the
//! process's umask, and warns when an existing data folder is open to other users.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use rustix::fs::Mode;

/// The permission bits a command never grants to group or others.
const NOT_FOR_OTHERS: u32 = 0o077;

/// From now on, files and folders this process creates are owner-only.
pub fn create_owner_only() {
    rustix::process::umask(Mode::from_raw_mode(NOT_FOR_OTHERS));
}

/// A warning on stderr when `dir` exists and group or others may enter or read it.
pub fn warn_if_open_to_others(dir: &Path) {
    let Ok(metadata) = std::fs::metadata(dir) else {
        return;
    };
    let mode = metadata.permissions().mode() & 0o777;
    if mode & NOT_FOR_OTHERS != 0 {
        tracing::warn!(
            "the data folder {} has mode {mode:o}: other users of this machine may read it; \
             `chmod 700 {}` makes it the operator's alone",
            dir.display(),
            dir.display()
        );
    }
}
