//! The generated corpus of the collection tests: a topic of 300 posts with re-observations
//! (later edits, stale dumps, ties), equal timestamps, undated posts and moved posts, plus
//! smaller topics and profiles; and the walker that pages through a listing while checking
//! every page.

use chrono::{FixedOffset, SecondsFormat, TimeZone};
use serde_json::{Value, json};

use super::model::{Oracle, line, ms, post};
use super::shapes::{assert_post_list, millis};
use crate::harness::{Caller, Paid, TestApp};

/// Posts in the big topic.
pub const BIG: i64 = 300;
/// The big topic's id.
pub const BIG_TOPIC: i64 = 100;

/// `at` (ms) written with an offset of `minutes` east, fractional digits only when needed.
pub fn stamp(at: i64, minutes: i32) -> String {
    FixedOffset::east_opt(minutes * 60)
        .expect("offset")
        .timestamp_millis_opt(at)
        .single()
        .expect("instant")
        .to_rfc3339_opts(SecondsFormat::AutoSi, false)
}

fn base() -> i64 {
    ms("2024-01-01T00:00:00Z")
}

/// When post `i` of the big topic was posted (`None`: undated).
pub fn big_posted_at(i: i64) -> Option<i64> {
    if i % 25 == 5 {
        return None;
    }
    // Posts 10k+3 and 10k+4 share the timestamp of 10k+2.
    let slot = if i % 10 == 3 || i % 10 == 4 {
        i - i % 10 + 2
    } else {
        i
    };
    Some(base() + slot * 7 * 3_600_000 + if slot % 6 == 1 { 250 } else { 0 })
}

/// The post id of post `i` of the big topic (ids do not follow posting order).
pub fn big_post_id(i: i64) -> i64 {
    10_000 + ((i * 7919) % BIG) * 2 + 1
}

fn big_post(i: i64, observed_at: &str) -> Value {
    let author = match i % 7 {
        6 => None,
        4 => Some(5),
        n => Some(n + 1),
    };
    let name = match author {
        Some(5) => format!("user5-{i}"),
        Some(n) => format!("user{n}"),
        None => String::new(),
    };
    let posted = big_posted_at(i).map(|at| stamp(at, [0, 120, -330][(i % 3) as usize]));
    let mut p = post(
        big_post_id(i),
        BIG_TOPIC,
        author.map(|a| (a, name.as_str())),
        posted.as_deref(),
        observed_at,
    );
    if i == 0 {
        p["is_op"] = json!(true);
        p["title"] = json!("Big topic");
    }
    if i % 4 == 0 {
        p["post_number"] = json!(i);
    }
    if i % 11 == 0 {
        p["board_id"] = json!(2);
    } else if i % 13 == 0 {
        p["board_id"] = json!(3);
    }
    if i % 8 == 0 {
        p["merit"] = json!({"senders": [{"profile_id": 1, "amount": 2}, {"profile_id": i % 5 + 1, "amount": 1}]});
    } else if i % 5 == 0 {
        p["merit"] = json!({"total": i % 7 + 1, "distinct_senders": 1, "transactions": 1});
    }
    if i % 4 == 1 {
        p["language"] = json!("en");
    }
    p
}

/// The corpus as two import batches.
pub fn batches() -> (Vec<String>, Vec<String>) {
    let at = "2024-06-01T00:00:00Z";
    let mut first = vec![
        json!({"kind":"board","board_id":1,"name":"Bitcoin Discussion","observed_at":at}),
        json!({"kind":"board","board_id":2,"name":"Off-topic","observed_at":at}),
        json!({"kind":"topic","topic_id":BIG_TOPIC,"board_id":1,"title":"Big topic","views":5,"observed_at":at}),
        json!({"kind":"topic","topic_id":300,"title":"No board","observed_at":at}),
        json!({"kind":"topic","topic_id":400,"board_id":1,"title":"Nobody posted","observed_at":at}),
        json!({"kind":"profile","profile_id":1,"username":"user1","observed_at":at}),
        json!({"kind":"profile","profile_id":2,"username":"user2","observed_at":at}),
        json!({"kind":"profile","profile_id":7,"username":"silent","observed_at":at}),
    ];
    let mut second = Vec::new();
    for i in 0..BIG {
        first.push(big_post(i, at));
        if i % 9 == 0 {
            // A later observation: edited, and moved in time (undated ones get a date).
            let mut edit = big_post(i, "2024-07-01T00:00:00+02:00");
            edit["title"] = json!(format!("edited {i}"));
            let at = big_posted_at(i).map_or(base() + 1_000 * 3_600_000, |at| at + 1_800_000);
            edit["posted_at"] = json!(stamp(at, 60));
            // Half arrive with the original in one batch, half in the next.
            if i % 2 == 0 {
                first.push(edit);
            } else {
                second.push(edit);
            }
        }
        if i % 17 == 0 {
            // A stale legacy dump that must lose.
            let mut stale = big_post(i, "2023-01-01T00:00:00Z");
            stale["title"] = json!("stale");
            stale["posted_at"] = json!("2020-01-01T00:00:00Z");
            if i % 34 == 0 {
                first.push(stale);
            } else {
                second.push(stale);
            }
        }
        if i == 150 || i == 151 {
            // Same observed_at as the original: the smallest line hash wins.
            let mut tie = big_post(i, at);
            tie["content_html"] = json!(format!("<p>tie {i}</p>"));
            if i == 150 {
                second.push(tie);
            } else {
                first.push(tie);
            }
        }
    }
    // Topic 200: no record; every post on board 3 (no board record); ids fall as dates rise.
    for j in 0..40 {
        let dated =
            (j % 10 != 7).then(|| stamp(ms("2023-12-01T00:00:00Z") + j * 13 * 3_600_000, 0));
        let author = (j % 3 + 1, format!("user{}", j % 3 + 1));
        let mut p = post(
            20_000 + (39 - j),
            200,
            Some((author.0, author.1.as_str())),
            dated.as_deref(),
            at,
        );
        p["board_id"] = json!(3);
        first.push(p);
    }
    // Topic 300: a record without a board, posts without one either.
    for k in 0..5 {
        let author = (k % 2 == 0).then_some((1, "user1"));
        let dated = stamp(ms("2024-02-10T00:00:00Z") + k * 60_000, 0);
        first.push(post(30_000 + k, 300, author, Some(&dated), at));
    }
    (
        first.iter().map(line).collect(),
        second.iter().map(line).collect(),
    )
}

/// Imports [`batches`] and returns the oracle.
pub fn seed(api: &TestApp) -> Oracle {
    let (first, second) = batches();
    let mut oracle = Oracle::default();
    oracle.add(&first, api.import(&first));
    oracle.add(&second, api.import(&second));
    oracle
}

/// What every page of a walk must echo.
#[derive(Debug, Clone)]
pub struct Expect {
    /// `{"type": ..., "id": ...}`.
    pub scope: Value,
    /// "asc" or "desc".
    pub order: &'static str,
    /// The effective limit.
    pub limit: u64,
    /// The effective filters.
    pub filters: Value,
}

/// Filters echo with nothing set.
pub fn no_filters() -> Value {
    json!({"date_from": null, "date_to": null, "board_id": null, "author_uid": null, "topic_id": null})
}

/// A finished walk.
#[derive(Debug)]
pub struct Walk {
    /// Every post, in the order received.
    pub posts: Vec<Value>,
    /// Every page.
    pub pages: Vec<Value>,
}

/// Pages through `path?query` (then the cursor alone) until `next_cursor` is null,
/// checking every page and its charge.
pub async fn walk(
    api: &TestApp,
    caller: &Caller,
    path: &str,
    query: &str,
    expect: &Expect,
) -> Walk {
    let mut posts = Vec::new();
    let mut pages = Vec::new();
    let mut next = if query.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{query}")
    };
    let mut snapshot_at: Option<String> = None;
    let before_walk = api.balance(caller);
    loop {
        let before = forumdex_corpus::Millis::now(&*api.clock).0;
        let page = api.ok(caller, &next).await;
        let after = forumdex_corpus::Millis::now(&*api.clock).0;
        assert_post_list(&page);
        assert_eq!(page["scope"], expect.scope, "{next}");
        assert_eq!(page["order"], expect.order, "{next}");
        assert_eq!(page["limit"], expect.limit, "{next}");
        assert_eq!(page["filters"], expect.filters, "{next}");
        let snap = page["snapshot_at"]
            .as_str()
            .expect("snapshot_at")
            .to_owned();
        match &snapshot_at {
            None => {
                let at = millis(&snap);
                assert!(
                    before <= at && at <= after,
                    "snapshot frozen by the first page"
                );
                snapshot_at = Some(snap.clone());
            }
            Some(first) => assert_eq!(first, &snap, "snapshot_at constant across the walk"),
        }
        let snap_ms = millis(&snap);
        let life = api.app.settings.server.snapshot_seconds as i64 * 1000;
        let idle = api.app.settings.server.cursor_idle_seconds as i64 * 1000;
        let expires = millis(page["cursor_expires_at"].as_str().expect("expires"));
        let low = (before + idle).min(snap_ms + life);
        let high = (after + idle).min(snap_ms + life);
        assert!(
            low <= expires && expires <= high,
            "cursor_expires_at {expires} outside [{low}, {high}]"
        );
        posts.extend(page["data"].as_array().expect("data").iter().cloned());
        let cursor = page["next_cursor"].as_str().map(str::to_owned);
        pages.push(page);
        assert!(pages.len() <= 1_000, "runaway walk");
        match cursor {
            Some(cursor) => next = format!("{path}?cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(
        api.balance(caller) + pages.len() as u64,
        before_walk,
        "one credit per page"
    );
    Walk { posts, pages }
}
