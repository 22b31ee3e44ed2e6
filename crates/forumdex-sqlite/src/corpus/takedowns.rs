//! Takedowns on SQLite: the `takedowns` table, and [`served`], the predicate every read of
//! posts uses to leave out deletions and what is taken down.
//!
//! `takedown_topics` lists, for each post or profile takedown in force, the topics of every
//! version of its posts (whatever their sequence: a superset of the topics it hides posts
//! of): written when the takedown is added, by every import batch for the versions it
//! opens, and dropped when the takedown is lifted. A topic it does not list has no post
//! under a takedown at any sequence, so its kept statistics answer exactly
//! ([`may_hide_posts_of`], `topic_stats`).

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use forumdex_corpus::takedown::{
    StoredTakedown, Takedown, TakedownError, TakedownSet, TakedownTarget,
};
use forumdex_corpus::time::Millis;
use forumdex_sql::{TAKEDOWN_COLUMNS, record_new_versions_sql, record_takedown_topics_sql};

use super::sql::DIALECT;

/// Whether a post or profile takedown in force may hide a post of topic `topic_id` at some
/// sequence (one probe of `takedown_topics`).
pub(super) fn may_hide_posts_of(conn: &Connection, topic_id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM takedown_topics WHERE topic_id = ?1)")?
        .query_row([topic_id], |row| row.get(0))
}

/// Lists in `takedown_topics` the topics of the posts of takedown `takedown_id` in force, or
/// of every takedown in force when `None`.
pub(super) fn record_topics(conn: &Connection, takedown_id: Option<i64>) -> rusqlite::Result<()> {
    let which = "(?1 IS NULL OR k.takedown_id = ?1)";
    conn.prepare_cached(&record_takedown_topics_sql(DIALECT, which))?
        .execute([takedown_id])?;
    Ok(())
}

/// Lists in `takedown_topics` the topics of the post versions batch `seq` opened whose post
/// or author is under a takedown in force.
pub(super) fn record_new_versions(conn: &Connection, seq: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(&record_new_versions_sql(DIALECT, "?1"))?
        .execute([seq])?;
    Ok(())
}

/// Whether `target` itself is under a takedown in force.
pub(super) fn taken_down(conn: &Connection, target: TakedownTarget) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM takedowns
                        WHERE kind = ?1 AND entity_id = ?2 AND lifted_at IS NULL)",
    )?
    .query_row(params![target.kind(), target.id()], |row| row.get(0))
}

fn takedown_from_row(row: &Row<'_>) -> rusqlite::Result<Takedown> {
    let stored = StoredTakedown {
        takedown_id: row.get(0)?,
        kind: row.get(1)?,
        entity_id: row.get(2)?,
        reason: row.get(3)?,
        created_at: row.get(4)?,
        lifted_at: row.get(5)?,
        lifted_reason: row.get(6)?,
    };
    let kind = stored.kind.clone();
    Takedown::from_stored(stored).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            1,
            rusqlite::types::Type::Text,
            format!("unknown takedown kind {kind:?}").into(),
        )
    })
}

pub(super) fn all(conn: &Connection) -> rusqlite::Result<Vec<Takedown>> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {TAKEDOWN_COLUMNS} FROM takedowns ORDER BY takedown_id"
    ))?;
    let rows = statement.query_map([], takedown_from_row)?;
    rows.collect()
}

pub(super) fn in_force(conn: &Connection) -> rusqlite::Result<TakedownSet> {
    let mut set = TakedownSet::default();
    let mut statement = conn.prepare_cached(
        "SELECT kind, entity_id FROM takedowns WHERE lifted_at IS NULL ORDER BY takedown_id",
    )?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let kind: String = row.get(0)?;
        let id: i64 = row.get(1)?;
        if let Some(target) = TakedownTarget::from_parts(&kind, id) {
            set.insert(target);
        }
    }
    Ok(set)
}

pub(super) fn add(
    conn: &mut Connection,
    target: TakedownTarget,
    reason: &str,
    now: Millis,
) -> Result<Takedown, TakedownError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(super::map_err)?;
    let existing: Option<i64> = tx
        .query_row(
            "SELECT takedown_id FROM takedowns
             WHERE kind = ?1 AND entity_id = ?2 AND lifted_at IS NULL",
            params![target.kind(), target.id()],
            |row| row.get(0),
        )
        .optional()
        .map_err(super::map_err)?;
    if let Some(takedown_id) = existing {
        return Err(TakedownError::AlreadyTakenDown {
            target,
            takedown_id,
        });
    }
    let takedown = tx
        .query_row(
            &format!(
                "INSERT INTO takedowns (kind, entity_id, reason, created_at)
                 VALUES (?1, ?2, ?3, ?4) RETURNING {TAKEDOWN_COLUMNS}"
            ),
            params![target.kind(), target.id(), reason, now.0],
            takedown_from_row,
        )
        .map_err(super::map_err)?;
    record_topics(&tx, Some(takedown.takedown_id)).map_err(super::map_err)?;
    tx.commit().map_err(super::map_err)?;
    Ok(takedown)
}

pub(super) fn lift(
    conn: &mut Connection,
    takedown_id: i64,
    reason: &str,
    now: Millis,
) -> Result<Takedown, TakedownError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(super::map_err)?;
    let lifted = tx
        .query_row(
            &format!(
                "UPDATE takedowns SET lifted_at = ?2, lifted_reason = ?3
                 WHERE takedown_id = ?1 AND lifted_at IS NULL RETURNING {TAKEDOWN_COLUMNS}"
            ),
            params![takedown_id, now.0, reason],
            takedown_from_row,
        )
        .optional()
        .map_err(super::map_err)?
        .ok_or(TakedownError::NotInForce(takedown_id))?;
    tx.execute(
        "DELETE FROM takedown_topics WHERE takedown_id = ?1",
        [takedown_id],
    )
    .map_err(super::map_err)?;
    tx.commit().map_err(super::map_err)?;
    Ok(lifted)
}
