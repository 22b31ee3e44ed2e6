//! [`PgCorpusStore`]: the corpus on PostgreSQL (schema version 2 of [`crate::schema`]),
//! shared by every node of a deployment, with exactly the behaviour of the embedded store
//! (forumdex-corpus's `sqlite` module, which this one follows module by module): the same
//! MVCC by import sequence, canonical rule, keyset pages, topic statistics, takedowns and
//! garbage collection; derived values go through [`forumdex_corpus::derive`].
//!
//! - **Reads** run in one read-only repeatable-read transaction per call (one snapshot of
//!   the database for every statement of the call), so they never wait for an import.
//! - **Writes** of the single-writer kind (imports, image objects, takedowns) run at read
//!   committed under one transaction-scoped advisory lock ([`WRITER_LOCK`]): one writer at
//!   a time across every node, as SQLite's `BEGIN IMMEDIATE` makes it on one machine. Each
//!   statement after the lock sees every earlier writer's commit, and an import takes the
//!   next sequence number under the lock, so sequences are dense and commit in order: a
//!   reader that sees sequence N sees every batch up to N.
//! - **Garbage collection** runs on one node at a time under its own advisory lock
//!   ([`PgCorpusStore::COLLECTOR_LOCK`], taken without waiting); it deletes only versions
//!   that no writer touches any more, so it need not exclude imports.

mod read;
mod sql;
mod takedowns;
mod topic;
mod topic_posts;
mod topic_stats;
mod versions;
mod write;

use std::collections::HashMap;

use forumdex_clock::{SharedClock, SystemClock};
use forumdex_corpus::takedown::check_reason;
use forumdex_corpus::{
    BatchOutcome, CachedImage, ChangePosition, CorpusCounts, CorpusMaintenance, CorpusRead,
    CorpusWrite, ImageObject, ListPage, ListRequest, Millis, Observation, PendingImage, PostChange,
    PostDoc, ProfileDoc, Scope, StoreError, Takedown, TakedownError, TakedownSet, TakedownTarget,
    TopicDoc,
};
use postgres::Transaction;

use crate::pool::{Failure, FromDb, Isolation, PgError, PgPool};
use crate::schema;

/// A step's result inside a transaction of this store.
type Step<T> = Result<T, Failure<StoreError>>;

/// The advisory lock every writer of the single-writer kind holds for its transaction
/// ("fdxwrite" in ASCII).
const WRITER_LOCK: i64 = 0x6664_7877_7269_7465;

/// The PostgreSQL corpus store ([`CorpusRead`], [`CorpusWrite`], [`CorpusMaintenance`]).
/// Cheap to share behind an `Arc`; safe from many threads and many nodes at once.
#[derive(Debug)]
pub struct PgCorpusStore {
    pool: PgPool,
    /// Tells each sequence its commit time.
    clock: SharedClock,
}

impl PgCorpusStore {
    /// The advisory lock held by the one node collecting garbage ("fdxcolgc" in ASCII);
    /// shown in `pg_locks` while it runs.
    pub const COLLECTOR_LOCK: i64 = 0x6664_7863_6f6c_6763;

    /// Connects to the database at `url`, whose schema must be this binary's (see
    /// [`schema::migrate`]).
    pub fn open(url: &str) -> Result<Self, PgError> {
        Self::with_pool(PgPool::connect(url)?)
    }

    /// The store over `pool`, whose schema must be this binary's, on the system clock
    /// ([`Self::with_clock`] gives it another).
    pub fn with_pool(pool: PgPool) -> Result<Self, PgError> {
        schema::check(&pool)?;
        Ok(Self {
            pool,
            clock: SystemClock::shared(),
        })
    }

    /// The store on `clock`, which dates the commits of import batches.
    pub fn with_clock(self, clock: SharedClock) -> Self {
        Self { clock, ..self }
    }

    /// `EXPLAIN` of one listing page at the newest sequence, a line per plan node: shows
    /// that a page is an index range scan whatever its depth. The page is planned as
    /// [`CorpusRead::list_posts`] runs it (a cursor, with the request's own values).
    pub fn explain_list(&self, request: &ListRequest) -> Result<Vec<String>, StoreError> {
        self.read(|tx| {
            let seq = read::latest_seq(tx)?;
            read::explain_list(tx, request, seq)
        })
    }

    /// Runs `work` on one consistent snapshot, read only.
    fn read<T>(&self, work: impl FnMut(&mut Transaction<'_>) -> Step<T>) -> Result<T, StoreError> {
        self.pool.transaction(Isolation::Snapshot, work)
    }

    /// Runs `work` as the one writer of the deployment: at read committed, after taking
    /// [`WRITER_LOCK`] (released at commit or rollback).
    fn write<T, E: FromDb>(
        &self,
        mut work: impl FnMut(&mut Transaction<'_>) -> Result<T, Failure<E>>,
    ) -> Result<T, E> {
        self.pool.transaction(Isolation::ReadCommitted, |tx| {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITER_LOCK])?;
            work(tx)
        })
    }
}

/// Stored data that does not decode: a bug or a hand-edited database.
fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(format!("corrupt corpus database: {what}"))
}

/// A count or size for a bound parameter (saturating: no database holds more).
fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl From<StoreError> for Failure<StoreError> {
    fn from(err: StoreError) -> Self {
        Self::Refused(err)
    }
}

impl From<TakedownError> for Failure<TakedownError> {
    fn from(err: TakedownError) -> Self {
        Self::Refused(err)
    }
}

impl From<Failure<StoreError>> for Failure<TakedownError> {
    fn from(err: Failure<StoreError>) -> Self {
        match err {
            Failure::Db(err) => Self::Db(err),
            Failure::Refused(err) => Self::Refused(err.into()),
        }
    }
}

impl CorpusRead for PgCorpusStore {
    fn latest_seq(&self) -> Result<i64, StoreError> {
        self.read(read::latest_seq)
    }

    fn sequence_created_at(&self, seq: i64) -> Result<Option<Millis>, StoreError> {
        self.read(|tx| read::sequence_created_at(tx, seq))
    }

    fn post(&self, post_id: i64, seq: i64) -> Result<Option<PostDoc>, StoreError> {
        self.read(|tx| read::post(tx, post_id, seq))
    }

    fn posts(&self, post_ids: &[i64], seq: i64) -> Result<HashMap<i64, PostDoc>, StoreError> {
        self.read(|tx| read::posts(tx, post_ids, seq))
    }

    fn live_posts(&self, post_ids: &[i64], seq: i64) -> Result<HashMap<i64, PostDoc>, StoreError> {
        self.read(|tx| read::live_posts(tx, post_ids, seq))
    }

    fn topic(&self, topic_id: i64, seq: i64) -> Result<Option<TopicDoc>, StoreError> {
        self.read(|tx| topic::topic(tx, topic_id, seq))
    }

    fn profile(&self, profile_id: i64, seq: i64) -> Result<Option<ProfileDoc>, StoreError> {
        self.read(|tx| read::profile(tx, profile_id, seq))
    }

    fn scope_exists(&self, scope: Scope, seq: i64) -> Result<bool, StoreError> {
        self.read(|tx| read::scope_exists(tx, scope, seq))
    }

    fn list_posts(&self, request: &ListRequest, seq: i64) -> Result<ListPage, StoreError> {
        self.read(|tx| read::list_posts(tx, request, seq))
    }

    fn posts_changed(
        &self,
        since: i64,
        upto: i64,
        after: ChangePosition,
        limit: usize,
    ) -> Result<Vec<(ChangePosition, PostChange)>, StoreError> {
        self.read(|tx| read::posts_changed(tx, since, upto, after, limit))
    }

    fn takedowns_in_force(&self) -> Result<TakedownSet, StoreError> {
        self.read(takedowns::in_force)
    }

    fn takedowns(&self) -> Result<Vec<Takedown>, StoreError> {
        self.read(takedowns::all)
    }

    fn cached_images(
        &self,
        source_urls: &[&str],
        seq: i64,
    ) -> Result<HashMap<String, CachedImage>, StoreError> {
        self.read(|tx| read::cached_images(tx, source_urls, seq))
    }

    fn counts(&self, seq: i64) -> Result<CorpusCounts, StoreError> {
        self.read(|tx| read::counts(tx, seq))
    }
}

impl CorpusWrite for PgCorpusStore {
    fn import_batch(
        &self,
        observations: &[Observation],
        now: Millis,
    ) -> Result<BatchOutcome, StoreError> {
        self.write(|tx| write::import_batch(tx, observations, now, &*self.clock))
    }

    fn pending_images(
        &self,
        after_vid: i64,
        limit: usize,
    ) -> Result<Vec<PendingImage>, StoreError> {
        self.read(|tx| read::pending_images(tx, after_vid, limit))
    }

    fn record_image_objects(&self, objects: &[(Vec<u8>, ImageObject)]) -> Result<(), StoreError> {
        self.write(|tx| write::record_image_objects(tx, objects))
    }

    fn add_takedown(
        &self,
        target: TakedownTarget,
        reason: &str,
        now: Millis,
    ) -> Result<Takedown, TakedownError> {
        let reason = check_reason(reason, true)?;
        self.write(|tx| takedowns::add(tx, target, reason, now))
    }

    fn lift_takedown(
        &self,
        takedown_id: i64,
        reason: &str,
        now: Millis,
    ) -> Result<Takedown, TakedownError> {
        let reason = check_reason(reason, false)?;
        self.write(|tx| takedowns::lift(tx, takedown_id, reason, now))
    }
}

impl CorpusMaintenance for PgCorpusStore {
    /// As the embedded store's, on the one node that holds [`Self::COLLECTOR_LOCK`]: a
    /// node that finds another collecting returns 0 at once (it collected nothing; the
    /// other node deletes what was due).
    fn collect_garbage(&self, horizon: Millis) -> Result<usize, StoreError> {
        self.pool.transaction(Isolation::ReadCommitted, |tx| {
            let row = tx.query_one(
                "SELECT pg_try_advisory_xact_lock($1)",
                &[&Self::COLLECTOR_LOCK],
            )?;
            if !row.get::<_, bool>(0) {
                return Ok(0);
            }
            write::collect_garbage(tx, horizon)
        })
    }
}
