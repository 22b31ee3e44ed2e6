//! A topic's posts at a snapshot, aggregated: the statements are `forumdex_sql::topic_posts`
//! (shared with the PostgreSQL store), run here with the sequence as `:seq` and the topic
//! as `:id`.

pub(super) use forumdex_corpus::derive::TopicPosts;
use forumdex_corpus::derive::{self, TopicAggregates, TopicSums};
pub(super) use forumdex_sql::topic_posts::Counted;
use forumdex_sql::topic_posts::{
    aggregates_sql, board_of_posts_sql, flagged_op_sql, latest_post_sql, listed_senders_sql,
    smallest_post_sql,
};
use rusqlite::{Connection, OptionalExtension, named_params};

use super::sql::DIALECT;

/// The sums, greatest posting time and latest observation time of the topic's counted
/// posts at `seq`: one pass over them.
pub(super) fn aggregates(
    conn: &Connection,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> rusqlite::Result<TopicAggregates> {
    conn.prepare_cached(&aggregates_sql(DIALECT, ":id", counted))?
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
    conn.prepare_cached(&listed_senders_sql(DIALECT, ":id", counted))?
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
    conn.prepare_cached(&latest_post_sql(DIALECT, ":id", counted))?
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
        .prepare_cached(&flagged_op_sql(DIALECT, ":id", counted))?
        .query_row(params, |row| row.get(0))
        .optional()?;
    derive::opening_post(flagged, || {
        conn.prepare_cached(&smallest_post_sql(DIALECT, ":id", counted))?
            .query_row(params, |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()
    })
}

/// The board of the topic's posts at `seq` ([`board_of_posts_sql`]).
pub(super) fn board_of_posts(
    conn: &Connection,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(&board_of_posts_sql(DIALECT, ":id", counted))?
        .query_row(named_params! {":id": topic_id, ":seq": seq}, |row| {
            row.get(0)
        })
        .optional()
}
