//! The server's background work: garbage collection of superseded corpus versions, the
//! search sync that keeps the node's indexes up with the corpus (publishing where they
//! stand to [`SearchSync`](crate::search_sync::SearchSync), so callers wait on an event instead of polling),
//! and the embedding of new index segments for the semantic leg, on a blocking thread of
//! its own so that searches never wait for it.

use std::sync::Arc;
use std::time::Duration;

use forumdex_corpus::{CorpusMaintenance, Millis};
use forumdex_search::Indexer;
use tokio::task::JoinHandle;

use crate::app::App;
use crate::request_log;

/// How often superseded corpus versions are collected.
const GC_EVERY: Duration = Duration::from_secs(60);
/// How often per-key usage counts and the request log are written.
const USAGE_EVERY: Duration = Duration::from_secs(1);
/// How often the request log is pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(600);
/// How often balances are checked against the developers' low-balance thresholds.
const ALERT_EVERY: Duration = Duration::from_secs(60);

/// The running background tasks; dropping it stops them.
#[derive(Debug)]
pub struct Background {
    tasks: Vec<JoinHandle<()>>,
}

impl Background {
    /// Starts the collector (with the corpus's maintenance side) and the search sync.
    pub fn spawn(app: &Arc<App>, maintenance: Arc<dyn CorpusMaintenance>) -> Self {
        Self {
            tasks: vec![
                tokio::spawn(collect_garbage(Arc::clone(app), maintenance)),
                tokio::spawn(sync_search(Arc::clone(app))),
                tokio::spawn(embed_posts(Arc::clone(app))),
                tokio::spawn(flush_usage(Arc::clone(app))),
            ],
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Writes the usage counts and the request log every second; mails low-balance alerts every
/// minute; prunes the request log at start and every ten minutes.
async fn flush_usage(app: Arc<App>) {
    let mut every = tokio::time::interval(USAGE_EVERY);
    let mut pruned_at: Option<tokio::time::Instant> = None;
    let mut alerted_at: Option<tokio::time::Instant> = None;
    loop {
        every.tick().await;
        app.usage.flush(&app.developers).await;
        app.request_log.flush(&app.developers).await;
        if alerted_at.is_none_or(|at| at.elapsed() >= ALERT_EVERY) {
            forumdex_dashboard::alerts::send_low_balance_alerts(&app.dashboard).await;
            alerted_at = Some(tokio::time::Instant::now());
        }
        if pruned_at.is_none_or(|at| at.elapsed() >= PRUNE_EVERY) {
            let days = app.settings.dashboard.request_log_days;
            request_log::prune(&app.developers, days, app.clock.now()).await;
            pruned_at = Some(tokio::time::Instant::now());
        }
    }
}

/// Collects corpus versions no live snapshot can see, and deletes expired dashboard sessions
/// and emailed tokens, once a minute.
async fn collect_garbage(app: Arc<App>, maintenance: Arc<dyn CorpusMaintenance>) {
    let lifetime_ms = app.settings.server.snapshot_seconds as i64 * 1000;
    loop {
        tokio::time::sleep(GC_EVERY).await;
        let maintenance = Arc::clone(&maintenance);
        let horizon = Millis(Millis::now(&*app.clock).0 - lifetime_ms);
        match tokio::task::spawn_blocking(move || maintenance.collect_garbage(horizon)).await {
            Ok(Ok(0)) => {}
            Ok(Ok(deleted)) => tracing::info!(deleted, "collected superseded corpus versions"),
            Ok(Err(err)) => tracing::warn!(error = %err, "corpus garbage collection failed"),
            Err(err) => tracing::warn!(error = %err, "corpus garbage collection task failed"),
        }
        let developers = Arc::clone(&app.developers);
        let now = app.clock.now();
        let idle = chrono::Duration::seconds(app.settings.dashboard.session_idle_seconds as i64);
        match tokio::task::spawn_blocking(move || developers.purge_expired(now, idle)).await {
            Ok(Ok(0)) => {}
            Ok(Ok(deleted)) => tracing::info!(deleted, "purged expired sessions and tokens"),
            Ok(Err(err)) => tracing::warn!(error = %err, "purging expired sessions failed"),
            Err(err) => tracing::warn!(error = %err, "purging expired sessions task failed"),
        }
    }
}

/// Asks the node's [`Indexer`] to catch up with the corpus at start and every
/// [`Indexer::SERVING_INTERVAL`], so an import is searchable within seconds; publishes each
/// pass's sequence.
async fn sync_search(app: Arc<App>) {
    let indexer = Indexer::new(Arc::clone(&app.search), Arc::clone(&app.corpus));
    loop {
        let pass = indexer.clone();
        match tokio::task::spawn_blocking(move || pass.catch_up()).await {
            Ok(Ok(report)) => {
                if report.posts_indexed > 0 {
                    tracing::info!(
                        posts = report.posts_indexed,
                        synced_seq = report.synced_seq,
                        "search indexes synced"
                    );
                }
                app.search_sync.publish(report.synced_seq);
            }
            Ok(Err(err)) => tracing::warn!(error = %err, "search index sync failed"),
            Err(err) => tracing::warn!(error = %err, "search index sync task failed"),
        }
        tokio::time::sleep(Indexer::SERVING_INTERVAL).await;
    }
}

/// Embeds the index segments that have no vectors yet (at start: those of a data folder
/// never embedded, or embedded with another model), then, every
/// [`Indexer::SERVING_INTERVAL`], those new syncs and merges made. One pass at a time, on
/// one blocking thread; a segment serves semantically as soon as it is done.
async fn embed_posts(app: Arc<App>) {
    let Some(semantic) = app.search.semantic().cloned() else {
        return;
    };
    loop {
        let (semantic, indexes) = (Arc::clone(&semantic), Arc::clone(&app.search));
        let pass = move || semantic.embed_missing(&indexes, &mut |_| {});
        match tokio::task::spawn_blocking(pass).await {
            Ok(Ok(report)) => {
                if report.segments_embedded + report.segments_loaded > 0 {
                    tracing::info!(
                        segments_embedded = report.segments_embedded,
                        docs_embedded = report.docs_embedded,
                        docs_from_store = report.docs_from_store,
                        segments_loaded = report.segments_loaded,
                        "post vectors ready"
                    );
                }
            }
            Ok(Err(err)) => tracing::warn!(error = %err, "embedding posts failed"),
            Err(err) => tracing::warn!(error = %err, "embedding posts task failed"),
        }
        tokio::time::sleep(Indexer::SERVING_INTERVAL).await;
    }
}
