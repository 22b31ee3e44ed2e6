//! Online, consistent copies of the data folder's SQLite databases, for `forumdex backup`.

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

/// How long the copy waits for a writer that holds the database's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Writes a copy of the database at `from` to the new file `to` while other connections
/// (a running server, an import) read and write it. The copy is consistent as of one
/// instant: `VACUUM INTO` reads the whole database in one read transaction, so it holds
/// every transaction committed before it began and none after. Returns the copy's size in
/// bytes.
pub fn copy_database(from: &Path, to: &Path) -> rusqlite::Result<u64> {
    let conn = Connection::open(from)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let target = to
        .to_str()
        .ok_or_else(|| rusqlite::Error::InvalidPath(to.to_path_buf()))?;
    conn.execute("VACUUM INTO ?1", [target])?;
    Ok(std::fs::metadata(to).map_or(0, |metadata| metadata.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_holds_what_was_committed_and_opens_on_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("a.sqlite");
        let writer = Connection::open(&from).unwrap();
        writer
            .execute_batch(
                "PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2);",
            )
            .unwrap();
        // A transaction open in another connection is not in the copy.
        writer
            .execute_batch("BEGIN; INSERT INTO t VALUES (3);")
            .unwrap();
        let to = dir.path().join("b.sqlite");
        assert!(copy_database(&from, &to).unwrap() > 0);
        writer.execute_batch("COMMIT").unwrap();
        let copy = Connection::open(&to).unwrap();
        let sum: i64 = copy
            .query_row("SELECT sum(x) FROM t", [], |row| row.get(0))
            .unwrap();
        assert_eq!(sum, 3);
        let err = copy_database(&from, &to).unwrap_err();
        assert!(err.to_string().contains("exists"), "{err}");
    }
}
