//! Typed request options: each value is checked once, when it is made, against the
//! contract's rules, so a request built from them cannot be a 400 for a malformed option.

use std::fmt;

use chrono::{DateTime, NaiveDate, Utc};
use forumdex_types::Order;

/// Why an option value was refused before any request was made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {option}: {reason}")]
pub struct InvalidOption {
    /// The option, as the contract names it (`q`, `lang`, `limit`, ...).
    pub option: &'static str,
    /// What the contract requires.
    pub reason: &'static str,
}

fn invalid(option: &'static str, reason: &'static str) -> InvalidOption {
    InvalidOption { option, reason }
}

/// The largest ID the contract accepts in collection paths and filters (2^53 - 1, the
/// largest integer a JSON number holds exactly).
pub const MAX_ID: u64 = 9_007_199_254_740_991;

/// A forum ID (post, topic, profile, board, author): 1 to [`MAX_ID`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ForumId(u64);

impl ForumId {
    /// `id` when it is 1 to [`MAX_ID`].
    pub fn new(id: u64) -> Result<Self, InvalidOption> {
        if (1..=MAX_ID).contains(&id) {
            Ok(Self(id))
        } else {
            Err(invalid("id", "an integer from 1 to 9007199254740991"))
        }
    }

    /// The ID as a number.
    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for ForumId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A search query (`q`): 1 to 512 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query(String);

impl Query {
    /// `text` when it holds 1 to 512 characters (Unicode scalar values).
    pub fn new(text: impl Into<String>) -> Result<Self, InvalidOption> {
        let text = text.into();
        let chars = text.chars().count();
        if (1..=512).contains(&chars) {
            Ok(Self(text))
        } else {
            Err(invalid("q", "1 to 512 characters"))
        }
    }

    /// The query text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A language code (`lang`): two lowercase letters, optionally `-` and two uppercase
/// letters (`en`, `pt-BR`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lang(String);

impl Lang {
    /// `code` when it matches `^[a-z]{2}(?:-[A-Z]{2})?$`.
    pub fn new(code: &str) -> Result<Self, InvalidOption> {
        let bytes = code.as_bytes();
        let language = |b: &[u8]| b.iter().all(u8::is_ascii_lowercase);
        let valid = match bytes {
            [a, b] => language(&[*a, *b]),
            [a, b, b'-', c, d] => {
                language(&[*a, *b]) && c.is_ascii_uppercase() && d.is_ascii_uppercase()
            }
            _ => false,
        };
        if valid {
            Ok(Self(code.to_owned()))
        } else {
            Err(invalid("lang", "two lowercase letters, optionally -XX"))
        }
    }

    /// The code.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A collection page size (`limit`): 1 to 100. The server's default is 50.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit(u8);

impl Limit {
    /// `limit` when it is 1 to 100.
    pub fn new(limit: u8) -> Result<Self, InvalidOption> {
        if (1..=100).contains(&limit) {
            Ok(Self(limit))
        } else {
            Err(invalid("limit", "1 to 100"))
        }
    }

    /// The page size.
    pub fn get(self) -> u8 {
        self.0
    }
}

/// The most images an image search returns (`size`): 1 to 50. The server's default is 24.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageCount(u8);

impl ImageCount {
    /// `size` when it is 1 to 50.
    pub fn new(size: u8) -> Result<Self, InvalidOption> {
        if (1..=50).contains(&size) {
            Ok(Self(size))
        } else {
            Err(invalid("size", "1 to 50"))
        }
    }

    /// The count.
    pub fn get(self) -> u8 {
        self.0
    }
}

/// A posting-time bound of a collection (`date_from` inclusive, `date_to` exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateBound {
    /// Midnight UTC of a day, sent as `YYYY-MM-DD`.
    Day(NaiveDate),
    /// An instant, sent as RFC 3339 in UTC with milliseconds (finer digits are dropped,
    /// as the contract allows at most three).
    At(DateTime<Utc>),
}

impl DateBound {
    fn to_query(self) -> String {
        match self {
            Self::Day(day) => day.format("%Y-%m-%d").to_string(),
            Self::At(at) => at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        }
    }
}

/// Options of post search ([`crate::Client::search`]) and image search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchOptions {
    /// The language index to search (`lang`); `None`: the server chooses.
    pub lang: Option<Lang>,
    /// Prefer newer posts (`freshness=1`); `false`: freshness intent is detected.
    pub freshness: bool,
    /// Include replies normally removed by quality and spam filtering
    /// (`include_low_quality=1`).
    pub include_low_quality: bool,
}

impl SearchOptions {
    pub(crate) fn push_query(&self, query: &Query, pairs: &mut Vec<(&'static str, String)>) {
        pairs.push(("q", query.as_str().to_owned()));
        if let Some(lang) = &self.lang {
            pairs.push(("lang", lang.as_str().to_owned()));
        }
        if self.freshness {
            pairs.push(("freshness", "1".to_owned()));
        }
        if self.include_low_quality {
            pairs.push(("include_low_quality", "1".to_owned()));
        }
    }
}

/// Options of image search ([`crate::Client::image_search`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageSearchOptions {
    /// The options shared with post search.
    pub search: SearchOptions,
    /// The most images returned (`size`); `None`: the server's default, 24.
    pub size: Option<ImageCount>,
    /// Include high-confidence NSFW images (`hide_nsfw=0`); `false`: they are hidden.
    pub include_nsfw: bool,
}

impl ImageSearchOptions {
    pub(crate) fn push_query(&self, query: &Query, pairs: &mut Vec<(&'static str, String)>) {
        self.search.push_query(query, pairs);
        if let Some(size) = self.size {
            pairs.push(("size", size.get().to_string()));
        }
        if self.include_nsfw {
            pairs.push(("hide_nsfw", "0".to_owned()));
        }
    }
}

/// Options of a collection, shared by topics and profiles. Only sent with a walk's first
/// request: the cursor carries them afterwards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageOptions {
    /// Posts per page (`limit`); `None`: the server's default, 50.
    pub limit: Option<Limit>,
    /// `Asc` (oldest first, the default) or `Desc`.
    pub order: Option<Order>,
    /// Inclusive lower bound of the posting time.
    pub date_from: Option<DateBound>,
    /// Exclusive upper bound of the posting time.
    pub date_to: Option<DateBound>,
    /// Only posts of this board.
    pub board_id: Option<ForumId>,
}

impl PageOptions {
    fn push_query(&self, pairs: &mut Vec<(&'static str, String)>) {
        if let Some(limit) = self.limit {
            pairs.push(("limit", limit.get().to_string()));
        }
        if let Some(order) = self.order {
            let order = match order {
                Order::Asc => "asc",
                Order::Desc => "desc",
            };
            pairs.push(("order", order.to_owned()));
        }
        if let Some(from) = self.date_from {
            pairs.push(("date_from", from.to_query()));
        }
        if let Some(to) = self.date_to {
            pairs.push(("date_to", to.to_query()));
        }
        if let Some(board) = self.board_id {
            pairs.push(("board_id", board.to_string()));
        }
    }
}

/// Options of the posts of a topic ([`crate::Client::topic_posts_page`],
/// [`crate::Client::walk_topic_posts`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicPostsOptions {
    /// Page size, order, dates, board.
    pub page: PageOptions,
    /// Only posts by this author (`author_uid`).
    pub author_uid: Option<ForumId>,
}

impl TopicPostsOptions {
    pub(crate) fn query(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        self.page.push_query(&mut pairs);
        if let Some(author) = self.author_uid {
            pairs.push(("author_uid", author.to_string()));
        }
        pairs
    }
}

/// Options of the posts of a profile ([`crate::Client::profile_posts_page`],
/// [`crate::Client::walk_profile_posts`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfilePostsOptions {
    /// Page size, order, dates, board.
    pub page: PageOptions,
    /// Only posts in this topic (`topic_id`).
    pub topic_id: Option<ForumId>,
}

impl ProfilePostsOptions {
    pub(crate) fn query(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        self.page.push_query(&mut pairs);
        if let Some(topic) = self.topic_id {
            pairs.push(("topic_id", topic.to_string()));
        }
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_outside_the_contract_are_refused() {
        assert!(ForumId::new(0).is_err());
        assert!(ForumId::new(MAX_ID + 1).is_err());
        assert_eq!(ForumId::new(MAX_ID).map(ForumId::get), Ok(MAX_ID));
        assert!(Query::new("").is_err());
        assert!(Query::new("é".repeat(512)).is_ok());
        assert!(Query::new("a".repeat(513)).is_err());
        for good in ["en", "pt-BR"] {
            assert!(Lang::new(good).is_ok(), "{good}");
        }
        for bad in ["", "e", "EN", "en-br", "en_BR", "eng", "en-BRA", "ü1"] {
            assert!(Lang::new(bad).is_err(), "{bad}");
        }
        assert!(Limit::new(0).is_err());
        assert!(Limit::new(101).is_err());
        assert!(Limit::new(100).is_ok());
        assert!(ImageCount::new(0).is_err());
        assert!(ImageCount::new(51).is_err());
        assert!(ImageCount::new(50).is_ok());
    }

    #[test]
    fn collection_options_become_the_contract_parameters() {
        let at = DateTime::parse_from_rfc3339("2024-03-01T12:00:00.123456+02:00")
            .expect("valid")
            .to_utc();
        let options = TopicPostsOptions {
            page: PageOptions {
                limit: Some(Limit::new(7).expect("valid")),
                order: Some(Order::Desc),
                date_from: Some(DateBound::Day(
                    NaiveDate::from_ymd_opt(2024, 1, 2).expect("valid"),
                )),
                date_to: Some(DateBound::At(at)),
                board_id: Some(ForumId::new(3).expect("valid")),
            },
            author_uid: Some(ForumId::new(9).expect("valid")),
        };
        let pairs: Vec<(&str, String)> = options.query();
        let expected = [
            ("limit", "7"),
            ("order", "desc"),
            ("date_from", "2024-01-02"),
            ("date_to", "2024-03-01T10:00:00.123Z"),
            ("board_id", "3"),
            ("author_uid", "9"),
        ];
        let expected: Vec<(&str, String)> = expected
            .iter()
            .map(|(k, v)| (*k, (*v).to_owned()))
            .collect();
        assert_eq!(pairs, expected);
    }
}
