//! Shared helpers: generate into a temporary folder, read the lines back, validate them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::DateTime;
use forumdex_generate::{GenerateConfig, GenerateSummary, generate};
use serde_json::Value;

/// A generated corpus in a temporary folder (removed on drop).
pub struct Corpus {
    /// Keeps the folder alive while the corpus is in use.
    pub _dir: tempfile::TempDir,
    pub path: PathBuf,
    pub summary: GenerateSummary,
    pub lines: Vec<Value>,
}

impl Corpus {
    /// Records of one kind.
    pub fn kind<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.lines.iter().filter(move |v| v["kind"] == kind)
    }

    /// Canonical post per post_id (latest observed_at).
    pub fn canonical_posts(&self) -> BTreeMap<u64, &Value> {
        let mut posts: BTreeMap<u64, &Value> = BTreeMap::new();
        for post in self.kind("post") {
            let id = post["post_id"].as_u64().expect("post_id");
            match posts.get(&id) {
                Some(old) if time(old, "observed_at") >= time(post, "observed_at") => {}
                _ => {
                    posts.insert(id, post);
                }
            }
        }
        posts
    }
}

/// Generates `posts` posts with `seed` into a fresh folder, as `corpus.jsonl`.
pub fn corpus(posts: u64, seed: u64) -> Corpus {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("corpus.jsonl");
    let summary = generate(&GenerateConfig { posts, seed }, &path).expect("generate");
    let text = std::fs::read_to_string(&path).expect("read corpus");
    let lines = text
        .lines()
        .enumerate()
        .map(|(n, line)| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1))
        })
        .collect();
    Corpus {
        _dir: dir,
        path,
        summary,
        lines,
    }
}

/// Unix seconds of an RFC 3339 field.
pub fn time(value: &Value, field: &str) -> i64 {
    let text = value[field].as_str().expect("time string");
    DateTime::parse_from_rfc3339(text)
        .expect("rfc 3339")
        .timestamp()
}

fn is_id(value: &Value) -> bool {
    value
        .as_u64()
        .is_some_and(|n| (1..=9_007_199_254_740_991).contains(&n))
}

fn is_time(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|s| DateTime::parse_from_rfc3339(s).is_ok())
}

fn is_opt<F: Fn(&Value) -> bool>(record: &Value, field: &str, check: F) -> bool {
    match record.get(field) {
        None | Some(Value::Null) => true,
        Some(value) => check(value),
    }
}

fn is_lang(value: &Value) -> bool {
    let Some(s) = value.as_str() else {
        return false;
    };
    let b = s.as_bytes();
    let two = |x: &[u8], upper: bool| {
        x.len() == 2
            && x.iter().all(|c| {
                if upper {
                    c.is_ascii_uppercase()
                } else {
                    c.is_ascii_lowercase()
                }
            })
    };
    match b.len() {
        2 => two(b, false),
        5 => two(&b[..2], false) && b[2] == b'-' && two(&b[3..], true),
        _ => false,
    }
}

fn count(value: &Value) -> bool {
    value.as_u64().is_some()
}

/// Checks one record against the field rules of corpus-format.md.
pub fn validate(record: &Value) -> Result<(), String> {
    let fail = |what: &str| Err(format!("{what}: {record}"));
    if !record.is_object() {
        return fail("not an object");
    }
    if !is_time(&record["observed_at"]) {
        return fail("observed_at");
    }
    match record["kind"].as_str() {
        Some("board") => {
            if !is_id(&record["board_id"]) || !record["name"].is_string() {
                return fail("board fields");
            }
            if !is_opt(record, "parent_board_id", is_id) {
                return fail("parent_board_id");
            }
        }
        Some("profile") => {
            if !is_id(&record["profile_id"]) || !is_opt(record, "username", Value::is_string) {
                return fail("profile fields");
            }
        }
        Some("topic") => {
            if !is_id(&record["topic_id"])
                || !record["title"].is_string()
                || !is_opt(record, "board_id", is_id)
                || !is_opt(record, "views", count)
                || !is_opt(record, "page_count", count)
            {
                return fail("topic fields");
            }
        }
        Some("post") => {
            let ok = is_id(&record["post_id"])
                && is_id(&record["topic_id"])
                && is_opt(record, "board_id", is_id)
                && is_opt(record, "post_number", count)
                && is_opt(record, "is_op", Value::is_boolean)
                && record["title"].is_string()
                && record["author"].is_object()
                && is_opt(&record["author"], "profile_id", is_id)
                && record["author"]["username"].is_string()
                && is_opt(record, "posted_at", is_time)
                && record["content_html"].is_string()
                && is_opt(record, "language", is_lang);
            if !ok {
                return fail("post fields");
            }
            if record.get("posted_at").is_some_and(|p| !p.is_null())
                && time(record, "posted_at") >= time(record, "observed_at")
            {
                return fail("observed_at not after posted_at");
            }
            if let Some(merit) = record.get("merit").filter(|m| !m.is_null()) {
                let counts = ["total", "distinct_senders", "transactions"];
                if !counts.iter().all(|f| count(&merit[*f])) {
                    return fail("merit counts");
                }
                if let Some(senders) = merit.get("senders").and_then(Value::as_array) {
                    let mut ids = Vec::new();
                    let mut total = 0;
                    for sender in senders {
                        if !is_id(&sender["profile_id"]) || !count(&sender["amount"]) {
                            return fail("merit sender");
                        }
                        ids.push(sender["profile_id"].as_u64().expect("checked"));
                        total += sender["amount"].as_u64().expect("checked");
                    }
                    ids.sort_unstable();
                    ids.dedup();
                    if merit["total"] != total
                        || merit["transactions"] != senders.len()
                        || merit["distinct_senders"] != ids.len()
                    {
                        return fail("merit counts disagree with senders");
                    }
                }
            }
        }
        Some("image") => {
            if !record["source_url"].is_string()
                || !is_opt(record, "file", Value::is_string)
                || !is_opt(record, "nsfw_score", |v| {
                    v.as_f64().is_some_and(|s| (0.0..=1.0).contains(&s))
                })
            {
                return fail("image fields");
            }
        }
        _ => return fail("kind"),
    }
    Ok(())
}

#[test]
fn validator_rejects_broken_records() {
    let bad = [
        r#"{"kind":"post","post_id":0,"topic_id":1,"title":"","author":{"profile_id":null,"username":"a"},"content_html":"","observed_at":"2024-01-01T00:00:00Z"}"#,
        r#"{"kind":"board","board_id":1,"name":"x","observed_at":"2024-01-01 00:00:00"}"#,
        r#"{"kind":"post","post_id":1,"topic_id":1,"title":"","author":{"profile_id":null,"username":"a"},"content_html":"","language":"EN","observed_at":"2024-01-01T00:00:00Z"}"#,
        r#"{"kind":"post","post_id":1,"topic_id":1,"title":"","author":{"profile_id":null,"username":"a"},"content_html":"","merit":{"total":2,"distinct_senders":1,"transactions":1,"senders":[{"profile_id":3,"amount":1}]},"observed_at":"2024-01-01T00:00:00Z"}"#,
        r#"{"kind":"thread","observed_at":"2024-01-01T00:00:00Z"}"#,
    ];
    for line in bad {
        let value: Value = serde_json::from_str(line).expect("json");
        assert!(validate(&value).is_err(), "accepted {line}");
    }
}
