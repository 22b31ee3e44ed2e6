//! Content leaving the service: a post whose canonical observation is a deletion
//! (corpus-format.md, `deleted`) and takedowns (operator-interface.md), through the API:
//! lookups, collections (a walk whose snapshot predates the takedown included) and search.

use std::time::Duration;

use forumdex_clock::SystemClock;
use forumdex_corpus::{Millis, TakedownTarget};
use serde_json::{Value, json};

use crate::harness::{Caller, Paid, TestApp};

/// Topic 5 with posts 28 (by 3), 29 and 30 (by 4), all about a zanzibarite wallet.
fn topic_lines() -> Vec<String> {
    let at = "2024-03-01T12:00:00Z";
    let post = |id: i64, author: i64, day: u32| {
        json!({"kind": "post", "post_id": id, "topic_id": 5, "title": "Re: Wallets",
            "author": {"profile_id": author, "username": format!("user{author}")},
            "posted_at": format!("2020-01-{day:02}T00:00:00Z"), "language": "en",
            "content_html": format!("Post {id}: my zanzibarite wallet works."), "observed_at": at})
        .to_string()
    };
    vec![
        json!({"kind": "topic", "topic_id": 5, "title": "Wallets", "observed_at": at}).to_string(),
        post(28, 3, 1),
        post(29, 4, 2),
        post(30, 4, 3),
    ]
}

/// An indexed app over [`topic_lines`] and a caller with credits.
async fn fixture() -> (TestApp, Caller) {
    let app = TestApp::builder().empty_corpus().start().await;
    let seq = app
        .import_seq(&topic_lines(), forumdex_corpus::Millis::now(&*app.clock))
        .expect("new posts");
    synced(&app, seq).await;
    let caller = app.caller(100);
    (app, caller)
}

async fn synced(app: &TestApp, seq: i64) {
    tokio::time::timeout(Duration::from_secs(60), app.app.search_sync.wait_for(seq))
        .await
        .expect("the background sync reaches the import");
}

fn ids(posts: &Value) -> Vec<i64> {
    posts
        .as_array()
        .expect("an array of posts")
        .iter()
        .map(|p| p["post_id"].as_i64().expect("post_id"))
        .collect()
}

/// The search's `total` and its hits' post IDs in ID order (not ranking order).
async fn search_ids(app: &TestApp, caller: &Caller) -> (u64, Vec<i64>) {
    let body = app.ok(caller, "/api/v1/search?q=zanzibarite").await;
    let mut hits = ids(&body["hits"]);
    hits.sort_unstable();
    (body["total"].as_u64().expect("total"), hits)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn takedowns_apply_from_the_next_request_even_to_older_snapshots() {
    let (app, caller) = fixture().await;
    let first = app.ok(&caller, "/api/v1/topics/5/posts?limit=1").await;
    assert_eq!(ids(&first["data"]), [28]);
    let cursor = first["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();

    let post = app
        .importer(|corpus| {
            corpus.add_takedown(
                TakedownTarget::Post(29),
                "court order",
                Millis::now(&SystemClock),
            )
        })
        .expect("takedown");
    app.fails(&caller, "/api/v1/posts/29", 404).await;
    let rest = app
        .ok(&caller, &format!("/api/v1/topics/5/posts?cursor={cursor}"))
        .await;
    assert_eq!(
        ids(&rest["data"]),
        [30],
        "the walk's snapshot predates the takedown and still leaves 29 out"
    );
    assert_eq!(app.ok(&caller, "/api/v1/topics/5").await["post_count"], 2);
    assert_eq!(search_ids(&app, &caller).await.0, 2);
    assert!(!search_ids(&app, &caller).await.1.contains(&29));

    // A newer observation of the post does not bring it back.
    let newer = json!({"kind": "post", "post_id": 29, "topic_id": 5, "title": "Re: Wallets",
        "author": {"profile_id": 4, "username": "user4"}, "language": "en",
        "content_html": "zanzibarite again", "observed_at": "2024-09-01T00:00:00Z"})
    .to_string();
    let seq = app
        .import_seq(&[newer], forumdex_corpus::Millis::now(&*app.clock))
        .unwrap();
    synced(&app, seq).await;
    app.fails(&caller, "/api/v1/posts/29", 404).await;
    assert!(!search_ids(&app, &caller).await.1.contains(&29));

    // A profile takedown takes its posts; a topic takedown the whole topic.
    let profile = app
        .importer(|corpus| {
            corpus.add_takedown(
                TakedownTarget::Profile(4),
                "user request",
                Millis::now(&SystemClock),
            )
        })
        .unwrap();
    app.fails(&caller, "/api/v1/profiles/4", 404).await;
    app.fails(&caller, "/api/v1/profiles/4/posts", 404).await;
    app.fails(&caller, "/api/v1/posts/30", 404).await;
    assert_eq!(search_ids(&app, &caller).await, (1, vec![28]));
    app.importer(|corpus| {
        corpus.add_takedown(TakedownTarget::Topic(5), "spam", Millis::now(&SystemClock))
    })
    .unwrap();
    app.fails(&caller, "/api/v1/topics/5", 404).await;
    app.fails(&caller, "/api/v1/topics/5/posts", 404).await;
    app.fails(
        &caller,
        &format!("/api/v1/topics/5/posts?cursor={cursor}"),
        404,
    )
    .await;
    app.fails(&caller, "/api/v1/posts/28", 404).await;
    assert_eq!(search_ids(&app, &caller).await, (0, vec![]));

    // Lifted: served again from the next request on.
    let now = Millis::now(&SystemClock);
    for takedown in app.importer(|corpus| corpus.takedowns()).unwrap() {
        if takedown.in_force() {
            app.importer(|corpus| corpus.lift_takedown(takedown.takedown_id, "", now))
                .unwrap();
        }
    }
    assert_ne!(post.takedown_id, profile.takedown_id);
    let back = app.ok(&caller, "/api/v1/posts/29").await;
    assert_eq!(back["content_html"], "zanzibarite again", "{back}");
    assert_eq!(search_ids(&app, &caller).await.0, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_post_is_absent_from_lookups_listings_and_search() {
    let (app, caller) = fixture().await;
    assert_eq!(search_ids(&app, &caller).await.0, 3);
    let before = app.ok(&caller, "/api/v1/topics/5/posts?limit=1").await;
    let cursor = before["next_cursor"].as_str().unwrap().to_owned();

    let deletion = json!({"kind": "post", "post_id": 29, "topic_id": 5, "title": "",
        "author": {"profile_id": null, "username": ""}, "content_html": "", "deleted": true,
        "observed_at": "2024-06-01T00:00:00Z"})
    .to_string();
    let seq = app
        .import_seq(&[deletion], forumdex_corpus::Millis::now(&*app.clock))
        .unwrap();
    synced(&app, seq).await;

    app.fails(&caller, "/api/v1/posts/29", 404).await;
    let all = app.ok(&caller, "/api/v1/topics/5/posts").await;
    assert_eq!(ids(&all["data"]), [28, 30]);
    assert_eq!(app.ok(&caller, "/api/v1/topics/5").await["post_count"], 2);
    let profile = app.ok(&caller, "/api/v1/profiles/4").await;
    assert_eq!(profile["corpus"]["post_count"], 1, "{profile}");
    assert_eq!(search_ids(&app, &caller).await, (2, vec![28, 30]));

    // A walk started before the deletion keeps its snapshot: the post was there then.
    let rest = app
        .ok(&caller, &format!("/api/v1/topics/5/posts?cursor={cursor}"))
        .await;
    assert_eq!(ids(&rest["data"]), [29]);
}
