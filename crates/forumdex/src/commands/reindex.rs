//! `forumdex reindex`: rebuild every search index from the corpus (after a change of
//! analyzers or quality rules). Stop the server first: it holds the index writers while it
//! syncs.

use anyhow::Context;
use clap::Args;
use forumdex_search::SearchIndexes;

use crate::cli::GlobalArgs;
use crate::commands::storage;
use crate::output::print_json;

/// Arguments of `forumdex reindex`.
#[derive(Debug, Args)]
pub struct ReindexArgs {}

/// Runs `forumdex reindex`.
pub fn run(global: &GlobalArgs, _args: ReindexArgs) -> anyhow::Result<()> {
    let storage = storage(global)?;
    let corpus = storage.corpus()?;
    let indexes = SearchIndexes::open(storage.data_dir()).context("opening the search indexes")?;
    let report = indexes
        .rebuild(corpus.read.as_ref())
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
            "indexed {} posts ({} low-quality replies hidden) up to sequence {}; documents per index: {}",
            report.posts_indexed,
            report.posts_hidden,
            report.synced_seq,
            per_index.join(", ")
        );
        Ok(())
    }
}
