//! The embedded corpus store ([`CorpusRead`], [`CorpusWrite`], [`CorpusMaintenance`]): one
//! SQLite database in WAL mode, one writer at a time (`BEGIN IMMEDIATE`), readers on their
//! own connections so imports never block reads.

mod read;
mod sql;
mod takedowns;
mod topic;
mod topic_posts;
mod topic_stats;
mod write;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use forumdex_clock::{SharedClock, SystemClock};
use forumdex_corpus::model::*;
use forumdex_corpus::takedown::check_reason;
use forumdex_corpus::{
    CorpusMaintenance, CorpusRead, CorpusWrite, Millis, Observation, StoreError, Takedown,
    TakedownError, TakedownSet, TakedownTarget,
};
use rusqlite::{Connection, ErrorCode};

use crate::connect::Setup;
use crate::pool::Pool;

/// Idle read connections kept for reuse.
const MAX_IDLE_READERS: usize = 16;

/// The corpus on SQLite, in `corpus.sqlite` of the data folder.
pub struct SqliteCorpusStore {
    path: PathBuf,
    writer: Mutex<Option<Connection>>,
    /// The writer connection's page cache, in KiB.
    writer_cache_kib: u32,
    readers: Pool<StoreError>,
    /// Tells each sequence its commit time.
    clock: SharedClock,
}

impl SqliteCorpusStore {
    /// The file name of the corpus database inside a data folder.
    pub const FILE_NAME: &'static str = "corpus.sqlite";

    /// The page cache of each read connection unless [`Self::with_reader_cache`] sets
    /// another: 64 MiB.
    pub const DEFAULT_READER_CACHE_KIB: u32 = 65_536;

    /// The page cache of the writer connection unless [`Self::with_writer_cache`] sets
    /// another: 64 MiB.
    pub const DEFAULT_WRITER_CACHE_KIB: u32 = 65_536;

    /// Opens (creating and migrating when needed) the corpus of the data folder `data_dir`,
    /// on the system clock ([`Self::with_clock`] gives it another).
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|err| {
            StoreError::Unavailable(format!("cannot create {}: {err}", data_dir.display()))
        })?;
        let path = data_dir.join(Self::FILE_NAME);
        let conn = connect(&path)?;
        conn.execute_batch(include_str!("corpus/schema.sql"))
            .map_err(map_err)?;
        migrate(&conn).map_err(map_err)?;
        set_cache(&conn, Self::DEFAULT_WRITER_CACHE_KIB)?;
        Ok(Self {
            readers: Pool::new(path.clone(), MAX_IDLE_READERS, connect),
            path,
            writer: Mutex::new(Some(conn)),
            writer_cache_kib: Self::DEFAULT_WRITER_CACHE_KIB,
            clock: SystemClock::shared(),
        })
    }

    /// The store with a page cache of `kib` KiB on each read connection instead of
    /// [`Self::DEFAULT_READER_CACHE_KIB`]: a server sizes it from its `memory_limit`, since
    /// every request in flight may hold a read connection.
    pub fn with_reader_cache(self, kib: u32) -> Self {
        let setup = Setup {
            cache_kib: Some(kib),
            ..SETUP
        };
        Self {
            readers: Pool::new(self.path.clone(), MAX_IDLE_READERS, move |path: &Path| {
                crate::connect(path, &setup).map_err(map_err)
            }),
            ..self
        }
    }

    /// The store with a page cache of `kib` KiB on its writer connection instead of
    /// [`Self::DEFAULT_WRITER_CACHE_KIB`]: an import sizes it from `memory_limit`, since it
    /// walks every index of a batch's rows at random places and the B-trees' inner pages
    /// of a large corpus are best kept in memory.
    pub fn with_writer_cache(self, kib: u32) -> Result<Self, StoreError> {
        if let Some(conn) = self.writer.lock().expect("writer lock").as_ref() {
            set_cache(conn, kib)?;
        }
        Ok(Self {
            writer_cache_kib: kib,
            ..self
        })
    }

    /// The store on `clock`, which dates the commits of import batches.
    pub fn with_clock(self, clock: SharedClock) -> Self {
        Self { clock, ..self }
    }

    /// `EXPLAIN QUERY PLAN` of one listing page, a line per step: shows that a page is an
    /// index range scan whatever its depth.
    pub fn explain_list(&self, request: &ListRequest) -> Result<Vec<String>, StoreError> {
        self.with_reader(|conn| read::explain_list(conn, request))
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn with_reader<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        // One read transaction per call: every query of it sees the same committed state.
        // A connection whose transaction could not be closed is not reused by the pool.
        self.readers.with(|conn| {
            let result = (|| {
                conn.execute_batch("BEGIN")?;
                let value = f(conn);
                conn.execute_batch("COMMIT")?;
                value
            })()
            .map_err(map_err);
            if !conn.is_autocommit() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            result
        })
    }

    fn with_writer<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        self.with_writer_as(|conn| f(conn).map_err(map_err))
    }

    /// [`Self::with_writer`] for work whose errors are not only SQLite's.
    fn with_writer_as<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut guard = self.writer.lock().expect("writer lock");
        if guard.is_none() {
            let conn = connect(&self.path)?;
            // SQLite silently opens a write-protected file read-only; keeping such a writer
            // would fail every write after the fault is gone.
            if conn.is_readonly(rusqlite::MAIN_DB).map_err(map_err)? {
                return Err(StoreError::Unavailable(format!(
                    "{} is read-only",
                    self.path.display()
                ))
                .into());
            }
            set_cache(&conn, self.writer_cache_kib)?;
            *guard = Some(conn);
        }
        let conn = guard.as_mut().expect("writer connection was just set");
        f(conn)
    }
}

/// Brings a database made by an earlier release up to the schema: `post_versions.deleted`
/// arrived with the crawler (corpus-format.md gained the post field `deleted`); the
/// observations are rekeyed by topic and `post_current` dropped once; the topic statistics are
/// backfilled once ([`topic_stats::backfill`]).
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let has_deleted: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('post_versions') WHERE name = 'deleted')",
        [],
        |row| row.get(0),
    )?;
    if !has_deleted {
        let added = conn.execute_batch(
            "ALTER TABLE post_versions ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0",
        );
        // Another process opening the same old database may have added it first.
        match added {
            Err(err) if err.to_string().contains("duplicate column name") => {}
            other => other?,
        }
    }
    rekey_observations(conn)?;
    drop_post_current(conn)?;
    topic_stats::backfill(conn)
}

/// Whether the corpus has the unique index of current post versions of earlier releases.
fn has_post_current(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'post_current')",
        [],
        |row| row.get(0),
    )
}

/// Drops the index `post_current` of earlier releases, once: every import batch rewrote most
/// of its pages (see `schema.sql`).
fn drop_post_current(conn: &Connection) -> rusqlite::Result<()> {
    migrate_once(conn, has_post_current, |tx| {
        tx.execute_batch("DROP INDEX post_current")
    })
}

/// Whether `observations` has a layout of earlier releases: keyed by `sha256` alone, or by
/// entity without the post's topic.
fn observations_without_topic(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT NOT EXISTS (SELECT 1 FROM pragma_table_info('observations')
                            WHERE name = 'topic_id')",
        [],
        |row| row.get(0),
    )
}

/// Rewrites an `observations` table of earlier releases with the topic-first key of
/// `schema.sql`, once. A post line's topic is that of its own version, or else of its post's
/// newest version (a line that lost to a newer one left no version). A line of a post that
/// moved topics and lost may so be kept under the newer topic: imported again, it counts
/// as new once, and loses again.
fn rekey_observations(conn: &Connection) -> rusqlite::Result<()> {
    migrate_once(conn, observations_without_topic, |tx| {
        tx.execute_batch("ALTER TABLE observations RENAME TO observations_before_topics")?;
        // Every statement of the schema is `IF NOT EXISTS`: only `observations` is new.
        tx.execute_batch(include_str!("corpus/schema.sql"))?;
        tx.execute_batch(
            "INSERT INTO observations (sha256, kind, topic_id, entity, observed_at, seq)
                 SELECT o.sha256, o.kind,
                        CASE WHEN o.kind = 'post' THEN COALESCE(
                            (SELECT topic_id FROM post_versions
                             WHERE post_id = CAST(o.entity AS INTEGER) AND sha256 = o.sha256),
                            (SELECT topic_id FROM post_versions
                             WHERE post_id = CAST(o.entity AS INTEGER)
                             ORDER BY valid_from DESC LIMIT 1),
                            0) ELSE 0 END AS topic_id,
                        o.entity, o.observed_at, o.seq
                 FROM observations_before_topics AS o
                 ORDER BY o.kind, topic_id, o.entity, o.sha256;
             DROP TABLE observations_before_topics;",
        )
    })
}

/// How long opening an older corpus waits for another process migrating it.
const MIGRATION_WAIT: Duration = Duration::from_secs(600);

/// Runs the migration step `step` when `needed` says the corpus lacks it. `needed` is asked
/// first without the write lock (a corpus opened while an import runs, or in a read-only
/// folder, need not wait for it) and again in the step's `BEGIN IMMEDIATE` transaction
/// (another process opening the same corpus may have done it meanwhile, while this one
/// waited). A busy database is tried again for up to [`MIGRATION_WAIT`].
fn migrate_once(
    conn: &Connection,
    needed: impl Fn(&Connection) -> rusqlite::Result<bool>,
    step: impl Fn(&rusqlite::Transaction<'_>) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    if !needed(conn)? {
        return Ok(());
    }
    let started = std::time::Instant::now();
    loop {
        let done = (|| {
            let tx = rusqlite::Transaction::new_unchecked(
                conn,
                rusqlite::TransactionBehavior::Immediate,
            )?;
            if needed(&tx)? {
                step(&tx)?;
            }
            tx.commit()
        })();
        match done {
            Err(err)
                if err.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
                    && started.elapsed() < MIGRATION_WAIT => {}
            other => return other,
        }
    }
}

/// Gives `conn` a page cache of `kib` KiB.
fn set_cache(conn: &Connection, kib: u32) -> Result<(), StoreError> {
    conn.execute_batch(&format!("PRAGMA cache_size = -{kib};"))
        .map_err(map_err)
}

/// The corpus database's connections: a 64 MiB page cache each (unless the store is given
/// another: [`SqliteCorpusStore::with_reader_cache`], [`SqliteCorpusStore::with_writer_cache`]), temporary structures in memory; a read-only file is found by the writer (`with_writer_as`), readers may read it.
const SETUP: Setup = Setup {
    name: "corpus",
    busy_timeout: Duration::from_secs(5),
    cache_kib: Some(SqliteCorpusStore::DEFAULT_READER_CACHE_KIB),
    temp_in_memory: true,
    foreign_keys: false,
    manual_checkpoints: false,
    refuse_read_only: false,
};

fn connect(path: &Path) -> Result<Connection, StoreError> {
    crate::connect(path, &SETUP).map_err(map_err)
}

/// Maps SQLite failures onto the store's two kinds: busy (locks) and unavailable (the rest).
pub(crate) fn map_err(err: rusqlite::Error) -> StoreError {
    match err.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            StoreError::Busy(err.to_string())
        }
        _ => StoreError::Unavailable(err.to_string()),
    }
}

impl CorpusRead for SqliteCorpusStore {
    fn latest_seq(&self) -> Result<i64, StoreError> {
        self.with_reader(read::latest_seq)
    }

    fn sequence_created_at(&self, seq: i64) -> Result<Option<Millis>, StoreError> {
        self.with_reader(|conn| read::sequence_created_at(conn, seq))
    }

    fn post(&self, post_id: i64, seq: i64) -> Result<Option<PostDoc>, StoreError> {
        self.with_reader(|conn| read::post(conn, post_id, seq))
    }

    fn posts(&self, post_ids: &[i64], seq: i64) -> Result<HashMap<i64, PostDoc>, StoreError> {
        self.with_reader(|conn| read::posts(conn, post_ids, seq))
    }

    fn live_posts(&self, post_ids: &[i64], seq: i64) -> Result<HashMap<i64, PostDoc>, StoreError> {
        self.with_reader(|conn| read::live_posts(conn, post_ids, seq))
    }

    fn topic(&self, topic_id: i64, seq: i64) -> Result<Option<TopicDoc>, StoreError> {
        self.with_reader(|conn| topic::topic(conn, topic_id, seq))
    }

    fn profile(&self, profile_id: i64, seq: i64) -> Result<Option<ProfileDoc>, StoreError> {
        self.with_reader(|conn| read::profile(conn, profile_id, seq))
    }

    fn scope_exists(&self, scope: Scope, seq: i64) -> Result<bool, StoreError> {
        self.with_reader(|conn| read::scope_exists(conn, scope, seq))
    }

    fn list_posts(&self, request: &ListRequest, seq: i64) -> Result<ListPage, StoreError> {
        self.with_reader(|conn| read::list_posts(conn, request, seq))
    }

    fn posts_changed(
        &self,
        since: i64,
        upto: i64,
        after: ChangePosition,
        limit: usize,
    ) -> Result<Vec<(ChangePosition, PostChange)>, StoreError> {
        self.with_reader(|conn| read::posts_changed(conn, since, upto, after, limit))
    }

    fn takedowns_in_force(&self) -> Result<TakedownSet, StoreError> {
        self.with_reader(takedowns::in_force)
    }

    fn takedowns(&self) -> Result<Vec<Takedown>, StoreError> {
        self.with_reader(takedowns::all)
    }

    fn cached_images(
        &self,
        source_urls: &[&str],
        seq: i64,
    ) -> Result<HashMap<String, CachedImage>, StoreError> {
        self.with_reader(|conn| read::cached_images(conn, source_urls, seq))
    }

    fn counts(&self, seq: i64) -> Result<CorpusCounts, StoreError> {
        self.with_reader(|conn| read::counts(conn, seq))
    }
}

impl CorpusWrite for SqliteCorpusStore {
    fn import_batch(
        &self,
        observations: &[Observation],
        now: Millis,
    ) -> Result<BatchOutcome, StoreError> {
        self.with_writer(|conn| write::import_batch(conn, observations, now, &*self.clock))
    }

    fn pending_images(
        &self,
        after_vid: i64,
        limit: usize,
    ) -> Result<Vec<PendingImage>, StoreError> {
        self.with_reader(|conn| read::pending_images(conn, after_vid, limit))
    }

    fn record_image_objects(&self, objects: &[(Vec<u8>, ImageObject)]) -> Result<(), StoreError> {
        self.with_writer(|conn| write::record_image_objects(conn, objects))
    }

    fn add_takedown(
        &self,
        target: TakedownTarget,
        reason: &str,
        now: Millis,
    ) -> Result<Takedown, TakedownError> {
        let reason = check_reason(reason, true)?;
        self.with_writer_as(|conn| takedowns::add(conn, target, reason, now))
    }

    fn lift_takedown(
        &self,
        takedown_id: i64,
        reason: &str,
        now: Millis,
    ) -> Result<Takedown, TakedownError> {
        let reason = check_reason(reason, false)?;
        self.with_writer_as(|conn| takedowns::lift(conn, takedown_id, reason, now))
    }
}

impl CorpusMaintenance for SqliteCorpusStore {
    fn collect_garbage(&self, horizon: Millis) -> Result<usize, StoreError> {
        self.with_writer(|conn| write::collect_garbage(conn, horizon))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writer_cache_size(store: &SqliteCorpusStore) -> i64 {
        store
            .with_writer_as(|conn| {
                conn.query_row("PRAGMA cache_size", [], |row| row.get(0))
                    .map_err(map_err)
            })
            .expect("pragma")
    }

    #[test]
    fn the_writer_keeps_its_page_cache_size_when_reopened() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteCorpusStore::open(dir.path()).expect("open");
        assert_eq!(
            writer_cache_size(&store),
            -i64::from(SqliteCorpusStore::DEFAULT_WRITER_CACHE_KIB)
        );
        let store = store.with_writer_cache(12_345).expect("sized");
        assert_eq!(writer_cache_size(&store), -12_345);
        // A writer dropped after a fault is reopened with the same cache.
        *store.writer.lock().expect("writer lock") = None;
        assert_eq!(writer_cache_size(&store), -12_345);
    }
}
