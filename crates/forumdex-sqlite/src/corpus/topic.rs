//! Topic documents. What a topic's posts give its document at a snapshot comes from one row
//! of the statistics the imports keep ([`super::topic_stats`]) when that row answers exactly,
//! else from aggregating over the posts served at the snapshot. The aggregates below are
//! also what the statistics are computed with, over [`Counted::Live`] posts, so both ways
//! give the same facts, and both hand them to the same rules ([`forumdex_corpus::derive`]).

use rusqlite::{Connection, OptionalExtension, named_params};

use forumdex_corpus::derive::{self};
use forumdex_corpus::model::{BoardRef, PostDoc, TopicDoc};
use forumdex_corpus::takedown::TakedownTarget;
use forumdex_corpus::time::Millis;

use super::read::{self, BoardNames};
use super::sql::visible;
use super::takedowns::{may_hide_posts_of, taken_down};
use super::topic_posts::{
    Counted, TopicPosts, aggregates, board_of_posts, latest_post, listed_senders, opening_post_id,
};
use super::topic_stats::{self, StatsAt};

pub(super) fn topic(
    conn: &Connection,
    topic_id: i64,
    seq: i64,
) -> rusqlite::Result<Option<TopicDoc>> {
    if taken_down(conn, TakedownTarget::Topic(topic_id))? {
        return Ok(None);
    }
    let record = conn
        .prepare_cached(&format!(
            "SELECT t.title, t.board_id, t.views, t.page_count, t.observed_at
             FROM topic_versions t WHERE t.topic_id = :id AND {}",
            visible("t")
        ))?
        .query_row(named_params! {":id": topic_id, ":seq": seq}, |row| {
            Ok(derive::TopicRecordFacts {
                title: row.get(0)?,
                board_id: row.get(1)?,
                views: row.get(2)?,
                page_count: row.get(3)?,
                observed_at: Millis(row.get(4)?),
            })
        })
        .optional()?;
    let posts = match kept(conn, topic_id, seq)? {
        Some(posts) => posts,
        None => aggregate(conn, topic_id, seq)?,
    };
    if !derive::topic_exists(record.as_ref(), posts.facts.post_count) {
        return Ok(None);
    }
    let first_post = post_by_id(conn, posts.first_post_id, seq)?;
    let latest_post = if posts.latest_post_id == posts.first_post_id {
        first_post.clone()
    } else {
        post_by_id(conn, posts.latest_post_id, seq)?
    };
    let board_id = derive::topic_board_id(
        record.as_ref().and_then(|r| r.board_id),
        first_post.as_ref(),
        || Ok::<_, rusqlite::Error>(posts.board_id),
    )?;
    let board = BoardRef {
        board_id,
        name: BoardNames::new(conn, seq).name(board_id)?,
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
fn kept(conn: &Connection, topic_id: i64, seq: i64) -> rusqlite::Result<Option<TopicPosts>> {
    if may_hide_posts_of(conn, topic_id)? {
        return Ok(None);
    }
    Ok(match topic_stats::at(conn, topic_id, seq)? {
        StatsAt::Kept(stats) => Some(stats.posts()?),
        StatsAt::NoPosts => Some(TopicPosts::default()),
        StatsAt::NotKept => None,
    })
}

/// The topic's posts aggregated over those served at `seq`.
fn aggregate(conn: &Connection, topic_id: i64, seq: i64) -> rusqlite::Result<TopicPosts> {
    let counted = Counted::Served;
    let aggregates = aggregates(conn, topic_id, seq, counted)?;
    Ok(TopicPosts {
        facts: aggregates.facts(|| listed_senders(conn, topic_id, seq, counted))?,
        first_post_id: opening_post_id(conn, topic_id, seq, counted)?,
        latest_post_id: latest_post(conn, topic_id, seq, counted)?.map(|(id, _)| id),
        board_id: board_of_posts(conn, topic_id, seq, counted)?,
    })
}

fn post_by_id(
    conn: &Connection,
    post_id: Option<i64>,
    seq: i64,
) -> rusqlite::Result<Option<PostDoc>> {
    match post_id {
        Some(post_id) => read::post(conn, post_id, seq),
        None => Ok(None),
    }
}
