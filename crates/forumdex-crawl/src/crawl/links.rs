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

/// The page kind's name, as kept in the frontier and counted in the summary.
pub fn kind(page: &PageRef) -> &'static str {
    match page {
        PageRef::BoardIndex => "board_index",
        PageRef::Board { .. } => "board",
        PageRef::Topic { .. } => "topic",
        PageRef::Profile { .. } => "profile",
    }
}

/// A frontier item for `page`, due at `now`.
pub fn item(page: PageRef, forum_url: &str, now: DateTime<Utc>) -> NewItem {
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
