//! What to fetch: the seeds a command names and the links a parsed page leads to.

use chrono::{DateTime, Utc};
use forumdex_corpus::ForumId;

use crate::parse::{Page, PageRef, TopicStart};
use crate::state::NewItem;

/// Frontier priorities: the index, then topic pages before further listing pages (depth
/// first: a limited run ends with whole topics, and the frontier stays small), then
/// profiles.
const PRIORITY_INDEX: i64 = 30;
const PRIORITY_TOPIC: i64 = 20;
const PRIORITY_BOARD: i64 = 10;
const PRIORITY_PROFILE: i64 = 0;

/// What a crawl reads, from the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// Boards whose listing pages (and their topics) are crawled (`--board`).
    pub boards: Vec<ForumId>,
    /// Topics crawled (`--topic`).
    pub topics: Vec<ForumId>,
    /// Whether the authors' profiles are crawled (`--profiles`).
    pub profiles: bool,
    /// Only topics whose last post is at or after this instant are followed from a board
    /// listing (`--since`).
    pub since: Option<DateTime<Utc>>,
}

impl Scope {
    /// The scope as the frontier keeps it: the same for two crawls that read the same pages
    /// (IDs sorted, duplicates ignored), so a crawl resumes the leftovers of its own scope.
    pub fn key(&self) -> String {
        let ids = |ids: &[ForumId]| {
            let mut ids: Vec<i64> = ids.iter().map(|id| id.get()).collect();
            ids.sort_unstable();
            ids.dedup();
            ids.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "boards={};topics={};profiles={};since={}",
            ids(&self.boards),
            ids(&self.topics),
            self.profiles,
            self.since
                .map(|since| since.to_rfc3339())
                .unwrap_or_default()
        )
    }
}

/// The frontier kind of board listing pages.
pub const BOARD_KIND: &str = "board";

/// The page kind's name, as kept in the frontier and counted in the summary.
pub fn kind(page: &PageRef) -> &'static str {
    match page {
        PageRef::BoardIndex => "board_index",
        PageRef::Board { .. } => BOARD_KIND,
        PageRef::Topic { .. } => "topic",
        PageRef::Profile { .. } => "profile",
    }
}

/// A frontier item for `page` of the crawl scope `scope` ([`Scope::key`]), due at `now`.
pub fn item(page: PageRef, forum_url: &str, scope: &str, now: DateTime<Utc>) -> NewItem {
    let priority = match page {
        PageRef::BoardIndex => PRIORITY_INDEX,
        PageRef::Board { .. } => PRIORITY_BOARD,
        PageRef::Topic { .. } => PRIORITY_TOPIC,
        PageRef::Profile { .. } => PRIORITY_PROFILE,
    };
    NewItem {
        url: page.to_url(forum_url),
        kind: kind(&page).to_owned(),
        priority,
        due_at: now,
        scope: scope.to_owned(),
    }
}

/// The first pages of what the scope names: the board index when it names no board and
/// no topic, else page 1 of each named board and topic.
pub fn seeds(scope: &Scope) -> Vec<PageRef> {
    if scope.boards.is_empty() && scope.topics.is_empty() {
        return vec![PageRef::BoardIndex];
    }
    let boards = scope
        .boards
        .iter()
        .map(|&board_id| PageRef::Board { board_id, start: 0 });
    let topics = scope.topics.iter().map(|&topic_id| PageRef::Topic {
        topic_id,
        start: TopicStart::Offset(0),
    });
    boards.chain(topics).collect()
}

/// The pages `page` leads to: a board listing's first page leads to its other pages, and
/// every listing page to its topics (those whose last post is at or after `since`); a
/// topic's first page leads to its other pages and, with `--profiles`, every topic page to
/// its authors' profiles.
pub fn discovered(page: &Page, scope: &Scope) -> Vec<PageRef> {
    let mut found = Vec::new();
    match page {
        Page::BoardIndex(_) | Page::Profile(_) => {}
        Page::Board(board) => {
            let board_id = board.board.board_id;
            if board.current_page == 1 {
                found.extend(
                    (2..=board.page_count).filter_map(|p| PageRef::board_page(board_id, p)),
                );
            }
            found.extend(
                board
                    .topics
                    .iter()
                    .filter(|row| scope.since.is_none_or(|since| row.last_post_at >= since))
                    .map(|row| PageRef::Topic {
                        topic_id: row.topic_id,
                        start: TopicStart::Offset(0),
                    }),
            );
        }
        Page::Topic(topic) => {
            if topic.current_page == 1 {
                found.extend(
                    (2..=topic.page_count).filter_map(|p| PageRef::topic_page(topic.topic_id, p)),
                );
            }
            if scope.profiles {
                found.extend(
                    topic
                        .posts
                        .iter()
                        .filter_map(|post| post.author.profile_id)
                        .map(|profile_id| PageRef::Profile { profile_id }),
                );
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{decode, parse_page};

    /// A saved page parsed; `None` (the test skips) when the pages are absent.
    fn saved(file: &str, url: &str) -> Option<Page> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/smf-pages")
            .join(file);
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("skipped: {} is absent", path.display());
            return None;
        };
        let page = PageRef::parse(url).expect("a forum page");
        let html = decode(&bytes, Some("text/html; charset=ISO-8859-1"));
        Some(parse_page(&page, &html).expect("the saved page parses"))
    }

    #[test]
    fn a_listing_leads_to_its_pages_and_the_topics_since() {
        let Some(page) = saved("board_74.html", "index.php?board=74.0") else {
            return;
        };
        let Page::Board(board) = &page else {
            panic!("a board page")
        };
        let all = discovered(&page, &Scope::default());
        let topics = |found: &[PageRef]| {
            found
                .iter()
                .filter(|p| matches!(p, PageRef::Topic { .. }))
                .count()
        };
        assert_eq!(topics(&all), 40);
        assert_eq!(all.len() as u64, 40 + board.page_count - 1);
        let mut times: Vec<_> = board.topics.iter().map(|t| t.last_post_at).collect();
        times.sort();
        let since = Scope {
            since: Some(times[30]),
            ..Scope::default()
        };
        let expected = times.iter().filter(|&&t| t >= times[30]).count();
        assert_eq!(topics(&discovered(&page, &since)), expected);
    }

    #[test]
    fn a_topic_leads_to_its_authors_only_with_profiles() {
        let Some(page) = saved("topic_14.html", "index.php?topic=14.0") else {
            return;
        };
        let profiles = |scope: &Scope| {
            discovered(&page, scope)
                .into_iter()
                .filter(|p| matches!(p, PageRef::Profile { .. }))
                .count()
        };
        assert_eq!(profiles(&Scope::default()), 0);
        let with = Scope {
            profiles: true,
            ..Scope::default()
        };
        assert!(profiles(&with) > 0);
    }

    #[test]
    fn seeds_are_the_index_or_the_named_pages() {
        assert_eq!(seeds(&Scope::default()), vec![PageRef::BoardIndex]);
        let id = |n| ForumId::new(n).expect("valid");
        let scope = Scope {
            boards: vec![id(74)],
            topics: vec![id(14)],
            ..Scope::default()
        };
        assert_eq!(
            seeds(&scope),
            vec![
                PageRef::Board {
                    board_id: id(74),
                    start: 0
                },
                PageRef::Topic {
                    topic_id: id(14),
                    start: TopicStart::Offset(0)
                }
            ]
        );
    }
}
