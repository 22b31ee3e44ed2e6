//! Integration tests of the embedded SQLite backends: each passes the conformance suites of
//! forumdex-testkit; beside them, only what a file-backed SQLite store shows (query plans,
//! migrations of older files, connections, checkpoints).

mod accounts;
mod corpus;
mod helpers;
