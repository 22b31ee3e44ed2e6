//! `forumdex relevance --queries FILE`: MRR@10 and recall@10 of post search over a query
//! set, against the search indexes of the data folder (import and sync the corpus first),
//! overall and per kind of query. Search is the server's: hybrid, every segment embedded
//! first, unless `semantic_model = "off"` (`FORUMDEX_SEMANTIC_MODEL=off` measures the
//! lexical leg alone).
//!
//! The file is tab-separated: `query`, `lang` (empty or `-` for every index), expected post
//! IDs separated by commas, and optionally a fourth column, the query's `kind` (e.g.
//! `words3`, `typo`; see `fdx-queries` in forumdex-bench); files without it are measured
//! overall only. Lines starting with `#` and blank lines are skipped.
//!
//! [`parse_queries`] and [`evaluate`] are public so that the known-item test of forumdex-bench
//! measures its generated queries exactly as this command does.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use forumdex_search::{Indexer, LangCode, SearchIndexes, SearchRequest, search};
use serde::Serialize;

use crate::commands::settings;
use crate::global::GlobalArgs;
use crate::output::print_json;

/// Cut-off rank of the figures.
const K: usize = 10;

/// Arguments of `forumdex relevance`.
#[derive(Debug, Args)]
pub struct RelevanceArgs {
    /// The query set (TSV: query, lang, expected post IDs, optional kind).
    #[arg(long)]
    pub queries: PathBuf,
    /// Sync the indexes with the corpus before measuring.
    #[arg(long)]
    pub sync: bool,
}

/// One line of a query set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelevanceQuery {
    /// The query as a user types it.
    pub query: String,
    /// The language index to search; `None` searches every index.
    pub lang: Option<LangCode>,
    /// The posts that answer it.
    pub expected: Vec<i64>,
    /// The kind of query (the fourth column), when the file names one.
    pub kind: Option<String>,
}

/// The figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelevanceReport {
    /// Queries measured.
    pub queries: usize,
    /// Mean reciprocal rank of the first expected post within the top 10.
    pub mrr_at_10: f64,
    /// Mean share of expected posts found in the top 10.
    pub recall_at_10: f64,
    /// Queries with no expected post in the top 10.
    pub misses: Vec<String>,
    /// The same figures per kind of query (empty when the file has no kind column).
    pub kinds: BTreeMap<String, KindFigures>,
}

/// The figures of one kind of query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindFigures {
    /// Queries of this kind.
    pub queries: usize,
    /// Mean reciprocal rank of the first expected post within the top 10.
    pub mrr_at_10: f64,
    /// Mean share of expected posts found in the top 10.
    pub recall_at_10: f64,
    /// Queries of this kind with no expected post in the top 10.
    pub misses: usize,
}

/// Sums of reciprocal ranks and recalls, made into means at the end.
#[derive(Debug, Default)]
struct Tally {
    queries: usize,
    reciprocal: f64,
    recall: f64,
    misses: usize,
}

impl Tally {
    fn add(&mut self, reciprocal: f64, recall: f64) {
        self.queries += 1;
        self.reciprocal += reciprocal;
        self.recall += recall;
        if reciprocal == 0.0 {
            self.misses += 1;
        }
    }

    /// The means, rounded to three decimals.
    fn means(&self) -> (f64, f64) {
        let n = self.queries.max(1) as f64;
        let round = |x: f64| (x / n * 1000.0).round() / 1000.0;
        (round(self.reciprocal), round(self.recall))
    }
}

/// Parses a query set; `name` (the file) prefixes the messages of malformed lines.
pub fn parse_queries(text: &str, name: &str) -> anyhow::Result<Vec<RelevanceQuery>> {
    let mut out = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{name}:{}", number + 1);
        let columns: Vec<&str> = line.split('\t').collect();
        let (query, lang, expected, kind) = match columns[..] {
            [query, lang, expected] => (query, lang, expected, None),
            [query, lang, expected, kind] => (query, lang, expected, Some(kind.trim())),
            _ => anyhow::bail!("{}: expected 3 or 4 tab-separated columns", at()),
        };
        let expected: Vec<i64> = expected
            .split(',')
            .map(|id| id.trim().parse())
            .collect::<Result<_, _>>()
            .with_context(|| format!("{}: bad post id", at()))?;
        let lang = match lang.trim() {
            "" | "-" => None,
            code => Some(
                LangCode::parse(code).with_context(|| format!("{}: bad lang {code:?}", at()))?,
            ),
        };
        out.push(RelevanceQuery {
            query: query.to_owned(),
            lang,
            expected,
            kind: kind.filter(|k| !k.is_empty()).map(str::to_owned),
        });
    }
    Ok(out)
}

/// Runs every query (the API's defaults, top 10) and measures where the expected posts rank.
pub fn evaluate(
    indexes: &SearchIndexes,
    queries: &[RelevanceQuery],
) -> anyhow::Result<RelevanceReport> {
    let mut overall = Tally::default();
    let mut kinds: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    for query in queries {
        let mut request = SearchRequest::new(&query.query);
        request.limit = K;
        request.lang = query.lang.clone();
        let results = search(indexes, &request)
            .with_context(|| format!("searching for {:?}", query.query))?;
        let ranks: Vec<usize> = results
            .hits
            .iter()
            .enumerate()
            .filter(|(_, h)| query.expected.contains(&h.post_id))
            .map(|(rank, _)| rank + 1)
            .collect();
        let reciprocal = ranks.first().map_or(0.0, |&first| 1.0 / first as f64);
        let recall = ranks.len() as f64 / query.expected.len().max(1) as f64;
        if ranks.is_empty() {
            misses.push(query.query.clone());
        }
        overall.add(reciprocal, recall);
        if let Some(kind) = &query.kind {
            kinds.entry(kind).or_default().add(reciprocal, recall);
        }
    }
    let (mrr_at_10, recall_at_10) = overall.means();
    Ok(RelevanceReport {
        queries: overall.queries,
        mrr_at_10,
        recall_at_10,
        misses,
        kinds: kinds
            .into_iter()
            .map(|(kind, tally)| {
                let (mrr_at_10, recall_at_10) = tally.means();
                let figures = KindFigures {
                    queries: tally.queries,
                    mrr_at_10,
                    recall_at_10,
                    misses: tally.misses,
                };
                (kind.to_owned(), figures)
            })
            .collect(),
    })
}

/// Runs `forumdex relevance`.
pub fn run(global: &GlobalArgs, args: RelevanceArgs) -> anyhow::Result<()> {
    let name = args.queries.display().to_string();
    let text =
        std::fs::read_to_string(&args.queries).with_context(|| format!("cannot read {name}"))?;
    let queries = parse_queries(&text, &name)?;
    let settings = settings(global, &[])?;
    let storage = settings.storage.factory(&global.data);
    let indexes =
        Arc::new(SearchIndexes::open(storage.data_dir()).context("opening the search indexes")?);
    if args.sync {
        let corpus = storage.corpus()?;
        Indexer::new(Arc::clone(&indexes), corpus.read)
            .catch_up()
            .context("syncing the search indexes")?;
    }
    // The server's search: with the semantic leg unless `semantic_model = "off"`, every
    // segment embedded first.
    if let Some(semantic) = forumdex_api::app::semantic_leg(&settings, &storage) {
        semantic
            .embed_missing(&indexes, &mut |_| {})
            .context("embedding posts")?;
        indexes.attach_semantic(semantic);
    }
    let report = evaluate(&indexes, &queries)?;
    if global.json {
        return print_json(&report);
    }
    println!(
        "{} queries: MRR@10 {:.3}, recall@10 {:.3}",
        report.queries, report.mrr_at_10, report.recall_at_10
    );
    for (kind, figures) in &report.kinds {
        println!(
            "  {kind}: {} queries, MRR@10 {:.3}, recall@10 {:.3}, {} misses",
            figures.queries, figures.mrr_at_10, figures.recall_at_10, figures.misses
        );
    }
    for miss in &report.misses {
        println!("  miss: {miss}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_sets_with_and_without_a_kind_column_parse() {
        let text = "# query\tlang\texpected\n\
                    alpha beta\t-\t12\n\
                    \n\
                    gamma delta\tru\t3, 4\tword\n\
                    epsilon\t\t5\t\n";
        let queries = parse_queries(text, "q.tsv").unwrap();
        assert_eq!(queries.len(), 3);
        assert_eq!(queries[0].kind, None);
        assert_eq!(queries[0].lang, None);
        assert_eq!(queries[1].expected, vec![3, 4]);
        assert_eq!(queries[1].kind.as_deref(), Some("word"));
        assert_eq!(queries[1].lang.as_ref().map(LangCode::as_str), Some("ru"));
        assert_eq!(queries[2].kind, None);
    }

    #[test]
    fn malformed_lines_name_the_file_and_line() {
        let err = parse_queries("a\tb\n", "q.tsv").unwrap_err().to_string();
        assert!(err.starts_with("q.tsv:1:"), "{err}");
        let err = parse_queries("# c\nq\t-\tx\n", "q.tsv")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "q.tsv:2: bad post id");
        let err = parse_queries("q\t-\t1\tk\textra\n", "q.tsv").unwrap_err();
        assert!(err.to_string().contains("3 or 4"), "{err}");
    }

    #[test]
    fn tallies_are_means_rounded_to_three_decimals() {
        let mut tally = Tally::default();
        tally.add(1.0, 1.0);
        tally.add(0.5, 0.5);
        tally.add(0.0, 0.0);
        assert_eq!(tally.means(), (0.5, 0.5));
        assert_eq!(tally.misses, 1);
        assert_eq!(Tally::default().means(), (0.0, 0.0));
    }
}
