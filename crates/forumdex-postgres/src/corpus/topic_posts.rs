//! What a topic's posts give its document at a snapshot, aggregated over its posts: the
//! queries both ways to a topic document share. [`super::topic`] runs them over the posts
//! served at a read's snapshot ([`Counted::Served`]); [`super::topic_stats`] keeps their
//! results per import batch over the live posts ([`Counted::Live`]), so both ways give the
//! same facts to the same rules ([`forumdex_corpus::derive`]).

use forumdex_corpus::derive::{self, TopicAggregates, TopicSums};
use postgres::Transaction;

use super::Step;
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

/// Whether the post version of alias `p` has merit without listing its senders, as 1 or 0:
/// such a post makes a topic's distinct senders the sum of its posts' own counts
/// ([`derive::topic_distinct_senders`]).
pub(super) fn unlisted_merit(p: &str) -> String {
    format!(
        "(({p}.merit_total > 0 OR {p}.merit_tx > 0) AND {p}.merit_senders IS NULL)::INTEGER::BIGINT"
    )
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
    tx: &mut Transaction<'_>,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> Step<TopicAggregates> {
    let row = tx.query_one(
        &format!(
            "SELECT COUNT(*), COALESCE(SUM(p.merit_total), 0)::BIGINT,
                    COALESCE(SUM(p.merit_tx), 0)::BIGINT,
                    COALESCE(SUM(p.merit_distinct), 0)::BIGINT,
                    COALESCE(SUM({unlisted}), 0)::BIGINT,
                    MAX(p.posted_at), MAX(p.observed_at)
             FROM post_versions p WHERE p.topic_id = $2 AND {counted}",
            unlisted = unlisted_merit("p"),
            counted = counted.predicate("p"),
        ),
        &[&seq, &topic_id],
    )?;
    Ok(TopicAggregates {
        sums: TopicSums {
            post_count: row.get(0),
            merit_total: row.get(1),
            merit_tx: row.get(2),
            merit_distinct_sum: row.get(3),
            merit_unlisted: row.get(4),
        },
        last_post_at: row.get(5),
        merit_observed_at: row.get(6),
    })
}

/// The distinct merit senders the topic's counted posts list at `seq`.
pub(super) fn listed_senders(
    tx: &mut Transaction<'_>,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> Step<i64> {
    let row = tx.query_one(
        &format!(
            "SELECT COUNT(DISTINCT (s.value ->> 0)::BIGINT)
             FROM post_versions p CROSS JOIN LATERAL jsonb_array_elements(p.merit_senders::JSONB) s
             WHERE p.topic_id = $2 AND {} AND p.merit_senders IS NOT NULL",
            counted.predicate("p")
        ),
        &[&seq, &topic_id],
    )?;
    Ok(row.get(0))
}

/// The topic `topic`'s counted post with the greatest (posted_at, post_id) at `$1`: its
/// ID and posting time (an index walk from the end).
pub(super) fn latest_post_sql(topic: &str, counted: Counted) -> String {
    format!(
        "SELECT p.post_id, p.posted_at FROM post_versions p WHERE p.topic_id = {topic} AND {}
         ORDER BY p.sort_at DESC, p.post_id DESC LIMIT 1",
        counted.predicate("p")
    )
}

/// The ID of the topic `topic`'s counted post flagged `is_op` with the smallest ID at `$1`.
pub(super) fn flagged_op_sql(topic: &str, counted: Counted) -> String {
    format!(
        "SELECT p.post_id FROM post_versions p WHERE p.topic_id = {topic} AND p.is_op AND {}
         ORDER BY p.post_id LIMIT 1",
        counted.predicate("p")
    )
}

/// The topic `topic`'s counted post with the smallest ID at `$1`: its ID and `is_op`
/// ([`derived_is_op`]).
pub(super) fn smallest_post_sql(topic: &str, counted: Counted) -> String {
    format!(
        "SELECT p.post_id, {} AS is_op FROM post_versions p WHERE p.topic_id = {topic} AND {}
         ORDER BY p.post_id LIMIT 1",
        derived_is_op("p"),
        counted.predicate("p")
    )
}

/// The board of the topic `topic`'s posts at `$1`: that of its counted post with the
/// smallest ID among those naming one (the fallback of [`derive::topic_board_id`]).
pub(super) fn board_of_posts_sql(topic: &str, counted: Counted) -> String {
    format!(
        "SELECT p.board_id FROM post_versions p
         WHERE p.topic_id = {topic} AND p.board_id IS NOT NULL AND {}
         ORDER BY p.post_id LIMIT 1",
        counted.predicate("p")
    )
}

/// The ID and posting time of the topic's counted post with the greatest (posted_at,
/// post_id) at `seq`.
pub(super) fn latest_post(
    tx: &mut Transaction<'_>,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> Step<Option<(i64, Option<i64>)>> {
    let row = tx.query_opt(&latest_post_sql("$2", counted), &[&seq, &topic_id])?;
    Ok(row.map(|row| (row.get(0), row.get(1))))
}

/// The ID of the topic's opening post among its counted posts at `seq`, by
/// [`derive::opening_post`] (index walks from the smallest post ID).
pub(super) fn opening_post_id(
    tx: &mut Transaction<'_>,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> Step<Option<i64>> {
    let flagged: Option<i64> = tx
        .query_opt(&flagged_op_sql("$2", counted), &[&seq, &topic_id])?
        .map(|row| row.get(0));
    derive::opening_post(flagged, || {
        let row = tx.query_opt(&smallest_post_sql("$2", counted), &[&seq, &topic_id])?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    })
}

/// The board of the topic's posts at `seq` ([`board_of_posts_sql`]).
pub(super) fn board_of_posts(
    tx: &mut Transaction<'_>,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> Step<Option<i64>> {
    let row = tx.query_opt(&board_of_posts_sql("$2", counted), &[&seq, &topic_id])?;
    Ok(row.map(|row| row.get(0)))
}
