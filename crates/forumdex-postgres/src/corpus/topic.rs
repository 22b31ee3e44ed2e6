//! Topic documents. What a topic's posts give its document at a snapshot comes from one row
//! of the statistics the imports keep ([`super::topic_stats`]) when that row answers exactly,
//! else from aggregating over the posts served at the snapshot. The aggregates below are
//! also what the statistics are computed with, over [`Counted::Live`] posts, so both ways
//! give the same facts, and both hand them to the same rules ([`forumdex_corpus::derive`]).
//!
//! The post walks are written once, for a topic named by an SQL expression
//! (`$2` here, each topic of a batch in [`super::topic_stats`]).

use forumdex_corpus::derive::{self, TopicAggregates, TopicSums};
use forumdex_corpus::{BoardRef, Millis, PostDoc, TakedownTarget, TopicDoc};
use postgres::Transaction;

use super::Step;
use super::read::{self, board_name, derived_is_op, live, visible};
use super::takedowns::{may_hide_posts_of, served, taken_down};
use super::topic_stats::{self, StatsAt};

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

pub(super) fn topic(tx: &mut Transaction<'_>, topic_id: i64, seq: i64) -> Step<Option<TopicDoc>> {
    if taken_down(tx, TakedownTarget::Topic(topic_id))? {
        return Ok(None);
    }
    let record = tx
        .query_opt(
            &format!(
                "SELECT t.title, t.board_id, t.views, t.page_count, t.observed_at
                 FROM topic_versions t WHERE t.topic_id = $2 AND {}",
                visible("t")
            ),
            &[&seq, &topic_id],
        )?
        .map(|row| derive::TopicRecordFacts {
            title: row.get(0),
            board_id: row.get(1),
            views: row.get(2),
            page_count: row.get(3),
            observed_at: Millis(row.get(4)),
        });
    let posts = match kept(tx, topic_id, seq)? {
        Some(posts) => posts,
        None => aggregate(tx, topic_id, seq)?,
    };
    if !derive::topic_exists(record.as_ref(), posts.facts.post_count) {
        return Ok(None);
    }
    let first_post = post_by_id(tx, posts.first_post_id, seq)?;
    let latest_post = if posts.latest_post_id == posts.first_post_id {
        first_post.clone()
    } else {
        post_by_id(tx, posts.latest_post_id, seq)?
    };
    let board_id = derive::topic_board_id(
        record.as_ref().and_then(|r| r.board_id),
        first_post.as_ref(),
        || Step::Ok(posts.board_id),
    )?;
    let board = BoardRef {
        board_id,
        name: board_name(tx, seq, board_id)?,
    };
    Ok(Some(derive::topic_doc(derive::TopicFacts {
        topic_id,
        record,
        posts: posts.facts,
        board,
        first_post,
        latest_post,
    })))
}

/// The topic's posts from its kept statistics, when they answer exactly at `seq`: no
/// takedown in force may hide one of its posts, and the statistics cover `seq`.
fn kept(tx: &mut Transaction<'_>, topic_id: i64, seq: i64) -> Step<Option<TopicPosts>> {
    if may_hide_posts_of(tx, topic_id)? {
        return Ok(None);
    }
    Ok(match topic_stats::at(tx, topic_id, seq)? {
        StatsAt::Kept(stats) => Some(stats.posts()?),
        StatsAt::NoPosts => Some(TopicPosts::default()),
        StatsAt::NotKept => None,
    })
}

/// The topic's posts aggregated over those served at `seq`.
fn aggregate(tx: &mut Transaction<'_>, topic_id: i64, seq: i64) -> Step<TopicPosts> {
    let counted = Counted::Served;
    let aggregates = aggregates(tx, topic_id, seq, counted)?;
    Ok(TopicPosts {
        facts: aggregates.facts(|| listed_senders(tx, topic_id, seq, counted))?,
        first_post_id: opening_post_id(tx, topic_id, seq, counted)?,
        latest_post_id: latest_post(tx, topic_id, seq, counted)?.map(|(id, _)| id),
        board_id: board_of_posts(tx, topic_id, seq, counted)?,
    })
}

fn post_by_id(tx: &mut Transaction<'_>, post_id: Option<i64>, seq: i64) -> Step<Option<PostDoc>> {
    match post_id {
        Some(post_id) => read::post(tx, post_id, seq),
        None => Ok(None),
    }
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
fn listed_senders(
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
fn latest_post(
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
fn opening_post_id(
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
fn board_of_posts(
    tx: &mut Transaction<'_>,
    topic_id: i64,
    seq: i64,
    counted: Counted,
) -> Step<Option<i64>> {
    let row = tx.query_opt(&board_of_posts_sql("$2", counted), &[&seq, &topic_id])?;
    Ok(row.map(|row| row.get(0)))
}
