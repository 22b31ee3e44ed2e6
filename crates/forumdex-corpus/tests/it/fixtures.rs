//! Corpus lines and stores for tests.

use forumdex_corpus::{CorpusWrite, Millis, Observation, SqliteCorpusStore};
use serde_json::{Value, json};
use tempfile::TempDir;

/// A fresh store in its own temp folder (kept alive by the returned guard).
pub fn store() -> (SqliteCorpusStore, TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteCorpusStore::open(dir.path()).unwrap();
    (store, dir)
}

/// A post line; `extra` fields are merged over the defaults.
pub fn post(
    post_id: i64,
    topic_id: i64,
    author: Option<i64>,
    posted_at: Option<&str>,
    extra: Value,
) -> String {
    let mut record = json!({
        "kind": "post", "post_id": post_id, "topic_id": topic_id,
        "title": format!("Re: topic {topic_id}"),
        "author": {"profile_id": author, "username": format!("user{}", author.unwrap_or(0))},
        "posted_at": posted_at,
        "content_html": format!("post number {post_id} talks about mining"),
        "language": "en",
        "observed_at": "2024-03-01T12:00:00Z",
    });
    merge(&mut record, extra);
    record.to_string()
}

/// Any record from JSON.
pub fn line(record: Value) -> String {
    record.to_string()
}

fn merge(into: &mut Value, extra: Value) {
    if let (Value::Object(into), Value::Object(extra)) = (into, extra) {
        for (key, value) in extra {
            into.insert(key, value);
        }
    }
}

/// Parses lines into observations.
pub fn observations(lines: &[String]) -> Vec<Observation> {
    lines
        .iter()
        .map(|l| Observation::parse_line(l.as_bytes()).unwrap())
        .collect()
}

/// Imports lines as one batch at time `now_ms`; returns the sequence (if any).
pub fn import(store: &dyn CorpusWrite, lines: &[String], now_ms: i64) -> Option<i64> {
    store
        .import_batch(&observations(lines), Millis(now_ms))
        .unwrap()
        .seq
}

/// The newest sequence.
pub fn latest(store: &dyn CorpusWrite) -> i64 {
    store.snapshot(Millis(0)).unwrap().seq
}

/// Milliseconds of an RFC 3339 time.
pub fn ms(text: &str) -> i64 {
    Millis::parse_rfc3339(text).unwrap().0
}
