//! The service's settings (operator-interface.md): defaults, then a TOML file, then
//! `FORUMDEX_<NAME>` environment variables, then command-line flags. One typed tree,
//! passed explicitly.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use forumdex_dashboard::{CreditPack, DEFAULT_CREDIT_PACKS};
use forumdex_images::ImagesLocation;
use forumdex_storage::{RateLimiterKind, Storage, StorageKind, StorageSettings};
use ipnet::IpNet;
use serde::{Deserialize, Deserializer};

/// Every setting, resolved. Each field's doc names its default.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Address to serve on. Default `127.0.0.1:8080`.
    #[serde(default = "default_listen")]
    pub listen: SocketAddr,
    /// Public base address of the API, used in links. Default `http://{listen}`
    /// (`https://` when TLS is configured).
    #[serde(default)]
    pub base_url: String,
    /// The original forum, used in post, topic and profile URLs. Default
    /// `https://bitcointalk.org`.
    #[serde(default = "default_forum_url")]
    pub forum_url: String,
    /// Public base address of image objects. Default `{base_url}/cdn`.
    #[serde(default)]
    pub cdn_url: String,
    /// Sent as `topupUrl` with 402. Default `{base_url}/dashboard/billing` (the dashboard's
    /// billing page).
    #[serde(default)]
    pub topup_url: String,
    /// Requests per API key in any rolling 60 s. Default 120.
    #[serde(default = "default_rate_limit")]
    pub rate_limit_per_minute: u32,
    /// Collection cursor idle lifetime. Default 300.
    #[serde(default = "default_cursor_idle")]
    pub cursor_idle_seconds: u64,
    /// Snapshot lifetime (at most 3600, the contract's promise). Default 3600.
    #[serde(default = "default_snapshot")]
    pub snapshot_seconds: u64,
    /// IPs/CIDRs whose forwarding headers are believed. Default none.
    #[serde(default, deserialize_with = "comma_list")]
    pub trusted_proxies: Vec<IpNet>,
    /// PEM certificate chain; with `tls_key`, the API is served over HTTPS. Default none.
    #[serde(default)]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key. Default none.
    #[serde(default)]
    pub tls_key: Option<PathBuf>,
    /// Longest a request may run before it is answered 503. Default 10000.
    #[serde(default = "default_timeout")]
    pub request_timeout_ms: u64,
    /// Requests worked on at once; more are shed with 503 rather than queued. Default 256.
    #[serde(default = "default_concurrency")]
    pub max_concurrent_requests: usize,
    /// Where the corpus, accounts and ledger live: `embedded` (the data folder) or
    /// `postgres` (`database_url`, shared by several nodes). Default `embedded`.
    #[serde(default)]
    pub storage: StorageSetting,
    /// The PostgreSQL database of `storage = "postgres"`
    /// (`postgres://user:password@host:port/database`). Default none.
    #[serde(default)]
    pub database_url: Option<Secret>,
    /// Where the AVIF image objects live: a folder (several nodes share one by mounting it),
    /// or `s3://bucket/prefix` in an S3-compatible store (endpoint and credentials from the
    /// usual AWS variables). Default `{data}/images`.
    #[serde(default)]
    pub images_url: Option<String>,
    /// The cursor HMAC key file; every node of one deployment uses the same. Default
    /// `{data}/cursor-secret`.
    #[serde(default)]
    pub cursor_secret_file: Option<PathBuf>,
    /// `local` (per process) or `redis` (shared by every node, at `redis_url`). Default
    /// `local` with `storage = "embedded"`, `redis` with `storage = "postgres"` (see
    /// [`Self::rate_limiter`]).
    #[serde(default)]
    pub rate_limiter: Option<RateLimiterSetting>,
    /// The Redis server of `rate_limiter = "redis"` (`redis://host:port/db`). Default none.
    #[serde(default)]
    pub redis_url: Option<String>,
    /// What a node does while Redis cannot be reached: `none` (answer paid requests 503,
    /// charging nothing) or `local` (count the limit on the node alone, and serve). Default
    /// `none`.
    #[serde(default)]
    pub rate_limiter_fallback: RateLimiterFallback,
    /// What the Redis limiter's keys start with (`{redis_prefix}{key_id}`), so that one
    /// Redis server can serve two deployments. Default `forumdex:rate:`.
    #[serde(default = "default_redis_prefix")]
    pub redis_prefix: String,
    /// The crawler's `User-Agent` (`forumdex crawl`): must name the operator and a contact.
    /// Default none (the crawl refuses to start without it).
    #[serde(default)]
    pub crawl_user_agent: Option<String>,
    /// Least time between two crawl requests (never below 1000). Default 2000.
    #[serde(default = "default_crawl_interval")]
    pub crawl_interval_ms: u64,
    /// Crawl requests per UTC day (at least 1). Default 10000.
    #[serde(default = "default_crawl_budget")]
    pub crawl_daily_budget: u64,
    /// Outgoing mail of the dashboard (`smtp://host:port`, `smtps://user:pass@host`). Default
    /// none: mail is written to `{data}/outbox/` as `.eml` files.
    #[serde(default)]
    pub smtp_url: Option<Secret>,
    /// The sender of the dashboard's mail. Default `forumdex <no-reply@{host of base_url}>`.
    #[serde(default)]
    pub mail_from: Option<String>,
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
    /// A dashboard session unused for this long ends. Default 43200 (12 hours).
    #[serde(default = "default_session_idle")]
    pub session_idle_seconds: u64,
    /// A dashboard session ends this long after sign-in. Default 2592000 (30 days).
    #[serde(default = "default_session_lifetime")]
    pub session_lifetime_seconds: u64,
    /// Credits a developer receives when their address is verified. Default 100.
    #[serde(default = "default_signup_credits")]
    pub signup_credits: u64,
}

/// A secret setting: its `Debug` output never shows it.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// The secret itself, for the one place that uses it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
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

/// The values of the setting `storage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageSetting {
    /// The data folder.
    #[default]
    Embedded,
    /// PostgreSQL (`database_url`).
    Postgres,
}

/// The values of the setting `rate_limiter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateLimiterSetting {
    /// In the process.
    #[default]
    Local,
    /// On Redis (`redis_url`).
    Redis,
}

/// The values of the setting `rate_limiter_fallback`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateLimiterFallback {
    /// Refuse (503, nothing charged).
    #[default]
    None,
    /// Count on the node alone.
    Local,
}

fn default_listen() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 8080))
}
fn default_redis_prefix() -> String {
    forumdex_storage::DEFAULT_REDIS_PREFIX.to_owned()
}
fn default_forum_url() -> String {
    "https://bitcointalk.org".to_owned()
}
fn default_rate_limit() -> u32 {
    120
}
fn default_cursor_idle() -> u64 {
    300
}
fn default_snapshot() -> u64 {
    3600
}
fn default_timeout() -> u64 {
    10_000
}
fn default_concurrency() -> usize {
    256
}
fn default_crawl_interval() -> u64 {
    2000
}
fn default_crawl_budget() -> u64 {
    10_000
}
fn default_packs() -> Vec<CreditPack> {
    CreditPack::parse_list(DEFAULT_CREDIT_PACKS).expect("the default packs parse")
}
fn default_stripe_api_url() -> String {
    forumdex_payments::STRIPE_API_BASE.to_owned()
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

/// Accepts `"1000:10.00 USD, 5000:45.00 USD"` (env and flags) or a TOML list of such items.
fn packs<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<CreditPack>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Items {
        Text(String),
        List(Vec<String>),
    }
    let text = match Items::deserialize(deserializer)? {
        Items::Text(text) => text,
        Items::List(list) => list.join(","),
    };
    CreditPack::parse_list(&text).map_err(serde::de::Error::custom)
}

/// Accepts `"a, b"` (env and flags) or `["a", "b"]` (TOML).
fn comma_list<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<IpNet>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Items {
        Text(String),
        List(Vec<String>),
    }
    let items = match Items::deserialize(deserializer)? {
        Items::Text(text) => text.split(',').map(str::to_owned).collect(),
        Items::List(list) => list,
    };
    items
        .iter()
        .map(|item| item.trim())
        .filter(|item| !item.is_empty())
        .map(|item| parse_net(item).map_err(serde::de::Error::custom))
        .collect()
}

/// An address (as a /32 or /128) or a CIDR.
fn parse_net(text: &str) -> Result<IpNet, String> {
    text.parse::<IpNet>()
        .map(|net| net.trunc())
        .or_else(|_| text.parse::<std::net::IpAddr>().map(IpNet::from))
        .map_err(|_| format!("{text:?} is not an IP address or CIDR"))
}

/// The names a settings layer may set, and whether each holds a number.
const NAMES: &[(&str, bool)] = &[
    ("listen", false),
    ("base_url", false),
    ("forum_url", false),
    ("cdn_url", false),
    ("topup_url", false),
    ("rate_limit_per_minute", true),
    ("cursor_idle_seconds", true),
    ("snapshot_seconds", true),
    ("trusted_proxies", false),
    ("tls_cert", false),
    ("tls_key", false),
    ("request_timeout_ms", true),
    ("max_concurrent_requests", true),
    ("storage", false),
    ("database_url", false),
    ("images_url", false),
    ("cursor_secret_file", false),
    ("rate_limiter", false),
    ("redis_url", false),
    ("rate_limiter_fallback", false),
    ("redis_prefix", false),
    ("crawl_user_agent", false),
    ("crawl_interval_ms", true),
    ("crawl_daily_budget", true),
    ("smtp_url", false),
    ("mail_from", false),
    ("credit_packs", false),
    ("payment_provider", false),
    ("stripe_secret_key", false),
    ("stripe_webhook_secret", false),
    ("stripe_api_url", false),
    ("session_idle_seconds", true),
    ("session_lifetime_seconds", true),
    ("signup_credits", true),
];

impl Default for Settings {
    fn default() -> Self {
        Self::resolve(toml::Table::new()).expect("the defaults are valid")
    }
}

impl Settings {
    /// Loads the layers: defaults, the TOML file `config` (when given), the `FORUMDEX_*`
    /// variables of `env`, then `flags` (name, value) pairs.
    pub fn load(
        config: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
        flags: &[(&str, String)],
    ) -> anyhow::Result<Self> {
        let mut table = match config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read config file {}", path.display()))?;
                toml::from_str::<toml::Table>(&text)
                    .with_context(|| format!("invalid config file {}", path.display()))?
            }
            None => toml::Table::new(),
        };
        for (name, value) in env {
            let Some(setting) = name.strip_prefix("FORUMDEX_") else {
                continue;
            };
            let setting = setting.to_ascii_lowercase();
            if let Some((known, numeric)) = NAMES.iter().find(|(n, _)| *n == setting) {
                table.insert((*known).to_owned(), layer_value(&value, *numeric, &name)?);
            }
        }
        for (name, value) in flags {
            let numeric = NAMES
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, numeric)| *numeric)
                .with_context(|| format!("unknown setting {name}"))?;
            table.insert((*name).to_owned(), layer_value(value, numeric, name)?);
        }
        Self::resolve(table)
    }

    fn resolve(table: toml::Table) -> anyhow::Result<Self> {
        let mut settings: Self = table.try_into().context("invalid settings")?;
        let scheme = settings.scheme();
        settings.base_url = url_or(
            &settings.base_url,
            || format!("{scheme}://{}", settings.listen),
            "base_url",
        )?;
        settings.forum_url = url_or(&settings.forum_url, String::new, "forum_url")?;
        settings.cdn_url = url_or(
            &settings.cdn_url,
            || format!("{}/cdn", settings.base_url),
            "cdn_url",
        )?;
        settings.topup_url = url_or(
            &settings.topup_url,
            || format!("{}/dashboard/billing", settings.base_url),
            "topup_url",
        )?;
        if settings.rate_limit_per_minute == 0 {
            bail!("rate_limit_per_minute must be at least 1");
        }
        if !(1..=3600).contains(&settings.cursor_idle_seconds) {
            bail!("cursor_idle_seconds must be 1 to 3600");
        }
        if !(1..=3600).contains(&settings.snapshot_seconds) {
            bail!("snapshot_seconds must be 1 to 3600 (the contract promises at most one hour)");
        }
        if settings.tls_cert.is_some() != settings.tls_key.is_some() {
            bail!("tls_cert and tls_key must be set together");
        }
        if settings.request_timeout_ms == 0 || settings.max_concurrent_requests == 0 {
            bail!("request_timeout_ms and max_concurrent_requests must be at least 1");
        }
        if settings
            .cursor_secret_file
            .as_ref()
            .is_some_and(|path| path.as_os_str().is_empty())
        {
            bail!("cursor_secret_file must name a file");
        }
        settings.check_storage()?;
        if let Some(images) = &settings.images_url {
            ImagesLocation::parse(images).map_err(anyhow::Error::msg)?;
        }
        if settings.rate_limiter_fallback == RateLimiterFallback::Local
            && settings.rate_limiter() != RateLimiterSetting::Redis
        {
            bail!(
                "rate_limiter_fallback = \"local\" is what a node does while Redis is away; it \
                 applies to rate_limiter = \"redis\" only"
            );
        }
        match (settings.rate_limiter(), &settings.redis_url) {
            (RateLimiterSetting::Redis, None) if settings.rate_limiter.is_none() => bail!(
                "storage = \"postgres\" shares rate limits through Redis by default: set \
                 redis_url (redis://host:port/db), or rate_limiter = \"local\" to count them \
                 per node"
            ),
            (RateLimiterSetting::Redis, None) => {
                bail!("rate_limiter = \"redis\" needs redis_url (redis://host:port/db)")
            }
            (RateLimiterSetting::Redis, Some(url))
                if !(url.starts_with("redis://") || url.starts_with("rediss://")) =>
            {
                bail!("redis_url must be a redis:// or rediss:// URL, got {url:?}")
            }
            _ => {}
        }
        if settings.redis_prefix.is_empty()
            || settings.redis_prefix.len() > 100
            || settings
                .redis_prefix
                .chars()
                .any(|c| c.is_whitespace() || c.is_control())
        {
            bail!(
                "redis_prefix must be 1 to 100 bytes without spaces or control characters, got {:?}",
                settings.redis_prefix
            );
        }
        if settings.crawl_interval_ms < 1000 {
            bail!(
                "crawl_interval_ms is {}; it may not be below 1000",
                settings.crawl_interval_ms
            );
        }
        if settings.crawl_daily_budget == 0 {
            bail!("crawl_daily_budget must be at least 1");
        }
        settings.check_dashboard()?;
        Ok(settings)
    }

    /// The settings once `listen` is bound to `bound`: when `listen` asked for any port
    /// (port 0), `listen` becomes the bound address, and the URLs derived from it by default
    /// (`base_url`, `cdn_url`, `topup_url`) name the bound port instead of port 0.
    pub fn with_bound_address(mut self, bound: SocketAddr) -> Self {
        if self.listen.port() != 0 {
            return self;
        }
        let scheme = self.scheme();
        let derived = format!("{scheme}://{}", self.listen);
        let actual = format!("{scheme}://{bound}");
        for url in [&mut self.base_url, &mut self.cdn_url, &mut self.topup_url] {
            if let Some(rest) = url.strip_prefix(&derived)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                *url = format!("{actual}{rest}");
            }
        }
        self.listen = bound;
        self
    }

    /// `https` when TLS is configured, else `http`.
    fn scheme(&self) -> &'static str {
        if self.tls_cert.is_some() {
            "https"
        } else {
            "http"
        }
    }

    /// `database_url` only with `storage = "postgres"`, which needs it, as a PostgreSQL URL.
    fn check_storage(&self) -> anyhow::Result<()> {
        match (self.storage, &self.database_url) {
            (StorageSetting::Postgres, None) => bail!(
                "storage = \"postgres\" needs database_url \
                 (postgres://user:password@host:port/database)"
            ),
            (StorageSetting::Postgres, Some(url))
                if !(url.expose().starts_with("postgres://")
                    || url.expose().starts_with("postgresql://")) =>
            {
                bail!("database_url must be a postgres:// or postgresql:// URL")
            }
            (StorageSetting::Embedded, Some(_)) => bail!(
                "database_url is set but storage is \"embedded\"; set storage = \"postgres\" \
                 to use it"
            ),
            _ => Ok(()),
        }
    }

    /// The rate limiter in effect: as set, else `redis` beside PostgreSQL (limits shared by
    /// every node) and `local` beside the data folder.
    pub fn rate_limiter(&self) -> RateLimiterSetting {
        self.rate_limiter.unwrap_or(match self.storage {
            StorageSetting::Embedded => RateLimiterSetting::Local,
            StorageSetting::Postgres => RateLimiterSetting::Redis,
        })
    }

    /// The storage settings for the data folder `data_dir`: what [`Storage`] builds the
    /// backends from.
    pub fn storage_settings(&self, data_dir: &Path) -> StorageSettings {
        let defaults = StorageSettings::embedded(data_dir);
        let rate_limiter = match (self.rate_limiter(), &self.redis_url) {
            (RateLimiterSetting::Redis, Some(url)) => RateLimiterKind::Redis {
                url: url.clone(),
                prefix: self.redis_prefix.clone(),
                local_fallback: self.rate_limiter_fallback == RateLimiterFallback::Local,
            },
            _ => RateLimiterKind::Local,
        };
        let kind = match (self.storage, &self.database_url) {
            (StorageSetting::Postgres, Some(url)) => StorageKind::Postgres {
                url: url.expose().to_owned(),
            },
            _ => StorageKind::Embedded,
        };
        StorageSettings {
            kind,
            rate_limiter,
            cursor_secret_file: self
                .cursor_secret_file
                .clone()
                .unwrap_or(defaults.cursor_secret_file),
            images: self.images_url.as_deref().map_or(defaults.images, |text| {
                ImagesLocation::parse(text).expect("images_url is checked when settings are read")
            }),
            data_dir: defaults.data_dir,
        }
    }

    /// The storage factory for the data folder `data_dir`.
    pub fn storage(&self, data_dir: &Path) -> Storage {
        Storage::new(self.storage_settings(data_dir))
    }

    /// Whether the API is served over HTTPS.
    pub fn tls(&self) -> Option<(&Path, &Path)> {
        self.tls_cert.as_deref().zip(self.tls_key.as_deref())
    }
}

fn layer_value(value: &str, numeric: bool, name: &str) -> anyhow::Result<toml::Value> {
    if numeric {
        let number: i64 = value
            .trim()
            .parse()
            .with_context(|| format!("{name}: {value:?} is not a whole number"))?;
        Ok(toml::Value::Integer(number))
    } else {
        Ok(toml::Value::String(value.to_owned()))
    }
}

/// `value` (or the default when empty) as an http(s) URL without a trailing slash.
fn url_or(value: &str, default: impl FnOnce() -> String, name: &str) -> anyhow::Result<String> {
    let url = if value.is_empty() {
        default()
    } else {
        value.to_owned()
    };
    let url = url.trim_end_matches('/').to_owned();
    let valid = (url.starts_with("http://") || url.starts_with("https://"))
        && url.len() > "https://".len()
        && !url.chars().any(|c| c.is_whitespace() || c.is_control());
    if !valid {
        bail!("{name} must be an http:// or https:// URL, got {url:?}");
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_then_file_then_env_then_flags() {
        let defaults = Settings::default();
        assert_eq!(defaults.base_url, "http://127.0.0.1:8080");
        assert_eq!(defaults.cdn_url, "http://127.0.0.1:8080/cdn");
        assert_eq!(
            defaults.topup_url,
            "http://127.0.0.1:8080/dashboard/billing"
        );
        assert_eq!(defaults.rate_limit_per_minute, 120);

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("forumdex.toml");
        std::fs::write(&file, "rate_limit_per_minute = 5\nforum_url = \"https://f.example/\"\ntrusted_proxies = [\"10.0.0.0/8\"]\nsnapshot_seconds = 60\n").unwrap();
        let env = [
            ("FORUMDEX_RATE_LIMIT_PER_MINUTE".to_owned(), "7".to_owned()),
            (
                "FORUMDEX_TRUSTED_PROXIES".to_owned(),
                "127.0.0.1, ::1".to_owned(),
            ),
            ("OTHER".to_owned(), "x".to_owned()),
        ];
        let settings =
            Settings::load(Some(&file), env, &[("listen", "0.0.0.0:9000".to_owned())]).unwrap();
        assert_eq!(settings.rate_limit_per_minute, 7);
        assert_eq!(settings.forum_url, "https://f.example");
        assert_eq!(settings.snapshot_seconds, 60);
        assert_eq!(settings.listen, "0.0.0.0:9000".parse().unwrap());
        assert_eq!(settings.base_url, "http://0.0.0.0:9000");
        let proxies: Vec<String> = settings
            .trusted_proxies
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(proxies, ["127.0.0.1/32", "::1/128"]);
    }

    #[test]
    fn storage_is_embedded_in_the_data_folder_unless_set() {
        let data = Path::new("/srv/forumdex");
        let defaults = Settings::default().storage_settings(data);
        assert_eq!(defaults, StorageSettings::embedded(data));
        assert_eq!(defaults.cursor_secret_file, data.join("cursor-secret"));
        let env = vec![
            ("FORUMDEX_STORAGE".to_owned(), "embedded".to_owned()),
            (
                "FORUMDEX_CURSOR_SECRET_FILE".to_owned(),
                "/etc/forumdex/cursor-secret".to_owned(),
            ),
        ];
        let settings = Settings::load(None, env, &[])
            .unwrap()
            .storage_settings(data);
        assert_eq!(settings.kind, StorageKind::Embedded);
        assert_eq!(
            settings.cursor_secret_file,
            Path::new("/etc/forumdex/cursor-secret")
        );
        assert_eq!(settings.data_dir, data);
        assert_eq!(settings.rate_limiter, RateLimiterKind::Local);

        let env = vec![
            ("FORUMDEX_RATE_LIMITER".to_owned(), "redis".to_owned()),
            (
                "FORUMDEX_REDIS_URL".to_owned(),
                "redis://127.0.0.1:6379/2".to_owned(),
            ),
        ];
        let settings = Settings::load(None, env, &[])
            .unwrap()
            .storage_settings(data);
        assert_eq!(
            settings.rate_limiter,
            RateLimiterKind::Redis {
                url: "redis://127.0.0.1:6379/2".to_owned(),
                prefix: "forumdex:rate:".to_owned(),
                local_fallback: false,
            }
        );
    }

    #[test]
    fn postgres_storage_shares_rate_limits_through_redis_unless_told_otherwise() {
        let data = Path::new("/srv/forumdex");
        let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let postgres = [
            ("FORUMDEX_STORAGE", "postgres"),
            (
                "FORUMDEX_DATABASE_URL",
                "postgres://fdx:pw@db:5432/forumdex",
            ),
        ];
        let err = format!(
            "{:#}",
            Settings::load(None, env(&postgres), &[]).unwrap_err()
        );
        assert!(err.contains("redis_url") && err.contains("local"), "{err}");
        assert!(!err.contains("pw@"), "{err}");

        let with_redis = [
            postgres[0],
            postgres[1],
            ("FORUMDEX_REDIS_URL", "redis://r:6379/0"),
        ];
        let settings = Settings::load(None, env(&with_redis), &[]).unwrap();
        assert!(!format!("{settings:?}").contains("pw@"), "{settings:?}");
        let storage = settings.storage_settings(data);
        assert_eq!(
            storage.kind,
            StorageKind::Postgres {
                url: "postgres://fdx:pw@db:5432/forumdex".to_owned()
            }
        );
        assert_eq!(
            storage.rate_limiter,
            RateLimiterKind::Redis {
                url: "redis://r:6379/0".to_owned(),
                prefix: "forumdex:rate:".to_owned(),
                local_fallback: false,
            }
        );
        let admitting = [
            with_redis[0],
            with_redis[1],
            with_redis[2],
            ("FORUMDEX_RATE_LIMITER_FALLBACK", "local"),
        ];
        let storage = Settings::load(None, env(&admitting), &[])
            .unwrap()
            .storage_settings(data);
        assert_eq!(
            storage.rate_limiter,
            RateLimiterKind::Redis {
                url: "redis://r:6379/0".to_owned(),
                prefix: "forumdex:rate:".to_owned(),
                local_fallback: true,
            }
        );

        let prefixed = [
            with_redis[0],
            with_redis[1],
            with_redis[2],
            ("FORUMDEX_REDIS_PREFIX", "staging:rate:"),
        ];
        let storage = Settings::load(None, env(&prefixed), &[])
            .unwrap()
            .storage_settings(data);
        assert_eq!(
            storage.rate_limiter,
            RateLimiterKind::Redis {
                url: "redis://r:6379/0".to_owned(),
                prefix: "staging:rate:".to_owned(),
                local_fallback: false,
            }
        );
        for bad in ["", "two words", "tab\tbed"] {
            let refused = [
                with_redis[0],
                with_redis[1],
                with_redis[2],
                ("FORUMDEX_REDIS_PREFIX", bad),
            ];
            let err = format!(
                "{:#}",
                Settings::load(None, env(&refused), &[]).unwrap_err()
            );
            assert!(err.contains("redis_prefix must be"), "{bad:?}: {err}");
        }

        let per_node = [postgres[0], postgres[1], ("FORUMDEX_RATE_LIMITER", "local")];
        let storage = Settings::load(None, env(&per_node), &[])
            .unwrap()
            .storage_settings(data);
        assert_eq!(storage.rate_limiter, RateLimiterKind::Local);

        let not_a_url = [postgres[0], ("FORUMDEX_DATABASE_URL", "mysql://db/x")];
        let err = format!(
            "{:#}",
            Settings::load(None, env(&not_a_url), &[]).unwrap_err()
        );
        assert!(err.contains("database_url must be"), "{err}");
    }

    #[test]
    fn port_zero_urls_follow_the_bound_address() {
        let flags = [("listen", "127.0.0.1:0".to_owned())];
        let bound: SocketAddr = "127.0.0.1:4321".parse().unwrap();
        let settings = Settings::load(None, vec![], &flags)
            .unwrap()
            .with_bound_address(bound);
        assert_eq!(settings.listen, bound);
        assert_eq!(settings.base_url, "http://127.0.0.1:4321");
        assert_eq!(settings.cdn_url, "http://127.0.0.1:4321/cdn");
        assert_eq!(
            settings.topup_url,
            "http://127.0.0.1:4321/dashboard/billing"
        );

        let env = vec![(
            "FORUMDEX_TOPUP_URL".to_owned(),
            "https://pay.example.com/topup".to_owned(),
        )];
        let settings = Settings::load(None, env, &flags)
            .unwrap()
            .with_bound_address(bound);
        assert_eq!(settings.topup_url, "https://pay.example.com/topup");

        let fixed = Settings::default();
        assert_eq!(fixed.clone().with_bound_address(bound), fixed);
    }

    #[test]
    fn bad_values_are_refused_with_the_setting_named() {
        let env = |k: &str, v: &str| vec![(k.to_owned(), v.to_owned())];
        for (k, v, needle) in [
            (
                "FORUMDEX_RATE_LIMIT_PER_MINUTE",
                "lots",
                "FORUMDEX_RATE_LIMIT_PER_MINUTE",
            ),
            (
                "FORUMDEX_RATE_LIMIT_PER_MINUTE",
                "0",
                "rate_limit_per_minute",
            ),
            ("FORUMDEX_SNAPSHOT_SECONDS", "7200", "snapshot_seconds"),
            ("FORUMDEX_TRUSTED_PROXIES", "nope", "not an IP"),
            ("FORUMDEX_FORUM_URL", "ftp://x", "forum_url"),
            ("FORUMDEX_TLS_CERT", "/x.pem", "tls_key"),
            ("FORUMDEX_STORAGE", "cloud", "storage"),
            ("FORUMDEX_STORAGE", "postgres", "database_url"),
            (
                "FORUMDEX_IMAGES_URL",
                "s3://Bucket/images",
                "not a bucket name",
            ),
            (
                "FORUMDEX_IMAGES_URL",
                "https://cdn.example/images",
                "not an image store",
            ),
            ("FORUMDEX_IMAGES_URL", "", "images_url"),
            (
                "FORUMDEX_DATABASE_URL",
                "postgres://db/forumdex",
                "storage = \"postgres\"",
            ),
            ("FORUMDEX_CURSOR_SECRET_FILE", "", "cursor_secret_file"),
            ("FORUMDEX_RATE_LIMITER", "redis", "redis_url"),
            ("FORUMDEX_RATE_LIMITER", "memcached", "rate_limiter"),
            (
                "FORUMDEX_RATE_LIMITER_FALLBACK",
                "admit",
                "rate_limiter_fallback",
            ),
            (
                "FORUMDEX_RATE_LIMITER_FALLBACK",
                "local",
                "rate_limiter_fallback",
            ),
            ("FORUMDEX_CRAWL_INTERVAL_MS", "999", "crawl_interval_ms"),
            ("FORUMDEX_CRAWL_DAILY_BUDGET", "0", "crawl_daily_budget"),
            (
                "FORUMDEX_CREDIT_PACKS",
                "1000 for ten dollars",
                "credit pack",
            ),
            ("FORUMDEX_PAYMENT_PROVIDER", "paypal", "payment_provider"),
            ("FORUMDEX_PAYMENT_PROVIDER", "stripe", "stripe_secret_key"),
            ("FORUMDEX_SESSION_IDLE_SECONDS", "0", "session_idle_seconds"),
            ("FORUMDEX_MAIL_FROM", "not an address", "mail_from"),
            ("FORUMDEX_SMTP_URL", "http://mail.example.com", "smtp_url"),
            (
                "FORUMDEX_STRIPE_WEBHOOK_SECRET",
                "",
                "stripe_webhook_secret",
            ),
            ("FORUMDEX_STRIPE_SECRET_KEY", "secret", "stripe_secret_key"),
        ] {
            let err = format!("{:#}", Settings::load(None, env(k, v), &[]).unwrap_err());
            assert!(err.contains(needle), "{k}={v}: {err}");
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.toml");
        std::fs::write(&file, "no_such_setting = 1\n").unwrap();
        let err = format!(
            "{:#}",
            Settings::load(Some(&file), vec![], &[]).unwrap_err()
        );
        assert!(err.contains("no_such_setting"), "{err}");
    }
}
