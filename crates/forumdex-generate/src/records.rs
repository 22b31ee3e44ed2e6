//! The JSON shapes of corpus-format.md version 1, as written (field order is fixed).

use serde::Serialize;

/// A `board` record.
#[derive(Debug, Serialize)]
pub struct BoardRecord<'a> {
    /// Always `"board"`.
    pub kind: &'static str,
    /// Forum board ID.
    pub board_id: u64,
    /// Board name.
    pub name: &'a str,
    /// Parent board, for child boards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_board_id: Option<u64>,
    /// RFC 3339 time of the observation.
    pub observed_at: &'a str,
}

/// A `profile` record.
#[derive(Debug, Serialize)]
pub struct ProfileRecord<'a> {
    /// Always `"profile"`.
    pub kind: &'static str,
    /// Forum user ID.
    pub profile_id: u64,
    /// Username; `null` when the crawl could not read it.
    pub username: Option<&'a str>,
    /// RFC 3339 time of the observation.
    pub observed_at: &'a str,
}

/// A `topic` record.
#[derive(Debug, Serialize)]
pub struct TopicRecord<'a> {
    /// Always `"topic"`.
    pub kind: &'static str,
    /// Forum topic ID.
    pub topic_id: u64,
    /// Board the topic is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_id: Option<u64>,
    /// Topic title.
    pub title: &'a str,
    /// View counter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub views: Option<u64>,
    /// Forum pages of the topic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_count: Option<u64>,
    /// RFC 3339 time of the observation.
    pub observed_at: &'a str,
}

/// A post's author.
#[derive(Debug, Serialize)]
pub struct AuthorRecord<'a> {
    /// Forum user ID; `null` for guests.
    pub profile_id: Option<u64>,
    /// Name shown on the post.
    pub username: &'a str,
}

/// One merit transaction.
#[derive(Debug, Clone, Serialize)]
pub struct MeritSender {
    /// Who sent the merit.
    pub profile_id: u64,
    /// How much.
    pub amount: u64,
}

/// A post's merit.
#[derive(Debug, Clone, Serialize)]
pub struct MeritRecord {
    /// Sum of the amounts.
    pub total: u64,
    /// Distinct senders.
    pub distinct_senders: u64,
    /// Number of transactions.
    pub transactions: u64,
    /// The transactions, when the crawl saw them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub senders: Option<Vec<MeritSender>>,
}

/// A `post` record.
#[derive(Debug, Serialize)]
pub struct PostRecord<'a> {
    /// Always `"post"`.
    pub kind: &'static str,
    /// Forum message ID.
    pub post_id: u64,
    /// Topic ID.
    pub topic_id: u64,
    /// Board ID (defaults to the topic's when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_id: Option<u64>,
    /// Position in the topic, 0 for the opening post.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_number: Option<u64>,
    /// Whether this is the opening post.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_op: Option<bool>,
    /// Post subject.
    pub title: &'a str,
    /// Author.
    pub author: AuthorRecord<'a>,
    /// Outer `None`: field absent; `Some(None)`: `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub posted_at: Option<Option<&'a str>>,
    /// Post HTML.
    pub content_html: &'a str,
    /// Merit, when the post has some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merit: Option<&'a MeritRecord>,
    /// Language code, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<&'static str>,
    /// RFC 3339 time of the observation.
    pub observed_at: &'a str,
}

/// An `image` record.
#[derive(Debug, Serialize)]
pub struct ImageRecord<'a> {
    /// Always `"image"`.
    pub kind: &'static str,
    /// URL as in `src` attributes.
    pub source_url: &'a str,
    /// File path relative to the corpus file's folder.
    pub file: &'a str,
    /// Upstream NSFW score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nsfw_score: Option<f64>,
    /// RFC 3339 time of the observation.
    pub observed_at: &'a str,
}
