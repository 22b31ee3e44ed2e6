//! The rules of the per-topic statistics the imports keep (each backend's
//! `corpus/topic_stats.rs` stores them in `topic_stat_versions`): what a row says at a
//! sequence, and how an import batch's changes carry a row forward. The backends read and
//! write the rows; the decisions are made here, once.

use std::collections::BTreeMap;
use std::convert::Infallible;

use crate::derive::{TopicAggregates, TopicPosts, TopicSums};

/// One row of the statistics: a topic's live posts at the sequences it is visible.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicStats {
    /// Sums, greatest `posted_at` and `observed_at`.
    pub aggregates: TopicAggregates,
    /// Distinct merit senders its posts list.
    pub merit_listed_senders: i64,
    /// Its opening post.
    pub first_post_id: Option<i64>,
    /// Its post with the greatest (posted_at, post_id).
    pub latest_post_id: Option<i64>,
    /// The board of its posts.
    pub board_id: Option<i64>,
}

impl TopicStats {
    /// What the row gives a topic document.
    pub fn posts(&self) -> TopicPosts {
        let Ok(facts) = self
            .aggregates
            .facts(|| Ok::<_, Infallible>(self.merit_listed_senders));
        TopicPosts {
            facts,
            first_post_id: self.first_post_id,
            latest_post_id: self.latest_post_id,
            board_id: self.board_id,
        }
    }
}

/// What the statistics say of a topic at a sequence.
#[derive(Debug)]
pub enum StatsAt {
    /// Its row.
    Kept(TopicStats),
    /// It had no live posts.
    NoPosts,
    /// The sequence is older than the statistics (aggregate instead).
    NotKept,
}

/// What the statistics say of a topic at `seq`, given its row with the greatest
/// `valid_from` up to `seq` (with that row's `valid_to`): that row when still valid at
/// `seq`; else no posts when the statistics cover `seq` (`since`, asked only then: the
/// sequence from which every topic with live posts has its row), else not kept.
pub fn stats_at<E>(
    newest: Option<(Option<i64>, TopicStats)>,
    seq: i64,
    since: impl FnOnce() -> Result<Option<i64>, E>,
) -> Result<StatsAt, E> {
    if let Some((valid_to, stats)) = newest
        && valid_to.is_none_or(|to| to > seq)
    {
        return Ok(StatsAt::Kept(stats));
    }
    Ok(match since()? {
        Some(since) if seq >= since => StatsAt::NoPosts,
        _ => StatsAt::NotKept,
    })
}

/// What an import batch changed in one topic's live posts.
#[derive(Debug, Default)]
pub struct TopicChange {
    /// Sums over the live versions it opened.
    pub added: TopicSums,
    /// Sums over the live versions it closed.
    pub removed: TopicSums,
    /// Net change in the entries naming each merit sender.
    pub senders: BTreeMap<i64, i64>,
    /// Greatest `observed_at` among the live versions it opened.
    pub added_observed_at: Option<i64>,
    /// Greatest `observed_at` among the live versions it closed.
    pub removed_observed_at: Option<i64>,
}

impl TopicChange {
    /// Counts a live post version the batch opened (`opened`) or closed: its sums and its
    /// `observed_at`.
    pub fn version(&mut self, opened: bool, sums: TopicSums, observed_at: i64) {
        if opened {
            self.added = self.added + sums;
            self.added_observed_at = self.added_observed_at.max(Some(observed_at));
        } else {
            self.removed = self.removed + sums;
            self.removed_observed_at = self.removed_observed_at.max(Some(observed_at));
        }
    }

    /// Counts an entry naming `sender` in a live post version the batch opened or closed.
    pub fn sender(&mut self, opened: bool, sender: i64) {
        *self.senders.entry(sender).or_default() += if opened { 1 } else { -1 };
    }

    /// The greatest `observed_at` of the topic's live posts after the change, when it
    /// follows from the one `before`: `None` when the version holding it may have left and
    /// nothing as late arrived (then the backend aggregates).
    pub fn latest_observed(&self, before: Option<i64>) -> Option<Option<i64>> {
        let still_held = match (self.removed_observed_at, before) {
            (Some(removed), Some(held)) => removed < held,
            _ => true,
        };
        if still_held {
            return Some(before.max(self.added_observed_at));
        }
        match (self.added_observed_at, before) {
            (Some(added), Some(held)) if added >= held => Some(Some(added)),
            _ => None,
        }
    }
}

/// A sender's entries in a topic after a net `change` to the `before` entries, and the
/// change in the topic's distinct listed senders (+1 when the sender appears, -1 when it
/// leaves).
pub fn sender_entries(before: i64, change: i64) -> (i64, i64) {
    let after = before + change;
    debug_assert!(after >= 0, "{before} + {change} sender entries");
    (after, i64::from(after > 0) - i64::from(before > 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(post_count: i64, merit_total: i64) -> TopicSums {
        TopicSums {
            post_count,
            merit_total,
            ..TopicSums::default()
        }
    }

    #[test]
    fn a_row_answers_while_valid_and_the_coverage_decides_the_rest() {
        let row = TopicStats::default();
        let never = || -> Result<Option<i64>, ()> { panic!("coverage not needed") };
        assert!(matches!(
            stats_at(Some((None, row.clone())), 9, never),
            Ok(StatsAt::Kept(_))
        ));
        assert!(matches!(
            stats_at(Some((Some(10), row.clone())), 9, never),
            Ok(StatsAt::Kept(_))
        ));
        let covered = || Ok::<_, ()>(Some(5));
        assert!(matches!(
            stats_at(Some((Some(9), row)), 9, covered),
            Ok(StatsAt::NoPosts)
        ));
        assert!(matches!(stats_at(None, 4, covered), Ok(StatsAt::NotKept)));
        assert!(matches!(
            stats_at(None, 4, || Ok::<_, ()>(None)),
            Ok(StatsAt::NotKept)
        ));
    }

    #[test]
    fn a_change_sums_what_opened_and_closed_and_knows_when_the_latest_observation_left() {
        let mut change = TopicChange::default();
        change.version(true, sums(1, 3), 100);
        change.version(true, sums(1, 2), 140);
        change.version(false, sums(1, 1), 120);
        change.sender(true, 7);
        change.sender(false, 7);
        change.sender(true, 8);
        assert_eq!(change.added, sums(2, 5));
        assert_eq!(change.removed, sums(1, 1));
        assert_eq!(change.senders, BTreeMap::from([(7, 0), (8, 1)]));
        assert_eq!(
            change.latest_observed(Some(130)),
            Some(Some(140)),
            "still held"
        );
        assert_eq!(
            change.latest_observed(Some(120)),
            Some(Some(140)),
            "overtaken"
        );
        let mut left = TopicChange::default();
        left.version(false, sums(1, 0), 150);
        left.version(true, sums(1, 0), 90);
        assert_eq!(left.latest_observed(Some(150)), None, "aggregate again");
        assert_eq!(left.latest_observed(None), Some(Some(90)));
    }

    #[test]
    fn sender_entries_count_distinct_senders_entering_and_leaving() {
        assert_eq!(sender_entries(0, 2), (2, 1));
        assert_eq!(sender_entries(2, -2), (0, -1));
        assert_eq!(sender_entries(2, 1), (3, 0));
    }
}
