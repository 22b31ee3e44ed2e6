//! The stylesheet and the one script (the copy button), served from the binary with a
//! short cache lifetime.

use axum::http::header;
use axum::response::IntoResponse;

const STYLESHEET: &str = include_str!("../assets/dashboard.css");
const SCRIPT: &str = include_str!("../assets/dashboard.js");

/// `GET /assets/dashboard.css`.
pub async fn stylesheet() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        STYLESHEET,
    )
}

/// `GET /assets/dashboard.js`.
pub async fn script() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        SCRIPT,
    )
}
