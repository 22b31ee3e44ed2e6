//! A topic page: the topic, its board, its counters and its posts.

use chrono::{DateTime, Utc};
use forumdex_corpus::ForumId;
use scraper::Html;

use super::ParseError;
use super::board::{BoardInfo, BoardLink};
use super::dom::{self, number, selector, text_of};
use super::post::{Post, parse_posts};

/// One page of a topic.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPage {
    /// Topic ID.
    pub topic_id: ForumId,
    /// Topic title (from the linktree).
    pub title: String,
    /// The board it is in (the last board of the linktree).
    pub board: BoardLink,
    /// Boards above that one, outermost first.
    pub parents: Vec<BoardLink>,
    /// The category, from the linktree.
    pub category: Option<String>,
    /// View counter ("Read N times").
    pub views: u64,
    /// Current page (1-based).
    pub current_page: u64,
    /// Pages of the topic.
    pub page_count: u64,
    /// The real posts of this page, in order.
    pub posts: Vec<Post>,
    /// Every board of the forum, from the page's "Jump to" list (empty when absent).
    pub directory: Vec<BoardInfo>,
}

/// Reads one page of topic `topic_id`.
pub(crate) fn parse_topic(
    doc: &Html,
    topic_id: ForumId,
    clock: Option<DateTime<Utc>>,
) -> Result<TopicPage, ParseError> {
    let tree = dom::linktree(doc)?;
    let Some((shown_id, title)) = tree.topic else {
        return Err(ParseError::layout("linktree names no topic"));
    };
    if shown_id != topic_id {
        return Err(ParseError::layout(format!(
            "asked for topic {topic_id}, the page shows topic {shown_id}"
        )));
    }
    let mut parents = tree.boards;
    let board = parents
        .pop()
        .ok_or_else(|| ParseError::layout("linktree names no board"))?;
    let (current_page, page_count) = dom::pages(doc)?;
    Ok(TopicPage {
        topic_id,
        title,
        board,
        parents,
        category: tree.category,
        views: views(doc)?,
        current_page,
        page_count,
        posts: parse_posts(doc, clock)?,
        directory: dom::jump_to(doc)?,
    })
}

/// "Topic: TITLE (Read N times)" in the header above the posts.
fn views(doc: &Html) -> Result<u64, ParseError> {
    let header = doc
        .select(&selector("#top_subject"))
        .next()
        .map(text_of)
        .ok_or_else(|| ParseError::layout("missing topic header"))?;
    let count = header
        .rsplit_once("(Read ")
        .and_then(|(_, rest)| {
            rest.strip_suffix(" times)")
                .or_else(|| rest.strip_suffix(" time)"))
        })
        .ok_or_else(|| ParseError::layout(format!("topic header {header:?}")))?;
    number(count, "views")
}
