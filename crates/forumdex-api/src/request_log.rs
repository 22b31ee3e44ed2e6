//! The request log the dashboard shows a developer (`/dashboard/requests`): every
//! `/api/v1` request whose key was recognised, with its request id, path and query (cursors
//! left out: they are bearer tokens of a walk), status, credits, latency and client address.
//! Requests are kept in memory and written by the background task every second (one write
//! for many requests, off the request path), and requests older than `request_log_days`
//! are pruned. Like usage counts, requests not yet written when the process dies are lost.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use forumdex_accounts::{DeveloperStore, LoggedRequest};

/// Requests waiting to be written, at most (past it, new ones are dropped with a warning
/// rather than growing memory without limit when the store is down).
const MAX_PENDING: usize = 100_000;
/// The longest path kept, in bytes (a longer one is cut at a character boundary).
const MAX_PATH: usize = 500;

/// Requests not yet in the store.
#[derive(Debug, Default)]
pub struct RequestLog {
    pending: Mutex<Vec<LoggedRequest>>,
}

impl RequestLog {
    /// Keeps `request` for the next write.
    pub fn record(&self, request: LoggedRequest) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if pending.len() >= MAX_PENDING {
            tracing::warn!("the request log is not being written; dropping a request");
            return;
        }
        pending.push(request);
    }

    /// Writes the pending requests to `store` (on the blocking pool); on failure they stay
    /// pending for the next write.
    pub async fn flush(&self, store: &Arc<dyn DeveloperStore>) {
        let requests = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if requests.is_empty() {
            return;
        }
        let writer = Arc::clone(store);
        let result = tokio::task::spawn_blocking(move || {
            let outcome = writer.record_requests(&requests);
            (outcome, requests)
        })
        .await;
        match result {
            Ok((Ok(()), _)) => {}
            Ok((Err(err), requests)) => {
                tracing::warn!(error = %err, "request log not written; retrying");
                let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                let room = MAX_PENDING.saturating_sub(pending.len());
                pending.extend(requests.into_iter().take(room));
            }
            Err(err) => tracing::warn!(error = %err, "request log task failed"),
        }
    }
}

/// Deletes the logged requests older than `days` days before `now`.
pub async fn prune(store: &Arc<dyn DeveloperStore>, days: u32, now: DateTime<Utc>) {
    let store = Arc::clone(store);
    let before = now - Duration::days(i64::from(days));
    match tokio::task::spawn_blocking(move || store.prune_requests(before)).await {
        Ok(Ok(0)) => {}
        Ok(Ok(deleted)) => tracing::info!(deleted, days, "pruned the request log"),
        Ok(Err(err)) => tracing::warn!(error = %err, "pruning the request log failed"),
        Err(err) => tracing::warn!(error = %err, "request log pruning task failed"),
    }
}

/// A request's path and query as the log keeps it: every `cursor` value left out, at most
/// [`MAX_PATH`] bytes.
pub fn logged_path(path: &str, query: Option<&str>) -> String {
    let mut logged = path.to_owned();
    if let Some(query) = query.filter(|query| !query.is_empty()) {
        let pairs: Vec<&str> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some(("cursor", _)) => "cursor=…",
                _ => pair,
            })
            .collect();
        logged.push('?');
        logged.push_str(&pairs.join("&"));
    }
    if logged.len() > MAX_PATH {
        let mut end = MAX_PATH;
        while !logged.is_char_boundary(end) {
            end -= 1;
        }
        logged.truncate(end);
        logged.push('…');
    }
    logged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_left_out_and_long_paths_cut() {
        assert_eq!(
            logged_path(
                "/api/v1/topics/5/posts",
                Some("limit=10&cursor=abc.def&order=asc")
            ),
            "/api/v1/topics/5/posts?limit=10&cursor=…&order=asc"
        );
        assert_eq!(logged_path("/api/v1/posts/28", None), "/api/v1/posts/28");
        let long = logged_path("/api/v1/search", Some(&format!("q={}", "é".repeat(400))));
        assert!(long.len() <= MAX_PATH + '…'.len_utf8());
        assert!(long.ends_with('…'));
    }
}
