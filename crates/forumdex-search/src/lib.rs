//! Full-text search over the corpus: one tantivy index per language under
//! `<data>/search/<lang>/`, kept in step with the corpus by the [`Indexer`], quality
//! scores computed at index time ([`quality`]), and [`search`] (BM25 over title and content,
//! re-ranked by quality, freshness and answer-seeking intent, with spelling correction and
//! highlights).
//!
//! - [`analysis`]: language keys, the tokenizer and the per-language analyzers.
//! - [`index`]: the schema, the index folder, incremental sync and rebuild.
//! - [`indexer`]: [`Indexer`], the one owner of when and how the indexes sync (while
//!   serving, during an import, after a crawl, on a rebuild).
//! - [`quality`]: spam, AI-style and health heuristics.
//! - [`search`]: queries, re-ranking, spelling and highlights.

pub mod analysis;
mod cached_stem;
mod gated_stem;
pub mod index;
pub mod indexer;
pub mod quality;
pub mod search;
pub mod semantic;

pub use forumdex_corpus::LangCode;
pub use index::{SearchIndexes, SyncReport};
pub use indexer::Indexer;
pub use search::{Hit, SearchRequest, SearchResults, search};

use forumdex_corpus::StoreError;

/// Why indexing or searching failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// tantivy failed (I/O, a locked index, corruption).
    #[error("search index: {0}")]
    Index(String),
    /// The corpus could not be read while syncing.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<tantivy::TantivyError> for SearchError {
    fn from(err: tantivy::TantivyError) -> Self {
        Self::Index(err.to_string())
    }
}

impl From<std::io::Error> for SearchError {
    fn from(err: std::io::Error) -> Self {
        Self::Index(err.to_string())
    }
}
