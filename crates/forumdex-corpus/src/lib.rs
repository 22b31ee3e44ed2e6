//! The forum corpus: parsing corpus-format v1 records into observations, choosing canonical
//! documents, and the store that keeps them with MVCC snapshots, behind three seams split by
//! who may call what ([`CorpusRead`], [`CorpusWrite`], [`CorpusMaintenance`]), and the
//! semantic leg's post vectors kept beside it ([`VectorStore`]); the derived values every
//! backend shares are computed in [`derive`].
//!
//! The store is the only writer of corpus data (the importer calls it); the HTTP layer only
//! reads through it. The backends live beside each other in their own crates
//! (`forumdex-sqlite`, the embedded default, and `forumdex-postgres`); this crate holds no
//! SQL.

pub mod derive;
pub mod error;
pub mod html;
pub mod id;
pub mod lang;
pub mod model;
pub mod record;
pub mod store;
pub mod takedown;
pub mod text;
pub mod time;
pub mod topic_stats;
pub mod vectors;

pub use error::StoreError;
pub use id::{ForumId, MAX_ID, is_canonical, parse_canonical};
pub use lang::LangCode;
pub use model::*;
pub use record::{Observation, Record, RecordError};
pub use store::{CorpusMaintenance, CorpusRead, CorpusWrite};
pub use takedown::{Takedown, TakedownError, TakedownSet, TakedownTarget};
pub use time::Millis;
pub use vectors::{VectorKey, VectorStore};
