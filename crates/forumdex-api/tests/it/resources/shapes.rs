//! The resource tests' settings ([`Config`], [`start`] on the one harness) and shape checks
//! of the contract's resources.

use std::collections::BTreeSet;

use chrono::DateTime;
use serde_json::Value;

use crate::harness::TestApp;

/// The forum address the test servers are configured with.
pub const FORUM: &str = "https://forum.example";

/// Per-test settings.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// `cursor_idle_seconds`.
    pub idle: u64,
    /// `snapshot_seconds`.
    pub snapshot: u64,
    /// `rate_limit_per_minute`.
    pub rate: u32,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            idle: 300,
            snapshot: 3600,
            rate: 100_000,
        }
    }
}

/// An in-process app with `config` over an empty corpus (the tests import their own).
pub async fn start(config: Config) -> TestApp {
    let toml = format!(
        "forum_url = \"{FORUM}/\"\ncursor_idle_seconds = {}\nsnapshot_seconds = {}\nrate_limit_per_minute = {}\n",
        config.idle, config.snapshot, config.rate
    );
    TestApp::builder()
        .empty_corpus()
        .config(&toml)
        .start()
        .await
}

/// Whether `text` matches `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`.
pub fn is_timestamp(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 24
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'.',
            23 => c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// Parses a contract timestamp into milliseconds.
pub fn millis(text: &str) -> i64 {
    assert!(is_timestamp(text), "not a contract timestamp: {text:?}");
    DateTime::parse_from_rfc3339(text)
        .expect("timestamp")
        .timestamp_millis()
}

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn assert_keys(value: &Value, expected: &[&str]) {
    let want: BTreeSet<&str> = expected.iter().copied().collect();
    assert_eq!(keys(value), want, "key set of {value}");
}

fn assert_time(value: &Value, nullable: bool) {
    match value {
        Value::Null if nullable => {}
        Value::String(text) => assert!(is_timestamp(text), "timestamp {text:?}"),
        other => panic!("not a timestamp: {other}"),
    }
}

fn assert_id(value: &Value, nullable: bool) {
    match value {
        Value::Null if nullable => {}
        other => {
            let id = other
                .as_i64()
                .unwrap_or_else(|| panic!("not an id: {other}"));
            assert!((1..=9_007_199_254_740_991).contains(&id), "{id}");
        }
    }
}

fn assert_count(value: &Value) {
    assert!(value.as_u64().is_some(), "not a count: {value}");
}

fn assert_string(value: &Value, nullable: bool) {
    assert!(
        value.is_string() || (nullable && value.is_null()),
        "not a string: {value}"
    );
}

/// The fields of a PostSummary (api-contract.md), in the order they are served.
pub const SUMMARY_KEYS: &[&str] = &[
    "post_id",
    "topic_id",
    "post_number",
    "is_op",
    "title",
    "author",
    "board",
    "language",
    "posted_at",
    "url",
    "topic_url",
];

fn assert_summary_fields(post: &Value) {
    assert_id(&post["post_id"], false);
    assert_id(&post["topic_id"], false);
    assert!(post["post_number"].is_null() || post["post_number"].as_u64().is_some());
    assert!(post["is_op"].is_boolean(), "{post}");
    assert_string(&post["title"], false);
    let author = &post["author"];
    assert_keys(author, &["profile_id", "username", "url"]);
    assert_id(&author["profile_id"], true);
    assert_string(&author["username"], false);
    match author["profile_id"].as_i64() {
        Some(id) => assert_eq!(
            author["url"],
            format!("{FORUM}/index.php?action=profile;u={id}")
        ),
        None => assert!(author["url"].is_null(), "guest url {post}"),
    }
    assert_board(&post["board"]);
    assert_string(&post["language"], true);
    assert_time(&post["posted_at"], true);
    let (topic, id) = (&post["topic_id"], &post["post_id"]);
    assert_eq!(
        post["url"],
        format!("{FORUM}/index.php?topic={topic}.msg{id}#msg{id}")
    );
    assert_eq!(
        post["topic_url"],
        format!("{FORUM}/index.php?topic={topic}.0")
    );
}

/// Board: `board_id` (id or null) and `name`; no board means an empty name.
pub fn assert_board(board: &Value) {
    assert_keys(board, &["board_id", "name"]);
    assert_id(&board["board_id"], true);
    assert_string(&board["name"], false);
    if board["board_id"].is_null() {
        assert_eq!(board["name"], "", "{board}");
    }
}

/// Merit: three counts and a nullable time.
pub fn assert_merit(merit: &Value) {
    assert_keys(
        merit,
        &["total", "distinct_senders", "transactions", "observed_at"],
    );
    assert_count(&merit["total"]);
    assert_count(&merit["distinct_senders"]);
    assert_count(&merit["transactions"]);
    assert_time(&merit["observed_at"], true);
}

/// PostSummary: exact keys and types, URLs built from the forum address.
pub fn assert_summary(post: &Value) {
    assert_keys(post, SUMMARY_KEYS);
    assert_summary_fields(post);
}

/// Post: the summary's fields plus `object`, `content_html`, `indexed_at`, `merit`.
pub fn assert_post(post: &Value) {
    let mut all: Vec<&str> = SUMMARY_KEYS.to_vec();
    all.extend(["object", "content_html", "indexed_at", "merit"]);
    assert_keys(post, &all);
    assert_eq!(post["object"], "post");
    assert_summary_fields(post);
    assert_string(&post["content_html"], false);
    assert_time(&post["indexed_at"], true);
    assert_merit(&post["merit"]);
}

/// Topic: exact keys and types.
pub fn assert_topic(topic: &Value) {
    assert_keys(
        topic,
        &[
            "object",
            "topic_id",
            "title",
            "board",
            "language",
            "created_at",
            "last_post_at",
            "post_count",
            "page_count",
            "views",
            "merit",
            "url",
            "first_post",
            "latest_post",
        ],
    );
    assert_eq!(topic["object"], "topic");
    assert_id(&topic["topic_id"], false);
    assert_string(&topic["title"], false);
    assert_board(&topic["board"]);
    assert_string(&topic["language"], true);
    assert_time(&topic["created_at"], true);
    assert_time(&topic["last_post_at"], true);
    assert_count(&topic["post_count"]);
    assert_count(&topic["page_count"]);
    assert_keys(&topic["views"], &["observed", "observed_at"]);
    assert_count(&topic["views"]["observed"]);
    assert_time(&topic["views"]["observed_at"], true);
    assert_merit(&topic["merit"]);
    assert_eq!(
        topic["url"],
        format!("{FORUM}/index.php?topic={}.0", topic["topic_id"])
    );
    if !topic["first_post"].is_null() {
        assert_post(&topic["first_post"]);
    }
    if !topic["latest_post"].is_null() {
        assert_summary(&topic["latest_post"]);
    }
}

/// Profile: exact keys and types.
pub fn assert_profile(profile: &Value) {
    assert_keys(
        profile,
        &[
            "object",
            "profile_id",
            "username",
            "url",
            "corpus",
            "recent_posts",
        ],
    );
    assert_eq!(profile["object"], "profile");
    assert_id(&profile["profile_id"], false);
    assert_string(&profile["username"], true);
    assert_eq!(
        profile["url"],
        format!(
            "{FORUM}/index.php?action=profile;u={}",
            profile["profile_id"]
        )
    );
    let corpus = &profile["corpus"];
    assert_keys(
        corpus,
        &[
            "post_count",
            "topic_count",
            "first_post_at",
            "last_post_at",
            "derived_from",
        ],
    );
    assert_count(&corpus["post_count"]);
    assert_count(&corpus["topic_count"]);
    assert_time(&corpus["first_post_at"], true);
    assert_time(&corpus["last_post_at"], true);
    assert_eq!(corpus["derived_from"], "distinct indexed posts");
    for post in profile["recent_posts"].as_array().expect("recent_posts") {
        assert_summary(post);
    }
}

/// PostList: exact keys and types (values are checked by the walks).
pub fn assert_post_list(page: &Value) {
    assert_keys(
        page,
        &[
            "object",
            "scope",
            "order",
            "limit",
            "filters",
            "snapshot_at",
            "cursor_expires_at",
            "has_more",
            "next_cursor",
            "data",
        ],
    );
    assert_eq!(page["object"], "post_list");
    assert_keys(&page["scope"], &["type", "id"]);
    assert!(page["scope"]["type"] == "topic" || page["scope"]["type"] == "profile");
    assert_id(&page["scope"]["id"], false);
    assert!(page["order"] == "asc" || page["order"] == "desc", "{page}");
    let limit = page["limit"].as_u64().expect("limit");
    assert!((1..=100).contains(&limit));
    let filters = &page["filters"];
    assert_keys(
        filters,
        &["date_from", "date_to", "board_id", "author_uid", "topic_id"],
    );
    assert_time(&filters["date_from"], true);
    assert_time(&filters["date_to"], true);
    for name in ["board_id", "author_uid", "topic_id"] {
        assert_id(&filters[name], true);
    }
    assert_time(&page["snapshot_at"], false);
    assert_time(&page["cursor_expires_at"], false);
    assert!(page["has_more"].is_boolean());
    assert_string(&page["next_cursor"], true);
    assert_eq!(
        page["has_more"].as_bool(),
        Some(!page["next_cursor"].is_null()),
        "has_more == (next_cursor != null)"
    );
    let data = page["data"].as_array().expect("data");
    assert!(data.len() as u64 <= limit, "page larger than its limit");
    for post in data {
        assert_post(post);
    }
}
