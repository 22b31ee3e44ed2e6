//! A local payment provider for demos and tests: checkouts are pages of our own dashboard,
//! and outcomes are Stripe-shaped events signed exactly like Stripe's, so they take the same
//! verification and parsing path as real webhooks.

use serde_json::{Value, json};

use crate::provider::{Checkout, CheckoutRequest, PaymentError, PaymentProvider};
use crate::signature;

/// What the payer does on a test checkout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestOutcome {
    /// Pays: `checkout.session.completed`, paid.
    Pay,
    /// Starts a payment that fails: `checkout.session.async_payment_failed`.
    Fail,
    /// Walks away: `checkout.session.expired`.
    Expire,
}

/// The test provider: no network, deterministic checkouts, self-signed webhooks.
#[derive(Debug, Clone)]
pub struct TestProvider {
    base_url: String,
    webhook_secret: String,
}

impl TestProvider {
    /// A provider whose checkout pages live under `base_url` (forumdex's own address) and
    /// whose events are signed with `webhook_secret`.
    pub fn new(base_url: &str, webhook_secret: String) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            webhook_secret,
        }
    }

    /// A Stripe-shaped event for the checkout `reference` of `topup_id`, as (body bytes,
    /// Stripe-Signature header value) signed with the webhook secret at `now_unix`.
    pub fn event(
        &self,
        outcome: TestOutcome,
        reference: &str,
        topup_id: i64,
        amount_cents: u64,
        currency: &str,
        now_unix: i64,
    ) -> (Vec<u8>, String) {
        let (event_type, payment_status, status, payment_intent) = match outcome {
            TestOutcome::Pay => (
                "checkout.session.completed",
                "paid",
                "complete",
                Some(payment_intent(topup_id)),
            ),
            TestOutcome::Fail => (
                "checkout.session.async_payment_failed",
                "unpaid",
                "complete",
                Some(payment_intent(topup_id)),
            ),
            TestOutcome::Expire => ("checkout.session.expired", "unpaid", "expired", None),
        };
        let session = json!({
            "id": reference,
            "object": "checkout.session",
            "amount_total": amount_cents,
            "client_reference_id": topup_id.to_string(),
            "currency": currency.to_ascii_lowercase(),
            "livemode": false,
            "metadata": { "topup_id": topup_id.to_string() },
            "mode": "payment",
            "payment_intent": payment_intent,
            "payment_status": payment_status,
            "status": status,
        });
        self.signed(event_type, session, now_unix)
    }

    /// A `charge.refunded` event for the payment of `topup_id`: `refunded_cents` of
    /// `amount_cents` returned so far, signed at `now_unix`.
    pub fn refund_event(
        &self,
        topup_id: i64,
        amount_cents: u64,
        refunded_cents: u64,
        currency: &str,
        now_unix: i64,
    ) -> (Vec<u8>, String) {
        let charge = json!({
            "id": format!("ch_test_{topup_id}"),
            "object": "charge",
            "amount": amount_cents,
            "amount_refunded": refunded_cents,
            "currency": currency.to_ascii_lowercase(),
            "livemode": false,
            "paid": true,
            "payment_intent": payment_intent(topup_id),
            "refunded": refunded_cents >= amount_cents,
            "status": "succeeded",
        });
        self.signed("charge.refunded", charge, now_unix)
    }

    /// Wraps `object` in an event envelope with a fresh id, and signs the body.
    fn signed(&self, event_type: &str, object: Value, now_unix: i64) -> (Vec<u8>, String) {
        let event = json!({
            "id": format!("evt_test_{}", hex::encode(rand::random::<[u8; 16]>())),
            "object": "event",
            "api_version": "2024-06-20",
            "created": now_unix,
            "data": { "object": object },
            "livemode": false,
            "pending_webhooks": 1,
            "type": event_type,
        });
        let body = serde_json::to_vec(&event).expect("a json value always serializes");
        let header = signature::sign(&self.webhook_secret, now_unix, &body);
        (body, header)
    }
}

/// The payment intent id the test provider gives the payment of `topup_id`.
fn payment_intent(topup_id: i64) -> String {
    format!("pi_test_{topup_id}")
}

#[async_trait::async_trait]
impl PaymentProvider for TestProvider {
    fn name(&self) -> &'static str {
        "test"
    }

    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, PaymentError> {
        Ok(Checkout {
            url: format!(
                "{}/dashboard/test-checkout/{}",
                self.base_url, request.topup_id
            ),
            reference: format!("cs_test_{}", request.topup_id),
        })
    }

    fn webhook_secret(&self) -> &str {
        &self.webhook_secret
    }
}
