//! The crawler's section (`forumdex crawl`).

use anyhow::bail;
use serde::Deserialize;

/// The crawler's settings. Each field's doc names its default.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrawlSection {
    /// The crawler's `User-Agent`: must name the operator and a contact. Default none (the
    /// crawl refuses to start without it).
    #[serde(default)]
    pub crawl_user_agent: Option<String>,
    /// Least time between two crawl requests (never below 1000). Default 2000.
    #[serde(default = "default_crawl_interval")]
    pub crawl_interval_ms: u64,
    /// Crawl requests per UTC day (at least 1). Default 10000.
    #[serde(default = "default_crawl_budget")]
    pub crawl_daily_budget: u64,
}

fn default_crawl_interval() -> u64 {
    2000
}
fn default_crawl_budget() -> u64 {
    10_000
}

impl CrawlSection {
    /// Refuses values that cannot work, naming the setting.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        if self.crawl_interval_ms < 1000 {
            bail!(
                "crawl_interval_ms is {}; it may not be below 1000",
                self.crawl_interval_ms
            );
        }
        if self.crawl_daily_budget == 0 {
            bail!("crawl_daily_budget must be at least 1");
        }
        Ok(())
    }
}
