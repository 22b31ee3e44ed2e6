//! Times topic lookups on a real corpus, in process: imports corpus lines from stdin into a
//! temporary data folder in batches of 5,000 (as `forumdex import` cuts them), then calls
//! `CorpusRead::topic` on the largest topic and on random topics, on 1 and 2 threads, and
//! prints requests/s with p50/p99 for each, plus a digest of every topic document at the
//! latest sequence and at the middle one (equal digests: the same answers).
//!
//! ```sh
//! zcat ../shared/data/bitcointalk-sample.jsonl.gz \
//!   | cargo run --release -p forumdex-sqlite --example topic_lookups -- [SECONDS]
//! ```

use std::collections::HashMap;
use std::io::BufRead;
use std::time::{Duration, Instant};

use forumdex_corpus::{CorpusRead, CorpusWrite, Millis, Observation, Record};
use forumdex_sqlite::SqliteCorpusStore;
use sha2::{Digest, Sha256};

const BATCH: usize = 5_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: u64 = match std::env::args().nth(1) {
        Some(text) => text.parse()?,
        None => 5,
    };
    let dir = tempfile::tempdir()?;
    let store = SqliteCorpusStore::open(dir.path())?;

    // A fixed import time, so that the documents (their `indexed_at`) and their digests are
    // the same from one run to the next.
    let indexed_at = Millis(1_700_000_000_000);
    let started = Instant::now();
    let mut batch = Vec::with_capacity(BATCH);
    let mut posts_per_topic: HashMap<i64, i64> = HashMap::new();
    let mut lines = 0;
    for line in std::io::stdin().lock().lines() {
        let observation = Observation::parse_line(line?.as_bytes())?;
        match &observation.record {
            Record::Post(post) => *posts_per_topic.entry(post.topic_id.get()).or_default() += 1,
            Record::Topic(topic) => {
                posts_per_topic.entry(topic.topic_id.get()).or_default();
            }
            _ => {}
        }
        batch.push(observation);
        lines += 1;
        if batch.len() == BATCH {
            store.import_batch(&batch, indexed_at)?;
            batch.clear();
        }
    }
    if !batch.is_empty() {
        store.import_batch(&batch, indexed_at)?;
    }
    let import = started.elapsed();
    let seq = store.latest_seq()?;
    println!(
        "import: {lines} lines, {} topics, {seq} batches in {:.2} s",
        posts_per_topic.len(),
        import.as_secs_f64()
    );

    let mut topics: Vec<i64> = posts_per_topic.keys().copied().collect();
    topics.sort_unstable();
    for at in [seq, (seq + 1) / 2] {
        let mut digest = Sha256::new();
        for &topic in &topics {
            digest.update(format!("{:?}\n", store.topic(topic, at)?));
        }
        println!(
            "digest of every topic at seq {at}: {}",
            hex::encode(digest.finalize())
        );
    }

    let (largest, largest_posts) = posts_per_topic
        .iter()
        .max_by_key(|(id, posts)| (**posts, std::cmp::Reverse(**id)))
        .map(|(id, posts)| (*id, *posts))
        .ok_or("no topic in the input")?;
    let duration = Duration::from_secs(seconds);
    for threads in [1, 2] {
        let report = run(&store, threads, duration, |_| largest, seq);
        println!(
            "largest topic {largest} ({largest_posts} post lines), {threads} thread(s): {report}"
        );
        let report = run(&store, threads, duration, |n| topics[n % topics.len()], seq);
        println!("random topics, {threads} thread(s): {report}");
    }
    Ok(())
}

/// Looks up `topic(n)` for n = 0, 1, ... (scrambled per thread) on `threads` threads for
/// `duration`; returns requests/s, p50 and p99.
fn run(
    store: &SqliteCorpusStore,
    threads: usize,
    duration: Duration,
    topic: impl Fn(usize) -> i64 + Sync,
    seq: i64,
) -> String {
    let started = Instant::now();
    let mut latencies: Vec<Duration> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|thread| {
                let topic = &topic;
                scope.spawn(move || {
                    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ (thread as u64 + 1);
                    let mut latencies = Vec::new();
                    while started.elapsed() < duration {
                        // xorshift64: a random topic index without a dependency.
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        let id = topic(state as usize);
                        let begun = Instant::now();
                        let found = store.topic(id, seq).expect("topic lookup");
                        latencies.push(begun.elapsed());
                        assert!(found.is_some(), "topic {id} exists");
                    }
                    latencies
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("lookup thread"))
            .collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
    format!(
        "{} lookups, {:.0} req/s, p50 {:.3} ms, p99 {:.3} ms",
        latencies.len(),
        latencies.len() as f64 / elapsed,
        at(0.5),
        at(0.99)
    )
}
