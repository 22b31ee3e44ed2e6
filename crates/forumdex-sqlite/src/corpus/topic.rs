//! Topic documents: the backend's answers to [`derive::TopicSource`] at a read's snapshot;
//! the flow (kept statistics when they answer exactly, else aggregates over the served
//! posts) and the rules are the domain's ([`derive::topic_document`]). The aggregates are
//! `forumdex_sql::topic_posts`' statements, which the statistics are computed with too (over
//! [`Counted::Live`] posts), so both ways give the same facts.

use rusqlite::{Connection, OptionalExtension, named_params};

use forumdex_corpus::derive::{self, TopicAggregates, TopicRecordFacts, TopicSource};
use forumdex_corpus::model::{PostDoc, TopicDoc};
use forumdex_corpus::takedown::TakedownTarget;
use forumdex_corpus::time::Millis;
use forumdex_corpus::topic_stats::StatsAt;

use super::read::{self, BoardNames};
use super::sql::visible;
use super::takedowns::{may_hide_posts_of, taken_down};
use super::topic_posts::{
    Counted, TopicPosts, aggregates, board_of_posts, latest_post, listed_senders, opening_post_id,
};
use super::topic_stats;

pub(super) fn topic(
    conn: &Connection,
    topic_id: i64,
    seq: i64,
) -> rusqlite::Result<Option<TopicDoc>> {
    derive::topic_document(&mut Snapshot { conn, seq }, topic_id)
}

/// A read's connection at its sequence.
struct Snapshot<'c> {
    conn: &'c Connection,
    seq: i64,
}

impl TopicSource for Snapshot<'_> {
    type Error = rusqlite::Error;

    fn topic_taken_down(&mut self, topic_id: i64) -> rusqlite::Result<bool> {
        taken_down(self.conn, TakedownTarget::Topic(topic_id))
    }

    fn record(&mut self, topic_id: i64) -> rusqlite::Result<Option<TopicRecordFacts>> {
        self.conn
            .prepare_cached(&format!(
                "SELECT t.title, t.board_id, t.views, t.page_count, t.observed_at
                 FROM topic_versions t WHERE t.topic_id = :id AND {}",
                visible("t")
            ))?
            .query_row(named_params! {":id": topic_id, ":seq": self.seq}, |row| {
                Ok(TopicRecordFacts {
                    title: row.get(0)?,
                    board_id: row.get(1)?,
                    views: row.get(2)?,
                    page_count: row.get(3)?,
                    observed_at: Millis(row.get(4)?),
                })
            })
            .optional()
    }

    fn may_hide_posts_of(&mut self, topic_id: i64) -> rusqlite::Result<bool> {
        may_hide_posts_of(self.conn, topic_id)
    }

    fn kept(&mut self, topic_id: i64) -> rusqlite::Result<Option<TopicPosts>> {
        Ok(match topic_stats::at(self.conn, topic_id, self.seq)? {
            StatsAt::Kept(stats) => Some(stats.posts()),
            StatsAt::NoPosts => Some(TopicPosts::default()),
            StatsAt::NotKept => None,
        })
    }

    fn aggregated(&mut self, topic_id: i64) -> rusqlite::Result<TopicPosts> {
        let (conn, seq, counted) = (self.conn, self.seq, Counted::Served);
        let aggregates: TopicAggregates = aggregates(conn, topic_id, seq, counted)?;
        Ok(TopicPosts {
            facts: aggregates.facts(|| listed_senders(conn, topic_id, seq, counted))?,
            first_post_id: opening_post_id(conn, topic_id, seq, counted)?,
            latest_post_id: latest_post(conn, topic_id, seq, counted)?.map(|(id, _)| id),
            board_id: board_of_posts(conn, topic_id, seq, counted)?,
        })
    }

    fn post(&mut self, post_id: i64) -> rusqlite::Result<Option<PostDoc>> {
        read::post(self.conn, post_id, self.seq)
    }

    fn board_name(&mut self, board_id: Option<i64>) -> rusqlite::Result<String> {
        BoardNames::new(self.conn, self.seq).name(board_id)
    }
}
