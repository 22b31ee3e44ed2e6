//! The collection endpoints' 400 rules, each refused before any charge.

use super::fixture::seed;
use super::shapes::{Config, start};
use crate::harness::Paid;

const T: &str = "/api/v1/topics/100/posts";
const P: &str = "/api/v1/profiles/1/posts";

#[tokio::test(flavor = "multi_thread")]
async fn every_invalid_option_is_a_free_400() {
    let api = start(Config::default()).await;
    seed(&api);
    let caller = api.caller(1_000);
    let long_cursor = format!("cursor={}", "A".repeat(4097));
    let mut cases: Vec<String> = [
        // unknown, repeated, empty
        "foo=1",
        "limit=5&foo=",
        "Limit=5",
        "limit=5&limit=5",
        "order=asc&order=asc",
        "board_id=1&board_id=2",
        "limit=",
        "limit",
        "order=",
        "date_from=",
        "board_id=",
        "cursor=",
        // limit
        "limit=0",
        "limit=101",
        "limit=abc",
        "limit=-1",
        "limit=1.5",
        "limit=07",
        "limit=%2B5",
        "limit=1e2",
        // order
        "order=ASC",
        "order=random",
        "order=asc%20",
        // dates
        "date_from=2024-02-29T10:00:00",
        "date_to=2024-02-29T10:00:00",
        "date_from=2024-02-29T10:00:00.1234Z",
        "date_to=2024-02-29T10:00:00.1234%2B01:00",
        "date_from=2024-02-30",
        "date_to=2023-02-29",
        "date_from=2024-13-01",
        "date_from=2024-2-1",
        "date_from=24-01-01",
        "date_from=2024-02-29T10:00Z",
        "date_from=2024-02-29%2010:00:00Z",
        "date_from=yesterday",
        "date_from=1706745600",
        // ids
        "board_id=0",
        "board_id=-1",
        "board_id=01",
        "board_id=abc",
        "board_id=1.0",
        "board_id=9007199254740992",
        "author_uid=0",
        "author_uid=abc",
        "author_uid=9007199254740992",
        // an option of the other endpoint
        "topic_id=100",
        "topic_id=100&limit=5",
        // cursors
        "cursor=!!!",
        "cursor=AAAA",
    ]
    .iter()
    .map(|q| format!("{T}?{q}"))
    .collect();
    cases.push(format!("{T}?{long_cursor}"));
    for q in [
        "author_uid=1",
        "limit=5&author_uid=2",
        "topic_id=0",
        "topic_id=9007199254740992",
        "topic_id=x",
        "date_to=2024-02-30",
    ] {
        cases.push(format!("{P}?{q}"));
    }
    for path in [
        "/api/v1/topics/0/posts",
        "/api/v1/topics/-1/posts",
        "/api/v1/topics/abc/posts",
        "/api/v1/topics/01/posts",
        "/api/v1/topics/1.5/posts",
        "/api/v1/topics/9007199254740992/posts",
        "/api/v1/profiles/0/posts",
        "/api/v1/profiles/9007199254740992/posts",
    ] {
        cases.push(path.to_owned());
    }
    for url in &cases {
        api.fails(&caller, url, 400).await;
    }
    assert_eq!(api.balance(&caller), 1_000);
}

#[tokio::test(flavor = "multi_thread")]
async fn dates_normalise_to_four_digit_utc_years_or_are_refused() {
    let api = start(Config::default()).await;
    seed(&api);
    let caller = api.caller(1_000);
    // An offset may push a valid local date out of the years RFC 3339 can write in UTC.
    for bad in [
        "date_to=9999-12-31T23:00:00-05:00",
        "date_from=0000-01-01T00:00:00%2B01:00",
    ] {
        api.fails(&caller, &format!("{T}?{bad}"), 400).await;
    }
    for (query, name, echo) in [
        (
            "date_from=0000-01-01",
            "date_from",
            "0000-01-01T00:00:00.000Z",
        ),
        (
            "date_to=9999-12-31T23:59:59.999Z",
            "date_to",
            "9999-12-31T23:59:59.999Z",
        ),
        (
            "date_to=9999-12-31T23:00:00%2B05:00",
            "date_to",
            "9999-12-31T18:00:00.000Z",
        ),
    ] {
        let page = api.ok(&caller, &format!("{T}?{query}&limit=1")).await;
        assert_eq!(page["filters"][name], echo, "{query}");
        super::shapes::assert_post_list(&page);
    }
}
