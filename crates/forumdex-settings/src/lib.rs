//! The operator's settings (operator-interface.md): defaults, then a TOML file, then
//! `FORUMDEX_<NAME>` environment variables, then command-line flags. One typed tree, passed
//! explicitly, in sections owned by their users: [`ServerSection`], [`StorageSection`],
//! [`SearchSection`], [`CrawlSection`], [`DashboardSection`] and [`PaymentsSection`].
//!
//! The names stay flat, exactly as operator-interface.md and README give them
//! (`rate_limit_per_minute`, `FORUMDEX_RATE_LIMIT_PER_MINUTE`): which section owns a name and
//! the environment variable that sets it are read from the section types, so adding a field
//! to a section adds the setting everywhere.

#![forbid(unsafe_code)]

mod crawl;
mod dashboard;
mod fields;
mod layers;
mod payments;
mod search;
mod server;
mod storage;
mod values;

use std::net::SocketAddr;
use std::path::Path;

pub use crawl::CrawlSection;
pub use dashboard::DashboardSection;
pub use payments::{PaymentProviderSetting, PaymentsSection};
pub use search::{SearchSection, SemanticModelSetting};
pub use server::ServerSection;
pub use storage::{RateLimiterFallback, RateLimiterSetting, StorageSection, StorageSetting};
pub use values::Secret;

use layers::Layers;

/// Every setting, resolved and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Where the server listens, the addresses it names, the API's limits.
    pub server: ServerSection,
    /// Where the corpus, accounts, images, cursor key and rate limits live.
    pub storage: StorageSection,
    /// The semantic leg of search.
    pub search: SearchSection,
    /// The crawler's identity and pace.
    pub crawl: CrawlSection,
    /// The dashboard's mail and sessions.
    pub dashboard: DashboardSection,
    /// What top-ups sell and through which provider.
    pub payments: PaymentsSection,
}

impl Default for Settings {
    fn default() -> Self {
        Self::resolve(Layers::default()).expect("the defaults are valid")
    }
}

impl Settings {
    /// Loads the layers: defaults, the TOML file `config` (when given), the `FORUMDEX_*`
    /// variables of `env`, then `flags` (setting name, value) pairs.
    pub fn load(
        config: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
        flags: &[(&str, String)],
    ) -> anyhow::Result<Self> {
        let mut layers = Layers::default();
        if let Some(path) = config {
            layers.file(path)?;
        }
        layers.env(env)?;
        layers.flags(flags)?;
        Self::resolve(layers)
    }

    /// The names of every setting, as the TOML file spells them (upper-cased after
    /// `FORUMDEX_` for the environment).
    pub fn names() -> impl Iterator<Item = &'static str> {
        layers::catalogue().iter().map(|entry| entry.field.name)
    }

    fn resolve(mut layers: Layers) -> anyhow::Result<Self> {
        let server = layers.take::<ServerSection>()?.resolve()?;
        let storage = layers.take::<StorageSection>()?;
        storage.check()?;
        let search = layers.take::<SearchSection>()?;
        search.check()?;
        let crawl = layers.take::<CrawlSection>()?;
        crawl.check()?;
        let dashboard = layers.take::<DashboardSection>()?;
        dashboard.check(&server.base_url)?;
        let payments = layers.take::<PaymentsSection>()?;
        payments.check()?;
        Ok(Self {
            server,
            storage,
            search,
            crawl,
            dashboard,
            payments,
        })
    }

    /// The settings once `listen` is bound to `bound` (see
    /// [`ServerSection::with_bound_address`]).
    pub fn with_bound_address(mut self, bound: SocketAddr) -> Self {
        self.server = self.server.with_bound_address(bound);
        self
    }
}

#[cfg(test)]
mod tests;
