//! `forumdex relevance --queries FILE`: MRR@10 and recall@10 of post search over a query
//! set, against the search indexes of the data folder (import and sync the corpus first).
//!
//! The file is tab-separated: `query`, `lang` (empty or `-` for every index), expected post
//! IDs separated by commas. Lines starting with `#` and blank lines are skipped.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use forumdex_search::{LangCode, SearchIndexes, SearchRequest, search};
use serde::Serialize;

use crate::cli::GlobalArgs;
use crate::commands::storage;
use crate::output::print_json;

/// Cut-off rank of the figures.
const K: usize = 10;

/// Arguments of `forumdex relevance`.
#[derive(Debug, Args)]
pub struct RelevanceArgs {
    /// The query set (TSV: query, lang, expected post IDs).
    #[arg(long)]
    pub queries: PathBuf,
    /// Sync the indexes with the corpus before measuring.
    #[arg(long)]
    pub sync: bool,
}

/// The figures.
#[derive(Debug, Serialize)]
pub struct RelevanceReport {
    /// Queries measured.
    pub queries: usize,
    /// Mean reciprocal rank of the first expected post within the top 10.
    pub mrr_at_10: f64,
    /// Mean share of expected posts found in the top 10.
    pub recall_at_10: f64,
    /// Queries with no expected post in the top 10.
    pub misses: Vec<String>,
}

/// Runs `forumdex relevance`.
pub fn run(global: &GlobalArgs, args: RelevanceArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.queries)
        .with_context(|| format!("cannot read {}", args.queries.display()))?;
    let storage = storage(global)?;
    let indexes = SearchIndexes::open(storage.data_dir()).context("opening the search indexes")?;
    if args.sync {
        let corpus = storage.corpus()?;
        indexes
            .sync(corpus.read.as_ref())
            .context("syncing the search indexes")?;
    }
    let mut reciprocal = 0.0;
    let mut recall = 0.0;
    let mut misses = Vec::new();
    let mut count = 0;
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let columns: Vec<&str> = line.split('\t').collect();
        let [query, lang, expected] = columns[..] else {
            anyhow::bail!(
                "{}:{}: expected 3 tab-separated columns",
                args.queries.display(),
                number + 1
            );
        };
        let expected: Vec<i64> = expected
            .split(',')
            .map(|id| id.trim().parse())
            .collect::<Result<_, _>>()
            .with_context(|| format!("{}:{}: bad post id", args.queries.display(), number + 1))?;
        let mut request = SearchRequest::new(query);
        request.limit = K;
        request.lang = match lang.trim() {
            "" | "-" => None,
            code => Some(LangCode::parse(code).with_context(|| {
                format!(
                    "{}:{}: bad lang {code:?}",
                    args.queries.display(),
                    number + 1
                )
            })?),
        };
        let results = search(&indexes, &request)?;
        let ranks: Vec<usize> = results
            .hits
            .iter()
            .enumerate()
            .filter(|(_, h)| expected.contains(&h.post_id))
            .map(|(rank, _)| rank + 1)
            .collect();
        count += 1;
        match ranks.first() {
            Some(&first) => reciprocal += 1.0 / first as f64,
            None => misses.push(query.to_owned()),
        }
        recall += ranks.len() as f64 / expected.len().max(1) as f64;
    }
    let n = count.max(1) as f64;
    let report = RelevanceReport {
        queries: count,
        mrr_at_10: (reciprocal / n * 1000.0).round() / 1000.0,
        recall_at_10: (recall / n * 1000.0).round() / 1000.0,
        misses,
    };
    if global.json {
        print_json(&report)
    } else {
        println!(
            "{} queries: MRR@10 {:.3}, recall@10 {:.3}",
            report.queries, report.mrr_at_10, report.recall_at_10
        );
        for miss in &report.misses {
            println!("  miss: {miss}");
        }
        Ok(())
    }
}
