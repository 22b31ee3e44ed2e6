//! What a topic's posts give its document at a snapshot, aggregated over its posts: the
//! queries both ways to a topic document share. [`super::topic`] runs them over the posts
//! served at a read's snapshot ([`Counted::Served`]); [`super::topic_stats`] keeps their
//! results per import batch over the live posts ([`Counted::Live`]), so both ways give the
//! same facts to the same rules ([`forumdex_corpus::derive`]).

use forumdex_corpus::derive::{self, TopicAggregates, TopicSums};
use rusqlite::{Connection, OptionalExtension, named_params};

use super::sql::{derived_is_op, live, served};

/// Which post versions of a topic an aggregate counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Counted {
    /// The posts served at the snapshot ([`served`]): what a read answers.
    Served,
    /// The live posts ([`live`]: visible, not deletions, whatever their takedowns): what the
    /// statistics keep, since takedowns are not versioned.
    Live,
}

impl Counted {
    fn predicate(self, p: &str) -> String {
        match self {
            Self::Served => served(p),
            Self::Live => live(p),
        }
    }
}

/// Whether the post version of alias `p` has merit without listing its senders: such a
/// post makes a topic's distinct senders the sum of its posts' own counts
/// ([`derive::topic_distinct_senders`]).
pub(super) fn unlisted_merit(p: &str) -> String {
    format!("(({p}.merit_total > 0 OR {p}.merit_tx > 0) AND {p}.merit_senders IS NULL)")
}

/// What a topic's posts give its document at a snapshot, with the posts it shows by ID.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct TopicPosts {
    /// The aggregates the rules take.
    pub facts: derive::TopicPostFacts,
    /// Its opening post ([`opening_post_id`]).
    pub first_post_id: Option<i64>,
    /// Its post with the greatest (posted_at, post_id).
    pub latest_post_id: Option<i64>,
    /// The board of its posts ([`board_of_posts`]).
    pub board_id: Option<i64>,
}

/// The sums, greatest posting time and latest observation time of the topic's counted
/// posts at `seq`: one pass over them.
pub(super) fn aggregates(
    conn: &Connection,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> rusqlite::Result<TopicAggregates> {
    conn.prepare_cached(&format!(
        "SELECT COUNT(*), COALESCE(SUM(p.merit_total), 0), COALESCE(SUM(p.merit_tx), 0),
                COALESCE(SUM(p.merit_distinct), 0), COALESCE(SUM({unlisted}), 0),
                MAX(p.posted_at), MAX(p.observed_at)
         FROM post_versions p WHERE p.topic_id = :id AND {counted}",
        unlisted = unlisted_merit("p"),
        counted = counted.predicate("p"),
    ))?
    .query_row(named_params! {":id": topic_id, ":seq": seq}, |row| {
        Ok(TopicAggregates {
            sums: TopicSums {
                post_count: row.get(0)?,
                merit_total: row.get(1)?,
                merit_tx: row.get(2)?,
                merit_distinct_sum: row.get(3)?,
                merit_unlisted: row.get(4)?,
            },
            last_post_at: row.get(5)?,
            merit_observed_at: row.get(6)?,
        })
    })
}

/// The distinct merit senders the topic's counted posts list at `seq`.
pub(super) fn listed_senders(
    conn: &Connection,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(&format!(
        "SELECT COUNT(DISTINCT json_extract(s.value, '$[0]'))
         FROM post_versions p, json_each(p.merit_senders) s
         WHERE p.topic_id = :id AND {} AND p.merit_senders IS NOT NULL",
        counted.predicate("p")
    ))?
    .query_row(named_params! {":id": topic_id, ":seq": seq}, |row| {
        row.get(0)
    })
}

/// The ID and posting time of the topic's counted post with the greatest (posted_at,
/// post_id) at `seq` (an index walk from the end).
pub(super) fn latest_post(
    conn: &Connection,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> rusqlite::Result<Option<(i64, Option<i64>)>> {
    conn.prepare_cached(&format!(
        "SELECT p.post_id, p.posted_at FROM post_versions p WHERE p.topic_id = :id AND {}
         ORDER BY p.sort_at DESC, p.post_id DESC LIMIT 1",
        counted.predicate("p")
    ))?
    .query_row(named_params! {":id": topic_id, ":seq": seq}, |row| {
        Ok((row.get(0)?, row.get(1)?))
    })
    .optional()
}

/// The ID of the topic's opening post among its counted posts at `seq`, by
/// [`derive::opening_post`] (index walks from the smallest post ID).
pub(super) fn opening_post_id(
    conn: &Connection,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> rusqlite::Result<Option<i64>> {
    let params = named_params! {":id": topic_id, ":seq": seq};
    let flagged: Option<i64> = conn
        .prepare_cached(&format!(
            "SELECT p.post_id FROM post_versions p WHERE p.topic_id = :id AND p.is_op = 1 AND {}
             ORDER BY p.post_id LIMIT 1",
            counted.predicate("p")
        ))?
        .query_row(params, |row| row.get(0))
        .optional()?;
    derive::opening_post(flagged, || {
        conn.prepare_cached(&format!(
            "SELECT p.post_id, {} FROM post_versions p WHERE p.topic_id = :id AND {}
             ORDER BY p.post_id LIMIT 1",
            derived_is_op("p"),
            counted.predicate("p")
        ))?
        .query_row(params, |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()
    })
}

/// The board of the topic's posts at `seq`: that of its counted post with the smallest ID
/// among those naming one (the fallback of [`derive::topic_board_id`]).
pub(super) fn board_of_posts(
    conn: &Connection,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(&format!(
        "SELECT p.board_id FROM post_versions p
         WHERE p.topic_id = :id AND p.board_id IS NOT NULL AND {}
         ORDER BY p.post_id LIMIT 1",
        counted.predicate("p")
    ))?
    .query_row(named_params! {":id": topic_id, ":seq": seq}, |row| {
        row.get(0)
    })
    .optional()
}
