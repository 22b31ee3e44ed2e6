//! The metering headers of every 200, one ledger row per charge, and the rate limit.

use std::collections::HashSet;

use forumdex_clock::{Clock as _, SystemClock};
use reqwest::StatusCode;

use crate::checks::{assert_not_charged, assert_uuid, expect_error, header, int_header};
use crate::harness::{POST, PROFILE, SendTo, TOPIC, TestApp};

#[tokio::test(flavor = "multi_thread")]
async fn every_200_carries_the_metering_headers_and_a_ledger_row() {
    let server = TestApp::start().await;
    let (account, key_id, secret) = server.funded(10);
    let ledger_before = server.money(account).1.len();
    let mut request_ids = Vec::new();
    let mut last_remaining = i64::MAX;

    for (n, path) in [POST, TOPIC, PROFILE, POST, "/api/v1/posts/29"]
        .iter()
        .enumerate()
    {
        let now = SystemClock.now().timestamp();
        let response = server
            .client
            .get(server.url(path))
            .bearer_auth(&secret)
            .header("x-request-id", "client-chosen-id")
            .send_to(&server)
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let headers = response.headers().clone();
        let body: serde_json::Value = response.json().await.expect("json");
        assert!(body.is_object(), "{path}");

        let request_id = header(&headers, "x-request-id");
        assert_ne!(
            request_id, "client-chosen-id",
            "a client-sent id is ignored"
        );
        assert_uuid(&request_id);
        assert_eq!(int_header(&headers, "x-credits-charged"), 1);
        let balance = server.money(account).0;
        assert_eq!(
            int_header(&headers, "x-credits-remaining"),
            i64::try_from(balance).expect("small"),
            "{path}: X-Credits-Remaining is the new balance"
        );
        assert_eq!(balance, 10 - (n as u64 + 1));
        assert_eq!(int_header(&headers, "x-ratelimit-limit"), 120);
        let remaining = int_header(&headers, "x-ratelimit-remaining");
        assert_eq!(remaining, 120 - (n as i64 + 1));
        assert!(
            remaining < last_remaining,
            "X-RateLimit-Remaining decreases"
        );
        last_remaining = remaining;
        let reset = int_header(&headers, "x-ratelimit-reset");
        assert!(
            reset >= now && reset <= now + 61,
            "X-RateLimit-Reset {reset} is a Unix time within the minute after {now}"
        );
        request_ids.push(request_id);
    }
    let unique: HashSet<&String> = request_ids.iter().collect();
    assert_eq!(unique.len(), request_ids.len(), "request ids are unique");

    let ledger = server.money(account).1;
    let charges = &ledger[ledger_before..];
    assert_eq!(
        charges.len(),
        request_ids.len(),
        "one ledger row per charge"
    );
    for (row, request_id) in charges.iter().zip(&request_ids) {
        assert_eq!(row.amount, -1);
        assert_eq!(row.request_id.as_deref(), Some(request_id.as_str()));
        assert_eq!(row.key_id.as_ref(), Some(&key_id));
        assert!(!row.operation.is_empty());
    }
    assert_eq!(charges.last().map(|row| row.balance_after), Some(5));
}

#[tokio::test(flavor = "multi_thread")]
async fn request_n_plus_one_of_a_window_is_429_and_free() {
    let server = TestApp::with_config("rate_limit_per_minute = 3\n").await;
    let (account, _, secret) = server.funded(10);
    let mut remaining = Vec::new();
    for _ in 0..3 {
        let response = server.get(POST, Some(&secret)).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(int_header(response.headers(), "x-ratelimit-limit"), 3);
        remaining.push(int_header(response.headers(), "x-ratelimit-remaining"));
    }
    assert_eq!(remaining, [2, 1, 0]);
    let before = server.money(account);
    assert_eq!(before.0, 7);

    let now = SystemClock.now().timestamp();
    let (headers, body) = expect_error(
        server.get(POST, Some(&secret)).await,
        StatusCode::TOO_MANY_REQUESTS,
    )
    .await;
    assert_eq!(int_header(&headers, "x-ratelimit-limit"), 3);
    assert_eq!(int_header(&headers, "x-ratelimit-remaining"), 0);
    let reset = int_header(&headers, "x-ratelimit-reset");
    assert!(reset > now && reset <= now + 61, "reset {reset} near {now}");
    let retry_after = int_header(&headers, "retry-after");
    assert!((1..=61).contains(&retry_after), "Retry-After {retry_after}");
    assert!(body.get("topupUrl").is_none());
    // Refused requests are not counted: still refused, still free.
    expect_error(
        server.get(TOPIC, Some(&secret)).await,
        StatusCode::TOO_MANY_REQUESTS,
    )
    .await;
    assert_not_charged(&server, account, &before);

    // The limit is per key: another key of the same account has its own window.
    let (_, other) = server.key(account, &[]);
    assert_eq!(
        server.get(POST, Some(&other)).await.status(),
        StatusCode::OK
    );
}
