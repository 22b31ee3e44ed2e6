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
    /// Whether the semantic leg ran and its hits were fused with the lexical ones.
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

/// What ranked a hit: the signals that applied, served as their names joined by `+` in this
/// order: the tiers `words` (several words: posts holding more of them first), `typo` (the
/// hit matched a neighbour of a missing word), `proximity` and `exactness`, then
/// `bm25+quality` (always), then `freshness` and `answer` when they applied, then
/// `semantic` when the semantic leg found the hit (a hybrid search); for example
/// `"words+proximity+exactness+bm25+quality"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankSource {
    /// Posts holding more of the query's words ranked first.
    pub words: bool,
    /// The hit matched a dictionary neighbour of a word no post holds.
    pub typo: bool,
    /// Closeness of consecutive query words counted.
    pub proximity: bool,
    /// Words held as typed, not only by their stem, counted.
    pub exactness: bool,
    /// The freshness preference.
    pub freshness: bool,
    /// The answer boost of a question.
    pub answer: bool,
    /// The semantic leg found it (its place there counted in the fusion).
    pub semantic: bool,
}

/// The signal names of [`RankSource`], in their served order, `bm25` and `quality` always.
const RANK_SIGNALS: [&str; 9] = [
    "words",
    "typo",
    "proximity",
    "exactness",
    "bm25",
    "quality",
    "freshness",
    "answer",
    "semantic",
];

impl RankSource {
    fn flags(&self) -> [bool; 9] {
        [
            self.words,
            self.typo,
            self.proximity,
            self.exactness,
            true,
            true,
            self.freshness,
            self.answer,
            self.semantic,
        ]
    }
}

impl std::fmt::Display for RankSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = RANK_SIGNALS
            .iter()
            .zip(self.flags())
            .filter_map(|(name, on)| on.then_some(*name))
            .collect();
        f.write_str(&names.join("+"))
    }
}

impl std::str::FromStr for RankSource {
    type Err = String;

    /// Parses the served form; signals must appear in their order, `bm25+quality` included.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut flags = [false; 9];
        let mut next = 0;
        for name in text.split('+') {
            let at = RANK_SIGNALS[next..]
                .iter()
                .position(|s| *s == name)
                .map(|i| i + next)
                .ok_or_else(|| format!("rank_source {text:?}: unexpected {name:?}"))?;
            flags[at] = true;
            next = at + 1;
        }
        if !(flags[4] && flags[5]) {
            return Err(format!("rank_source {text:?}: bm25+quality missing"));
        }
        Ok(Self {
            words: flags[0],
            typo: flags[1],
            proximity: flags[2],
            exactness: flags[3],
            freshness: flags[6],
            answer: flags[7],
            semantic: flags[8],
        })
    }
}

impl Serialize for RankSource {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RankSource {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
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
