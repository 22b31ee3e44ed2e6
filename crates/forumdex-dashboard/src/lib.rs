//! The developer dashboard (api-contract.md: sign-up, keys, allowlists and top-ups are done
//! "from a developer dashboard"): server-rendered pages served by `forumdex serve` on the API's
//! listener, working without JavaScript.
//!
//! - [`Dashboard`]: the state (settings, the [`DeveloperStore`], the [`Mailer`], the payment
//!   provider, the clock, sign-in throttling); [`router`]: its routes.
//! - [`pages`]: one module per page or flow; [`layout`]: the shell they share; [`chart`]: the
//!   server-side SVG of calls by outcome.
//! - [`session`]: browser sessions (random tokens stored as hashes, cookies) and the
//!   signed-in extractor; [`csrf`]: the checks every state-changing form passes;
//!   [`password`]: Argon2id; [`throttle`]: sign-in attempts per address and per account.
//! - [`mail`]: the mail seam (SMTP, or the outbox folder); [`config`]: settings and credit
//!   packs.

pub mod alerts;
pub mod assets;
pub mod chart;
pub mod config;
pub mod csrf;
pub mod error;
pub mod layout;
pub mod mail;
pub mod pages;
pub mod password;
pub mod second_factor;
pub mod secret_seal;
pub mod session;
pub mod throttle;

use std::net::IpAddr;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use forumdex_accounts::DeveloperStore;
use forumdex_clock::SharedClock;
use forumdex_payments::{PaymentProvider, StripeProvider, TestProvider};

pub use config::DashboardConfig;
pub use mail::{Mailer, OutboxMailer, SmtpMailer};

/// The client address the server saw (trusted proxies applied), inserted as a request
/// extension by the server before the dashboard's handlers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

/// The payment provider of top-ups (setting `payment_provider`).
pub enum Payments {
    /// None configured: top-ups are not offered.
    Disabled,
    /// Stripe Checkout.
    Stripe(Arc<StripeProvider>),
    /// The local test provider (demos and tests only).
    Test(Arc<TestProvider>),
}

impl Payments {
    /// The provider, unless disabled.
    pub fn provider(&self) -> Option<&dyn PaymentProvider> {
        match self {
            Self::Disabled => None,
            Self::Stripe(stripe) => Some(stripe.as_ref()),
            Self::Test(test) => Some(test.as_ref()),
        }
    }
}

/// Everything the dashboard's handlers share.
pub struct Dashboard {
    /// Settings.
    pub config: DashboardConfig,
    /// Accounts, keys, sessions, usage, top-ups.
    pub store: Arc<dyn DeveloperStore>,
    /// Where verification and reset mail goes.
    pub mailer: Arc<dyn Mailer>,
    /// The payment provider of top-ups.
    pub payments: Payments,
    /// The server's clock (tests move time instead of sleeping).
    pub clock: SharedClock,
    /// Sign-in attempts.
    pub throttle: throttle::Throttle,
    /// Password hashes computed at once (each takes 19 MiB and tens of milliseconds).
    hashing: tokio::sync::Semaphore,
    /// The API reference page, rendered once.
    docs: std::sync::OnceLock<String>,
}

impl Dashboard {
    /// The state, with fresh sign-in throttling.
    pub fn new(
        config: DashboardConfig,
        store: Arc<dyn DeveloperStore>,
        mailer: Arc<dyn Mailer>,
        payments: Payments,
        clock: SharedClock,
    ) -> Self {
        Self {
            config,
            store,
            mailer,
            payments,
            clock,
            throttle: throttle::Throttle::default(),
            hashing: tokio::sync::Semaphore::new(HASHES_AT_ONCE),
            docs: std::sync::OnceLock::new(),
        }
    }

    /// A turn to hash or check a password: at most [`HASHES_AT_ONCE`] run together, so a
    /// burst of sign-ins cannot take the machine's memory.
    pub async fn hashing(&self) -> Result<tokio::sync::SemaphorePermit<'_>, error::PageError> {
        self.hashing
            .acquire()
            .await
            .map_err(|err| error::PageError::Internal(err.into()))
    }

    /// The API reference's content, rendered on first use from `render`.
    pub fn docs(&self, render: impl FnOnce() -> String) -> &str {
        self.docs.get_or_init(render)
    }
}

/// Password hashes computed at once.
pub const HASHES_AT_ONCE: usize = 4;

/// What a browser gets for an address nothing answers: the HTML "not found" page with the
/// pages' security headers (the server answers other clients with the API's JSON 404).
pub fn not_found_page(dashboard: &Dashboard) -> axum::response::Response {
    use axum::response::IntoResponse;
    session::secure(dashboard, error::PageError::NotFound.into_response())
}

/// The dashboard's routes (the server merges them beside the API and adds its layers); `S`
/// is the state type of the router they join.
pub fn router<S: Clone + Send + Sync + 'static>(dashboard: Arc<Dashboard>) -> Router<S> {
    use pages::{
        account, activity, auth, billing, keys, overview, public, receipts, requests, sign_in_code,
        two_factor, usage, webhooks,
    };
    let pages = Router::new()
        .route("/", get(public::home_page))
        .route("/docs", get(public::docs_page))
        .route("/signup", get(auth::signup_form).post(auth::signup))
        .route("/signup/sent", get(auth::signup_sent))
        .route("/verify", get(auth::verify))
        .route("/verify/resend", post(auth::resend_verification))
        .route("/login", get(auth::login_form).post(auth::login))
        .route("/login/code", post(sign_in_code::submit))
        .route("/logout", post(auth::logout))
        .route("/logout/everywhere", post(auth::logout_everywhere))
        .route(
            "/password/forgot",
            get(auth::forgot_form).post(auth::forgot),
        )
        .route("/password/sent", get(auth::forgot_sent))
        .route("/password/reset", get(auth::reset_form).post(auth::reset))
        .route("/dashboard", get(overview::page))
        .route("/dashboard/keys", get(keys::list).post(keys::create))
        .route("/dashboard/keys/{key_id}", get(keys::detail))
        .route("/dashboard/keys/{key_id}/rename", post(keys::rename))
        .route("/dashboard/keys/{key_id}/renew", post(keys::renew))
        .route("/dashboard/keys/{key_id}/revoke", post(keys::revoke))
        .route("/dashboard/keys/{key_id}/allowlist", post(keys::allowlist))
        .route("/dashboard/usage", get(usage::page))
        .route("/dashboard/usage.csv", get(usage::csv))
        .route("/dashboard/requests", get(requests::page))
        .route("/dashboard/account", get(account::page))
        .route("/dashboard/account/delete", post(account::delete))
        .route("/dashboard/account/email", post(account::change_email))
        .route("/account/email/confirm", get(account::confirm_email))
        .route(
            "/dashboard/account/password",
            post(account::change_password),
        )
        .route(
            "/dashboard/account/sessions/end",
            post(account::end_session),
        )
        .route("/dashboard/account/export.json", get(account::export))
        .route("/dashboard/account/two-factor", get(two_factor::page))
        .route(
            "/dashboard/account/two-factor/enable",
            post(two_factor::enable),
        )
        .route(
            "/dashboard/account/two-factor/disable",
            post(two_factor::disable),
        )
        .route(
            "/dashboard/account/two-factor/recovery",
            post(two_factor::renew_codes),
        )
        .route("/dashboard/billing", get(billing::page))
        .route("/dashboard/billing/checkout", post(billing::checkout))
        .route("/dashboard/billing/ledger.csv", get(billing::ledger_csv))
        .route("/dashboard/billing/alert", post(billing::set_alert))
        .route(
            "/dashboard/billing/receipts/{topup_id}",
            get(receipts::page),
        )
        .route(
            "/dashboard/test-checkout/{topup_id}",
            get(billing::test_checkout_page).post(billing::test_checkout),
        )
        .route("/dashboard/activity", get(activity::page))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&dashboard),
            csrf::same_origin,
        ))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&dashboard),
            session::security_headers,
        ));
    Router::new()
        .merge(pages)
        .route("/webhooks/payments", post(webhooks::receive))
        .route("/assets/dashboard.css", get(assets::stylesheet))
        .route("/assets/dashboard.js", get(assets::script))
        .route("/favicon.ico", get(assets::favicon))
        .with_state(dashboard)
}
