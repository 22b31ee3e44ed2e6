//! Billing: the balance, the credit packs with a top-up button each, the history of top-ups,
//! and the credit ledger. A top-up is an order (pending) handed to the payment provider's
//! checkout; it is credited only by the provider's signed webhook (see
//! [`crate::pages::webhooks`]). With the test provider the checkout is a page here with Pay,
//! Fail and Expire buttons that send such a webhook through the same code.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{DateTime, Datelike, Months, NaiveDate, NaiveTime, SecondsFormat, Utc};
use forumdex_accounts::developer::{REFUND_OPERATION, SIGNUP_OPERATION, TOPUP_OPERATION};
use forumdex_accounts::rules::{ACCOUNT_CREATE_OPERATION, CREDITS_ADD_OPERATION};
use forumdex_accounts::{LedgerLine, NewTopup, Topup, TopupStatus};
use forumdex_payments::{CheckoutRequest, TestOutcome, format_money};
use maud::{Markup, html};
use serde::Deserialize;

use crate::error::{PageError, PageForm, blocking};
use crate::layout::Flash;
use crate::pages::overview::balance_banner;
use crate::pages::receipts;
use crate::pages::webhooks::deliver;
use crate::pages::{respond, when};
use crate::session::SignedIn;
use crate::{Dashboard, Payments};

/// `?topup=` after a checkout; `?month=YYYY-MM`: the ledger's month (default: this one).
#[derive(Debug, Default, Deserialize)]
pub struct BillingQuery {
    #[serde(default)]
    topup: Option<i64>,
    #[serde(default)]
    cancelled: Option<String>,
    #[serde(default)]
    month: Option<String>,
    #[serde(default)]
    alert: Option<String>,
}

/// `?month=YYYY-MM` of the ledger's CSV export.
#[derive(Debug, Default, Deserialize)]
pub struct LedgerQuery {
    #[serde(default)]
    month: Option<String>,
}

/// The first day of the ledger month `text` names (`YYYY-MM`), or of the month of `now`.
fn ledger_month(text: Option<&str>, now: DateTime<Utc>) -> Result<NaiveDate, PageError> {
    let Some(text) = text.filter(|text| !text.is_empty()) else {
        return Ok(now.date_naive().with_day(1).unwrap_or(now.date_naive()));
    };
    NaiveDate::parse_from_str(&format!("{text}-01"), "%Y-%m-%d").map_err(|_| {
        PageError::BadRequest(format!(
            "{text:?} is not a month: write it as YYYY-MM, for example 2026-11."
        ))
    })
}

/// A month's first instant and the next month's.
fn month_window(first: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
    let next = first + Months::new(1);
    let start = |day: NaiveDate| day.and_time(NaiveTime::MIN).and_utc();
    (start(first), start(next))
}

/// A month as the pager's links write it.
fn month_param(first: NaiveDate) -> String {
    first.format("%Y-%m").to_string()
}

/// The ledger lines of a month of the signed-in account, and whether older rows exist.
async fn read_ledger(
    dashboard: &Arc<Dashboard>,
    signed_in: &SignedIn,
    first: NaiveDate,
) -> Result<(Vec<LedgerLine>, bool), PageError> {
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let (from, to) = month_window(first);
    blocking(move || {
        Ok((
            store.ledger_lines(account, from, to)?,
            store.has_ledger_before(account, from)?,
        ))
    })
    .await
}

/// The ledger of a month: charges per day and key, every credit on its own line; a pager
/// to the older and newer months and the CSV export of this one.
fn ledger_section(
    lines: &[LedgerLine],
    first: NaiveDate,
    older: bool,
    now: DateTime<Utc>,
) -> Markup {
    let this_month = month_param(first);
    let newer = first + Months::new(1);
    html! {
        h2 { "Credit ledger" }
        p { "Every change to your balance in " (first.format("%B %Y")) " (UTC), newest first: "
            "requests charged are summed per day and key; top-ups, grants and refunds are listed one by one." }
        nav.actions aria-label="Ledger months" {
            @if older { a #ledger-older href=(format!("/dashboard/billing?month={}#ledger", month_param(first - Months::new(1)))) { "← Older month" } }
            @if newer <= now.date_naive() { a #ledger-newer href=(format!("/dashboard/billing?month={}#ledger", month_param(newer))) { "Newer month →" } }
            a #ledger-csv href=(format!("/dashboard/billing/ledger.csv?month={this_month}")) download { "Download CSV" }
        }
        @if lines.is_empty() {
            p.empty { "Nothing changed your balance this month." }
        } @else {
            div.table-wrap tabindex="0" { table #ledger.stack {
                thead { tr { th { "When" } th { "What" } th.num { "Requests" } th.num { "Credits" } th.num { "Balance" } } }
                tbody { @for line in lines {
                    @match line {
                        LedgerLine::Charges { day, key_id, key_name, calls, credits, balance_after, .. } => tr {
                            td data-label="When" { (day.format("%Y-%m-%d")) }
                            td data-label="What" { "Requests with key " a href=(format!("/dashboard/keys/{key_id}")) { (key_name.as_deref().unwrap_or(key_id.as_str())) } }
                            td.num data-label="Requests" { (calls) }
                            td.num data-label="Credits" { "−" (credits) }
                            td.num data-label="Balance" { (balance_after) }
                        },
                        LedgerLine::Entry(entry) => tr {
                            td data-label="When" { (when(entry.created_at)) }
                            td data-label="What" { (describe_entry(&entry.operation)) }
                            td.num data-label="Requests" { }
                            td.num data-label="Credits" { @if entry.amount > 0 { "+" (entry.amount) } @else { "−" (entry.amount.unsigned_abs()) } }
                            td.num data-label="Balance" { (entry.balance_after) }
                        },
                    }
                } }
            } }
        }
    }
}

/// A ledger row's operation as people read it.
fn describe_entry(operation: &str) -> String {
    match operation {
        SIGNUP_OPERATION => "Sign-up credit".to_owned(),
        TOPUP_OPERATION => "Top-up".to_owned(),
        REFUND_OPERATION => "Refund".to_owned(),
        CREDITS_ADD_OPERATION => "Credits added by the operator".to_owned(),
        ACCOUNT_CREATE_OPERATION => "Opening balance".to_owned(),
        other => other.to_owned(),
    }
}

/// `GET /dashboard/billing/ledger.csv?month=YYYY-MM`: the month's ledger lines as CSV.
pub async fn ledger_csv(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    Query(query): Query<LedgerQuery>,
) -> Result<Response, PageError> {
    let first = ledger_month(query.month.as_deref(), dashboard.clock.now())?;
    let (lines, _) = read_ledger(&dashboard, &signed_in, first).await?;
    let mut csv =
        String::from("date,kind,key_id,key_name,operation,requests,credits,balance_after\r\n");
    for line in &lines {
        let row = match line {
            LedgerLine::Charges {
                day,
                key_id,
                key_name,
                calls,
                credits,
                balance_after,
                ..
            } => [
                day.format("%Y-%m-%d").to_string(),
                "charges".to_owned(),
                key_id.to_string(),
                csv_text(key_name.as_deref().unwrap_or_default()),
                String::new(),
                calls.to_string(),
                format!("-{credits}"),
                balance_after.to_string(),
            ],
            LedgerLine::Entry(entry) => [
                entry
                    .created_at
                    .to_rfc3339_opts(SecondsFormat::Millis, true),
                "entry".to_owned(),
                entry
                    .key_id
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                String::new(),
                csv_text(&entry.operation),
                String::new(),
                entry.amount.to_string(),
                entry.balance_after.to_string(),
            ],
        };
        csv.push_str(&row.join(","));
        csv.push_str("\r\n");
    }
    let file = format!(
        "attachment; filename=\"forumdex-ledger-{}.csv\"",
        month_param(first)
    );
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, file),
        ],
        csv,
    )
        .into_response())
}

/// A text cell of the CSV export: quoted, quotes doubled, and a leading `=`, `+`, `-` or `@`
/// defused so that a spreadsheet does not run a key's name as a formula.
fn csv_text(text: &str) -> String {
    let defused = if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_owned()
    };
    format!("\"{}\"", defused.replace('"', "\"\""))
}

/// The low-balance alert form: a threshold in credits (empty or 0: off).
#[derive(Debug, Deserialize)]
pub struct AlertForm {
    csrf: String,
    #[serde(default)]
    threshold: String,
}

/// `POST /dashboard/billing/alert`: sets or turns off the low-balance mail.
pub async fn set_alert(
    State(dashboard): State<Arc<Dashboard>>,
    signed_in: SignedIn,
    PageForm(form): PageForm<AlertForm>,
) -> Result<Response, PageError> {
    signed_in.check_csrf(&form.csrf)?;
    let threshold = match form.threshold.trim() {
        "" | "0" => None,
        text => Some(
            text.parse::<u64>()
                .ok()
                .filter(|&credits| credits <= MAX_ALERT)
                .ok_or_else(|| {
                    PageError::BadRequest(format!(
                        "{text:?} is not a number of credits from 1 to {MAX_ALERT} (empty turns the alert off)."
                    ))
                })?,
        ),
    };
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    blocking(move || Ok(store.set_low_balance_alert(account, threshold)?)).await?;
    Ok(Redirect::to("/dashboard/billing?alert=1#alert").into_response())
}

/// The largest threshold accepted.
const MAX_ALERT: u64 = 1_000_000_000;

/// The low-balance alert's section.
fn alert_section(csrf: &str, threshold: Option<u64>) -> Markup {
    html! {
        h2 #alert { "Low-balance email" }
        p { @match threshold {
            Some(credits) => { "We mail you once when your balance falls below " strong { (credits) } " credits." }
            None => { "Off: set a number of credits to be mailed once when your balance falls below it." }
        } }
        form #alert-form.inline method="post" action="/dashboard/billing/alert" {
            input type="hidden" name="csrf" value=(csrf);
            label for="threshold" { "Mail me below (credits; empty: off)" }
            input #threshold type="number" name="threshold" min="0" max=(MAX_ALERT) inputmode="numeric"
                value=[threshold];
            button type="submit" { "Save" }
        }
    }
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
    let now = dashboard.clock.now();
    let first = ledger_month(query.month.as_deref(), now)?;
    let store = Arc::clone(&dashboard.store);
    let account = signed_in.account_id;
    let (balance, topups, alert) = blocking(move || {
        Ok((
            store.balance(account)?,
            store.topups(account)?,
            store.low_balance_alert(account)?,
        ))
    })
    .await?;
    let (ledger, older) = read_ledger(&dashboard, &signed_in, first).await?;
    let flash = query
        .topup
        .and_then(|id| {
            topups
                .iter()
                .find(|topup| topup.id == id)
                .map(|topup| checkout_flash(topup, query.cancelled.is_some()))
        })
        .or_else(|| {
            query
                .alert
                .map(|_| Flash::Success("Low-balance email saved.".to_owned()))
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
            div.table-wrap tabindex="0" { table #topups.stack {
                thead { tr { th { "Ordered" } th.num { "Credits" } th { "Price" } th { "Status" } th { "Refunded" } th { "Receipt" } } }
                tbody { @for topup in &topups {
                    tr data-topup-id=(topup.id) {
                        td data-label="Ordered" { (when(topup.created_at)) }
                        td.num data-label="Credits" { (topup.credits) }
                        td data-label="Price" { (format_money(topup.amount_cents, &topup.currency)) }
                        td data-label="Status" { (status_badge(topup.status)) }
                        td data-label="Refunded" { @if topup.refunded_cents > 0 { (format_money(topup.refunded_cents, &topup.currency)) " (" (topup.refunded_credits) " credits)" } @else { "—" } }
                        td data-label="Receipt" { @if receipts::has_receipt(topup) { a href=(receipts::path(topup)) { (receipts::number(topup)) } } @else { "—" } }
                    }
                } }
            } }
        }
        (alert_section(&signed_in.csrf, alert))
        (ledger_section(&ledger, first, older, now))
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
