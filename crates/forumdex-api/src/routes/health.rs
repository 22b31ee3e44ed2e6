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
        "semantic": semantic_status(&app),
    })))
}

/// The semantic leg: the model that serves and how much of the searchable corpus has its
/// vectors, and during a model change (`changing_to`, else `null`) the new model and how
/// far its vectors are made (`null` when search is lexical only). Readiness does not wait
/// for it: until a segment is embedded, its posts are found by the lexical leg only.
fn semantic_status(app: &App) -> Value {
    let Some(semantic) = app.search.semantic() else {
        return Value::Null;
    };
    let serving = semantic.serving();
    let coverage = serving.coverage(&app.search);
    let changing_to = semantic.change(&app.search).map(|change| {
        json!({
            "model": change.model,
            "embedded": change.coverage.embedded,
            "coverage": rounded(change.coverage.share()),
        })
    });
    json!({
        "model": serving.model().version(),
        "docs": coverage.docs,
        "embedded": coverage.embedded,
        "coverage": rounded(coverage.share()),
        "changing_to": changing_to,
    })
}

/// A share to four decimals.
fn rounded(share: f64) -> f64 {
    (share * 1e4).round() / 1e4
}

/// Prometheus text format.
pub async fn metrics(State(app): State<Arc<App>>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        app.metrics.render() + &semantic_metrics(&app),
    )
}

/// The semantic leg's coverage as gauges (none when search is lexical only).
fn semantic_metrics(app: &App) -> String {
    let Some(semantic) = app.search.semantic() else {
        return String::new();
    };
    let coverage = semantic.coverage(&app.search);
    let mut text = format!(
        "# HELP forumdex_semantic_docs Searchable posts (every index).\n\
         # TYPE forumdex_semantic_docs gauge\n\
         forumdex_semantic_docs {}\n\
         # HELP forumdex_semantic_docs_embedded Searchable posts that have vectors.\n\
         # TYPE forumdex_semantic_docs_embedded gauge\n\
         forumdex_semantic_docs_embedded {}\n",
        coverage.docs, coverage.embedded
    );
    if let Some(change) = semantic.change(&app.search) {
        text += &format!(
            "# HELP forumdex_semantic_next_docs_embedded During a model change, searchable \
             posts that have the new model's vectors.\n\
             # TYPE forumdex_semantic_next_docs_embedded gauge\n\
             forumdex_semantic_next_docs_embedded {}\n",
            change.coverage.embedded
        );
    }
    text
}
