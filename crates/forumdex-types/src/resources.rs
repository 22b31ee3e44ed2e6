//! Resources (api-contract.md "Resources and their fields"): [`Post`], [`Topic`],
//! [`Profile`], the [`PostSummary`] other bodies embed, and their nested objects.

use serde::{Deserialize, Serialize};

/// Author (nested object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Author {
    /// Forum user ID; null for guests.
    pub profile_id: Option<i64>,
    /// Username shown on the post.
    pub username: String,
    /// Profile link on the forum; null for guests.
    pub url: Option<String>,
}

/// Board (nested object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Board {
    /// Board ID, or null.
    pub board_id: Option<i64>,
    /// Board name ("" when unknown).
    pub name: String,
}

/// Merit (nested object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Merit {
    /// Sum of merit points.
    pub total: i64,
    /// Distinct senders.
    pub distinct_senders: i64,
    /// Transactions.
    pub transactions: i64,
    /// When observed, or null.
    pub observed_at: Option<String>,
}

/// PostSummary: a post without its content, as search results, topics and profiles show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostSummary {
    /// Forum message ID.
    pub post_id: i64,
    /// Topic ID.
    pub topic_id: i64,
    /// Position shown by the forum.
    pub post_number: Option<i64>,
    /// Whether it opens its topic.
    pub is_op: bool,
    /// Post subject.
    pub title: String,
    /// Author.
    pub author: Author,
    /// Board.
    pub board: Board,
    /// Language code.
    pub language: Option<String>,
    /// Posting time.
    pub posted_at: Option<String>,
    /// Link to the post on the forum.
    pub url: String,
    /// Link to its topic on the forum.
    pub topic_url: String,
}

/// The `object` of a [`Post`]: always `"post"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PostObject {
    /// `"post"`.
    #[serde(rename = "post")]
    Post,
}

/// Post (full post): every [`PostSummary`] field plus `object`, `content_html`,
/// `indexed_at` and `merit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Post {
    /// Always "post".
    pub object: PostObject,
    /// The summary fields.
    #[serde(flatten)]
    pub summary: PostSummary,
    /// Rendered HTML; cached images use CDN URLs.
    pub content_html: String,
    /// When the canonical observation was imported.
    pub indexed_at: Option<String>,
    /// Merit.
    pub merit: Merit,
}

/// The view counter of a [`Topic`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Views {
    /// Counter as observed.
    pub observed: i64,
    /// When, or null.
    pub observed_at: Option<String>,
}

/// The `object` of a [`Topic`]: always `"topic"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TopicObject {
    /// `"topic"`.
    #[serde(rename = "topic")]
    Topic,
}

/// Topic: metadata, the complete first post, a summary of the latest indexed post.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Topic {
    /// Always "topic".
    pub object: TopicObject,
    /// Topic ID.
    pub topic_id: i64,
    /// Title.
    pub title: String,
    /// Board.
    pub board: Board,
    /// Language of the opening post.
    pub language: Option<String>,
    /// Posting time of the opening post.
    pub created_at: Option<String>,
    /// Latest posting time.
    pub last_post_at: Option<String>,
    /// Indexed posts.
    pub post_count: i64,
    /// Forum pages.
    pub page_count: i64,
    /// View counter.
    pub views: Views,
    /// Merit summed over its posts.
    pub merit: Merit,
    /// Link on the forum.
    pub url: String,
    /// The opening post in full, or null.
    pub first_post: Option<Post>,
    /// The latest indexed post, or null.
    pub latest_post: Option<PostSummary>,
}

/// What the counts of a [`ProfileCorpus`] are derived from: always
/// `"distinct indexed posts"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DerivedFrom {
    /// `"distinct indexed posts"`.
    #[serde(rename = "distinct indexed posts")]
    DistinctIndexedPosts,
}

/// Corpus-derived activity of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileCorpus {
    /// Indexed posts.
    pub post_count: i64,
    /// Distinct topics among them.
    pub topic_count: i64,
    /// Earliest posting time.
    pub first_post_at: Option<String>,
    /// Latest posting time.
    pub last_post_at: Option<String>,
    /// Always "distinct indexed posts".
    pub derived_from: DerivedFrom,
}

/// The `object` of a [`Profile`]: always `"profile"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProfileObject {
    /// `"profile"`.
    #[serde(rename = "profile")]
    Profile,
}

/// Profile: corpus-derived activity and recent posts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Always "profile".
    pub object: ProfileObject,
    /// Forum user ID.
    pub profile_id: i64,
    /// Username, or null.
    pub username: Option<String>,
    /// Link on the forum.
    pub url: String,
    /// Activity in the corpus.
    pub corpus: ProfileCorpus,
    /// Latest posts, newest first.
    pub recent_posts: Vec<PostSummary>,
}
