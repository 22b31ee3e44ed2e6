//! The seam: what a payment provider does for forumdex, and how it fails.

/// A top-up order to pay through a hosted checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutRequest {
    /// Our top-up order id; the provider echoes it back in its webhooks.
    pub topup_id: i64,
    /// Credits bought, for the line item's description.
    pub credits: u64,
    /// The price in the currency's minor unit (cents for `usd`).
    pub amount_cents: u64,
    /// ISO 4217 code, lowercase, e.g. `usd`.
    pub currency: String,
    /// Prefilled on the checkout page and used for the receipt.
    pub customer_email: String,
    /// Absolute URL the payer returns to after paying. Proves nothing: only webhooks credit.
    pub success_url: String,
    /// Absolute URL the payer returns to after giving up.
    pub cancel_url: String,
}

/// A hosted checkout created for a top-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// Where to send the payer.
    pub url: String,
    /// The provider's checkout session id (`cs_...`), as found in its webhooks.
    pub reference: String,
}

/// Why a payment provider could not serve a request.
#[derive(Debug, thiserror::Error)]
pub enum PaymentError {
    /// The HTTP client could not be built.
    #[error("cannot build the payment http client: {0}")]
    Client(String),
    /// The provider could not be reached, or did not answer in time.
    #[error("payment provider unreachable: {0}")]
    Unreachable(String),
    /// The provider answered with an error status.
    #[error("payment provider refused the request (http {status}): {message}")]
    Refused {
        /// The HTTP status of the answer.
        status: u16,
        /// The provider's own explanation (Stripe's `error.message`).
        message: String,
    },
    /// The provider answered success with a body we cannot use.
    #[error("malformed payment provider answer: {0}")]
    Malformed(String),
}

/// A payment provider: creates checkouts and signs the webhooks reporting their outcome.
#[async_trait::async_trait]
pub trait PaymentProvider: Send + Sync {
    /// "stripe" or "test".
    fn name(&self) -> &'static str;

    /// Creates a hosted checkout for the order; idempotent per `topup_id`, provided the
    /// request is the same each time.
    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, PaymentError>;

    /// The secret that signs this provider's webhooks (Stripe's `whsec_...`).
    fn webhook_secret(&self) -> &str;
}
