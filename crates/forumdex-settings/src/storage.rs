//! The storage section: where the corpus, accounts, images, cursor key and rate limits live.

use std::path::{Path, PathBuf};

use anyhow::bail;
use forumdex_images::ImagesLocation;
use forumdex_storage::{RateLimiterKind, Storage, StorageKind, StorageSettings};
use serde::Deserialize;

use crate::values::Secret;

/// The storage settings. Each field's doc names its default.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageSection {
    /// Where the corpus, accounts and ledger live (setting `storage`): `embedded` (the data
    /// folder) or `postgres` (`database_url`, shared by several nodes). Default `embedded`.
    #[serde(default, rename = "storage")]
    pub kind: StorageSetting,
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

fn default_redis_prefix() -> String {
    forumdex_storage::DEFAULT_REDIS_PREFIX.to_owned()
}

impl StorageSection {
    /// Refuses values that cannot work, naming the setting.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        if self
            .cursor_secret_file
            .as_ref()
            .is_some_and(|path| path.as_os_str().is_empty())
        {
            bail!("cursor_secret_file must name a file");
        }
        self.check_database()?;
        if let Some(images) = &self.images_url {
            ImagesLocation::parse(images).map_err(anyhow::Error::msg)?;
        }
        self.check_rate_limiter()
    }

    /// `database_url` only with `storage = "postgres"`, which needs it, as a PostgreSQL URL.
    fn check_database(&self) -> anyhow::Result<()> {
        match (self.kind, &self.database_url) {
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

    /// A Redis limiter has a Redis URL and a usable prefix; the local fallback is for it only.
    fn check_rate_limiter(&self) -> anyhow::Result<()> {
        if self.rate_limiter_fallback == RateLimiterFallback::Local
            && self.rate_limiter() != RateLimiterSetting::Redis
        {
            bail!(
                "rate_limiter_fallback = \"local\" is what a node does while Redis is away; it \
                 applies to rate_limiter = \"redis\" only"
            );
        }
        match (self.rate_limiter(), &self.redis_url) {
            (RateLimiterSetting::Redis, None) if self.rate_limiter.is_none() => bail!(
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
        if self.redis_prefix.is_empty()
            || self.redis_prefix.len() > 100
            || self
                .redis_prefix
                .chars()
                .any(|c| c.is_whitespace() || c.is_control())
        {
            bail!(
                "redis_prefix must be 1 to 100 bytes without spaces or control characters, got {:?}",
                self.redis_prefix
            );
        }
        Ok(())
    }

    /// The rate limiter in effect: as set, else `redis` beside PostgreSQL (limits shared by
    /// every node) and `local` beside the data folder.
    pub fn rate_limiter(&self) -> RateLimiterSetting {
        self.rate_limiter.unwrap_or(match self.kind {
            StorageSetting::Embedded => RateLimiterSetting::Local,
            StorageSetting::Postgres => RateLimiterSetting::Redis,
        })
    }

    /// What [`Storage`] builds the backends from, for the data folder `data_dir`.
    pub fn resolve(&self, data_dir: &Path) -> StorageSettings {
        let defaults = StorageSettings::embedded(data_dir);
        let rate_limiter = match (self.rate_limiter(), &self.redis_url) {
            (RateLimiterSetting::Redis, Some(url)) => RateLimiterKind::Redis {
                url: url.clone(),
                prefix: self.redis_prefix.clone(),
                local_fallback: self.rate_limiter_fallback == RateLimiterFallback::Local,
            },
            _ => RateLimiterKind::Local,
        };
        let kind = match (self.kind, &self.database_url) {
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
    pub fn factory(&self, data_dir: &Path) -> Storage {
        Storage::new(self.resolve(data_dir))
    }
}
