//! Benchmark tools of forumdex (BENCHMARKS.md, `scripts/bench.sh`).
//!
//! - `fdx-load`: a closed-loop HTTP/1.1 load generator (keep-alive connections, a fixed
//!   number of them, each sending its next request when the previous answer arrived), run as
//!   a second process beside `forumdex serve`. It prints requests/s and latency percentiles
//!   as one JSON line per scenario, and samples the server's resident memory while it runs.
//! - `fdx-engine`: the same search queries without forumdex around them: on the very same
//!   tantivy indexes (no HTTP, no authentication, no billing, no re-ranking) and on a SQLite
//!   FTS5 table built from the same posts.
//! - `fdx-queries`: known-item queries generated from a corpus file ([`known_items`]), for
//!   `forumdex relevance --queries` (BENCHMARKS.md "Known-item relevance").
//!
//! The library holds what the load tools share: the query set ([`queries`]), percentiles
//! ([`Latencies`]), the minimal HTTP client ([`http`]) and `/proc` memory readings ([`rss`]);
//! and the query generator, [`known_items`].

pub mod http;
pub mod known_items;
pub mod rss;

use std::time::Duration;

/// The benchmark's search queries (`queries.tsv`): `(query, language)`, `None` meaning every
/// index.
pub fn queries() -> Vec<(String, Option<String>)> {
    parse_queries(include_str!("../queries.tsv"), None)
}

/// The queries of a query file: lines of tab-separated columns whose first two are the
/// query and its language (`-` for every index), as `queries.tsv` and `forumdex relevance`'s
/// files have them (further columns are ignored; `#` lines are comments). `lang` replaces
/// every line's language when given (`-` for every index).
pub fn query_file(
    path: &std::path::Path,
    lang: Option<&str>,
) -> anyhow::Result<Vec<(String, Option<String>)>> {
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let queries = parse_queries(&text, lang);
    anyhow::ensure!(!queries.is_empty(), "{}: no query", path.display());
    Ok(queries)
}

fn parse_queries(text: &str, lang: Option<&str>) -> Vec<(String, Option<String>)> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            let mut columns = line.split('\t');
            let q = columns.next()?;
            let lang = lang.or(columns.next())?.trim();
            Some((q.to_owned(), (lang != "-").then(|| lang.to_owned())))
        })
        .collect()
}

/// Latencies of one scenario, in microseconds, with exact percentiles (they are sorted once).
#[derive(Debug, Default, Clone)]
pub struct Latencies {
    micros: Vec<u32>,
}

impl Latencies {
    /// Records one latency.
    pub fn record(&mut self, latency: Duration) {
        self.micros
            .push(u32::try_from(latency.as_micros()).unwrap_or(u32::MAX));
    }

    /// Adds every latency of `other`.
    pub fn merge(&mut self, other: Latencies) {
        self.micros.extend(other.micros);
    }

    /// Latencies recorded.
    pub fn len(&self) -> usize {
        self.micros.len()
    }

    /// Whether none was recorded.
    pub fn is_empty(&self) -> bool {
        self.micros.is_empty()
    }

    /// The `q` quantile (0..=1) in milliseconds, nearest rank; 0 when empty.
    pub fn quantile_ms(&mut self, q: f64) -> f64 {
        if self.micros.is_empty() {
            return 0.0;
        }
        self.micros.sort_unstable();
        let rank = ((self.micros.len() as f64 * q).ceil() as usize).clamp(1, self.micros.len());
        f64::from(self.micros[rank - 1]) / 1000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank() {
        let mut l = Latencies::default();
        for ms in 1..=1000u64 {
            l.record(Duration::from_millis(ms));
        }
        assert_eq!(l.quantile_ms(0.5), 500.0);
        assert_eq!(l.quantile_ms(0.99), 990.0);
        assert_eq!(l.quantile_ms(0.999), 999.0);
        assert_eq!(l.quantile_ms(1.0), 1000.0);
    }

    #[test]
    fn the_query_set_parses() {
        let q = queries();
        assert!(q.len() >= 20);
        assert!(q.iter().any(|(_, lang)| lang.as_deref() == Some("ru")));
    }
}
