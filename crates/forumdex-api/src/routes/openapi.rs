//! `GET /api/v1/openapi.json`: the machine-readable contract (free, no key, no charge).

use axum::http::header;
use axum::response::IntoResponse;

/// The committed OpenAPI 3.1 document of the contract ([`forumdex_types::OPENAPI`],
/// `crates/forumdex-types/openapi.json`).
pub const DOCUMENT: &str = forumdex_types::OPENAPI;

/// The document as `application/json`, byte for byte as committed.
pub async fn document() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT)
}
