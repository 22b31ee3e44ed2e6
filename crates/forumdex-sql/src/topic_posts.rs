//! The statements that aggregate a topic's posts at a snapshot, shared by both ways to a
//! topic document (each backend's `corpus/topic.rs` over the posts served at a read's
//! snapshot, `corpus/topic_stats.rs` over the live posts per import batch), so that both
//! give the same facts to the same rules (`forumdex_corpus::derive`). Each statement names
//! the topic by the parameter `topic` it is given and reads at the dialect's sequence
//! parameter. What they give is a `forumdex_corpus::derive::TopicPosts`.

use crate::dialect::Dialect;
use crate::{derived_is_op, live, served};

/// Which post versions of a topic an aggregate counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// The posts served at the snapshot ([`served`]): what a read answers.
    Served,
    /// The live posts ([`live`]: visible, not deletions, whatever their takedowns): what the
    /// statistics keep, since takedowns are not versioned.
    Live,
}

impl Counted {
    /// Whether the post version of alias `p` is counted.
    pub fn predicate(self, dialect: Dialect, p: &str) -> String {
        match self {
            Self::Served => served(dialect, p),
            Self::Live => live(dialect, p),
        }
    }
}

/// The columns of `topic_stat_versions` that hold a row's statistics, in the order of
/// `forumdex_corpus::topic_stats::TopicStats`' fields (the sums, `last_post_at`,
/// `merit_observed_at`, then the rest).
pub const TOPIC_STATS_COLUMNS: &str = "post_count, merit_total, merit_tx, merit_distinct_sum,
    merit_unlisted, last_post_at, merit_observed_at, merit_listed_senders, first_post_id,
    latest_post_id, board_id";

/// The live post versions an import batch opened (`valid_from` = parameter `seq`) or
/// closed (`valid_to` = `seq`), deletions included: topic, whether opened, deleted, the merit
/// sums, unlisted merit, `observed_at`.
pub fn changed_versions_sql(dialect: Dialect, seq: &str) -> String {
    let columns = format!(
        "p.topic_id, p.valid_from = {seq}, p.deleted, p.merit_total, p.merit_tx,
         p.merit_distinct, {}, p.observed_at",
        unlisted_merit(dialect, "p")
    );
    format!(
        "SELECT {columns} FROM post_versions p WHERE p.valid_from = {seq}
         UNION ALL SELECT {columns} FROM post_versions p WHERE p.valid_to = {seq}"
    )
}

/// An integer sum that is 0 over no rows (PostgreSQL's sum of `BIGINT`s is a `NUMERIC`).
fn sum(dialect: Dialect, expr: &str) -> String {
    match dialect {
        Dialect::Sqlite => format!("COALESCE(SUM({expr}), 0)"),
        Dialect::Postgres => format!("COALESCE(SUM({expr}), 0)::BIGINT"),
    }
}

/// Whether the post version of alias `p` has merit without listing its senders, as 1 or 0:
/// such a post makes a topic's distinct senders the sum of its posts' own counts
/// (`forumdex_corpus::derive::topic_distinct_senders`).
pub fn unlisted_merit(dialect: Dialect, p: &str) -> String {
    let unlisted =
        format!("(({p}.merit_total > 0 OR {p}.merit_tx > 0) AND {p}.merit_senders IS NULL)");
    match dialect {
        Dialect::Sqlite => unlisted,
        Dialect::Postgres => format!("{unlisted}::INTEGER::BIGINT"),
    }
}

/// The sums, greatest posting time and latest observation time of the topic's counted
/// posts: one pass over them. Columns: post count, merit total, merit transactions, the
/// posts' own distinct senders, the merited posts listing no senders, `MAX(posted_at)`,
/// `MAX(observed_at)`.
pub fn aggregates_sql(dialect: Dialect, topic: &str, counted: Counted) -> String {
    format!(
        "SELECT COUNT(*), {total}, {tx}, {distinct}, {unlisted}, MAX(p.posted_at),
                MAX(p.observed_at)
         FROM post_versions p WHERE p.topic_id = {topic} AND {counted}",
        total = sum(dialect, "p.merit_total"),
        tx = sum(dialect, "p.merit_tx"),
        distinct = sum(dialect, "p.merit_distinct"),
        unlisted = sum(dialect, &unlisted_merit(dialect, "p")),
        counted = counted.predicate(dialect, "p"),
    )
}

/// How many distinct merit senders the topic's counted posts list (the first element of
/// each `[sender, amount]` pair of `merit_senders`).
pub fn listed_senders_sql(dialect: Dialect, topic: &str, counted: Counted) -> String {
    let (sender, senders) = match dialect {
        Dialect::Sqlite => (
            "json_extract(s.value, '$[0]')",
            "post_versions p, json_each(p.merit_senders) s",
        ),
        Dialect::Postgres => (
            "(s.value ->> 0)::BIGINT",
            "post_versions p CROSS JOIN LATERAL jsonb_array_elements(p.merit_senders::JSONB) s",
        ),
    };
    format!(
        "SELECT COUNT(DISTINCT {sender}) FROM {senders}
         WHERE p.topic_id = {topic} AND {} AND p.merit_senders IS NOT NULL",
        counted.predicate(dialect, "p")
    )
}

/// The topic's counted post with the greatest (posted_at, post_id): its ID and posting
/// time (an index walk from the end).
pub fn latest_post_sql(dialect: Dialect, topic: &str, counted: Counted) -> String {
    format!(
        "SELECT p.post_id, p.posted_at FROM post_versions p WHERE p.topic_id = {topic} AND {}
         ORDER BY p.sort_at DESC, p.post_id DESC LIMIT 1",
        counted.predicate(dialect, "p")
    )
}

/// The ID of the topic's counted post flagged `is_op` with the smallest ID.
pub fn flagged_op_sql(dialect: Dialect, topic: &str, counted: Counted) -> String {
    format!(
        "SELECT p.post_id FROM post_versions p WHERE p.topic_id = {topic} AND {} AND {}
         ORDER BY p.post_id LIMIT 1",
        dialect.is_true("p.is_op"),
        counted.predicate(dialect, "p")
    )
}

/// The topic's counted post with the smallest ID: its ID and `is_op` ([`derived_is_op`]).
pub fn smallest_post_sql(dialect: Dialect, topic: &str, counted: Counted) -> String {
    format!(
        "SELECT p.post_id, {} AS is_op FROM post_versions p WHERE p.topic_id = {topic} AND {}
         ORDER BY p.post_id LIMIT 1",
        derived_is_op(dialect, "p"),
        counted.predicate(dialect, "p")
    )
}

/// The board of the topic's posts: that of its counted post with the smallest ID among
/// those naming one (the fallback of `forumdex_corpus::derive::topic_board_id`).
pub fn board_of_posts_sql(dialect: Dialect, topic: &str, counted: Counted) -> String {
    format!(
        "SELECT p.board_id FROM post_versions p
         WHERE p.topic_id = {topic} AND p.board_id IS NOT NULL AND {}
         ORDER BY p.post_id LIMIT 1",
        counted.predicate(dialect, "p")
    )
}
