//! The pages anyone may read: the start page and the API reference.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use crate::Dashboard;
use crate::pages::{docs, home, respond};
use crate::session::{cookie_name, token_from};

/// `GET /`.
pub async fn home_page(State(dashboard): State<Arc<Dashboard>>, headers: HeaderMap) -> Response {
    // Only whether a session cookie is present: the page offers "Dashboard" instead of
    // "Sign up"; nothing private is shown, so the session is not looked up.
    let signed_in = token_from(&headers, cookie_name(&dashboard)).is_some();
    respond(
        StatusCode::OK,
        "A JSON API over the forum's history",
        None,
        None,
        home::render(
            dashboard.config.rate_limit_per_minute,
            dashboard.config.signup_credits,
            signed_in,
        ),
    )
}

/// `GET /docs`: the API reference, rendered from the served OpenAPI document.
pub async fn docs_page(State(dashboard): State<Arc<Dashboard>>) -> Response {
    let document: serde_json::Value =
        serde_json::from_str(forumdex_types::OPENAPI).unwrap_or_default();
    respond(
        StatusCode::OK,
        "API reference",
        None,
        None,
        docs::render(&document, &dashboard.config.base_url),
    )
}
