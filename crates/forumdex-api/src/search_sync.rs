//! [`SearchSync`]: where the node's search indexes stand, as the background sync's last pass
//! left them; callers wait on it as an event instead of polling.

use tokio::sync::watch;

/// The corpus sequence the search indexes reflect, as of the sync task's last pass.
#[derive(Debug)]
pub struct SearchSync {
    synced_seq: watch::Sender<i64>,
}

impl Default for SearchSync {
    fn default() -> Self {
        Self {
            synced_seq: watch::Sender::new(0),
        }
    }
}

impl SearchSync {
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

    /// Tells the waiters that a pass brought the indexes to `seq`.
    pub(crate) fn publish(&self, seq: i64) {
        self.synced_seq.send_replace(seq);
    }
}
