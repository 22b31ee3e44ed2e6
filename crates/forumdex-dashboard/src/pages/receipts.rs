//! Receipts: a printable page per paid top-up (`/dashboard/billing/receipts/{id}`), linked
//! from billing, and the same receipt mailed to the account's address when the payment is
//! credited. An order of another account, or one never paid, has no receipt (404).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use forumdex_accounts::{AccountId, Topup, TopupStatus};
use forumdex_payments::format_money;
use maud::html;

use crate::Dashboard;
use crate::error::{PageError, blocking};
use crate::mail::Mail;
use crate::pages::auth::send;
use crate::pages::{respond, when};
use crate::session::SignedIn;

/// A top-up's receipt number.
pub fn number(topup: &Topup) -> String {
    format!("FDX-{:06}", topup.id)
}

/// The receipt's address on the dashboard.
pub fn path(topup: &Topup) -> String {
    format!("/dashboard/billing/receipts/{}", topup.id)
}

/// Whether an order has a receipt: it was paid (a later refund shows on it).
pub fn has_receipt(topup: &Topup) -> bool {
    topup.status == TopupStatus::Paid
}

/// `GET /dashboard/billing/receipts/{topup_id}`.
pub async fn page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Path(topup_id): Path<i64>,
) -> Result<Response, PageError> {
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let topup = blocking(move || Ok(store.topups(account)?))
        .await?
        .into_iter()
        .find(|topup| topup.id == topup_id && has_receipt(topup))
        .ok_or(PageError::NotFound)?;
    let content = html! {
        h1 { "Receipt " (number(&topup)) }
        dl #receipt {
            dt { "Sold by" } dd #seller { @for (i, line) in dashboard.config.seller_lines().iter().enumerate() { @if i > 0 { br; } (line) } }
            dt { "Paid" } dd { (when(topup.updated_at)) }
            dt { "Billed to" } dd { (signed_in.email) }
            dt { "Item" } dd { (topup.credits) " forumdex API credits (one per successful request)" }
            dt { "Amount" } dd { (format_money(topup.amount_cents, &topup.currency)) }
            dt { "Paid with" } dd { (provider_name(&topup.provider)) @if let Some(reference) = &topup.reference { " · " code { (reference) } } }
            @if topup.refunded_cents > 0 {
                dt { "Refunded" } dd { (format_money(topup.refunded_cents, &topup.currency)) " (" (topup.refunded_credits) " credits taken back)" }
            }
        }
        p.hint.no-print { "Print this page or save it as PDF from your browser. " a href="/dashboard/billing" { "Back to billing" } }
    };
    Ok(respond(
        StatusCode::OK,
        "Receipt",
        Some(&signed_in.nav()),
        None,
        content,
    ))
}

/// The payment provider as a receipt names it.
fn provider_name(provider: &str) -> &str {
    match provider {
        "stripe" => "Stripe",
        "test" => "the test provider (no money moved)",
        other => other,
    }
}

/// Mails the receipt of a top-up just credited to its account's address. Failures are
/// logged: the credits are there whatever the mail does.
pub async fn mail_receipt(dashboard: &Arc<Dashboard>, topup_id: i64) {
    let store = Arc::clone(&dashboard.store);
    let found = blocking(move || {
        let topup = store.topup(topup_id)?;
        let email = store.account(topup.account_id)?.email;
        Ok::<_, PageError>((topup, email))
    })
    .await;
    let (topup, email) = match found {
        Ok(found) => found,
        Err(err) => {
            tracing::error!(error = %err, topup_id, "reading a receipt to mail failed");
            return;
        }
    };
    let mail = Mail {
        to: email.to_string(),
        subject: format!("Your forumdex receipt {}", number(&topup)),
        body: receipt_text(dashboard, &topup, topup.account_id),
    };
    if let Err(err) = send(dashboard, mail).await {
        tracing::error!(error = %err, topup_id, "mailing a receipt failed");
    }
}

/// The receipt as plain text, with its link.
fn receipt_text(dashboard: &Dashboard, topup: &Topup, account: AccountId) -> String {
    format!(
        "Thank you for your payment.\n\nReceipt {}\nSold by: {}\nPaid: {}\nAccount: {}\nItem: {} forumdex API credits\nAmount: {}\n\nThe receipt to print: {}{}\n\n-- forumdex\n",
        number(topup),
        dashboard.config.seller_lines().join(", "),
        when(topup.updated_at),
        account.get(),
        topup.credits,
        format_money(topup.amount_cents, &topup.currency),
        dashboard.config.base_url,
        path(topup),
    )
}
