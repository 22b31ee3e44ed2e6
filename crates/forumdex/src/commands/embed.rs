//! `forumdex embed`: gives every search index segment of the data folder its post vectors
//! (the semantic leg), to the end, with a progress bar; what a serving node's background
//! job does a segment at a time. Vectors are kept beside the indexes, so a server started
//! afterwards (or running meanwhile: it loads what this writes) serves semantically at once.

use std::io::IsTerminal;

use anyhow::{Context, bail};
use clap::Args;
use forumdex_search::SearchIndexes;
use forumdex_settings::SemanticModelSetting;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::commands::settings;
use crate::global::GlobalArgs;
use crate::output::print_json;

/// Arguments of `forumdex embed`.
#[derive(Debug, Args)]
pub struct EmbedArgs {
    /// Then delete from the vector store (`vectors.sqlite`, or PostgreSQL's `post_vectors`)
    /// the vectors of every model but the one that serves: those of a retired model. Run it
    /// once every node of the deployment serves the new model.
    #[arg(long)]
    prune: bool,
}

/// What `forumdex embed --json` prints.
#[derive(Debug, Serialize)]
struct EmbedSummary {
    /// The model the vectors were made with.
    model: String,
    #[serde(flatten)]
    report: forumdex_search::semantic::EmbedReport,
    /// Searchable posts, and those with vectors, after the run.
    docs: u64,
    embedded: u64,
    /// With `--prune`: the vectors of other models deleted from the store (`null` without).
    vectors_pruned: Option<u64>,
}

/// Runs `forumdex embed`.
pub fn run(global: &GlobalArgs, args: EmbedArgs) -> anyhow::Result<()> {
    let settings = settings(global, &[])?;
    let indexes = SearchIndexes::open(&global.data).context("opening the search indexes")?;
    if settings.search.semantic_model() == SemanticModelSetting::Off {
        bail!("semantic_model is off: search is lexical only, there is nothing to embed");
    }
    let storage = settings.storage.factory(&global.data);
    let Some(semantic) = forumdex_api::app::semantic_leg(&settings, &storage) else {
        bail!("the semantic model cannot be read (the warning above says why): nothing to embed");
    };
    let missing = semantic.missing_docs(&indexes);
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new(missing)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "embedding [{elapsed_precise}] {wide_bar} {pos}/{len} posts ({per_sec}, {eta})",
        )
        .expect("the progress template is valid"),
    );
    let report = semantic
        .embed_missing(&indexes, &mut |docs| bar.inc(docs))
        .context("embedding posts")?;
    bar.finish_and_clear();
    let vectors_pruned = if args.prune {
        let pruned = semantic.prune_store().context("pruning the vector store")?;
        if pruned.is_none() {
            bail!("no vector store to prune (the warning above says why)");
        }
        pruned
    } else {
        None
    };
    let coverage = semantic.coverage(&indexes);
    let summary = EmbedSummary {
        model: semantic.serving().model().version().to_owned(),
        report,
        docs: coverage.docs,
        embedded: coverage.embedded,
        vectors_pruned,
    };
    if global.json {
        return print_json(&summary);
    }
    println!(
        "embedded {} posts in {} segments ({} of them read from the vector store; {} segments already had vectors); {} of {} searchable posts have vectors (model {})",
        summary.report.docs_embedded,
        summary.report.segments_embedded,
        summary.report.docs_from_store,
        summary.report.segments_loaded,
        summary.embedded,
        summary.docs,
        summary.model
    );
    if let Some(pruned) = summary.vectors_pruned {
        println!("deleted {pruned} vectors of other models from the vector store");
    }
    Ok(())
}
