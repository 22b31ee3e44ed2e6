//! [`LocalFallback`]: a shared limiter that, while its backend cannot be reached, lets the
//! node count for itself instead of refusing (setting `rate_limiter_fallback = "local"`).

use chrono::{DateTime, Utc};
use forumdex_accounts::{InMemoryRateLimiter, KeyId, RateDecision, RateLimitError, RateLimiter};

/// Asks `shared` first; when it fails (Redis away), the node's own in-memory limiter decides,
/// so requests are admitted, counted and answered with the same `X-RateLimit-*` headers. While
/// the shared backend is away each node admits up to the limit by itself (a key gets the
/// limit once per node), and what the node counted alone is not carried back to the shared
/// window.
pub struct LocalFallback<S> {
    shared: S,
    local: InMemoryRateLimiter,
}

impl<S> LocalFallback<S> {
    /// `shared`, falling back to a fresh in-memory limiter.
    pub fn new(shared: S) -> Self {
        Self {
            shared,
            local: InMemoryRateLimiter::new(),
        }
    }
}

#[async_trait::async_trait]
impl<S: RateLimiter> RateLimiter for LocalFallback<S> {
    async fn check(
        &self,
        key: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<RateDecision, RateLimitError> {
        match self.shared.check(key, limit, now).await {
            Ok(decision) => Ok(decision),
            Err(err) => {
                tracing::warn!(
                    error = %err,
                    "the shared rate limiter cannot be reached: this node counts the limit \
                     alone until it is back (rate_limiter_fallback = \"local\")"
                );
                self.local.check(key, limit, now).await
            }
        }
    }
}
