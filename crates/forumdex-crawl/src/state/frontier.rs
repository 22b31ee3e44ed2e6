//! The frontier (what to fetch, when) and the one transaction that records a fetch.

use chrono::{DateTime, Utc};
use forumdex_sql::{DynSql, params};

use super::{CrawlState, Failure, StateError, instant, int, millis, raw, unsigned, unsigned_opt};

/// The fetch log outcome of a pending item dropped by [`CrawlState::drop_pending_outside`].
pub const DROPPED_ELSEWHERE: &str = "dropped: queued by a crawl of another forum URL";

/// A page to queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewItem {
    /// The page's absolute URL (the frontier's key).
    pub url: String,
    /// What the page is (`board`, `topic`, `profile`...: the parser's names).
    pub kind: String,
    /// Higher is fetched first among the items due.
    pub priority: i64,
    /// Not fetched before this instant.
    pub due_at: DateTime<Utc>,
    /// The crawl scope it is queued for (`Scope::key` of the crawl module): a crawl fetches
    /// the items of its own scope only, so another scope's leftovers wait for it.
    pub scope: String,
}

/// A pending frontier item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontierItem {
    /// The page's absolute URL.
    pub url: String,
    /// What the page is.
    pub kind: String,
    /// Higher is fetched first.
    pub priority: i64,
    /// Due from this instant on.
    pub due_at: DateTime<Utc>,
    /// Failed fetches of this item so far (reset when it is requeued after done).
    pub attempts: u32,
}

/// What a push did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushResult {
    /// The URL was new (or, for [`CrawlState::requeue`], done) and is now pending.
    Queued,
    /// The URL was already pending; it keeps one entry (the earlier due time and the higher
    /// priority of the two).
    AlreadyPending,
    /// The URL was fetched already (or failed for good); [`CrawlState::push`] leaves it.
    AlreadyDone,
}

/// A fetched page to record with [`CrawlState::record_page`].
#[derive(Debug, Clone, Copy)]
pub struct FetchRecord<'a> {
    /// The frontier item's URL (the URL asked for, even when a redirect was followed).
    pub url: &'a str,
    /// The item's kind.
    pub kind: &'a str,
    /// When the response was read.
    pub fetched_at: DateTime<Utc>,
    /// The final HTTP status.
    pub status: u16,
    /// The `Content-Type` header.
    pub content_type: Option<&'a str>,
    /// The body as received.
    pub body: &'a [u8],
}

/// A fetch that brought no page, for [`CrawlState::record_failure`].
#[derive(Debug, Clone, Copy)]
pub struct FetchFailure<'a> {
    /// The frontier item's URL.
    pub url: &'a str,
    /// When it failed.
    pub at: DateTime<Utc>,
    /// The HTTP status, when a response came.
    pub status: Option<u16>,
    /// Why, for the log (no headers, no cookies).
    pub reason: &'a str,
    /// Try again from this instant; `None` gives up on the item (state `failed`).
    pub retry_at: Option<DateTime<Utc>>,
}

impl CrawlState {
    /// Queues `item` unless its URL is already known: a pending URL keeps one entry (with the
    /// earlier due time, the higher priority and `item`'s scope, so the crawl asking for it
    /// now fetches it), a done one is left alone. Idempotent.
    pub fn push(&self, item: &NewItem, now: DateTime<Utc>) -> Result<PushResult, StateError> {
        self.write(|tx| push_in(tx, item, now, false))
    }

    /// Queues `item` again even when it was done (a refresh: a topic whose last post moved,
    /// a post due for a re-check); a pending URL keeps one entry as with [`Self::push`].
    pub fn requeue(&self, item: &NewItem, now: DateTime<Utc>) -> Result<PushResult, StateError> {
        self.write(|tx| push_in(tx, item, now, true))
    }

    /// The pending item of `scope` (or of none, queued before scopes were kept) to fetch
    /// next at `now`: the highest priority among those due, then the earliest due, then by
    /// URL. A read: the item stays pending until [`Self::record_page`] or
    /// [`Self::record_failure`] records its fetch.
    pub fn next_due(
        &self,
        now: DateTime<Utc>,
        scope: &str,
    ) -> Result<Option<FrontierItem>, StateError> {
        self.read(|sql| {
            let row = sql.query_opt(
                "SELECT url, kind, priority, due_at, attempts FROM crawl_frontier
                 WHERE state = 'pending' AND due_at <= $1 AND (scope IS NULL OR scope = $2)
                 ORDER BY priority DESC, due_at, url LIMIT 1",
                params![millis(now), scope],
            )?;
            row.map(|row| {
                Ok(FrontierItem {
                    url: row.get(0)?,
                    kind: row.get(1)?,
                    priority: row.get(2)?,
                    due_at: instant(row.get(3)?),
                    attempts: unsigned(&row, 4)?,
                })
            })
            .transpose()
        })
    }

    /// When the earliest pending item falls due (`None`: the frontier is empty).
    pub fn next_due_at(&self) -> Result<Option<DateTime<Utc>>, StateError> {
        self.read(|sql| {
            let ms: Option<i64> = aggregate(
                sql,
                "SELECT min(due_at) FROM crawl_frontier WHERE state = 'pending'",
                params![],
            )?;
            Ok(ms.map(instant))
        })
    }

    /// The URLs of a kind fetched before (state `done`), in URL order.
    pub fn done_urls(&self, kind: &str) -> Result<Vec<String>, StateError> {
        self.read(|sql| {
            let rows = sql.query(
                "SELECT url FROM crawl_frontier WHERE kind = $1 AND state = 'done' ORDER BY url",
                params![kind],
            )?;
            Ok(rows
                .iter()
                .map(|row| row.get(0))
                .collect::<Result<_, _>>()?)
        })
    }

    /// How many items are pending for a scope other than `scope` (left for that crawl).
    pub fn pending_elsewhere(&self, scope: &str) -> Result<u64, StateError> {
        self.read(|sql| {
            count(
                sql,
                "SELECT count(*) FROM crawl_frontier WHERE state = 'pending' AND scope != $1",
                params![scope],
            )
        })
    }

    /// How many items are pending (due or not).
    pub fn pending_count(&self) -> Result<u64, StateError> {
        self.read(|sql| {
            count(
                sql,
                "SELECT count(*) FROM crawl_frontier WHERE state = 'pending'",
                params![],
            )
        })
    }

    /// Records a fetched page in ONE transaction: a fetch log row, the raw page (zstd,
    /// `imported = 0`), the frontier item marked done, and the links found on it pushed
    /// (as [`Self::push`]). Returns the raw page's id, for [`Self::mark_imported`].
    pub fn record_page(
        &self,
        page: &FetchRecord<'_>,
        discovered: &[NewItem],
    ) -> Result<i64, StateError> {
        let body_zstd = raw::compress(page.url, page.body)?;
        self.write(|tx| {
            let at = millis(page.fetched_at);
            log(tx, page.url, at, Some(page.status), page.body.len(), "page")?;
            let id = raw::insert(tx, page, &body_zstd)?;
            mark_done(tx, page, at)?;
            for item in discovered {
                push_in(tx, item, page.fetched_at, false)?;
            }
            Ok(id)
        })
    }

    /// Records a fetched page that is set aside (a layout the parser does not recognise):
    /// in one transaction, a fetch log row with outcome `set aside: REASON`, the raw page
    /// kept as already imported (so a resumed crawl does not replay it, and `--reparse`
    /// reads it with a fixed parser), and the frontier item marked done.
    pub fn record_set_aside(&self, page: &FetchRecord<'_>, reason: &str) -> Result<(), StateError> {
        let body_zstd = raw::compress(page.url, page.body)?;
        self.write(|tx| {
            let at = millis(page.fetched_at);
            let outcome = format!("set aside: {reason}");
            log(
                tx,
                page.url,
                at,
                Some(page.status),
                page.body.len(),
                &outcome,
            )?;
            let id = raw::insert(tx, page, &body_zstd)?;
            tx.execute(
                "UPDATE crawl_raw_pages SET imported = 1 WHERE id = $1",
                params![id],
            )?;
            mark_done(tx, page, at)?;
            Ok(())
        })
    }

    /// Records a fetch that brought no page: a fetch log row, and the item's attempts
    /// counted and either rescheduled at `retry_at` or given up (`failed`), in one
    /// transaction.
    pub fn record_failure(&self, failure: &FetchFailure<'_>) -> Result<(), StateError> {
        self.write(|tx| {
            let at = millis(failure.at);
            log(tx, failure.url, at, failure.status, 0, failure.reason)?;
            let (state, due_at) = match failure.retry_at {
                Some(retry_at) => ("pending", millis(retry_at)),
                None => ("failed", at),
            };
            tx.execute(
                "UPDATE crawl_frontier SET attempts = attempts + 1, state = $2, due_at = $3,
                     updated_at = $4
                 WHERE url = $1",
                params![failure.url, state, due_at, at],
            )?;
            Ok(())
        })
    }

    /// Removes the pending items whose URL does not start with `prefix` (the pages of the
    /// forum a crawl is for all do), logging each in the fetch log with outcome
    /// [`DROPPED_ELSEWHERE`]; returns their URLs. A crawl run with another forum URL (a
    /// mistaken `--forum-url`) thus leaves nothing it cannot fetch, and its pages can still
    /// be queued again by a crawl of that forum.
    pub fn drop_pending_outside(
        &self,
        prefix: &str,
        at: DateTime<Utc>,
    ) -> Result<Vec<String>, StateError> {
        self.write(|tx| {
            let rows = tx.query(
                "SELECT url FROM crawl_frontier
                 WHERE state = 'pending' AND substr(url, 1, length($1)) != $1 ORDER BY url",
                params![prefix],
            )?;
            let urls = rows
                .iter()
                .map(|row| row.get(0))
                .collect::<Result<Vec<String>, _>>()?;
            for url in &urls {
                log(tx, url, millis(at), None, 0, DROPPED_ELSEWHERE)?;
                tx.execute("DELETE FROM crawl_frontier WHERE url = $1", params![url])?;
            }
            Ok(urls)
        })
    }

    /// The fetch log's rows for `url`, oldest first: (fetched at, status, bytes, outcome).
    pub fn fetch_log(&self, url: &str) -> Result<Vec<LogEntry>, StateError> {
        self.read(|sql| {
            let rows = sql.query(
                "SELECT fetched_at, status, bytes, outcome FROM crawl_fetch_log
                 WHERE url = $1 ORDER BY id",
                params![url],
            )?;
            rows.iter()
                .map(|row| {
                    Ok(LogEntry {
                        at: instant(row.get(0)?),
                        status: unsigned_opt(row, 1)?,
                        bytes: unsigned(row, 2)?,
                        outcome: row.get(3)?,
                    })
                })
                .collect()
        })
    }
}

/// A fetch log row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// When the fetch ended.
    pub at: DateTime<Utc>,
    /// The HTTP status, when a response came.
    pub status: Option<u16>,
    /// Body bytes received.
    pub bytes: u64,
    /// `page`, or why no page was recorded.
    pub outcome: String,
}

fn log(
    tx: &mut DynSql<'_>,
    url: &str,
    at: i64,
    status: Option<u16>,
    bytes: usize,
    outcome: &str,
) -> Result<(), Failure> {
    tx.execute(
        "INSERT INTO crawl_fetch_log (url, fetched_at, status, bytes, outcome)
         VALUES ($1, $2, $3, $4, $5)",
        params![url, at, status.map(i64::from), int(bytes), outcome],
    )?;
    Ok(())
}

/// Pushes `item`; `again` also turns a done or failed URL back to pending.
fn push_in(
    tx: &mut DynSql<'_>,
    item: &NewItem,
    now: DateTime<Utc>,
    again: bool,
) -> Result<PushResult, Failure> {
    let state: Option<String> = tx
        .query_opt(
            "SELECT state FROM crawl_frontier WHERE url = $1",
            params![&item.url],
        )?
        .map(|row| row.get(0))
        .transpose()?;
    let (due_at, now) = (millis(item.due_at), millis(now));
    match state.as_deref() {
        Some("pending") => {
            let dialect = tx.dialect();
            let statement = format!(
                "UPDATE crawl_frontier SET priority = {greatest}(priority, $2),
                     due_at = {least}(due_at, $3), updated_at = $4, scope = $5
                 WHERE url = $1",
                greatest = dialect.greatest(),
                least = dialect.least(),
            );
            tx.execute(
                &statement,
                params![&item.url, item.priority, due_at, now, &item.scope],
            )?;
            Ok(PushResult::AlreadyPending)
        }
        Some(_) if !again => Ok(PushResult::AlreadyDone),
        _ => {
            // New, or done or failed and queued again: pending from scratch.
            tx.execute(
                "INSERT INTO crawl_frontier
                     (url, kind, priority, due_at, attempts, state, updated_at, scope)
                 VALUES ($1, $2, $3, $4, 0, 'pending', $5, $6)
                 ON CONFLICT (url) DO UPDATE SET kind = excluded.kind,
                     priority = excluded.priority, due_at = excluded.due_at, attempts = 0,
                     state = 'pending', updated_at = excluded.updated_at, scope = excluded.scope",
                params![
                    &item.url,
                    &item.kind,
                    item.priority,
                    due_at,
                    now,
                    &item.scope
                ],
            )?;
            Ok(PushResult::Queued)
        }
    }
}

/// Marks a fetched page's frontier item done (adding it when it was fetched without one).
fn mark_done(tx: &mut DynSql<'_>, page: &FetchRecord<'_>, at: i64) -> Result<(), Failure> {
    tx.execute(
        "INSERT INTO crawl_frontier (url, kind, priority, due_at, attempts, state, updated_at)
         VALUES ($1, $2, 0, $3, 0, 'done', $3)
         ON CONFLICT (url) DO UPDATE SET state = 'done', updated_at = $3",
        params![page.url, page.kind, at],
    )?;
    Ok(())
}

/// A `count(*)` query's count.
fn count(
    sql: &mut DynSql<'_>,
    statement: &str,
    params: &[forumdex_sql::Param<'_>],
) -> Result<u64, Failure> {
    match sql.query_opt(statement, params)? {
        Some(row) => unsigned(&row, 0),
        None => Ok(0),
    }
}

/// An aggregate query's one value, `NULL` over no rows.
fn aggregate(
    sql: &mut DynSql<'_>,
    statement: &str,
    params: &[forumdex_sql::Param<'_>],
) -> Result<Option<i64>, Failure> {
    match sql.query_opt(statement, params)? {
        Some(row) => Ok(row.get(0)?),
        None => Ok(None),
    }
}
