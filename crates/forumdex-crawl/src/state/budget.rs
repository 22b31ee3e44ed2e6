//! The requests spent per UTC day, for `crawl_daily_budget`. robots.txt fetches, retries and
//! redirects count: every request sent is one.

use chrono::{DateTime, Utc};
use forumdex_sql::{DynSql, params};

use super::{CrawlState, Failure, StateError, instant, int, millis, unsigned};

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
            let spent = spent_on(tx, &day)?;
            if spent >= daily_budget {
                return Ok(None);
            }
            tx.execute(
                "INSERT INTO crawl_daily_requests (day, requests, last_request_at)
                 VALUES ($1, $2, $3)
                 ON CONFLICT (day) DO UPDATE SET requests = excluded.requests,
                     last_request_at = excluded.last_request_at",
                params![&day, int(spent + 1), millis(now)],
            )?;
            Ok(Some(spent + 1))
        })
    }

    /// The requests spent on the UTC day of `now`.
    pub fn requests_on(&self, now: DateTime<Utc>) -> Result<u64, StateError> {
        let day = utc_day(now);
        self.read(|sql| spent_on(sql, &day))
    }
}

/// The requests spent on `day`.
fn spent_on(sql: &mut DynSql<'_>, day: &str) -> Result<u64, Failure> {
    let row = sql.query_opt(
        "SELECT requests FROM crawl_daily_requests WHERE day = $1",
        params![day],
    )?;
    row.map_or(Ok(0), |row| unsigned(&row, 0))
}

impl CrawlState {
    /// When the last request was spent (by any run): a new run waits the interval from it.
    pub fn last_request_at(&self) -> Result<Option<DateTime<Utc>>, StateError> {
        self.read(|sql| {
            let row =
                sql.query_opt("SELECT max(last_request_at) FROM crawl_daily_requests", &[])?;
            let ms: Option<i64> = match row {
                Some(row) => row.get(0)?,
                None => None,
            };
            Ok(ms.map(instant))
        })
    }

    /// Notes that the last request's exchange ended at `at` (its response read, or its
    /// failure): a new run then waits the interval from the end, as within a run. A kill
    /// during the exchange leaves its start, which [`Self::try_spend_request`] noted.
    pub fn note_request_end(&self, at: DateTime<Utc>) -> Result<(), StateError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE crawl_daily_requests SET last_request_at = $1
                 WHERE last_request_at < $1 AND day = (
                     SELECT day FROM crawl_daily_requests ORDER BY last_request_at DESC LIMIT 1)",
                params![millis(at)],
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
            let statement = format!(
                "INSERT INTO crawl_hold (id, not_before) VALUES (1, $1)
                 ON CONFLICT (id) DO UPDATE
                 SET not_before = {}(crawl_hold.not_before, excluded.not_before)",
                tx.dialect().greatest()
            );
            tx.execute(&statement, params![millis(at)])?;
            Ok(())
        })
    }

    /// The instant the forum last asked to be left alone until ([`Self::hold_until`]).
    pub fn held_until(&self) -> Result<Option<DateTime<Utc>>, StateError> {
        self.read(|sql| {
            let row = sql.query_opt("SELECT not_before FROM crawl_hold WHERE id = 1", &[])?;
            let ms: Option<i64> = row.map(|row| row.get(0)).transpose()?;
            Ok(ms.map(instant))
        })
    }
}

/// The UTC day of an instant, `YYYY-MM-DD`.
fn utc_day(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d").to_string()
}
