//! Import batches: record each new observation, and when it wins the canonical rule, close
//! the current version and open a new one at the batch's sequence number.

use forumdex_clock::Clock;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use forumdex_corpus::model::{BatchOutcome, ImageObject, UNDATED};
use forumdex_corpus::record::{Observation, Record, merit_senders_json};
use forumdex_corpus::time::Millis;

use super::{takedowns, topic_stats};

/// The kind-specific part of a version row: its table, its key and how to insert it.
struct Entity {
    kind: &'static str,
    table: &'static str,
    key_column: &'static str,
    key: rusqlite::types::Value,
    /// The topic its observations are kept under (`observations.topic_id`): a post's topic,
    /// 0 for the other kinds.
    observation_topic: i64,
}

impl Entity {
    fn of(record: &Record) -> Self {
        use rusqlite::types::Value::{Integer, Text};
        let (kind, table, key_column, key) = match record {
            Record::Board(r) => (
                "board",
                "board_versions",
                "board_id",
                Integer(r.board_id.get()),
            ),
            Record::Profile(r) => (
                "profile",
                "profile_versions",
                "profile_id",
                Integer(r.profile_id.get()),
            ),
            Record::Topic(r) => (
                "topic",
                "topic_versions",
                "topic_id",
                Integer(r.topic_id.get()),
            ),
            Record::Post(r) => ("post", "post_versions", "post_id", Integer(r.post_id.get())),
            Record::Image(r) => (
                "image",
                "image_versions",
                "source_url",
                Text(r.source_url.clone()),
            ),
        };
        let observation_topic = match record {
            Record::Post(r) => r.topic_id.get(),
            _ => 0,
        };
        Self {
            kind,
            table,
            key_column,
            key,
            observation_topic,
        }
    }

    fn key_text(&self) -> String {
        match &self.key {
            rusqlite::types::Value::Integer(id) => id.to_string(),
            rusqlite::types::Value::Text(url) => url.clone(),
            other => format!("{other:?}"),
        }
    }
}

/// Applies `observations` in one `BEGIN IMMEDIATE` transaction. A sequence number is taken
/// only when the first new observation appears, so a re-import adds none. `clock` dates the
/// sequence at commit.
pub(super) fn import_batch(
    conn: &mut Connection,
    observations: &[Observation],
    now: Millis,
    clock: &dyn Clock,
) -> rusqlite::Result<BatchOutcome> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut outcome = BatchOutcome::default();
    for observation in observations {
        // A line's hash names one record, so one topic and entity: the key finds it.
        let entity = Entity::of(&observation.record);
        let entity_key = entity.key_text();
        let known = tx
            .prepare_cached(
                "SELECT 1 FROM observations
                 WHERE kind = ?1 AND topic_id = ?2 AND entity = ?3 AND sha256 = ?4",
            )?
            .exists(params![
                entity.kind,
                entity.observation_topic,
                entity_key,
                &observation.line_sha256[..]
            ])?;
        if known {
            outcome.known_observations += 1;
            continue;
        }
        let seq = match outcome.seq {
            Some(seq) => seq,
            None => {
                tx.execute("INSERT INTO sequences (created_at) VALUES (?1)", [now.0])?;
                let seq = tx.last_insert_rowid();
                outcome.seq = Some(seq);
                seq
            }
        };
        tx.prepare_cached(
            "INSERT INTO observations (sha256, kind, topic_id, entity, observed_at, seq)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            &observation.line_sha256[..],
            entity.kind,
            entity.observation_topic,
            entity_key,
            observation.observed_at.0,
            seq
        ])?;
        outcome.new_observations += 1;
        if supersede(&tx, &entity, observation, seq)? {
            insert_version(&tx, observation, seq, now)?;
            outcome.became_canonical += 1;
        }
    }
    if let Some(seq) = outcome.seq {
        topic_stats::update(&tx, seq)?;
        takedowns::record_new_versions(&tx, seq)?;
        // A snapshot taken while this batch was being written still sees the previous
        // sequence; garbage collection relies on every such snapshot being older than the
        // sequence's creation time, so that time is taken at commit, not at the start.
        let committed_at = now.0.max(Millis::now(clock).0);
        tx.prepare_cached("UPDATE sequences SET created_at = ?1 WHERE seq = ?2")?
            .execute([committed_at, seq])?;
    }
    tx.commit()?;
    Ok(outcome)
}

/// Decides the canonical rule against the current version (latest `observed_at`, then the
/// smallest line SHA-256) and, when the new observation wins, retires the current version.
/// Fails if the entity has more than one current version (for posts no unique index
/// guards this; see `schema.sql`).
fn supersede(
    tx: &Transaction<'_>,
    entity: &Entity,
    observation: &Observation,
    seq: i64,
) -> rusqlite::Result<bool> {
    let current: Option<(i64, i64, Vec<u8>, i64)> = tx
        .prepare_cached(&format!(
            "SELECT vid, observed_at, sha256, valid_from FROM {} WHERE {} = ?1 AND valid_to IS NULL",
            entity.table, entity.key_column
        ))?
        .query_one([&entity.key], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .optional()
        .map_err(|err| match err {
            rusqlite::Error::QueryReturnedMoreThanOneRow => rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
                Some(format!(
                    "{} {} has more than one current version in {}",
                    entity.kind,
                    entity.key_text(),
                    entity.table
                )),
            ),
            other => other,
        })?;
    let Some((vid, observed_at, sha256, valid_from)) = current else {
        return Ok(true);
    };
    let wins = (
        observation.observed_at.0,
        std::cmp::Reverse(&observation.line_sha256[..]),
    ) > (observed_at, std::cmp::Reverse(&sha256[..]));
    if !wins {
        return Ok(false);
    }
    if valid_from == seq {
        // Opened earlier in this same batch: no snapshot ever saw it.
        tx.prepare_cached(&format!("DELETE FROM {} WHERE vid = ?1", entity.table))?
            .execute([vid])?;
    } else {
        tx.prepare_cached(&format!(
            "UPDATE {} SET valid_to = ?1 WHERE vid = ?2",
            entity.table
        ))?
        .execute([seq, vid])?;
    }
    Ok(true)
}

fn insert_version(
    tx: &Transaction<'_>,
    observation: &Observation,
    seq: i64,
    now: Millis,
) -> rusqlite::Result<()> {
    let sha = &observation.line_sha256[..];
    let observed_at = observation.observed_at.0;
    match &observation.record {
        Record::Board(r) => tx
            .prepare_cached(
                "INSERT INTO board_versions (valid_from, observed_at, sha256, indexed_at,
                   board_id, name, parent_board_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                seq,
                observed_at,
                sha,
                now.0,
                r.board_id.get(),
                r.name,
                r.parent_board_id.map(|id| id.get())
            ])?,
        Record::Profile(r) => tx
            .prepare_cached(
                "INSERT INTO profile_versions (valid_from, observed_at, sha256, indexed_at,
                   profile_id, username) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                seq,
                observed_at,
                sha,
                now.0,
                r.profile_id.get(),
                r.username
            ])?,
        Record::Topic(r) => tx
            .prepare_cached(
                "INSERT INTO topic_versions (valid_from, observed_at, sha256, indexed_at,
                   topic_id, board_id, title, views, page_count)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                seq,
                observed_at,
                sha,
                now.0,
                r.topic_id.get(),
                r.board_id.map(|id| id.get()),
                r.title,
                r.views,
                r.page_count
            ])?,
        Record::Post(r) => {
            let senders = r.merit_senders.as_deref().map(merit_senders_json);
            let posted_at = r.posted_at.map(|at| at.0);
            tx.prepare_cached(
                "INSERT INTO post_versions (valid_from, observed_at, sha256, indexed_at,
                   post_id, topic_id, board_id, post_number, is_op, title, author_id,
                   author_name, posted_at, sort_at, content_html, language,
                   merit_total, merit_distinct, merit_tx, merit_senders, deleted)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                   ?16, ?17, ?18, ?19, ?20, ?21)",
            )?
            .execute(params![
                seq,
                observed_at,
                sha,
                now.0,
                r.post_id.get(),
                r.topic_id.get(),
                r.board_id.map(|id| id.get()),
                r.post_number,
                r.is_op,
                r.title,
                r.author_id.map(|id| id.get()),
                r.author_name,
                posted_at,
                posted_at.unwrap_or(UNDATED),
                r.content_html,
                r.language,
                r.merit.total,
                r.merit.distinct_senders,
                r.merit.transactions,
                senders,
                r.deleted
            ])?
        }
        Record::Image(r) => tx
            .prepare_cached(
                "INSERT INTO image_versions (valid_from, observed_at, sha256, indexed_at,
                   source_url, file, nsfw_score) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                seq,
                observed_at,
                sha,
                now.0,
                r.source_url,
                r.file,
                r.nsfw_score
            ])?,
    };
    Ok(())
}

/// Records image objects in one transaction (a re-recorded line keeps its first object: the
/// same file always encodes the same way).
pub(super) fn record_image_objects(
    conn: &mut Connection,
    objects: &[(Vec<u8>, ImageObject)],
) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    {
        let mut insert = tx.prepare_cached(
            "INSERT OR IGNORE INTO image_objects (line_sha256, avif_sha256, avif_bytes)
             VALUES (?1, ?2, ?3)",
        )?;
        for (line, object) in objects {
            insert.execute(params![&line[..], object.sha256, object.bytes as i64])?;
        }
    }
    tx.commit()
}

/// Deletes versions retired by a sequence committed before `horizon`: every snapshot that
/// could see them was taken before that sequence, so it is older than the horizon. Retired
/// topic statistics go the same way, uncounted (they are derived, not versions of documents).
pub(super) fn collect_garbage(conn: &mut Connection, horizon: Millis) -> rusqlite::Result<usize> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let retired_by: Option<i64> = tx.query_row(
        "SELECT MAX(seq) FROM sequences WHERE created_at < ?1",
        [horizon.0],
        |row| row.get(0),
    )?;
    let mut deleted = 0;
    if let Some(seq) = retired_by {
        for table in forumdex_sql::VERSION_TABLES {
            deleted += tx.execute(
                &format!("DELETE FROM {table} WHERE valid_to IS NOT NULL AND valid_to <= ?1"),
                [seq],
            )?;
        }
        tx.execute(
            "DELETE FROM topic_stat_versions WHERE valid_to IS NOT NULL AND valid_to <= ?1",
            [seq],
        )?;
        // Objects of image records no version refers to any more (the object files stay:
        // other records may share them, and they are content-addressed).
        tx.execute(
            "DELETE FROM image_objects WHERE NOT EXISTS
               (SELECT 1 FROM image_versions v WHERE v.sha256 = image_objects.line_sha256)",
            [],
        )?;
    }
    tx.commit()?;
    Ok(deleted)
}
