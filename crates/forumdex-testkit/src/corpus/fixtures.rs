//! Corpus lines for the cases, and the calls they repeat.

use forumdex_corpus::{CorpusWrite, Millis, Observation};
use serde_json::{Value, json};

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

/// A deletion of post `id` in topic `topic`, observed at `observed_at`.
pub fn deletion(id: i64, topic: i64, observed_at: &str) -> String {
    line(json!({
        "kind": "post", "post_id": id, "topic_id": topic, "title": "", "content_html": "",
        "author": {"profile_id": null, "username": ""}, "deleted": true,
        "observed_at": observed_at,
    }))
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

/// A post of [`listing_corpus`] as the cases know it, independently of the store.
#[derive(Clone, Debug)]
pub struct ListedPost {
    /// Its ID.
    pub post_id: i64,
    /// Its topic (10 or 20; topic 10 has a record naming board 9).
    pub topic_id: i64,
    /// Its author, if any.
    pub author: Option<i64>,
    /// Its own board, if any (else its topic's).
    pub board: Option<i64>,
    /// When it was posted (Unix ms), if known.
    pub posted_at: Option<i64>,
}

fn listed_posts() -> Vec<ListedPost> {
    let base = ms("2021-01-01T00:00:00Z");
    (1..=240)
        .map(|n: i64| {
            let post_id = 10_000 - n * 37 % 9_000;
            ListedPost {
                post_id,
                topic_id: if n % 3 == 0 { 20 } else { 10 },
                author: if n % 11 == 0 { None } else { Some(1 + n % 5) },
                board: match n % 4 {
                    0 => Some(8),
                    1 => None, // falls back to the topic's board
                    _ => Some(7),
                },
                // Equal timestamps in groups of four, and some undated posts.
                posted_at: (n % 13 != 0).then(|| base + (n / 4) * 3_600_000),
            }
        })
        .collect()
}

/// Imports 240 posts in two topics (boards, authors, equal timestamps and undated posts in
/// every combination), then re-observes a third of them; returns what the cases know.
pub fn listing_corpus(store: &dyn CorpusWrite) -> Vec<ListedPost> {
    let posts = listed_posts();
    let mut lines: Vec<String> = posts
        .iter()
        .map(|f| {
            let posted = f.posted_at.map(|at| Millis(at).to_rfc3339());
            post(
                f.post_id,
                f.topic_id,
                f.author,
                posted.as_deref(),
                json!({"board_id": f.board}),
            )
        })
        .collect();
    lines.push(line(json!({"kind": "topic", "topic_id": 10, "board_id": 9, "title": "ten", "observed_at": "2024-03-01T12:00:00Z"})));
    import(store, &lines, 1);
    // Re-observe a third of the posts: they must not appear twice.
    let edits: Vec<String> = posts
        .iter()
        .step_by(3)
        .map(|f| {
            let posted = f.posted_at.map(|at| Millis(at).to_rfc3339());
            post(f.post_id, f.topic_id, f.author, posted.as_deref(), json!({"board_id": f.board, "content_html": "edited", "observed_at": "2024-05-01T00:00:00Z"}))
        })
        .collect();
    import(store, &edits, 2);
    posts
}
