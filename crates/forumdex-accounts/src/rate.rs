//! Per-key rate limits: never more than N admitted requests in any rolling 60 seconds.
//!
//! [`RateLimiter`] is the seam for a shared (Redis) implementation; [`InMemoryRateLimiter`]
//! keeps, per key, a log of the instants of the requests it admitted in the last 60 s. A
//! request is admitted when fewer than N admitted requests lie in the 60 s before it; a
//! refused request is not recorded. This is exact (unlike GCRA, which admits about twice
//! the quota in the first minute; DESIGN.md "Money and limits").

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use chrono::{DateTime, Utc};

use crate::ids::KeyId;

/// The rolling window, in milliseconds.
pub const WINDOW_MILLIS: i64 = 60_000;

/// How often (at most) idle keys are swept from memory, in milliseconds.
const SWEEP_EVERY_MILLIS: i64 = WINDOW_MILLIS;

/// The outcome of [`RateLimiter::check`], with what the `X-RateLimit-*` headers need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateDecision {
    /// Whether the request is admitted (and counted).
    pub allowed: bool,
    /// The limit checked against (`X-RateLimit-Limit`).
    pub limit: u32,
    /// Requests still admissible right now (`X-RateLimit-Remaining`).
    pub remaining: u32,
    /// Unix seconds, rounded up, when the oldest admitted request in the window leaves it,
    /// so a client waiting until then can send again (`X-RateLimit-Reset`); `now` when the
    /// window is empty.
    pub reset_at_unix_secs: i64,
}

impl RateDecision {
    /// The decision of a sliding log of `limit` at `now_ms` (Unix ms): whether the request
    /// was admitted, how many admitted requests the window holds now (`used`, the request
    /// included when admitted) and the oldest of them. Every backend builds its decision
    /// here, so the `X-RateLimit-*` headers mean the same whichever answers.
    pub fn from_log(
        allowed: bool,
        limit: u32,
        used: usize,
        oldest_ms: Option<i64>,
        now_ms: i64,
    ) -> Self {
        let used = u32::try_from(used).unwrap_or(u32::MAX);
        Self {
            allowed,
            limit,
            remaining: limit.saturating_sub(used),
            reset_at_unix_secs: ceil_secs(
                oldest_ms.map_or(now_ms, |oldest| oldest + WINDOW_MILLIS),
            ),
        }
    }
}

/// A failure of a shared rate-limit backend (the in-memory one never fails).
#[derive(Debug, thiserror::Error)]
#[error("rate limiter failed: {0}")]
pub struct RateLimitError(#[source] pub Box<dyn std::error::Error + Send + Sync>);

/// Decides whether a key may make one more request at `now`.
///
/// `check` is async so that a network-backed limiter (Redis) is awaited without holding a
/// runtime thread; an implementation must not block inside it beyond a short critical
/// section (the in-memory one takes a mutex for a few microseconds).
#[async_trait::async_trait]
pub trait RateLimiter: Send + Sync {
    /// Admits and records the request when fewer than `limit` requests of `key` were
    /// admitted in the 60 s before `now`; otherwise refuses it without recording it.
    async fn check(
        &self,
        key: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<RateDecision, RateLimitError>;

    /// Whether the limiter can decide now (for readiness): a shared backend answers. A
    /// limiter in the process always can.
    async fn ping(&self) -> Result<(), RateLimitError> {
        Ok(())
    }
}

#[derive(Debug, Default)]
struct State {
    /// Admitted instants (Unix ms) per key, ascending, all within the window of the last
    /// call for that key.
    logs: HashMap<KeyId, VecDeque<i64>>,
    /// When idle keys were last swept.
    last_sweep_millis: i64,
}

/// An exact sliding-log limiter for one process. Memory is bounded by the number of keys
/// active in the last minute times their limits: idle keys are swept about once a minute.
#[derive(Debug, Default)]
pub struct InMemoryRateLimiter {
    state: Mutex<State>,
}

impl InMemoryRateLimiter {
    /// An empty limiter.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many keys are currently tracked (for tests of the memory bound).
    pub fn tracked_keys(&self) -> usize {
        self.state.lock().map(|s| s.logs.len()).unwrap_or(0)
    }
}

/// Unix seconds at or after `millis` (ceiling division).
fn ceil_secs(millis: i64) -> i64 {
    millis.div_euclid(1000) + i64::from(millis.rem_euclid(1000) != 0)
}

#[async_trait::async_trait]
impl RateLimiter for InMemoryRateLimiter {
    async fn check(
        &self,
        key: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<RateDecision, RateLimitError> {
        let now_ms = now.timestamp_millis();
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);

        if now_ms - state.last_sweep_millis >= SWEEP_EVERY_MILLIS {
            state.logs.retain(|_, log| {
                log.back()
                    .is_some_and(|&newest| newest + WINDOW_MILLIS > now_ms)
            });
            state.last_sweep_millis = now_ms;
        }

        let log = state.logs.entry(key.clone()).or_default();
        // Requests at or before now - 60 s no longer count.
        while log
            .front()
            .is_some_and(|&oldest| oldest + WINDOW_MILLIS <= now_ms)
        {
            log.pop_front();
        }
        let limit_usize = usize::try_from(limit).unwrap_or(usize::MAX);
        let allowed = log.len() < limit_usize;
        if allowed {
            // Callers on other threads may pass slightly older instants: keep the log sorted.
            let at = log.partition_point(|&t| t <= now_ms);
            log.insert(at, now_ms);
        }
        let decision =
            RateDecision::from_log(allowed, limit, log.len(), log.front().copied(), now_ms);
        if log.is_empty() {
            state.logs.remove(key);
        }
        Ok(decision)
    }
}
