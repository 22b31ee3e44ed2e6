//! The crawl state: what makes a crawl polite across runs and resumable after a kill. It
//! lives where the deployment keeps its data: the SQLite database `{data}/crawl/state.sqlite`
//! (WAL) on the embedded default ([`CrawlState::open_in`]), the `crawl_*` tables of the
//! shared PostgreSQL database with `storage = "postgres"` ([`CrawlState::open_shared`]), so
//! that every machine of a deployment crawls as one polite client. The statements are
//! written once ([`forumdex_sql::DynSql`]) and run on either.
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
//! observations are lost. One crawl at a time per state is assumed: [`CrawlState::lock`]
//! takes the lock that makes it so (a file lock beside the embedded database, an advisory
//! lock of PostgreSQL for the shared one); two crawls sharing the state would fetch the
//! same item twice.

pub mod budget;
pub mod frontier;
mod lock;
pub mod raw;
pub mod refresh;
pub mod robots;
mod schema;

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use forumdex_postgres::PgPool;
use forumdex_sql::{AnyDb, CellError, Db, DynSql, Erased, Row};
use forumdex_sqlite::{Lite, Pool, Setup};

use crate::blocking::off_runtime;
use rusqlite::{Connection, Transaction, TransactionBehavior};

pub use frontier::{
    DROPPED_ELSEWHERE, FetchFailure, FetchRecord, FrontierItem, LogEntry, NewItem, PushResult,
};
pub use lock::CrawlLock;
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
    #[error("crawl state {at}: {source}")]
    Database {
        /// Where the state is: the database file, or PostgreSQL.
        at: String,
        /// The database's error.
        source: AnyDb,
    },
    /// The shared database could not be used (unreachable, or a schema not this binary's).
    #[error("crawl state: {0}")]
    Shared(#[from] forumdex_postgres::PgError),
    /// A stored value is not what this binary wrote (a database edited by hand).
    #[error("crawl state {at}: {detail}")]
    Corrupt {
        /// Where the state is.
        at: String,
        /// What was wrong.
        detail: String,
    },
    /// The data folder could not be created.
    #[error("cannot create crawl state folder {path}: {source}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Another crawl holds the state's lock.
    #[error("another crawl is running on {held_at}; one crawl at a time per {per}")]
    Locked {
        /// What holds the lock: the lock file, or PostgreSQL.
        held_at: String,
        /// What one crawl at a time is per: a data folder or the deployment.
        per: &'static str,
    },
    /// The lock file could not be opened or locked.
    #[error("cannot lock {path}: {source}")]
    Lock {
        /// The lock file.
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

/// A failure inside a state operation, before where the state is gets attached.
#[derive(Debug)]
enum Failure {
    Db(AnyDb),
    Corrupt(String),
    State(StateError),
}

impl From<Db<AnyDb>> for Failure {
    fn from(Db(err): Db<AnyDb>) -> Self {
        Self::Db(err)
    }
}

impl From<rusqlite::Error> for Failure {
    fn from(err: rusqlite::Error) -> Self {
        Self::Db(AnyDb::new(err))
    }
}

impl From<CellError> for Failure {
    fn from(err: CellError) -> Self {
        Self::Corrupt(err.to_string())
    }
}

impl From<StateError> for Failure {
    fn from(err: StateError) -> Self {
        Self::State(err)
    }
}

/// Where the state is kept.
#[derive(Debug)]
enum Database {
    /// `{data}/crawl/state.sqlite`.
    Embedded(Pool<Failure>),
    /// The deployment's PostgreSQL database (boxed: a pool's configuration is large).
    Shared(Box<PgPool>),
}

/// The crawl state. Cheap to share behind an `Arc`; every call is a short blocking
/// transaction (call it off the async worker threads, e.g. with `spawn_blocking`).
#[derive(Debug)]
pub struct CrawlState {
    db: Database,
}

impl CrawlState {
    /// The embedded database's path inside a data folder.
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

    /// Opens (creating when missing) the embedded database at `path`; its folder must exist.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, StateError> {
        let pool = Pool::new(path, MAX_IDLE_CONNECTIONS, connect);
        let state = Self {
            db: Database::Embedded(pool),
        };
        state.embedded_write(migrate)?;
        Ok(state)
    }

    /// The state in the deployment's PostgreSQL database, whose schema must be this
    /// binary's (`forumdex db migrate` creates its tables).
    pub fn open_shared(pool: PgPool) -> Result<Self, StateError> {
        forumdex_postgres::schema::check(&pool)?;
        Ok(Self {
            db: Database::Shared(Box::new(pool)),
        })
    }

    /// The embedded database file (`None` for the shared state).
    pub fn path(&self) -> Option<&Path> {
        match &self.db {
            Database::Embedded(pool) => Some(pool.path()),
            Database::Shared(_) => None,
        }
    }

    /// Where the state is, for messages: the database file, or PostgreSQL.
    pub fn location(&self) -> String {
        match &self.db {
            Database::Embedded(pool) => pool.path().display().to_string(),
            Database::Shared(_) => "in PostgreSQL (storage = \"postgres\")".to_owned(),
        }
    }

    /// Runs `work` on the state's database (reads: no explicit transaction on SQLite, a
    /// read-committed one on PostgreSQL, on a thread of its own: [`off_runtime`]).
    fn read<T: Send>(
        &self,
        work: impl FnOnce(&mut DynSql<'_>) -> Result<T, Failure> + Send,
    ) -> Result<T, StateError> {
        match &self.db {
            Database::Embedded(pool) => pool.with(|conn| work(&mut Erased(Lite(conn)))),
            Database::Shared(pool) => off_runtime(|| pool.with_sql(work)),
        }
        .map_err(|failure| self.error(failure))
    }

    /// Runs `work` in one transaction, committed when it succeeds (dropped, hence rolled
    /// back, when it fails): `BEGIN IMMEDIATE` on SQLite, read committed on PostgreSQL,
    /// where the crawl lock makes the crawl the only writer.
    fn write<T: Send>(
        &self,
        work: impl FnOnce(&mut DynSql<'_>) -> Result<T, Failure> + Send,
    ) -> Result<T, StateError> {
        match &self.db {
            Database::Embedded(_) => self.embedded_write(|tx| work(&mut Erased(Lite(tx)))),
            Database::Shared(pool) => {
                off_runtime(|| pool.with_sql(work)).map_err(|failure| self.error(failure))
            }
        }
    }

    /// Runs `work` in a `BEGIN IMMEDIATE` transaction of the embedded database.
    fn embedded_write<T>(
        &self,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, Failure>,
    ) -> Result<T, StateError> {
        let Database::Embedded(pool) = &self.db else {
            unreachable!("only the embedded state has an embedded database")
        };
        pool.with(|conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let value = work(&tx)?;
            tx.commit()?;
            Ok(value)
        })
        .map_err(|failure| self.error(failure))
    }

    /// Attaches where the state is to a failure.
    fn error(&self, failure: Failure) -> StateError {
        match failure {
            Failure::Db(source) => StateError::Database {
                at: self.location(),
                source,
            },
            Failure::Corrupt(detail) => StateError::Corrupt {
                at: self.location(),
                detail,
            },
            Failure::State(err) => err,
        }
    }
}

/// The crawl state's connections: the common setup only (WAL, a busy timeout,
/// `synchronous = NORMAL`: a commit survives a process kill; only a power loss may lose
/// the last commits, never corrupt).
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
    let steps = [schema::SCHEMA_V1, schema::SCHEMA_V2, schema::SCHEMA_V3];
    for step in steps.iter().skip(usize::try_from(version).unwrap_or(0)) {
        tx.execute_batch(step)?;
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

/// An unsigned value (a forum ID, a count) as stored; beyond `i64` (never a real one) it
/// saturates.
fn int(value: impl TryInto<i64>) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

/// Column `index` of `row` as an unsigned type; a negative or too large value is corrupt.
fn unsigned<T: TryFrom<i64>>(row: &Row, index: usize) -> Result<T, Failure> {
    let value: i64 = row.get(index)?;
    T::try_from(value)
        .map_err(|_| Failure::Corrupt(format!("column {index} holds {value}, out of range")))
}

/// Column `index` of `row`, `NULL` allowed, as an unsigned type.
fn unsigned_opt<T: TryFrom<i64>>(row: &Row, index: usize) -> Result<Option<T>, Failure> {
    match row.get::<Option<i64>>(index)? {
        None => Ok(None),
        Some(_) => unsigned(row, index).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_written_before_the_tables_were_renamed_keeps_its_frontier() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("state.sqlite");
        {
            let conn = Connection::open(&path).expect("open");
            conn.execute_batch(schema::SCHEMA_V1).expect("version 1");
            conn.execute_batch(schema::SCHEMA_V2).expect("version 2");
            conn.execute_batch(
                "INSERT INTO frontier (url, kind, priority, due_at, state, updated_at, scope)
                 VALUES ('http://f/t1', 'topic', 3, 0, 'pending', 0, 's');
                 INSERT INTO hold (id, not_before) VALUES (1, 5000);
                 PRAGMA user_version = 2;",
            )
            .expect("a version 2 state");
        }
        let state = CrawlState::open(&path).expect("migrated");
        let item = state
            .next_due(instant(0), "s")
            .expect("read")
            .expect("still pending");
        assert_eq!((item.url.as_str(), item.priority), ("http://f/t1", 3));
        assert_eq!(state.held_until().expect("read"), Some(instant(5000)));
        let version: i64 = Connection::open(&path)
            .expect("open")
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .expect("version");
        assert_eq!(version, schema::SCHEMA_VERSION);
    }
}
