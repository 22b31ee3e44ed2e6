//! The in-memory sliding-log rate limiter: the conformance suite of forumdex-testkit, plus
//! its memory bound. Time is passed in; nothing sleeps.

use chrono::{DateTime, Duration, TimeZone, Utc};
use forumdex_accounts::{InMemoryRateLimiter, KeyId, RateLimiter};

forumdex_testkit::rate_limiter_conformance!(|_| InMemoryRateLimiter::new());

/// 2026-01-01T00:00:00Z plus `offset_ms` milliseconds.
fn at_ms(offset_ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(1_767_225_600_000 + offset_ms)
        .single()
        .expect("valid instant")
}

#[tokio::test]
async fn idle_keys_are_forgotten() {
    let limiter = InMemoryRateLimiter::new();
    for i in 0..1000 {
        let key = KeyId::generate();
        assert!(
            limiter
                .check(&key, 10, at_ms(i))
                .await
                .expect("check")
                .allowed
        );
    }
    assert_eq!(limiter.tracked_keys(), 1000);
    let later = at_ms(0) + Duration::minutes(3);
    assert!(
        limiter
            .check(&KeyId::generate(), 10, later)
            .await
            .expect("check")
            .allowed
    );
    assert_eq!(limiter.tracked_keys(), 1);
}
