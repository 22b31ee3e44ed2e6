//! [`SearchSync`]: where the node's search indexes stand, as the background sync's last pass
//! left them; callers wait on it as an event instead of polling. It also says whether the
//! node may answer searches yet: not before its indexes have caught up with the corpus as it
//! was when the node started, so a new node never sells empty results.

use std::sync::atomic::{AtomicBool, Ordering};

use forumdex_search::SearchIndexes;
use tokio::sync::watch;

use crate::error::ApiError;

/// The corpus sequence the search indexes reflect, as of the sync task's last pass, and
/// whether they have caught up once.
#[derive(Debug)]
pub struct SearchSync {
    synced_seq: watch::Sender<i64>,
    /// The corpus's newest sequence when the node started.
    start_seq: i64,
    /// Set once the indexes reached `start_seq`; from then on they lag the corpus by at most
    /// a sync interval.
    caught_up: AtomicBool,
}

impl SearchSync {
    /// Where the indexes stand on a node whose corpus was at `start_seq` when it started.
    pub fn new(start_seq: i64) -> Self {
        Self {
            synced_seq: watch::Sender::new(0),
            start_seq,
            caught_up: AtomicBool::new(false),
        }
    }

    /// The sequence the last completed pass reached (0 before the first).
    pub fn synced_seq(&self) -> i64 {
        *self.synced_seq.borrow()
    }

    /// Resolves once a pass has brought the indexes to `seq` or beyond.
    pub async fn wait_for(&self, seq: i64) {
        let mut receiver = self.synced_seq.subscribe();
        // The sender lives in `self`, so the channel cannot close while this waits.
        let _ = receiver.wait_for(|synced| *synced >= seq).await;
    }

    /// Resolves once a background pass has brought the indexes to the corpus as it was when
    /// the node started.
    pub async fn wait_caught_up(&self) {
        self.wait_for(self.start_seq).await;
    }

    /// Tells the waiters that a pass brought the indexes to `seq`.
    pub(crate) fn publish(&self, seq: i64) {
        if seq >= self.start_seq {
            self.caught_up.store(true, Ordering::Relaxed);
        }
        self.synced_seq.send_replace(seq);
    }

    /// Whether `indexes` have caught up with the corpus as it was when the node started
    /// (whoever synced them: this node's background pass, or an import on this folder).
    /// Once true, true for good.
    pub fn caught_up(&self, indexes: &SearchIndexes) -> bool {
        if self.caught_up.load(Ordering::Relaxed) {
            return true;
        }
        let on_disk = indexes.synced_seq().unwrap_or(0);
        if on_disk.max(self.synced_seq()) >= self.start_seq {
            self.caught_up.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// A 503 (nothing charged) while the indexes have not [`caught up`](Self::caught_up).
    pub fn require_caught_up(&self, indexes: &SearchIndexes) -> Result<(), ApiError> {
        if self.caught_up(indexes) {
            Ok(())
        } else {
            Err(ApiError::Unavailable(
                "search is starting: this node's indexes are catching up with the corpus; retry \
                 in a few seconds"
                    .to_owned(),
            ))
        }
    }
}
