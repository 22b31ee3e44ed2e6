//! Stripe's webhook event JSON, reduced to what crediting needs.
//!
//! Only call [`parse`] on a body that [`crate::signature::verify`] accepted. Unknown fields are
//! ignored; unknown event types become [`EventKind::Other`].

use serde_json::Value;

/// A webhook event: Stripe's `{"id","type","created","data":{"object":{..}}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEvent {
    /// Stripe's event id (`evt_...`); the same event may be delivered more than once.
    pub id: String,
    /// When the event was created (unix seconds).
    pub created: i64,
    /// What happened.
    pub kind: EventKind,
}

/// What a webhook event reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// `checkout.session.completed`: paid now if [`CheckoutOutcome::paid`], else an
    /// asynchronous payment (bank debit) is still pending.
    CheckoutCompleted(CheckoutOutcome),
    /// `checkout.session.async_payment_succeeded`: a pending payment went through.
    AsyncPaymentSucceeded(CheckoutOutcome),
    /// `checkout.session.async_payment_failed`: a pending payment failed.
    AsyncPaymentFailed(CheckoutOutcome),
    /// `checkout.session.expired`: the checkout was abandoned.
    CheckoutExpired(CheckoutOutcome),
    /// `charge.refunded`: some or all of a payment was returned.
    Refunded(Refund),
    /// Any other event type, named; callers ignore it.
    Other(String),
}

/// The state of a checkout session, from a `checkout.session.*` event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutOutcome {
    /// The checkout session id (`cs_...`), as in [`crate::Checkout::reference`].
    pub session_id: String,
    /// Our top-up id: `client_reference_id`, else `metadata.topup_id`; `None` when neither
    /// holds an integer (a checkout forumdex did not create).
    pub topup_id: Option<i64>,
    /// The amount charged, in the currency's minor unit.
    pub amount_total: u64,
    /// ISO 4217 code, lowercase.
    pub currency: String,
    /// Whether the money is in: `payment_status` is `paid` or `no_payment_required`.
    pub paid: bool,
    /// The payment intent (`pi_...`), which refunds refer to; absent until one exists.
    pub payment_intent: Option<String>,
}

/// A refund of a charge, from a `charge.refunded` event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refund {
    /// The payment intent (`pi_...`) of the refunded charge.
    pub payment_intent: String,
    /// Refunded so far, all refunds of the charge together, in the minor unit.
    pub amount_refunded: u64,
    /// The charge's amount, in the minor unit.
    pub amount: u64,
    /// ISO 4217 code, lowercase.
    pub currency: String,
}

/// Why a webhook body is not a usable event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// The body is not a JSON object.
    #[error("webhook body is not a json object: {0}")]
    Json(String),
    /// A required field is absent or null.
    #[error("missing field {0}")]
    MissingField(&'static str),
    /// A field holds the wrong kind of value.
    #[error("field {field} is not {expected}")]
    InvalidField {
        /// The field's path, e.g. `data.object.amount_total`.
        field: &'static str,
        /// What it should be, e.g. `a non-negative integer`.
        expected: &'static str,
    },
}

/// Parses a (verified) webhook body.
pub fn parse(payload: &[u8]) -> Result<WebhookEvent, EventError> {
    let root: Value =
        serde_json::from_slice(payload).map_err(|error| EventError::Json(error.to_string()))?;
    if !root.is_object() {
        return Err(EventError::Json("expected an object".to_owned()));
    }
    let id = string(&root, "id")?;
    let event_type = string(&root, "type")?;
    let created = required(&root, "created")?
        .as_i64()
        .ok_or(EventError::InvalidField {
            field: "created",
            expected: "an integer",
        })?;
    let kind = match event_type.as_str() {
        "checkout.session.completed" => EventKind::CheckoutCompleted(checkout_outcome(&root)?),
        "checkout.session.async_payment_succeeded" => {
            EventKind::AsyncPaymentSucceeded(checkout_outcome(&root)?)
        }
        "checkout.session.async_payment_failed" => {
            EventKind::AsyncPaymentFailed(checkout_outcome(&root)?)
        }
        "checkout.session.expired" => EventKind::CheckoutExpired(checkout_outcome(&root)?),
        "charge.refunded" => EventKind::Refunded(refund(&root)?),
        _ => EventKind::Other(event_type),
    };
    Ok(WebhookEvent { id, created, kind })
}

/// `data.object` of a `checkout.session.*` event.
fn checkout_outcome(root: &Value) -> Result<CheckoutOutcome, EventError> {
    let payment_status = string(root, "data.object.payment_status")?;
    Ok(CheckoutOutcome {
        session_id: string(root, "data.object.id")?,
        topup_id: topup_id(root),
        amount_total: amount(root, "data.object.amount_total")?,
        currency: string(root, "data.object.currency")?.to_ascii_lowercase(),
        paid: matches!(payment_status.as_str(), "paid" | "no_payment_required"),
        payment_intent: payment_intent(root)?,
    })
}

/// `data.object` (a charge) of a `charge.refunded` event.
fn refund(root: &Value) -> Result<Refund, EventError> {
    Ok(Refund {
        payment_intent: payment_intent(root)?
            .ok_or(EventError::MissingField("data.object.payment_intent"))?,
        amount_refunded: amount(root, "data.object.amount_refunded")?,
        amount: amount(root, "data.object.amount")?,
        currency: string(root, "data.object.currency")?.to_ascii_lowercase(),
    })
}

/// `client_reference_id` as an integer, else `metadata.topup_id` (a string in Stripe's
/// metadata, tolerated as a number).
fn topup_id(root: &Value) -> Option<i64> {
    let as_id = |value: &Value| match value {
        Value::String(text) => text.trim().parse::<i64>().ok(),
        Value::Number(number) => number.as_i64(),
        _ => None,
    };
    [
        "data.object.client_reference_id",
        "data.object.metadata.topup_id",
    ]
    .into_iter()
    .find_map(|path| lookup(root, path).and_then(as_id))
}

/// `data.object.payment_intent`: an id, or an expanded object carrying one, or null.
fn payment_intent(root: &Value) -> Result<Option<String>, EventError> {
    const FIELD: &str = "data.object.payment_intent";
    match lookup(root, FIELD) {
        None => Ok(None),
        Some(Value::String(id)) => Ok(Some(id.clone())),
        Some(Value::Object(expanded)) => match expanded.get("id") {
            Some(Value::String(id)) => Ok(Some(id.clone())),
            _ => Err(EventError::InvalidField {
                field: FIELD,
                expected: "an id",
            }),
        },
        Some(_) => Err(EventError::InvalidField {
            field: FIELD,
            expected: "an id",
        }),
    }
}

fn string(root: &Value, field: &'static str) -> Result<String, EventError> {
    required(root, field)?
        .as_str()
        .map(str::to_owned)
        .ok_or(EventError::InvalidField {
            field,
            expected: "a string",
        })
}

fn amount(root: &Value, field: &'static str) -> Result<u64, EventError> {
    required(root, field)?
        .as_u64()
        .ok_or(EventError::InvalidField {
            field,
            expected: "a non-negative integer",
        })
}

fn required<'a>(root: &'a Value, field: &'static str) -> Result<&'a Value, EventError> {
    lookup(root, field).ok_or(EventError::MissingField(field))
}

/// The value at a dotted path; a null counts as absent (Stripe writes null for "none").
fn lookup<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.')
        .try_fold(root, |value, key| value.get(key))
        .filter(|value| !value.is_null())
}
