//! The test provider: deterministic checkouts, events that verify and parse like Stripe's.

use forumdex_payments::event::{self, EventKind, WebhookEvent};
use forumdex_payments::signature::{self, DEFAULT_TOLERANCE_SECS};
use forumdex_payments::{CheckoutRequest, PaymentProvider, TestOutcome, TestProvider};

const SECRET: &str = "whsec_local_demo";
const NOW: i64 = 1_700_000_000;

fn provider() -> TestProvider {
    TestProvider::new("http://127.0.0.1:8080/", SECRET.to_owned())
}

/// Verifies with the provider's secret, as the webhook handler does, then parses.
fn receive(provider: &TestProvider, (body, header): (Vec<u8>, String)) -> WebhookEvent {
    let timestamp = signature::verify(
        provider.webhook_secret(),
        &header,
        &body,
        NOW,
        DEFAULT_TOLERANCE_SECS,
    )
    .expect("the signature verifies");
    assert_eq!(timestamp, NOW);
    event::parse(&body).expect("the body parses")
}

#[tokio::test]
async fn checkouts_are_deterministic_per_topup() {
    let provider = provider();
    let request = CheckoutRequest {
        topup_id: 7,
        credits: 500,
        amount_cents: 500,
        currency: "usd".to_owned(),
        customer_email: "dev@example.com".to_owned(),
        success_url: "http://127.0.0.1:8080/dashboard".to_owned(),
        cancel_url: "http://127.0.0.1:8080/dashboard".to_owned(),
    };
    let first = provider.create_checkout(&request).await.expect("created");
    let again = provider.create_checkout(&request).await.expect("created");
    assert_eq!(first, again);
    assert_eq!(first.url, "http://127.0.0.1:8080/dashboard/test-checkout/7");
    assert_eq!(first.reference, "cs_test_7");
    assert_eq!(provider.name(), "test");
}

#[test]
fn pay_is_a_paid_completed_checkout() {
    let provider = provider();
    let received = receive(
        &provider,
        provider.event(TestOutcome::Pay, "cs_test_7", 7, 500, "USD", NOW),
    );
    assert!(received.id.starts_with("evt_test_"), "{}", received.id);
    assert_eq!(received.created, NOW);
    let EventKind::CheckoutCompleted(outcome) = received.kind else {
        panic!("expected a completed checkout, got {:?}", received.kind);
    };
    assert_eq!(outcome.session_id, "cs_test_7");
    assert_eq!(outcome.topup_id, Some(7));
    assert_eq!(outcome.amount_total, 500);
    assert_eq!(outcome.currency, "usd");
    assert!(outcome.paid);
    assert_eq!(outcome.payment_intent.as_deref(), Some("pi_test_7"));
}

#[test]
fn fail_is_an_unpaid_async_failure() {
    let provider = provider();
    let received = receive(
        &provider,
        provider.event(TestOutcome::Fail, "cs_test_8", 8, 900, "eur", NOW),
    );
    let EventKind::AsyncPaymentFailed(outcome) = received.kind else {
        panic!("expected a failed payment, got {:?}", received.kind);
    };
    assert_eq!(
        (outcome.topup_id, outcome.amount_total, outcome.paid),
        (Some(8), 900, false)
    );
}

#[test]
fn expire_is_an_unpaid_expired_checkout() {
    let provider = provider();
    let received = receive(
        &provider,
        provider.event(TestOutcome::Expire, "cs_test_9", 9, 100, "usd", NOW),
    );
    let EventKind::CheckoutExpired(outcome) = received.kind else {
        panic!("expected an expired checkout, got {:?}", received.kind);
    };
    assert_eq!(
        (outcome.topup_id, outcome.amount_total, outcome.paid),
        (Some(9), 100, false)
    );
    assert_eq!(outcome.payment_intent, None);
}

#[test]
fn refund_event_refers_to_the_payment_intent() {
    let provider = provider();
    let received = receive(&provider, provider.refund_event(7, 500, 200, "usd", NOW));
    let EventKind::Refunded(refund) = received.kind else {
        panic!("expected a refund, got {:?}", received.kind);
    };
    assert_eq!(refund.payment_intent, "pi_test_7");
    assert_eq!((refund.amount, refund.amount_refunded), (500, 200));
    assert_eq!(refund.currency, "usd");
}

#[test]
fn event_ids_are_unique() {
    let provider = provider();
    let first = receive(
        &provider,
        provider.event(TestOutcome::Pay, "cs_test_7", 7, 500, "usd", NOW),
    );
    let again = receive(
        &provider,
        provider.event(TestOutcome::Pay, "cs_test_7", 7, 500, "usd", NOW),
    );
    assert_ne!(first.id, again.id);
    assert_eq!(first.id.len(), "evt_test_".len() + 32);
}

#[test]
fn events_do_not_verify_under_another_secret() {
    let (body, header) = provider().event(TestOutcome::Pay, "cs_test_7", 7, 500, "usd", NOW);
    assert!(signature::verify("whsec_other", &header, &body, NOW, DEFAULT_TOLERANCE_SECS).is_err());
}
