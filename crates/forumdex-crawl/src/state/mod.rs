//! The crawl state: one SQLite database at `{data}/crawl/state.sqlite` (WAL) that makes a
//! crawl polite across runs and resumable after a kill.
//!
//! It holds the frontier ([`frontier`]), the fetch log and the raw pages ([`raw`]), the
//! requests spent per UTC day ([`budget`]), the robots.txt cache ([`robots`]) and the
//! refresh schedule of topics and posts ([`refresh`]).
//!
//! # The resume guarantee
//!
//! The crawl loop is: [`CrawlState::next_due`] (a read: nothing is taken off the frontier)
//! -> fetch -> parse in memory -> [`CrawlState::record_page`], which in ONE transaction
//! appends the fetch log row, stores the raw page with `imported = 0`, marks the frontier
//! item done and pushes the links found on the page -> import the page's observations into
//! the corpus -> [`CrawlState::mark_imported`]. A crawl killed (even SIGKILL) at any point
//! therefore resumes as follows:
//!
//! - killed before `record_page` committed: the item is still pending and is fetched again
//!   (the request was already counted in the daily budget; nothing was recorded, so no
//!   duplicate);
//! - killed after `record_page` and before `mark_imported`: the page is listed by
//!   [`CrawlState::unimported_pages`]; the crawl replays those pages (parse + import) before
//!   it fetches anything new. The import may thus see a page's observations twice; it is
//!   idempotent as long as the observations are derived from the stored page alone, with
//!   `observed_at` = the page's `fetched_at` (corpus-format.md: re-importing the same
//!   records is a no-op).
//!
//! So every page is recorded at most once per fetch and never half, and no recorded page's
//! observations are lost. One crawl at a time per data folder is assumed (the lead's CLI
//! holds that lock); two crawls sharing the state would fetch the same item twice.

pub mod budget;
pub mod frontier;
pub mod raw;
pub mod refresh;
pub mod robots;
mod schema;

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use forumdex_sqlite::{Pool, Setup};
use rusqlite::{Connection, Transaction, TransactionBehavior};

pub use frontier::{
    DROPPED_ELSEWHERE, FetchFailure, FetchRecord, FrontierItem, LogEntry, NewItem, PushResult,
};
pub use raw::{RawPage, RawPages};
pub use refresh::{Recheck, TopicChange};
pub use robots::RobotsRecord;

/// How long a statement waits for another writer before failing with "busy".
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Idle connections kept for reuse.
const MAX_IDLE_CONNECTIONS: usize = 2;

/// Why a crawl state operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The database could not be opened, read or written.
    #[error("crawl state {path}: {source}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The data folder could not be created.
    #[error("cannot create crawl state folder {path}: {source}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A raw page body could not be compressed or decompressed.
    #[error("raw page {page}: {source}")]
    Compression {
        /// The raw page: `#id`, or its URL before it is stored.
        page: String,
        /// zstd's error.
        source: std::io::Error,
    },
    /// The database was written by a newer binary.
    #[error("crawl state has schema version {found}, newer than this binary's {supported}")]
    NewerSchema {
        /// The version found.
        found: i64,
        /// The version this binary writes.
        supported: i64,
    },
}

/// A failure inside a state operation, before the database path is attached.
#[derive(Debug)]
enum Failure {
    Sqlite(rusqlite::Error),
    State(StateError),
}

impl From<rusqlite::Error> for Failure {
    fn from(err: rusqlite::Error) -> Self {
        Self::Sqlite(err)
    }
}

impl From<StateError> for Failure {
    fn from(err: StateError) -> Self {
        Self::State(err)
    }
}

/// The crawl state database. Cheap to share behind an `Arc`; every call is a short blocking
/// SQLite transaction (call it off the async worker threads, e.g. with `spawn_blocking`).
#[derive(Debug)]
pub struct CrawlState {
    pool: Pool<Failure>,
}

impl CrawlState {
    /// The database's path inside a data folder.
    pub const RELATIVE_PATH: &'static str = "crawl/state.sqlite";

    /// Opens `{data_dir}/crawl/state.sqlite`, creating the folder and the database when
    /// missing, and migrates its schema.
    pub fn open_in(data_dir: impl AsRef<Path>) -> Result<Self, StateError> {
        let path = data_dir.as_ref().join(Self::RELATIVE_PATH);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(|source| StateError::Folder {
                path: folder.to_path_buf(),
                source,
            })?;
        }
        Self::open(path)
    }

    /// Opens (creating when missing) the database at `path`; its folder must exist.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, StateError> {
        let state = Self {
            pool: Pool::new(path, MAX_IDLE_CONNECTIONS, connect),
        };
        state.write(migrate)?;
        Ok(state)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        self.pool.path()
    }

    /// Runs `work` on a pooled connection (reads outside an explicit transaction).
    fn read<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, Failure>,
    ) -> Result<T, StateError> {
        self.pool
            .with(|conn| work(conn))
            .map_err(|failure| self.error(failure))
    }

    /// Runs `work` in a `BEGIN IMMEDIATE` transaction, committed when it succeeds (dropped,
    /// hence rolled back, when it fails).
    fn write<T>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, Failure>,
    ) -> Result<T, StateError> {
        self.pool
            .with(|conn| {
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let value = work(&tx)?;
                tx.commit()?;
                Ok(value)
            })
            .map_err(|failure| self.error(failure))
    }

    /// Attaches the database's path to a failure.
    fn error(&self, failure: Failure) -> StateError {
        match failure {
            Failure::Sqlite(source) => StateError::Sqlite {
                path: self.path().to_path_buf(),
                source,
            },
            Failure::State(err) => err,
        }
    }
}

/// Opens a connection: WAL, a busy timeout, `synchronous = NORMAL` (a commit survives a
/// process kill; only a power loss may lose the last commits, never corrupt).
/// The crawl state's connections: the common setup only.
const SETUP: Setup = Setup {
    name: "crawl state",
    busy_timeout: BUSY_TIMEOUT,
    cache_kib: None,
    temp_in_memory: false,
    foreign_keys: false,
    manual_checkpoints: false,
    refuse_read_only: false,
};

fn connect(path: &Path) -> Result<Connection, Failure> {
    Ok(forumdex_sqlite::connect(path, &SETUP)?)
}

fn migrate(tx: &Transaction<'_>) -> Result<(), Failure> {
    let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version > schema::SCHEMA_VERSION {
        return Err(StateError::NewerSchema {
            found: version,
            supported: schema::SCHEMA_VERSION,
        }
        .into());
    }
    if version < 1 {
        tx.execute_batch(schema::SCHEMA_V1)?;
    }
    if version < 2 {
        tx.execute_batch(schema::SCHEMA_V2)?;
    }
    tx.pragma_update(None, "user_version", schema::SCHEMA_VERSION)?;
    Ok(())
}

/// An instant as stored: Unix milliseconds.
fn millis(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

/// A stored instant; out-of-range values (a hand-edited database) clamp to the epoch.
fn instant(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}
