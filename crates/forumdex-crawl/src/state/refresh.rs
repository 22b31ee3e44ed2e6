//! The refresh schedule: posts are re-checked on a decaying schedule after they are first
//! seen (so edits and deletions are seen), and topics whose last post moved are re-crawled.

use chrono::{DateTime, Duration, Utc};
use forumdex_sql::{DynSql, params};

use super::{CrawlState, Failure, StateError, instant, int, millis, unsigned};

/// When a post is re-checked, counted from when it was posted: 10 minutes, 1 hour,
/// 6 hours, 1 day and 7 days; after the last it is done (edits and deletions are most
/// likely while a post is new; an old post first seen by a crawl is not re-checked). Topics use the same steps counted
/// from their last check, and stay at the last step.
pub const RECHECK_STEPS_MINUTES: [i64; 5] = [10, 60, 6 * 60, 24 * 60, 7 * 24 * 60];

/// A post due for a re-check (fetch its topic page again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recheck {
    /// The post.
    pub post_id: u64,
    /// Its topic.
    pub topic_id: u64,
    /// When the check fell due.
    pub due_at: DateTime<Utc>,
}

/// What [`CrawlState::observe_topic`] learnt about a topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopicChange {
    /// First seen.
    New,
    /// Its last post differs from the one seen before: re-crawl it.
    Moved,
    /// Same last post as before.
    Unchanged,
}

impl CrawlState {
    /// Notes that a post posted at `posted_at` was seen at `now`. The first sighting starts
    /// its re-check schedule at the first step still ahead of `now` (none for a post older
    /// than the last step); later ones change nothing (re-checks advance with
    /// [`Self::mark_rechecked`]). Returns whether it was new.
    pub fn observe_post(
        &self,
        post_id: u64,
        topic_id: u64,
        posted_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool, StateError> {
        let (index, next) = ahead(posted_at, now);
        self.write(|tx| {
            let inserted = tx.execute(
                "INSERT INTO crawl_posts (post_id, topic_id, posted_at, step, next_check_at)
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (post_id) DO NOTHING",
                params![
                    int(post_id),
                    int(topic_id),
                    millis(posted_at),
                    int(index),
                    next.map(millis)
                ],
            )?;
            Ok(inserted == 1)
        })
    }

    /// The posts whose re-check is due at `now`, earliest first, at most `limit`.
    pub fn due_rechecks(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<Recheck>, StateError> {
        self.read(|sql| {
            let rows = sql.query(
                "SELECT post_id, topic_id, next_check_at FROM crawl_posts
                 WHERE next_check_at IS NOT NULL AND next_check_at <= $1
                 ORDER BY next_check_at, post_id LIMIT $2",
                params![millis(now), i64::from(limit)],
            )?;
            rows.iter()
                .map(|row| {
                    Ok(Recheck {
                        post_id: unsigned(row, 0)?,
                        topic_id: unsigned(row, 1)?,
                        due_at: instant(row.get(2)?),
                    })
                })
                .collect()
        })
    }

    /// Records that a post was re-checked at `now`: its next check is the first step of its
    /// schedule still ahead (steps missed while the crawler was stopped are skipped), or none
    /// after the last step. Unknown posts are ignored.
    pub fn mark_rechecked(&self, post_id: u64, now: DateTime<Utc>) -> Result<(), StateError> {
        self.write(|tx| {
            let row = tx.query_opt(
                "SELECT posted_at FROM crawl_posts WHERE post_id = $1",
                params![int(post_id)],
            )?;
            let Some(row) = row else {
                return Ok(());
            };
            let (index, next) = ahead(instant(row.get(0)?), now);
            tx.execute(
                "UPDATE crawl_posts SET step = $2, next_check_at = $3 WHERE post_id = $1",
                params![int(post_id), int(index), next.map(millis)],
            )?;
            Ok(())
        })
    }

    /// Notes a topic's last post as seen at `now` (on a board page or the topic itself) and
    /// says whether it moved. A moved or new topic is next checked one step from now; an
    /// unchanged one one step later than before (up to the last step).
    pub fn observe_topic(
        &self,
        topic_id: u64,
        last_post_id: u64,
        last_post_at: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<TopicChange, StateError> {
        self.write(|tx| {
            let (change, index) = classify(seen_topic(tx, topic_id)?, last_post_id);
            tx.execute(
                "INSERT INTO crawl_topics
                     (topic_id, last_post_id, last_post_at, step, next_check_at)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (topic_id) DO UPDATE SET last_post_id = excluded.last_post_id,
                     last_post_at = excluded.last_post_at, step = excluded.step,
                     next_check_at = excluded.next_check_at",
                params![
                    int(topic_id),
                    int(last_post_id),
                    last_post_at.map(millis),
                    int(index),
                    millis(now + step(index))
                ],
            )?;
            Ok(change)
        })
    }

    /// What [`Self::observe_topic`] would say of `last_post_id`, without noting it: a crawl
    /// queues a moved topic again before noting it, so that a crawl killed in between
    /// still sees it moved when the page is replayed.
    pub fn topic_change(
        &self,
        topic_id: u64,
        last_post_id: u64,
    ) -> Result<TopicChange, StateError> {
        self.read(|sql| Ok(classify(seen_topic(sql, topic_id)?, last_post_id).0))
    }

    /// The topics whose check is due at `now`, earliest first, at most `limit`.
    pub fn due_topics(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<u64>, StateError> {
        self.read(|sql| {
            let rows = sql.query(
                "SELECT topic_id FROM crawl_topics
                 WHERE next_check_at IS NOT NULL AND next_check_at <= $1
                 ORDER BY next_check_at, topic_id LIMIT $2",
                params![millis(now), i64::from(limit)],
            )?;
            rows.iter().map(|row| unsigned(row, 0)).collect()
        })
    }
}

impl CrawlState {
    /// The posts of a topic seen so far ([`Self::observe_post`]) with IDs from `from` up to
    /// `to` (`None`: no upper end), in ID order.
    pub fn known_posts(
        &self,
        topic_id: u64,
        from: u64,
        to: Option<u64>,
    ) -> Result<Vec<u64>, StateError> {
        self.read(|sql| {
            let rows = sql.query(
                "SELECT post_id FROM crawl_posts WHERE topic_id = $1 AND post_id >= $2
                     AND post_id <= $3 ORDER BY post_id",
                params![int(topic_id), int(from), int(to.unwrap_or(u64::MAX))],
            )?;
            rows.iter().map(|row| unsigned(row, 0)).collect()
        })
    }
}

/// A topic's last post ID and schedule step as seen before, if it was.
fn seen_topic(sql: &mut DynSql<'_>, topic_id: u64) -> Result<Option<(u64, usize)>, Failure> {
    let row = sql.query_opt(
        "SELECT last_post_id, step FROM crawl_topics WHERE topic_id = $1",
        params![int(topic_id)],
    )?;
    row.map(|row| Ok((unsigned(&row, 0)?, unsigned(&row, 1)?)))
        .transpose()
}

/// A topic's change given what was seen before (its last post ID and schedule step), and
/// its next step.
fn classify(seen: Option<(u64, usize)>, last_post_id: u64) -> (TopicChange, usize) {
    match seen {
        None => (TopicChange::New, 0),
        Some((seen_last, _)) if seen_last != last_post_id => (TopicChange::Moved, 0),
        Some((_, index)) => (
            TopicChange::Unchanged,
            (index + 1).min(RECHECK_STEPS_MINUTES.len() - 1),
        ),
    }
}

/// The first step of a schedule anchored at `from` still ahead of `now`: its index and
/// time, or (the number of steps, `None`) when every step is past.
fn ahead(from: DateTime<Utc>, now: DateTime<Utc>) -> (usize, Option<DateTime<Utc>>) {
    match (0..RECHECK_STEPS_MINUTES.len()).find(|&i| from + step(i) > now) {
        Some(index) => (index, Some(from + step(index))),
        None => (RECHECK_STEPS_MINUTES.len(), None),
    }
}

/// The offset of step `index` of the schedule.
fn step(index: usize) -> Duration {
    let minutes = RECHECK_STEPS_MINUTES[index.min(RECHECK_STEPS_MINUTES.len() - 1)];
    Duration::minutes(minutes)
}
