//! Rate limits: with waiting allowed no 429 reaches the caller (the client waits for
//! `X-RateLimit-Reset`, on the server's clock, so no test sleeps); without, the 429 does.

use std::time::SystemTime;

use forumdex_client::{Error, ForumId};

use crate::helpers::TestServer;

fn post_id() -> ForumId {
    ForumId::new(100).expect("valid")
}

#[tokio::test]
async fn a_waiting_client_never_sees_a_429() {
    let server = TestServer::start("rate_limit_per_minute = 3\n").await;
    let (account, _, key) = server.key(100, &[]);
    // No retries: a 429 would reach the caller, so every success below is a wait before
    // the request (remaining 0 -> sleep until the reset), not a 429 retried.
    let client = server
        .client_builder(&key)
        .max_retries(0)
        .build()
        .expect("client builds");
    let start: SystemTime = forumdex_api::Clock::now(&*server.clock).into();
    for _ in 0..10 {
        client
            .post(post_id())
            .await
            .expect("no 429 reaches the caller");
    }
    assert_eq!(
        server.accounts_balance(account),
        90,
        "ten requests, ten credits"
    );
    let rate = client.rate_limit().expect("rate-limit headers");
    assert_eq!(rate.limit, 3);
    let end: SystemTime = forumdex_api::Clock::now(&*server.clock).into();
    let waited = end.duration_since(start).expect("time moves forward");
    // Ten requests at three a minute need at least three further windows.
    assert!(waited.as_secs() >= 180, "waited {waited:?} of server time");
}

#[tokio::test]
async fn a_429_is_waited_out_and_retried_or_returned_when_waiting_is_off() {
    let server = TestServer::start("rate_limit_per_minute = 3\n").await;
    let (account, _, key) = server.key(100, &[]);
    // Another client of the same key fills the window; the two below do not know it.
    let filler = server.client(&key);
    for _ in 0..3 {
        filler.post(post_id()).await.expect("within the limit");
    }
    assert_eq!(filler.rate_limit().map(|rate| rate.remaining), Some(0));

    let impatient = server
        .client_builder(&key)
        .wait_on_rate_limit(false)
        .build()
        .expect("client builds");
    let err = impatient
        .post(post_id())
        .await
        .expect_err("the window is full");
    let Error::RateLimited { error, reset_at } = &err else {
        panic!("expected 429, got {err:?}");
    };
    assert_eq!(error.status, 429);
    assert_eq!(error.credits_charged, Some(0));
    let now: SystemTime = forumdex_api::Clock::now(&*server.clock).into();
    assert!(reset_at.is_some_and(|at| at > now), "the reset is ahead");

    let patient = server.client(&key);
    patient
        .post(post_id())
        .await
        .expect("the 429 is waited out and retried");
    let after: SystemTime = forumdex_api::Clock::now(&*server.clock).into();
    assert!(
        reset_at.is_some_and(|at| after >= at),
        "the patient client waited (on the server's clock) for the reset"
    );
    assert_eq!(server.accounts_balance(account), 96, "the 429 cost nothing");
}
