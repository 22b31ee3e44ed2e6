//! The robots.txt cache: the last answer of each origin's robots.txt with its fetch time, so
//! a new run does not fetch it again before it is a day old.

use chrono::{DateTime, Utc};
use forumdex_sql::params;

use super::{CrawlState, StateError, instant, millis, unsigned_opt};

/// A robots.txt answer as cached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsRecord {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// When it was read.
    pub fetched_at: DateTime<Utc>,
    /// The HTTP status; `None` when no response came (a network failure).
    pub status: Option<u16>,
    /// The body (empty without a response).
    pub body: Vec<u8>,
}

impl CrawlState {
    /// The cached robots.txt answer of `origin`.
    pub fn robots(&self, origin: &str) -> Result<Option<RobotsRecord>, StateError> {
        self.read(|sql| {
            let row = sql.query_opt(
                "SELECT origin, fetched_at, status, body FROM crawl_robots WHERE origin = $1",
                params![origin],
            )?;
            row.map(|row| {
                Ok(RobotsRecord {
                    origin: row.get(0)?,
                    fetched_at: instant(row.get(1)?),
                    status: unsigned_opt(&row, 2)?,
                    body: row.get(3)?,
                })
            })
            .transpose()
        })
    }

    /// Replaces the cached robots.txt answer of its origin.
    pub fn save_robots(&self, record: &RobotsRecord) -> Result<(), StateError> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO crawl_robots (origin, fetched_at, status, body)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (origin) DO UPDATE SET fetched_at = excluded.fetched_at,
                     status = excluded.status, body = excluded.body",
                params![
                    &record.origin,
                    millis(record.fetched_at),
                    record.status.map(i64::from),
                    record.body.as_slice()
                ],
            )?;
            Ok(())
        })
    }
}
