//! Per-key usage for the dashboard: every `/api/v1` request whose key was recognised (any
//! status: 200, 400, 402, 403, 404, 429, a 401 for an expired or revoked key...) is counted
//! in memory by key, UTC day, route and status, and the background task adds the counts to
//! the store every second (one write for many requests, off the request path). Counts not
//! yet flushed when the process dies are lost: usage is for people, the ledger is the
//! account of money.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, NaiveDate, Utc};
use forumdex_accounts::{DeveloperStore, KeyId, UsageCount};

/// Pending counts before they have no bound, in distinct rows (a flood of distinct keys
/// cannot grow memory without limit: past it, counts are dropped with a warning).
const MAX_PENDING_ROWS: usize = 100_000;

type Row = (KeyId, NaiveDate, String, u16);

/// Counts not yet in the store.
#[derive(Debug, Default)]
pub struct UsageRecorder {
    pending: Mutex<HashMap<Row, (u64, DateTime<Utc>)>>,
}

impl UsageRecorder {
    /// Counts one request of `key` to `endpoint` answered `status` at `at`.
    pub fn record(&self, key: &KeyId, endpoint: &str, status: u16, at: DateTime<Utc>) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let row = (key.clone(), at.date_naive(), endpoint.to_owned(), status);
        if pending.len() >= MAX_PENDING_ROWS && !pending.contains_key(&row) {
            tracing::warn!("usage counts are not being flushed; dropping one");
            return;
        }
        let entry = pending.entry(row).or_insert((0, at));
        entry.0 += 1;
        entry.1 = entry.1.max(at);
    }

    fn take(&self) -> Vec<UsageCount> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending
            .drain()
            .map(
                |((key_id, day, endpoint, status), (count, last_at))| UsageCount {
                    key_id,
                    day,
                    endpoint,
                    status,
                    count,
                    last_at,
                },
            )
            .collect()
    }

    fn put_back(&self, counts: Vec<UsageCount>) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        for count in counts {
            let row = (count.key_id, count.day, count.endpoint, count.status);
            let entry = pending.entry(row).or_insert((0, count.last_at));
            entry.0 += count.count;
            entry.1 = entry.1.max(count.last_at);
        }
    }

    /// Adds the pending counts to `store` (on the blocking pool); on failure they stay
    /// pending for the next flush.
    pub async fn flush(&self, store: &Arc<dyn DeveloperStore>) {
        let counts = self.take();
        if counts.is_empty() {
            return;
        }
        let writer = Arc::clone(store);
        let result = tokio::task::spawn_blocking(move || {
            let outcome = writer.record_usage(&counts);
            (outcome, counts)
        })
        .await;
        match result {
            Ok((Ok(()), _)) => {}
            Ok((Err(err), counts)) => {
                tracing::warn!(error = %err, "usage counts not written; retrying");
                self.put_back(counts);
            }
            Err(err) => tracing::warn!(error = %err, "usage flush task failed"),
        }
    }
}
