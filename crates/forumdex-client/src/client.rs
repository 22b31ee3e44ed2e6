//! [`Client`] and its builder: one method per operation, and the one request path every
//! operation takes (rate-limit wait, send, retries where the contract says they are safe,
//! metering headers, errors).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use forumdex_types::{ImageSearchResponse, Post, PostList, Profile, SearchResponse, Topic};
use rand::Rng;
use reqwest::header::HeaderMap;
use reqwest::{StatusCode, Url};
use serde::de::DeserializeOwned;

use crate::clock::{Clock, SystemClock};
use crate::error::{ApiError, Error};
use crate::options::{
    ForumId, ImageSearchOptions, ProfilePostsOptions, Query, SearchOptions, TopicPostsOptions,
};

/// The default total time one HTTP attempt may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The default number of retries after the first attempt.
pub const DEFAULT_MAX_RETRIES: u32 = 3;
/// The first backoff between retries; it doubles per retry, with jitter.
const BACKOFF_BASE: Duration = Duration::from_millis(250);
/// The longest backoff between retries.
const BACKOFF_MAX: Duration = Duration::from_secs(10);
/// The longest wait for a rate-limit window: the server's window is 60 s, so a reset further
/// away means the clocks disagree.
const RATE_WAIT_MAX: Duration = Duration::from_secs(61);

/// The rate-limit state from the last response that carried `X-RateLimit-*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// `X-RateLimit-Limit`: requests per window.
    pub limit: u32,
    /// `X-RateLimit-Remaining`: requests left in the window.
    pub remaining: u32,
    /// `X-RateLimit-Reset`: when the window frees a request.
    pub reset_at: SystemTime,
}

/// The metering headers of the last response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meter {
    /// `X-Request-Id`: quote it to support.
    pub request_id: Option<String>,
    /// `X-Credits-Charged` (1 on a 200).
    pub credits_charged: Option<u64>,
    /// `X-Credits-Remaining`: the prepaid balance after the call.
    pub credits_remaining: Option<u64>,
    /// `X-RateLimit-*`.
    pub rate_limit: Option<RateLimit>,
}

impl Meter {
    fn from_headers(headers: &HeaderMap) -> Self {
        let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let number = |name: &str| text(name).and_then(|v| v.parse::<u64>().ok());
        let rate_limit = match (
            number("x-ratelimit-limit"),
            number("x-ratelimit-remaining"),
            number("x-ratelimit-reset"),
        ) {
            (Some(limit), Some(remaining), Some(reset)) => Some(RateLimit {
                limit: u32::try_from(limit).unwrap_or(u32::MAX),
                remaining: u32::try_from(remaining).unwrap_or(u32::MAX),
                reset_at: UNIX_EPOCH + Duration::from_secs(reset),
            }),
            _ => None,
        };
        Self {
            request_id: text("x-request-id").map(str::to_owned),
            credits_charged: number("x-credits-charged"),
            credits_remaining: number("x-credits-remaining"),
            rate_limit,
        }
    }
}

/// Configures a [`Client`]: see [`Client::builder`].
#[derive(Debug)]
pub struct ClientBuilder {
    base_url: String,
    key: String,
    timeout: Duration,
    max_retries: u32,
    wait_on_rate_limit: bool,
    use_env_proxy: bool,
    clock: Arc<dyn Clock>,
}

impl ClientBuilder {
    /// The total time one HTTP attempt may take (connect, send, read). Default 30 s. A
    /// timeout is not retried: the server may have done and charged the work.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Retries after the first attempt, for 503, connection failures before a response and
    /// 429 (after waiting for the reset). Default 3; 0 disables retries.
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// Whether to wait for the rate-limit window: before a request when the last response
    /// said none remain, and after a 429 before retrying. Default `true`. With `false`, a
    /// 429 is returned as [`Error::RateLimited`].
    pub fn wait_on_rate_limit(mut self, wait: bool) -> Self {
        self.wait_on_rate_limit = wait;
        self
    }

    /// Whether to use the proxy from `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY`. Default `true`.
    pub fn use_env_proxy(mut self, use_proxy: bool) -> Self {
        self.use_env_proxy = use_proxy;
        self
    }

    /// The clock the client reads and sleeps on. Default [`SystemClock`].
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The client.
    pub fn build(self) -> Result<Client, Error> {
        let mut base_url =
            Url::parse(&self.base_url).map_err(|err| Error::InvalidBaseUrl(err.to_string()))?;
        if !matches!(base_url.scheme(), "http" | "https") || base_url.cannot_be_a_base() {
            return Err(Error::InvalidBaseUrl(format!(
                "{}: not an http(s) base address",
                self.base_url
            )));
        }
        if !base_url.path().ends_with('/') {
            let path = format!("{}/", base_url.path());
            base_url.set_path(&path);
        }
        let mut http = reqwest::Client::builder().timeout(self.timeout);
        if !self.use_env_proxy {
            http = http.no_proxy();
        }
        let http = http.build().map_err(Error::Build)?;
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base_url,
                key: self.key,
                max_retries: self.max_retries,
                wait_on_rate_limit: self.wait_on_rate_limit,
                clock: self.clock,
                meter: Mutex::new(Meter::default()),
            }),
        })
    }
}

/// An async client of the forumdex API. Cheap to clone (clones share one connection pool and
/// one view of the metering headers).
///
/// Every method makes one paid request (walks one per page), waits on the rate limit when
/// allowed, and retries only what the contract says is safe: 503 (not charged), connection
/// failures before a response, and 429 after the reset; never 400, 401, 402, 403, 404 or 410.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    http: reqwest::Client,
    base_url: Url,
    key: String,
    max_retries: u32,
    wait_on_rate_limit: bool,
    clock: Arc<dyn Clock>,
    meter: Mutex<Meter>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key stays out of logs.
        f.debug_struct("Client")
            .field("base_url", &self.inner.base_url.as_str())
            .field("max_retries", &self.inner.max_retries)
            .field("wait_on_rate_limit", &self.inner.wait_on_rate_limit)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client of the service at `base_url` (for example `https://api.example.com`; the
    /// `/api/v1` paths are appended) with the API key `key` and default settings.
    pub fn new(base_url: &str, key: impl Into<String>) -> Result<Self, Error> {
        Self::builder(base_url, key).build()
    }

    /// A builder with the default settings: 30 s timeout, 3 retries, waiting on rate limits.
    pub fn builder(base_url: &str, key: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.to_owned(),
            key: key.into(),
            timeout: DEFAULT_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
            wait_on_rate_limit: true,
            use_env_proxy: true,
            clock: Arc::new(SystemClock),
        }
    }

    /// The metering headers of the last response any clone of this client received (a 200
    /// or an error that carried them).
    pub fn last_meter(&self) -> Meter {
        self.inner
            .meter
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// `X-Credits-Remaining` of the last response that carried it.
    pub fn credits_remaining(&self) -> Option<u64> {
        self.last_meter().credits_remaining
    }

    /// The rate-limit state of the last response that carried it.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.last_meter().rate_limit
    }

    /// Ranked post search (`GET /api/v1/search`).
    pub async fn search(
        &self,
        query: &Query,
        options: &SearchOptions,
    ) -> Result<SearchResponse, Error> {
        let mut pairs = Vec::new();
        options.push_query(query, &mut pairs);
        Ok(self.get("api/v1/search", &pairs).await?.0)
    }

    /// Image search (`GET /api/v1/images/search`).
    pub async fn image_search(
        &self,
        query: &Query,
        options: &ImageSearchOptions,
    ) -> Result<ImageSearchResponse, Error> {
        let mut pairs = Vec::new();
        options.push_query(query, &mut pairs);
        Ok(self.get("api/v1/images/search", &pairs).await?.0)
    }

    /// One post (`GET /api/v1/posts/{id}`).
    pub async fn post(&self, id: ForumId) -> Result<Post, Error> {
        Ok(self.get(&format!("api/v1/posts/{id}"), &[]).await?.0)
    }

    /// One topic (`GET /api/v1/topics/{id}`).
    pub async fn topic(&self, id: ForumId) -> Result<Topic, Error> {
        Ok(self.get(&format!("api/v1/topics/{id}"), &[]).await?.0)
    }

    /// One profile (`GET /api/v1/profiles/{id}`).
    pub async fn profile(&self, id: ForumId) -> Result<Profile, Error> {
        Ok(self.get(&format!("api/v1/profiles/{id}"), &[]).await?.0)
    }

    /// One page of a topic's posts (`GET /api/v1/topics/{id}/posts`).
    ///
    /// Without `cursor`, the first page with `options` (a new snapshot). With `cursor` (a
    /// `next_cursor` from the previous page of the same topic, never one you made), only the
    /// cursor is sent: it carries the original options, so `options` is ignored. Continue
    /// until `next_cursor` is `null`, even past empty pages; on [`Error::Gone`] start again
    /// without a cursor. [`Client::walk_topic_posts`] does all of this.
    pub async fn topic_posts_page(
        &self,
        id: ForumId,
        options: &TopicPostsOptions,
        cursor: Option<&str>,
    ) -> Result<PostList, Error> {
        let first = options.query();
        Ok(self.page(Scope::Topic(id), &first, cursor).await?.0)
    }

    /// One page of a profile's posts (`GET /api/v1/profiles/{id}/posts`); see
    /// [`Client::topic_posts_page`] for the cursor rules.
    pub async fn profile_posts_page(
        &self,
        id: ForumId,
        options: &ProfilePostsOptions,
        cursor: Option<&str>,
    ) -> Result<PostList, Error> {
        let first = options.query();
        Ok(self.page(Scope::Profile(id), &first, cursor).await?.0)
    }

    /// One collection page: the first (with `first` options) or the one after `cursor`.
    pub(crate) async fn page(
        &self,
        scope: Scope,
        first: &[(&'static str, String)],
        cursor: Option<&str>,
    ) -> Result<(PostList, Meter), Error> {
        let path = scope.path();
        match cursor {
            Some(cursor) => self.get(&path, &[("cursor", cursor.to_owned())]).await,
            None => self.get(&path, first).await,
        }
    }

    /// `GET path?pairs` with retries; the parsed 200 body and its metering headers.
    async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        pairs: &[(&'static str, String)],
    ) -> Result<(T, Meter), Error> {
        let inner = &*self.inner;
        let url = inner
            .base_url
            .join(path)
            .map_err(|err| Error::InvalidBaseUrl(err.to_string()))?;
        let mut retry = 0;
        loop {
            self.wait_for_window().await;
            let sent = inner
                .http
                .get(url.clone())
                .query(pairs)
                .bearer_auth(&inner.key)
                .send()
                .await;
            let response = match sent {
                Ok(response) => response,
                Err(err) if err.is_timeout() => return Err(Error::Timeout(err)),
                // No response came: nothing was charged, so a retry is safe.
                Err(_) if retry < inner.max_retries => {
                    self.backoff(retry).await;
                    retry += 1;
                    continue;
                }
                Err(err) => return Err(Error::Connection(err)),
            };
            let status = response.status();
            let meter = Meter::from_headers(response.headers());
            self.record(&meter);
            let body = response.bytes().await.map_err(|err| {
                if err.is_timeout() {
                    Error::Timeout(err)
                } else {
                    Error::Body(err)
                }
            })?;
            if status == StatusCode::OK {
                let parsed = serde_json::from_slice(&body).map_err(|source| Error::Decode {
                    request_id: meter.request_id.clone(),
                    source,
                })?;
                return Ok((parsed, meter));
            }
            let reset_at = meter.rate_limit.map(|rate| rate.reset_at);
            let can_retry = retry < inner.max_retries;
            if status == StatusCode::SERVICE_UNAVAILABLE && can_retry {
                self.backoff(retry).await;
                retry += 1;
                continue;
            }
            if status == StatusCode::TOO_MANY_REQUESTS && can_retry && inner.wait_on_rate_limit {
                match reset_at {
                    Some(reset_at) => self.sleep_until(reset_at).await,
                    None => self.backoff(retry).await,
                }
                retry += 1;
                continue;
            }
            let error = ApiError::from_response(status.as_u16(), meter.request_id, &body);
            return Err(Error::from_status(error, reset_at));
        }
    }

    fn record(&self, meter: &Meter) {
        let mut last = self
            .inner
            .meter
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let rate_limit = meter.rate_limit.or(last.rate_limit);
        let credits_remaining = meter.credits_remaining.or(last.credits_remaining);
        *last = Meter {
            rate_limit,
            credits_remaining,
            ..meter.clone()
        };
    }

    /// When waiting is allowed and the last response said the window is full, waits for its
    /// reset instead of spending a request on a 429.
    async fn wait_for_window(&self) {
        if !self.inner.wait_on_rate_limit {
            return;
        }
        let Some(rate) = self.rate_limit() else {
            return;
        };
        if rate.remaining == 0 {
            self.sleep_until(rate.reset_at).await;
            // The window has (by the response's word) freed a request; forget the zero so a
            // second caller does not wait again for the same reset.
            let mut last = self
                .inner
                .meter
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(known) = &mut last.rate_limit
                && known.reset_at <= rate.reset_at
            {
                known.remaining = known.remaining.max(1);
            }
        }
    }

    async fn sleep_until(&self, at: SystemTime) {
        let clock = &self.inner.clock;
        let wait = at.duration_since(clock.now()).unwrap_or(Duration::ZERO);
        if !wait.is_zero() {
            clock.sleep(wait.min(RATE_WAIT_MAX)).await;
        }
    }

    /// Exponential backoff with jitter: a random wait in [d/2, d], d = base * 2^retry, capped.
    async fn backoff(&self, retry: u32) {
        let full = BACKOFF_BASE
            .saturating_mul(2u32.saturating_pow(retry))
            .min(BACKOFF_MAX);
        let wait = rand::thread_rng().gen_range(full / 2..=full);
        self.inner.clock.sleep(wait).await;
    }
}

/// Whose posts a walk lists.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope {
    Topic(ForumId),
    Profile(ForumId),
}

impl Scope {
    pub(crate) fn path(self) -> String {
        match self {
            Self::Topic(id) => format!("api/v1/topics/{id}/posts"),
            Self::Profile(id) => format!("api/v1/profiles/{id}/posts"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metering_headers_are_read() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("x-request-id", "abc"),
            ("x-credits-charged", "1"),
            ("x-credits-remaining", "41"),
            ("x-ratelimit-limit", "120"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1700000000"),
        ] {
            headers.insert(name, value.parse().expect("valid header"));
        }
        let meter = Meter::from_headers(&headers);
        assert_eq!(meter.request_id.as_deref(), Some("abc"));
        assert_eq!(meter.credits_charged, Some(1));
        assert_eq!(meter.credits_remaining, Some(41));
        assert_eq!(
            meter.rate_limit,
            Some(RateLimit {
                limit: 120,
                remaining: 0,
                reset_at: UNIX_EPOCH + Duration::from_secs(1_700_000_000),
            })
        );
    }

    #[test]
    fn a_base_url_must_be_http() {
        assert!(matches!(
            Client::new("ftp://example.com", "k"),
            Err(Error::InvalidBaseUrl(_))
        ));
        assert!(matches!(
            Client::new("not a url", "k"),
            Err(Error::InvalidBaseUrl(_))
        ));
        let client = Client::new("http://example.com/prefix", "secret").expect("valid");
        assert!(!format!("{client:?}").contains("secret"));
    }
}
