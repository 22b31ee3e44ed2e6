//! A topic's posts at a snapshot, aggregated: the statements are `forumdex_sql::topic_posts`
//! (shared with the embedded store), run here with the sequence as `$1` and the topic as
//! `$2`.

pub(super) use forumdex_corpus::derive::TopicPosts;
use forumdex_corpus::derive::{self, TopicAggregates, TopicSums};
pub(super) use forumdex_sql::topic_posts::Counted;
use forumdex_sql::topic_posts::{
    aggregates_sql, board_of_posts_sql, flagged_op_sql, latest_post_sql, listed_senders_sql,
    smallest_post_sql,
};
use postgres::Transaction;

use super::Step;
use super::sql::DIALECT;

/// The sums, greatest posting time and latest observation time of the topic's counted
/// posts at `seq`: one pass over them.
pub(super) fn aggregates(
    tx: &mut Transaction<'_>,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> Step<TopicAggregates> {
    let sql = aggregates_sql(DIALECT, "$2", counted);
    let row = tx.query_one(&sql, &[&seq, &topic_id])?;
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
    let sql = listed_senders_sql(DIALECT, "$2", counted);
    Ok(tx.query_one(&sql, &[&seq, &topic_id])?.get(0))
}

/// The ID and posting time of the topic's counted post with the greatest (posted_at,
/// post_id) at `seq`.
pub(super) fn latest_post(
    tx: &mut Transaction<'_>,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> Step<Option<(i64, Option<i64>)>> {
    let sql = latest_post_sql(DIALECT, "$2", counted);
    let row = tx.query_opt(&sql, &[&seq, &topic_id])?;
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
        .query_opt(&flagged_op_sql(DIALECT, "$2", counted), &[&seq, &topic_id])?
        .map(|row| row.get(0));
    derive::opening_post(flagged, || {
        let sql = smallest_post_sql(DIALECT, "$2", counted);
        let row = tx.query_opt(&sql, &[&seq, &topic_id])?;
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
    let sql = board_of_posts_sql(DIALECT, "$2", counted);
    let row = tx.query_opt(&sql, &[&seq, &topic_id])?;
    Ok(row.map(|row| row.get(0)))
}
