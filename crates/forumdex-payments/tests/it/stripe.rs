//! `StripeProvider` against a local server playing Stripe's checkout endpoint.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Form, Json, Router};
use forumdex_payments::{CheckoutRequest, PaymentError, PaymentProvider, StripeProvider};
use serde_json::{Value, json};

const SECRET_KEY: &str = "sk_test_51SecretKeyThatMustNeverLeak";
const WEBHOOK_SECRET: &str = "whsec_stripe_test";

/// What the fake Stripe saw: headers and form fields of each request.
type Seen = Arc<Mutex<Vec<(HeaderMap, HashMap<String, String>)>>>;

/// Serves `answer` on `POST /v1/checkout/sessions`, recording requests; returns the API base.
async fn fake_stripe(status: StatusCode, answer: Value) -> (String, Seen) {
    let seen = Seen::default();
    let app = Router::new()
        .route(
            "/v1/checkout/sessions",
            post(
                move |State(seen): State<Seen>,
                      headers: HeaderMap,
                      Form(form): Form<HashMap<String, String>>| async move {
                    seen.lock().expect("not poisoned").push((headers, form));
                    (status, Json(answer)).into_response()
                },
            ),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let address = listener.local_addr().expect("has an address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{address}"), seen)
}

fn provider(api_base: String) -> StripeProvider {
    StripeProvider::new(SECRET_KEY.to_owned(), WEBHOOK_SECRET.to_owned(), api_base)
        .expect("the client builds")
}

fn request() -> CheckoutRequest {
    CheckoutRequest {
        topup_id: 42,
        credits: 10_000,
        amount_cents: 1000,
        currency: "usd".to_owned(),
        customer_email: "dev@example.com".to_owned(),
        success_url: "https://forumdex.example/dashboard/credits?topup=42".to_owned(),
        cancel_url: "https://forumdex.example/dashboard/credits?cancelled=1".to_owned(),
    }
}

#[tokio::test]
async fn creates_a_checkout_session() {
    let answer = json!({
        "id": "cs_test_a1",
        "object": "checkout.session",
        "url": "https://checkout.stripe.com/c/pay/cs_test_a1",
        "payment_status": "unpaid",
        "status": "open",
    });
    let (api_base, seen) = fake_stripe(StatusCode::OK, answer).await;
    // A trailing slash on the base is tolerated.
    let stripe = provider(format!("{api_base}/"));

    let checkout = stripe.create_checkout(&request()).await.expect("created");

    assert_eq!(checkout.reference, "cs_test_a1");
    assert_eq!(checkout.url, "https://checkout.stripe.com/c/pay/cs_test_a1");
    assert_eq!(stripe.name(), "stripe");
    assert_eq!(stripe.webhook_secret(), WEBHOOK_SECRET);
    let seen = seen.lock().expect("not poisoned");
    let [(headers, form)] = seen.as_slice() else {
        panic!("expected one request, saw {}", seen.len());
    };
    assert_eq!(
        headers["authorization"],
        format!("Bearer {SECRET_KEY}").as_str()
    );
    assert_eq!(headers["idempotency-key"], "forumdex-topup-42");
    assert_eq!(headers["content-type"], "application/x-www-form-urlencoded");
    let expected: HashMap<String, String> = [
        ("mode", "payment"),
        ("client_reference_id", "42"),
        ("customer_email", "dev@example.com"),
        (
            "success_url",
            "https://forumdex.example/dashboard/credits?topup=42",
        ),
        (
            "cancel_url",
            "https://forumdex.example/dashboard/credits?cancelled=1",
        ),
        ("metadata[topup_id]", "42"),
        ("metadata[credits]", "10000"),
        ("line_items[0][quantity]", "1"),
        ("line_items[0][price_data][currency]", "usd"),
        ("line_items[0][price_data][unit_amount]", "1000"),
        (
            "line_items[0][price_data][product_data][name]",
            "10000 forumdex credits",
        ),
    ]
    .into_iter()
    .map(|(key, value)| (key.to_owned(), value.to_owned()))
    .collect();
    assert_eq!(form, &expected);
}

#[tokio::test]
async fn a_refusal_carries_stripes_message_and_not_the_key() {
    let answer = json!({
        "error": {
            "message": "No such price",
            "type": "invalid_request_error",
            "request_log_url": "https://dashboard.stripe.com/test/logs/req_1",
        }
    });
    let (api_base, _seen) = fake_stripe(StatusCode::BAD_REQUEST, answer).await;

    let error = provider(api_base)
        .create_checkout(&request())
        .await
        .expect_err("refused");

    assert!(
        matches!(&error, PaymentError::Refused { status: 400, message } if message == "No such price"),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("No such price"), "{message}");
    assert!(!message.contains(SECRET_KEY), "{message}");
    assert!(!format!("{error:?}").contains(SECRET_KEY));
}

#[tokio::test]
async fn a_refusal_echoing_the_key_is_redacted() {
    let answer =
        json!({ "error": { "message": format!("Invalid API Key provided: {SECRET_KEY}") } });
    let (api_base, _seen) = fake_stripe(StatusCode::UNAUTHORIZED, answer).await;

    let error = provider(api_base)
        .create_checkout(&request())
        .await
        .expect_err("refused");

    let message = error.to_string();
    assert!(message.contains("http 401"), "{message}");
    assert!(
        message.contains("Invalid API Key provided: [redacted]"),
        "{message}"
    );
    assert!(!message.contains(SECRET_KEY), "{message}");
}

#[tokio::test]
async fn a_success_without_url_is_malformed() {
    let (api_base, _seen) = fake_stripe(StatusCode::OK, json!({ "id": "cs_test_a1" })).await;

    let error = provider(api_base)
        .create_checkout(&request())
        .await
        .expect_err("malformed");

    assert!(matches!(error, PaymentError::Malformed(_)), "{error:?}");
}

#[tokio::test]
async fn an_unreachable_server_is_an_error() {
    // A port that was just free: nothing listens there once the listener is dropped.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let address = listener.local_addr().expect("has an address");
    drop(listener);

    let error = provider(format!("http://{address}"))
        .create_checkout(&request())
        .await
        .expect_err("unreachable");

    assert!(matches!(error, PaymentError::Unreachable(_)), "{error:?}");
    assert!(!error.to_string().contains(SECRET_KEY));
}

#[test]
fn debug_does_not_show_the_keys() {
    let stripe = provider("https://api.stripe.com".to_owned());
    let debug = format!("{stripe:?}");
    assert!(!debug.contains(SECRET_KEY), "{debug}");
    assert!(!debug.contains(WEBHOOK_SECRET), "{debug}");
}
