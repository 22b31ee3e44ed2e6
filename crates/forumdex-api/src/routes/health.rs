//! Free operational endpoints: `/healthz`, `/readyz`, `/metrics` (no key, no charge).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use forumdex_corpus::Millis;
use serde_json::{Value, json};

use crate::app::App;
use crate::error::{ApiError, blocking};

/// 200 while the process serves.
pub async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// 200 when the node can answer paid requests: the corpus and account stores answer, so does
/// the rate limiter (a Redis one; with `rate_limiter_fallback = "local"` the node counts
/// alone instead), and the search indexes have caught up with the corpus as it was when the
/// node started; 503 with the contract's error body naming the part otherwise.
pub async fn readyz(State(app): State<Arc<App>>) -> Result<Json<Value>, ApiError> {
    let corpus = Arc::clone(&app.corpus);
    let now = Millis::now(&*app.clock);
    let snapshot = blocking(move || corpus.snapshot(now)).await?;
    let accounts = Arc::clone(&app.accounts);
    blocking(move || accounts.ping()).await?;
    app.rate_limiter.ping().await?;
    app.search_sync.require_caught_up(&app.search)?;
    Ok(Json(json!({
        "status": "ready",
        "corpus_sequence": snapshot.seq,
        "search_sequence": app.search.synced_seq().unwrap_or(0).max(app.search_sync.synced_seq()),
    })))
}

/// Prometheus text format.
pub async fn metrics(State(app): State<Arc<App>>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        app.metrics.render(),
    )
}
