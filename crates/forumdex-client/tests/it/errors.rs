//! The contract's refusals arrive as their own variants with the error body's details, and
//! none of them is retried (a retry always waits first: the recording clock stays empty).

use std::sync::Arc;

use forumdex_client::{Client, Error, ForumId};

use crate::helpers::{RecordingClock, TestServer};

/// A client of `server` whose waits are recorded, and the recorder.
fn recorded(server: &TestServer, key: &str) -> (Client, Arc<RecordingClock>) {
    let clock = Arc::new(RecordingClock::default());
    let client = Client::builder(&server.base_url(), key)
        .use_env_proxy(false)
        .clock(clock.clone())
        .build()
        .expect("client builds");
    (client, clock)
}

fn post_id() -> ForumId {
    ForumId::new(100).expect("valid")
}

#[tokio::test]
async fn no_credits_is_payment_required_with_the_topup_url() {
    let server = TestServer::start("").await;
    let (_, _, key) = server.key(0, &[]);
    let (client, clock) = recorded(&server, &key);
    let err = client.post(post_id()).await.expect_err("no credits");
    let Error::PaymentRequired(details) = &err else {
        panic!("expected 402, got {err:?}");
    };
    assert_eq!(details.status, 402);
    let topup = details
        .topup_url
        .as_deref()
        .expect("a 402 carries topupUrl");
    assert!(topup.ends_with("/dashboard/billing"), "{topup}");
    assert_eq!(details.credits_charged, Some(0));
    assert!(err.request_id().is_some_and(|id| !id.is_empty()));
    assert!(!details.message.is_empty());
    assert_eq!(clock.count(), 0, "a 402 is not retried");
}

#[tokio::test]
async fn a_revoked_key_is_unauthorized() {
    let server = TestServer::start("").await;
    let (_, key_id, key) = server.key(10, &[]);
    let (client, clock) = recorded(&server, &key);
    client.post(post_id()).await.expect("the key works");
    server.revoke(&key_id);
    let err = client.post(post_id()).await.expect_err("revoked");
    assert!(matches!(err, Error::Unauthorized(_)), "{err:?}");
    assert_eq!(err.status(), Some(401));
    assert!(err.request_id().is_some());
    assert_eq!(clock.count(), 0, "a 401 is not retried");
}

#[tokio::test]
async fn an_address_outside_the_allowlist_is_forbidden_with_the_source_ip() {
    let server = TestServer::start("").await;
    let (_, _, key) = server.key(10, &["192.0.2.7"]);
    let (client, clock) = recorded(&server, &key);
    let err = client.post(post_id()).await.expect_err("not allowed");
    let Error::Forbidden(details) = &err else {
        panic!("expected 403, got {err:?}");
    };
    assert_eq!(details.source_ip.as_deref(), Some("127.0.0.1"));
    assert_eq!(clock.count(), 0, "a 403 is not retried");
}

#[tokio::test]
async fn a_missing_post_is_not_found_and_a_foreign_cursor_a_bad_request() {
    let server = TestServer::start("").await;
    let (account, _, key) = server.key(10, &[]);
    let (client, clock) = recorded(&server, &key);
    let err = client
        .post(ForumId::new(99_999).expect("valid"))
        .await
        .expect_err("no such post");
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
    let err = client
        .topic_posts_page(
            ForumId::new(5).expect("valid"),
            &Default::default(),
            Some("not-a-cursor"),
        )
        .await
        .expect_err("a tampered cursor");
    assert!(matches!(err, Error::BadRequest(_)), "{err:?}");
    assert_eq!(clock.count(), 0, "404 and 400 are not retried");
    assert_eq!(server.accounts_balance(account), 10, "nothing charged");
}
