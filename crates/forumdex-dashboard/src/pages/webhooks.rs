//! `POST /webhooks/payments`: the payment provider's signed events. The signature
//! (`Stripe-Signature`: `t=...,v1=...`, HMAC-SHA256 of `t.` + the raw body, five minutes of
//! tolerance, constant-time comparison) is checked before anything is read; the event is
//! then applied by the store in one transaction (each event id once, with the owner's
//! activity line). An event ahead of its payment (a refund first) answers 503, so the
//! provider delivers it again. The test provider's
//! Pay / Fail / Expire buttons go through [`deliver`] exactly like a delivery over HTTP.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use forumdex_accounts::{CheckoutFacts, PaymentEvent, PaymentEventKind, PaymentOutcome};
use forumdex_payments::{CheckoutOutcome, EventKind, WebhookEvent, event, signature};
use forumdex_types::ErrorBody;
use serde_json::json;

use crate::Dashboard;
use crate::error::{PageError, blocking};
use crate::pages::receipts;

/// Why a delivery was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    /// No payment provider is configured.
    #[error("payments are not enabled")]
    Disabled,
    /// The signature is missing, wrong or stale.
    #[error("bad signature: {0}")]
    Signature(#[from] signature::SignatureError),
    /// The body is not an event we can read.
    #[error("unreadable event: {0}")]
    Event(#[from] event::EventError),
    /// The store failed (the provider retries).
    #[error(transparent)]
    Store(PageError),
}

fn facts(outcome: CheckoutOutcome) -> CheckoutFacts {
    CheckoutFacts {
        reference: outcome.session_id,
        topup_id: outcome.topup_id,
        amount: outcome.amount_total,
        currency: outcome.currency,
        paid: outcome.paid,
        payment_intent: outcome.payment_intent,
    }
}

/// The store's view of a provider event; `None` for types forumdex does not act on.
fn to_payment_event(event: WebhookEvent) -> Option<PaymentEvent> {
    let kind = match event.kind {
        EventKind::CheckoutCompleted(o) => PaymentEventKind::CheckoutCompleted(facts(o)),
        EventKind::AsyncPaymentSucceeded(o) => PaymentEventKind::PaymentSucceeded(facts(o)),
        EventKind::AsyncPaymentFailed(o) => PaymentEventKind::PaymentFailed(facts(o)),
        EventKind::CheckoutExpired(o) => PaymentEventKind::CheckoutExpired(facts(o)),
        EventKind::Refunded(refund) => PaymentEventKind::Refunded {
            payment_intent: refund.payment_intent,
            amount_refunded: refund.amount_refunded,
            currency: refund.currency,
        },
        EventKind::Other(_) => return None,
    };
    Some(PaymentEvent {
        event_id: event.id,
        kind,
    })
}

/// Verifies, reads and applies one delivery.
pub async fn deliver(
    dashboard: &Arc<Dashboard>,
    signature_header: &str,
    body: &[u8],
) -> Result<PaymentOutcome, DeliveryError> {
    let provider = dashboard
        .payments
        .provider()
        .ok_or(DeliveryError::Disabled)?;
    let now = dashboard.clock.now();
    signature::verify(
        provider.webhook_secret(),
        signature_header,
        body,
        now.timestamp(),
        signature::DEFAULT_TOLERANCE_SECS,
    )?;
    let Some(event) = to_payment_event(event::parse(body)?) else {
        return Ok(PaymentOutcome::Ignored("event type not used".to_owned()));
    };
    let store = Arc::clone(&dashboard.store);
    let outcome = blocking(move || Ok(store.apply_payment_event(&event, now)?))
        .await
        .map_err(DeliveryError::Store)?;
    if let PaymentOutcome::Credited { topup_id, .. } = outcome {
        let dashboard = Arc::clone(dashboard);
        tokio::spawn(async move { receipts::mail_receipt(&dashboard, topup_id).await });
    }
    Ok(outcome)
}

/// `POST /webhooks/payments`.
pub async fn receive(
    State(dashboard): State<Arc<Dashboard>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let header = headers
        .get("stripe-signature")
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    match deliver(&dashboard, header, &body).await {
        Ok(PaymentOutcome::NotYet(why)) => {
            tracing::info!(reason = %why, "payment event ahead of its payment; asked to deliver again");
            json_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the payment this event is about is not recorded yet; deliver again later",
            )
        }
        Ok(outcome) => {
            if let PaymentOutcome::Rejected(why) = &outcome {
                tracing::error!(reason = %why, "payment event rejected: nothing credited");
            }
            Json(json!({ "received": true, "outcome": format!("{outcome:?}") })).into_response()
        }
        Err(DeliveryError::Store(PageError::Internal(cause))) => {
            tracing::error!(error = %format!("{cause:#}"), "payment webhook failed");
            json_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "temporarily unavailable; deliver again later",
            )
        }
        Err(DeliveryError::Disabled) => {
            json_error(StatusCode::NOT_FOUND, "payments are not enabled")
        }
        Err(err) => {
            tracing::warn!(error = %err, "payment webhook refused");
            json_error(StatusCode::BAD_REQUEST, &err.to_string())
        }
    }
}

/// An error answer in the API's JSON error shape (the server adds the request id).
fn json_error(status: StatusCode, message: &str) -> Response {
    let body = ErrorBody {
        error: message.to_owned(),
        request_id: None,
        credits_charged: 0,
        source_ip: None,
        topup_url: None,
    };
    let mut response = (status, Json(body.clone())).into_response();
    response.extensions_mut().insert(body);
    response
}
