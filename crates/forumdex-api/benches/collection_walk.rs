//! Collection pages at any depth: walks the largest topic of a generated corpus page by page
//! over HTTP (limit 100, both orders) and prints per-page latency at the start and at the
//! end of the walk. A keyset page should cost the same at page 1 and page 1,000.
//!
//! `cargo bench -p forumdex-api --bench collection_walk` (posts: `FORUMDEX_BENCH_POSTS`,
//! default 1,000,000, whose largest topic holds 100,000 posts; data folder:
//! `FORUMDEX_BENCH_DATA`, reused when it already holds a corpus).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use forumdex_accounts::{AccountStore, Email, NewKey};
use forumdex_api::Server;
use forumdex_corpus::CorpusRead;
use forumdex_generate::{GenerateConfig, generate};
use forumdex_ingest::source::Source;
use forumdex_ingest::{ImportOptions, import_files};
use forumdex_settings::Settings;
use forumdex_sqlite::{SqliteAccountStore, SqliteCorpusStore};

fn main() -> anyhow::Result<()> {
    let posts: u64 = std::env::var("FORUMDEX_BENCH_POSTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let keep = std::env::var("FORUMDEX_BENCH_DATA").ok().map(PathBuf::from);
    let temp = tempfile::tempdir()?;
    let data = keep.unwrap_or_else(|| temp.path().to_path_buf());
    prepare_corpus(&data, posts)?;
    let topic = largest_topic(&data)?;
    println!("largest topic {} holds {} posts", topic.0, topic.1);
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(walk(&data, topic.0))
}

fn prepare_corpus(data: &std::path::Path, posts: u64) -> anyhow::Result<()> {
    let store = SqliteCorpusStore::open(data)?;
    if store.latest_seq()? > 0 {
        println!("reusing the corpus in {}", data.display());
        return Ok(());
    }
    let file = data.join("bench-corpus.jsonl");
    let started = Instant::now();
    generate(&GenerateConfig { posts, seed: 1 }, &file)?;
    println!(
        "generated {posts} posts in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let summary = import_files(
        &store,
        &[Source::File(file.clone())],
        &ImportOptions {
            batch_size: 5_000,
            progress: false,
            ..ImportOptions::default()
        },
        |_| {},
    )?;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "imported {} post records in {seconds:.1} s ({:.0} posts/s)",
        summary.posts,
        summary.posts as f64 / seconds
    );
    std::fs::remove_file(file)?;
    Ok(())
}

fn largest_topic(data: &std::path::Path) -> anyhow::Result<(i64, i64)> {
    let conn = rusqlite::Connection::open(data.join(SqliteCorpusStore::FILE_NAME))?;
    Ok(conn.query_row(
        "SELECT topic_id, COUNT(*) FROM post_versions WHERE valid_to IS NULL
         GROUP BY topic_id ORDER BY 2 DESC LIMIT 1",
        [],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?)
}

async fn walk(data: &std::path::Path, topic: i64) -> anyhow::Result<()> {
    let settings = Settings::load(
        None,
        vec![],
        &[
            ("listen", "127.0.0.1:0".to_owned()),
            ("rate_limit_per_minute", "100000000".to_owned()),
        ],
    )?;
    let accounts = SqliteAccountStore::open_in(data)?;
    let now = forumdex_clock::Clock::now(&forumdex_clock::SystemClock);
    let account = accounts.create_account(&Email::parse("bench@example.com")?, 10_000_000, now)?;
    let key = accounts.create_key(account, &NewKey::default(), now)?;
    let server = Server::build(settings, data).await?;
    let base = format!("http://{}", server.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.run_until_stopped(async {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::new();
    for order in ["asc", "desc"] {
        let mut latencies: Vec<Duration> = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = 0usize;
        loop {
            let url = match &cursor {
                None => format!("{base}/api/v1/topics/{topic}/posts?limit=100&order={order}"),
                Some(c) => format!("{base}/api/v1/topics/{topic}/posts?cursor={c}"),
            };
            let started = Instant::now();
            let response = client
                .get(url)
                .bearer_auth(key.secret.expose_secret())
                .send()
                .await?;
            anyhow::ensure!(response.status() == 200, "status {}", response.status());
            let page: serde_json::Value = response.json().await?;
            latencies.push(started.elapsed());
            seen += page["data"].as_array().map_or(0, Vec::len);
            cursor = page["next_cursor"].as_str().map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        let pages = latencies.len();
        let window = 100.min(pages);
        println!(
            "order={order}: {seen} posts in {pages} pages; first {window} pages {}; last {window} pages {}",
            summary(&latencies[..window]),
            summary(&latencies[pages - window..])
        );
    }
    let _ = stop.send(());
    serving.await??;
    Ok(())
}

fn summary(latencies: &[Duration]) -> String {
    let mut ms: Vec<f64> = latencies.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    let pick = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    format!(
        "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        pick(0.5),
        pick(0.99),
        pick(1.0)
    )
}
