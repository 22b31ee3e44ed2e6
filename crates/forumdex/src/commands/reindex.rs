//! `forumdex reindex`: rebuild every search index from the corpus (after a change of
//! analyzers or quality rules). Stop the server first: it holds the index writers while it
//! syncs. `reindex --from DIR` instead starts a new node of a deployment from a copy of
//! another node's indexes (DIR is that node's data folder; it may be serving), then
//! catches up with the corpus.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use forumdex_search::{Indexer, SearchIndexes};

use crate::commands::{search_indexes, storage};
use crate::global::GlobalArgs;
use crate::output::print_json;

/// Arguments of `forumdex reindex`.
#[derive(Debug, Args)]
pub struct ReindexArgs {
    /// Copy the indexes of another node's data folder (of the same deployment) instead of
    /// rebuilding, then catch up with the corpus. The data folder must hold none yet.
    #[arg(long, value_name = "DIR")]
    pub from: Option<PathBuf>,
}

/// Runs `forumdex reindex`.
pub fn run(global: &GlobalArgs, args: ReindexArgs) -> anyhow::Result<()> {
    let storage = storage(global)?;
    let corpus = storage.corpus()?;
    if let Some(source) = &args.from {
        SearchIndexes::seed_from(source, storage.data_dir())
            .with_context(|| format!("copying the search indexes of {}", source.display()))?;
    }
    let indexes = search_indexes(global, storage.data_dir())?;
    let indexer = Indexer::new(Arc::new(indexes), corpus.read);
    let report = match args.from {
        Some(_) => indexer.catch_up(),
        None => indexer.rebuild(),
    }
    .context("rebuilding the search indexes")?;
    if global.json {
        print_json(&report)
    } else {
        let per_index: Vec<String> = report
            .indexes
            .iter()
            .map(|(key, docs)| format!("{key} {docs}"))
            .collect();
        println!(
            "indexed {} posts ({} low-quality replies hidden) from sequence {} up to sequence {}; documents per index: {}",
            report.posts_indexed,
            report.posts_hidden,
            report.from_seq,
            report.synced_seq,
            per_index.join(", ")
        );
        Ok(())
    }
}
