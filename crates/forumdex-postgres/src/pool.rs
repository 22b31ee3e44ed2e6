//! [`PgPool`]: the connections of one process to the deployment's PostgreSQL database, and
//! the transactions every store runs on them.
//!
//! Like the embedded stores' pool, it hands out an idle connection or opens a new one, and
//! never blocks on a limit: past `max_idle`, connections are opened on demand and closed
//! after use. A connection the server closed is never taken back, and its failure empties
//! the idle list too (when the server went away, every idle connection went with it), so the
//! first request after PostgreSQL is back finds a live connection: recovery needs no restart.
//!
//! Every connection bounds its statements and lock waits (`statement_timeout`,
//! `lock_timeout`) and its connect (`connect_timeout`, unless the URL sets one): a stalled
//! server is an error within seconds, which the API answers with a 503, never a hang.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use forumdex_accounts::{AccountError, DeveloperError};
use forumdex_corpus::{StoreError, TakedownError};
use forumdex_sql::{AnyDb, Db, DynSql, Erased};
use postgres::error::SqlState;
use postgres::{Client, Config, IsolationLevel, NoTls, Transaction};
use rand::Rng;

use crate::exec::Pg;

/// Idle connections kept for reuse.
const MAX_IDLE_CONNECTIONS: usize = 16;
/// How long opening a connection may take, unless the URL says otherwise.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// What every connection sets: bounds on statements and lock waits (milliseconds); only
/// warnings from the server in the log (not the notices of idempotent DDL); and no JIT
/// compilation: a listing page's cursor over a large topic is estimated above
/// `jit_above_cost`, and compiling it took 230 ms where running it takes under one
/// (BENCHMARKS.md "Several nodes").
const SESSION_OPTIONS: &str = "-c statement_timeout=10000 -c lock_timeout=10000 \
     -c client_min_messages=warning -c jit=off";
/// How many times a transaction that lost a race (serialization failure, deadlock, a
/// concurrent insert of the same key) runs again before its error is returned.
const MAX_ATTEMPTS: u32 = 12;

/// Why the database could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    /// `database_url` does not parse (the message never repeats the URL: it may hold a
    /// password).
    #[error("database_url is not a valid PostgreSQL URL: {0}")]
    InvalidUrl(#[source] postgres::Error),
    /// The server refused, failed or could not be reached.
    #[error("PostgreSQL: {0}")]
    Db(#[from] postgres::Error),
    /// The schema is older than this binary's.
    #[error(
        "the PostgreSQL schema is at version {found}, this binary needs version {needed}: run `forumdex db migrate`"
    )]
    OutdatedSchema {
        /// The database's version (0: no forumdex schema).
        found: i32,
        /// This binary's version.
        needed: i32,
    },
    /// The schema is newer than this binary's: an older binary must not write to it.
    #[error(
        "the PostgreSQL schema is at version {found}, newer than this binary's {needed}: upgrade forumdex"
    )]
    NewerSchema {
        /// The database's version.
        found: i32,
        /// This binary's version.
        needed: i32,
    },
}

/// How a transaction sees concurrent ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isolation {
    /// Reads of one consistent snapshot, no writes.
    Snapshot,
    /// PostgreSQL's default. For writes whose every step is a conditional statement on
    /// the rows it changes (the debit), where serializable would fail every concurrent
    /// debit of one account but the first.
    ReadCommitted,
    /// As if the transactions ran one after another, as the embedded store runs its
    /// writers: for every other write.
    Serializable,
}

/// What a store's step inside a transaction failed with: the database, or a rule of the
/// store (an unknown account, say). `?` makes one from either, so steps read as plain code;
/// [`PgPool::transaction`] runs a transaction again when the database said it lost a race.
#[derive(Debug)]
pub(crate) enum Failure<E> {
    /// The database failed.
    Db(postgres::Error),
    /// The store refused (its own error).
    Refused(E),
}

impl<E> From<postgres::Error> for Failure<E> {
    fn from(err: postgres::Error) -> Self {
        Self::Db(err)
    }
}

impl From<AccountError> for Failure<AccountError> {
    fn from(err: AccountError) -> Self {
        Self::Refused(err)
    }
}

impl From<DeveloperError> for Failure<DeveloperError> {
    fn from(err: DeveloperError) -> Self {
        Self::Refused(err)
    }
}

impl From<AccountError> for Failure<DeveloperError> {
    fn from(err: AccountError) -> Self {
        Self::Refused(err.into())
    }
}

impl From<Failure<AccountError>> for Failure<DeveloperError> {
    fn from(err: Failure<AccountError>) -> Self {
        match err {
            Failure::Db(err) => Self::Db(err),
            Failure::Refused(err) => Self::Refused(err.into()),
        }
    }
}

/// A store's error made from a database failure: what each store answers when PostgreSQL
/// failed (a 503 for the API), never repeating the database URL.
pub(crate) trait FromDb {
    /// The error for `err`.
    fn from_db(err: postgres::Error) -> Self;
}

impl FromDb for AccountError {
    fn from_db(err: postgres::Error) -> Self {
        AccountError::storage(err)
    }
}

impl FromDb for DeveloperError {
    fn from_db(err: postgres::Error) -> Self {
        AccountError::storage(err).into()
    }
}

impl FromDb for StoreError {
    /// Busy for what a retry later may get through (a lock or statement timeout, a race
    /// lost more often than [`MAX_ATTEMPTS`] allows), unavailable for the rest.
    fn from_db(err: postgres::Error) -> Self {
        let busy = err.code().is_some_and(|code| {
            *code == SqlState::LOCK_NOT_AVAILABLE
                || *code == SqlState::QUERY_CANCELED
                || *code == SqlState::T_R_SERIALIZATION_FAILURE
                || *code == SqlState::T_R_DEADLOCK_DETECTED
        });
        if busy {
            StoreError::Busy(describe(&err))
        } else {
            StoreError::Unavailable(describe(&err))
        }
    }
}

/// What failed, with its cause (the server's message, or the I/O error): never the URL.
fn describe(err: &postgres::Error) -> String {
    match std::error::Error::source(err) {
        Some(cause) => format!("{err}: {cause}"),
        None => err.to_string(),
    }
}

impl FromDb for TakedownError {
    fn from_db(err: postgres::Error) -> Self {
        TakedownError::Store(StoreError::from_db(err))
    }
}

impl<E: FromDb> Failure<E> {
    /// The store's error: a database failure is a storage failure (503).
    pub(crate) fn into_store_error(self) -> E {
        match self {
            Self::Db(err) => E::from_db(err),
            Self::Refused(err) => err,
        }
    }
}

/// A pool of connections to one PostgreSQL database.
pub struct PgPool {
    config: Config,
    idle: Mutex<Vec<Client>>,
}

impl std::fmt::Debug for PgPool {
    // Not derived: the configuration holds the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgPool")
            .field("idle", &self.idle_count())
            .finish_non_exhaustive()
    }
}

impl PgPool {
    /// A pool for the database at `url` (`postgres://user:password@host:port/database`, or
    /// a key=value connection string). Opens one connection to prove the URL works.
    pub fn connect(url: &str) -> Result<Self, PgError> {
        let mut config: Config = url.parse().map_err(PgError::InvalidUrl)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let options = match config.get_options() {
            Some(theirs) => format!("{theirs} {SESSION_OPTIONS}"),
            None => SESSION_OPTIONS.to_owned(),
        };
        config.options(&options);
        if config.get_application_name().is_none() {
            config.application_name("forumdex");
        }
        let pool = Self {
            config,
            idle: Mutex::new(Vec::new()),
        };
        let client = pool.open()?;
        pool.release(client);
        Ok(pool)
    }

    fn open(&self) -> Result<Client, postgres::Error> {
        self.config.connect(NoTls)
    }

    fn acquire(&self) -> Result<Client, postgres::Error> {
        match self.lock().pop() {
            Some(client) => Ok(client),
            None => self.open(),
        }
    }

    fn release(&self, client: Client) {
        if client.is_closed() {
            // The server closed this one; the others idle beside it are as dead.
            self.lock().clear();
            return;
        }
        let mut idle = self.lock();
        if idle.len() < MAX_IDLE_CONNECTIONS {
            idle.push(client);
        }
    }

    /// Runs `work` on a connection of the pool, then releases it.
    pub fn with<T, E: From<postgres::Error>>(
        &self,
        work: impl FnOnce(&mut Client) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut client = self.acquire()?;
        let result = work(&mut client);
        self.release(client);
        result
    }

    /// Runs `work` in a transaction of `isolation`, committed when it succeeds; runs it
    /// again (up to [`MAX_ATTEMPTS`] times, after a short random pause) when it lost a race
    /// with a concurrent transaction, so callers see the outcome of some serial order.
    pub(crate) fn transaction<T, E: FromDb>(
        &self,
        isolation: Isolation,
        mut work: impl FnMut(&mut Transaction<'_>) -> Result<T, Failure<E>>,
    ) -> Result<T, E> {
        let mut attempt = 1;
        loop {
            let result = self.with(|client| {
                let mut tx = begin(client, isolation)?;
                let value = work(&mut tx)?;
                tx.commit()?;
                Ok(value)
            });
            match result {
                Err(err) if attempt < MAX_ATTEMPTS && lost_a_race(&err, isolation) => {
                    attempt += 1;
                    let pause = rand::thread_rng().gen_range(100..2_000);
                    std::thread::sleep(Duration::from_micros(pause));
                }
                result => return result.map_err(Failure::into_store_error),
            }
        }
    }

    /// Runs `work` in a read-committed transaction on a [`DynSql`] (statements written once
    /// for both backends outside this crate: the crawl state's), committed when it succeeds.
    /// Nothing runs it again: its callers hold a lock that makes them the only writer.
    pub fn with_sql<T, E: From<Db<AnyDb>>>(
        &self,
        work: impl FnOnce(&mut DynSql<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let db = |err: postgres::Error| E::from(Db(AnyDb::new(err)));
        let mut client = self.acquire().map_err(db)?;
        let result = begin(&mut client, Isolation::ReadCommitted)
            .map_err(db)
            .and_then(|mut tx| {
                let value = work(&mut Erased(Pg(&mut tx)))?;
                tx.commit().map_err(db)?;
                Ok(value)
            });
        self.release(client);
        result
    }

    /// Takes PostgreSQL's session-level advisory lock `key` of the schema the connections
    /// use (two deployments in two schemas of one database do not share it) on a
    /// connection of its own, when no other session holds it (`None` then): one holder in
    /// the whole deployment, released when the [`SessionLock`] is dropped or its process
    /// dies (the server ends the session).
    pub fn try_session_lock(&self, key: i32) -> Result<Option<SessionLock>, PgError> {
        let mut client = self.open()?;
        let taken: bool = client
            .query_one(
                "SELECT pg_try_advisory_lock($1, hashtext(current_schema()))",
                &[&key],
            )?
            .get(0);
        Ok(taken.then(|| SessionLock {
            client: Some(client),
        }))
    }

    /// How many connections wait idle (for tests of recovery).
    pub fn idle_count(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Client>> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for PgPool {
    /// Closes the idle connections on a thread of their own: closing one blocks on the
    /// client's own runtime, which may not run inside another, and a server drops its pool
    /// from async code when it stops.
    fn drop(&mut self) {
        let idle = std::mem::take(&mut *self.lock());
        if !idle.is_empty() {
            let _ = std::thread::spawn(move || drop(idle)).join();
        }
    }
}

/// An advisory lock held by a session of its own ([`PgPool::try_session_lock`]); dropping
/// it ends the session, which releases the lock.
pub struct SessionLock {
    client: Option<Client>,
}

impl std::fmt::Debug for SessionLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionLock").finish_non_exhaustive()
    }
}

impl Drop for SessionLock {
    /// Closes the session on a thread of its own, as [`PgPool`]'s drop does.
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            let _ = std::thread::spawn(move || drop(client)).join();
        }
    }
}

fn begin(client: &mut Client, isolation: Isolation) -> Result<Transaction<'_>, postgres::Error> {
    let builder = client.build_transaction();
    match isolation {
        Isolation::Snapshot => builder
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true),
        Isolation::ReadCommitted => builder.isolation_level(IsolationLevel::ReadCommitted),
        Isolation::Serializable => builder.isolation_level(IsolationLevel::Serializable),
    }
    .start()
}

/// Whether `err` says the transaction lost a race and would succeed run again: a
/// serialization failure or a deadlock; at read committed, also a unique key that a
/// concurrent transaction inserted first (serializable reports that as a serialization
/// failure).
fn lost_a_race<E>(err: &Failure<E>, isolation: Isolation) -> bool {
    let Failure::Db(err) = err else { return false };
    let Some(code) = err.code() else { return false };
    *code == SqlState::T_R_SERIALIZATION_FAILURE
        || *code == SqlState::T_R_DEADLOCK_DETECTED
        || (isolation == Isolation::ReadCommitted && *code == SqlState::UNIQUE_VIOLATION)
}
