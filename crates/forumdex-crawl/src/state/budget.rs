//! The requests spent per UTC day, for `crawl_daily_budget`. robots.txt fetches, retries and
//! redirects count: every request sent is one.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};

use super::{CrawlState, StateError, instant, millis};

impl CrawlState {
    /// Spends one request of the UTC day of `now` when fewer than `daily_budget` were spent
    /// that day: returns the day's count after spending, or `None` (nothing spent) when the
    /// budget is exhausted. Call it before sending: a request counted and then lost to a
    /// crash errs on the polite side.
    pub fn try_spend_request(
        &self,
        now: DateTime<Utc>,
        daily_budget: u64,
    ) -> Result<Option<u64>, StateError> {
        let day = utc_day(now);
        self.write(|tx| {
            let spent: u64 = tx
                .query_row(
                    "SELECT requests FROM daily_requests WHERE day = ?1",
                    [&day],
                    |row| row.get(0),
                )
                .optional()?
                .unwrap_or(0);
            if spent >= daily_budget {
                return Ok(None);
            }
            tx.execute(
                "INSERT INTO daily_requests (day, requests, last_request_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (day) DO UPDATE SET requests = excluded.requests,
                     last_request_at = excluded.last_request_at",
                params![day, spent + 1, millis(now)],
            )?;
            Ok(Some(spent + 1))
        })
    }

    /// The requests spent on the UTC day of `now`.
    pub fn requests_on(&self, now: DateTime<Utc>) -> Result<u64, StateError> {
        let day = utc_day(now);
        self.read(|conn| {
            Ok(conn
                .query_row(
                    "SELECT requests FROM daily_requests WHERE day = ?1",
                    [&day],
                    |row| row.get(0),
                )
                .optional()?
                .unwrap_or(0))
        })
    }
}

impl CrawlState {
    /// When the last request was spent (by any run): a new run waits the interval from it.
    pub fn last_request_at(&self) -> Result<Option<DateTime<Utc>>, StateError> {
        self.read(|conn| {
            let ms: Option<i64> = conn.query_row(
                "SELECT max(last_request_at) FROM daily_requests",
                [],
                |row| row.get(0),
            )?;
            Ok(ms.map(instant))
        })
    }

    /// Notes that the last request's exchange ended at `at` (its response read, or its
    /// failure): a new run then waits the interval from the end, as within a run. A kill
    /// during the exchange leaves its start, which [`Self::try_spend_request`] noted.
    pub fn note_request_end(&self, at: DateTime<Utc>) -> Result<(), StateError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE daily_requests SET last_request_at = ?1
                 WHERE last_request_at < ?1 AND day = (
                     SELECT day FROM daily_requests ORDER BY last_request_at DESC LIMIT 1)",
                [millis(at)],
            )?;
            Ok(())
        })
    }
}

impl CrawlState {
    /// Notes that the forum asked for no request before `at` (a 429/503 and its
    /// `Retry-After`), so that a crawl started again before then waits too. A later hold
    /// replaces an earlier one; an earlier one changes nothing.
    pub fn hold_until(&self, at: DateTime<Utc>) -> Result<(), StateError> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO hold (id, not_before) VALUES (1, ?1)
                 ON CONFLICT (id) DO UPDATE SET not_before = max(not_before, excluded.not_before)",
                [millis(at)],
            )?;
            Ok(())
        })
    }

    /// The instant the forum last asked to be left alone until ([`Self::hold_until`]).
    pub fn held_until(&self) -> Result<Option<DateTime<Utc>>, StateError> {
        self.read(|conn| {
            let ms: Option<i64> = conn
                .query_row("SELECT not_before FROM hold WHERE id = 1", [], |row| {
                    row.get(0)
                })
                .optional()?;
            Ok(ms.map(instant))
        })
    }
}

/// The UTC day of an instant, `YYYY-MM-DD`.
fn utc_day(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d").to_string()
}
