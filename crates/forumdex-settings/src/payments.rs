//! The payments section: what a top-up sells and through which provider.

use anyhow::bail;
use forumdex_payments::{CreditPack, DEFAULT_CREDIT_PACKS};
use serde::{Deserialize, Deserializer};

use crate::values::{Secret, text_items};

/// The payment settings. Each field's doc names its default.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaymentsSection {
    /// The packs offered for top-up, `CREDITS:PRICE CURRENCY` each (comma-separated text or
    /// a TOML list). Default `1000:10.00 USD, 10000:90.00 USD, 100000:800.00 USD`.
    #[serde(default = "default_packs", deserialize_with = "packs")]
    pub credit_packs: Vec<CreditPack>,
    /// `stripe`, `test` (the local fake for demos and tests) or `none`. Default `none`:
    /// top-ups are not offered.
    #[serde(default)]
    pub payment_provider: PaymentProviderSetting,
    /// Stripe's secret API key (`sk_...`), for `payment_provider = "stripe"`. Default none.
    #[serde(default)]
    pub stripe_secret_key: Option<Secret>,
    /// The signing secret of Stripe's webhook endpoint (`whsec_...`). Default none (with the
    /// test provider: a random one per process).
    #[serde(default)]
    pub stripe_webhook_secret: Option<Secret>,
    /// Stripe's API address (a stand-in for tests). Default `https://api.stripe.com`.
    #[serde(default = "default_stripe_api_url")]
    pub stripe_api_url: String,
}

/// The values of the setting `payment_provider`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PaymentProviderSetting {
    /// Top-ups are not offered.
    #[default]
    None,
    /// Stripe Checkout (`stripe_secret_key`, `stripe_webhook_secret`).
    Stripe,
    /// The local test provider: checkouts are pages of the dashboard; no money moves.
    Test,
}

fn default_packs() -> Vec<CreditPack> {
    CreditPack::parse_list(DEFAULT_CREDIT_PACKS).expect("the default packs parse")
}
fn default_stripe_api_url() -> String {
    forumdex_payments::STRIPE_API_BASE.to_owned()
}

/// Accepts `"1000:10.00 USD, 5000:45.00 USD"` (environment and flags) or a TOML list.
fn packs<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<CreditPack>, D::Error> {
    text_items(deserializer)?
        .iter()
        .map(|item| item.parse().map_err(serde::de::Error::custom))
        .collect()
}

impl PaymentsSection {
    /// Refuses values that cannot work, naming the setting.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
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
        Ok(())
    }
}
