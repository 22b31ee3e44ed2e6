//! `forumdex import`: corpus files into the corpus, indexed for search as they are imported
//! into the data folder's indexes (with the embedded storage, or `--index`).

use std::path::PathBuf;
use std::sync::{Arc, mpsc};

use clap::Args;
use forumdex_corpus::CorpusWrite;
use forumdex_ingest::source::Source;
use forumdex_ingest::{ImportOptions, ImportSummary, import_files};
use forumdex_search::Indexer;
use forumdex_storage::{Storage, StorageKind};

use crate::commands::{search_indexes, storage};
use crate::global::GlobalArgs;
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
    /// Also bring this data folder's search indexes up to date with the import. Always so
    /// with the embedded storage (the folder is the one a server serves); with `storage =
    /// "postgres"` an import writes the shared corpus only, and every serving node indexes
    /// it within seconds, unless this is given (a node importing into its own folder).
    #[arg(long)]
    pub index: bool,
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
    if !crate::allocator::keep_freed_memory() {
        tracing::debug!("mimalloc's purge delay is not the default: left as it is");
    }
    let storage = storage(global)?;
    let corpus = storage.corpus()?;
    let index_here = args.index || storage.settings().kind == StorageKind::Embedded;
    let indexer = if index_here {
        match search_indexes(global, storage.data_dir()) {
            Ok(indexes) => Some(Indexer::new(Arc::new(indexes), Arc::clone(&corpus.read))),
            Err(err) => {
                warn_not_indexed(&err);
                None
            }
        }
    } else {
        None
    };
    let (summary, indexed) = std::thread::scope(|scope| {
        // The indexer follows the import on the other core; dropping `importing` ends it.
        let (importing, imported) = mpsc::channel::<()>();
        let following = indexer
            .as_ref()
            .map(|indexer| scope.spawn(|| indexer.follow_import(imported)));
        let summary = import(
            &storage,
            corpus.write.as_ref(),
            &sources,
            args.batch_size as usize,
            !global.json,
        );
        drop(importing);
        let indexed =
            following.map(|following| following.join().expect("the indexer does not panic"));
        (summary, indexed)
    });
    let summary = summary?;
    if let Some(Err(err)) = indexed {
        warn_not_indexed(&anyhow::Error::from(err));
    }
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

/// The search indexes could not be updated. Only a warning: the import itself is
/// committed, and the server's own sync (or `forumdex reindex`) picks it up.
fn warn_not_indexed(err: &anyhow::Error) {
    eprintln!(
        "warning: the search indexes were not updated ({err:#}); `forumdex serve` or `forumdex reindex` will do it"
    );
}

/// Imports into `corpus`, with rejections reported on stderr as `file:line: reason`,
/// storing image objects where `storage` keeps them (failures are logged as warnings as
/// they happen).
pub fn import(
    storage: &Storage,
    corpus: &dyn CorpusWrite,
    sources: &[Source],
    batch_size: usize,
    progress: bool,
) -> anyhow::Result<ImportSummary> {
    let options = ImportOptions {
        batch_size,
        progress,
        images: Some(storage.image_objects()?),
        clock: storage.clock(),
    };
    let mut printed = 0u64;
    let summary = import_files(corpus, sources, &options, |rejection| {
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
