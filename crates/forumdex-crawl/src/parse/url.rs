//! The forum's page addresses: which kind of page a URL names, and the URL of a page.
//!
//! SMF 1.x puts everything in the query of `index.php`, with `;` (or `&`) between
//! parameters: `?board=74.40`, `?topic=14.0`, `?topic=14.msg53#msg53`,
//! `?action=profile;u=12`. A `#` anchor is ignored.

use forumdex_corpus::ForumId;

/// Topics per page on Bitcointalk: page `p` of a topic starts at `20 * (p - 1)`.
pub const TOPIC_PAGE_SIZE: u64 = 20;
/// Topics per board listing page on Bitcointalk: page `p` starts at `40 * (p - 1)`.
pub const BOARD_PAGE_SIZE: u64 = 40;

/// One page of the forum the crawler reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PageRef {
    /// The board index (`index.php`).
    BoardIndex,
    /// A board's topic listing from topic offset `start` (`index.php?board=ID.START`).
    Board {
        /// Board ID.
        board_id: ForumId,
        /// Offset of the first listed topic (a multiple of [`BOARD_PAGE_SIZE`]).
        start: u64,
    },
    /// A topic page (`index.php?topic=ID.START` or `index.php?topic=ID.msgMSG`).
    Topic {
        /// Topic ID.
        topic_id: ForumId,
        /// Where the page starts.
        start: TopicStart,
    },
    /// A member's profile summary (`index.php?action=profile;u=ID`).
    Profile {
        /// Forum user ID.
        profile_id: ForumId,
    },
}

/// Where a topic page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TopicStart {
    /// Offset of the first post shown (a multiple of [`TOPIC_PAGE_SIZE`]).
    Offset(u64),
    /// The page that holds this message (`topic=ID.msgMSG`).
    Msg(ForumId),
}

impl PageRef {
    /// Page `page` (1-based) of a topic; `None` for page 0.
    pub fn topic_page(topic_id: ForumId, page: u64) -> Option<Self> {
        let start = page.checked_sub(1)?.checked_mul(TOPIC_PAGE_SIZE)?;
        Some(Self::Topic {
            topic_id,
            start: TopicStart::Offset(start),
        })
    }

    /// Page `page` (1-based) of a board's listing; `None` for page 0.
    pub fn board_page(board_id: ForumId, page: u64) -> Option<Self> {
        let start = page.checked_sub(1)?.checked_mul(BOARD_PAGE_SIZE)?;
        Some(Self::Board { board_id, start })
    }

    /// The page's URL under `base` (the forum's root, e.g. `https://bitcointalk.org`, with or
    /// without a trailing `/`).
    pub fn to_url(&self, base: &str) -> String {
        let root = base.trim_end_matches('/');
        match self {
            Self::BoardIndex => format!("{root}/index.php"),
            Self::Board { board_id, start } => format!("{root}/index.php?board={board_id}.{start}"),
            Self::Topic {
                topic_id,
                start: TopicStart::Offset(start),
            } => format!("{root}/index.php?topic={topic_id}.{start}"),
            Self::Topic {
                topic_id,
                start: TopicStart::Msg(msg),
            } => format!("{root}/index.php?topic={topic_id}.msg{msg}#msg{msg}"),
            Self::Profile { profile_id } => {
                format!("{root}/index.php?action=profile;u={profile_id}")
            }
        }
    }

    /// Reads a URL (absolute, or relative such as `index.php?topic=14.0` or `?board=1.0`).
    /// `None` when it names no page of these kinds (another script, another action, a
    /// sort or print view, a malformed ID). The host is not checked.
    pub fn parse(url: &str) -> Option<Self> {
        let without_anchor = url.split('#').next().unwrap_or_default();
        let (path, query) = match without_anchor.split_once('?') {
            Some((path, query)) => (path, query),
            None => (without_anchor, ""),
        };
        let script = path.rsplit('/').next().unwrap_or_default();
        if !(script.is_empty() || script == "index.php") {
            return None;
        }
        let params: Vec<(&str, &str)> = query
            .split([';', '&'])
            .filter(|p| !p.is_empty())
            .map(|p| p.split_once('=').unwrap_or((p, "")))
            .collect();
        let get = |name: &str| params.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
        if let Some(action) = get("action") {
            return match (action, params.len()) {
                ("profile", 2) => get("u")
                    .and_then(ForumId::parse)
                    .map(|profile_id| Self::Profile { profile_id }),
                _ => None,
            };
        }
        match (get("board"), get("topic"), params.len()) {
            (None, None, 0) => Some(Self::BoardIndex),
            (Some(board), None, 1) => {
                let (id, start) = id_and_start(board)?;
                Some(Self::Board {
                    board_id: id,
                    start: offset(start)?,
                })
            }
            (None, Some(topic), 1) => {
                let (id, start) = id_and_start(topic)?;
                let start = match start.strip_prefix("msg") {
                    Some(msg) => TopicStart::Msg(ForumId::parse(msg)?),
                    None => TopicStart::Offset(offset(start)?),
                };
                Some(Self::Topic {
                    topic_id: id,
                    start,
                })
            }
            _ => None,
        }
    }
}

/// Splits `ID.START` (`START` defaults to `0` when there is no dot).
fn id_and_start(value: &str) -> Option<(ForumId, &str)> {
    let (id, start) = value.split_once('.').unwrap_or((value, "0"));
    Some((ForumId::parse(id)?, start))
}

fn offset(text: &str) -> Option<u64> {
    forumdex_corpus::parse_canonical(text, 0..=forumdex_corpus::MAX_ID)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> ForumId {
        ForumId::new(n).expect("test ids are valid")
    }

    #[test]
    fn parses_every_kind_both_ways() {
        let base = "https://bitcointalk.org/";
        let cases = [
            ("https://bitcointalk.org/index.php", PageRef::BoardIndex),
            (
                "https://bitcointalk.org/index.php?board=74.40",
                PageRef::Board {
                    board_id: id(74),
                    start: 40,
                },
            ),
            (
                "https://bitcointalk.org/index.php?topic=602041.12400",
                PageRef::Topic {
                    topic_id: id(602041),
                    start: TopicStart::Offset(12400),
                },
            ),
            (
                "https://bitcointalk.org/index.php?topic=14.msg53#msg53",
                PageRef::Topic {
                    topic_id: id(14),
                    start: TopicStart::Msg(id(53)),
                },
            ),
            (
                "https://bitcointalk.org/index.php?action=profile;u=12",
                PageRef::Profile { profile_id: id(12) },
            ),
        ];
        for (url, page) in cases {
            assert_eq!(PageRef::parse(url), Some(page), "{url}");
            assert_eq!(page.to_url(base), url);
        }
    }

    #[test]
    fn separators_anchors_and_relative_urls() {
        let profile = Some(PageRef::Profile { profile_id: id(12) });
        assert_eq!(PageRef::parse("index.php?action=profile&u=12"), profile);
        assert_eq!(PageRef::parse("/index.php?u=12;action=profile"), profile);
        assert_eq!(
            PageRef::parse("?board=7"),
            Some(PageRef::Board {
                board_id: id(7),
                start: 0
            })
        );
        assert_eq!(
            PageRef::parse("https://bitcointalk.org/index.php#3"),
            Some(PageRef::BoardIndex)
        );
        assert_eq!(
            PageRef::topic_page(id(602041), 621),
            PageRef::parse("index.php?topic=602041.12400#new")
        );
        assert_eq!(
            PageRef::board_page(id(5), 16),
            PageRef::parse("index.php?board=5.600")
        );
        assert_eq!(PageRef::topic_page(id(1), 0), None);
    }

    #[test]
    fn other_pages_are_none() {
        for url in [
            "https://bitcointalk.org/index.php?action=login",
            "index.php?action=profile;u=12;sa=showPosts",
            "index.php?action=printpage;topic=14.0",
            "index.php?board=74.0;sort=views",
            "index.php?topic=14.0;all",
            "index.php?topic=14.new#new",
            "index.php?topic=0.0",
            "index.php?topic=014.0",
            "index.php?board=x.0",
            "https://bitcointalk.org/donate.html",
        ] {
            assert_eq!(PageRef::parse(url), None, "{url}");
        }
    }
}
