//! The developer dashboard's place in the server: its settings checked with the others
//! ([`Settings::check_dashboard`]), and [`build`], which makes the [`Dashboard`] from them:
//! the mailer (SMTP, or the data folder's outbox), the payment provider and the clock.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use chrono::Duration;
use forumdex_accounts::DeveloperStore;
use forumdex_dashboard::mail::parse_from;
use forumdex_dashboard::{Dashboard, DashboardConfig, Mailer, OutboxMailer, Payments, SmtpMailer};
use forumdex_payments::{StripeProvider, TestProvider};

use crate::clock::Clock;
use crate::settings::{PaymentProviderSetting, Settings};

impl Settings {
    /// Refuses dashboard settings that cannot work, naming the setting.
    pub(crate) fn check_dashboard(&self) -> anyhow::Result<()> {
        if self.session_idle_seconds < 60 {
            bail!("session_idle_seconds must be at least 60");
        }
        if self.session_lifetime_seconds < self.session_idle_seconds
            || self.session_lifetime_seconds > 365 * 24 * 3600
        {
            bail!(
                "session_lifetime_seconds must be at least session_idle_seconds and at most a year"
            );
        }
        if self.payment_provider == PaymentProviderSetting::Stripe
            && (self.stripe_secret_key.is_none() || self.stripe_webhook_secret.is_none())
        {
            bail!(
                "payment_provider = \"stripe\" needs stripe_secret_key and stripe_webhook_secret"
            );
        }
        // A blank or made-up secret would let anyone sign "paid" events.
        if let Some(secret) = &self.stripe_webhook_secret
            && !(secret.expose().starts_with("whsec_") && secret.expose().len() >= 16)
        {
            bail!("stripe_webhook_secret must be the endpoint's signing secret (whsec_...)");
        }
        if let Some(key) = &self.stripe_secret_key
            && !((key.expose().starts_with("sk_") || key.expose().starts_with("rk_"))
                && key.expose().len() >= 16)
        {
            bail!("stripe_secret_key must be a Stripe secret or restricted key (sk_... or rk_...)");
        }
        if self.payment_provider != PaymentProviderSetting::None && self.credit_packs.is_empty() {
            bail!("credit_packs must offer at least one pack when payment_provider is set");
        }
        if !(self.stripe_api_url.starts_with("https://")
            || self.stripe_api_url.starts_with("http://"))
        {
            bail!("stripe_api_url must be an http(s) URL");
        }
        if let Some(url) = &self.smtp_url
            && !(url.expose().starts_with("smtp://") || url.expose().starts_with("smtps://"))
        {
            bail!("smtp_url must be an smtp:// or smtps:// URL");
        }
        parse_from(&self.mail_from()).map_err(anyhow::Error::msg)?;
        Ok(())
    }

    /// The sender of the dashboard's mail (setting `mail_from`, else no-reply at the host
    /// name of `base_url`, or at `localhost` when that is an address).
    pub fn mail_from(&self) -> String {
        self.mail_from.clone().unwrap_or_else(|| {
            let host = self
                .base_url
                .split("://")
                .nth(1)
                .and_then(|rest| rest.split(['/', ':']).next())
                .filter(|host| {
                    !host.is_empty()
                        && !host.starts_with('[')
                        && host.parse::<std::net::IpAddr>().is_err()
                })
                .unwrap_or("localhost");
            format!("forumdex <no-reply@{host}>")
        })
    }

    /// The dashboard's configuration.
    pub fn dashboard_config(&self) -> DashboardConfig {
        DashboardConfig {
            base_url: self.base_url.clone(),
            session_idle: Duration::seconds(self.session_idle_seconds as i64),
            session_lifetime: Duration::seconds(self.session_lifetime_seconds as i64),
            signup_credits: self.signup_credits,
            credit_packs: self.credit_packs.clone(),
            rate_limit_per_minute: self.rate_limit_per_minute,
        }
    }
}

/// The dashboard of a server with `settings` over the data folder `data_dir`.
pub fn build(
    settings: &Settings,
    data_dir: &Path,
    store: Arc<dyn DeveloperStore>,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<Dashboard> {
    let from = parse_from(&settings.mail_from()).map_err(anyhow::Error::msg)?;
    let mailer: Arc<dyn Mailer> = match &settings.smtp_url {
        Some(url) => Arc::new(SmtpMailer::new(url.expose(), from).context("smtp_url")?),
        None => Arc::new(OutboxMailer::new(
            data_dir.join(OutboxMailer::FOLDER),
            from,
            Arc::clone(&clock),
        )),
    };
    let payments = match settings.payment_provider {
        PaymentProviderSetting::None => Payments::Disabled,
        PaymentProviderSetting::Stripe => {
            let (Some(key), Some(webhook)) =
                (&settings.stripe_secret_key, &settings.stripe_webhook_secret)
            else {
                bail!(
                    "payment_provider = \"stripe\" needs stripe_secret_key and stripe_webhook_secret"
                );
            };
            Payments::Stripe(Arc::new(
                StripeProvider::new(
                    key.expose().to_owned(),
                    webhook.expose().to_owned(),
                    settings.stripe_api_url.clone(),
                )
                .context("setting up Stripe")?,
            ))
        }
        PaymentProviderSetting::Test => {
            let secret = settings.stripe_webhook_secret.as_ref().map_or_else(
                || format!("whsec_test_{}", forumdex_dashboard::session::new_token()),
                |secret| secret.expose().to_owned(),
            );
            tracing::warn!("payment_provider = \"test\": top-ups are simulated, no money moves");
            Payments::Test(Arc::new(TestProvider::new(&settings.base_url, secret)))
        }
    };
    Ok(Dashboard::new(
        settings.dashboard_config(),
        store,
        mailer,
        payments,
        clock,
    ))
}
