//! The stylesheet, the one script (the copy button) and the icon browsers ask for, served
//! from the binary with a short cache lifetime.

use axum::http::header;
use axum::response::IntoResponse;

const STYLESHEET: &str = include_str!("../assets/dashboard.css");
const SCRIPT: &str = include_str!("../assets/dashboard.js");
/// A 16x16 icon (a PNG inside an ICO) in the pages' colours, made once by a short Python
/// script recorded in the commit that added it.
const FAVICON: &[u8] = include_bytes!("../assets/favicon.ico");

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

/// `GET /favicon.ico`: browsers ask for it on every site.
pub async fn favicon() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "image/x-icon"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        FAVICON,
    )
}
