//! Forum IDs: integers in `1..=9007199254740991` (the largest integer a JSON double holds).

use std::fmt;

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

    /// Parses a decimal string with no sign, spaces or leading zeros.
    pub fn parse(text: &str) -> Option<Self> {
        let canonical = !text.is_empty()
            && text.len() <= 16
            && text.bytes().all(|b| b.is_ascii_digit())
            && !text.starts_with('0');
        if !canonical {
            return None;
        }
        text.parse::<u64>().ok().and_then(Self::new)
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

#[cfg(test)]
mod tests {
    use super::*;

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
