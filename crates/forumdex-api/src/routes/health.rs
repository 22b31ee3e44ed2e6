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

/// 200 when the corpus and account stores answer; 503 otherwise.
pub async fn readyz(State(app): State<Arc<App>>) -> Result<Json<Value>, ApiError> {
    let corpus = Arc::clone(&app.corpus);
    let now = Millis::now(&*app.clock);
    let snapshot = blocking(move || corpus.snapshot(now)).await?;
    let accounts = Arc::clone(&app.accounts);
    blocking(move || accounts.ping()).await?;
    Ok(Json(
        json!({"status": "ready", "corpus_sequence": snapshot.seq}),
    ))
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
