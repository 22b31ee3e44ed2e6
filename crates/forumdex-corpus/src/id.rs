//! Forum IDs: integers in `1..=9007199254740991` (the largest integer a JSON double holds),
//! and [`parse_canonical`], the one parser of unsigned integers written by clients (path IDs,
//! `limit`, `size`, ...).

use std::fmt;
use std::ops::RangeInclusive;

/// The largest forum ID the corpus format and the API accept (2^53 - 1).
pub const MAX_ID: u64 = 9_007_199_254_740_991;

/// A validated forum ID (post, topic, profile or board): `1..=MAX_ID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ForumId(i64);

impl ForumId {
    /// Accepts `value` when it lies in `1..=MAX_ID`.
    pub fn new(value: u64) -> Option<Self> {
        (1..=MAX_ID).contains(&value).then_some(Self(value as i64))
    }

    /// Parses a decimal string with no sign, spaces or leading zeros ([`parse_canonical`]).
    pub fn parse(text: &str) -> Option<Self> {
        parse_canonical(text, 1..=MAX_ID).map(|id| Self(id as i64))
    }

    /// The ID as stored in SQL.
    pub fn get(self) -> i64 {
        self.0
    }
}

impl fmt::Display for ForumId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Parses `text` as an unsigned integer written canonically (ASCII digits only: no sign,
/// spaces, leading zeros, exponent or fraction; `0` itself is canonical) lying in `range`.
pub fn parse_canonical(text: &str, range: RangeInclusive<u64>) -> Option<u64> {
    if !is_canonical(text) {
        return None;
    }
    text.parse::<u64>().ok().filter(|n| range.contains(n))
}

/// Whether `text` writes a non-negative integer canonically, whatever its size (see
/// [`parse_canonical`]).
pub fn is_canonical(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_integers_only() {
        assert_eq!(parse_canonical("0", 0..=5), Some(0));
        assert_eq!(parse_canonical("5", 0..=5), Some(5));
        assert_eq!(
            parse_canonical("18446744073709551615", 0..=u64::MAX),
            Some(u64::MAX)
        );
        for bad in [
            "", "6", "07", "00", "+1", "-1", " 1", "1 ", "1.0", "1e1", "0x1",
        ] {
            assert_eq!(parse_canonical(bad, 0..=5), None, "{bad}");
        }
        assert_eq!(parse_canonical("18446744073709551616", 0..=u64::MAX), None);
        assert_eq!(parse_canonical("0", 1..=5), None);
        assert!(is_canonical("99999999999999999999999") && !is_canonical("09"));
    }

    #[test]
    fn bounds_and_syntax() {
        assert_eq!(ForumId::parse("1").map(ForumId::get), Some(1));
        assert_eq!(
            ForumId::parse("9007199254740991").map(ForumId::get),
            Some(9_007_199_254_740_991)
        );
        for bad in [
            "0",
            "9007199254740992",
            "-1",
            "+1",
            "01",
            "1.0",
            "",
            " 1",
            "1e3",
            "99999999999999999999",
        ] {
            assert_eq!(ForumId::parse(bad), None, "{bad}");
        }
    }
}
