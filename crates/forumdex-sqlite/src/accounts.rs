//! [`SqliteAccountStore`]: the embedded [`AccountStore`] (`<data dir>/accounts.sqlite`).
//!
//! WAL journal, a busy timeout, `BEGIN IMMEDIATE` for every write, and a small pool of
//! connections so many threads can call it at once. Nothing is cached: every call reads the
//! database, so changes made by another process are seen at the next call.
//!
//! Schema (version 1, `PRAGMA user_version`), instants in Unix milliseconds:
//!
//! ```sql
//! accounts (id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT, credits INTEGER >= 0,
//!           created_at INTEGER)
//! api_keys (key_id TEXT PRIMARY KEY, account_id -> accounts, name TEXT NULL,
//!           secret_sha256 BLOB UNIQUE, lifetime_days INTEGER NULL, created_at INTEGER,
//!           expires_at INTEGER NULL, revoked_at INTEGER NULL)
//! key_allow (key_id -> api_keys, entry TEXT, position INTEGER, PRIMARY KEY (key_id, entry))
//! ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, account_id -> accounts, key_id TEXT NULL,
//!         request_id TEXT NULL UNIQUE, operation TEXT, amount INTEGER,
//!         balance_after INTEGER, created_at INTEGER)
//! ```
//!
//! Version 2 adds `api_keys.secret_prefix` and the dashboard's tables (see
//! [`developer`]'s `schema_v2`): logins, login tokens, sessions, activity, daily usage,
//! top-ups and payment events. Version 3 adds `key_submissions`, the create-key forms
//! already sent (`forumdex_sql::accounts::schema::accounts_v3_tables`). Version 4 adds
//! two-factor sign-in (`accounts_v4_tables`).

mod developer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use forumdex_accounts::store::AccountError;
use forumdex_sql::accounts::schema::{
    accounts_v3_tables, accounts_v4_tables, allowlist_and_ledger_tables,
};
use forumdex_sql::{Dialect, Failure};

use crate::connect::Setup;
use crate::exec::Lite;
use crate::pool::Pool;

/// How long a statement waits for another writer before failing with "busy".
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Idle connections kept for reuse; more are opened on demand and closed after use.
const MAX_IDLE_CONNECTIONS: usize = 8;
/// The schema version this code writes.
const SCHEMA_VERSION: i64 = 4;

/// Version 1: accounts and keys; the allowlists and the ledger follow
/// (`allowlist_and_ledger_tables`, written once for both backends).
const SCHEMA_V1: &str = "
CREATE TABLE accounts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    email       TEXT    NOT NULL,
    credits     INTEGER NOT NULL CHECK (credits >= 0),
    created_at  INTEGER NOT NULL
);
CREATE TABLE api_keys (
    key_id        TEXT    PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts (id),
    name          TEXT,
    secret_sha256 BLOB    NOT NULL UNIQUE,
    lifetime_days INTEGER,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER,
    revoked_at    INTEGER
);
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at);
";

/// The SQLite [`AccountStore`]. Cheap to share behind an `Arc`; safe from many threads.
#[derive(Debug)]
pub struct SqliteAccountStore {
    pool: Pool<AccountError>,
    /// Held for every write transaction of this process: concurrent writers (the debits of
    /// requests served at once) queue here and each is woken as soon as the previous one
    /// commits, where SQLite's busy handler would poll with sleeps of a millisecond and more.
    /// Writers in other processes (the CLI) still meet the busy timeout.
    writer: Arc<Mutex<()>>,
    /// Copies the journal into the database beside the requests.
    _checkpoints: Checkpoints,
}

/// How often [`Checkpoints`] copies the write-ahead log into the database.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// The store's checkpoint thread. Connections do not checkpoint when they commit
/// (`wal_autocheckpoint = 0`): the commit that crossed SQLite's threshold would copy the
/// log into the database and wait for its `fsync`, tens of milliseconds added to one paid
/// request in a few hundred (and to those queued behind it). Every [`CHECKPOINT_EVERY`]
/// this thread instead copies the log with a passive checkpoint, which blocks no reader or
/// writer, then copies what was committed meanwhile while holding this process's writers
/// back for that short moment: the log is then fully copied when the next write begins, so
/// SQLite starts it over instead of growing it. A failure (say, a read-only folder) is
/// retried on a new connection at the next tick. SQLite also checkpoints when a process
/// closes its last connection, so a short CLI command leaves no log behind.
#[derive(Debug)]
struct Checkpoints {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpoints {
    fn spawn(path: PathBuf, writers: Arc<Mutex<()>>) -> Result<Self, AccountError> {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("accounts-checkpoints".to_owned())
            .spawn(move || {
                let mut conn: Option<Connection> = None;
                while let Err(mpsc::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(CHECKPOINT_EVERY)
                {
                    if conn.is_none() {
                        // Never create the file: the store made it, and a folder removed
                        // under a live store must stay removed.
                        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE
                            | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
                        conn = Connection::open_with_flags(&path, flags).ok();
                    }
                    let Some(open) = &conn else { continue };
                    let copied = checkpoint(open).and_then(|()| {
                        let _held_back = writers.lock().unwrap_or_else(PoisonError::into_inner);
                        checkpoint(open)
                    });
                    if let Err(err) = copied {
                        tracing::debug!(error = %err, "accounts checkpoint failed; retrying");
                        conn = None;
                    }
                }
            })
            .map_err(AccountError::storage)?;
        Ok(Self {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

/// A passive checkpoint: copies what it can of the log into the database.
fn checkpoint(conn: &Connection) -> rusqlite::Result<()> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
}

impl Drop for Checkpoints {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl SqliteAccountStore {
    /// The database's file name inside a data folder.
    pub const FILE_NAME: &'static str = "accounts.sqlite";

    /// Opens `<data_dir>/accounts.sqlite`, creating the folder and the database when missing.
    pub fn open_in(data_dir: impl AsRef<Path>) -> Result<Self, AccountError> {
        let dir = data_dir.as_ref();
        std::fs::create_dir_all(dir).map_err(AccountError::storage)?;
        Self::open(dir.join(Self::FILE_NAME))
    }

    /// Opens (creating when missing) the database at `path` and migrates its schema. The
    /// parent folder must exist.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, AccountError> {
        let writer = Arc::new(Mutex::new(()));
        let store = Self {
            pool: Pool::new(path.as_ref(), MAX_IDLE_CONNECTIONS, connect),
            _checkpoints: Checkpoints::spawn(path.as_ref().to_owned(), Arc::clone(&writer))?,
            writer,
        };
        store.pool.with(migrate)?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        self.pool.path()
    }

    /// Runs `work` in a `BEGIN IMMEDIATE` transaction, committed when it succeeds: one
    /// writer of this process at a time ([`Self::writer`]).
    fn write<T, E: From<AccountError>>(
        &self,
        work: impl FnOnce(&mut Lite<'_>) -> Result<T, Failure<E, rusqlite::Error>>,
    ) -> Result<T, E> {
        let _one_writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        self.transaction(TransactionBehavior::Immediate, work)
    }

    /// Runs `work` in a deferred transaction: its reads see one snapshot.
    fn read<T, E: From<AccountError>>(
        &self,
        work: impl FnOnce(&mut Lite<'_>) -> Result<T, Failure<E, rusqlite::Error>>,
    ) -> Result<T, E> {
        self.transaction(TransactionBehavior::Deferred, work)
    }

    /// Runs `work` in a transaction on a pooled connection. A connection is reusable after
    /// an error: the transaction was rolled back when it was dropped.
    fn transaction<T, E: From<AccountError>>(
        &self,
        behavior: TransactionBehavior,
        work: impl FnOnce(&mut Lite<'_>) -> Result<T, Failure<E, rusqlite::Error>>,
    ) -> Result<T, E> {
        let storage = |err| E::from(AccountError::storage(err));
        self.pool.with(|conn| {
            Ok((|| {
                let tx = conn.transaction_with_behavior(behavior).map_err(storage)?;
                let value = work(&mut Lite(&tx)).map_err(|err| err.into_error(storage))?;
                tx.commit().map_err(storage)?;
                Ok(value)
            })())
        })?
    }
}

/// The accounts database's connections: foreign keys; commits never checkpoint (the
/// store's own thread does, [`Checkpoints`]); a read-only file is refused (a 503 now, a
/// writable connection on a later request).
const SETUP: Setup = Setup {
    name: "accounts",
    busy_timeout: BUSY_TIMEOUT,
    cache_kib: None,
    temp_in_memory: false,
    foreign_keys: true,
    manual_checkpoints: true,
    refuse_read_only: true,
};

fn connect(path: &Path) -> Result<Connection, AccountError> {
    crate::connect(path, &SETUP).map_err(AccountError::storage)
}

fn migrate(conn: &mut Connection) -> Result<(), AccountError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(AccountError::storage)?;
    let version: i64 = tx
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(AccountError::storage)?;
    if version > SCHEMA_VERSION {
        return Err(AccountError::Storage(
            format!(
                "accounts database has schema version {version}, newer than this binary's {SCHEMA_VERSION}"
            )
            .into(),
        ));
    }
    if version < 1 {
        let v1 = format!(
            "{SCHEMA_V1}{}",
            allowlist_and_ledger_tables(Dialect::Sqlite)
        );
        tx.execute_batch(&v1).map_err(AccountError::storage)?;
    }
    if version < 2 {
        tx.execute_batch(&developer::schema_v2())
            .map_err(AccountError::storage)?;
    }
    if version < 3 {
        tx.execute_batch(&accounts_v3_tables(Dialect::Sqlite))
            .map_err(AccountError::storage)?;
    }
    if version < 4 {
        tx.execute_batch(&accounts_v4_tables(Dialect::Sqlite))
            .map_err(AccountError::storage)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(AccountError::storage)?;
    tx.commit().map_err(AccountError::storage)
}

forumdex_sql::impl_account_stores!(SqliteAccountStore);

impl SqliteAccountStore {
    /// Runs `work` as [`Self::write`] does: SQLite's writers are serialized already.
    fn charge_write<T, E: From<AccountError>>(
        &self,
        work: impl FnOnce(&mut Lite<'_>) -> Result<T, Failure<E, rusqlite::Error>>,
    ) -> Result<T, E> {
        self.write(work)
    }
}
