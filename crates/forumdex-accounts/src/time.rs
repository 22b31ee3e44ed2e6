//! Instants as the contract writes them: RFC 3339, UTC, millisecond precision
//! (`2026-01-02T03:04:05.000Z`). Stores keep Unix milliseconds.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An instant that serializes as `2026-01-02T03:04:05.000Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp(pub DateTime<Utc>);

impl Timestamp {
    /// Parses RFC 3339 with any offset and converts it to UTC, truncated to milliseconds.
    pub fn parse(s: &str) -> Result<Self, chrono::ParseError> {
        let at = DateTime::parse_from_rfc3339(s.trim())?;
        Ok(Self(truncate_millis(at.with_timezone(&Utc))))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_millis(self.0))
    }
}

impl FromStr for Timestamp {
    type Err = chrono::ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl From<DateTime<Utc>> for Timestamp {
    fn from(at: DateTime<Utc>) -> Self {
        Self(at)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format_millis(self.0))
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// Formats `at` as RFC 3339 UTC with exactly three fractional digits and a `Z`.
pub fn format_millis(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Drops everything below the millisecond.
pub fn truncate_millis(at: DateTime<Utc>) -> DateTime<Utc> {
    from_unix_millis(at.timestamp_millis())
}

/// The instant `millis` milliseconds after the Unix epoch (clamped to chrono's range).
pub fn from_unix_millis(millis: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(millis)
        .single()
        .unwrap_or(if millis < 0 {
            DateTime::<Utc>::MIN_UTC
        } else {
            DateTime::<Utc>::MAX_UTC
        })
}
