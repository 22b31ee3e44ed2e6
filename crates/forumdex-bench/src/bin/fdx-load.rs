//! `fdx-load`: the HTTP side of the benchmark (see `scripts/bench.sh`).
//!
//! ```text
//! fdx-load paths --data DIR --out DIR            search.paths, lookups.paths, topic.txt
//!                [--queries FILE] [--lang CODE]  search.paths of a query file (see fdx-engine)
//! fdx-load walk  --addr A --key K --topic T --out DIR [--keep 50]
//!                                                pages-start.paths, pages-end.paths (cursors)
//! fdx-load run   --addr A --key K --paths FILE [--concurrency 8] [--seconds 20]
//!                [--warmup 3] [--pid PID] [--label NAME] [--reconnect yes]
//! ```
//!
//! `run` keeps `concurrency` keep-alive connections busy (closed loop: each sends its next
//! request when the previous answer arrived), cycling through the paths of the file, and
//! prints one JSON line: requests/s, non-200 answers, p50/p99/p99.9/max latency in ms, the
//! CPU time the server (process `pid`) and this client spent per request while measuring
//! (a figure that other work on the machine does not inflate, unlike requests/s), and the
//! largest resident memory of the server, sampled every 100 ms. It also counts the answers
//! by status. With `--reconnect yes` (the soak run, where a node is killed and restarted) a
//! connection that fails is counted under `connection_errors` and opened again after 100 ms,
//! instead of ending the run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use forumdex_bench::http::Connection;
use forumdex_bench::{Latencies, queries, query_file, rss};
use rand::seq::SliceRandom;
use rand::{SeedableRng, rngs::StdRng};

/// The allocator `forumdex` uses, so that engine and server are compared on equal terms.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_default();
    let options = Options::parse(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    match command.as_str() {
        "paths" => paths(&options),
        "walk" => runtime.block_on(walk(&options)),
        "run" => runtime.block_on(run(&options)),
        _ => bail!("usage: fdx-load paths|walk|run --name value ... (see the source's header)"),
    }
}

/// `--name value` pairs.
struct Options(HashMap<String, String>);

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let mut map = HashMap::new();
        while let Some(name) = args.next() {
            let Some(name) = name.strip_prefix("--") else {
                bail!("unexpected argument {name}");
            };
            let value = args
                .next()
                .with_context(|| format!("--{name} needs a value"))?;
            map.insert(name.to_owned(), value);
        }
        Ok(Self(map))
    }

    fn get(&self, name: &str) -> anyhow::Result<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .with_context(|| format!("--{name} is required"))
    }

    fn number(&self, name: &str, default: u64) -> anyhow::Result<u64> {
        match self.0.get(name) {
            None => Ok(default),
            Some(v) => v.parse().with_context(|| format!("--{name}: not a number")),
        }
    }
}

/// Writes the search and lookup paths and the largest topic's id.
fn paths(options: &Options) -> anyhow::Result<()> {
    let data = PathBuf::from(options.get("data")?);
    let out = PathBuf::from(options.get("out")?);
    std::fs::create_dir_all(&out)?;
    let queries = match options.0.get("queries") {
        Some(file) => query_file(Path::new(file), options.0.get("lang").map(String::as_str))?,
        None => queries(),
    };
    let mut search = String::new();
    for (q, lang) in &queries {
        let mut url = form_urlencoded::Serializer::new(String::new());
        url.append_pair("q", q);
        if let Some(lang) = lang {
            url.append_pair("lang", lang);
        }
        search.push_str(&format!("/api/v1/search?{}\n", url.finish()));
    }
    std::fs::write(out.join("search.paths"), search)?;
    let conn = rusqlite::Connection::open_with_flags(
        data.join("corpus.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )?;
    let ids = |sql: &str| -> anyhow::Result<Vec<i64>> {
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map([], |row| row.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    };
    // Random existing documents: posts, topics and profiles, 1,000 each, shuffled together.
    let mut lookups: Vec<String> = Vec::new();
    for (table, column, route) in [
        ("post_versions", "post_id", "posts"),
        ("topic_versions", "topic_id", "topics"),
        ("profile_versions", "profile_id", "profiles"),
    ] {
        let sql = format!(
            "SELECT {column} FROM {table} WHERE valid_to IS NULL ORDER BY random() LIMIT 1000"
        );
        lookups.extend(
            ids(&sql)?
                .into_iter()
                .map(|id| format!("/api/v1/{route}/{id}")),
        );
    }
    lookups.shuffle(&mut StdRng::seed_from_u64(1));
    std::fs::write(out.join("lookups.paths"), lookups.join("\n") + "\n")?;
    let (topic, posts): (i64, i64) = conn.query_row(
        "SELECT topic_id, COUNT(*) FROM post_versions WHERE valid_to IS NULL
         GROUP BY topic_id ORDER BY 2 DESC LIMIT 1",
        [],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    std::fs::write(out.join("topic.txt"), format!("{topic} {posts}\n"))?;
    eprintln!(
        "wrote {} search paths, {} lookup paths; largest topic {topic} holds {posts} posts",
        queries.len(),
        lookups.len()
    );
    Ok(())
}

/// Walks the topic (100 posts a page, oldest first) and keeps the cursor paths of the first
/// and the last `keep` pages after the first page.
async fn walk(options: &Options) -> anyhow::Result<()> {
    let addr = options.get("addr")?;
    let key = options.get("key")?;
    let topic = options.get("topic")?;
    let out = PathBuf::from(options.get("out")?);
    let keep = options.number("keep", 50)? as usize;
    let mut conn = Connection::open(addr).await?;
    let mut path = format!("/api/v1/topics/{topic}/posts?limit=100");
    let mut pages: Vec<String> = Vec::new();
    let started = Instant::now();
    loop {
        let response = conn.get(&path, key).await?;
        if response.status != 200 {
            bail!(
                "{path}: status {}: {}",
                response.status,
                String::from_utf8_lossy(&response.body)
            );
        }
        let page: serde_json::Value = serde_json::from_slice(&response.body)?;
        let Some(cursor) = page["next_cursor"].as_str() else {
            break;
        };
        let cursor: String = form_urlencoded::byte_serialize(cursor.as_bytes()).collect();
        path = format!("/api/v1/topics/{topic}/posts?cursor={cursor}");
        pages.push(path.clone());
    }
    // The last cursor may point past the end (an empty page): leave it out.
    pages.pop();
    anyhow::ensure!(pages.len() >= 2 * keep, "the topic has too few pages");
    write_paths(&out.join("pages-start.paths"), &pages[..keep])?;
    write_paths(&out.join("pages-end.paths"), &pages[pages.len() - keep..])?;
    eprintln!(
        "walked {} pages of topic {topic} in {:.1} s",
        pages.len() + 1,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn write_paths(file: &Path, paths: &[String]) -> anyhow::Result<()> {
    Ok(std::fs::write(file, paths.join("\n") + "\n")?)
}

/// The closed-loop load: see the module header.
async fn run(options: &Options) -> anyhow::Result<()> {
    let addr = options.get("addr")?.to_owned();
    let key = Arc::new(options.get("key")?.to_owned());
    let file = options.get("paths")?;
    let label = options
        .0
        .get("label")
        .cloned()
        .unwrap_or_else(|| file.into());
    let concurrency = options.number("concurrency", 8)? as usize;
    let seconds = options.number("seconds", 20)?;
    let warmup = options.number("warmup", 3)?;
    let pid = options.0.get("pid").map(|p| p.parse::<u32>()).transpose()?;
    let reconnect = match options.0.get("reconnect").map(String::as_str) {
        None | Some("no") => false,
        Some("yes") => true,
        Some(other) => bail!("--reconnect: yes or no, got {other}"),
    };
    let paths: Arc<Vec<String>> = Arc::new(
        std::fs::read_to_string(file)?
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
    );
    anyhow::ensure!(!paths.is_empty(), "{file} holds no paths");
    let started = Instant::now();
    let measure_from = started + Duration::from_secs(warmup);
    let stop_at = measure_from + Duration::from_secs(seconds);
    let failures = Arc::new(AtomicU64::new(0));
    let mut workers = Vec::new();
    for worker in 0..concurrency {
        let (addr, key, paths, failures) = (
            addr.clone(),
            Arc::clone(&key),
            Arc::clone(&paths),
            Arc::clone(&failures),
        );
        workers.push(tokio::spawn(async move {
            let mut conn: Option<Connection> = None;
            let mut latencies = Latencies::default();
            let mut statuses = HashMap::<String, u64>::new();
            let mut next = worker * paths.len() / concurrency.max(1);
            loop {
                let path = &paths[next % paths.len()];
                next += 1;
                let sent = Instant::now();
                if sent >= stop_at {
                    break;
                }
                let answer = match conn.as_mut() {
                    Some(open) => open.get(path, &key).await,
                    None => match Connection::open(&addr).await {
                        Ok(open) => conn.insert(open).get(path, &key).await,
                        Err(err) => Err(err),
                    },
                };
                let response = match answer {
                    Ok(response) => response,
                    Err(_) if reconnect => {
                        conn = None;
                        *statuses.entry("connection_errors".to_owned()).or_default() += 1;
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                    Err(err) => return Err(err.into()),
                };
                if sent >= measure_from {
                    *statuses.entry(response.status.to_string()).or_default() += 1;
                    latencies.record(sent.elapsed());
                    if response.status != 200 && failures.fetch_add(1, Ordering::Relaxed) == 0 {
                        eprintln!(
                            "{path}: status {}: {}",
                            response.status,
                            String::from_utf8_lossy(&response.body)
                        );
                    }
                }
            }
            anyhow::Ok((latencies, statuses))
        }));
    }
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let done = Arc::clone(&done);
        tokio::spawn(async move {
            let mut max_rss = 0u64;
            let mut cpu_at_start = None;
            while !done.load(Ordering::Relaxed) {
                if cpu_at_start.is_none() && Instant::now() >= measure_from {
                    cpu_at_start = Some((
                        pid.and_then(rss::cpu_seconds).unwrap_or(0.0),
                        rss::cpu_seconds(0).unwrap_or(0.0),
                    ));
                }
                if let Some((current, _)) = pid.and_then(rss::of) {
                    max_rss = max_rss.max(current);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            let (server_start, client_start) = cpu_at_start.unwrap_or_default();
            let server_cpu = pid.and_then(rss::cpu_seconds).unwrap_or(0.0) - server_start;
            let client_cpu = rss::cpu_seconds(0).unwrap_or(0.0) - client_start;
            (max_rss, server_cpu, client_cpu)
        })
    };
    let mut all = Latencies::default();
    let mut statuses = std::collections::BTreeMap::<String, u64>::new();
    for worker in workers {
        let (latencies, counted) = worker.await??;
        all.merge(latencies);
        for (status, count) in counted {
            *statuses.entry(status).or_default() += count;
        }
    }
    done.store(true, Ordering::Relaxed);
    let (max_rss, server_cpu, client_cpu) = sampler.await?;
    let requests = all.len();
    let per_request_ms =
        |cpu: f64| (cpu * 1000.0 / requests.max(1) as f64 * 1000.0).round() / 1000.0;
    let report = serde_json::json!({
        "label": label,
        "concurrency": concurrency,
        "seconds": seconds,
        "requests": requests,
        "non_200": failures.load(Ordering::Relaxed),
        "statuses": statuses,
        "rps": (requests as f64 / seconds as f64).round(),
        "p50_ms": all.quantile_ms(0.5),
        "p99_ms": all.quantile_ms(0.99),
        "p999_ms": all.quantile_ms(0.999),
        "max_ms": all.quantile_ms(1.0),
        "server_cpu_ms_per_request": pid.map(|_| per_request_ms(server_cpu)),
        "client_cpu_ms_per_request": per_request_ms(client_cpu),
        "server_rss_mib": pid.map(|_| (max_rss as f64 / 1048576.0).round()),
        "server_peak_rss_mib": pid.and_then(rss::of).map(|(_, hwm)| (hwm as f64 / 1048576.0).round()),
    });
    println!("{report}");
    Ok(())
}
