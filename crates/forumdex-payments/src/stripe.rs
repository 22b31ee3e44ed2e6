//! Stripe Checkout over Stripe's HTTP API (`POST /v1/checkout/sessions`).

use std::fmt;
use std::time::Duration;

use serde::Deserialize;

use crate::provider::{Checkout, CheckoutRequest, PaymentError, PaymentProvider};

/// Stripe's API root, without a trailing slash.
pub const STRIPE_API_BASE: &str = "https://api.stripe.com";

/// How long one call to Stripe may take, connecting included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Stripe's error answers are short; a longer unparseable body is cut to this many characters.
const MAX_ERROR_CHARS: usize = 200;

/// Stripe Checkout: hosted payment pages, outcomes reported by signed webhooks.
pub struct StripeProvider {
    client: reqwest::Client,
    /// `sk_...`: sent as a bearer token only, never logged nor put into an error.
    secret_key: String,
    webhook_secret: String,
    api_base: String,
}

impl StripeProvider {
    /// A provider for the account of `secret_key`, whose webhook endpoint signs with
    /// `webhook_secret`; `api_base` is [`STRIPE_API_BASE`] except in tests.
    pub fn new(
        secret_key: String,
        webhook_secret: String,
        api_base: String,
    ) -> Result<Self, PaymentError> {
        let client = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|error| PaymentError::Client(error.to_string()))?;
        Ok(Self {
            client,
            secret_key,
            webhook_secret,
            api_base: api_base.trim_end_matches('/').to_owned(),
        })
    }

    /// A refusal's message: Stripe's `error.message`, else the start of the body, without the
    /// secret key should Stripe ever echo it.
    fn refusal_message(&self, body: &[u8]) -> String {
        let message = match serde_json::from_slice::<ErrorAnswer>(body) {
            Ok(answer) => answer.error.message,
            Err(_) => String::from_utf8_lossy(body)
                .chars()
                .take(MAX_ERROR_CHARS)
                .collect(),
        };
        if self.secret_key.is_empty() {
            return message;
        }
        message.replace(&self.secret_key, "[redacted]")
    }
}

impl fmt::Debug for StripeProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StripeProvider")
            .field("api_base", &self.api_base)
            .finish_non_exhaustive()
    }
}

#[async_trait::async_trait]
impl PaymentProvider for StripeProvider {
    fn name(&self) -> &'static str {
        "stripe"
    }

    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, PaymentError> {
        // Stripe replays the first answer for a repeated key (for 24 h) instead of creating a
        // second session, provided the parameters are the same.
        let idempotency_key = format!("forumdex-topup-{}", request.topup_id);
        let answer = self
            .client
            .post(format!("{}/v1/checkout/sessions", self.api_base))
            .bearer_auth(&self.secret_key)
            .header("Idempotency-Key", idempotency_key)
            .form(&session_form(request))
            .send()
            .await
            .map_err(|error| PaymentError::Unreachable(error_chain(&error)))?;
        let status = answer.status();
        let body = answer
            .bytes()
            .await
            .map_err(|error| PaymentError::Unreachable(error_chain(&error)))?;
        if !status.is_success() {
            return Err(PaymentError::Refused {
                status: status.as_u16(),
                message: self.refusal_message(&body),
            });
        }
        let session: SessionAnswer = serde_json::from_slice(&body)
            .map_err(|error| PaymentError::Malformed(error.to_string()))?;
        let url = session
            .url
            .ok_or_else(|| PaymentError::Malformed("checkout session without url".to_owned()))?;
        Ok(Checkout {
            url,
            reference: session.id,
        })
    }

    fn webhook_secret(&self) -> &str {
        &self.webhook_secret
    }
}

/// The form fields of a Checkout Session in payment mode with one ad hoc line item.
fn session_form(request: &CheckoutRequest) -> Vec<(&'static str, String)> {
    vec![
        ("mode", "payment".to_owned()),
        ("client_reference_id", request.topup_id.to_string()),
        ("customer_email", request.customer_email.clone()),
        ("success_url", request.success_url.clone()),
        ("cancel_url", request.cancel_url.clone()),
        ("metadata[topup_id]", request.topup_id.to_string()),
        ("metadata[credits]", request.credits.to_string()),
        ("line_items[0][quantity]", "1".to_owned()),
        (
            "line_items[0][price_data][currency]",
            request.currency.to_ascii_lowercase(),
        ),
        (
            "line_items[0][price_data][unit_amount]",
            request.amount_cents.to_string(),
        ),
        (
            "line_items[0][price_data][product_data][name]",
            format!("{} forumdex credits", request.credits),
        ),
    ]
}

/// A reqwest error with its causes ("error sending request: connection refused").
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The part of a created Checkout Session we use.
#[derive(Deserialize)]
struct SessionAnswer {
    id: String,
    /// Null for embedded checkouts, which forumdex does not create.
    url: Option<String>,
}

/// Stripe's error answer: `{"error":{"message":..,"type":..}}`.
#[derive(Deserialize)]
struct ErrorAnswer {
    error: ErrorDetail,
}

#[derive(Deserialize)]
struct ErrorDetail {
    message: String,
}
