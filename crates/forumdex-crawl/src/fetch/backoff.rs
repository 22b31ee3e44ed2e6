//! How long to wait after a 429 or 503: `Retry-After` (seconds or an HTTP date), else an
//! exponential backoff; both capped.

use std::time::{Duration, SystemTime};

/// The longest wait the fetcher sits out before retrying a 429/503; when the forum asks
/// for longer, the fetch fails with [`super::FetchError::Throttled`] instead of retrying
/// early.
pub const MAX_THROTTLE_WAIT: Duration = Duration::from_secs(3600);
/// The longest hold the pacer takes (a `Retry-After` beyond it is a year: nothing is sent
/// again by this process).
const MAX_HOLD: Duration = Duration::from_secs(365 * 86_400);
/// The first wait of the exponential backoff used without a usable `Retry-After`; it doubles
/// with each retry.
pub const BACKOFF_BASE: Duration = Duration::from_secs(30);

/// The wait before retry number `retry` (0 for the first) after a 429/503 whose
/// `Retry-After` header is `retry_after`, read at `now`: what the forum asked for (at most
/// a year), else the doubling backoff capped at [`MAX_THROTTLE_WAIT`].
pub(crate) fn throttle_wait(retry_after: Option<&str>, retry: u32, now: SystemTime) -> Duration {
    match retry_after.and_then(|value| parse_retry_after(value, now)) {
        Some(asked) => asked.min(MAX_HOLD),
        None => BACKOFF_BASE
            .saturating_mul(2u32.saturating_pow(retry))
            .min(MAX_THROTTLE_WAIT),
    }
}

/// `Retry-After`: delay-seconds or an HTTP date (a date in the past is no wait).
fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(value.parse().map_or(MAX_HOLD, Duration::from_secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_seconds_or_as_a_date_is_honoured() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(throttle_wait(Some("1"), 0, now), Duration::from_secs(1));
        assert_eq!(
            throttle_wait(Some(" 120 "), 3, now),
            Duration::from_secs(120)
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(90));
        assert_eq!(throttle_wait(Some(&date), 0, now), Duration::from_secs(90));
        let past = httpdate::fmt_http_date(now - Duration::from_secs(90));
        assert_eq!(throttle_wait(Some(&past), 0, now), Duration::ZERO);
        assert_eq!(
            throttle_wait(Some("86400"), 0, now),
            Duration::from_secs(86400),
            "longer than the fetcher retries: the caller stops, it never retries early"
        );
        assert_eq!(
            throttle_wait(Some("99999999999999999999"), 0, now),
            MAX_HOLD
        );
    }

    #[test]
    fn without_retry_after_the_backoff_doubles_up_to_the_cap() {
        let now = SystemTime::UNIX_EPOCH;
        assert_eq!(throttle_wait(None, 0, now), BACKOFF_BASE);
        assert_eq!(throttle_wait(Some("soon"), 1, now), BACKOFF_BASE * 2);
        assert_eq!(throttle_wait(None, 2, now), BACKOFF_BASE * 4);
        assert_eq!(throttle_wait(None, 30, now), MAX_THROTTLE_WAIT);
    }
}
