//! The developer dashboard's place in the server: [`build`] makes the [`Dashboard`] from the
//! settings (checked when they were read): the mailer (SMTP, or the data folder's outbox), the
//! payment provider and the clock.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use chrono::Duration;
use forumdex_accounts::DeveloperStore;
use forumdex_dashboard::secret_seal::SecretSeal;
use forumdex_dashboard::{Dashboard, DashboardConfig, Mailer, OutboxMailer, Payments, SmtpMailer};
use forumdex_payments::{StripeProvider, TestProvider};
use forumdex_settings::{PaymentProviderSetting, Settings};

use crate::clock::Clock;

/// The dashboard's configuration, from the sections it reads.
fn dashboard_config(settings: &Settings, cursor_secret: &[u8]) -> DashboardConfig {
    DashboardConfig {
        base_url: settings.server.base_url.clone(),
        session_idle: Duration::seconds(settings.dashboard.session_idle_seconds as i64),
        session_lifetime: Duration::seconds(settings.dashboard.session_lifetime_seconds as i64),
        signup_credits: settings.dashboard.signup_credits,
        request_log_days: settings.dashboard.request_log_days,
        receipt_seller: settings.dashboard.receipt_seller_lines(),
        credit_packs: settings.payments.credit_packs.clone(),
        rate_limit_per_minute: settings.server.rate_limit_per_minute,
        two_factor_seal: SecretSeal::from_server_secret(cursor_secret),
    }
}

/// The dashboard of a server with `settings` over the data folder `data_dir`; two-factor
/// secrets are sealed under a key derived from `cursor_secret`.
pub fn build(
    settings: &Settings,
    data_dir: &Path,
    cursor_secret: &[u8],
    store: Arc<dyn DeveloperStore>,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<Dashboard> {
    let from = settings.dashboard.sender(&settings.server.base_url)?;
    let mailer: Arc<dyn Mailer> = match &settings.dashboard.smtp_url {
        Some(url) => Arc::new(SmtpMailer::new(url.expose(), from).context("smtp_url")?),
        None => Arc::new(OutboxMailer::new(
            data_dir.join(OutboxMailer::FOLDER),
            from,
            Arc::clone(&clock),
        )),
    };
    let payments = match settings.payments.payment_provider {
        PaymentProviderSetting::None => Payments::Disabled,
        PaymentProviderSetting::Stripe => {
            let (Some(key), Some(webhook)) = (
                &settings.payments.stripe_secret_key,
                &settings.payments.stripe_webhook_secret,
            ) else {
                bail!(
                    "payment_provider = \"stripe\" needs stripe_secret_key and stripe_webhook_secret"
                );
            };
            Payments::Stripe(Arc::new(
                StripeProvider::new(
                    key.expose().to_owned(),
                    webhook.expose().to_owned(),
                    settings.payments.stripe_api_url.clone(),
                )
                .context("setting up Stripe")?,
            ))
        }
        PaymentProviderSetting::Test => {
            let secret = settings
                .payments
                .stripe_webhook_secret
                .as_ref()
                .map_or_else(
                    || format!("whsec_test_{}", forumdex_dashboard::session::new_token()),
                    |secret| secret.expose().to_owned(),
                );
            tracing::warn!("payment_provider = \"test\": top-ups are simulated, no money moves");
            Payments::Test(Arc::new(TestProvider::new(
                &settings.server.base_url,
                secret,
            )))
        }
    };
    Ok(Dashboard::new(
        dashboard_config(settings, cursor_secret),
        store,
        mailer,
        payments,
        clock,
    ))
}
