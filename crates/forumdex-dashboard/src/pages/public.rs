//! The pages anyone may read: the start page and the API reference.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;

use crate::Dashboard;
use crate::pages::{docs, home, respond};
use crate::session::SignedIn;

/// `GET /`.
pub async fn home_page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: Option<SignedIn>,
) -> Response {
    let nav = signed_in.as_ref().map(SignedIn::nav);
    respond(
        StatusCode::OK,
        "A JSON API over the forum's history",
        nav.as_ref(),
        None,
        home::render(
            dashboard.config.rate_limit_per_minute,
            dashboard.config.signup_credits,
            signed_in.is_some(),
        ),
    )
}

/// `GET /docs`: the API reference, rendered from the served OpenAPI document (once: the
/// document is compiled in).
pub async fn docs_page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: Option<SignedIn>,
) -> Response {
    let content = dashboard.docs(|| {
        let document: serde_json::Value =
            serde_json::from_str(forumdex_types::OPENAPI).unwrap_or_default();
        docs::render(&document, &dashboard.config.base_url).into_string()
    });
    let nav = signed_in.as_ref().map(SignedIn::nav);
    respond(
        StatusCode::OK,
        crate::layout::DOCS_TITLE,
        nav.as_ref(),
        None,
        maud::PreEscaped(content.to_owned()),
    )
}
