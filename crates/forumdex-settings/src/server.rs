//! The server's section: where it listens, the addresses it names in answers, and the limits
//! of the API.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::bail;
use ipnet::IpNet;
use serde::Deserialize;

use crate::values::{byte_size, nets, url_or};

/// The server's settings. Each field's doc names its default.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    /// Address to serve on. Default `127.0.0.1:8080`.
    #[serde(default = "default_listen")]
    pub listen: SocketAddr,
    /// Public base address of the API, used in links. Default `http://{listen}`
    /// (`https://` when TLS is configured).
    #[serde(default)]
    pub base_url: String,
    /// The original forum, used in post, topic and profile URLs and crawled by `forumdex
    /// crawl`. Default `https://bitcointalk.org`.
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
    #[serde(default, deserialize_with = "nets")]
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
    /// Threads for blocking work (store calls, searches) at most: past it, that work waits
    /// for a free thread instead of each burst leaving threads (and their memory) behind.
    /// Default 8 per core, at most what `memory_limit` holds ([`Self::blocking_threads`]).
    #[serde(default)]
    pub max_blocking_threads: Option<usize>,
    /// The memory the server is sized to stay under, in bytes or with a unit (`1.5GiB`):
    /// the blocking threads and the corpus's read caches get their shares of it, and a
    /// `max_blocking_threads` it cannot hold is refused. Default 1.5 GiB.
    #[serde(default = "default_memory_limit", deserialize_with = "byte_size")]
    pub memory_limit: u64,
}

/// The smallest `memory_limit` a server runs in.
const MIN_MEMORY_LIMIT: u64 = 256 << 20;
/// What one blocking thread may hold at most while it works: its stack (2 MiB), its
/// allocator heap and a search's buffers. A burst measured 2.95 GB over 417 threads
/// (about 7 MiB each, read caches included); this keeps twice that.
const BLOCKING_THREAD_BYTES: u64 = 16 << 20;
/// The share of `memory_limit` the blocking threads may take together (one half).
const THREADS_SHARE_DIVISOR: u64 = 2;
/// The share of `memory_limit` the corpus's read connections' page caches take together
/// (one quarter); the rest is the process's base, the mapped indexes' working set and the
/// requests in flight.
const READ_CACHE_SHARE_DIVISOR: u64 = 4;
/// The page cache of one read connection is at least 2 MiB (SQLite's default) and at most
/// 64 MiB (more does not pay: the operating system caches the file too).
const READ_CACHE_KIB: std::ops::RangeInclusive<u64> = 2_048..=65_536;
/// The share of `memory_limit` the corpus's one writer connection's page cache takes (a
/// 24th: 64 MiB of the default, which keeps the B-trees' inner pages of the 20M-post
/// corpus in memory: an import's CPU per post stays flat, BENCHMARKS.md "The scale
/// benchmark").
const WRITER_CACHE_SHARE_DIVISOR: u64 = 24;
/// The share of `memory_limit` one search index writer buffers before it writes a segment
/// (an eighth: 192 MiB of the default). A bulk import opens one writer per language
/// index a window touches (about 20 on the real corpus), but the small ones never come
/// near their budget.
const INDEX_WRITER_SHARE_DIVISOR: u64 = 8;

fn default_listen() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 8080))
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
fn default_memory_limit() -> u64 {
    1536 << 20
}

/// The blocking threads `memory_limit` holds.
fn threads_within(memory_limit: u64) -> usize {
    usize::try_from(memory_limit / THREADS_SHARE_DIVISOR / BLOCKING_THREAD_BYTES)
        .unwrap_or(usize::MAX)
}

impl ServerSection {
    /// Fills the URLs derived from others and refuses values that cannot work, naming the
    /// setting.
    pub(crate) fn resolve(mut self) -> anyhow::Result<Self> {
        let scheme = self.scheme();
        self.base_url = url_or(
            &self.base_url,
            || format!("{scheme}://{}", self.listen),
            "base_url",
        )?;
        self.forum_url = url_or(&self.forum_url, String::new, "forum_url")?;
        self.cdn_url = url_or(
            &self.cdn_url,
            || format!("{}/cdn", self.base_url),
            "cdn_url",
        )?;
        self.topup_url = url_or(
            &self.topup_url,
            || format!("{}/dashboard/billing", self.base_url),
            "topup_url",
        )?;
        if self.rate_limit_per_minute == 0 {
            bail!("rate_limit_per_minute must be at least 1");
        }
        if !(1..=3600).contains(&self.cursor_idle_seconds) {
            bail!("cursor_idle_seconds must be 1 to 3600");
        }
        if !(1..=3600).contains(&self.snapshot_seconds) {
            bail!("snapshot_seconds must be 1 to 3600 (the contract promises at most one hour)");
        }
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            bail!("tls_cert and tls_key must be set together");
        }
        if self.request_timeout_ms == 0
            || self.max_concurrent_requests == 0
            || self.max_blocking_threads == Some(0)
        {
            bail!(
                "request_timeout_ms, max_concurrent_requests and max_blocking_threads must be at \
                 least 1"
            );
        }
        if self.memory_limit < MIN_MEMORY_LIMIT {
            bail!(
                "memory_limit must be at least 256MiB, got {} bytes",
                self.memory_limit
            );
        }
        let threads = threads_within(self.memory_limit);
        if let Some(set) = self.max_blocking_threads
            && set > threads
        {
            bail!(
                "max_blocking_threads = {set} does not fit memory_limit = {} MiB (at most \
                 {threads}: each may hold {} MiB and together they get half); lower it or raise \
                 memory_limit",
                self.memory_limit >> 20,
                BLOCKING_THREAD_BYTES >> 20,
            );
        }
        Ok(self)
    }

    /// Threads for blocking work at most: `max_blocking_threads` when set, else 8 per core
    /// or what `memory_limit` holds, whichever is fewer.
    pub fn blocking_threads(&self) -> usize {
        self.max_blocking_threads.unwrap_or_else(|| {
            let per_cores = 8 * std::thread::available_parallelism().map_or(2, |cores| cores.get());
            per_cores.min(threads_within(self.memory_limit))
        })
    }

    /// The page cache of each read connection of the embedded corpus, in KiB: a quarter of
    /// `memory_limit` shared by as many connections as there are blocking threads (every
    /// store call runs on one), between 2 and 64 MiB.
    pub fn reader_cache_kib(&self) -> u32 {
        let threads = u64::try_from(self.blocking_threads()).unwrap_or(u64::MAX);
        let kib = (self.memory_limit / READ_CACHE_SHARE_DIVISOR / threads.max(1)) >> 10;
        let kib = kib.clamp(*READ_CACHE_KIB.start(), *READ_CACHE_KIB.end());
        u32::try_from(kib).unwrap_or(u32::MAX)
    }

    /// The page cache of the embedded corpus's writer connection, in KiB: a 24th of
    /// `memory_limit`.
    pub fn writer_cache_kib(&self) -> u32 {
        u32::try_from((self.memory_limit / WRITER_CACHE_SHARE_DIVISOR) >> 10).unwrap_or(u32::MAX)
    }

    /// What one search index writer buffers before it writes a segment, in bytes: an
    /// eighth of `memory_limit` (32 MiB at the smallest limit, above the 15 MB the index
    /// library needs).
    pub fn index_writer_bytes(&self) -> usize {
        usize::try_from(self.memory_limit / INDEX_WRITER_SHARE_DIVISOR).unwrap_or(usize::MAX)
    }

    /// The section once `listen` is bound to `bound`: when `listen` asked for any port
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

    /// The certificate chain and key when the API is served over HTTPS.
    pub fn tls(&self) -> Option<(&Path, &Path)> {
        self.tls_cert.as_deref().zip(self.tls_key.as_deref())
    }

    /// `https` when TLS is configured, else `http`.
    fn scheme(&self) -> &'static str {
        if self.tls_cert.is_some() {
            "https"
        } else {
            "http"
        }
    }
}
