//! The corpus seams, split by who may call what: [`CorpusRead`] (the API and the search
//! sync), [`CorpusWrite`] (imports) and [`CorpusMaintenance`] (garbage collection). Shaped
//! by the domain so that a PostgreSQL implementation can follow the SQLite one; the rules
//! that are not storage's (derived values) live in [`crate::derive`].

use std::collections::HashMap;

use crate::model::*;
use crate::record::Observation;
use crate::takedown::{Takedown, TakedownError, TakedownSet, TakedownTarget};
use crate::time::Millis;

pub use crate::error::StoreError;

/// The read side of a corpus with MVCC snapshots: everything the API and the search sync
/// read. The HTTP layer holds only this trait, so it cannot write the corpus. All methods
/// block; call them off async threads.
///
/// What the API is served leaves out posts whose canonical version is a deletion and
/// everything under a takedown in force, at every sequence: a takedown is not versioned, so
/// no snapshot taken before it brings the content back.
pub trait CorpusRead: Send + Sync {
    /// The newest committed sequence.
    fn latest_seq(&self) -> Result<i64, StoreError>;

    /// The newest committed sequence, frozen at `now`.
    fn snapshot(&self, now: Millis) -> Result<Snapshot, StoreError> {
        Ok(Snapshot {
            seq: self.latest_seq()?,
            taken_at: now,
        })
    }

    /// When sequence `seq` was committed (`None` for an unknown sequence).
    fn sequence_created_at(&self, seq: i64) -> Result<Option<Millis>, StoreError>;

    /// The canonical post at `seq`.
    fn post(&self, post_id: i64, seq: i64) -> Result<Option<PostDoc>, StoreError>;

    /// The canonical posts among `post_ids` at `seq`, in one read, by post ID (unknown IDs
    /// are left out).
    fn posts(&self, post_ids: &[i64], seq: i64) -> Result<HashMap<i64, PostDoc>, StoreError>;

    /// The live posts among `post_ids` at `seq`, takedowns included, by post ID: what the
    /// search sync indexes again when it corrects a document (it indexes what
    /// [`CorpusRead::posts_changed`] lists, which takedowns do not touch).
    fn live_posts(&self, post_ids: &[i64], seq: i64) -> Result<HashMap<i64, PostDoc>, StoreError>;

    /// The topic at `seq`, with its derived values.
    fn topic(&self, topic_id: i64, seq: i64) -> Result<Option<TopicDoc>, StoreError>;

    /// The profile at `seq`, with its derived values.
    fn profile(&self, profile_id: i64, seq: i64) -> Result<Option<ProfileDoc>, StoreError>;

    /// Whether a topic or profile exists at `seq` (a record or a post names it).
    fn scope_exists(&self, scope: Scope, seq: i64) -> Result<bool, StoreError>;

    /// One keyset page of a listing at `seq`; its cost does not grow with depth.
    fn list_posts(&self, request: &ListRequest, seq: i64) -> Result<ListPage, StoreError>;

    /// Posts whose canonical version changed in sequences `(since, upto]`, as visible at
    /// `upto`, in (sequence, post ID) order after `after`, at most `limit`: what an index
    /// kept in step with the corpus must (re)index or drop. `since = 0` lists every post.
    /// Takedowns do not show here (they are not versioned): searches leave them out with
    /// [`CorpusRead::takedowns_in_force`].
    fn posts_changed(
        &self,
        since: i64,
        upto: i64,
        after: ChangePosition,
        limit: usize,
    ) -> Result<Vec<(ChangePosition, PostChange)>, StoreError>;

    /// The takedowns in force now, by kind: what a search must leave out.
    fn takedowns_in_force(&self) -> Result<TakedownSet, StoreError>;

    /// Every takedown ever recorded, lifted ones included, oldest first.
    fn takedowns(&self) -> Result<Vec<Takedown>, StoreError>;

    /// The cached objects of those of `source_urls` whose canonical image record at `seq`
    /// has one, by URL.
    fn cached_images(
        &self,
        source_urls: &[&str],
        seq: i64,
    ) -> Result<HashMap<String, CachedImage>, StoreError>;

    /// Canonical entity counts at `seq`.
    fn counts(&self, seq: i64) -> Result<CorpusCounts, StoreError>;
}

/// The write side: what an import (and its image stage) does. Only importers hold it.
pub trait CorpusWrite: CorpusRead {
    /// Applies one batch atomically under the next sequence number (none when nothing in it
    /// is new). `now` becomes the versions' `indexed_at`; the sequence's creation time is
    /// the later of `now` and the commit time (garbage collection depends on it).
    fn import_batch(
        &self,
        observations: &[Observation],
        now: Millis,
    ) -> Result<BatchOutcome, StoreError>;

    /// Current image records with a file but no cached object, in `vid` order after
    /// `after_vid`, at most `limit`: what the image stage of an import must encode.
    fn pending_images(&self, after_vid: i64, limit: usize)
    -> Result<Vec<PendingImage>, StoreError>;

    /// Records the objects made from image records, by the records' line hashes.
    fn record_image_objects(&self, objects: &[(Vec<u8>, ImageObject)]) -> Result<(), StoreError>;

    /// Takes `target` out of the service from the next read on, recording `reason` and
    /// `now`. Refused when the target already has a takedown in force, or the reason is
    /// empty or longer than [`crate::takedown::MAX_REASON_CHARS`].
    fn add_takedown(
        &self,
        target: TakedownTarget,
        reason: &str,
        now: Millis,
    ) -> Result<Takedown, TakedownError>;

    /// Lifts takedown `takedown_id`, recording `reason` (may be empty) and `now`. Refused
    /// when no takedown in force has that ID.
    fn lift_takedown(
        &self,
        takedown_id: i64,
        reason: &str,
        now: Millis,
    ) -> Result<Takedown, TakedownError>;
}

/// Maintenance: what the server's background collector does.
pub trait CorpusMaintenance: Send + Sync {
    /// Deletes superseded versions that no snapshot younger than `horizon` can see; returns
    /// how many were deleted.
    fn collect_garbage(&self, horizon: Millis) -> Result<usize, StoreError>;
}
