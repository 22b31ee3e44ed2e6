//! Collections (`/topics/{id}/posts`, `/profiles/{id}/posts`): one page, [`PostList`].

use serde::{Deserialize, Serialize};

use crate::resources::Post;

/// The `object` of a [`PostList`]: always `"post_list"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PostListObject {
    /// `"post_list"`.
    #[serde(rename = "post_list")]
    PostList,
}

/// Whose posts a collection walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeKind {
    /// `"topic"`: the posts of a topic.
    Topic,
    /// `"profile"`: the posts of an author.
    Profile,
}

/// The scope of a post list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostListScope {
    /// Topic or profile.
    #[serde(rename = "type")]
    pub kind: ScopeKind,
    /// The topic or profile ID.
    pub id: i64,
}

/// The order of a collection by posting time (ties by post ID).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// `"asc"`: oldest first.
    Asc,
    /// `"desc"`: newest first.
    Desc,
}

/// The effective filters of a walk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// PostList: one collection page. No total count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostList {
    /// Always "post_list".
    pub object: PostListObject,
    /// Whose posts.
    pub scope: PostListScope,
    /// Oldest or newest first.
    pub order: Order,
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
