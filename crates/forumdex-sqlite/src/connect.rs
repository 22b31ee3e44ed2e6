//! The one connection setup of the data folder's SQLite databases (corpus, accounts, crawl
//! state): WAL, a busy timeout, `synchronous = NORMAL`, and what each database asks for
//! beyond that ([`Setup`]).

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, ffi};

/// What a database asks of its connections beyond the common setup.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    /// What the database is, for the log line when it cannot be put in WAL mode.
    pub name: &'static str,
    /// How long a statement waits for a lock before SQLite reports the database busy.
    pub busy_timeout: Duration,
    /// Page cache per connection in KiB; SQLite's default (2 MiB) when `None`.
    pub cache_kib: Option<u32>,
    /// Temporary tables and indexes in memory, not in files.
    pub temp_in_memory: bool,
    /// Foreign keys enforced, whatever the SQLite build's default (otherwise left at it).
    pub foreign_keys: bool,
    /// Commits never checkpoint (the store checkpoints on a thread of its own), and a log
    /// started over is cut back to 16 MiB.
    pub manual_checkpoints: bool,
    /// A database SQLite could open only read-only is refused (an error now, a writable
    /// connection once the fault is gone), rather than kept in a pool that would fail
    /// every write.
    pub refuse_read_only: bool,
}

/// Opens a connection to the database at `path` (created when missing) with the common
/// setup and `setup`'s.
pub fn connect(path: &Path, setup: &Setup) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    if setup.refuse_read_only && conn.is_readonly(rusqlite::MAIN_DB)? {
        return Err(rusqlite::Error::SqliteFailure(
            ffi::Error::new(ffi::SQLITE_READONLY),
            Some(format!("{} is read-only", path.display())),
        ));
    }
    conn.busy_timeout(setup.busy_timeout)?;
    let mode = enable_wal(&conn, setup.busy_timeout)?;
    if !mode.eq_ignore_ascii_case("wal") {
        tracing::warn!(journal_mode = %mode, database = setup.name, "database is not in WAL mode");
    }
    let mut pragmas = String::from("PRAGMA synchronous = NORMAL;");
    if let Some(kib) = setup.cache_kib {
        pragmas.push_str(&format!(" PRAGMA cache_size = -{kib};"));
    }
    if setup.temp_in_memory {
        pragmas.push_str(" PRAGMA temp_store = MEMORY;");
    }
    if setup.foreign_keys {
        pragmas.push_str(" PRAGMA foreign_keys = ON;");
    }
    if setup.manual_checkpoints {
        pragmas.push_str(" PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 16777216;");
    }
    conn.execute_batch(&pragmas)?;
    Ok(conn)
}

/// Puts the database in WAL mode (a no-op when it is already) and returns the journal mode
/// it is in. Switching to WAL takes a lock for which SQLite does not call the busy handler,
/// so when several connections open a new database at once one of them may be told "busy":
/// this retries for up to `timeout`, as the busy handler would.
fn enable_wal(conn: &Connection, timeout: Duration) -> rusqlite::Result<String> {
    let started = Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |row| {
            row.get::<_, String>(0)
        }) {
            Err(err)
                if err.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
                    && started.elapsed() < timeout =>
            {
                std::thread::sleep(Duration::from_millis(2));
            }
            outcome => return outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Setup = Setup {
        name: "test",
        busy_timeout: Duration::from_secs(5),
        cache_kib: None,
        temp_in_memory: false,
        foreign_keys: false,
        manual_checkpoints: false,
        refuse_read_only: true,
    };

    #[test]
    fn a_connection_gets_the_common_setup_and_what_its_database_asks() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.sqlite");
        let pragma = |conn: &Connection, name: &str| -> i64 {
            conn.query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
                .expect("pragma")
        };
        let plain = connect(&path, &PLAIN).expect("open");
        assert_eq!(pragma(&plain, "synchronous"), 1, "NORMAL");
        let mode: String = plain
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .expect("journal mode");
        assert_eq!(mode, "wal");
        let asking = Setup {
            cache_kib: Some(4096),
            temp_in_memory: true,
            foreign_keys: true,
            manual_checkpoints: true,
            ..PLAIN
        };
        let conn = connect(&path, &asking).expect("open");
        assert_eq!(pragma(&conn, "cache_size"), -4096);
        assert_eq!(pragma(&conn, "temp_store"), 2, "MEMORY");
        assert_eq!(pragma(&conn, "foreign_keys"), 1);
        assert_eq!(pragma(&conn, "wal_autocheckpoint"), 0);
        assert_eq!(pragma(&conn, "journal_size_limit"), 16_777_216);
    }

    #[test]
    fn many_connections_switch_a_new_database_to_wal_at_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.sqlite");
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    let conn = Connection::open(&path).expect("open");
                    let mode = enable_wal(&conn, Duration::from_secs(10)).expect("wal");
                    assert_eq!(mode, "wal");
                });
            }
        });
    }
}
