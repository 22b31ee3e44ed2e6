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
//! [`developer`]'s `SCHEMA_V2`): logins, login tokens, sessions, activity, daily usage,
//! top-ups and payment events.

mod developer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use forumdex_accounts::allowlist::{AllowEntry, Allowlist};
use forumdex_accounts::ids::{AccountId, KeyId};
use forumdex_accounts::key::{ApiKey, KeyHash, KeyLifetime};
use forumdex_accounts::rules::{
    ACCOUNT_CREATE_OPERATION, CREDITS_ADD_OPERATION, authenticated, balance_too_large,
    ensure_not_revoked, max_balance_before_adding, mint_key, renewal, repeated_charge,
    validate_amount, validate_charge,
};
use forumdex_accounts::store::{
    Account, AccountError, AccountStore, AuthError, AuthenticatedKey, CreatedKey, Email, KeyInfo,
    LedgerEntry, NewKey,
};
use forumdex_accounts::stored::{account_id, corrupt, key_id, millis, to_i64, to_u64};
use forumdex_accounts::time::from_unix_millis;

use crate::connect::Setup;
use crate::pool::Pool;

/// How long a statement waits for another writer before failing with "busy".
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Idle connections kept for reuse; more are opened on demand and closed after use.
const MAX_IDLE_CONNECTIONS: usize = 8;
/// The schema version this code writes.
const SCHEMA_VERSION: i64 = 2;

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
CREATE TABLE key_allow (
    key_id   TEXT    NOT NULL REFERENCES api_keys (key_id),
    entry    TEXT    NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (key_id, entry)
);
CREATE TABLE ledger (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    INTEGER NOT NULL REFERENCES accounts (id),
    key_id        TEXT,
    request_id    TEXT UNIQUE,
    operation     TEXT    NOT NULL,
    amount        INTEGER NOT NULL,
    balance_after INTEGER NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX ledger_by_account ON ledger (account_id, id);
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

    /// Runs `f` on a pooled connection. A connection is reusable after an error: an open
    /// transaction was rolled back when its `Transaction` was dropped.
    fn with_conn<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, AccountError>,
    ) -> Result<T, AccountError> {
        self.pool.with(f)
    }

    /// Runs `f` in a `BEGIN IMMEDIATE` transaction, committed when `f` succeeds.
    fn write<T>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, AccountError>,
    ) -> Result<T, AccountError> {
        self.write_with(f)
    }

    /// [`Self::write`] for work with its own error type.
    fn write_with<T, E: From<AccountError>>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let _one_writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        self.read_with(|conn| {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(AccountError::storage)?;
            let value = f(&tx)?;
            tx.commit().map_err(AccountError::storage)?;
            Ok(value)
        })
    }

    /// Runs `f` on a pooled connection, for work with its own error type.
    fn read_with<T, E: From<AccountError>>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        self.pool.with(|conn| Ok(f(conn)))?
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
        tx.execute_batch(SCHEMA_V1).map_err(AccountError::storage)?;
    }
    if version < 2 {
        tx.execute_batch(developer::SCHEMA_V2)
            .map_err(AccountError::storage)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(AccountError::storage)?;
    tx.commit().map_err(AccountError::storage)
}

fn account_exists(tx: &Connection, id: AccountId) -> Result<bool, AccountError> {
    tx.query_row(
        "SELECT 1 FROM accounts WHERE id = ?1",
        params![id.get()],
        |_| Ok(()),
    )
    .optional()
    .map(|row| row.is_some())
    .map_err(AccountError::storage)
}

fn require_account(conn: &Connection, id: AccountId) -> Result<(), AccountError> {
    if account_exists(conn, id)? {
        Ok(())
    } else {
        Err(AccountError::AccountNotFound(id))
    }
}

fn load_allowlist(conn: &Connection, key: &KeyId) -> Result<Allowlist, AccountError> {
    let mut stmt = conn
        .prepare_cached("SELECT entry FROM key_allow WHERE key_id = ?1 ORDER BY position")
        .map_err(AccountError::storage)?;
    let rows = stmt
        .query_map(params![key.as_str()], |row| row.get::<_, String>(0))
        .map_err(AccountError::storage)?;
    let mut entries = Vec::new();
    for row in rows {
        let text = row.map_err(AccountError::storage)?;
        entries
            .push(AllowEntry::parse(&text).map_err(|_| corrupt(format!("allow entry {text:?}")))?);
    }
    Ok(Allowlist::from_entries(entries))
}

const KEY_COLUMNS: &str =
    "key_id, account_id, name, lifetime_days, created_at, expires_at, revoked_at, secret_prefix";

/// A key row as read, before decoding.
type KeyRow = (
    String,
    i64,
    Option<String>,
    Option<i64>,
    i64,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

fn read_key_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<KeyRow> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
        row.get(6)?,
        row.get(7)?,
    ))
}

fn decode_key(conn: &Connection, row: KeyRow) -> Result<KeyInfo, AccountError> {
    let (id, account, name, lifetime_days, created_at, expires_at, revoked_at, secret_prefix) = row;
    let key_id = key_id(&id)?;
    let lifetime = match lifetime_days {
        None => KeyLifetime::None,
        Some(days) => u32::try_from(days)
            .ok()
            .and_then(KeyLifetime::from_days)
            .ok_or_else(|| corrupt(format!("lifetime of {days} days")))?,
    };
    let allow = load_allowlist(conn, &key_id)?;
    Ok(KeyInfo {
        key_id,
        account_id: account_id(account)?,
        name,
        secret_prefix,
        lifetime,
        created_at: from_unix_millis(created_at),
        expires_at: expires_at.map(from_unix_millis),
        revoked_at: revoked_at.map(from_unix_millis),
        allow,
    })
}

fn load_key(conn: &Connection, key: &KeyId) -> Result<KeyInfo, AccountError> {
    let row = conn
        .query_row(
            &format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE key_id = ?1"),
            params![key.as_str()],
            read_key_row,
        )
        .optional()
        .map_err(AccountError::storage)?
        .ok_or_else(|| AccountError::KeyNotFound(key.clone()))?;
    decode_key(conn, row)
}

/// Loads a key for a change that a revoked key may not undergo.
fn load_unrevoked_key(conn: &Connection, key: &KeyId) -> Result<KeyInfo, AccountError> {
    let info = load_key(conn, key)?;
    ensure_not_revoked(&info)?;
    Ok(info)
}

/// A ledger row to append.
struct NewLedgerRow<'a> {
    account: AccountId,
    key: Option<&'a KeyId>,
    request_id: Option<&'a str>,
    operation: &'a str,
    amount: i64,
    balance_after: i64,
    now: DateTime<Utc>,
}

fn insert_ledger(tx: &Connection, row: NewLedgerRow<'_>) -> Result<(), AccountError> {
    tx.prepare_cached(
        "INSERT INTO ledger (account_id, key_id, request_id, operation, amount, balance_after, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )
    .and_then(|mut stmt| {
        stmt.execute(params![
            row.account.get(),
            row.key.map(KeyId::as_str),
            row.request_id,
            row.operation,
            row.amount,
            row.balance_after,
            millis(row.now)
        ])
    })
    .map(|_| ())
    .map_err(AccountError::storage)
}

/// The ledger of `account`: all of it oldest first, or the newest `newest` rows newest first.
fn ledger_rows(
    conn: &Connection,
    account: AccountId,
    newest: Option<u32>,
) -> Result<Vec<LedgerEntry>, AccountError> {
    require_account(conn, account)?;
    let order = match newest {
        None => "ORDER BY id".to_owned(),
        Some(limit) => format!("ORDER BY id DESC LIMIT {limit}"),
    };
    let mut stmt = conn
        .prepare(&format!(
            "SELECT id, key_id, request_id, operation, amount, balance_after, created_at
             FROM ledger WHERE account_id = ?1 {order}"
        ))
        .map_err(AccountError::storage)?;
    type Row = (i64, Option<String>, Option<String>, String, i64, i64, i64);
    let rows = stmt
        .query_map(params![account.get()], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                row.get(5)?,
                row.get(6)?,
            ))
        })
        .map_err(AccountError::storage)?
        .collect::<Result<Vec<Row>, _>>()
        .map_err(AccountError::storage)?;
    rows.into_iter()
        .map(
            |(row_id, key, request_id, operation, amount, balance_after, created_at)| {
                Ok(LedgerEntry {
                    id: row_id,
                    account_id: account,
                    key_id: key.as_deref().map(key_id).transpose()?,
                    request_id,
                    operation,
                    amount,
                    balance_after: to_u64(balance_after)?,
                    created_at: from_unix_millis(created_at),
                })
            },
        )
        .collect()
}

impl AccountStore for SqliteAccountStore {
    fn create_account(
        &self,
        email: &Email,
        initial_credits: u64,
        now: DateTime<Utc>,
    ) -> Result<AccountId, AccountError> {
        validate_amount(initial_credits, true)?;
        let credits = to_i64(initial_credits)?;
        self.write(|tx| {
            tx.execute(
                "INSERT INTO accounts (email, credits, created_at) VALUES (?1, ?2, ?3)",
                params![email.as_str(), credits, millis(now)],
            )
            .map_err(AccountError::storage)?;
            let id = account_id(tx.last_insert_rowid())?;
            if credits > 0 {
                insert_ledger(
                    tx,
                    NewLedgerRow {
                        account: id,
                        key: None,
                        request_id: None,
                        operation: ACCOUNT_CREATE_OPERATION,
                        amount: credits,
                        balance_after: credits,
                        now,
                    },
                )?;
            }
            Ok(id)
        })
    }

    fn account(&self, id: AccountId) -> Result<Account, AccountError> {
        self.with_conn(|conn| {
            let (email, credits, created_at): (String, i64, i64) = conn
                .query_row(
                    "SELECT email, credits, created_at FROM accounts WHERE id = ?1",
                    params![id.get()],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
                )
                .optional()
                .map_err(AccountError::storage)?
                .ok_or(AccountError::AccountNotFound(id))?;
            Ok(Account {
                id,
                email: Email::parse(&email).map_err(|_| corrupt(format!("email {email:?}")))?,
                credits: to_u64(credits)?,
                created_at: from_unix_millis(created_at),
            })
        })
    }

    fn balance(&self, id: AccountId) -> Result<u64, AccountError> {
        self.with_conn(|conn| {
            let credits: i64 = conn
                .prepare_cached("SELECT credits FROM accounts WHERE id = ?1")
                .and_then(|mut stmt| stmt.query_row(params![id.get()], |row| row.get(0)))
                .optional()
                .map_err(AccountError::storage)?
                .ok_or(AccountError::AccountNotFound(id))?;
            to_u64(credits)
        })
    }

    fn add_credits(
        &self,
        id: AccountId,
        amount: u64,
        now: DateTime<Utc>,
    ) -> Result<u64, AccountError> {
        validate_amount(amount, false)?;
        let ceiling = to_i64(max_balance_before_adding(amount))?;
        let amount = to_i64(amount)?;
        self.write(|tx| {
            let balance: Option<i64> = tx
                .query_row(
                    "UPDATE accounts SET credits = credits + ?1
                     WHERE id = ?2 AND credits <= ?3 RETURNING credits",
                    params![amount, id.get(), ceiling],
                    |row| row.get(0),
                )
                .optional()
                .map_err(AccountError::storage)?;
            let Some(balance) = balance else {
                require_account(tx, id)?;
                return Err(balance_too_large());
            };
            insert_ledger(
                tx,
                NewLedgerRow {
                    account: id,
                    key: None,
                    request_id: None,
                    operation: CREDITS_ADD_OPERATION,
                    amount,
                    balance_after: balance,
                    now,
                },
            )?;
            to_u64(balance)
        })
    }

    fn charge(
        &self,
        account: AccountId,
        key_id: &KeyId,
        request_id: &str,
        operation: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>, AccountError> {
        validate_charge(request_id, operation)?;
        self.write(|tx| {
            let earlier: Option<(i64, i64)> = tx
                .prepare_cached(
                    "SELECT account_id, balance_after FROM ledger WHERE request_id = ?1",
                )
                .and_then(|mut stmt| {
                    stmt.query_row(params![request_id], |row| Ok((row.get(0)?, row.get(1)?)))
                })
                .optional()
                .map_err(AccountError::storage)?;
            if let Some((charged, balance_after)) = earlier {
                let (charged, balance_after) = (account_id(charged)?, to_u64(balance_after)?);
                return repeated_charge(request_id, account, charged, balance_after).map(Some);
            }
            let remaining: Option<i64> = tx
                .prepare_cached(
                    "UPDATE accounts SET credits = credits - 1
                     WHERE id = ?1 AND credits >= 1 RETURNING credits",
                )
                .and_then(|mut stmt| {
                    stmt.query_row(params![account.get()], |row| row.get(0))
                        .optional()
                })
                .map_err(AccountError::storage)?;
            let Some(remaining) = remaining else {
                require_account(tx, account)?;
                return Ok(None);
            };
            insert_ledger(
                tx,
                NewLedgerRow {
                    account,
                    key: Some(key_id),
                    request_id: Some(request_id),
                    operation,
                    amount: -1,
                    balance_after: remaining,
                    now,
                },
            )?;
            to_u64(remaining).map(Some)
        })
    }

    fn ledger(&self, id: AccountId) -> Result<Vec<LedgerEntry>, AccountError> {
        self.with_conn(|conn| ledger_rows(conn, id, None))
    }

    fn create_key(
        &self,
        account: AccountId,
        new: &NewKey,
        now: DateTime<Utc>,
    ) -> Result<CreatedKey, AccountError> {
        let minted = mint_key(new, now)?;
        let key_id = &minted.key_id;
        let info = self.write(|tx| {
            require_account(tx, account)?;
            tx.execute(
                "INSERT INTO api_keys
                   (key_id, account_id, name, secret_sha256, lifetime_days, created_at, expires_at,
                    secret_prefix)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    key_id.as_str(),
                    account.get(),
                    minted.name,
                    minted.hash.as_bytes().as_slice(),
                    minted.lifetime.days(),
                    millis(minted.created_at),
                    minted.expires_at.map(millis),
                    minted.secret_prefix
                ],
            )
            .map_err(AccountError::storage)?;
            for (position, entry) in new.allow.entries().iter().enumerate() {
                tx.execute(
                    "INSERT INTO key_allow (key_id, entry, position) VALUES (?1, ?2, ?3)",
                    params![key_id.as_str(), entry.to_string(), position as i64],
                )
                .map_err(AccountError::storage)?;
            }
            load_key(tx, key_id)
        })?;
        Ok(CreatedKey {
            info,
            secret: minted.secret,
        })
    }

    fn key(&self, key_id: &KeyId) -> Result<KeyInfo, AccountError> {
        self.with_conn(|conn| {
            let tx = conn.transaction().map_err(AccountError::storage)?;
            load_key(&tx, key_id)
        })
    }

    fn list_keys(&self, account: AccountId) -> Result<Vec<KeyInfo>, AccountError> {
        self.with_conn(|conn| {
            let tx = conn.transaction().map_err(AccountError::storage)?;
            require_account(&tx, account)?;
            let rows = {
                let mut stmt = tx
                    .prepare(&format!(
                        "SELECT {KEY_COLUMNS} FROM api_keys WHERE account_id = ?1
                         ORDER BY created_at, rowid"
                    ))
                    .map_err(AccountError::storage)?;
                stmt.query_map(params![account.get()], read_key_row)
                    .map_err(AccountError::storage)?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(AccountError::storage)?
            };
            rows.into_iter().map(|row| decode_key(&tx, row)).collect()
        })
    }

    fn revoke_key(&self, key_id: &KeyId, now: DateTime<Utc>) -> Result<KeyInfo, AccountError> {
        self.write(|tx| {
            load_key(tx, key_id)?;
            tx.execute(
                "UPDATE api_keys SET revoked_at = ?1 WHERE key_id = ?2 AND revoked_at IS NULL",
                params![millis(now), key_id.as_str()],
            )
            .map_err(AccountError::storage)?;
            load_key(tx, key_id)
        })
    }

    fn renew_key(
        &self,
        key_id: &KeyId,
        lifetime: Option<KeyLifetime>,
        now: DateTime<Utc>,
    ) -> Result<KeyInfo, AccountError> {
        self.write(|tx| {
            let info = load_unrevoked_key(tx, key_id)?;
            let (lifetime, expires_at) = renewal(&info, lifetime, now);
            tx.execute(
                "UPDATE api_keys SET lifetime_days = ?1, expires_at = ?2 WHERE key_id = ?3",
                params![lifetime.days(), expires_at.map(millis), key_id.as_str()],
            )
            .map_err(AccountError::storage)?;
            load_key(tx, key_id)
        })
    }

    fn set_key_expiry(
        &self,
        key_id: &KeyId,
        at: Option<DateTime<Utc>>,
    ) -> Result<KeyInfo, AccountError> {
        self.write(|tx| {
            load_unrevoked_key(tx, key_id)?;
            tx.execute(
                "UPDATE api_keys SET expires_at = ?1 WHERE key_id = ?2",
                params![at.map(millis), key_id.as_str()],
            )
            .map_err(AccountError::storage)?;
            load_key(tx, key_id)
        })
    }

    fn update_allowlist(
        &self,
        key_id: &KeyId,
        add: &[AllowEntry],
        remove: &[AllowEntry],
    ) -> Result<Allowlist, AccountError> {
        self.write(|tx| {
            load_key(tx, key_id)?;
            for entry in add {
                tx.execute(
                    "INSERT OR IGNORE INTO key_allow (key_id, entry, position)
                     VALUES (?1, ?2,
                       (SELECT COALESCE(MAX(position), -1) + 1 FROM key_allow WHERE key_id = ?1))",
                    params![key_id.as_str(), entry.to_string()],
                )
                .map_err(AccountError::storage)?;
            }
            for entry in remove {
                tx.execute(
                    "DELETE FROM key_allow WHERE key_id = ?1 AND entry = ?2",
                    params![key_id.as_str(), entry.to_string()],
                )
                .map_err(AccountError::storage)?;
            }
            load_allowlist(tx, key_id)
        })
    }

    fn ping(&self) -> Result<(), AccountError> {
        self.with_conn(|conn| {
            conn.query_row("SELECT COUNT(*) FROM accounts WHERE id = 0", [], |_| Ok(()))
                .map_err(AccountError::storage)
        })
    }

    fn authenticate(
        &self,
        secret: &str,
        now: DateTime<Utc>,
    ) -> Result<AuthenticatedKey, AuthError> {
        let key = ApiKey::parse(secret)?;
        let hash = key.hash();
        let found = self
            .with_conn(|conn| {
                let tx = conn.transaction().map_err(AccountError::storage)?;
                // The lookup goes through the unique index on the hash of a secret with 190
                // random bits; the stored hash is compared again in constant time below.
                let row: Option<(Vec<u8>, KeyRow)> = tx
                    .prepare_cached(&format!(
                        "SELECT secret_sha256, {KEY_COLUMNS} FROM api_keys
                         WHERE secret_sha256 = ?1"
                    ))
                    .and_then(|mut stmt| {
                        stmt.query_row(params![hash.as_bytes().as_slice()], |row| {
                            let stored: Vec<u8> = row.get(0)?;
                            Ok((
                                stored,
                                (
                                    row.get(1)?,
                                    row.get(2)?,
                                    row.get(3)?,
                                    row.get(4)?,
                                    row.get(5)?,
                                    row.get(6)?,
                                    row.get(7)?,
                                    row.get(8)?,
                                ),
                            ))
                        })
                    })
                    .optional()
                    .map_err(AccountError::storage)?;
                let Some((stored, key_row)) = row else {
                    return Ok(None);
                };
                let matches = KeyHash::from_slice(&stored).is_some_and(|stored| stored == hash);
                if !matches {
                    return Ok(None);
                }
                decode_key(&tx, key_row).map(Some)
            })
            .map_err(AuthError::Storage)?;
        let info = found.ok_or(AuthError::Unknown)?;
        authenticated(info, now)
    }
}
