//! The in-memory sliding-log rate limiter. Time is passed in; nothing sleeps.

use chrono::{DateTime, Duration, TimeZone, Utc};
use forumdex_accounts::{InMemoryRateLimiter, KeyId, RateLimiter};

/// An instant with a whole number of seconds: 2026-01-01T00:00:00Z = 1767225600.
fn at_ms(offset_ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(1_767_225_600_000 + offset_ms)
        .single()
        .expect("valid instant")
}

const BASE_SECS: i64 = 1_767_225_600;

#[test]
fn admits_exactly_the_limit_in_a_window() {
    let limiter = InMemoryRateLimiter::new();
    let key = KeyId::generate();
    for i in 0..5 {
        let d = limiter.check(&key, 5, at_ms(i * 1000)).expect("check");
        assert!(d.allowed, "request {i}");
        assert_eq!(d.limit, 5);
        assert_eq!(d.remaining, 4 - u32::try_from(i).expect("small"));
        assert_eq!(
            d.reset_at_unix_secs,
            BASE_SECS + 60,
            "oldest leaves at t0 + 60 s"
        );
    }
    let refused = limiter.check(&key, 5, at_ms(10_000)).expect("check");
    assert!(!refused.allowed);
    assert_eq!(refused.remaining, 0);
    assert_eq!(refused.reset_at_unix_secs, BASE_SECS + 60);
}

#[test]
fn admits_again_once_the_oldest_leaves() {
    let limiter = InMemoryRateLimiter::new();
    let key = KeyId::generate();
    // Requests at 0 ms, 500 ms and 20.5 s.
    for ms in [0, 500, 20_500] {
        assert!(limiter.check(&key, 3, at_ms(ms)).expect("check").allowed);
    }
    // Just before the first one leaves: refused.
    let refused = limiter.check(&key, 3, at_ms(59_999)).expect("check");
    assert!(!refused.allowed);
    assert_eq!(refused.reset_at_unix_secs, BASE_SECS + 60);
    // At exactly 60 s the first one has left: one slot.
    let admitted = limiter.check(&key, 3, at_ms(60_000)).expect("check");
    assert!(admitted.allowed);
    assert_eq!(admitted.remaining, 0);
    // Now the oldest is the one at 500 ms: reset rounds 60.5 s up to 61 s.
    assert_eq!(admitted.reset_at_unix_secs, BASE_SECS + 61);
    assert!(
        !limiter
            .check(&key, 3, at_ms(60_499))
            .expect("check")
            .allowed
    );
    assert!(
        limiter
            .check(&key, 3, at_ms(60_500))
            .expect("check")
            .allowed
    );
}

#[test]
fn refused_requests_are_not_recorded() {
    let limiter = InMemoryRateLimiter::new();
    let key = KeyId::generate();
    assert!(limiter.check(&key, 2, at_ms(0)).expect("check").allowed);
    assert!(limiter.check(&key, 2, at_ms(1_000)).expect("check").allowed);
    // Hammering while full changes nothing.
    for ms in (2_000..59_000).step_by(1_000) {
        assert!(!limiter.check(&key, 2, at_ms(ms)).expect("check").allowed);
    }
    // Had the refusals counted, these would be refused.
    assert!(
        limiter
            .check(&key, 2, at_ms(60_000))
            .expect("check")
            .allowed
    );
    assert!(
        limiter
            .check(&key, 2, at_ms(61_000))
            .expect("check")
            .allowed
    );
    assert!(
        !limiter
            .check(&key, 2, at_ms(61_001))
            .expect("check")
            .allowed
    );
}

#[test]
fn never_more_than_the_limit_in_any_rolling_window() {
    let limiter = InMemoryRateLimiter::new();
    let key = KeyId::generate();
    let limit = 7;
    let mut admitted = Vec::new();
    // A request every 700 ms for five minutes, with bursts.
    for step in 0..430_i64 {
        let ms = step * 700 + if step % 10 == 0 { 0 } else { (step % 3) * 7 };
        if limiter
            .check(&key, limit, at_ms(ms))
            .expect("check")
            .allowed
        {
            admitted.push(ms);
        }
    }
    for (i, &start) in admitted.iter().enumerate() {
        let in_window = admitted[i..]
            .iter()
            .take_while(|&&t| t < start + 60_000)
            .count();
        assert!(
            in_window <= limit as usize,
            "window at {start} ms holds {in_window}"
        );
    }
    // And it is not stingy: it admits `limit` per minute over five minutes.
    assert!(admitted.len() >= 5 * limit as usize);
}

#[test]
fn keys_are_independent() {
    let limiter = InMemoryRateLimiter::new();
    let (a, b) = (KeyId::generate(), KeyId::generate());
    assert!(limiter.check(&a, 1, at_ms(0)).expect("check").allowed);
    assert!(!limiter.check(&a, 1, at_ms(1)).expect("check").allowed);
    assert!(limiter.check(&b, 1, at_ms(2)).expect("check").allowed);
}

#[test]
fn a_zero_limit_refuses_everything() {
    let limiter = InMemoryRateLimiter::new();
    let key = KeyId::generate();
    let d = limiter.check(&key, 0, at_ms(1_500)).expect("check");
    assert!(!d.allowed);
    assert_eq!(d.remaining, 0);
    assert_eq!(d.reset_at_unix_secs, BASE_SECS + 2);
}

#[test]
fn idle_keys_are_forgotten() {
    let limiter = InMemoryRateLimiter::new();
    for i in 0..1000 {
        let key = KeyId::generate();
        assert!(limiter.check(&key, 10, at_ms(i)).expect("check").allowed);
    }
    assert_eq!(limiter.tracked_keys(), 1000);
    let later = at_ms(0) + Duration::minutes(3);
    assert!(
        limiter
            .check(&KeyId::generate(), 10, later)
            .expect("check")
            .allowed
    );
    assert_eq!(limiter.tracked_keys(), 1);
}
