//! Per-topic statistics kept by the imports, so that a topic lookup reads one row (plus its
//! first and latest posts by ID) instead of aggregating over the topic's posts. The same
//! design as the embedded store's (forumdex-corpus `sqlite/topic_stats.rs`, whose module
//! docs say what is kept and why), with the same rows; only the round trips differ: an
//! import batch brings all the topics it changed up to date in a fixed number of statements
//! (their current rows, sender counts, post walks, closes and inserts each in one), not a
//! few per topic.
//!
//! A corpus created on PostgreSQL has its statistics from sequence 0 (`topic_stats_since`
//! is written by the schema), so it never needs the embedded store's backfill; a copy of
//! an embedded corpus brings its statistics and its own `topic_stats_since` row (the
//! greatest row holds).

use std::collections::{BTreeMap, HashMap};

use forumdex_corpus::derive::{self, TopicAggregates, TopicSums};
use forumdex_corpus::topic_stats::{StatsAt, TopicChange, TopicStats, sender_entries, stats_at};
use forumdex_sql::topic_posts::{
    TOPIC_STATS_COLUMNS, board_of_posts_sql, changed_versions_sql, flagged_op_sql, latest_post_sql,
    smallest_post_sql,
};
use postgres::{Row, Transaction};

use super::Step;
use super::sql::DIALECT;
use super::topic_posts::{self, Counted};

fn stats_from_row(row: &Row, at: usize) -> TopicStats {
    TopicStats {
        aggregates: TopicAggregates {
            sums: TopicSums {
                post_count: row.get(at),
                merit_total: row.get(at + 1),
                merit_tx: row.get(at + 2),
                merit_distinct_sum: row.get(at + 3),
                merit_unlisted: row.get(at + 4),
            },
            last_post_at: row.get(at + 5),
            merit_observed_at: row.get(at + 6),
        },
        merit_listed_senders: row.get(at + 7),
        first_post_id: row.get(at + 8),
        latest_post_id: row.get(at + 9),
        board_id: row.get(at + 10),
    }
}

/// The statistics of `topic_id` at `seq`: the version with the greatest `valid_from` up to
/// `seq` (one index probe, however many versions the topic has), if still valid at `seq`.
pub(super) fn at(tx: &mut Transaction<'_>, topic_id: i64, seq: i64) -> Step<StatsAt> {
    let newest = tx.query_opt(
        &format!(
            "SELECT valid_to, {TOPIC_STATS_COLUMNS} FROM topic_stat_versions
             WHERE topic_id = $1 AND valid_from <= $2 ORDER BY valid_from DESC LIMIT 1"
        ),
        &[&topic_id, &seq],
    )?;
    let newest = newest.map(|row| (row.get(0), stats_from_row(&row, 1)));
    stats_at(newest, seq, || {
        let since = tx.query_one("SELECT MAX(seq) FROM topic_stats_since", &[])?;
        Ok(since.get(0))
    })
}

/// Brings the statistics of every topic whose post versions batch `seq` opened or closed up
/// to `seq` (called in the batch's transaction, after its versions are written).
pub(super) fn update(tx: &mut Transaction<'_>, seq: i64) -> Step<()> {
    let changes = changes(tx, seq)?;
    if changes.is_empty() {
        return Ok(());
    }
    let topics: Vec<i64> = changes.keys().copied().collect();
    let current = current_rows(tx, &topics)?;
    let listed_change = count_senders(tx, &changes)?;
    let mut counts = Vec::with_capacity(changes.len());
    for (&topic_id, change) in &changes {
        let before = current
            .get(&topic_id)
            .map(|(_, stats)| stats.clone())
            .unwrap_or_default();
        let sums = before.aggregates.sums + change.added - change.removed;
        let merit_observed_at = if sums.post_count == 0 {
            None
        } else {
            match change.latest_observed(before.aggregates.merit_observed_at) {
                Some(known) => known,
                None => {
                    topic_posts::aggregates(tx, topic_id, seq, Counted::Live)?.merit_observed_at
                }
            }
        };
        let listed = before.merit_listed_senders + listed_change.get(&topic_id).unwrap_or(&0);
        counts.push((topic_id, before, sums, merit_observed_at, listed));
    }
    let with_posts: Vec<i64> = counts
        .iter()
        .filter(|(_, _, sums, _, _)| sums.post_count > 0)
        .map(|(topic_id, ..)| *topic_id)
        .collect();
    let mut walks = walks(tx, seq, &with_posts)?;
    let mut closed = Vec::new();
    let mut opened = Vec::new();
    for (topic_id, before, sums, merit_observed_at, merit_listed_senders) in counts {
        let after = match walks.remove(&topic_id) {
            Some(walk) => walk.stats(sums, merit_observed_at, merit_listed_senders)?,
            None => TopicStats::default(),
        };
        if after == before {
            continue;
        }
        if let Some((vid, _)) = current.get(&topic_id) {
            closed.push(*vid);
        }
        if after.aggregates.sums.post_count > 0 {
            opened.push((topic_id, after));
        }
    }
    tx.execute(
        "UPDATE topic_stat_versions SET valid_to = $1 WHERE vid = ANY($2)",
        &[&seq, &closed],
    )?;
    insert(tx, seq, &opened)
}

/// The post versions batch `seq` opened (`valid_from = seq`) or closed (`valid_to = seq`),
/// by topic: deletions too, since they move the derived opening post.
fn changes(tx: &mut Transaction<'_>, seq: i64) -> Step<BTreeMap<i64, TopicChange>> {
    let mut changes: BTreeMap<i64, TopicChange> = BTreeMap::new();
    let rows = tx.query(&changed_versions_sql(DIALECT, "$1"), &[&seq])?;
    for row in &rows {
        let change = changes.entry(row.get(0)).or_default();
        let (opened, deleted): (bool, bool) = (row.get(1), row.get(2));
        if deleted {
            continue;
        }
        let sums = TopicSums {
            post_count: 1,
            merit_total: row.get(3),
            merit_tx: row.get(4),
            merit_distinct_sum: row.get(5),
            merit_unlisted: row.get(6),
        };
        let observed_at: i64 = row.get(7);
        change.version(opened, sums, observed_at);
    }
    let senders = "SELECT p.topic_id, p.valid_from = $1, (s.value ->> 0)::BIGINT
         FROM post_versions p CROSS JOIN LATERAL jsonb_array_elements(p.merit_senders::JSONB) s";
    let rows = tx.query(
        &format!(
            "{senders} WHERE p.valid_from = $1 AND NOT p.deleted AND p.merit_senders IS NOT NULL
             UNION ALL
             {senders} WHERE p.valid_to = $1 AND NOT p.deleted AND p.merit_senders IS NOT NULL"
        ),
        &[&seq],
    )?;
    for row in &rows {
        let (topic_id, opened, sender): (i64, bool, i64) = (row.get(0), row.get(1), row.get(2));
        let change = changes.entry(topic_id).or_default();
        change.sender(opened, sender);
    }
    Ok(changes)
}

/// The current statistics rows of `topics`, with their row IDs, by topic.
fn current_rows(tx: &mut Transaction<'_>, topics: &[i64]) -> Step<HashMap<i64, (i64, TopicStats)>> {
    let rows = tx.query(
        &format!(
            "SELECT topic_id, vid, {TOPIC_STATS_COLUMNS} FROM topic_stat_versions
             WHERE topic_id = ANY($1) AND valid_to IS NULL"
        ),
        &[&topics],
    )?;
    Ok(rows
        .iter()
        .map(|row| (row.get(0), (row.get(1), stats_from_row(row, 2))))
        .collect())
}

/// The post walks of a topic with live posts at a sequence: what its statistics row names.
#[derive(Debug, Default)]
struct Walks {
    latest: Option<(i64, Option<i64>)>,
    flagged_op: Option<i64>,
    smallest: Option<(i64, bool)>,
    board_id: Option<i64>,
}

impl Walks {
    /// The statistics of the topic from its sums, latest `observed_at` and distinct listed
    /// senders, with these posts.
    fn stats(
        self,
        sums: TopicSums,
        merit_observed_at: Option<i64>,
        merit_listed_senders: i64,
    ) -> Step<TopicStats> {
        let smallest = self.smallest;
        Ok(TopicStats {
            aggregates: TopicAggregates {
                sums,
                last_post_at: self.latest.and_then(|(_, posted_at)| posted_at),
                merit_observed_at,
            },
            merit_listed_senders,
            first_post_id: derive::opening_post(self.flagged_op, || Step::Ok(smallest))?,
            latest_post_id: self.latest.map(|(id, _)| id),
            board_id: self.board_id,
        })
    }
}

/// The post walks over the live posts of each of `topics` at `seq`, in one statement (the
/// walks of [`super::topic`], one lateral subquery each).
fn walks(tx: &mut Transaction<'_>, seq: i64, topics: &[i64]) -> Step<HashMap<i64, Walks>> {
    if topics.is_empty() {
        return Ok(HashMap::new());
    }
    let topic = "t.topic_id";
    let rows = tx.query(
        &format!(
            "SELECT t.topic_id, l.post_id, l.posted_at, f.post_id, s.post_id, s.is_op, b.board_id
             FROM unnest($2::BIGINT[]) AS t(topic_id)
             LEFT JOIN LATERAL ({latest}) l ON TRUE
             LEFT JOIN LATERAL ({flagged}) f ON TRUE
             LEFT JOIN LATERAL ({smallest}) s ON TRUE
             LEFT JOIN LATERAL ({board}) b ON TRUE",
            latest = latest_post_sql(DIALECT, topic, Counted::Live),
            flagged = flagged_op_sql(DIALECT, topic, Counted::Live),
            smallest = smallest_post_sql(DIALECT, topic, Counted::Live),
            board = board_of_posts_sql(DIALECT, topic, Counted::Live),
        ),
        &[&seq, &topics],
    )?;
    Ok(rows
        .iter()
        .map(|row| {
            let latest = row
                .get::<_, Option<i64>>(1)
                .map(|id| (id, row.get::<_, Option<i64>>(2)));
            let smallest = row
                .get::<_, Option<i64>>(4)
                .zip(row.get::<_, Option<bool>>(5));
            let walks = Walks {
                latest,
                flagged_op: row.get(3),
                smallest,
                board_id: row.get(6),
            };
            (row.get(0), walks)
        })
        .collect())
}

/// Applies the net changes in sender entries of every topic to `topic_merit_senders`;
/// returns the change in each topic's distinct listed senders.
fn count_senders(
    tx: &mut Transaction<'_>,
    changes: &BTreeMap<i64, TopicChange>,
) -> Step<HashMap<i64, i64>> {
    let changed: Vec<(i64, i64, i64)> = changes
        .iter()
        .flat_map(|(&topic_id, change)| {
            change
                .senders
                .iter()
                .filter(|(_, change)| **change != 0)
                .map(move |(&sender, &change)| (topic_id, sender, change))
        })
        .collect();
    let mut distinct = HashMap::new();
    if changed.is_empty() {
        return Ok(distinct);
    }
    let topics: Vec<i64> = changed.iter().map(|c| c.0).collect();
    let senders: Vec<i64> = changed.iter().map(|c| c.1).collect();
    let before: HashMap<(i64, i64), i64> = tx
        .query(
            "SELECT m.topic_id, m.sender_id, m.entries FROM topic_merit_senders m
             JOIN unnest($1::BIGINT[], $2::BIGINT[]) AS c(topic_id, sender_id)
               ON m.topic_id = c.topic_id AND m.sender_id = c.sender_id",
            &[&topics, &senders],
        )?
        .iter()
        .map(|row| ((row.get(0), row.get(1)), row.get(2)))
        .collect();
    let (mut kept, mut gone) = (SenderRows::default(), SenderRows::default());
    for (topic_id, sender, change) in changed {
        let before = before.get(&(topic_id, sender)).copied().unwrap_or(0);
        let (after, entered) = sender_entries(before, change);
        if after > 0 {
            kept.push(topic_id, sender, after);
        } else {
            gone.push(topic_id, sender, 0);
        }
        *distinct.entry(topic_id).or_default() += entered;
    }
    tx.execute(
        "INSERT INTO topic_merit_senders (topic_id, sender_id, entries)
         SELECT * FROM unnest($1::BIGINT[], $2::BIGINT[], $3::BIGINT[])
         ON CONFLICT (topic_id, sender_id) DO UPDATE SET entries = EXCLUDED.entries",
        &[&kept.topics, &kept.senders, &kept.entries],
    )?;
    tx.execute(
        "DELETE FROM topic_merit_senders m
         USING unnest($1::BIGINT[], $2::BIGINT[]) AS c(topic_id, sender_id)
         WHERE m.topic_id = c.topic_id AND m.sender_id = c.sender_id",
        &[&gone.topics, &gone.senders],
    )?;
    Ok(distinct)
}

/// Rows of `topic_merit_senders`, as columns to bind.
#[derive(Debug, Default)]
struct SenderRows {
    topics: Vec<i64>,
    senders: Vec<i64>,
    entries: Vec<i64>,
}

impl SenderRows {
    fn push(&mut self, topic_id: i64, sender: i64, entries: i64) {
        self.topics.push(topic_id);
        self.senders.push(sender);
        self.entries.push(entries);
    }
}

/// Inserts the statistics rows of `opened` (topic, row), valid from `valid_from`.
fn insert(tx: &mut Transaction<'_>, valid_from: i64, opened: &[(i64, TopicStats)]) -> Step<()> {
    if opened.is_empty() {
        return Ok(());
    }
    let column = |f: &dyn Fn(&TopicStats) -> i64| -> Vec<i64> {
        opened.iter().map(|(_, stats)| f(stats)).collect()
    };
    let optional = |f: &dyn Fn(&TopicStats) -> Option<i64>| -> Vec<Option<i64>> {
        opened.iter().map(|(_, stats)| f(stats)).collect()
    };
    let topics: Vec<i64> = opened.iter().map(|(topic_id, _)| *topic_id).collect();
    tx.execute(
        &format!(
            "INSERT INTO topic_stat_versions (valid_from, topic_id, {TOPIC_STATS_COLUMNS})
             SELECT $1, * FROM unnest($2::BIGINT[], $3::BIGINT[], $4::BIGINT[], $5::BIGINT[],
               $6::BIGINT[], $7::BIGINT[], $8::BIGINT[], $9::BIGINT[], $10::BIGINT[],
               $11::BIGINT[], $12::BIGINT[], $13::BIGINT[])"
        ),
        &[
            &valid_from,
            &topics,
            &column(&|s| s.aggregates.sums.post_count),
            &column(&|s| s.aggregates.sums.merit_total),
            &column(&|s| s.aggregates.sums.merit_tx),
            &column(&|s| s.aggregates.sums.merit_distinct_sum),
            &column(&|s| s.aggregates.sums.merit_unlisted),
            &optional(&|s| s.aggregates.last_post_at),
            &optional(&|s| s.aggregates.merit_observed_at),
            &column(&|s| s.merit_listed_senders),
            &optional(&|s| s.first_post_id),
            &optional(&|s| s.latest_post_id),
            &optional(&|s| s.board_id),
        ],
    )?;
    Ok(())
}
