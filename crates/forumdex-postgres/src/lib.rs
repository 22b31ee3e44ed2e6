//! forumdex's PostgreSQL backends, for a deployment of several nodes (setting
//! `storage = "postgres"`, with `database_url`).
//!
//! - [`PgPool`]: one process's connections to the database, and its transactions (run
//!   again when they lose a race with another node's).
//! - [`schema`]: the versioned schema; [`schema::migrate`] is `forumdex db migrate`, and
//!   every store refuses a database whose schema is not this binary's.
//! - [`PgCorpusStore`]: the corpus with its MVCC snapshots, behind the same seams
//!   (`CorpusRead`, `CorpusWrite`, `CorpusMaintenance`) as the embedded SQLite store and
//!   passing the same conformance suite; imports from any node take their sequence numbers
//!   one at a time, in commit order.
//! - [`PgAccountStore`]: accounts, keys, allowlists, the ledger and what the developer
//!   dashboard keeps, behind the same seams (`AccountStore`, `DeveloperStore`) as the
//!   embedded SQLite store, and passing the same conformance suites.
//!
//! - [`PgVectorStore`]: the semantic leg's post vectors, shared by every node, so each
//!   post is embedded once per deployment.
//!
//! - [`copy`]: `forumdex db copy --from DIR`, an embedded data folder's databases copied
//!   row for row.
//!
//! The stores are blocking, like every store seam: the server calls them on tokio's
//! blocking pool (the synchronous client runs its own small runtime per connection, which
//! is allowed there and nowhere async).

mod accounts;
pub mod copy;
mod corpus;
mod exec;
mod pool;
pub mod schema;
mod vectors;

pub use accounts::PgAccountStore;
pub use corpus::PgCorpusStore;
pub use pool::{PgError, PgPool, SessionLock};
pub use vectors::PgVectorStore;
