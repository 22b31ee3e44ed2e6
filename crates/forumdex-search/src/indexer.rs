//! [`Indexer`]: the one owner of when and how a node's search indexes follow the corpus.
//! The server, `forumdex import`, `forumdex crawl`, `forumdex reindex` and the demo ask it;
//! none of them decides a window size, a backlog or an interval of its own.
//!
//! - **While serving**, [`Indexer::catch_up`] every [`Indexer::SERVING_INTERVAL`]: windows
//!   of 32 sequences, so a search waits little for a window's commit and an import is
//!   searchable within seconds.
//! - **During an import**, [`Indexer::follow_import`] on a thread beside it: nothing until
//!   [`IMPORT_BACKLOG`] batches wait, then one bulk pass (windows of 64 sequences, fewer and
//!   larger segments), and a last bulk pass when the import ends.
//! - **After a crawl**, [`Indexer::catch_up`] once (a crawl's pages are few per run).
//! - **On `forumdex reindex`**, [`Indexer::rebuild`]: every index from nothing, in bulk.
//!
//! With a semantic leg attached, [`Indexer::catch_up`] also embeds the small segments it
//! wrote before it returns ([`crate::semantic::Semantic::embed_small_segments`]); larger
//! ones are the server's background embedding job's.
//!
//! Syncing itself (which posts changed, one document per canonical post, `synced_seq`
//! recorded only after every touched index committed) is [`SearchIndexes`]'.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use forumdex_corpus::CorpusRead;

use crate::SearchError;
use crate::index::{SearchIndexes, SyncReport};

/// Sequences (import batches) an import's indexer lets pile up before it syncs: each sync
/// commits every index it touches, and fewer, larger commits leave less merging to do (16
/// with 32-sequence windows cost the 1.4M corpus's import 9-14% more user CPU;
/// BENCHMARKS.md, the tenth round).
pub const IMPORT_BACKLOG: i64 = 48;
/// How often an import's indexer looks at the import's progress.
const IMPORT_POLL: Duration = Duration::from_millis(250);

/// A node's search indexes and the corpus they follow.
#[derive(Clone)]
pub struct Indexer {
    indexes: Arc<SearchIndexes>,
    corpus: Arc<dyn CorpusRead>,
}

impl std::fmt::Debug for Indexer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Indexer").finish_non_exhaustive()
    }
}

impl Indexer {
    /// How often a serving node catches up with the corpus.
    pub const SERVING_INTERVAL: Duration = Duration::from_secs(2);

    /// The indexer of `indexes` over `corpus`.
    pub fn new(indexes: Arc<SearchIndexes>, corpus: Arc<dyn CorpusRead>) -> Self {
        Self { indexes, corpus }
    }

    /// Brings the indexes up to the corpus's newest sequence in serving-sized windows.
    /// Blocking.
    pub fn catch_up(&self) -> Result<SyncReport, SearchError> {
        let report = self.indexes.sync(self.corpus.as_ref())?;
        if let Some(semantic) = self.indexes.semantic() {
            semantic.embed_small_segments(&self.indexes)?;
        }
        Ok(report)
    }

    /// Follows an import on the calling thread until `imported` is closed (the importer
    /// drops its sender when it ends): a bulk pass whenever [`IMPORT_BACKLOG`] batches
    /// wait, then a last bulk pass once the import is over, whose report it returns. A pass
    /// that fails (say, a running server holds the index writers) stops the following; the
    /// last pass meets the same cause again and reports it.
    pub fn follow_import(&self, imported: Receiver<()>) -> Result<SyncReport, SearchError> {
        let corpus = self.corpus.as_ref();
        let following = (|| loop {
            let backlog = corpus.latest_seq()? - self.indexes.synced_seq()?;
            if backlog >= IMPORT_BACKLOG {
                self.indexes.sync_in_bulk(corpus)?;
            } else if let Err(RecvTimeoutError::Disconnected) = imported.recv_timeout(IMPORT_POLL) {
                return Ok::<(), SearchError>(());
            }
        })();
        if following.is_err() {
            // Wait for the import's end without syncing (nothing is sent, only the close).
            let _ = imported.recv();
        }
        self.indexes.sync_in_bulk(corpus)
    }

    /// Rebuilds every index from the corpus, in bulk. Blocking; the node must not be
    /// serving (the server holds the index writers).
    pub fn rebuild(&self) -> Result<SyncReport, SearchError> {
        self.indexes.rebuild(self.corpus.as_ref())
    }
}
