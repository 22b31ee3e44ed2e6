//! `fdx-engine`: the benchmark's search queries without forumdex around them.
//!
//! ```text
//! fdx-engine tantivy    --data DIR [--threads 2] [--seconds 20]
//! fdx-engine fts5-build --data DIR            builds DIR/bench-fts5.sqlite from the corpus
//! fdx-engine fts5       --data DIR [--threads 2] [--seconds 20]
//! fdx-engine forumdex   --data DIR [--threads 2] [--seconds 20]
//! ```
//!
//! With `FDX_SLOWEST=N` set, the N slowest queries of a warm pass go to standard error.
//! Each takes `--queries FILE` (a `forumdex relevance` query file, or any file whose lines
//! are a query and a language) instead of the built-in set, and `--lang CODE` (`-` for
//! every index) to search every query in one language.
//!
//! - **tantivy**: the very indexes forumdex serves (`DIR/search/<lang>/`, with forumdex's
//!   analyzers), queried the plain way: the words OR-ed over `title_text` and `content`
//!   (tantivy's `QueryParser`), every index of the query's language set (all without
//!   `lang`), `Count` + top 20 by BM25, merged by score, the 20 stored documents loaded and
//!   a `<mark>`ed snippet made of title and content. This is the engine's limit for the
//!   same answer: no HTTP, no authentication, no billing, no quality filter, no re-ranking.
//! - **fts5**: what one would build instead: an SQLite FTS5 table (`unicode61`, diacritics
//!   removed; title of opening posts and plain-text content) over the same canonical posts,
//!   queried with the words OR-ed, `count(*)` for the total and the best 20 by `bm25` with a
//!   `snippet()`.
//!
//! - **forumdex**: forumdex's own search in process (`forumdex_search::search` with the
//!   API's defaults: tiers, re-rank, quality filter, spelling, highlights, and the semantic
//!   leg with the bundled model unless `FDX_LEXICAL` is set), without HTTP,
//!   authentication or billing.
//!
//! Each runs `threads` threads in a closed loop over the query set for `seconds` and print
//! one JSON line: queries/s, latency percentiles and the CPU time spent per query (which,
//! unlike queries/s, other work on the machine does not inflate).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use forumdex_bench::{Latencies, queries, query_file, rss};
use forumdex_corpus::text::html_to_text;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{Query, QueryParser};
use tantivy::schema::{Field, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument};

/// The allocator `forumdex` uses, so that engine and server are compared on equal terms.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_default();
    let mut options: HashMap<String, String> = HashMap::new();
    while let Some(name) = args.next() {
        let name = name
            .strip_prefix("--")
            .with_context(|| format!("unexpected argument {name}"))?
            .to_owned();
        let value = args
            .next()
            .with_context(|| format!("--{name} needs a value"))?;
        options.insert(name, value);
    }
    let data = PathBuf::from(options.get("data").context("--data is required")?);
    let number = |name: &str, default: u64| -> anyhow::Result<u64> {
        options
            .get(name)
            .map_or(Ok(default), |v| v.parse().context("not a number"))
    };
    let threads = number("threads", 2)? as usize;
    let seconds = number("seconds", 20)?;
    let lang = options.get("lang").map(String::as_str);
    let queries = match options.get("queries") {
        Some(file) => query_file(Path::new(file), lang)?,
        None => queries(),
    };
    match command.as_str() {
        "tantivy" => {
            let engine = Tantivy::open(&data)?;
            measure(
                "bare-tantivy",
                &queries,
                threads,
                seconds,
                || (),
                |(), q, lang| engine.search(q, lang),
            )
        }
        "fts5-build" => fts5_build(&data),
        "fts5" => {
            let file = data.join(FTS_FILE);
            anyhow::ensure!(file.is_file(), "run fts5-build first");
            measure(
                "sqlite-fts5",
                &queries,
                threads,
                seconds,
                || {
                    rusqlite::Connection::open_with_flags(
                        &file,
                        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
                    )
                    .expect("the FTS5 database opens")
                },
                fts5_search,
            )
        }
        "forumdex" => {
            let indexes = forumdex_search::SearchIndexes::open(&data)?;
            // The server's search: hybrid with the bundled model (vectors read from the data
            // folder, or made first) unless FDX_LEXICAL is set.
            if std::env::var_os("FDX_LEXICAL").is_none() {
                let path = forumdex_search::semantic::bundled_model_path();
                let semantic = forumdex_search::semantic::load(&path, &data, None)
                    .context("the bundled semantic model")?;
                semantic.embed_missing(&indexes, &mut |_| {})?;
                indexes.attach_semantic(semantic);
            }
            measure(
                "forumdex-search",
                &queries,
                threads,
                seconds,
                || (),
                |(), q, lang| {
                    let mut request = forumdex_search::SearchRequest::new(q);
                    request.lang = lang.and_then(forumdex_search::LangCode::parse);
                    Ok(forumdex_search::search(&indexes, &request)?.total)
                },
            )
        }
        _ => bail!(
            "usage: fdx-engine tantivy|fts5-build|fts5|forumdex --data DIR [--threads N] \
             [--seconds S] [--queries FILE] [--lang CODE]"
        ),
    }
}

/// Runs `search` over the query set on `threads` threads for `seconds` (after one untimed
/// pass that warms caches) and prints the JSON line. `search` returns the total hits.
fn measure<S>(
    label: &str,
    queries: &[(String, Option<String>)],
    threads: usize,
    seconds: u64,
    state: impl Fn() -> S + Sync,
    search: impl Fn(&mut S, &str, Option<&str>) -> anyhow::Result<u64> + Sync,
) -> anyhow::Result<()> {
    let mut warm = state();
    let mut totals = Vec::new();
    for (q, lang) in queries {
        totals.push(search(&mut warm, q, lang.as_deref())?);
    }
    if let Ok(count) = std::env::var("FDX_SLOWEST") {
        // The slowest queries of a second, warm pass, on standard error.
        let mut timed = Vec::new();
        for (q, lang) in queries {
            let started = Instant::now();
            search(&mut warm, q, lang.as_deref())?;
            timed.push((started.elapsed(), q));
        }
        timed.sort_by_key(|t| std::cmp::Reverse(t.0));
        for (took, q) in timed.iter().take(count.parse().unwrap_or(20)) {
            eprintln!("{:>8.2} ms  {q}", took.as_secs_f64() * 1e3);
        }
    }
    let cpu_at_start = rss::cpu_seconds(0).unwrap_or(0.0);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut all = Latencies::default();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (state, search) = (&state, &search);
                scope.spawn(move || -> anyhow::Result<Latencies> {
                    let mut s = state();
                    let mut latencies = Latencies::default();
                    let mut next = t * queries.len() / threads.max(1);
                    loop {
                        let started = Instant::now();
                        if started >= deadline {
                            break;
                        }
                        let (q, lang) = &queries[next % queries.len()];
                        next += 1;
                        search(&mut s, q, lang.as_deref())?;
                        latencies.record(started.elapsed());
                    }
                    Ok(latencies)
                })
            })
            .collect();
        for handle in handles {
            all.merge(handle.join().expect("a search thread panicked")?);
        }
        Ok(())
    })?;
    let cpu = rss::cpu_seconds(0).unwrap_or(0.0) - cpu_at_start;
    let requests = all.len();
    let report = serde_json::json!({
        "cpu_ms_per_query": (cpu * 1e6 / requests.max(1) as f64).round() / 1000.0,
        "label": label,
        "threads": threads,
        "seconds": seconds,
        "requests": requests,
        "rps": (requests as f64 / seconds as f64).round(),
        "p50_ms": all.quantile_ms(0.5),
        "p99_ms": all.quantile_ms(0.99),
        "p999_ms": all.quantile_ms(0.999),
        "max_ms": all.quantile_ms(1.0),
        "totals": totals,
    });
    println!("{report}");
    Ok(())
}

/// Every language index of a data folder, opened read-only with forumdex's analyzers.
struct Tantivy {
    indexes: Vec<(String, Index, IndexReader)>,
}

impl Tantivy {
    fn open(data: &Path) -> anyhow::Result<Self> {
        let mut indexes = Vec::new();
        let root = data.join("search");
        let mut keys: Vec<String> = std::fs::read_dir(&root)
            .with_context(|| format!("{}", root.display()))?
            .flatten()
            .filter(|e| e.path().join("meta.json").is_file())
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .collect();
        keys.sort();
        for key in keys {
            let index = Index::open_in_dir(root.join(&key))?;
            forumdex_search::analysis::register(&index, &key);
            let reader = index
                .reader_builder()
                .reload_policy(ReloadPolicy::Manual)
                .try_into()?;
            indexes.push((key, index, reader));
        }
        anyhow::ensure!(!indexes.is_empty(), "no index under {}", root.display());
        Ok(Self { indexes })
    }

    fn search(&self, q: &str, lang: Option<&str>) -> anyhow::Result<u64> {
        let mut total = 0u64;
        let mut hits = Vec::new();
        let mut searched = Vec::new();
        for (key, index, reader) in &self.indexes {
            if lang.is_some_and(|l| l != key) {
                continue;
            }
            let schema = index.schema();
            let field = |name: &str| schema.get_field(name).expect("forumdex's schema");
            let (title, content) = (field("title_text"), field("content"));
            let parser = QueryParser::for_index(index, vec![title, content]);
            let (query, _) = parser.parse_query_lenient(q);
            let searcher = reader.searcher();
            let (count, top) =
                searcher.search(&query, &(Count, TopDocs::with_limit(20).order_by_score()))?;
            total += count as u64;
            let at = searched.len();
            hits.extend(top.into_iter().map(|(score, address)| (score, at, address)));
            searched.push((searcher, query, title, content, field("title")));
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0));
        hits.truncate(20);
        let mut generators: HashMap<(usize, Field), SnippetGenerator> = HashMap::new();
        for (_, at, address) in hits {
            let (searcher, query, title_text, content, title) = &searched[at];
            let doc: TantivyDocument = searcher.doc(address)?;
            for (field, source, chars) in [(*title_text, *title, 300), (*content, *content, 200)] {
                let text = doc.get_first(source).and_then(|v| v.as_str()).unwrap_or("");
                let generator = match generators.entry((at, field)) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        let mut g = SnippetGenerator::create(searcher, query as &dyn Query, field)?;
                        g.set_max_num_chars(chars);
                        e.insert(g)
                    }
                };
                let mut snippet = generator.snippet(text);
                snippet.set_snippet_prefix_postfix("<mark>", "</mark>");
                std::hint::black_box(snippet.to_html());
            }
        }
        Ok(total)
    }
}

const FTS_FILE: &str = "bench-fts5.sqlite";

/// Builds the FTS5 table from the corpus's canonical posts.
fn fts5_build(data: &Path) -> anyhow::Result<()> {
    let file = data.join(FTS_FILE);
    let _ = std::fs::remove_file(&file);
    let started = Instant::now();
    let corpus = rusqlite::Connection::open_with_flags(
        data.join("corpus.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )?;
    let mut fts = rusqlite::Connection::open(&file)?;
    fts.execute_batch(
        "PRAGMA journal_mode = WAL;
         CREATE VIRTUAL TABLE posts USING fts5(title, content,
             tokenize = 'unicode61 remove_diacritics 2');",
    )?;
    let tx = fts.transaction()?;
    let mut rows = 0u64;
    {
        let mut insert =
            tx.prepare("INSERT INTO posts (rowid, title, content) VALUES (?1, ?2, ?3)")?;
        let mut select = corpus.prepare(
            "SELECT post_id, CASE WHEN is_op = 1 THEN title ELSE '' END, content_html
             FROM post_versions WHERE valid_to IS NULL",
        )?;
        let mut cursor = select.query([])?;
        while let Some(row) = cursor.next()? {
            let id: i64 = row.get(0)?;
            let title: String = row.get(1)?;
            let html: String = row.get(2)?;
            insert.execute(rusqlite::params![id, title, html_to_text(&html)])?;
            rows += 1;
        }
    }
    tx.commit()?;
    fts.execute_batch("INSERT INTO posts (posts) VALUES ('optimize');")?;
    let report = serde_json::json!({
        "label": "fts5-build",
        "posts": rows,
        "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        "bytes": std::fs::metadata(&file)?.len(),
    });
    println!("{report}");
    Ok(())
}

/// One FTS5 search: the total and the best 20 with a snippet.
fn fts5_search(
    conn: &mut rusqlite::Connection,
    q: &str,
    _lang: Option<&str>,
) -> anyhow::Result<u64> {
    let words: Vec<String> = q
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{w}\""))
        .collect();
    if words.is_empty() {
        return Ok(0);
    }
    let matcher = words.join(" OR ");
    let total: i64 = conn
        .prepare_cached("SELECT count(*) FROM posts WHERE posts MATCH ?1")?
        .query_row([&matcher], |row| row.get(0))?;
    let mut stmt = conn.prepare_cached(
        "SELECT rowid, title, content, snippet(posts, 1, '<mark>', '</mark>', '…', 32)
         FROM posts WHERE posts MATCH ?1 ORDER BY rank LIMIT 20",
    )?;
    let mut rows = stmt.query([&matcher])?;
    while let Some(row) = rows.next()? {
        let (content, snippet): (String, String) = (row.get(2)?, row.get(3)?);
        std::hint::black_box((content, snippet));
    }
    Ok(u64::try_from(total).unwrap_or(0))
}
