//! The Redis rate limiter against the Redis server of the machine (`FORUMDEX_TEST_REDIS_URL`,
//! default `redis://127.0.0.1:6379`; `.ci/run` makes sure one runs): the conformance suite of
//! forumdex-testkit, each limiter under a prefix of its own, and the failure when Redis
//! cannot be reached.

use chrono::Utc;
use forumdex_accounts::{KeyId, RateLimiter};
use forumdex_redis::RedisRateLimiter;

/// The Redis server the tests use.
fn redis_url() -> String {
    std::env::var("FORUMDEX_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

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
    let outcome = limiter.check(&KeyId::generate(), 10, Utc::now()).await;
    assert!(outcome.is_err(), "{outcome:?}");
}

#[test]
fn a_malformed_url_is_refused_at_once() {
    assert!(RedisRateLimiter::new("http://not-redis", "p:").is_err());
}
