//! Billing: the balance, the credit packs with a top-up button each, the history of top-ups,
//! and the credit ledger. A top-up is an order (pending) handed to the payment provider's
//! checkout; it is credited only by the provider's signed webhook (see
//! [`crate::pages::webhooks`]). With the test provider the checkout is a page here with Pay,
//! Fail and Expire buttons that send such a webhook through the same code.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use forumdex_accounts::{NewTopup, Topup, TopupStatus};
use forumdex_payments::{CheckoutRequest, TestOutcome, format_money};
use maud::{Markup, html};
use serde::Deserialize;

use crate::error::{PageError, PageForm, blocking};
use crate::layout::Flash;
use crate::pages::overview::balance_banner;
use crate::pages::webhooks::deliver;
use crate::pages::{respond, when};
use crate::session::SignedIn;
use crate::{Dashboard, Payments};

/// Ledger rows shown.
const LEDGER_ROWS: u32 = 100;

/// `?topup=` after a checkout.
#[derive(Debug, Default, Deserialize)]
pub struct BillingQuery {
    #[serde(default)]
    topup: Option<i64>,
    #[serde(default)]
    cancelled: Option<String>,
}

/// The top-up form.
#[derive(Debug, Deserialize)]
pub struct CheckoutForm {
    csrf: String,
    pack: usize,
}

/// The test checkout's buttons.
#[derive(Debug, Deserialize)]
pub struct TestCheckoutForm {
    csrf: String,
    outcome: String,
}

fn status_badge(status: TopupStatus) -> Markup {
    let name = status.as_str();
    html! { span class=(format!("badge status-{name}")) { (name) } }
}

/// What the page says about the top-up a checkout came back from.
fn checkout_flash(topup: &Topup, cancelled: bool) -> Flash {
    match topup.status {
        TopupStatus::Paid => Flash::Success(format!(
            "Payment received: {} credits were added.",
            topup.credits
        )),
        TopupStatus::Pending if cancelled => Flash::Error(
            "The checkout was cancelled; nothing was charged.".to_owned(),
        ),
        TopupStatus::Pending => Flash::Success(
            "Thank you. Your credits are added as soon as the payment is confirmed; reload this page in a moment."
                .to_owned(),
        ),
        TopupStatus::Failed => Flash::Error("The payment failed; nothing was added.".to_owned()),
        TopupStatus::Expired => {
            Flash::Error("The checkout expired unpaid; nothing was added.".to_owned())
        }
    }
}

/// `GET /dashboard/billing`.
pub async fn page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Query(query): Query<BillingQuery>,
) -> Result<Response, PageError> {
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let (balance, topups, ledger) = blocking(move || {
        Ok((
            store.balance(account)?,
            store.topups(account)?,
            store.recent_ledger(account, LEDGER_ROWS)?,
        ))
    })
    .await?;
    let flash = query.topup.and_then(|id| {
        topups
            .iter()
            .find(|topup| topup.id == id)
            .map(|topup| checkout_flash(topup, query.cancelled.is_some()))
    });
    let enabled = dashboard.payments.provider().is_some();
    let content = html! {
        h1 { "Billing" }
        (balance_banner(balance, dashboard.config.signup_credits))
        div.cards {
            div.card { h2 { "Balance" } p.figure #balance { (balance) } p { "credits · one per successful request" } }
        }
        h2 { "Buy credits" }
        @if enabled {
            div.packs {
                @for (index, pack) in dashboard.config.credit_packs.iter().enumerate() {
                    form.pack method="post" action="/dashboard/billing/checkout" {
                        input type="hidden" name="csrf" value=(signed_in.csrf);
                        input type="hidden" name="pack" value=(index);
                        p.figure { (pack.credits) } p { "credits" }
                        p.price { (pack.price()) }
                        button type="submit" { "Buy " (pack.credits) " credits" }
                    }
                }
            }
        } @else {
            p { "Top-ups are not enabled on this service yet. Ask the operator to add credits to your account." }
        }
        h2 { "Top-ups" }
        @if topups.is_empty() { p.empty { "No top-ups yet." } } @else {
            div.table-wrap { table #topups {
                thead { tr { th { "Ordered" } th.num { "Credits" } th { "Price" } th { "Status" } th { "Refunded" } } }
                tbody { @for topup in &topups {
                    tr data-topup-id=(topup.id) {
                        td { (when(topup.created_at)) }
                        td.num { (topup.credits) }
                        td { (format_money(topup.amount_cents, &topup.currency)) }
                        td { (status_badge(topup.status)) }
                        td { @if topup.refunded_cents > 0 { (format_money(topup.refunded_cents, &topup.currency)) " (" (topup.refunded_credits) " credits)" } }
                    }
                } }
            } }
        }
        h2 { "Credit ledger" }
        p { "Every change to your balance, newest first (the latest " (LEDGER_ROWS) ")." }
        div.table-wrap { table #ledger {
            thead { tr { th { "When" } th { "What" } th.num { "Credits" } th.num { "Balance" } } }
            tbody { @for row in &ledger {
                tr {
                    td { (when(row.created_at)) }
                    td { code { (row.operation) } }
                    td.num { @if row.amount > 0 { "+" } (row.amount) }
                    td.num { (row.balance_after) }
                }
            } }
        } }
    };
    Ok(respond(
        StatusCode::OK,
        "Billing",
        Some(&signed_in.nav()),
        flash.as_ref(),
        content,
    ))
}

/// `POST /dashboard/billing/checkout`: orders a pack and goes to the provider's checkout.
pub async fn checkout(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    PageForm(form): PageForm<CheckoutForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let provider = dashboard.payments.provider().ok_or_else(|| {
        PageError::Unavailable("Top-ups are not enabled on this service.".to_owned())
    })?;
    let pack = dashboard
        .config
        .credit_packs
        .get(form.pack)
        .cloned()
        .ok_or(PageError::NotFound)?;
    let store = Arc::clone(&dashboard.store);
    let now = dashboard.clock.now();
    let account = signed_in.account_id;
    let order = NewTopup {
        credits: pack.credits,
        amount_cents: pack.amount_cents,
        currency: pack.currency.clone(),
        provider: provider.name().to_owned(),
    };
    let topup = blocking(move || Ok(store.create_topup(account, &order, now)?)).await?;
    let base = &dashboard.config.base_url;
    let request = CheckoutRequest {
        topup_id: topup.id,
        credits: topup.credits,
        amount_cents: topup.amount_cents,
        currency: topup.currency.clone(),
        customer_email: signed_in.email.clone(),
        success_url: format!("{base}/dashboard/billing?topup={}", topup.id),
        cancel_url: format!("{base}/dashboard/billing?topup={}&cancelled=1", topup.id),
    };
    let checkout = provider.create_checkout(&request).await.map_err(|err| {
        tracing::error!(error = %err, topup_id = topup.id, "creating a checkout failed");
        PageError::Unavailable(
            "The payment provider could not be reached. Nothing was charged; please try again."
                .to_owned(),
        )
    })?;
    let store = Arc::clone(&dashboard.store);
    let reference = checkout.reference.clone();
    let topup_id = topup.id;
    let credits = topup.credits;
    blocking(move || {
        store.set_topup_reference(topup_id, &reference)?;
        store.record_activity(
            account,
            "topup_started",
            &format!("top-up {topup_id}: {credits} credits"),
            now,
        )?;
        Ok(())
    })
    .await?;
    Ok(Redirect::to(&checkout.url).into_response())
}

/// The top-up of a test checkout, when the test provider is on and the order is the
/// developer's.
async fn test_order(
    dashboard: &Arc<Dashboard>,
    signed_in: &SignedIn,
    topup_id: i64,
) -> Result<(Arc<forumdex_payments::TestProvider>, Topup), PageError> {
    let Payments::Test(provider) = &dashboard.payments else {
        return Err(PageError::NotFound);
    };
    let store = Arc::clone(&dashboard.store);
    let topup = blocking(move || Ok(store.topup(topup_id)?)).await?;
    if topup.account_id != signed_in.account_id {
        return Err(PageError::NotFound);
    }
    Ok((Arc::clone(provider), topup))
}

/// `GET /dashboard/test-checkout/{topup_id}`: the test provider's checkout page.
pub async fn test_checkout_page(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Path(topup_id): Path<i64>,
) -> Result<Response, PageError> {
    let (_, topup) = test_order(&dashboard, &signed_in, topup_id).await?;
    let content = html! {
        h1 { "Test checkout" }
        p.banner.warning { "This is the test payment provider: no money moves. Choose what the payment does." }
        dl {
            dt { "Order" } dd { "top-up " (topup.id) }
            dt { "Credits" } dd { (topup.credits) }
            dt { "Price" } dd { (format_money(topup.amount_cents, &topup.currency)) }
            dt { "Status" } dd { (status_badge(topup.status)) }
        }
        @if topup.status == TopupStatus::Pending {
            form #test-checkout.buttons method="post" action=(format!("/dashboard/test-checkout/{}", topup.id)) {
                input type="hidden" name="csrf" value=(signed_in.csrf);
                button #pay type="submit" name="outcome" value="pay" { "Pay" }
                button #fail.danger type="submit" name="outcome" value="fail" { "Fail" }
                button #expire.link type="submit" name="outcome" value="expire" { "Expire" }
            }
        } @else {
            p #checkout-closed { "This checkout is closed (" (topup.status.as_str()) "): there is nothing left to choose. " a href="/dashboard/billing" { "Back to billing" } }
        }
    };
    Ok(respond(
        StatusCode::OK,
        "Test checkout",
        Some(&signed_in.nav()),
        None,
        content,
    ))
}

/// `POST /dashboard/test-checkout/{topup_id}`: sends the signed webhook of the chosen outcome.
pub async fn test_checkout(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Path(topup_id): Path<i64>,
    PageForm(form): PageForm<TestCheckoutForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let (provider, topup) = test_order(&dashboard, &signed_in, topup_id).await?;
    if topup.status != TopupStatus::Pending {
        return Err(PageError::BadRequest(format!(
            "This checkout is closed ({}): nothing was sent.",
            topup.status.as_str()
        )));
    }
    let outcome = match form.outcome.as_str() {
        "pay" => TestOutcome::Pay,
        "fail" => TestOutcome::Fail,
        "expire" => TestOutcome::Expire,
        _ => return Err(PageError::NotFound),
    };
    let reference = topup
        .reference
        .clone()
        .unwrap_or_else(|| format!("cs_test_{}", topup.id));
    let now = dashboard.clock.now();
    let (body, signature) = provider.event(
        outcome,
        &reference,
        topup.id,
        topup.amount_cents,
        &topup.currency,
        now.timestamp(),
    );
    deliver(&dashboard, &signature, &body)
        .await
        .map_err(|err| match err {
            crate::pages::webhooks::DeliveryError::Store(err) => err,
            other => PageError::Internal(other.into()),
        })?;
    Ok(Redirect::to(&format!("/dashboard/billing?topup={}", topup.id)).into_response())
}
