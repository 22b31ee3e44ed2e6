//! `GET /api/v1/openapi.json`: the machine-readable contract (free, no key, no charge).

use axum::http::header;
use axum::response::IntoResponse;

/// The committed OpenAPI 3.1 document of the contract (`crates/forumdex-api/openapi.json`).
pub const DOCUMENT: &str = include_str!("../../openapi.json");

/// The document as `application/json`, byte for byte as committed.
pub async fn document() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT)
}
