//! The conformance suite of [`RateLimiter`]: an exact rolling 60 s window per key, with
//! what the `X-RateLimit-*` headers need. Time is passed in; nothing sleeps.
//! [`rate_limiter_conformance!`](crate::rate_limiter_conformance) runs every case.

use std::future::Future;
use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use forumdex_accounts::{KeyId, RateDecision, RateLimiter};

use crate::Fresh;

/// Runs every case of [`rate`](crate::rate) as a `#[test]` in a module
/// `rate_limiter_conformance`, on limiters made by `$make` (`|dir: &Path| -> impl
/// RateLimiter + 'static`, an empty limiter; `dir` is a temporary folder it may use).
#[macro_export]
macro_rules! rate_limiter_conformance {
    ($make:expr) => {
        $crate::__conformance_tests!(rate_limiter_conformance, [$crate::rate], $make;
            admits_exactly_the_limit_in_a_window,
            admits_again_once_the_oldest_leaves,
            refused_requests_are_not_recorded,
            never_more_than_the_limit_in_any_rolling_window,
            keys_are_independent,
            a_zero_limit_refuses_everything,
            concurrent_checks_admit_exactly_the_limit,
        );
    };
}

/// Unix seconds of the base instant 2026-01-01T00:00:00Z (a whole second).
const BASE_SECS: i64 = 1_767_225_600;

/// The base instant plus `offset_ms` milliseconds.
fn at_ms(offset_ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(BASE_SECS * 1000 + offset_ms)
        .single()
        .expect("valid instant")
}

/// Runs `work` to completion on a runtime of the case's own.
fn block_on<F: Future>(work: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(work)
}

/// One check that must not fail.
async fn check(limiter: &impl RateLimiter, key: &KeyId, limit: u32, ms: i64) -> RateDecision {
    limiter
        .check(key, limit, at_ms(ms))
        .await
        .expect("rate limiter check")
}

/// `limit` requests in a window are admitted, with the remaining count and the reset
/// instant (when the oldest leaves); the next one is refused.
pub fn admits_exactly_the_limit_in_a_window<L: RateLimiter>(fresh: &Fresh<'_, L>) {
    let limiter = fresh.backend();
    let key = KeyId::generate();
    block_on(async {
        for i in 0..5 {
            let d = check(&limiter, &key, 5, i * 1000).await;
            assert!(d.allowed, "request {i}");
            assert_eq!(d.limit, 5);
            assert_eq!(d.remaining, 4 - u32::try_from(i).expect("small"));
            assert_eq!(
                d.reset_at_unix_secs,
                BASE_SECS + 60,
                "oldest leaves at t0 + 60 s"
            );
        }
        let refused = check(&limiter, &key, 5, 10_000).await;
        assert!(!refused.allowed);
        assert_eq!(refused.remaining, 0);
        assert_eq!(refused.reset_at_unix_secs, BASE_SECS + 60);
    });
}

/// A request is counted for exactly 60 s: at 60 s after it, a slot is free again; the reset
/// instant rounds up to a whole second.
pub fn admits_again_once_the_oldest_leaves<L: RateLimiter>(fresh: &Fresh<'_, L>) {
    let limiter = fresh.backend();
    let key = KeyId::generate();
    block_on(async {
        // Requests at 0 ms, 500 ms and 20.5 s.
        for ms in [0, 500, 20_500] {
            assert!(check(&limiter, &key, 3, ms).await.allowed);
        }
        // Just before the first one leaves: refused.
        let refused = check(&limiter, &key, 3, 59_999).await;
        assert!(!refused.allowed);
        assert_eq!(refused.reset_at_unix_secs, BASE_SECS + 60);
        // At exactly 60 s the first one has left: one slot.
        let admitted = check(&limiter, &key, 3, 60_000).await;
        assert!(admitted.allowed);
        assert_eq!(admitted.remaining, 0);
        // Now the oldest is the one at 500 ms: reset rounds 60.5 s up to 61 s.
        assert_eq!(admitted.reset_at_unix_secs, BASE_SECS + 61);
        assert!(!check(&limiter, &key, 3, 60_499).await.allowed);
        assert!(check(&limiter, &key, 3, 60_500).await.allowed);
    });
}

/// A refused request takes no slot.
pub fn refused_requests_are_not_recorded<L: RateLimiter>(fresh: &Fresh<'_, L>) {
    let limiter = fresh.backend();
    let key = KeyId::generate();
    block_on(async {
        assert!(check(&limiter, &key, 2, 0).await.allowed);
        assert!(check(&limiter, &key, 2, 1_000).await.allowed);
        // Hammering while full changes nothing.
        for ms in (2_000..59_000).step_by(1_000) {
            assert!(!check(&limiter, &key, 2, ms).await.allowed);
        }
        // Had the refusals counted, these would be refused.
        assert!(check(&limiter, &key, 2, 60_000).await.allowed);
        assert!(check(&limiter, &key, 2, 61_000).await.allowed);
        assert!(!check(&limiter, &key, 2, 61_001).await.allowed);
    });
}

/// Over five minutes of steady traffic with bursts, no rolling 60 s holds more than the
/// limit, and the limit is used.
pub fn never_more_than_the_limit_in_any_rolling_window<L: RateLimiter>(fresh: &Fresh<'_, L>) {
    let limiter = fresh.backend();
    let key = KeyId::generate();
    let limit = 7;
    let mut admitted = Vec::new();
    block_on(async {
        // A request every 700 ms for five minutes, with bursts.
        for step in 0..430_i64 {
            let ms = step * 700 + if step % 10 == 0 { 0 } else { (step % 3) * 7 };
            if check(&limiter, &key, limit, ms).await.allowed {
                admitted.push(ms);
            }
        }
    });
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

/// Each key has its own window.
pub fn keys_are_independent<L: RateLimiter>(fresh: &Fresh<'_, L>) {
    let limiter = fresh.backend();
    let (a, b) = (KeyId::generate(), KeyId::generate());
    block_on(async {
        assert!(check(&limiter, &a, 1, 0).await.allowed);
        assert!(!check(&limiter, &a, 1, 1).await.allowed);
        assert!(check(&limiter, &b, 1, 2).await.allowed);
    });
}

/// A limit of 0 refuses every request; the reset instant is `now`, rounded up.
pub fn a_zero_limit_refuses_everything<L: RateLimiter>(fresh: &Fresh<'_, L>) {
    let limiter = fresh.backend();
    let key = KeyId::generate();
    let d = block_on(check(&limiter, &key, 0, 1_500));
    assert!(!d.allowed);
    assert_eq!(d.remaining, 0);
    assert_eq!(d.reset_at_unix_secs, BASE_SECS + 2);
}

/// 100 checks of one key race on four threads, at instants a few milliseconds apart in no
/// particular order: exactly `limit` are admitted, each seeing a different remaining count.
pub fn concurrent_checks_admit_exactly_the_limit<L: RateLimiter + 'static>(fresh: &Fresh<'_, L>) {
    let limiter = Arc::new(fresh.backend());
    let key = KeyId::generate();
    let limit = 10;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let decisions: Vec<RateDecision> = runtime.block_on(async {
        let tasks: Vec<_> = (0..100_i64)
            .map(|i| {
                let (limiter, key) = (Arc::clone(&limiter), key.clone());
                tokio::spawn(
                    async move { check(limiter.as_ref(), &key, limit, (i * 37) % 100).await },
                )
            })
            .collect();
        let mut decisions = Vec::new();
        for task in tasks {
            decisions.push(task.await.expect("check task"));
        }
        decisions
    });
    let mut remaining: Vec<u32> = decisions
        .iter()
        .filter(|d| d.allowed)
        .map(|d| d.remaining)
        .collect();
    remaining.sort_unstable();
    assert_eq!(remaining, (0..limit).collect::<Vec<_>>());
    assert!(
        decisions
            .iter()
            .filter(|d| !d.allowed)
            .all(|d| d.remaining == 0)
    );
}
