//! One stored or fetched page body to observations. The same function serves a fresh fetch,
//! the replay of pages recorded but not imported, and `--reparse`, so they agree.

use chrono::{DateTime, Utc};
use forumdex_corpus::ForumId;

use crate::observe;
use crate::parse::{Page, PageRef, ParseError, TopicPage, decode, parse_page};
use crate::state::{CrawlState, StateError};

/// What a page body yields.
#[derive(Debug)]
pub(crate) enum Reading {
    /// A forum page and its observations (with deleted-post observations for posts seen on
    /// it before and gone now).
    Page {
        /// The parsed page.
        page: Box<Page>,
        /// Its observation lines.
        lines: Vec<String>,
    },
    /// The topic is gone (404, or the forum's error box): every post of it seen before
    /// becomes a deleted observation.
    Gone {
        /// The deleted-post observation lines.
        lines: Vec<String>,
    },
    /// A challenge or login wall: the crawl must stop.
    Blocked(ParseError),
    /// Nothing usable: a layout the parser does not recognise, an unexpected status.
    SetAside(String),
}

/// A page body with what is known of its fetch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Body<'a> {
    /// Which page it is.
    pub page: PageRef,
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header.
    pub content_type: Option<&'a str>,
    /// The bytes.
    pub bytes: &'a [u8],
    /// When it was fetched: every observation's `observed_at`.
    pub fetched_at: DateTime<Utc>,
    /// Whether posts seen before and missing now become deleted observations (not when an
    /// old page is read again for `--reparse`: posts seen after it would look deleted).
    pub deletions: bool,
}

/// Reads a page body. Deletions are decided against the posts the crawl state has seen
/// (never against the corpus), so a replay decides the same.
pub(crate) fn read(state: &CrawlState, body: &Body<'_>) -> Result<Reading, StateError> {
    let topic_id = match body.page {
        PageRef::Topic { topic_id, .. } => Some(topic_id),
        _ => None,
    };
    if matches!(body.status, 404 | 410) {
        return match topic_id {
            Some(topic_id) => gone(state, topic_id, body),
            None => Ok(Reading::SetAside(format!("HTTP {}", body.status))),
        };
    }
    if body.status != 200 {
        return Ok(Reading::SetAside(format!("HTTP {}", body.status)));
    }
    let html = decode(body.bytes, body.content_type);
    match parse_page(&body.page, &html) {
        Ok(page) => {
            let mut lines = observe::observations(&page, body.fetched_at);
            if let (Page::Topic(topic), true) = (&page, body.deletions) {
                lines.extend(deletions(state, topic, body.fetched_at)?);
            }
            Ok(Reading::Page {
                page: Box::new(page),
                lines,
            })
        }
        Err(err @ (ParseError::Challenge | ParseError::LoginWall)) => Ok(Reading::Blocked(err)),
        Err(ParseError::ForumError(message)) => match topic_id {
            Some(topic_id) => gone(state, topic_id, body),
            None => Ok(Reading::SetAside(format!("forum error: {message}"))),
        },
        Err(err @ ParseError::Layout(_)) => Ok(Reading::SetAside(err.to_string())),
    }
}

/// Every post of a gone topic seen before, as deleted (none when the body is read without
/// deletions).
fn gone(state: &CrawlState, topic_id: ForumId, body: &Body<'_>) -> Result<Reading, StateError> {
    if !body.deletions {
        return Ok(Reading::Gone { lines: Vec::new() });
    }
    let at = body.fetched_at;
    let lines = state
        .known_posts(id(topic_id), 0, None)?
        .into_iter()
        .filter_map(ForumId::new)
        .map(|post| observe::deleted_post(post, topic_id, at))
        .collect();
    Ok(Reading::Gone { lines })
}

/// The posts seen before in the ID range this page covers (up to the end on the last page)
/// that it no longer shows, as deleted. Posts of a topic are in ID order, so a post missing
/// from between its neighbours is gone, not moved to another page.
fn deletions(
    state: &CrawlState,
    topic: &TopicPage,
    at: DateTime<Utc>,
) -> Result<Vec<String>, StateError> {
    let shown: Vec<u64> = topic.posts.iter().map(|p| id(p.post_id)).collect();
    let (Some(&first), Some(&last)) = (shown.iter().min(), shown.iter().max()) else {
        return Ok(Vec::new());
    };
    let to = (topic.current_page < topic.page_count).then_some(last);
    Ok(state
        .known_posts(id(topic.topic_id), first, to)?
        .into_iter()
        .filter(|post| !shown.contains(post))
        .filter_map(ForumId::new)
        .map(|post| observe::deleted_post(post, topic.topic_id, at))
        .collect())
}

/// An ID as the crawl state keeps it.
pub(crate) fn id(id: ForumId) -> u64 {
    u64::try_from(id.get()).unwrap_or_default()
}
