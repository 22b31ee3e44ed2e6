//! forumdex's embedded SQLite backends, the default deployment's storage in one data folder,
//! beside `forumdex-postgres` and behind the same seams.
//!
//! - [`SqliteCorpusStore`] (`corpus.sqlite`): the corpus with its MVCC snapshots, behind
//!   `CorpusRead`, `CorpusWrite` and `CorpusMaintenance`; one writer at a time, readers on
//!   their own connections so imports never block reads.
//! - [`SqliteAccountStore`] (`accounts.sqlite`): accounts, keys, allowlists, the ledger and
//!   what the developer dashboard keeps, behind `AccountStore` and `DeveloperStore`.
//! - [`SqliteVectorStore`] (`vectors.sqlite`): the semantic leg's post vectors, behind
//!   `VectorStore`, so a merged segment's posts are not embedded again.
//! - [`backup`]: online, consistent copies of these databases (`forumdex backup`).
//! - [`connect`]: the one connection setup of every SQLite database of the data folder
//!   (these two and the crawler's state), and [`Pool`], their connection pool.
//!
//! The rules both backends follow live in the domain crates (`forumdex_corpus::derive`,
//! `forumdex_accounts::rules`, `forumdex_accounts::payments`); a store here gathers facts
//! and writes plans. The stores are blocking, like every store seam: the server calls them
//! on tokio's blocking pool.

mod accounts;
pub mod backup;
pub mod connect;
mod corpus;
mod exec;
mod pool;
mod vectors;

pub use accounts::SqliteAccountStore;
pub use connect::{Setup, connect};
pub use corpus::SqliteCorpusStore;
pub use exec::Lite;
pub use pool::{Connect, Pool};
pub use vectors::SqliteVectorStore;
