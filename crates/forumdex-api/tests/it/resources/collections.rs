//! `GET /api/v1/topics/{id}/posts` and `/profiles/{id}/posts`: full walks compared with
//! listings computed from the imported lines, filters, snapshots across imports, short
//! and empty pages, empty scopes.

use serde_json::{Value, json};

use super::fixture::{
    BIG_TOPIC, Expect, big_post_id, big_posted_at, no_filters, seed, stamp, walk,
};
use super::model::{Filters, Oracle, Scope, fmt, line, ms, post};
use super::shapes::{Config, start};
use crate::harness::Paid;

fn scope_json(scope: Scope) -> Value {
    match scope {
        Scope::Topic(id) => json!({"type": "topic", "id": id}),
        Scope::Profile(id) => json!({"type": "profile", "id": id}),
    }
}

fn path(scope: Scope) -> String {
    match scope {
        Scope::Topic(id) => format!("/api/v1/topics/{id}/posts"),
        Scope::Profile(id) => format!("/api/v1/profiles/{id}/posts"),
    }
}

fn ids(posts: &[Value]) -> Vec<i64> {
    posts
        .iter()
        .map(|p| p["post_id"].as_i64().expect("id"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn full_walks_match_the_listing_at_every_page_size_and_order() {
    let api = start(Config::default()).await;
    let oracle = seed(&api);
    let caller = api.caller(1_000_000);
    for scope in [
        Scope::Topic(BIG_TOPIC),
        Scope::Topic(200),
        Scope::Topic(300),
        Scope::Profile(1),
        Scope::Profile(5),
    ] {
        for desc in [false, true] {
            let expected = oracle.listing(scope, Filters::default(), desc);
            assert!(!expected.is_empty());
            let order = if desc { "desc" } else { "asc" };
            for limit in [1u64, 7, 50, 100] {
                if limit == 1 && !matches!(scope, Scope::Topic(BIG_TOPIC) | Scope::Topic(300)) {
                    continue;
                }
                let expect = Expect {
                    scope: scope_json(scope),
                    order,
                    limit,
                    filters: no_filters(),
                };
                let query = format!("limit={limit}&order={order}");
                let done = walk(&api, &caller, &path(scope), &query, &expect).await;
                assert_eq!(ids(&done.posts), ids(&expected), "{scope:?} {query}");
                assert_eq!(done.posts, expected, "{scope:?} {query}");
                let pages = expected.len().div_ceil(limit as usize);
                assert!(
                    done.pages.len() == pages || done.pages.len() == pages + 1,
                    "{scope:?} {query}: {} pages for {} posts",
                    done.pages.len(),
                    expected.len()
                );
            }
        }
    }
    // Defaults: asc, 50.
    let expect = Expect {
        scope: scope_json(Scope::Topic(BIG_TOPIC)),
        order: "asc",
        limit: 50,
        filters: no_filters(),
    };
    let done = walk(&api, &caller, &path(Scope::Topic(BIG_TOPIC)), "", &expect).await;
    assert_eq!(
        done.posts,
        oracle.listing(Scope::Topic(BIG_TOPIC), Filters::default(), false)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fixture_holds_the_cases_it_claims() {
    let api = start(Config::default()).await;
    let oracle = seed(&api);
    let all = oracle.listing(Scope::Topic(BIG_TOPIC), Filters::default(), false);
    assert_eq!(all.len(), 300, "re-observations are not duplicates");
    let undated = all.iter().filter(|p| p["posted_at"].is_null()).count();
    assert!(undated >= 5, "{undated} undated posts");
    assert!(all[..undated].iter().all(|p| p["posted_at"].is_null()));
    let edited = all
        .iter()
        .filter(|p| p["title"].as_str().unwrap().starts_with("edited"))
        .count();
    assert_eq!(edited, 34);
    assert!(all.iter().all(|p| p["title"] != "stale"));
    // Equal timestamps whose post ids do not follow the fixture's order.
    assert_eq!(big_posted_at(12), big_posted_at(13));
    assert!(
        (0..30).any(|k| big_post_id(10 * k + 3) < big_post_id(10 * k + 2)),
        "ties must be broken by post id"
    );
}

struct Case {
    scope: Scope,
    query: &'static str,
    filters: Filters,
    echo: Value,
}

fn cases() -> Vec<Case> {
    let t = |text: &str| ms(text);
    let big = Scope::Topic(BIG_TOPIC);
    let echo = |from: Option<i64>,
                to: Option<i64>,
                board: Option<i64>,
                author: Option<i64>,
                topic: Option<i64>| {
        json!({
            "date_from": from.map(fmt),
            "date_to": to.map(fmt),
            "board_id": board,
            "author_uid": author,
            "topic_id": topic,
        })
    };
    let f = |from: Option<i64>,
             to: Option<i64>,
             board: Option<i64>,
             author: Option<i64>,
             topic: Option<i64>| Filters {
        from,
        to,
        board,
        author,
        topic,
    };
    let mut out = Vec::new();
    let mut add = |scope, query, from, to, board, author, topic| {
        out.push(Case {
            scope,
            query,
            filters: f(from, to, board, author, topic),
            echo: echo(from, to, board, author, topic),
        });
    };
    let feb = Some(t("2024-02-01T00:00:00Z"));
    let mar = Some(t("2024-03-01T10:00:00Z"));
    add(big, "date_from=2024-02-01", feb, None, None, None, None);
    add(
        big,
        "date_to=2024-03-01T12:00:00%2B02:00",
        None,
        mar,
        None,
        None,
        None,
    );
    add(
        big,
        "date_from=2024-02-01&date_to=2024-03-01T12:00:00%2B02:00",
        feb,
        mar,
        None,
        None,
        None,
    );
    add(
        big,
        "date_from=2024-01-15T06:30:00.5-03:00",
        Some(t("2024-01-15T09:30:00.500Z")),
        None,
        None,
        None,
        None,
    );
    add(big, "board_id=1", None, None, Some(1), None, None);
    add(big, "board_id=2", None, None, Some(2), None, None);
    add(big, "board_id=3", None, None, Some(3), None, None);
    add(big, "author_uid=2", None, None, None, Some(2), None);
    add(
        big,
        "author_uid=5&date_to=2024-02-15",
        None,
        Some(t("2024-02-15T00:00:00Z")),
        None,
        Some(5),
        None,
    );
    add(
        big,
        "board_id=1&author_uid=1&date_from=2024-01-10&date_to=2024-03-20T00:00:00Z",
        Some(t("2024-01-10T00:00:00Z")),
        Some(t("2024-03-20T00:00:00Z")),
        Some(1),
        Some(1),
        None,
    );
    add(
        Scope::Topic(200),
        "board_id=3&date_from=2023-12-05",
        Some(t("2023-12-05T00:00:00Z")),
        None,
        Some(3),
        None,
        None,
    );
    add(
        Scope::Profile(1),
        "topic_id=100",
        None,
        None,
        None,
        None,
        Some(100),
    );
    add(
        Scope::Profile(1),
        "topic_id=200",
        None,
        None,
        None,
        None,
        Some(200),
    );
    add(
        Scope::Profile(1),
        "board_id=3",
        None,
        None,
        Some(3),
        None,
        None,
    );
    add(
        Scope::Profile(1),
        "board_id=1&date_from=2024-01-20",
        Some(t("2024-01-20T00:00:00Z")),
        None,
        Some(1),
        None,
        None,
    );
    add(
        Scope::Profile(2),
        "topic_id=100&date_from=2023-01-01&date_to=2024-02-01T00:00:00.001Z",
        Some(t("2023-01-01T00:00:00Z")),
        Some(t("2024-02-01T00:00:00.001Z")),
        None,
        None,
        Some(100),
    );
    add(
        Scope::Profile(1),
        "date_to=2099-01-01",
        None,
        Some(t("2099-01-01T00:00:00Z")),
        None,
        None,
        None,
    );
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn filters_and_their_combinations_match_the_listing() {
    let api = start(Config::default()).await;
    let oracle = seed(&api);
    let caller = api.caller(1_000_000);
    for case in cases() {
        for (desc, limit) in [(false, 7u64), (true, 7), (false, 100), (true, 1)] {
            let expected = oracle.listing(case.scope, case.filters, desc);
            if limit == 1 && expected.len() > 60 {
                continue;
            }
            let order = if desc { "desc" } else { "asc" };
            let expect = Expect {
                scope: scope_json(case.scope),
                order,
                limit,
                filters: case.echo.clone(),
            };
            let query = format!("{}&limit={limit}&order={order}", case.query);
            let done = walk(&api, &caller, &path(case.scope), &query, &expect).await;
            assert_eq!(ids(&done.posts), ids(&expected), "{:?} {query}", case.scope);
            assert_eq!(done.posts, expected, "{:?} {query}", case.scope);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn date_bounds_are_inclusive_from_and_exclusive_to() {
    let api = start(Config::default()).await;
    let oracle = seed(&api);
    let caller = api.caller(10_000);
    // Exactly the posting time of two groups of three posts, written with offsets.
    let from = big_posted_at(42).expect("dated");
    assert_eq!(big_posted_at(44), Some(from));
    let to = big_posted_at(72).expect("dated");
    assert_eq!(big_posted_at(74), Some(to));
    let query = format!(
        "date_from={}&date_to={}&limit=100",
        stamp(from, 120).replace('+', "%2B"),
        stamp(to, -60)
    );
    let expect = Expect {
        scope: scope_json(Scope::Topic(BIG_TOPIC)),
        order: "asc",
        limit: 100,
        filters: json!({"date_from": fmt(from), "date_to": fmt(to), "board_id": null, "author_uid": null, "topic_id": null}),
    };
    let done = walk(
        &api,
        &caller,
        &path(Scope::Topic(BIG_TOPIC)),
        &query,
        &expect,
    )
    .await;
    let filters = Filters {
        from: Some(from),
        to: Some(to),
        ..Filters::default()
    };
    assert_eq!(
        done.posts,
        oracle.listing(Scope::Topic(BIG_TOPIC), filters, false)
    );
    let dates: Vec<i64> = done
        .posts
        .iter()
        .map(|p| ms(p["posted_at"].as_str().expect("dated only")))
        .collect();
    assert_eq!(dates[..3], [from; 3], "date_from is inclusive");
    assert!(dates.iter().all(|&d| d < to), "date_to is exclusive");
}

fn lines(values: &[Value]) -> Vec<String> {
    values.iter().map(line).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_walk_keeps_its_snapshot_across_a_concurrent_import() {
    let api = start(Config::default()).await;
    let mut oracle = seed(&api);
    let caller = api.caller(100_000);
    let scope = Scope::Topic(BIG_TOPIC);
    for (desc, profile) in [(false, false), (true, true)] {
        let scope = if profile { Scope::Profile(1) } else { scope };
        let old: Oracle = oracle.clone();
        let order = if desc { "desc" } else { "asc" };
        let expect = Expect {
            scope: scope_json(scope),
            order,
            limit: 7,
            filters: no_filters(),
        };
        let mut url = format!("{}?limit=7&order={order}", path(scope));
        let mut got = Vec::new();
        let mut pages = 0;
        loop {
            let page = api.ok(&caller, &url).await;
            pages += 1;
            assert_eq!(page["limit"], expect.limit);
            got.extend(page["data"].as_array().expect("data").iter().cloned());
            if pages == 2 {
                // New posts (early, late, undated), edits of walked and unwalked posts, a
                // moved topic and a renamed board: none of it may show in this walk.
                let at = if profile {
                    "2024-09-01T00:00:00Z"
                } else {
                    "2024-08-01T00:00:00Z"
                };
                let offset = if profile { 1_000 } else { 0 };
                let author = Some((1, "user1"));
                let mut new = vec![
                    post(
                        1 + offset,
                        BIG_TOPIC,
                        author,
                        Some("2023-06-01T00:00:00Z"),
                        at,
                    ),
                    post(
                        2 + offset,
                        BIG_TOPIC,
                        author,
                        Some("2025-01-01T00:00:00Z"),
                        at,
                    ),
                    post(3 + offset, BIG_TOPIC, author, None, at),
                    json!({"kind":"topic","topic_id":BIG_TOPIC,"board_id":2,"title":"moved","observed_at":at}),
                    json!({"kind":"board","board_id":1,"name":format!("renamed {at}"),"observed_at":at}),
                ];
                for walked in [&got[0], &got[3], &got[13]] {
                    let mut edit: Value = walked.clone();
                    let mut again = post(
                        edit["post_id"].as_i64().unwrap(),
                        edit["topic_id"].as_i64().unwrap(),
                        edit["author"]["profile_id"]
                            .as_i64()
                            .map(|id| (id, edit["author"]["username"].as_str().unwrap())),
                        Some("2024-01-20T00:00:00Z"),
                        at,
                    );
                    again["title"] = json!("updated after the snapshot");
                    edit = again;
                    new.push(edit);
                }
                let batch = lines(&new);
                // The batch's time (its `indexed_at`) follows the earlier ones'.
                api.clock.advance(chrono::Duration::milliseconds(5));
                oracle.add(&batch, api.import(&batch));
                // Lookups see the new corpus at once.
                let fresh = api
                    .ok(&caller, &format!("/api/v1/posts/{}", 1 + offset))
                    .await;
                assert_eq!(Some(fresh), oracle.post(1 + offset));
            }
            match page["next_cursor"].as_str() {
                Some(cursor) => url = format!("{}?cursor={cursor}", path(scope)),
                None => break,
            }
        }
        let before = old.listing(scope, Filters::default(), desc);
        assert_eq!(
            ids(&got),
            ids(&before),
            "{scope:?} {order}: the old snapshot"
        );
        assert_eq!(
            got, before,
            "{scope:?} {order}: the old snapshot, document by document"
        );
        let after = oracle.listing(scope, Filters::default(), desc);
        assert_ne!(ids(&after), ids(&before));
        let fresh = walk(
            &api,
            &caller,
            &path(scope),
            &format!("limit=7&order={order}"),
            &expect,
        )
        .await;
        assert_eq!(fresh.posts, after, "a new walk sees the import");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn short_and_empty_pages_carry_cursors_and_are_charged() {
    let api = start(Config::default()).await;
    // 2150 posts; only the three oldest are on board 9, so a board-9 page runs out of
    // scan budget: asc gives [3 posts + cursor, empty terminal page], desc gives
    // [empty page + cursor, 3 posts].
    let at = "2024-06-01T00:00:00Z";
    let mut values = Vec::new();
    for i in 0..2150i64 {
        let mut p = post(
            50_000 + i,
            500,
            Some((1, "user1")),
            Some(&stamp(ms("2022-01-01T00:00:00Z") + i * 60_000, 0)),
            at,
        );
        if i < 3 {
            p["board_id"] = json!(9);
        }
        values.push(p);
    }
    let batch = lines(&values);
    let mut oracle = Oracle::default();
    oracle.add(&batch, api.import(&batch));
    let caller = api.caller(10_000);
    for (order, sizes) in [("asc", [3usize, 0]), ("desc", [0, 3])] {
        let expect = Expect {
            scope: scope_json(Scope::Topic(500)),
            order,
            limit: 100,
            filters: json!({"date_from": null, "date_to": null, "board_id": 9, "author_uid": null, "topic_id": null}),
        };
        let query = format!("board_id=9&limit=100&order={order}");
        let done = walk(&api, &caller, "/api/v1/topics/500/posts", &query, &expect).await;
        let got: Vec<usize> = done
            .pages
            .iter()
            .map(|p| p["data"].as_array().unwrap().len())
            .collect();
        assert_eq!(got, sizes, "{order}");
        let filters = Filters {
            board: Some(9),
            ..Filters::default()
        };
        assert_eq!(
            done.posts,
            oracle.listing(Scope::Topic(500), filters, order == "desc")
        );
    }
    // The whole topic, unfiltered, at the largest page size.
    let expect = Expect {
        scope: scope_json(Scope::Topic(500)),
        order: "desc",
        limit: 100,
        filters: no_filters(),
    };
    let done = walk(
        &api,
        &caller,
        "/api/v1/topics/500/posts",
        "limit=100&order=desc",
        &expect,
    )
    .await;
    assert_eq!(
        ids(&done.posts),
        ids(&oracle.listing(Scope::Topic(500), Filters::default(), true))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn empty_and_unknown_scopes() {
    let api = start(Config::default()).await;
    seed(&api);
    let caller = api.caller(1_000);
    for (url, scope) in [
        (
            "/api/v1/topics/400/posts",
            json!({"type": "topic", "id": 400}),
        ),
        (
            "/api/v1/profiles/7/posts",
            json!({"type": "profile", "id": 7}),
        ),
        (
            "/api/v1/topics/100/posts?board_id=99",
            json!({"type": "topic", "id": 100}),
        ),
        (
            "/api/v1/topics/100/posts?date_from=2030-01-01",
            json!({"type": "topic", "id": 100}),
        ),
        (
            "/api/v1/profiles/7/posts?topic_id=100&order=desc&limit=3",
            json!({"type": "profile", "id": 7}),
        ),
    ] {
        let page = api.ok(&caller, url).await;
        super::shapes::assert_post_list(&page);
        assert_eq!(page["scope"], scope, "{url}");
        assert_eq!(page["data"], json!([]), "{url}");
        assert_eq!(page["has_more"], false, "{url}");
        assert_eq!(page["next_cursor"], Value::Null, "{url}");
    }
    for url in [
        "/api/v1/topics/999/posts",
        "/api/v1/profiles/999/posts",
        "/api/v1/topics/9007199254740991/posts",
        "/api/v1/profiles/8/posts?limit=5",
    ] {
        api.fails(&caller, url, 404).await;
    }
}
