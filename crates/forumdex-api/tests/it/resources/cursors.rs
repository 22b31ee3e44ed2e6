//! Cursor rules: inherited and repeated options, other scopes, other accounts, revoked
//! keys, tampering at every position, idle and snapshot expiry.

use chrono::Duration;

use serde_json::Value;

use super::fixture::seed;
use super::shapes::{Config, start};
use crate::checks::assert_error_body;
use crate::harness::{Caller, Paid, TestApp};

const T: &str = "/api/v1/topics/100/posts";

async fn first_cursor(api: &TestApp, caller: &Caller, url: &str) -> (Value, String) {
    let page = api.ok(caller, url).await;
    let cursor = page["next_cursor"]
        .as_str()
        .expect("more pages follow")
        .to_owned();
    (page, cursor)
}

#[tokio::test(flavor = "multi_thread")]
async fn options_beside_a_cursor_must_repeat_the_original_ones() {
    let api = start(Config::default()).await;
    seed(&api);
    let caller = api.caller(10_000);
    let (_, cursor) = first_cursor(&api, &caller, &format!("{T}?limit=7")).await;
    let alone = api.ok(&caller, &format!("{T}?cursor={cursor}")).await;
    // Stateless: the same cursor gives the same page again.
    let again = api.ok(&caller, &format!("{T}?cursor={cursor}")).await;
    assert_eq!(alone["data"], again["data"]);
    for same in [
        "limit=7",
        "order=asc",
        "limit=7&order=asc",
        "order=asc&limit=7",
    ] {
        let page = api
            .ok(&caller, &format!("{T}?{same}&cursor={cursor}"))
            .await;
        assert_eq!(page["data"], alone["data"], "{same}");
    }
    for differs in [
        "order=desc",
        "limit=8",
        "limit=50",
        "board_id=1",
        "author_uid=1",
        "date_from=2024-01-01",
        "date_to=2030-01-01",
        "limit=7&order=desc",
        "limit=7&limit=7",
        "foo=1",
        "topic_id=100",
    ] {
        api.fails(&caller, &format!("{T}?{differs}&cursor={cursor}"), 400)
            .await;
    }

    // A filtered walk: each filter may be repeated, alone or together, but not changed.
    let original =
        "board_id=1&date_from=2024-02-01&date_to=2024-03-01T12:00:00%2B02:00&limit=3&order=desc";
    let (_, cursor) = first_cursor(&api, &caller, &format!("{T}?{original}")).await;
    let alone = api.ok(&caller, &format!("{T}?cursor={cursor}")).await;
    for same in [
        original,
        "board_id=1",
        "date_from=2024-02-01",
        "date_to=2024-03-01T12:00:00%2B02:00&order=desc",
    ] {
        let page = api
            .ok(&caller, &format!("{T}?cursor={cursor}&{same}"))
            .await;
        assert_eq!(page["data"], alone["data"], "{same}");
    }
    for differs in [
        "board_id=2",
        "date_from=2024-02-02",
        "date_to=2024-03-01T12:00:00Z",
        "order=asc",
        "limit=4",
        "author_uid=2",
    ] {
        api.fails(&caller, &format!("{T}?cursor={cursor}&{differs}"), 400)
            .await;
    }

    // Profile endpoint: topic_id repeated identically is fine, changed is not.
    let (_, cursor) = first_cursor(
        &api,
        &caller,
        "/api/v1/profiles/1/posts?topic_id=100&limit=2",
    )
    .await;
    api.ok(
        &caller,
        &format!("/api/v1/profiles/1/posts?topic_id=100&cursor={cursor}"),
    )
    .await;
    for differs in ["topic_id=200", "author_uid=1"] {
        api.fails(
            &caller,
            &format!("/api/v1/profiles/1/posts?{differs}&cursor={cursor}"),
            400,
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cursor_belongs_to_its_scope_and_its_account() {
    let api = start(Config::default()).await;
    seed(&api);
    let owner = api.caller(10_000);
    let stranger = api.caller(10_000);
    let (_, cursor) = first_cursor(&api, &owner, &format!("{T}?limit=7")).await;
    for other in [
        "/api/v1/topics/200/posts",
        "/api/v1/topics/300/posts",
        "/api/v1/profiles/100/posts",
        "/api/v1/profiles/1/posts",
    ] {
        api.fails(&owner, &format!("{other}?cursor={cursor}"), 400)
            .await;
    }
    // Another account cannot use it, even with options identical to the original.
    api.fails(&stranger, &format!("{T}?cursor={cursor}"), 400)
        .await;
    api.fails(&stranger, &format!("{T}?cursor={cursor}&limit=7"), 400)
        .await;
    // Another key of the same account can; a revoked key cannot (401 before anything).
    let second_key = api.key_for(owner.account);
    api.ok(&second_key, &format!("{T}?cursor={cursor}")).await;
    api.revoke(&owner);
    let resp = api.get_as(&owner, &format!("{T}?cursor={cursor}")).await;
    assert_eq!(resp.status, 401, "{}", resp.body);
    assert_error_body(&resp.body);
    assert_eq!(resp.charged, None);
    // And a revoked key's request for a garbage cursor is a 401 too, not a 400.
    let resp = api.get_as(&owner, &format!("{T}?cursor=garbage")).await;
    assert_eq!(resp.status, 401, "{}", resp.body);
}

const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

#[tokio::test(flavor = "multi_thread")]
async fn a_cursor_changed_at_any_position_is_a_free_400() {
    let api = start(Config::default()).await;
    seed(&api);
    let caller = api.caller(100_000);
    // A cursor with every optional field present, so every payload byte is exercised.
    let (_, cursor) = first_cursor(
        &api,
        &caller,
        "/api/v1/profiles/1/posts?topic_id=100&board_id=1&date_from=2024-01-01&date_to=2024-06-01&limit=2&order=desc",
    )
    .await;
    let before = api.balance(&caller);
    let bytes = cursor.as_bytes();
    let mut tried = 0;
    for at in 0..bytes.len() {
        let index = BASE64URL
            .iter()
            .position(|&c| c == bytes[at])
            .expect("base64url");
        for shift in [1, 32] {
            let mut changed = bytes.to_vec();
            changed[at] = BASE64URL[(index + shift) % 64];
            let changed = String::from_utf8(changed).expect("ascii");
            let resp = api
                .get_as(
                    &caller,
                    &format!("/api/v1/profiles/1/posts?cursor={changed}"),
                )
                .await;
            assert_eq!(resp.status, 400, "position {at}: {}", resp.body);
            assert_error_body(&resp.body);
            tried += 1;
        }
    }
    // Truncated, extended and doubled cursors.
    for changed in [
        cursor[..cursor.len() - 1].to_owned(),
        cursor[1..].to_owned(),
        format!("{cursor}A"),
        format!("{cursor}AAAA"),
        format!("{cursor}{cursor}"),
        cursor.replace('-', "+"),
        format!("{cursor}="),
    ] {
        if changed == cursor {
            continue;
        }
        let resp = api
            .get_as(
                &caller,
                &format!(
                    "/api/v1/profiles/1/posts?cursor={}",
                    changed.replace('+', "%2B").replace('=', "%3D")
                ),
            )
            .await;
        assert_eq!(resp.status, 400, "{changed}: {}", resp.body);
        assert_error_body(&resp.body);
    }
    assert!(tried >= 2 * 100, "a realistic cursor is long: {tried}");
    assert_eq!(
        api.balance(&caller),
        before,
        "no tampered request was charged"
    );
    // The original still works.
    api.ok(
        &caller,
        &format!("/api/v1/profiles/1/posts?cursor={cursor}"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_cursor_expires_with_a_free_410() {
    let api = start(Config {
        idle: 1,
        snapshot: 3600,
        ..Config::default()
    })
    .await;
    seed(&api);
    let caller = api.caller(1_000);
    let stranger = api.caller(1_000);
    let (page, cursor) = first_cursor(&api, &caller, &format!("{T}?limit=5")).await;
    // cursor_expires_at is now + 1 s, well before the snapshot's hour.
    let expires = super::shapes::millis(page["cursor_expires_at"].as_str().unwrap());
    let snapshot = super::shapes::millis(page["snapshot_at"].as_str().unwrap());
    assert!(expires - snapshot <= 1_000 + 1_000, "idle bound applies");
    api.clock.advance(Duration::milliseconds(1_600));
    let error = api
        .fails(&caller, &format!("{T}?cursor={cursor}"), 410)
        .await;
    assert!(error.contains("idle"), "{error}");
    // The account check comes first: another account still gets a 400.
    api.fails(&stranger, &format!("{T}?cursor={cursor}"), 400)
        .await;
    // A cursor in use stays alive: each page restarts the idle clock.
    let (_, mut cursor) = first_cursor(&api, &caller, &format!("{T}?limit=5")).await;
    for _ in 0..3 {
        api.clock.advance(Duration::milliseconds(300));
        let page = api.ok(&caller, &format!("{T}?cursor={cursor}")).await;
        cursor = page["next_cursor"].as_str().unwrap().to_owned();
    }
    // Restarting without a cursor works.
    api.ok(&caller, &format!("{T}?limit=5")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_old_snapshot_expires_with_a_free_410() {
    let api = start(Config {
        idle: 60,
        snapshot: 1,
        ..Config::default()
    })
    .await;
    seed(&api);
    let caller = api.caller(1_000);
    let (page, cursor) = first_cursor(&api, &caller, &format!("{T}?limit=5")).await;
    let expires = super::shapes::millis(page["cursor_expires_at"].as_str().unwrap());
    let snapshot = super::shapes::millis(page["snapshot_at"].as_str().unwrap());
    assert_eq!(expires, snapshot + 1_000, "the snapshot bound applies");
    api.clock.advance(Duration::milliseconds(1_600));
    let error = api
        .fails(&caller, &format!("{T}?cursor={cursor}"), 410)
        .await;
    assert!(error.contains("snapshot"), "{error}");
    // Both expired: the snapshot check comes first.
    let api = start(Config {
        idle: 1,
        snapshot: 2,
        ..Config::default()
    })
    .await;
    seed(&api);
    let caller = api.caller(1_000);
    let (_, cursor) = first_cursor(&api, &caller, &format!("{T}?limit=5")).await;
    api.clock.advance(Duration::milliseconds(2_600));
    let error = api
        .fails(&caller, &format!("{T}?cursor={cursor}"), 410)
        .await;
    assert!(error.contains("snapshot"), "{error}");
    // A walk kept busy still ends when its snapshot ages out.
    let (_, mut cursor) = first_cursor(&api, &caller, &format!("{T}?limit=1")).await;
    let mut status = 200;
    for _ in 0..10 {
        api.clock.advance(Duration::milliseconds(700));
        let resp = api.get_as(&caller, &format!("{T}?cursor={cursor}")).await;
        status = resp.status;
        if status != 200 {
            assert_error_body(&resp.body);
            break;
        }
        cursor = resp.body["next_cursor"].as_str().unwrap().to_owned();
    }
    assert_eq!(status, 410, "the snapshot lifetime bounds a walk");
}
