//! Integration tests of the corpus store: SQLite passes the conformance suite of
//! forumdex-testkit; `sqlite.rs` adds what only SQLite shows.

mod sqlite;
