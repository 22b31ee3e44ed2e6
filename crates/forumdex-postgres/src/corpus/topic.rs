//! Topic documents: the backend's answers to [`derive::TopicSource`] at a read's snapshot;
//! the flow (kept statistics when they answer exactly, else aggregates over the served
//! posts) and the rules are the domain's ([`derive::topic_document`]). The aggregates are
//! `forumdex_sql::topic_posts`' statements, which the statistics are computed with too (over
//! [`Counted::Live`] posts), so both ways give the same facts.

use forumdex_corpus::derive::{self, TopicAggregates, TopicRecordFacts, TopicSource};
use forumdex_corpus::topic_stats::StatsAt;
use forumdex_corpus::{Millis, PostDoc, StoreError, TakedownTarget, TopicDoc};
use postgres::Transaction;

use super::Step;
use super::read::{self, board_name};
use super::sql::visible;
use super::takedowns::{may_hide_posts_of, taken_down};
use super::topic_posts::{
    Counted, TopicPosts, aggregates, board_of_posts, latest_post, listed_senders, opening_post_id,
};
use super::topic_stats;
use crate::pool::Failure;

pub(super) fn topic(tx: &mut Transaction<'_>, topic_id: i64, seq: i64) -> Step<Option<TopicDoc>> {
    derive::topic_document(&mut Snapshot { tx, seq }, topic_id)
}

/// A read's transaction at its sequence.
struct Snapshot<'a, 't> {
    tx: &'a mut Transaction<'t>,
    seq: i64,
}

impl TopicSource for Snapshot<'_, '_> {
    type Error = Failure<StoreError>;

    fn topic_taken_down(&mut self, topic_id: i64) -> Step<bool> {
        taken_down(self.tx, TakedownTarget::Topic(topic_id))
    }

    fn record(&mut self, topic_id: i64) -> Step<Option<TopicRecordFacts>> {
        let sql = format!(
            "SELECT t.title, t.board_id, t.views, t.page_count, t.observed_at
             FROM topic_versions t WHERE t.topic_id = $2 AND {}",
            visible("t")
        );
        let row = self.tx.query_opt(&sql, &[&self.seq, &topic_id])?;
        Ok(row.map(|row| TopicRecordFacts {
            title: row.get(0),
            board_id: row.get(1),
            views: row.get(2),
            page_count: row.get(3),
            observed_at: Millis(row.get(4)),
        }))
    }

    fn may_hide_posts_of(&mut self, topic_id: i64) -> Step<bool> {
        may_hide_posts_of(self.tx, topic_id)
    }

    fn kept(&mut self, topic_id: i64) -> Step<Option<TopicPosts>> {
        Ok(match topic_stats::at(self.tx, topic_id, self.seq)? {
            StatsAt::Kept(stats) => Some(stats.posts()),
            StatsAt::NoPosts => Some(TopicPosts::default()),
            StatsAt::NotKept => None,
        })
    }

    fn aggregated(&mut self, topic_id: i64) -> Step<TopicPosts> {
        let (tx, seq, counted) = (&mut *self.tx, self.seq, Counted::Served);
        let aggregates: TopicAggregates = aggregates(tx, topic_id, seq, counted)?;
        Ok(TopicPosts {
            facts: aggregates.facts(|| listed_senders(tx, topic_id, seq, counted))?,
            first_post_id: opening_post_id(tx, topic_id, seq, counted)?,
            latest_post_id: latest_post(tx, topic_id, seq, counted)?.map(|(id, _)| id),
            board_id: board_of_posts(tx, topic_id, seq, counted)?,
        })
    }

    fn post(&mut self, post_id: i64) -> Step<Option<PostDoc>> {
        read::post(self.tx, post_id, self.seq)
    }

    fn board_name(&mut self, board_id: Option<i64>) -> Step<String> {
        board_name(self.tx, self.seq, board_id)
    }
}
