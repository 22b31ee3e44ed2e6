//! Activity: the account's sign-ins, key changes and top-ups, newest first.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;

use crate::Dashboard;
use crate::error::{PageError, blocking};
use crate::pages::{respond, when};
use crate::session::SignedIn;

/// Lines shown.
const LINES: u32 = 200;

/// `GET /dashboard/activity`.
pub async fn page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
) -> Result<Response, PageError> {
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let lines = blocking(move || Ok(store.activity(account, LINES)?)).await?;
    let content = html! {
        h1 { "Activity" }
        p { "Sign-ins, key changes and top-ups on your account (the latest " (LINES) ")." }
        div.table-wrap tabindex="0" { table #activity {
            thead { tr { th { "When" } th { "What" } th { "Details" } } }
            tbody { @for line in &lines {
                tr { td { (when(line.at)) } td { (line.kind.replace('_', " ")) } td { (line.detail) } }
            } }
        } }
        section.card {
            h2 { "Sessions" }
            p { "Signed in somewhere you no longer use? End every session, this one included." }
            form #logout-everywhere method="post" action="/logout/everywhere" {
                input type="hidden" name="csrf" value=(signed_in.csrf);
                button.danger type="submit" { "Sign out everywhere" }
            }
        }
    };
    Ok(respond(
        StatusCode::OK,
        "Activity",
        Some(&signed_in.nav()),
        None,
        content,
    ))
}
