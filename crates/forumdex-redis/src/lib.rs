//! forumdex's Redis backends. [`RedisRateLimiter`] keeps the per-key rate limit of
//! api-contract.md in Redis, so every node of a deployment counts against one window.
//!
//! Exactness: per key, a sorted set holds the instants (Unix ms) of the admitted requests;
//! one Lua script, which Redis runs atomically, drops the instants that left the rolling
//! 60 s window, admits the request when fewer than the limit remain (recording it), and
//! returns the count and the oldest instant. That is the same sliding log as
//! [`forumdex_accounts::InMemoryRateLimiter`], shared: never more than the limit in any 60 s,
//! whichever node serves. The instants are the nodes' own clocks (the caller's `now`), so
//! nodes must keep their clocks synchronised (NTP); a skew of `d` ms can shift a window's
//! edge by `d`.
//!
//! Failure: when Redis cannot be reached or answers late (a one-second bound per attempt),
//! `check` fails with [`RateLimitError`]; the API answers such a request 503 and charges
//! nothing, unless the limiter is wrapped in [`LocalFallback`] (setting
//! `rate_limiter_fallback = "local"`), which lets the node count alone until Redis is back.

mod fallback;

pub use fallback::LocalFallback;

use std::time::Duration;

use chrono::{DateTime, Utc};
use forumdex_accounts::rate::WINDOW_MILLIS;
use forumdex_accounts::{KeyId, RateDecision, RateLimitError, RateLimiter};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script};
use tokio::sync::OnceCell;

/// How long one connection attempt or one answer may take before the check fails.
const TIMEOUT: Duration = Duration::from_secs(1);

/// The admission script. KEYS[1]: the key's sorted set. ARGV: now (ms), window (ms), limit,
/// a unique member for this request. Returns {allowed (0/1), count after, oldest ms or -1}.
const CHECK: &str = r"
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
if count > 0 then
  redis.call('PEXPIRE', key, window)
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
if oldest[2] then
  return {allowed, count, tonumber(oldest[2])}
end
return {allowed, count, -1}
";

/// The rate limiter on Redis, shared by every node that uses the same server and prefix.
pub struct RedisRateLimiter {
    client: Client,
    prefix: String,
    script: Script,
    connection: OnceCell<ConnectionManager>,
}

impl std::fmt::Debug for RedisRateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateLimiter")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisRateLimiter {
    /// The prefix of every key this limiter writes, by default.
    pub const DEFAULT_PREFIX: &'static str = "forumdex:rate:";

    /// A limiter on the Redis server at `url` (`redis://host:port/db`), keeping each API
    /// key's log under `{prefix}{key_id}`. Only the URL is checked here; the connection is
    /// made at the first check (and remade after a failure), so a node starts while Redis is
    /// away and answers 503 until it is back.
    pub fn new(url: &str, prefix: impl Into<String>) -> Result<Self, RateLimitError> {
        let client = Client::open(url).map_err(|err| RateLimitError(Box::new(err)))?;
        Ok(Self {
            client,
            prefix: prefix.into(),
            script: Script::new(CHECK),
            connection: OnceCell::new(),
        })
    }

    async fn connection(&self) -> Result<ConnectionManager, RateLimitError> {
        let manager = self
            .connection
            .get_or_try_init(|| async {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(TIMEOUT))
                    .set_response_timeout(Some(TIMEOUT))
                    .set_number_of_retries(1);
                ConnectionManager::new_lazy_with_config(self.client.clone(), config)
            })
            .await
            .map_err(|err| RateLimitError(Box::new(err)))?;
        Ok(manager.clone())
    }
}

#[async_trait::async_trait]
impl RateLimiter for RedisRateLimiter {
    async fn check(
        &self,
        key: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<RateDecision, RateLimitError> {
        let now_ms = now.timestamp_millis();
        let member = format!("{now_ms}-{:016x}", rand::random::<u64>());
        let mut connection = self.connection().await?;
        let (allowed, count, oldest): (i64, i64, i64) = self
            .script
            .key(format!("{}{key}", self.prefix))
            .arg(now_ms)
            .arg(WINDOW_MILLIS)
            .arg(limit)
            .arg(member)
            .invoke_async(&mut connection)
            .await
            .map_err(|err| RateLimitError(Box::new(err)))?;
        Ok(RateDecision::from_log(
            allowed == 1,
            limit,
            usize::try_from(count).unwrap_or(usize::MAX),
            (oldest >= 0).then_some(oldest),
            now_ms,
        ))
    }

    async fn ping(&self) -> Result<(), RateLimitError> {
        let mut connection = self.connection().await?;
        redis::cmd("PING")
            .query_async::<String>(&mut connection)
            .await
            .map(drop)
            .map_err(|err| RateLimitError(Box::new(err)))
    }
}
