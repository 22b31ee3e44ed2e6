//! The contract's JSON shapes (api-contract.md "Resources and their fields"), built from
//! the store's documents. Timestamps are UTC with exactly three fractional digits.

use forumdex_corpus::{BoardRef, Millis, PostDoc, ProfileDoc, TopicDoc};
use serde::Serialize;

/// How forum and CDN links are built (from the settings).
#[derive(Debug, Clone)]
pub struct Links {
    /// The original forum, without a trailing slash.
    pub forum_url: String,
    /// Base address of image objects, without a trailing slash.
    pub cdn_url: String,
}

impl Links {
    /// `{forum_url}/index.php?topic={topic_id}.msg{post_id}#msg{post_id}`.
    pub fn post(&self, topic_id: i64, post_id: i64) -> String {
        format!(
            "{}/index.php?topic={topic_id}.msg{post_id}#msg{post_id}",
            self.forum_url
        )
    }

    /// `{cdn_url}/{sha256}.avif`: the CDN URL of an image object.
    pub fn image(&self, sha256: &str) -> String {
        format!("{}/{sha256}.avif", self.cdn_url)
    }

    /// `{forum_url}/index.php?topic={topic_id}.0`.
    pub fn topic(&self, topic_id: i64) -> String {
        format!("{}/index.php?topic={topic_id}.0", self.forum_url)
    }

    /// `{forum_url}/index.php?action=profile;u={profile_id}`.
    pub fn profile(&self, profile_id: i64) -> String {
        format!("{}/index.php?action=profile;u={profile_id}", self.forum_url)
    }
}

fn time(at: Option<Millis>) -> Option<String> {
    at.map(Millis::to_rfc3339)
}

/// Author (nested).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Author {
    /// Forum user ID; null for guests.
    pub profile_id: Option<i64>,
    /// Username shown on the post.
    pub username: String,
    /// Profile link; null for guests.
    pub url: Option<String>,
}

/// Board (nested).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Board {
    /// Board ID, or null.
    pub board_id: Option<i64>,
    /// Board name ("" when unknown).
    pub name: String,
}

impl From<&BoardRef> for Board {
    fn from(board: &BoardRef) -> Self {
        Self {
            board_id: board.board_id,
            name: board.name.clone(),
        }
    }
}

/// Merit (nested).
#[derive(Debug, Clone, Serialize, PartialEq)]
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

impl From<&forumdex_corpus::Merit> for Merit {
    fn from(merit: &forumdex_corpus::Merit) -> Self {
        Self {
            total: merit.counts.total,
            distinct_senders: merit.counts.distinct_senders,
            transactions: merit.counts.transactions,
            observed_at: time(merit.observed_at),
        }
    }
}

/// PostSummary.
#[derive(Debug, Clone, Serialize, PartialEq)]
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

impl PostSummary {
    /// The summary of a stored post.
    pub fn new(post: &PostDoc, links: &Links) -> Self {
        Self {
            post_id: post.post_id,
            topic_id: post.topic_id,
            post_number: post.post_number,
            is_op: post.is_op,
            title: post.title.clone(),
            author: Author {
                profile_id: post.author_id,
                username: post.author_name.clone(),
                url: post.author_id.map(|id| links.profile(id)),
            },
            board: Board::from(&post.board),
            language: post.language.clone(),
            posted_at: time(post.posted_at),
            url: links.post(post.topic_id, post.post_id),
            topic_url: links.topic(post.topic_id),
        }
    }
}

/// Post (full).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Post {
    /// Always "post".
    pub object: &'static str,
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

impl Post {
    /// The full wire post of a stored post.
    pub fn new(post: &PostDoc, links: &Links) -> Self {
        Self {
            object: "post",
            summary: PostSummary::new(post, links),
            content_html: post.content_html.clone(),
            indexed_at: time(Some(post.indexed_at)),
            merit: Merit::from(&post.merit),
        }
    }
}

/// Topic views.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Views {
    /// Counter as observed.
    pub observed: i64,
    /// When, or null.
    pub observed_at: Option<String>,
}

/// Topic.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Topic {
    /// Always "topic".
    pub object: &'static str,
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

impl Topic {
    /// The wire topic of a stored topic.
    pub fn new(topic: &TopicDoc, links: &Links) -> Self {
        Self {
            object: "topic",
            topic_id: topic.topic_id,
            title: topic.title.clone(),
            board: Board::from(&topic.board),
            language: topic.language.clone(),
            created_at: time(topic.created_at),
            last_post_at: time(topic.last_post_at),
            post_count: topic.post_count,
            page_count: topic.page_count,
            views: Views {
                observed: topic.views.observed,
                observed_at: time(topic.views.observed_at),
            },
            merit: Merit::from(&topic.merit),
            url: links.topic(topic.topic_id),
            first_post: topic.first_post.as_ref().map(|p| Post::new(p, links)),
            latest_post: topic
                .latest_post
                .as_ref()
                .map(|p| PostSummary::new(p, links)),
        }
    }
}

/// Corpus-derived activity of a profile.
#[derive(Debug, Clone, Serialize, PartialEq)]
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
    pub derived_from: &'static str,
}

/// Profile.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Profile {
    /// Always "profile".
    pub object: &'static str,
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

impl Profile {
    /// The wire profile of a stored profile.
    pub fn new(profile: &ProfileDoc, links: &Links) -> Self {
        Self {
            object: "profile",
            profile_id: profile.profile_id,
            username: profile.username.clone(),
            url: links.profile(profile.profile_id),
            corpus: ProfileCorpus {
                post_count: profile.activity.post_count,
                topic_count: profile.activity.topic_count,
                first_post_at: time(profile.activity.first_post_at),
                last_post_at: time(profile.activity.last_post_at),
                derived_from: "distinct indexed posts",
            },
            recent_posts: profile
                .recent_posts
                .iter()
                .map(|p| PostSummary::new(p, links))
                .collect(),
        }
    }
}

/// The scope of a post list.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PostListScope {
    /// "topic" or "profile".
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The topic or profile ID.
    pub id: i64,
}

/// The effective filters of a walk.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PostListFilters {
    /// Inclusive lower bound, normalized.
    pub date_from: Option<String>,
    /// Exclusive upper bound, normalized.
    pub date_to: Option<String>,
    /// Board restriction.
    pub board_id: Option<i64>,
    /// Author restriction (topic endpoint).
    pub author_uid: Option<i64>,
    /// Topic restriction (profile endpoint).
    pub topic_id: Option<i64>,
}

/// PostList: one collection page.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PostList {
    /// Always "post_list".
    pub object: &'static str,
    /// Whose posts.
    pub scope: PostListScope,
    /// "asc" or "desc".
    pub order: &'static str,
    /// Effective page size.
    pub limit: u8,
    /// Effective filters.
    pub filters: PostListFilters,
    /// When the snapshot was frozen.
    pub snapshot_at: String,
    /// When the returned cursor stops working.
    pub cursor_expires_at: String,
    /// Whether another page follows.
    pub has_more: bool,
    /// The cursor of the next page; null when the listing is complete.
    pub next_cursor: Option<String>,
    /// Full posts; may be empty.
    pub data: Vec<Post>,
}
