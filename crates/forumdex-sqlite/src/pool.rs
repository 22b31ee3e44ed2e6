//! The one connection pool of forumdex's embedded SQLite databases (corpus, accounts, crawl
//! state).
//!
//! SQLite connections are cheap to keep and costly to open (each reads the schema and sets
//! its pragmas), so every store keeps a few idle ones. [`Pool`] hands out an idle
//! connection or opens a new one with the store's own `connect` function, and takes it
//! back afterwards only when it is in a clean state (no transaction left open) and fewer
//! than its limit are idle. It never blocks: past the limit, connections are opened on
//! demand and closed after use.

use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// Opens a connection to the database at a path, configured for its store.
pub type Connect<E> = Box<dyn Fn(&Path) -> Result<Connection, E> + Send + Sync>;

/// A pool of connections to one database file.
pub struct Pool<E> {
    path: PathBuf,
    connect: Connect<E>,
    max_idle: usize,
    idle: Mutex<Vec<Connection>>,
}

impl<E> std::fmt::Debug for Pool<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("path", &self.path)
            .field("max_idle", &self.max_idle)
            .field("idle", &self.idle_count())
            .finish_non_exhaustive()
    }
}

impl<E> Pool<E> {
    /// A pool for the database at `path`, opening connections with `connect` and keeping at
    /// most `max_idle` of them between uses.
    pub fn new(
        path: impl Into<PathBuf>,
        max_idle: usize,
        connect: impl Fn(&Path) -> Result<Connection, E> + Send + Sync + 'static,
    ) -> Self {
        Self {
            path: path.into(),
            connect: Box::new(connect),
            max_idle,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// An idle connection, or a new one.
    pub fn acquire(&self) -> Result<Connection, E> {
        match self.lock().pop() {
            Some(conn) => Ok(conn),
            None => (self.connect)(&self.path),
        }
    }

    /// Takes `conn` back for reuse when no transaction is open on it and the pool has room;
    /// otherwise closes it.
    pub fn release(&self, conn: Connection) {
        if !conn.is_autocommit() {
            return;
        }
        let mut idle = self.lock();
        if idle.len() < self.max_idle {
            idle.push(conn);
        }
    }

    /// Runs `work` on a connection of the pool, then releases it.
    pub fn with<T>(&self, work: impl FnOnce(&mut Connection) -> Result<T, E>) -> Result<T, E> {
        let mut conn = self.acquire()?;
        let result = work(&mut conn);
        self.release(conn);
        result
    }

    /// How many connections wait idle (for tests of the bound).
    pub fn idle_count(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Connection>> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connect(path: &Path) -> rusqlite::Result<Connection> {
        Connection::open(path)
    }

    #[test]
    fn reuses_clean_connections_up_to_the_limit() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pool = Pool::new(dir.path().join("t.sqlite"), 1, connect);
        let first = pool.acquire().expect("open");
        let second = pool.acquire().expect("open");
        pool.release(first);
        pool.release(second);
        assert_eq!(pool.idle_count(), 1, "one kept, one closed");
        pool.with(|conn| conn.execute_batch("CREATE TABLE t (x)"))
            .expect("work");
        assert_eq!(pool.idle_count(), 1);
    }

    #[test]
    fn a_connection_left_in_a_transaction_is_not_reused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pool = Pool::new(dir.path().join("t.sqlite"), 4, connect);
        let result: rusqlite::Result<()> = pool.with(|conn| {
            conn.execute_batch("BEGIN")?;
            Err(rusqlite::Error::InvalidQuery)
        });
        assert!(result.is_err());
        assert_eq!(pool.idle_count(), 0);
    }
}
