//! The overview: balance (with a banner when it runs low), calls today, in 7 and in 30 days,
//! the 30-day chart of calls by outcome, and a curl example.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::Duration;
use maud::{Markup, html};

use crate::Dashboard;
use crate::chart::calls_chart;
use crate::error::{PageError, blocking};
use crate::pages::respond;
use crate::pages::usage::{DAYS, calls_since, days_by_status, recent_usage};
use crate::session::SignedIn;

/// Below this balance the overview and billing pages warn (once the developer has spent
/// some of what sign-up gave them).
pub const LOW_BALANCE: u64 = 100;

/// The balance warning of the overview and billing pages: "empty" at 0; "low" below
/// [`LOW_BALANCE`], but not while the balance is still what sign-up gave (a new account is
/// not running out); nothing otherwise.
pub fn balance_banner(balance: u64, signup_credits: u64) -> Markup {
    html! {
        @if balance == 0 {
            p.banner.warning #low-balance {
                "Your balance is 0 credits: requests are answered 402 until you top up. "
                a href="/dashboard/billing" { "Top up" }
            }
        } @else if balance < LOW_BALANCE && balance < signup_credits {
            p.banner.warning #low-balance {
                "Your balance is low: " (balance) " credits. Requests are answered 402 once it reaches 0. "
                a href="/dashboard/billing" { "Top up" }
            }
        }
    }
}

/// `GET /dashboard`.
pub async fn page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
) -> Result<Response, PageError> {
    let now = dashboard.clock.now();
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let (balance, keys) =
        blocking(move || Ok((store.balance(account)?, store.list_keys(account)?))).await?;
    let rows = recent_usage(&dashboard, account, now).await?;
    let today = now.date_naive();
    let active_keys = keys
        .iter()
        .filter(|key| key.status(now) == forumdex_accounts::KeyStatus::Active)
        .count();
    let base = &dashboard.config.base_url;
    let content = html! {
        h1 { "Overview" }
        (balance_banner(balance, dashboard.config.signup_credits))
        div.cards {
            div.card { h2 { "Balance" } p.figure #balance { (balance) } p { "credits" } }
            div.card { h2 { "Today" } p.figure #calls-today { (calls_since(&rows, today)) } p { "calls" } }
            div.card { h2 { "7 days" } p.figure #calls-7d { (calls_since(&rows, today - Duration::days(6))) } p { "calls" } }
            div.card { h2 { (DAYS) " days" } p.figure #calls-30d { (calls_since(&rows, today - Duration::days(DAYS - 1))) } p { "calls" } }
        }
        h2 { "Calls by outcome" }
        (calls_chart(&days_by_status(&rows, now)))
        h2 { "Make a call" }
        @if active_keys == 0 {
            p { "You have no active key. " a.button href="/dashboard/keys" { "Create a key" } }
        } @else {
            p {
                @if active_keys == 1 { "With your active key (" } @else { "With one of your " (active_keys) " active keys (" }
                a href="/dashboard/keys" { "manage keys" } "):"
            }
        }
        pre { code #curl-example { "curl -H \"Authorization: Bearer $FORUMDEX_API_KEY\" \\\n  \"" (base) "/api/v1/search?q=bitcoin+wallet\"" } }
        p { "Each 200 costs one credit; every other answer is free. Up to " (dashboard.config.rate_limit_per_minute) " requests per key in any rolling minute. " a href="/docs" { "API reference" } }
    };
    Ok(respond(
        StatusCode::OK,
        "Overview",
        Some(&signed_in.nav()),
        None,
        content,
    ))
}
