//! [`CrawlLock`]: one crawl at a time per crawl state. The embedded state's lock is a file
//! beside its database (`{data}/crawl/crawl.lock`), so one crawl per data folder; the shared
//! state's is a PostgreSQL advisory lock, so one crawl per deployment, whichever machine
//! runs it. Both are released when the holder ends, also when it is killed (the file is
//! closed; the server ends the session).

use std::fs::{File, OpenOptions, TryLockError};

use forumdex_postgres::SessionLock;

use super::{CrawlState, Database, StateError};

/// The lock file beside the embedded database.
const LOCK_FILE: &str = "crawl.lock";
/// The advisory lock of the shared state ("crwl" in ASCII).
const ADVISORY_LOCK: i32 = 0x6372_776c;

/// The held crawl lock; dropping it releases it.
#[derive(Debug)]
pub struct CrawlLock {
    /// The embedded state's lock file, held open.
    _file: Option<File>,
    /// The shared state's session holding the advisory lock.
    _session: Option<SessionLock>,
}

impl CrawlState {
    /// Takes the crawl lock, or says that another crawl holds it ([`StateError::Locked`]).
    pub fn lock(&self) -> Result<CrawlLock, StateError> {
        let (file, session) = match &self.db {
            Database::Embedded(pool) => {
                let path = pool.path().with_file_name(LOCK_FILE);
                let file = OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&path)
                    .map_err(|source| StateError::Lock {
                        path: path.clone(),
                        source,
                    })?;
                match file.try_lock() {
                    Ok(()) => (Some(file), None),
                    Err(TryLockError::WouldBlock) => {
                        let folder = path.parent().and_then(|crawl| crawl.parent());
                        return Err(StateError::Locked {
                            held_at: format!(
                                "{} (it holds {})",
                                folder.unwrap_or(&path).display(),
                                path.display()
                            ),
                            per: "data folder",
                        });
                    }
                    Err(TryLockError::Error(source)) => {
                        return Err(StateError::Lock { path, source });
                    }
                }
            }
            Database::Shared(pool) => match pool.try_session_lock(ADVISORY_LOCK)? {
                Some(lock) => (None, Some(lock)),
                None => {
                    return Err(StateError::Locked {
                        held_at: "this deployment (another machine or process holds its \
                                  PostgreSQL crawl lock)"
                            .to_owned(),
                        per: "deployment",
                    });
                }
            },
        };
        Ok(CrawlLock {
            _file: file,
            _session: session,
        })
    }
}
