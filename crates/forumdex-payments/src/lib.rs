//! The payment-provider seam of forumdex: developers top up prepaid credits through a hosted
//! checkout, and the provider reports the outcome through signed webhooks.
//!
//! - [`PaymentProvider`] creates a checkout for a top-up order ([`CheckoutRequest`] ->
//!   [`Checkout`]) and holds the secret that signs its webhooks.
//! - [`StripeProvider`] talks to Stripe Checkout; [`TestProvider`] is a local stand-in for
//!   demos and tests whose webhooks are signed exactly like Stripe's, so both go through the
//!   same verification.
//! - [`CreditPack`]s are what a top-up buys (setting `credit_packs`).
//! - [`signature`] signs and verifies `Stripe-Signature` headers; [`event`] parses a verified
//!   webhook body into a [`WebhookEvent`].
//!
//! Invariant: this crate never credits anything. The store credits an account from a parsed
//! [`WebhookEvent`] only, after [`signature::verify`] accepted its body; the redirect back
//! from a checkout proves nothing.

#![forbid(unsafe_code)]

pub mod event;
pub mod pack;
pub mod provider;
pub mod signature;
pub mod stripe;
pub mod test_provider;

pub use event::{CheckoutOutcome, EventError, EventKind, Refund, WebhookEvent};
pub use pack::{CreditPack, DEFAULT_CREDIT_PACKS, PackParseError, format_money};
pub use provider::{Checkout, CheckoutRequest, PaymentError, PaymentProvider};
pub use signature::{DEFAULT_TOLERANCE_SECS, SignatureError};
pub use stripe::{STRIPE_API_BASE, StripeProvider};
pub use test_provider::{TestOutcome, TestProvider};
