//! The dashboard's pages, one module per page or flow. Handlers parse the form, call the
//! store (on the blocking pool), and render with [`crate::layout::page`].

pub mod account;
pub mod activity;
pub mod auth;
pub mod billing;
pub mod docs;
pub mod home;
pub mod keys;
pub mod overview;
pub mod public;
pub mod receipts;
pub mod requests;
pub mod sign_in_code;
pub mod two_factor;
pub mod usage;
pub mod webhooks;

use axum::extract::Extension;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use chrono::{DateTime, Utc};
use maud::Markup;

use crate::ClientAddr;
use crate::layout::{Flash, Nav, page};

/// A form carrying only the session's CSRF token.
#[derive(Debug, serde::Deserialize)]
pub struct CsrfForm {
    /// The token.
    pub csrf: String,
}

/// A rendered page with its status.
pub fn respond(
    status: StatusCode,
    title: &str,
    nav: Option<&Nav>,
    flash: Option<&Flash>,
    content: Markup,
) -> Response {
    (status, Html(page(title, nav, flash, content).into_string())).into_response()
}

/// The client address as text for throttling, or `unknown` when the server set none.
pub fn client_key(addr: Option<Extension<ClientAddr>>) -> String {
    addr.map_or_else(
        || "unknown".to_owned(),
        |Extension(ClientAddr(ip))| ip.to_string(),
    )
}

/// An instant for people: `2026-11-25 14:03 UTC`.
pub fn when(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// An optional instant for people (`never` when absent).
pub fn when_or(at: Option<DateTime<Utc>>, absent: &str) -> String {
    at.map_or_else(|| absent.to_owned(), when)
}
