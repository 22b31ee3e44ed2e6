//! The PostgreSQL stores against real PostgreSQL servers (forumdex-testkit's `postgres`:
//! `FORUMDEX_TEST_DATABASE_URL`, or a private server of this test binary): the conformance
//! suites every account store passes, then what only a shared database shows (several
//! nodes at once, the schema's version, losing the server and getting it back).

mod accounts;
mod corpus;
mod schema;
mod vectors;
