//! Post search (`/api/v1/search`): [`SearchResponse`] and its [`SearchHit`]s.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The boards a search covered: search takes no board filter, so always `"all"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardScope {
    /// `"all"`: every board.
    All,
}

/// SearchResponse (post search; no `object` field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResponse {
    /// The query as sent.
    pub query: String,
    /// The query whose hits are returned, when a spelling correction was applied.
    pub corrected_query: Option<String>,
    /// The requested language, or `all` when none was given.
    pub lang: String,
    /// The boards searched: always all (search has no board filter).
    pub board_scope: BoardScope,
    /// The index searched (`en`, `pt`, ... or `all`).
    pub index: String,
    /// A better query, when the original was kept.
    pub did_you_mean: Option<String>,
    /// Always false: lexical search only.
    pub hybrid: bool,
    /// Whether the freshness preference was applied (requested or detected).
    pub freshness: bool,
    /// Whether the query was read as a question.
    pub answer_seeking: bool,
    /// Matching posts, after the quality filter.
    pub total: u64,
    /// The best hits.
    pub hits: Vec<SearchHit>,
}

/// Which time a hit's `date` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DateSource {
    /// `"posted_at"`: when the post was written.
    PostedAt,
    /// `"indexed_at"`: when an undated post was indexed.
    IndexedAt,
}

/// What ranked a hit: BM25 times the quality factor, and the freshness and answer factors
/// when they applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RankSource {
    /// `"bm25+quality"`.
    #[serde(rename = "bm25+quality")]
    Bm25Quality,
    /// `"bm25+quality+freshness"`.
    #[serde(rename = "bm25+quality+freshness")]
    Bm25QualityFreshness,
    /// `"bm25+quality+answer"`.
    #[serde(rename = "bm25+quality+answer")]
    Bm25QualityAnswer,
    /// `"bm25+quality+freshness+answer"`.
    #[serde(rename = "bm25+quality+freshness+answer")]
    Bm25QualityFreshnessAnswer,
}

/// SearchHit: one element of `hits` (the contract's fields plus `is_op`, `url` and
/// `date_source`, which its additional properties allow).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    /// Post ID.
    pub post_id: i64,
    /// Topic ID.
    pub topic_id: i64,
    /// The post's subject.
    pub title: String,
    /// The subject without `Re: `.
    pub topic_title: String,
    /// The post's own subject.
    pub post_title: Option<String>,
    /// Plain text of the post; images appear as their `alt` text and URL (the CDN URL when
    /// cached).
    pub content: String,
    /// Author username.
    pub author: String,
    /// Author profile ID; absent for guests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author_uid: Option<i64>,
    /// `posted_at`; for an undated post, when it was indexed (see `date_source`).
    pub date: String,
    /// Which time `date` is.
    pub date_source: DateSource,
    /// Board ID; absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_id: Option<i64>,
    /// Board name.
    pub board_name: String,
    /// The post's language, or `und`.
    pub lang: String,
    /// Whether it opens its topic.
    pub is_op: bool,
    /// Link to the post on the forum.
    pub url: String,
    /// `<mark>`ed fragments by field; null when nothing could be highlighted.
    pub highlight: Option<BTreeMap<String, Vec<String>>>,
    /// Final score.
    pub score: f64,
    /// Spam likelihood, 0..1.
    pub spam_score: f64,
    /// Machine-written style likelihood, 0..1 (weak heuristic).
    pub ai_score: f64,
    /// Usefulness, 0..1.
    pub health_score: f64,
    /// What ranked the hit.
    pub rank_source: RankSource,
    /// Version of the ranking formula.
    pub ranking_model_version: String,
    /// The index the hit came from.
    pub search_index: String,
}
