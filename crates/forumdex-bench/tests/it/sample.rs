//! Known-item relevance on the real sample (`../shared/data/bitcointalk-sample.jsonl.gz` from
//! the workspace root; BENCHMARKS.md "Known-item relevance"): its first [`LINES`] lines are
//! imported and indexed, queries are generated from the same lines, and
//! `forumdex relevance`'s figures must reach issue #14's targets: MRR@10 >= 0.9 for every
//! exact kind, >= 0.8 for typos. `question-template` (made-up questions around two random
//! distinctive words) is printed but not yet held to the target: the tiered ranking counts
//! the template's own words ("work", "find") as much as the subject, and it scores far
//! below (BENCHMARKS.md, "Known-item relevance"); real questions (`question`) are held. Skipped when the sample is absent, except on CI (`CI` set),
//! where its absence fails.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

use forumdex::commands::relevance::{evaluate, parse_queries};
use forumdex_bench::known_items::{Kind, Options, generate};
use forumdex_ingest::source::Source;
use forumdex_ingest::{ImportOptions, import_files};
use forumdex_search::SearchIndexes;
use forumdex_sqlite::SqliteCorpusStore;

/// Lines of the sample used (whole topics of about 29,000 posts; the import dominates the
/// test's time).
const LINES: usize = 30_000;
/// Most queries of each kind.
const PER_KIND: usize = 60;
/// Fewest queries of a kind for its figure to mean something (the subset has about 25
/// questions that quotes answer).
const MIN_QUERIES: usize = 15;
/// Issue #14's targets.
const EXACT_MRR: f64 = 0.9;
const TYPO_MRR: f64 = 0.8;

fn sample() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/bitcointalk-sample.jsonl.gz");
    path.is_file().then_some(path)
}

#[test]
fn known_items_of_the_real_sample_rank_high() {
    let Some(path) = sample() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "the real sample (../shared/data/bitcointalk-sample.jsonl.gz) must be there on CI"
        );
        eprintln!("skipped: the real sample is absent");
        return;
    };
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("a temp folder");
    let subset = dir.path().join("sample.jsonl");
    let mut file = std::fs::File::create(&subset).expect("the subset is created");
    let reader = Source::File(path)
        .open(|raw| raw)
        .expect("the sample opens");
    for line in reader.lines().take(LINES) {
        writeln!(file, "{}", line.expect("the sample reads")).expect("the subset is written");
    }
    drop(file);
    let data = dir.path().join("data");
    std::fs::create_dir(&data).expect("the data folder");
    let store = SqliteCorpusStore::open(&data).expect("the store opens");
    let options = ImportOptions {
        batch_size: 5_000,
        progress: false,
        ..ImportOptions::default()
    };
    import_files(&store, &[Source::from_arg(&subset)], &options, |_| {}).expect("the import");
    let indexes = SearchIndexes::open(&data).expect("the indexes open");
    indexes.sync(&store).expect("the sync");
    let imported = started.elapsed();

    let options = Options {
        per_kind: PER_KIND,
        seed: 7,
    };
    let set = generate(&Source::from_arg(&subset), options).expect("the queries generate");
    let queries = parse_queries(&set.to_tsv("subset"), "generated").expect("a valid file");
    let report = evaluate(&indexes, &queries).expect("the searches run");
    eprintln!(
        "{} posts, imported and indexed in {:.1} s, {} queries generated and run in {:.1} s: \
         MRR@10 {:.3}, recall@10 {:.3}",
        set.posts,
        imported.as_secs_f64(),
        report.queries,
        (started.elapsed() - imported).as_secs_f64(),
        report.mrr_at_10,
        report.recall_at_10
    );
    for (kind, figures) in &report.kinds {
        eprintln!(
            "  {kind}: {} queries, MRR@10 {:.3}, recall@10 {:.3}, {} misses",
            figures.queries, figures.mrr_at_10, figures.recall_at_10, figures.misses
        );
    }
    for miss in report.misses.iter().take(20) {
        eprintln!("  miss: {miss}");
    }
    let mut failed = Vec::new();
    for kind in Kind::ALL {
        let figures = &report.kinds[kind.as_str()];
        assert!(
            figures.queries >= MIN_QUERIES,
            "{} {} queries",
            figures.queries,
            kind.as_str()
        );
        if kind == Kind::QuestionTemplate {
            continue;
        }
        let target = if kind.is_typo() { TYPO_MRR } else { EXACT_MRR };
        if figures.mrr_at_10 < target {
            failed.push(format!(
                "{}: MRR@10 {:.3} < {target}",
                kind.as_str(),
                figures.mrr_at_10
            ));
        }
    }
    assert!(failed.is_empty(), "below target: {}", failed.join("; "));
}
