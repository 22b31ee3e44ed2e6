//! The dashboard's section: its mail and its sessions.

use anyhow::bail;
use lettre::message::Mailbox;
use serde::Deserialize;

use crate::values::Secret;

/// The dashboard's settings. Each field's doc names its default.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DashboardSection {
    /// Outgoing mail (`smtp://host:port`, `smtps://user:pass@host`). Default none: mail is
    /// written to `{data}/outbox/` as `.eml` files.
    #[serde(default)]
    pub smtp_url: Option<Secret>,
    /// The sender of the dashboard's mail. Default `forumdex <no-reply@{host of base_url}>`
    /// (see [`Self::sender`]).
    #[serde(default)]
    pub mail_from: Option<String>,
    /// A dashboard session unused for this long ends. Default 43200 (12 hours).
    #[serde(default = "default_session_idle")]
    pub session_idle_seconds: u64,
    /// A dashboard session ends this long after sign-in. Default 2592000 (30 days).
    #[serde(default = "default_session_lifetime")]
    pub session_lifetime_seconds: u64,
    /// Credits a developer receives when their address is verified. Default 100.
    #[serde(default = "default_signup_credits")]
    pub signup_credits: u64,
    /// Days the request log (`/dashboard/requests`) keeps each request; 0 keeps none.
    /// Default 14, at most 365.
    #[serde(default = "default_request_log_days")]
    pub request_log_days: u32,
    /// Who receipts name as the seller: the operator's name, postal address, tax number,
    /// one per line (lines split at a line break or `|`). Default none: receipts name the
    /// host of `base_url`.
    #[serde(default)]
    pub receipt_seller: Option<String>,
}

fn default_session_idle() -> u64 {
    12 * 3600
}
fn default_session_lifetime() -> u64 {
    30 * 24 * 3600
}
fn default_signup_credits() -> u64 {
    100
}
fn default_request_log_days() -> u32 {
    14
}

impl DashboardSection {
    /// Refuses values that cannot work, naming the setting; `base_url` is the server's.
    pub(crate) fn check(&self, base_url: &str) -> anyhow::Result<()> {
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
        if self.request_log_days > 365 {
            bail!("request_log_days must be at most 365 (0 keeps no request log)");
        }
        if let Some(seller) = &self.receipt_seller
            && (seller.trim().is_empty()
                || seller.chars().count() > 500
                || seller.chars().any(|c| c.is_control() && c != '\n'))
        {
            bail!(
                "receipt_seller must be 1 to 500 characters of text (lines split at a line \
                 break or |)"
            );
        }
        if let Some(url) = &self.smtp_url
            && !(url.expose().starts_with("smtp://") || url.expose().starts_with("smtps://"))
        {
            bail!("smtp_url must be an smtp:// or smtps:// URL");
        }
        self.sender(base_url)?;
        Ok(())
    }

    /// The receipts' seller lines ([`Self::receipt_seller`]), blank lines dropped.
    pub fn receipt_seller_lines(&self) -> Vec<String> {
        self.receipt_seller
            .as_deref()
            .unwrap_or_default()
            .split(['\n', '|'])
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// The sender of the dashboard's mail: `mail_from`, else no-reply at the host name of
    /// `base_url` (the server's), or at `localhost` when that is an address.
    pub fn sender(&self, base_url: &str) -> anyhow::Result<Mailbox> {
        let text = self.mail_from.clone().unwrap_or_else(|| {
            let host = base_url
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
        });
        text.parse()
            .map_err(|err| anyhow::anyhow!("mail_from {text:?} is not an address: {err}"))
    }
}
