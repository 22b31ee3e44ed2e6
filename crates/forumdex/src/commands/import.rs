//! `forumdex import`: corpus files into the data folder's corpus.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use forumdex_corpus::{CorpusStore, SqliteCorpusStore};
use forumdex_images::LocalImageObjects;
use forumdex_ingest::source::Source;
use forumdex_ingest::{ImportOptions, ImportSummary, import_files};

use crate::cli::GlobalArgs;
use crate::output::print_json;

/// Rejections printed to stderr one by one; past this only the count is reported.
const PRINTED_REJECTIONS: u64 = 1_000;

/// Arguments of `forumdex import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Corpus files (`.jsonl`, `.jsonl.gz`, `.jsonl.zst`); `-` reads stdin.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Observations per batch: each batch is committed atomically under one sequence.
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub batch_size: u32,
}

/// Runs `forumdex import`.
pub fn run(global: &GlobalArgs, args: ImportArgs) -> anyhow::Result<()> {
    let sources: Vec<Source> = args.files.iter().map(|f| Source::from_arg(f)).collect();
    for source in &sources {
        if let Source::File(path) = source
            && !path.is_file()
        {
            anyhow::bail!("{} is not a readable file", path.display());
        }
    }
    let store = SqliteCorpusStore::open(&global.data)?;
    let summary = import(
        &store,
        &global.data,
        &sources,
        args.batch_size as usize,
        !global.json,
    )?;
    sync_search(global, &store);
    if global.json {
        print_json(&summary)
    } else {
        println!(
            "imported {} lines ({} new observations; {} posts, {} topics, {} profiles, {} boards, {} images), rejected {}; {} images cached as AVIF, {} left out",
            summary.accepted,
            summary.new_observations,
            summary.posts,
            summary.topics,
            summary.profiles,
            summary.boards,
            summary.images,
            summary.rejected,
            summary.images_cached,
            summary.images_failed
        );
        Ok(())
    }
}

/// Makes the import searchable without a running server. A failure (say, a running server
/// holds the index writer) is only a warning: the server's own sync picks the import up.
fn sync_search(global: &GlobalArgs, store: &SqliteCorpusStore) {
    let synced = forumdex_search::SearchIndexes::open(&global.data).and_then(|i| i.sync(store));
    if let Err(err) = synced {
        eprintln!(
            "warning: the search indexes were not updated ({err}); `forumdex serve` or `forumdex reindex` will do it"
        );
    }
}

/// Imports with rejections reported on stderr as `file:line: reason`, storing image objects
/// in the data folder (failures are logged as warnings as they happen).
pub fn import(
    store: &dyn CorpusStore,
    data_dir: &Path,
    sources: &[Source],
    batch_size: usize,
    progress: bool,
) -> anyhow::Result<ImportSummary> {
    let options = ImportOptions {
        batch_size,
        progress,
        images: Some(Arc::new(LocalImageObjects::open_in(data_dir)?)),
    };
    let mut printed = 0u64;
    let summary = import_files(store, sources, &options, |rejection| {
        printed += 1;
        if printed <= PRINTED_REJECTIONS {
            eprintln!(
                "{}:{}: {}",
                rejection.file, rejection.line, rejection.reason
            );
        }
    })?;
    if summary.rejected > PRINTED_REJECTIONS {
        eprintln!(
            "... {} more rejected lines not shown",
            summary.rejected - PRINTED_REJECTIONS
        );
    }
    Ok(summary)
}
