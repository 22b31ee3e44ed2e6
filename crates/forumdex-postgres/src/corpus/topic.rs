//! Topic documents. What a topic's posts give its document at a snapshot comes from one row
//! of the statistics the imports keep ([`super::topic_stats`]) when that row answers exactly,
//! else from aggregating over the posts served at the snapshot. The aggregates below are
//! also what the statistics are computed with, over [`Counted::Live`] posts, so both ways
//! give the same facts, and both hand them to the same rules ([`forumdex_corpus::derive`]).
//!
//! The post walks are written once, for a topic named by an SQL expression
//! (`$2` here, each topic of a batch in [`super::topic_stats`]).

use forumdex_corpus::derive::{self};
use forumdex_corpus::{BoardRef, Millis, PostDoc, TakedownTarget, TopicDoc};
use postgres::Transaction;

use super::Step;
use super::read::{self, board_name};
use super::sql::visible;
use super::takedowns::{may_hide_posts_of, taken_down};
use super::topic_posts::{
    Counted, TopicPosts, aggregates, board_of_posts, latest_post, listed_senders, opening_post_id,
};
use super::topic_stats::{self, StatsAt};

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
