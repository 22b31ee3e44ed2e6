//! Parsing Stripe's webhook event JSON.

use forumdex_payments::event::{self, CheckoutOutcome, EventError, EventKind, Refund};
use serde_json::{Value, json};

const COMPLETED: &[u8] = include_bytes!("fixtures/checkout_session_completed.json");
const REFUNDED: &[u8] = include_bytes!("fixtures/charge_refunded.json");

/// The completed-session fixture, to derive variants from.
fn completed() -> Value {
    serde_json::from_slice(COMPLETED).expect("the fixture is json")
}

fn parse(value: &Value) -> Result<event::WebhookEvent, EventError> {
    event::parse(&serde_json::to_vec(value).expect("a json value serializes"))
}

/// The fixture's session with another payment status and payment intent.
fn outcome(paid: bool, payment_intent: Option<&str>) -> CheckoutOutcome {
    CheckoutOutcome {
        session_id: "cs_test_a1b2c3d4e5".to_owned(),
        topup_id: Some(42),
        amount_total: 1000,
        currency: "usd".to_owned(),
        paid,
        payment_intent: payment_intent.map(str::to_owned),
    }
}

#[test]
fn checkout_session_completed_ignores_extra_fields() {
    let parsed = event::parse(COMPLETED).expect("the fixture parses");
    assert_eq!(parsed.id, "evt_1PqRsTLkdIwHu7ixAbCdEfGh");
    assert_eq!(parsed.created, 1_700_000_123);
    assert_eq!(
        parsed.kind,
        EventKind::CheckoutCompleted(outcome(true, Some("pi_3PqRsTLkdIwHu7ix0AbCdEfG")))
    );
}

#[test]
fn completed_but_unpaid_is_not_paid() {
    let mut value = completed();
    value["data"]["object"]["payment_status"] = json!("unpaid");
    let parsed = parse(&value).expect("parses");
    assert_eq!(
        parsed.kind,
        EventKind::CheckoutCompleted(outcome(false, Some("pi_3PqRsTLkdIwHu7ix0AbCdEfG")))
    );
}

#[test]
fn no_payment_required_counts_as_paid() {
    let mut value = completed();
    value["data"]["object"]["payment_status"] = json!("no_payment_required");
    let EventKind::CheckoutCompleted(outcome) = parse(&value).expect("parses").kind else {
        panic!("expected a completed checkout");
    };
    assert!(outcome.paid);
}

#[test]
fn expired_session() {
    let mut value = completed();
    value["type"] = json!("checkout.session.expired");
    value["data"]["object"]["payment_status"] = json!("unpaid");
    value["data"]["object"]["status"] = json!("expired");
    value["data"]["object"]["payment_intent"] = Value::Null;
    let parsed = parse(&value).expect("parses");
    assert_eq!(
        parsed.kind,
        EventKind::CheckoutExpired(outcome(false, None))
    );
}

#[test]
fn async_payment_failed_and_succeeded() {
    let mut value = completed();
    value["type"] = json!("checkout.session.async_payment_failed");
    value["data"]["object"]["payment_status"] = json!("unpaid");
    assert_eq!(
        parse(&value).expect("parses").kind,
        EventKind::AsyncPaymentFailed(outcome(false, Some("pi_3PqRsTLkdIwHu7ix0AbCdEfG")))
    );
    value["type"] = json!("checkout.session.async_payment_succeeded");
    value["data"]["object"]["payment_status"] = json!("paid");
    assert_eq!(
        parse(&value).expect("parses").kind,
        EventKind::AsyncPaymentSucceeded(outcome(true, Some("pi_3PqRsTLkdIwHu7ix0AbCdEfG")))
    );
}

#[test]
fn charge_refunded() {
    let parsed = event::parse(REFUNDED).expect("the fixture parses");
    assert_eq!(parsed.id, "evt_3PqRsTLkdIwHu7ix1ZyXwVuT");
    assert_eq!(
        parsed.kind,
        EventKind::Refunded(Refund {
            payment_intent: "pi_3PqRsTLkdIwHu7ix0AbCdEfG".to_owned(),
            amount_refunded: 400,
            amount: 1000,
            currency: "eur".to_owned(),
        })
    );
}

#[test]
fn refund_without_payment_intent_is_an_error() {
    let mut value: Value = serde_json::from_slice(REFUNDED).expect("the fixture is json");
    value["data"]["object"]["payment_intent"] = Value::Null;
    assert_eq!(
        parse(&value),
        Err(EventError::MissingField("data.object.payment_intent"))
    );
}

#[test]
fn unknown_type_is_other_and_needs_no_object_fields() {
    let value = json!({
        "id": "evt_1",
        "type": "customer.created",
        "created": 1_700_000_000,
        "data": { "object": { "id": "cus_1", "object": "customer" } },
    });
    let parsed = parse(&value).expect("parses");
    assert_eq!(parsed.kind, EventKind::Other("customer.created".to_owned()));
}

#[test]
fn topup_id_falls_back_to_metadata() {
    let mut value = completed();
    value["data"]["object"]["client_reference_id"] = Value::Null;
    value["data"]["object"]["metadata"]["topup_id"] = json!("77");
    let EventKind::CheckoutCompleted(outcome) = parse(&value).expect("parses").kind else {
        panic!("expected a completed checkout");
    };
    assert_eq!(outcome.topup_id, Some(77));

    value["data"]["object"]["client_reference_id"] = json!("not-ours");
    let EventKind::CheckoutCompleted(outcome) = parse(&value).expect("parses").kind else {
        panic!("expected a completed checkout");
    };
    assert_eq!(outcome.topup_id, Some(77));
}

#[test]
fn a_foreign_checkout_has_no_topup_id() {
    let mut value = completed();
    value["data"]["object"]["client_reference_id"] = Value::Null;
    value["data"]["object"]["metadata"] = json!({});
    let EventKind::CheckoutCompleted(outcome) = parse(&value).expect("parses").kind else {
        panic!("expected a completed checkout");
    };
    assert_eq!(outcome.topup_id, None);
}

#[test]
fn expanded_payment_intent_gives_its_id() {
    let mut value = completed();
    value["data"]["object"]["payment_intent"] = json!({ "id": "pi_x", "object": "payment_intent" });
    let EventKind::CheckoutCompleted(outcome) = parse(&value).expect("parses").kind else {
        panic!("expected a completed checkout");
    };
    assert_eq!(outcome.payment_intent.as_deref(), Some("pi_x"));
}

#[test]
fn missing_fields_are_named() {
    let removals: [(&[&str], &str); 8] = [
        (&["id"], "id"),
        (&["type"], "type"),
        (&["created"], "created"),
        (&["data"], "data.object.payment_status"),
        (&["data", "object", "id"], "data.object.id"),
        (
            &["data", "object", "amount_total"],
            "data.object.amount_total",
        ),
        (&["data", "object", "currency"], "data.object.currency"),
        (
            &["data", "object", "payment_status"],
            "data.object.payment_status",
        ),
    ];
    for (path, field) in removals {
        let mut value = completed();
        let (last, parents) = path.split_last().expect("paths are not empty");
        let parent = parents
            .iter()
            .fold(&mut value, |value, key| &mut value[*key]);
        parent.as_object_mut().expect("an object").remove(*last);
        assert_eq!(
            parse(&value),
            Err(EventError::MissingField(field)),
            "removed {path:?}"
        );
    }
}

#[test]
fn wrongly_typed_fields_are_named() {
    let mut value = completed();
    value["data"]["object"]["amount_total"] = json!(-5);
    assert_eq!(
        parse(&value),
        Err(EventError::InvalidField {
            field: "data.object.amount_total",
            expected: "a non-negative integer"
        })
    );
    let mut value = completed();
    value["created"] = json!("yesterday");
    assert_eq!(
        parse(&value),
        Err(EventError::InvalidField {
            field: "created",
            expected: "an integer"
        })
    );
}

#[test]
fn non_json_and_non_objects_are_errors() {
    for body in [&b""[..], b"not json", b"[]", b"42", b"null", b"{\"id\":"] {
        assert!(
            matches!(event::parse(body), Err(EventError::Json(_))),
            "body {body:?}"
        );
    }
}
