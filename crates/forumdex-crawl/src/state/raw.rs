//! Raw pages: every recorded page's body, zstd-compressed, kept until it is imported and at
//! least for the retention period, so a parser fix can be replayed without fetching again.

use chrono::{DateTime, Utc};
use forumdex_sql::{DynSql, Row, params};

use super::{CrawlState, Failure, FetchRecord, StateError, instant, millis, unsigned};

/// zstd level for raw pages: HTML compresses well at low levels, and the crawl is slow.
const ZSTD_LEVEL: i32 = 6;
/// Pages read per query by [`RawPages`].
const BATCH: i64 = 64;

/// A stored raw page, decompressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPage {
    /// The page's id (increasing in recording order).
    pub id: i64,
    /// The frontier URL it was fetched for.
    pub url: String,
    /// The frontier item's kind.
    pub kind: String,
    /// When the response was read.
    pub fetched_at: DateTime<Utc>,
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The body as received.
    pub body: Vec<u8>,
    /// Whether its observations were imported ([`CrawlState::mark_imported`]).
    pub imported: bool,
}

/// Which raw pages [`RawPages`] walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    All,
    Unimported,
}

/// An iterator over raw pages in recording order. It reads them in small batches by id, so
/// it holds no connection or transaction between items: pages recorded or marked imported
/// meanwhile are fine.
#[derive(Debug)]
pub struct RawPages<'a> {
    state: &'a CrawlState,
    which: Which,
    after_id: i64,
    batch: std::vec::IntoIter<RawPage>,
    failed: bool,
}

impl Iterator for RawPages<'_> {
    type Item = Result<RawPage, StateError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if let Some(page) = self.batch.next() {
            return Some(Ok(page));
        }
        match self.state.raw_batch(self.which, self.after_id) {
            Ok(batch) => {
                self.after_id = batch.last()?.id;
                self.batch = batch.into_iter();
                self.batch.next().map(Ok)
            }
            Err(err) => {
                self.failed = true;
                Some(Err(err))
            }
        }
    }
}

impl CrawlState {
    /// Every stored raw page, oldest first (for `forumdex crawl --reparse`).
    pub fn raw_pages(&self) -> RawPages<'_> {
        self.walk(Which::All)
    }

    /// The raw pages recorded but not yet imported, oldest first: a crawl replays these
    /// before it fetches anything new (the resume guarantee, see the module docs).
    pub fn unimported_pages(&self) -> RawPages<'_> {
        self.walk(Which::Unimported)
    }

    /// Marks a raw page's observations imported.
    pub fn mark_imported(&self, id: i64) -> Result<(), StateError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE crawl_raw_pages SET imported = 1 WHERE id = $1",
                params![id],
            )?;
            Ok(())
        })
    }

    /// Deletes the imported raw pages fetched more than `days` days before `now`; returns
    /// how many. Pages not yet imported are kept whatever their age.
    pub fn purge_raw_older_than(&self, days: u32, now: DateTime<Utc>) -> Result<u64, StateError> {
        let cutoff = now - chrono::Duration::days(i64::from(days));
        self.write(|tx| {
            Ok(tx.execute(
                "DELETE FROM crawl_raw_pages WHERE imported = 1 AND fetched_at < $1",
                params![millis(cutoff)],
            )?)
        })
    }

    /// The latest raw page still kept of `url` recorded before raw page `before_id` (pass
    /// `i64::MAX` for any): the fetch a new one is compared with.
    pub fn previous_raw_page(
        &self,
        url: &str,
        before_id: i64,
    ) -> Result<Option<RawPage>, StateError> {
        let stored = self.read(|sql| {
            let statement = format!("{SELECT} WHERE url = $1 AND id < $2 ORDER BY id DESC LIMIT 1");
            let row = sql.query_opt(&statement, params![url, before_id])?;
            row.as_ref().map(stored_page).transpose()
        })?;
        stored.map(decompressed).transpose()
    }

    fn walk(&self, which: Which) -> RawPages<'_> {
        RawPages {
            state: self,
            which,
            after_id: 0,
            batch: Vec::new().into_iter(),
            failed: false,
        }
    }

    fn raw_batch(&self, which: Which, after_id: i64) -> Result<Vec<RawPage>, StateError> {
        let filter = match which {
            Which::All => "WHERE id > $1",
            Which::Unimported => "WHERE imported = 0 AND id > $1",
        };
        let stored = self.read(|sql| {
            let statement = format!("{SELECT} {filter} ORDER BY id LIMIT $2");
            let rows = sql.query(&statement, params![after_id, BATCH])?;
            rows.iter().map(stored_page).collect::<Result<Vec<_>, _>>()
        })?;
        stored.into_iter().map(decompressed).collect()
    }
}

/// The columns [`stored_page`] reads.
const SELECT: &str = "SELECT id, url, kind, fetched_at, status, content_type, body_zstd, imported
                      FROM crawl_raw_pages";

/// A raw page row as stored: the page without its body, and the compressed body.
fn stored_page(row: &Row) -> Result<(RawPage, Vec<u8>), Failure> {
    Ok((
        RawPage {
            id: row.get(0)?,
            url: row.get(1)?,
            kind: row.get(2)?,
            fetched_at: instant(row.get(3)?),
            status: unsigned(row, 4)?,
            content_type: row.get(5)?,
            body: Vec::new(),
            imported: row.get::<i64>(7)? != 0,
        },
        row.get(6)?,
    ))
}

/// A stored page with its body decompressed.
fn decompressed((page, body_zstd): (RawPage, Vec<u8>)) -> Result<RawPage, StateError> {
    let body =
        zstd::decode_all(body_zstd.as_slice()).map_err(|source| StateError::Compression {
            page: format!("#{}", page.id),
            source,
        })?;
    Ok(RawPage { body, ..page })
}

/// Compresses a body for storage.
pub(super) fn compress(url: &str, body: &[u8]) -> Result<Vec<u8>, StateError> {
    zstd::encode_all(body, ZSTD_LEVEL).map_err(|source| StateError::Compression {
        page: url.to_owned(),
        source,
    })
}

/// Inserts a raw page (not imported); returns its id.
pub(super) fn insert(
    tx: &mut DynSql<'_>,
    page: &FetchRecord<'_>,
    body_zstd: &[u8],
) -> Result<i64, Failure> {
    let row = tx.query_opt(
        "INSERT INTO crawl_raw_pages (url, kind, fetched_at, status, content_type, body_zstd)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        params![
            page.url,
            page.kind,
            millis(page.fetched_at),
            i64::from(page.status),
            page.content_type,
            body_zstd
        ],
    )?;
    match row {
        Some(row) => Ok(row.get(0)?),
        None => Err(Failure::Corrupt(
            "a raw page insert returned no id".to_owned(),
        )),
    }
}
