//! An independent oracle: the corpus lines a test imported, and what the contract says the
//! API must answer for them (canonical documents, derived values, listings), computed here
//! without the store's code.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use forumdex_corpus::Millis;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::shapes::FORUM;

/// Milliseconds of an RFC 3339 date-time.
pub fn ms(text: &str) -> i64 {
    DateTime::parse_from_rfc3339(text)
        .unwrap_or_else(|_| panic!("fixture time {text:?}"))
        .timestamp_millis()
}

/// The contract's timestamp form of an instant.
pub fn fmt(ms: i64) -> String {
    Utc.timestamp_millis_opt(ms)
        .single()
        .expect("instant")
        .to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A post line (as a JSON value to adjust before [`line`]).
pub fn post(
    post_id: i64,
    topic_id: i64,
    author: Option<(i64, &str)>,
    posted_at: Option<&str>,
    observed_at: &str,
) -> Value {
    let author = match author {
        Some((id, name)) => json!({"profile_id": id, "username": name}),
        None => json!({"profile_id": null, "username": format!("guest{post_id}")}),
    };
    json!({
        "kind": "post",
        "post_id": post_id,
        "topic_id": topic_id,
        "title": format!("Re: topic {topic_id}"),
        "author": author,
        "posted_at": posted_at,
        "content_html": format!("<p>post {post_id}</p>"),
        "observed_at": observed_at,
    })
}

/// A JSON line.
pub fn line(value: &Value) -> String {
    serde_json::to_string(value).expect("json")
}

#[derive(Debug, Clone)]
struct Obs {
    value: Value,
    observed_at: i64,
    sha: String,
    imported_at: i64,
}

/// The imported lines, and answers derived from them.
#[derive(Debug, Clone, Default)]
pub struct Oracle {
    seen: BTreeSet<String>,
    by_kind: BTreeMap<(String, String), Vec<Obs>>,
}

/// Whose posts a listing walks.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    /// A topic.
    Topic(i64),
    /// A profile.
    Profile(i64),
}

/// Listing filters, in instants.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filters {
    /// Inclusive lower bound.
    pub from: Option<i64>,
    /// Exclusive upper bound.
    pub to: Option<i64>,
    /// Effective board.
    pub board: Option<i64>,
    /// Author (topic scope).
    pub author: Option<i64>,
    /// Topic (profile scope).
    pub topic: Option<i64>,
}

fn key_of(value: &Value) -> (String, String) {
    let kind = value["kind"].as_str().expect("kind").to_owned();
    let field = match kind.as_str() {
        "board" => "board_id",
        "profile" => "profile_id",
        "topic" => "topic_id",
        "post" => "post_id",
        other => panic!("kind {other}"),
    };
    (kind, value[field].to_string())
}

impl Oracle {
    /// Records lines imported as one batch at `imported_at`.
    pub fn add(&mut self, lines: &[String], imported_at: Millis) {
        for text in lines {
            let sha = hex::encode(Sha256::digest(text.as_bytes()));
            if !self.seen.insert(sha.clone()) {
                continue;
            }
            let value: Value = serde_json::from_str(text).expect("json");
            let observed_at = ms(value["observed_at"].as_str().expect("observed_at"));
            self.by_kind.entry(key_of(&value)).or_default().push(Obs {
                value,
                observed_at,
                sha,
                imported_at: imported_at.0,
            });
        }
    }

    fn canonical(&self, kind: &str, id: i64) -> Option<&Obs> {
        self.by_kind
            .get(&(kind.to_owned(), id.to_string()))?
            .iter()
            .max_by(|a, b| {
                a.observed_at
                    .cmp(&b.observed_at)
                    .then_with(|| b.sha.cmp(&a.sha))
            })
    }

    fn posts(&self) -> Vec<&Obs> {
        self.by_kind
            .iter()
            .filter(|((kind, _), _)| kind == "post")
            .map(|((_, id), _)| {
                self.canonical("post", id.parse().expect("id"))
                    .expect("observed")
            })
            .collect()
    }

    fn topic_posts(&self, topic_id: i64) -> Vec<&Obs> {
        self.posts()
            .into_iter()
            .filter(|p| p.value["topic_id"] == topic_id)
            .collect()
    }

    fn board(&self, board_id: Option<i64>) -> Value {
        let name = board_id
            .and_then(|id| self.canonical("board", id))
            .map_or(String::new(), |b| {
                b.value["name"].as_str().expect("name").to_owned()
            });
        json!({"board_id": board_id, "name": name})
    }

    fn effective_board(&self, post: &Value) -> Option<i64> {
        post["board_id"].as_i64().or_else(|| {
            self.canonical("topic", post["topic_id"].as_i64().expect("topic"))
                .and_then(|t| t.value["board_id"].as_i64())
        })
    }

    fn is_op(&self, post: &Value) -> bool {
        match post["is_op"].as_bool() {
            Some(flag) => flag,
            None => {
                let topic = post["topic_id"].as_i64().expect("topic");
                let smallest = self
                    .topic_posts(topic)
                    .iter()
                    .map(|p| p.value["post_id"].as_i64().expect("id"))
                    .min();
                smallest == post["post_id"].as_i64()
            }
        }
    }

    fn sort_key(post: &Value) -> (i64, i64) {
        (
            post["posted_at"].as_str().map_or(i64::MIN, ms),
            post["post_id"].as_i64().expect("id"),
        )
    }

    fn summary_of(&self, obs: &Obs) -> Value {
        let p = &obs.value;
        let (topic, id) = (&p["topic_id"], &p["post_id"]);
        let author_id = p["author"]["profile_id"].as_i64();
        json!({
            "post_id": id,
            "topic_id": topic,
            "post_number": p.get("post_number").cloned().unwrap_or(Value::Null),
            "is_op": self.is_op(p),
            "title": p["title"],
            "author": {
                "profile_id": author_id,
                "username": p["author"]["username"],
                "url": author_id.map(|a| format!("{FORUM}/index.php?action=profile;u={a}")),
            },
            "board": self.board(self.effective_board(p)),
            "language": p.get("language").cloned().unwrap_or(Value::Null),
            "posted_at": p["posted_at"].as_str().map(|t| fmt(ms(t))),
            "url": format!("{FORUM}/index.php?topic={topic}.msg{id}#msg{id}"),
            "topic_url": format!("{FORUM}/index.php?topic={topic}.0"),
        })
    }

    fn merit_counts(post: &Value) -> (i64, i64, i64, Option<Vec<i64>>) {
        let merit = &post["merit"];
        if let Some(senders) = merit["senders"].as_array() {
            let ids: Vec<i64> = senders
                .iter()
                .map(|s| s["profile_id"].as_i64().expect("sender"))
                .collect();
            let distinct: BTreeSet<i64> = ids.iter().copied().collect();
            let total = senders
                .iter()
                .map(|s| s["amount"].as_i64().expect("amount"))
                .sum();
            return (
                total,
                distinct.len() as i64,
                senders.len() as i64,
                Some(ids),
            );
        }
        let count = |name: &str| merit[name].as_i64().unwrap_or(0);
        (
            count("total"),
            count("distinct_senders"),
            count("transactions"),
            None,
        )
    }

    fn full_of(&self, obs: &Obs) -> Value {
        let mut post = self.summary_of(obs);
        let (total, distinct, tx, _) = Self::merit_counts(&obs.value);
        let extra = json!({
            "object": "post",
            "content_html": obs.value["content_html"],
            "indexed_at": fmt(obs.imported_at),
            "merit": {
                "total": total,
                "distinct_senders": distinct,
                "transactions": tx,
                "observed_at": fmt(obs.observed_at),
            },
        });
        for (k, v) in extra.as_object().expect("object") {
            post[k] = v.clone();
        }
        post
    }

    /// The full Post the API must return, if the post exists.
    pub fn post(&self, post_id: i64) -> Option<Value> {
        self.canonical("post", post_id).map(|obs| self.full_of(obs))
    }

    /// The Topic the API must return, if the topic exists.
    pub fn topic(&self, topic_id: i64) -> Option<Value> {
        let record = self.canonical("topic", topic_id);
        let mut posts = self.topic_posts(topic_id);
        if record.is_none() && posts.is_empty() {
            return None;
        }
        posts.sort_by_key(|p| p.value["post_id"].as_i64());
        let op = posts.iter().find(|p| self.is_op(&p.value)).copied();
        let title = match (record, op) {
            (Some(r), _) => r.value["title"].clone(),
            (None, Some(op)) => op.value["title"].clone(),
            (None, None) => json!(""),
        };
        let board_id = record
            .and_then(|r| r.value["board_id"].as_i64())
            .or_else(|| op.and_then(|op| op.value["board_id"].as_i64()))
            .or_else(|| posts.iter().find_map(|p| p.value["board_id"].as_i64()));
        let dates: Vec<i64> = posts
            .iter()
            .filter_map(|p| p.value["posted_at"].as_str().map(ms))
            .collect();
        let n = posts.len() as i64;
        let page_count = record
            .and_then(|r| r.value["page_count"].as_i64())
            .unwrap_or((n + 19) / 20);
        let views = match record.filter(|r| r.value["views"].is_i64()) {
            Some(r) => json!({"observed": r.value["views"], "observed_at": fmt(r.observed_at)}),
            None => json!({"observed": 0, "observed_at": null}),
        };
        let (mut total, mut tx, mut distinct_sum) = (0, 0, 0);
        let mut senders = BTreeSet::new();
        let mut all_listed = true;
        for p in &posts {
            let (t, d, x, listed) = Self::merit_counts(&p.value);
            total += t;
            tx += x;
            distinct_sum += d;
            match listed {
                Some(ids) => senders.extend(ids),
                None if t > 0 || x > 0 => all_listed = false,
                None => {}
            }
        }
        let distinct = if all_listed {
            senders.len() as i64
        } else {
            distinct_sum
        };
        let latest = posts.iter().max_by_key(|p| Self::sort_key(&p.value));
        Some(json!({
            "object": "topic",
            "topic_id": topic_id,
            "title": title,
            "board": self.board(board_id),
            "language": op.and_then(|op| op.value.get("language").cloned()).unwrap_or(Value::Null),
            "created_at": op.and_then(|op| op.value["posted_at"].as_str().map(|t| fmt(ms(t)))),
            "last_post_at": dates.iter().max().map(|&m| fmt(m)),
            "post_count": n,
            "page_count": page_count,
            "views": views,
            "merit": {
                "total": total,
                "distinct_senders": distinct,
                "transactions": tx,
                "observed_at": posts.iter().map(|p| p.observed_at).max().map(fmt),
            },
            "url": format!("{FORUM}/index.php?topic={topic_id}.0"),
            "first_post": op.map(|op| self.full_of(op)),
            "latest_post": latest.map(|p| self.summary_of(p)),
        }))
    }

    /// The Profile the API must return, if the profile exists.
    pub fn profile(&self, profile_id: i64) -> Option<Value> {
        let record = self.canonical("profile", profile_id);
        let mut posts: Vec<&Obs> = self
            .posts()
            .into_iter()
            .filter(|p| p.value["author"]["profile_id"] == profile_id)
            .collect();
        if record.is_none() && posts.is_empty() {
            return None;
        }
        posts.sort_by_key(|p| std::cmp::Reverse(Self::sort_key(&p.value)));
        let username = record
            .and_then(|r| r.value["username"].as_str().map(str::to_owned))
            .or_else(|| {
                posts.first().map(|p| {
                    p.value["author"]["username"]
                        .as_str()
                        .expect("name")
                        .to_owned()
                })
            });
        let topics: BTreeSet<i64> = posts
            .iter()
            .map(|p| p.value["topic_id"].as_i64().expect("topic"))
            .collect();
        let dates: Vec<i64> = posts
            .iter()
            .filter_map(|p| p.value["posted_at"].as_str().map(ms))
            .collect();
        Some(json!({
            "object": "profile",
            "profile_id": profile_id,
            "username": username,
            "url": format!("{FORUM}/index.php?action=profile;u={profile_id}"),
            "corpus": {
                "post_count": posts.len(),
                "topic_count": topics.len(),
                "first_post_at": dates.iter().min().map(|&m| fmt(m)),
                "last_post_at": dates.iter().max().map(|&m| fmt(m)),
                "derived_from": "distinct indexed posts",
            },
            "recent_posts": posts.iter().take(10).map(|p| self.summary_of(p)).collect::<Vec<_>>(),
        }))
    }

    /// The full posts of a listing, in order.
    pub fn listing(&self, scope: Scope, filters: Filters, desc: bool) -> Vec<Value> {
        let mut posts: Vec<&Obs> = self
            .posts()
            .into_iter()
            .filter(|p| {
                let v = &p.value;
                let in_scope = match scope {
                    Scope::Topic(id) => v["topic_id"] == id,
                    Scope::Profile(id) => v["author"]["profile_id"] == id,
                };
                let at = v["posted_at"].as_str().map(ms);
                let dated = filters.from.is_none() && filters.to.is_none()
                    || at.is_some_and(|at| {
                        filters.from.is_none_or(|from| at >= from)
                            && filters.to.is_none_or(|to| at < to)
                    });
                in_scope
                    && dated
                    && filters
                        .board
                        .is_none_or(|b| self.effective_board(v) == Some(b))
                    && filters
                        .author
                        .is_none_or(|a| v["author"]["profile_id"] == a)
                    && filters.topic.is_none_or(|t| v["topic_id"] == t)
            })
            .collect();
        posts.sort_by_key(|p| Self::sort_key(&p.value));
        if desc {
            posts.reverse();
        }
        posts.into_iter().map(|p| self.full_of(p)).collect()
    }
}
