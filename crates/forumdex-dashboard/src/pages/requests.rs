//! The request log (`/dashboard/requests`): the last requests made with the account's keys
//! (time, request id, path, status, credits, latency, client address), newest first,
//! filtered by key and status, 50 a page. It lets a developer see why a request was
//! refused (a 403 from an address not on the allowlist, a 402 at an empty balance) with the
//! request id to quote. Kept `request_log_days` days (the server writes and prunes it).

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use forumdex_accounts::{KeyId, KeyInfo, LoggedRequest, RequestFilter};
use maud::{Markup, html};
use serde::Deserialize;

use crate::Dashboard;
use crate::error::{PageError, blocking};
use crate::pages::{respond, when};
use crate::session::SignedIn;

/// Requests shown per page.
const PAGE_SIZE: u32 = 50;

/// The filters and the page: `?key=KEY_ID&status=403&before=ID` (empty values: all).
#[derive(Debug, Default, Deserialize)]
pub struct RequestsQuery {
    #[serde(default)]
    key: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    before: String,
}

impl RequestsQuery {
    /// The store's filter; a value that is not a key id, a status or a position is refused.
    fn filter(&self) -> Result<RequestFilter, PageError> {
        let bad = |what: &str, value: &str| {
            PageError::BadRequest(format!(
                "{value:?} is not {what}: choose one from the list."
            ))
        };
        let key = match self.key.as_str() {
            "" => None,
            text => Some(KeyId::parse(text).map_err(|_| bad("a key id", text))?),
        };
        let status = match self.status.as_str() {
            "" => None,
            text => Some(
                text.parse::<u16>()
                    .ok()
                    .filter(|status| (100..600).contains(status))
                    .ok_or_else(|| bad("an HTTP status", text))?,
            ),
        };
        let before_id = match self.before.as_str() {
            "" => None,
            text => Some(text.parse::<i64>().map_err(|_| bad("a position", text))?),
        };
        Ok(RequestFilter {
            key,
            status,
            before_id,
        })
    }
}

/// The statuses the filter offers: what the API answers.
const STATUSES: [u16; 8] = [200, 400, 401, 402, 403, 404, 429, 503];

/// `GET /dashboard/requests`.
pub async fn page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Query(query): Query<RequestsQuery>,
) -> Result<Response, PageError> {
    let filter = query.filter()?;
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let wanted = filter.clone();
    let (keys, requests) = blocking(move || {
        Ok((
            store.list_keys(account)?,
            store.requests(account, &wanted, PAGE_SIZE + 1)?,
        ))
    })
    .await?;
    let more = requests.len() > PAGE_SIZE as usize;
    let shown = &requests[..requests.len().min(PAGE_SIZE as usize)];
    let days = dashboard.config.request_log_days;
    let content = html! {
        h1 { "Requests" }
        @if days == 0 {
            p.banner.warning { "The request log is turned off on this service." }
        } @else {
            p { "The last requests made with your keys, newest first, kept " (days) " days. "
                "Quote a request id to support; cursors are not kept." }
        }
        (filter_form(&keys, &query))
        @if shown.is_empty() {
            p.empty { "No requests match." }
        } @else {
            div.table-wrap tabindex="0" { table #requests.stack {
                thead { tr { th { "When" } th { "Request" } th { "Status" } th.num { "Credits" } th.num { "Time (ms)" } th { "Key" } th { "From" } th { "Request id" } } }
                tbody { @for request in shown { (row(request, &keys)) } }
            } }
        }
        @if more {
            @if let Some(last) = shown.last() {
                p.actions { a #requests-older href=(older_link(&query, last.id)) { "Older requests →" } }
            }
        }
    };
    Ok(respond(
        StatusCode::OK,
        "Requests",
        Some(&signed_in.nav()),
        None,
        content,
    ))
}

/// The filter form: a key (by name) and a status.
fn filter_form(keys: &[KeyInfo], query: &RequestsQuery) -> Markup {
    html! {
        form #requests-filter.inline method="get" action="/dashboard/requests" {
            label for="filter-key" { "Key" }
            select #filter-key name="key" {
                option value="" selected[query.key.is_empty()] { "All keys" }
                @for key in keys {
                    option value=(key.key_id.as_str()) selected[query.key == key.key_id.as_str()] { (key_label(key)) }
                }
            }
            label for="filter-status" { "Status" }
            select #filter-status name="status" {
                option value="" selected[query.status.is_empty()] { "Any status" }
                @for status in STATUSES {
                    option value=(status) selected[query.status == status.to_string()] { (status) }
                }
            }
            button type="submit" { "Show" }
        }
    }
}

/// A key as the page names it: its name, else its id.
fn key_label(key: &KeyInfo) -> &str {
    key.name.as_deref().unwrap_or(key.key_id.as_str())
}

/// One request's row.
fn row(request: &LoggedRequest, keys: &[KeyInfo]) -> Markup {
    let key = keys.iter().find(|key| key.key_id == request.key_id);
    html! {
        tr data-request-id=(request.request_id) {
            td data-label="When" { (when(request.at)) }
            td.wrap data-label="Request" { code { "GET " (request.path) } }
            td data-label="Status" { span class=(format!("badge status-{}", request.status)) { (request.status) } }
            td.num data-label="Credits" { (request.credits) }
            td.num data-label="Time (ms)" { (request.latency_ms) }
            td data-label="Key" { a href=(format!("/dashboard/keys/{}", request.key_id)) { (key.map_or(request.key_id.as_str(), key_label)) } }
            td data-label="From" { (request.source) }
            td data-label="Request id" { code.faint { (request.request_id) } }
        }
    }
}

/// The next page's link, keeping the filters.
fn older_link(query: &RequestsQuery, before: i64) -> String {
    let mut link = format!("/dashboard/requests?before={before}");
    for (name, value) in [("key", &query.key), ("status", &query.status)] {
        if !value.is_empty() {
            link.push_str(&format!("&{name}={value}"));
        }
    }
    link
}
