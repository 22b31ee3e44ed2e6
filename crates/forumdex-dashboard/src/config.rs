//! What the dashboard is configured with (the operator's settings, resolved by the server):
//! [`DashboardConfig`].

use chrono::Duration;
use forumdex_payments::CreditPack;

use crate::secret_seal::SecretSeal;

/// The dashboard's settings.
#[derive(Debug, Clone)]
pub struct DashboardConfig {
    /// Public base address (`https://api.example.com`): links in mail, the CSRF origin, and
    /// whether cookies are `Secure` (`https`).
    pub base_url: String,
    /// A session unused for this long ends (setting `session_idle_seconds`).
    pub session_idle: Duration,
    /// A session ends this long after sign-in whatever its use (setting
    /// `session_lifetime_seconds`).
    pub session_lifetime: Duration,
    /// Credits a new developer receives once their address is verified (setting
    /// `signup_credits`).
    pub signup_credits: u64,
    /// The packs offered for top-up (setting `credit_packs`).
    pub credit_packs: Vec<CreditPack>,
    /// Requests per key in any rolling minute, shown to developers.
    pub rate_limit_per_minute: u32,
    /// Days the request log keeps each request (setting `request_log_days`; 0: none).
    pub request_log_days: u32,
    /// The seller receipts name, line by line (setting `receipt_seller`; empty: the host of
    /// [`Self::base_url`]).
    pub receipt_seller: Vec<String>,
    /// What seals two-factor secrets in the store (derived from the cursor secret).
    pub two_factor_seal: SecretSeal,
}

impl DashboardConfig {
    /// The origin (`scheme://host[:port]`) of [`Self::base_url`], as browsers send it in
    /// `Origin`.
    pub fn origin(&self) -> &str {
        let after_scheme = self.base_url.find("://").map_or(0, |i| i + 3);
        match self.base_url[after_scheme..].find('/') {
            Some(slash) => &self.base_url[..after_scheme + slash],
            None => &self.base_url,
        }
    }

    /// The seller receipts name: [`Self::receipt_seller`], else the host of the base URL.
    pub fn seller_lines(&self) -> Vec<String> {
        if !self.receipt_seller.is_empty() {
            return self.receipt_seller.clone();
        }
        let host = self.origin().split("://").nth(1).unwrap_or(self.origin());
        vec![host.to_owned()]
    }

    /// Whether the dashboard is reached over HTTPS (cookies are then `Secure` and
    /// `__Host-` prefixed).
    pub fn secure(&self) -> bool {
        self.base_url.starts_with("https://")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_drops_the_path() {
        let mut config = DashboardConfig {
            base_url: "https://api.example.com/forumdex".to_owned(),
            session_idle: Duration::hours(1),
            session_lifetime: Duration::days(1),
            signup_credits: 0,
            credit_packs: vec![],
            rate_limit_per_minute: 120,
            request_log_days: 14,
            receipt_seller: vec![],
            two_factor_seal: SecretSeal::from_server_secret(&[0; 32]),
        };
        assert_eq!(config.origin(), "https://api.example.com");
        assert_eq!(config.seller_lines(), ["api.example.com"]);
        assert!(config.secure());
        config.base_url = "http://127.0.0.1:8080".to_owned();
        assert_eq!(config.origin(), "http://127.0.0.1:8080");
        assert!(!config.secure());
    }
}
