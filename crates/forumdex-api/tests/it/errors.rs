//! Every status of the contract's error table: the JSON body, and no charge.

use std::collections::BTreeSet;

use forumdex_accounts::ApiKey;
use forumdex_clock::{Clock as _, SystemClock};
use forumdex_sqlite::SqliteCorpusStore;
use reqwest::StatusCode;
use reqwest::header::{ALLOW, AUTHORIZATION};
use serde_json::Value;

use crate::checks::{assert_not_charged, expect_error, header};
use crate::harness::{POST, PROFILE, SendTo, TOPIC, TestApp};

#[tokio::test(flavor = "multi_thread")]
async fn every_key_state_but_active_is_401_and_free() {
    let server = TestApp::start().await;
    let (account, key_id, secret) = server.funded(10);
    let before = server.money(account);
    let url = server.url(POST);
    let unknown = ApiKey::generate().expose_secret().to_owned();

    let cases: Vec<(&str, reqwest::RequestBuilder)> = vec![
        ("missing", server.client.get(&url)),
        (
            "malformed bearer",
            server.client.get(&url).bearer_auth("garbage"),
        ),
        (
            "malformed checksum",
            server
                .client
                .get(&url)
                .bearer_auth(with_last_char_changed(&secret)),
        ),
        (
            "malformed x-api-key",
            server
                .client
                .get(&url)
                .header("x-api-key", "fdx_live_short"),
        ),
        (
            "empty bearer",
            server.client.get(&url).header(AUTHORIZATION, "Bearer "),
        ),
        (
            "basic scheme",
            server
                .client
                .get(&url)
                .header(AUTHORIZATION, format!("Basic {secret}")),
        ),
        (
            "unknown well-formed",
            server.client.get(&url).bearer_auth(&unknown),
        ),
        (
            "unknown via x-api-key",
            server.client.get(&url).header("x-api-key", &unknown),
        ),
        (
            "two different keys",
            server
                .client
                .get(&url)
                .bearer_auth(&secret)
                .header("x-api-key", &unknown),
        ),
    ];
    for (what, request) in cases {
        let response = request.send_to(&server).await.expect("sent");
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{what}");
        expect_error(response, StatusCode::UNAUTHORIZED).await;
    }
    assert_not_charged(&server, account, &before);

    // Both headers are accepted, alone or together when they agree.
    for request in [
        server.client.get(&url).bearer_auth(&secret),
        server.client.get(&url).header("x-api-key", &secret),
        server
            .client
            .get(&url)
            .bearer_auth(&secret)
            .header("x-api-key", &secret),
    ] {
        let response = request.send_to(&server).await.expect("sent");
        assert_eq!(response.status(), StatusCode::OK);
    }
    assert_eq!(server.money(account).0, 7);

    // Expired (by moving the expiry into the past) then revoked: 401, free.
    let before = server.money(account);
    server.expire(&key_id);
    for request in [
        server.client.get(&url).bearer_auth(&secret),
        server.client.get(&url).header("x-api-key", &secret),
    ] {
        let (_, body) = expect_error(
            request.send_to(&server).await.expect("sent"),
            StatusCode::UNAUTHORIZED,
        )
        .await;
        assert!(
            body["error"]
                .as_str()
                .unwrap_or_default()
                .contains("expired"),
            "{body}"
        );
    }
    server
        .store(|accounts| accounts.set_key_expiry(&key_id, None))
        .expect("renew");
    assert_eq!(
        server.get(POST, Some(&secret)).await.status(),
        StatusCode::OK
    );
    let before_revoke = server.money(account);
    assert_eq!(before_revoke.0, before.0 - 1);
    server
        .store(|accounts| accounts.revoke_key(&key_id, SystemClock.now()))
        .expect("revoke");
    for request in [
        server.client.get(&url).bearer_auth(&secret),
        server.client.get(&url).header("x-api-key", &secret),
    ] {
        let (_, body) = expect_error(
            request.send_to(&server).await.expect("sent"),
            StatusCode::UNAUTHORIZED,
        )
        .await;
        assert!(
            body["error"]
                .as_str()
                .unwrap_or_default()
                .contains("revoked"),
            "{body}"
        );
    }
    assert_not_charged(&server, account, &before_revoke);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_account_gets_402_with_topup_url_and_is_not_charged() {
    let server = TestApp::with_config("topup_url = \"https://pay.example.com/topup\"\n").await;
    let (account, _, secret) = server.funded(0);
    let before = server.money(account);
    for path in [POST, TOPIC, PROFILE] {
        let (headers, body) = expect_error(
            server.get(path, Some(&secret)).await,
            StatusCode::PAYMENT_REQUIRED,
        )
        .await;
        assert_eq!(body["topupUrl"], "https://pay.example.com/topup", "{body}");
        // Admitted by the rate limiter, so the window headers are there.
        assert!(headers.contains_key("x-ratelimit-limit"));
    }
    assert_not_charged(&server, account, &before);

    // The default topupUrl is an absolute URL on the service.
    let default = TestApp::start().await;
    let (_, _, secret) = default.funded(0);
    let (_, body) = expect_error(
        default.get(POST, Some(&secret)).await,
        StatusCode::PAYMENT_REQUIRED,
    )
    .await;
    // {base_url}/dashboard/billing, with base_url derived from the bound address (not port 0).
    assert_eq!(
        body["topupUrl"],
        format!("http://{}/dashboard/billing", default.addr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_resources_and_routes_are_404_and_free() {
    let server = TestApp::start().await;
    let (account, _, secret) = server.funded(5);
    let before = server.money(account);
    for path in [
        "/api/v1/posts/999999",
        "/api/v1/topics/999999",
        "/api/v1/profiles/999999",
        "/api/v1/nothing-here",
        "/api/v2/posts/28",
        "/nothing-here",
    ] {
        let (_, body) =
            expect_error(server.get(path, Some(&secret)).await, StatusCode::NOT_FOUND).await;
        assert!(body.get("topupUrl").is_none() && body.get("sourceIp").is_none());
    }
    // An unknown route needs no key to be told so.
    expect_error(
        server.get("/api/v1/nothing-here", None).await,
        StatusCode::NOT_FOUND,
    )
    .await;
    assert_not_charged(&server, account, &before);
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_ids_and_unknown_parameters_are_400_and_free() {
    let server = TestApp::start().await;
    let (account, _, secret) = server.funded(5);
    let before = server.money(account);
    for path in [
        "/api/v1/posts/abc",
        "/api/v1/posts/0",
        "/api/v1/posts/-1",
        "/api/v1/posts/1.5",
        "/api/v1/topics/x",
        "/api/v1/profiles/%20",
        "/api/v1/posts/28?foo=1",
        "/api/v1/posts/28?",
        "/api/v1/topics/5?limit=5",
        "/api/v1/profiles/3?x",
    ] {
        let response = server.get(path, Some(&secret)).await;
        if path.ends_with('?') {
            // An empty query string is no parameter at all.
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            continue;
        }
        let (_, body) = expect_error(response, StatusCode::BAD_REQUEST).await;
        assert!(body.get("topupUrl").is_none(), "{path}: {body}");
    }
    let after = server.money(account);
    assert_eq!(
        after.0,
        before.0 - 1,
        "only the one valid request was charged"
    );
    assert_eq!(after.1.len(), before.1.len() + 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn other_methods_are_405_and_head_is_never_charged() {
    let server = TestApp::start().await;
    let (account, _, secret) = server.funded(5);
    let before = server.money(account);
    for method in [
        reqwest::Method::POST,
        reqwest::Method::PUT,
        reqwest::Method::DELETE,
    ] {
        let response = server
            .client
            .request(method.clone(), server.url(POST))
            .bearer_auth(&secret)
            .send_to(&server)
            .await
            .expect("sent");
        let (headers, _) = expect_error(response, StatusCode::METHOD_NOT_ALLOWED).await;
        assert!(
            header(&headers, ALLOW.as_str()).contains("GET"),
            "{method}: Allow"
        );
    }
    let response = server
        .client
        .head(server.url(POST))
        .bearer_auth(&secret)
        .send_to(&server)
        .await
        .expect("sent");
    // HEAD is no paid operation (axum's `get` would answer it): refused like POST.
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(header(response.headers(), ALLOW.as_str()).contains("GET"));
    assert!(response.headers().contains_key("x-request-id"));
    assert!(!response.headers().contains_key("x-credits-charged"));
    assert_not_charged(&server, account, &before);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_corpus_is_503_and_free() {
    if !crate::harness::embedded_only("a_broken_corpus_is_503_and_free") {
        return;
    }
    let server = TestApp::start().await;
    let (account, _, secret) = server.funded(5);
    assert_eq!(
        server.get(POST, Some(&secret)).await.status(),
        StatusCode::OK
    );
    let before = server.money(account);

    // Break the corpus under the running server: its tables are gone, whatever the
    // file permissions (tests may run as root).
    let conn = rusqlite::Connection::open(server.dir.path().join(SqliteCorpusStore::FILE_NAME))
        .expect("open corpus db");
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .and_then(|mut stmt| stmt.query_map([], |row| row.get(0))?.collect())
        .expect("list tables");
    assert!(!tables.is_empty());
    conn.execute_batch("PRAGMA foreign_keys = OFF")
        .expect("pragma");
    for table in &tables {
        conn.execute_batch(&format!("DROP TABLE IF EXISTS \"{table}\""))
            .expect("drop table");
    }
    drop(conn);

    for path in [POST, TOPIC, PROFILE] {
        let (headers, body) = expect_error(
            server.get(path, Some(&secret)).await,
            StatusCode::SERVICE_UNAVAILABLE,
        )
        .await;
        assert!(body.get("topupUrl").is_none(), "{body}");
        assert!(!headers.contains_key("x-credits-remaining"));
    }
    expect_error(
        server.get("/readyz", None).await,
        StatusCode::SERVICE_UNAVAILABLE,
    )
    .await;
    assert_not_charged(&server, account, &before);
}

/// The keys a status adds to the error body, with their JSON types.
type Extra = &'static [(&'static str, &'static str)];

/// The keys and JSON types of the error body, per status, pinned.
#[tokio::test(flavor = "multi_thread")]
async fn error_wire_format_is_pinned() {
    let server = TestApp::with_config("rate_limit_per_minute = 1\n").await;
    let key = || server.funded(5).2;
    let (_, _, empty) = server.funded(0);
    let account = server.account(5);
    let (_, denied) = server.key(account, &["10.0.0.0/8"]);
    let limited_key = key();
    assert_eq!(
        server.get(POST, Some(&limited_key)).await.status(),
        StatusCode::OK
    );

    let shapes: [(reqwest::Response, StatusCode, Extra); 6] = [
        (
            server.get("/api/v1/posts/abc", Some(&key())).await,
            StatusCode::BAD_REQUEST,
            &[],
        ),
        (server.get(POST, None).await, StatusCode::UNAUTHORIZED, &[]),
        (
            server.get(POST, Some(&empty)).await,
            StatusCode::PAYMENT_REQUIRED,
            &[("topupUrl", "string")],
        ),
        (
            server.get(POST, Some(&denied)).await,
            StatusCode::FORBIDDEN,
            &[("sourceIp", "string")],
        ),
        (
            server.get("/api/v1/posts/999999", Some(&key())).await,
            StatusCode::NOT_FOUND,
            &[],
        ),
        (
            server.get(POST, Some(&limited_key)).await,
            StatusCode::TOO_MANY_REQUESTS,
            &[],
        ),
    ];
    for (response, status, extra) in shapes {
        let (_, body) = expect_error(response, status).await;
        let object = body.as_object().expect("an object");
        let mut expected: BTreeSet<(&str, &str)> = [
            ("error", "string"),
            ("requestId", "string"),
            ("creditsCharged", "integer"),
        ]
        .into_iter()
        .collect();
        expected.extend(extra.iter().copied());
        let actual: BTreeSet<(&str, &str)> = object
            .iter()
            .map(|(key, value)| (key.as_str(), json_type(value)))
            .collect();
        assert_eq!(actual, expected, "{status}: {body}");
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `secret` with its last character replaced by another one (never by itself: a secret
/// ending in `x` became itself again, and the case passed as a valid key).
fn with_last_char_changed(secret: &str) -> String {
    let (head, last) = secret.split_at(secret.len() - 1);
    format!("{head}{}", if last == "x" { 'y' } else { 'x' })
}
