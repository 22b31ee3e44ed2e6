//! The page parser: pure functions from a fetched page to typed data. [`decode`] turns the
//! bytes into text, [`PageRef`] names the page, and [`parse_page`] reads it into a [`Page`]
//! or says why it cannot: a page that is not the expected forum page is a [`ParseError`],
//! never a half-read result.

mod board;
mod decode;
mod dom;
mod guard;
mod post;
mod profile;
mod time;
mod topic;
mod url;

use scraper::Html;

pub use board::{BoardIndexPage, BoardInfo, BoardLink, BoardPage, TopicRow};
pub use decode::decode;
pub use post::{Author, MeritSend, Post};
pub use profile::ProfilePage;
pub use topic::TopicPage;
pub use url::{BOARD_PAGE_SIZE, PageRef, TOPIC_PAGE_SIZE, TopicStart};

/// A parsed forum page.
#[derive(Debug, Clone, PartialEq)]
pub enum Page {
    /// The board index.
    BoardIndex(BoardIndexPage),
    /// One page of a board's topic listing.
    Board(BoardPage),
    /// One page of a topic.
    Topic(TopicPage),
    /// A member's profile summary.
    Profile(ProfilePage),
}

/// Why a fetched page could not be read as the page asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// An anti-bot interstitial or captcha (Cloudflare, DDoS-Guard, ...).
    #[error("challenge page instead of forum content")]
    Challenge,
    /// The forum asks the guest to log in instead of showing the content.
    #[error("login wall instead of forum content")]
    LoginWall,
    /// The forum's own error box, with its message (e.g. the topic is missing or off limits).
    #[error("forum error: {0}")]
    ForumError(String),
    /// Anything the parser does not recognise: a missing part, a truncated page, a number
    /// or time that does not read, a page about another ID than the one asked for.
    #[error("unrecognised page layout: {0}")]
    Layout(String),
}

impl ParseError {
    pub(crate) fn layout(reason: impl Into<String>) -> Self {
        Self::Layout(reason.into())
    }
}

/// Reads `html` (already decoded, see [`decode`]) as the page `page` names.
pub fn parse_page(page: &PageRef, html: &str) -> Result<Page, ParseError> {
    guard::check_text(html)?;
    let doc = Html::parse_document(html);
    guard::check_doc(&doc)?;
    let clock = dom::header_clock(&doc)?;
    match *page {
        PageRef::BoardIndex => board::parse_index(&doc).map(Page::BoardIndex),
        PageRef::Board { board_id, .. } => {
            board::parse_board(&doc, board_id, clock).map(Page::Board)
        }
        PageRef::Topic { topic_id, .. } => {
            topic::parse_topic(&doc, topic_id, clock).map(Page::Topic)
        }
        PageRef::Profile { profile_id } => {
            profile::parse_profile(&doc, profile_id, clock).map(Page::Profile)
        }
    }
}
