//! The contract's rate-limit headers, on every paid answer: a 200 (the pipeline) and a 429
//! (the error body).

use axum::http::{HeaderMap, HeaderValue};
use forumdex_accounts::RateDecision;

/// `X-RateLimit-Limit`, `-Remaining` and `-Reset` (a Unix timestamp).
pub fn insert_rate_headers(headers: &mut HeaderMap, decision: &RateDecision) {
    headers.insert("x-ratelimit-limit", HeaderValue::from(decision.limit));
    headers.insert(
        "x-ratelimit-remaining",
        HeaderValue::from(decision.remaining),
    );
    headers.insert(
        "x-ratelimit-reset",
        HeaderValue::from(decision.reset_at_unix_secs),
    );
}
