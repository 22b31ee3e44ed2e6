//! Instants as milliseconds since the Unix epoch, UTC: how the corpus stores and compares time.

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use forumdex_clock::Clock;

/// An instant in milliseconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Millis(pub i64);

impl Millis {
    /// The current time on `clock`.
    pub fn now(clock: &dyn Clock) -> Self {
        Self::from_datetime(clock.now())
    }

    /// Converts a chrono instant (sub-millisecond digits are dropped).
    pub fn from_datetime(at: DateTime<Utc>) -> Self {
        Self(at.timestamp_millis())
    }

    /// Parses RFC 3339 with an explicit offset (`Z` or `+hh:mm`); sub-millisecond digits
    /// are dropped. `None` for anything else.
    pub fn parse_rfc3339(text: &str) -> Option<Self> {
        DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|at| Self(at.timestamp_millis()))
    }

    /// The instant as a chrono UTC date-time.
    pub fn to_datetime(self) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(self.0)
            .single()
            .expect("every stored instant came from a valid date-time")
    }

    /// RFC 3339 in UTC with exactly three fractional digits: `2009-11-22T18:51:31.000Z`.
    pub fn to_rfc3339(self) -> String {
        self.to_datetime()
            .to_rfc3339_opts(SecondsFormat::Millis, true)
    }

    /// Whole seconds since the epoch, rounded up (for `Retry-After`-style headers).
    pub fn unix_seconds_ceil(self) -> i64 {
        self.0.div_euclid(1000) + i64::from(self.0.rem_euclid(1000) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_three_fraction_digits_in_utc() {
        let at = Millis::parse_rfc3339("2009-11-22T19:51:31+01:00").unwrap();
        assert_eq!(at.to_rfc3339(), "2009-11-22T18:51:31.000Z");
        let frac = Millis::parse_rfc3339("2009-11-22T18:51:31.1239Z").unwrap();
        assert_eq!(frac.to_rfc3339(), "2009-11-22T18:51:31.123Z");
        assert!(Millis::parse_rfc3339("2009-11-22T18:51:31").is_none());
        assert!(Millis::parse_rfc3339("2009-11-22").is_none());
    }
}
