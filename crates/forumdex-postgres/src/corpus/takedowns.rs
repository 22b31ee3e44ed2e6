//! Takedowns on PostgreSQL: the `takedowns` table, and [`served`], the predicate every read
//! of posts uses to leave out deletions and what is taken down.
//!
//! `takedown_topics` lists, for each post or profile takedown in force, the topics of every
//! version of its posts (whatever their sequence: a superset of the topics it hides posts
//! of): written when the takedown is added, by every import batch for the versions it
//! opens, and dropped when the takedown is lifted. A topic it does not list has no post
//! under a takedown at any sequence, so its kept statistics answer exactly
//! ([`may_hide_posts_of`], `topic_stats`).

use forumdex_corpus::takedown::StoredTakedown;
use forumdex_corpus::{Millis, Takedown, TakedownError, TakedownSet, TakedownTarget};
use forumdex_sql::{TAKEDOWN_COLUMNS, record_new_versions_sql, record_takedown_topics_sql};
use postgres::{Row, Transaction};

use super::sql::DIALECT;
use super::{Step, corrupt};
use crate::pool::Failure;

/// A step of a takedown change.
type Change<T> = Result<T, Failure<TakedownError>>;

/// Whether a post or profile takedown in force may hide a post of topic `topic_id` at some
/// sequence (one probe of `takedown_topics`).
pub(super) fn may_hide_posts_of(tx: &mut Transaction<'_>, topic_id: i64) -> Step<bool> {
    let row = tx.query_one(
        "SELECT EXISTS (SELECT 1 FROM takedown_topics WHERE topic_id = $1)",
        &[&topic_id],
    )?;
    Ok(row.get(0))
}

/// Lists in `takedown_topics` the topics of the posts of takedown `takedown_id` (in force).
fn record_topics(tx: &mut Transaction<'_>, takedown_id: i64) -> Step<()> {
    let sql = record_takedown_topics_sql(DIALECT, "k.takedown_id = $1");
    tx.execute(&sql, &[&takedown_id])?;
    Ok(())
}

/// Lists in `takedown_topics` the topics of the post versions batch `seq` opened whose post
/// or author is under a takedown in force.
pub(super) fn record_new_versions(tx: &mut Transaction<'_>, seq: i64) -> Step<()> {
    tx.execute(&record_new_versions_sql(DIALECT, "$1"), &[&seq])?;
    Ok(())
}

/// Whether `target` itself is under a takedown in force.
pub(super) fn taken_down(tx: &mut Transaction<'_>, target: TakedownTarget) -> Step<bool> {
    let row = tx.query_one(
        "SELECT EXISTS (SELECT 1 FROM takedowns
                        WHERE kind = $1 AND entity_id = $2 AND lifted_at IS NULL)",
        &[&target.kind(), &target.id()],
    )?;
    Ok(row.get(0))
}

fn takedown_from_row(row: &Row) -> Step<Takedown> {
    let stored = StoredTakedown {
        takedown_id: row.get(0),
        kind: row.get(1),
        entity_id: row.get(2),
        reason: row.get(3),
        created_at: row.get(4),
        lifted_at: row.get(5),
        lifted_reason: row.get(6),
    };
    let kind = stored.kind.clone();
    Ok(Takedown::from_stored(stored)
        .ok_or_else(|| corrupt(format!("unknown takedown kind {kind:?}")))?)
}

pub(super) fn all(tx: &mut Transaction<'_>) -> Step<Vec<Takedown>> {
    let rows = tx.query(
        &format!("SELECT {TAKEDOWN_COLUMNS} FROM takedowns ORDER BY takedown_id"),
        &[],
    )?;
    rows.iter().map(takedown_from_row).collect()
}

pub(super) fn in_force(tx: &mut Transaction<'_>) -> Step<TakedownSet> {
    let mut set = TakedownSet::default();
    let rows = tx.query(
        "SELECT kind, entity_id FROM takedowns WHERE lifted_at IS NULL ORDER BY takedown_id",
        &[],
    )?;
    for row in &rows {
        if let Some(target) = TakedownTarget::from_parts(row.get(0), row.get(1)) {
            set.insert(target);
        }
    }
    Ok(set)
}

/// Records a takedown of `target` (the caller holds the writer lock).
pub(super) fn add(
    tx: &mut Transaction<'_>,
    target: TakedownTarget,
    reason: &str,
    now: Millis,
) -> Change<Takedown> {
    let existing = tx.query_opt(
        "SELECT takedown_id FROM takedowns
         WHERE kind = $1 AND entity_id = $2 AND lifted_at IS NULL",
        &[&target.kind(), &target.id()],
    )?;
    if let Some(row) = existing {
        return Err(TakedownError::AlreadyTakenDown {
            target,
            takedown_id: row.get(0),
        }
        .into());
    }
    let row = tx.query_one(
        &format!(
            "INSERT INTO takedowns (kind, entity_id, reason, created_at)
             VALUES ($1, $2, $3, $4) RETURNING {TAKEDOWN_COLUMNS}"
        ),
        &[&target.kind(), &target.id(), &reason, &now.0],
    )?;
    let takedown = takedown_from_row(&row)?;
    record_topics(tx, takedown.takedown_id)?;
    Ok(takedown)
}

/// Lifts takedown `takedown_id` (the caller holds the writer lock).
pub(super) fn lift(
    tx: &mut Transaction<'_>,
    takedown_id: i64,
    reason: &str,
    now: Millis,
) -> Change<Takedown> {
    let row = tx
        .query_opt(
            &format!(
                "UPDATE takedowns SET lifted_at = $2, lifted_reason = $3
                 WHERE takedown_id = $1 AND lifted_at IS NULL RETURNING {TAKEDOWN_COLUMNS}"
            ),
            &[&takedown_id, &now.0, &reason],
        )?
        .ok_or(TakedownError::NotInForce(takedown_id))?;
    let lifted = takedown_from_row(&row)?;
    tx.execute(
        "DELETE FROM takedown_topics WHERE takedown_id = $1",
        &[&takedown_id],
    )?;
    Ok(lifted)
}
