//! The Redis rate limiter against a real Redis server (forumdex-testkit's `redis`:
//! `FORUMDEX_TEST_REDIS_URL`, else a private `redis-server`): the conformance suite of
//! forumdex-testkit, each limiter under a prefix of its own, and the failure when Redis
//! cannot be reached.

use forumdex_accounts::{KeyId, RateLimiter};
use forumdex_clock::{Clock as _, SystemClock};
use forumdex_redis::{LocalFallback, RedisRateLimiter};
use forumdex_testkit::redis::redis_url;

/// A limiter whose keys no other test (or earlier run) shares.
fn isolated_limiter() -> RedisRateLimiter {
    let prefix = format!("forumdex-test:{:016x}:", rand::random::<u64>());
    RedisRateLimiter::new(&redis_url(), prefix).expect("a valid Redis URL")
}

forumdex_testkit::rate_limiter_conformance!(|_| isolated_limiter());

#[tokio::test]
async fn an_unreachable_redis_is_an_error_not_an_admission() {
    // Port 1 on loopback: nothing listens there.
    let limiter = RedisRateLimiter::new("redis://127.0.0.1:1", "forumdex-test:").expect("url");
    let outcome = limiter
        .check(&KeyId::generate(), 10, SystemClock.now())
        .await;
    assert!(outcome.is_err(), "{outcome:?}");
}

#[test]
fn a_malformed_url_is_refused_at_once() {
    assert!(RedisRateLimiter::new("http://not-redis", "p:").is_err());
}

#[tokio::test]
async fn with_the_local_fallback_an_unreachable_redis_counts_on_the_node() {
    let limiter = LocalFallback::new(
        RedisRateLimiter::new("redis://127.0.0.1:1", "forumdex-test:").expect("url"),
    );
    let key = KeyId::generate();
    let now = SystemClock.now();
    for admitted in 1..=3 {
        let decision = limiter.check(&key, 3, now).await.expect("decided locally");
        assert!(decision.allowed);
        assert_eq!(decision.remaining, 3 - admitted);
    }
    let refused = limiter.check(&key, 3, now).await.expect("decided locally");
    assert!(!refused.allowed, "the limit still holds on the node");
}

#[tokio::test]
async fn with_the_local_fallback_a_reachable_redis_still_decides() {
    let prefix = format!("forumdex-test:{:016x}:", rand::random::<u64>());
    let shared = || RedisRateLimiter::new(&redis_url(), prefix.clone()).expect("url");
    // Two nodes' limiters on one Redis: the window is shared, not counted per node.
    let (a, b) = (LocalFallback::new(shared()), LocalFallback::new(shared()));
    let key = KeyId::generate();
    let now = SystemClock.now();
    assert!(a.check(&key, 2, now).await.unwrap().allowed);
    assert!(b.check(&key, 2, now).await.unwrap().allowed);
    assert!(!a.check(&key, 2, now).await.unwrap().allowed);
    assert!(!b.check(&key, 2, now).await.unwrap().allowed);
}

#[tokio::test]
async fn two_deployments_with_their_own_prefixes_count_apart_on_one_redis() {
    // Setting `redis_prefix`: the same key id, two deployments, one Redis server.
    let run = format!("forumdex-test:{:016x}:", rand::random::<u64>());
    let production = RedisRateLimiter::new(&redis_url(), format!("{run}prod:")).expect("url");
    let staging = RedisRateLimiter::new(&redis_url(), format!("{run}staging:")).expect("url");
    let key = KeyId::generate();
    let now = SystemClock.now();
    assert!(production.check(&key, 1, now).await.unwrap().allowed);
    assert!(!production.check(&key, 1, now).await.unwrap().allowed);
    let other = staging.check(&key, 1, now).await.unwrap();
    assert!(other.allowed, "staging's window is its own");
    assert_eq!(other.remaining, 0);
}
