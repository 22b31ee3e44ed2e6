//! Per-topic statistics kept by the imports, so that a topic lookup reads one row (plus its
//! first and latest posts by ID) instead of aggregating over the topic's posts: the same
//! cost for a topic of 10 posts and of 100,000.
//!
//! - **What.** For each topic with live posts (visible, not deletions),
//!   `topic_stat_versions` holds what [`super::topic`] aggregates over them: their sums
//!   (count, merit total and transactions, the posts' own distinct senders, the merited
//!   posts that list no senders), the distinct senders they list, the greatest `observed_at`,
//!   and the opening post, the latest post (with its `posted_at`) and the board of its posts.
//!   A topic without live posts has no row.
//! - **Versions.** The rows follow the rule of every `*_versions` table: visible at sequence
//!   S when `valid_from <= S AND (valid_to IS NULL OR valid_to > S)`. At the end of each
//!   import batch, in its transaction and at its sequence, [`update`] visits the topics whose
//!   post versions the batch opened or closed (the only ones whose live posts changed) and
//!   derives their new row from the current one: the sums by difference, the distinct
//!   senders through `topic_merit_senders` (how many entries of live posts name each sender,
//!   as of the newest sequence: not versioned, only the next batch reads it), the greatest
//!   `observed_at` by difference unless the version holding it left without a later one
//!   arriving (then one aggregate), the posts by their index walks. Nothing is written when
//!   the row is unchanged. `collect_garbage` deletes superseded rows with the versions.
//! - **Takedowns** are not versioned and change at any time, so the rows count posts
//!   whatever their takedowns. A read uses a row only when no takedown in force may hide a
//!   post of the topic (`takedown_topics`, [`super::takedowns::may_hide_posts_of`]); otherwise
//!   it aggregates over the served posts, as before the statistics.
//! - **Coverage.** `topic_stats_since` holds the sequence from which every topic with live
//!   posts has its row: 0 for a corpus created with the statistics. A corpus from an earlier
//!   release gets them once, when opened ([`backfill`]): at its newest sequence L each topic
//!   gets the row of its live posts, valid from the last sequence that opened or closed one
//!   of its post versions (its live posts stayed the same from then to L, so the row is
//!   exact there too), and `topic_stats_since` is L. A read at S that finds no row knows the
//!   topic had no live posts if S >= `topic_stats_since`; before it (an older snapshot of a
//!   backfilled corpus, before the topic's last change), the read aggregates.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use forumdex_corpus::derive::{TopicAggregates, TopicSums};
use forumdex_corpus::topic_stats::{StatsAt, TopicChange, TopicStats, sender_entries, stats_at};
use forumdex_sql::topic_posts::{TOPIC_STATS_COLUMNS, changed_versions_sql};

use super::read::latest_seq;
use super::takedowns;

use super::sql::DIALECT;
use super::topic_posts::{self, Counted, board_of_posts, latest_post, opening_post_id};

fn stats_from_row(row: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<TopicStats> {
    Ok(TopicStats {
        aggregates: TopicAggregates {
            sums: TopicSums {
                post_count: row.get(at)?,
                merit_total: row.get(at + 1)?,
                merit_tx: row.get(at + 2)?,
                merit_distinct_sum: row.get(at + 3)?,
                merit_unlisted: row.get(at + 4)?,
            },
            last_post_at: row.get(at + 5)?,
            merit_observed_at: row.get(at + 6)?,
        },
        merit_listed_senders: row.get(at + 7)?,
        first_post_id: row.get(at + 8)?,
        latest_post_id: row.get(at + 9)?,
        board_id: row.get(at + 10)?,
    })
}

/// The statistics of `topic_id` at `seq`: the version with the greatest `valid_from` up to
/// `seq` (one index probe, however many versions the topic has), if still valid at `seq`.
pub(super) fn at(conn: &Connection, topic_id: i64, seq: i64) -> rusqlite::Result<StatsAt> {
    let newest = conn
        .prepare_cached(&format!(
            "SELECT valid_to, {TOPIC_STATS_COLUMNS} FROM topic_stat_versions
             WHERE topic_id = ?1 AND valid_from <= ?2 ORDER BY valid_from DESC LIMIT 1"
        ))?
        .query_row(params![topic_id, seq], |row| {
            Ok((row.get::<_, Option<i64>>(0)?, stats_from_row(row, 1)?))
        })
        .optional()?;
    stats_at(newest, seq, || {
        conn.prepare_cached("SELECT seq FROM topic_stats_since")?
            .query_row([], |row| row.get(0))
            .optional()
    })
}

/// Brings the statistics of every topic whose post versions batch `seq` opened or closed up
/// to `seq` (called in the batch's transaction, after its versions are written).
pub(super) fn update(tx: &Connection, seq: i64) -> rusqlite::Result<()> {
    for (topic_id, change) in changes(tx, seq)? {
        update_topic(tx, topic_id, seq, &change)?;
    }
    Ok(())
}

/// The post versions batch `seq` opened (`valid_from = seq`) or closed (`valid_to = seq`),
/// by topic: deletions too, since they move the derived opening post.
fn changes(tx: &Connection, seq: i64) -> rusqlite::Result<BTreeMap<i64, TopicChange>> {
    let mut changes: BTreeMap<i64, TopicChange> = BTreeMap::new();
    let mut statement = tx.prepare_cached(&changed_versions_sql(DIALECT, "?1"))?;
    let mut rows = statement.query([seq])?;
    while let Some(row) = rows.next()? {
        let change = changes.entry(row.get(0)?).or_default();
        let (opened, deleted): (bool, bool) = (row.get(1)?, row.get(2)?);
        if deleted {
            continue;
        }
        let sums = TopicSums {
            post_count: 1,
            merit_total: row.get(3)?,
            merit_tx: row.get(4)?,
            merit_distinct_sum: row.get(5)?,
            merit_unlisted: row.get(6)?,
        };
        let observed_at: i64 = row.get(7)?;
        change.version(opened, sums, observed_at);
    }
    let mut statement = tx.prepare_cached(
        "SELECT p.topic_id, p.valid_from = ?1, json_extract(s.value, '$[0]')
         FROM post_versions p, json_each(p.merit_senders) s
         WHERE p.valid_from = ?1 AND p.deleted = 0 AND p.merit_senders IS NOT NULL
         UNION ALL
         SELECT p.topic_id, p.valid_from = ?1, json_extract(s.value, '$[0]')
         FROM post_versions p, json_each(p.merit_senders) s
         WHERE p.valid_to = ?1 AND p.deleted = 0 AND p.merit_senders IS NOT NULL",
    )?;
    let mut rows = statement.query([seq])?;
    while let Some(row) = rows.next()? {
        let (topic_id, opened, sender): (i64, bool, i64) = (row.get(0)?, row.get(1)?, row.get(2)?);
        let change = changes.entry(topic_id).or_default();
        change.sender(opened, sender);
    }
    Ok(changes)
}

fn update_topic(
    tx: &Connection,
    topic_id: i64,
    seq: i64,
    change: &TopicChange,
) -> rusqlite::Result<()> {
    let current = tx
        .prepare_cached(&format!(
            "SELECT vid, {TOPIC_STATS_COLUMNS} FROM topic_stat_versions WHERE topic_id = ?1 AND valid_to IS NULL"
        ))?
        .query_row([topic_id], |row| Ok((row.get::<_, i64>(0)?, stats_from_row(row, 1)?)))
        .optional()?;
    let before = current
        .as_ref()
        .map(|(_, stats)| stats.clone())
        .unwrap_or_default();
    let sums = before.aggregates.sums + change.added - change.removed;
    let merit_listed_senders =
        before.merit_listed_senders + count_senders(tx, topic_id, &change.senders)?;
    let after = if sums.post_count == 0 {
        TopicStats::default()
    } else {
        let merit_observed_at = match change.latest_observed(before.aggregates.merit_observed_at) {
            Some(known) => known,
            None => topic_posts::aggregates(tx, topic_id, seq, Counted::Live)?.merit_observed_at,
        };
        with_posts(
            tx,
            topic_id,
            seq,
            sums,
            merit_observed_at,
            merit_listed_senders,
        )?
    };
    if after == before {
        return Ok(());
    }
    if let Some((vid, _)) = current {
        tx.prepare_cached("UPDATE topic_stat_versions SET valid_to = ?1 WHERE vid = ?2")?
            .execute([seq, vid])?;
    }
    if after.aggregates.sums.post_count > 0 {
        insert(tx, topic_id, seq, &after)?;
    }
    Ok(())
}

/// The statistics of a topic with live posts at `seq` from their sums, latest
/// `observed_at` and distinct listed senders: the posts by their index walks.
fn with_posts(
    tx: &Connection,
    topic_id: i64,
    seq: i64,
    sums: TopicSums,
    merit_observed_at: Option<i64>,
    merit_listed_senders: i64,
) -> rusqlite::Result<TopicStats> {
    let latest = latest_post(tx, topic_id, seq, Counted::Live)?;
    Ok(TopicStats {
        aggregates: TopicAggregates {
            sums,
            last_post_at: latest.and_then(|(_, posted_at)| posted_at),
            merit_observed_at,
        },
        merit_listed_senders,
        first_post_id: opening_post_id(tx, topic_id, seq, Counted::Live)?,
        latest_post_id: latest.map(|(id, _)| id),
        board_id: board_of_posts(tx, topic_id, seq, Counted::Live)?,
    })
}

/// Applies net changes in sender entries to `topic_merit_senders`; returns the change in
/// the topic's distinct listed senders.
fn count_senders(
    tx: &Connection,
    topic_id: i64,
    senders: &BTreeMap<i64, i64>,
) -> rusqlite::Result<i64> {
    let mut distinct = 0;
    for (&sender, &change) in senders {
        if change == 0 {
            continue;
        }
        let before: i64 = tx
            .prepare_cached(
                "SELECT entries FROM topic_merit_senders WHERE topic_id = ?1 AND sender_id = ?2",
            )?
            .query_row([topic_id, sender], |row| row.get(0))
            .optional()?
            .unwrap_or(0);
        let (after, entered) = sender_entries(before, change);
        if after > 0 {
            tx.prepare_cached(
                "INSERT OR REPLACE INTO topic_merit_senders (topic_id, sender_id, entries) VALUES (?1, ?2, ?3)",
            )?
            .execute([topic_id, sender, after])?;
        } else {
            tx.prepare_cached(
                "DELETE FROM topic_merit_senders WHERE topic_id = ?1 AND sender_id = ?2",
            )?
            .execute([topic_id, sender])?;
        }
        distinct += entered;
    }
    Ok(distinct)
}

fn insert(
    tx: &Connection,
    topic_id: i64,
    valid_from: i64,
    stats: &TopicStats,
) -> rusqlite::Result<()> {
    let TopicAggregates {
        sums,
        last_post_at,
        merit_observed_at,
    } = stats.aggregates;
    tx.prepare_cached(&format!(
        "INSERT INTO topic_stat_versions (valid_from, topic_id, {TOPIC_STATS_COLUMNS})
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
    ))?
    .execute(params![
        valid_from,
        topic_id,
        sums.post_count,
        sums.merit_total,
        sums.merit_tx,
        sums.merit_distinct_sum,
        sums.merit_unlisted,
        last_post_at,
        merit_observed_at,
        stats.merit_listed_senders,
        stats.first_post_id,
        stats.latest_post_id,
        stats.board_id,
    ])?;
    Ok(())
}

/// Gives a corpus without statistics (new, or from an earlier release) its statistics at
/// its newest sequence, once (see the module docs, "Coverage"), with the takedown topics
/// they rely on. Another process opening the same corpus meanwhile waits for it.
pub(super) fn backfill(conn: &Connection) -> rusqlite::Result<()> {
    super::migrate_once(conn, |conn| Ok(!backfilled(conn)?), backfill_now)
}

fn backfill_now(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let seq = latest_seq(tx)?;
    tx.execute(
        &format!(
            "INSERT INTO topic_merit_senders (topic_id, sender_id, entries)
             SELECT p.topic_id, json_extract(s.value, '$[0]'), COUNT(*)
             FROM post_versions p, json_each(p.merit_senders) s
             WHERE {} AND p.merit_senders IS NOT NULL GROUP BY 1, 2",
            super::sql::live("p")
        ),
        rusqlite::named_params! {":seq": seq},
    )?;
    // The last sequence that opened or closed a version of each topic's posts.
    let last_changes: Vec<(i64, i64)> = tx
        .prepare(
            "SELECT topic_id, MAX(MAX(valid_from), COALESCE(MAX(valid_to), 0))
             FROM post_versions GROUP BY topic_id ORDER BY topic_id",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (topic_id, last_change) in last_changes {
        let aggregates = topic_posts::aggregates(tx, topic_id, seq, Counted::Live)?;
        if aggregates.sums.post_count == 0 {
            continue;
        }
        let listed_senders = tx.query_row(
            "SELECT COUNT(*) FROM topic_merit_senders WHERE topic_id = ?1",
            [topic_id],
            |row| row.get(0),
        )?;
        let stats = with_posts(
            tx,
            topic_id,
            seq,
            aggregates.sums,
            aggregates.merit_observed_at,
            listed_senders,
        )?;
        insert(tx, topic_id, last_change, &stats)?;
    }
    tx.execute("INSERT INTO topic_stats_since (seq) VALUES (?1)", [seq])?;
    takedowns::record_topics(tx, None)
}

fn backfilled(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM topic_stats_since)",
        [],
        |row| row.get(0),
    )
}
