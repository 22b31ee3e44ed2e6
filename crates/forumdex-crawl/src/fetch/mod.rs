//! The polite fetcher: [`Fetcher::fetch`] sends one request at a time to the forum, paced,
//! within the request budgets, as robots.txt allows.
//!
//! - Pacing: `&mut self` keeps one request in flight; the next request starts at least
//!   the interval (or robots.txt's larger `Crawl-delay`) plus a random jitter after the END
//!   of the previous exchange. Every request goes through it: robots.txt, redirects and
//!   retries too.
//! - Across runs: a new fetcher's first request waits the interval from the last request
//!   any run sent (the end of its exchange, or its start if the run was killed during it;
//!   persisted in the crawl state), so a restart cannot break it.
//! - Budgets: every request sent counts, against `--max-requests` (this run) and
//!   `crawl_daily_budget` (per UTC day, persisted in the crawl state, counted before the
//!   request is sent). An exhausted budget is an error and sends nothing.
//! - robots.txt: read from the forum's origin before the first page, cached in the crawl
//!   state with its fetch time and read again after a day (see [`robots`]).
//! - Redirects are followed by hand (so they are paced), at most [`MAX_REDIRECTS`], and only
//!   within the forum's origin and as robots.txt allows; a redirect elsewhere is returned
//!   as it is (a 3xx [`Fetched`]).
//! - 429 and 503 are retried up to [`MAX_THROTTLE_RETRIES`] times after `Retry-After` (or a
//!   backoff, see [`backoff`]); then [`FetchError::Throttled`].
//! - Any other final response, 404 and 500 included, is `Ok` with its status: the caller
//!   decides what a status means for a page. Errors are for what brought no response
//!   worth parsing (policy, budget, network, size, throttling).

pub mod backoff;
mod pacing;
mod policy;
pub mod robots;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};
use forumdex_clock::SharedClock;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, LOCATION, RETRY_AFTER};
use reqwest::{StatusCode, Url};

use crate::state::{CrawlState, RobotsRecord, StateError};
use pacing::Pacer;
pub use policy::{CrawlPolicy, PolicyError};
use robots::RobotsRules;

/// Redirects followed for one fetch.
pub const MAX_REDIRECTS: u32 = 5;
/// Retries of one fetch answered 429 or 503.
pub const MAX_THROTTLE_RETRIES: u32 = 3;
/// The largest body read; a larger one is [`FetchError::TooLarge`].
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;
/// Time allowed to connect.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Time allowed for one whole exchange (connect, headers and body).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// A page as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The URL the response came from (after the redirects followed).
    pub url: String,
    /// The final HTTP status (any but 429/503, which are retried).
    pub status: u16,
    /// The `Content-Type` header, when present and readable.
    pub content_type: Option<String>,
    /// The body as received (at most [`MAX_BODY_BYTES`]).
    pub body: Vec<u8>,
    /// When the body was read, to the millisecond (UTC).
    pub fetched_at: DateTime<Utc>,
}

/// Why a fetch brought no page.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The forum URL the fetcher was built for is unusable.
    #[error("forum url {url:?} is not an absolute http(s) url")]
    ForumUrl {
        /// The URL given.
        url: String,
    },
    /// A URL that does not parse.
    #[error("{url:?} is not a url: {source}")]
    InvalidUrl {
        /// The URL given.
        url: String,
        /// The parser's reason.
        source: url::ParseError,
    },
    /// A URL outside the forum's origin.
    #[error("{url} is not on the forum ({origin})")]
    OffSite {
        /// The URL.
        url: String,
        /// The forum's origin.
        origin: String,
    },
    /// robots.txt disallows the URL for our user agent.
    #[error("robots.txt disallows {url}")]
    Disallowed {
        /// The URL.
        url: String,
    },
    /// robots.txt could not be read (5xx or a network failure): nothing may be fetched
    /// before `retry_at` (RFC 9309 2.3.1.4).
    #[error("robots.txt of the forum could not be read; no page is fetched before {retry_at}")]
    RobotsUnreachable {
        /// When robots.txt is tried again.
        retry_at: DateTime<Utc>,
    },
    /// `--max-requests` requests were sent in this run.
    #[error("the run's request limit is reached (--max-requests {limit})")]
    RunLimitReached {
        /// The limit.
        limit: u64,
    },
    /// `crawl_daily_budget` requests were sent this UTC day.
    #[error(
        "the daily request budget is spent (crawl_daily_budget {budget}); the crawl can go on after midnight UTC"
    )]
    DailyBudgetSpent {
        /// The budget.
        budget: u64,
    },
    /// Still 429/503 after the retries, or asked to wait longer than
    /// [`backoff::MAX_THROTTLE_WAIT`].
    #[error(
        "the forum answered {status} {attempts} times in a row and asks to wait {wait_secs} s; stopping"
    )]
    Throttled {
        /// The last status.
        status: u16,
        /// Requests sent for this fetch.
        attempts: u32,
        /// The wait the last answer asked for (or the backoff's), in seconds.
        wait_secs: u64,
    },
    /// The body is larger than [`MAX_BODY_BYTES`].
    #[error("{url}: body larger than {limit} bytes")]
    TooLarge {
        /// The URL.
        url: String,
        /// The limit.
        limit: usize,
    },
    /// The request failed: connection, TLS, timeout, or a broken body.
    #[error("request failed: {0}")]
    Network(#[source] reqwest::Error),
    /// The HTTP client could not be built.
    #[error("cannot build the http client: {0}")]
    Client(#[source] reqwest::Error),
    /// The crawl state failed (budget counter, robots cache).
    #[error(transparent)]
    State(#[from] StateError),
    /// A blocking state call did not complete (a panic in it).
    #[error("crawl state call did not complete: {0}")]
    Join(#[from] tokio::task::JoinError),
}

/// The polite HTTP client of one forum (one origin).
#[derive(Debug)]
pub struct Fetcher {
    policy: CrawlPolicy,
    forum: Url,
    client: reqwest::Client,
    state: Arc<CrawlState>,
    pacer: Pacer,
    robots: Option<RobotsRules>,
    sent: u64,
    /// Time spent waiting for a request's turn (pacing, `Crawl-delay`, holds).
    waited: Duration,
    /// Whether the previous run's last request was taken into the pacing.
    paced_after_previous_run: bool,
    /// The wall clock (budget days, robots.txt expiry, holds, fetch times).
    clock: SharedClock,
}

/// One exchange's response, read.
struct Exchange {
    url: Url,
    status: StatusCode,
    content_type: Option<String>,
    location: Option<String>,
    retry_after: Option<String>,
    body: Vec<u8>,
}

impl Fetcher {
    /// A fetcher for the forum at `forum_url` (its origin: scheme, host and port) with
    /// `policy`, keeping its budget counter and robots.txt cache in `state`, on `clock`.
    pub fn new(
        policy: CrawlPolicy,
        forum_url: &str,
        state: Arc<CrawlState>,
        clock: SharedClock,
    ) -> Result<Self, FetchError> {
        let forum = Url::parse(forum_url)
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https") && url.host_str().is_some())
            .ok_or_else(|| FetchError::ForumUrl {
                url: forum_url.to_owned(),
            })?;
        let client = reqwest::Client::builder()
            .user_agent(policy.user_agent())
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(FetchError::Client)?;
        Ok(Self {
            policy,
            forum,
            client,
            state,
            pacer: Pacer::default(),
            robots: None,
            sent: 0,
            waited: Duration::ZERO,
            paced_after_previous_run: false,
            clock,
        })
    }

    /// Requests sent by this fetcher (robots.txt, redirects and retries included).
    pub fn requests_sent(&self) -> u64 {
        self.sent
    }

    /// Time this fetcher spent waiting for its requests' turn: the interval, robots.txt's
    /// `Crawl-delay`, the waits the forum asked for.
    pub fn time_waited(&self) -> Duration {
        self.waited
    }

    /// robots.txt's `Crawl-delay` for our token when it is longer than the interval (it
    /// then paces the crawl), once robots.txt is read.
    pub fn crawl_delay(&self) -> Option<Duration> {
        self.robots
            .as_ref()
            .and_then(RobotsRules::crawl_delay)
            .filter(|&delay| delay > self.policy.interval())
    }

    /// Now, to the millisecond.
    fn now_ms(&self) -> DateTime<Utc> {
        let now = self.clock.now();
        DateTime::from_timestamp_millis(now.timestamp_millis()).unwrap_or(now)
    }

    /// Fetches `url` (absolute, on the forum) politely; see the module docs for what is
    /// `Ok` and what is an error.
    pub async fn fetch(&mut self, url: &str) -> Result<Fetched, FetchError> {
        let url = Url::parse(url).map_err(|source| FetchError::InvalidUrl {
            url: url.to_owned(),
            source,
        })?;
        if url.origin() != self.forum.origin() {
            return Err(FetchError::OffSite {
                url: url.to_string(),
                origin: self.forum.origin().ascii_serialization(),
            });
        }
        self.ensure_robots().await?;
        let exchange = self.get(url, true).await?;
        Ok(Fetched {
            url: exchange.url.to_string(),
            status: exchange.status.as_u16(),
            content_type: exchange.content_type,
            body: exchange.body,
            fetched_at: self.now_ms(),
        })
    }

    /// Makes sure fresh robots.txt rules are loaded: from memory, from the crawl state, or
    /// read from the forum.
    async fn ensure_robots(&mut self) -> Result<(), FetchError> {
        let now = self.clock.now();
        let stale = self
            .robots
            .as_ref()
            .is_none_or(|rules| rules.expires_at <= now);
        if stale {
            let origin = self.forum.origin().ascii_serialization();
            let state = Arc::clone(&self.state);
            let cached = tokio::task::spawn_blocking(move || state.robots(&origin)).await??;
            let token = self.policy.robots_token();
            self.robots = cached
                .map(|record| RobotsRules::from_record(&record, token))
                .filter(|rules| rules.expires_at > now);
        }
        if self.robots.is_none() {
            let record = self.read_robots().await?;
            let state = Arc::clone(&self.state);
            let saved = record.clone();
            tokio::task::spawn_blocking(move || state.save_robots(&saved)).await??;
            self.robots = Some(RobotsRules::from_record(
                &record,
                self.policy.robots_token(),
            ));
        }
        if stale {
            // The last request (robots.txt itself) was paced without the rules; the next
            // one keeps their Crawl-delay.
            self.pacer.widen(self.gap());
            if let Some(delay) = self.crawl_delay() {
                tracing::warn!(
                    "robots.txt asks for a Crawl-delay of {} s, longer than crawl_interval_ms: one request every {} s at most",
                    delay.as_secs_f64(),
                    delay.as_secs_f64()
                );
            }
        }
        match &self.robots {
            Some(rules) if rules.unreachable() => Err(FetchError::RobotsUnreachable {
                retry_at: rules.expires_at,
            }),
            _ => Ok(()),
        }
    }

    /// Reads the forum's robots.txt (paced and budgeted like any request).
    async fn read_robots(&mut self) -> Result<RobotsRecord, FetchError> {
        let url = self
            .forum
            .join("/robots.txt")
            .expect("an absolute path joins");
        let origin = self.forum.origin().ascii_serialization();
        let (status, body) = match self.get(url, false).await {
            Ok(exchange) => (Some(exchange.status.as_u16()), exchange.body),
            Err(FetchError::Throttled { status, .. }) => (Some(status), Vec::new()),
            Err(FetchError::Network(err)) => {
                tracing::warn!(error = %err, "robots.txt could not be read");
                (None, Vec::new())
            }
            Err(err) => return Err(err),
        };
        Ok(RobotsRecord {
            origin,
            fetched_at: self.now_ms(),
            status,
            body,
        })
    }

    /// GETs `url`, following redirects within the forum (checked against robots.txt when
    /// `obey_robots`) and retrying 429/503.
    async fn get(&mut self, url: Url, obey_robots: bool) -> Result<Exchange, FetchError> {
        let mut current = url;
        let (mut redirects, mut retries) = (0, 0);
        loop {
            if obey_robots && !self.allows(&current) {
                return Err(FetchError::Disallowed {
                    url: current.to_string(),
                });
            }
            let exchange = self.exchange(current.clone()).await?;
            let status = exchange.status;
            if matches!(status.as_u16(), 429 | 503) {
                let wait = backoff::throttle_wait(
                    exchange.retry_after.as_deref(),
                    retries,
                    SystemTime::from(self.clock.now()),
                );
                // Held whatever happens next, so no request of this process (another
                // URL included), nor of a crawl started again, goes out before the forum
                // said it may.
                self.pacer.hold(tokio::time::Instant::now() + wait);
                let until = self.clock.now() + chrono::Duration::from_std(wait).unwrap_or_default();
                let state = Arc::clone(&self.state);
                tokio::task::spawn_blocking(move || state.hold_until(until)).await??;
                if retries == MAX_THROTTLE_RETRIES || wait > backoff::MAX_THROTTLE_WAIT {
                    return Err(FetchError::Throttled {
                        status: status.as_u16(),
                        attempts: retries + 1,
                        wait_secs: wait.as_secs(),
                    });
                }
                tracing::warn!(
                    status = status.as_u16(),
                    wait_ms = wait.as_millis(),
                    "the forum asks us to slow down"
                );
                retries += 1;
                continue;
            }
            let next = exchange
                .location
                .as_deref()
                .filter(|_| status.is_redirection() && redirects < MAX_REDIRECTS)
                .and_then(|location| current.join(location).ok())
                .filter(|next| next.origin() == self.forum.origin());
            match next {
                Some(next) => {
                    redirects += 1;
                    current = next;
                }
                None => return Ok(exchange),
            }
        }
    }

    fn allows(&self, url: &Url) -> bool {
        let path = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        };
        self.robots
            .as_ref()
            .is_some_and(|rules| rules.allowed(&path))
    }

    /// One paced, budgeted request, its body read.
    async fn exchange(&mut self, url: Url) -> Result<Exchange, FetchError> {
        let gap = self.gap();
        if !self.paced_after_previous_run {
            self.pace_after_previous_run(gap).await?;
        }
        // Counted once the wait is over, so the persisted time of the last request is its
        // start (an exhausted budget thus costs one wait, and sends nothing).
        self.waited += self.pacer.start(gap).await;
        self.spend_request().await?;
        let result = self.send(url).await;
        self.pacer.finished(gap, self.policy.jitter());
        let state = Arc::clone(&self.state);
        let ended_at = self.clock.now();
        tokio::task::spawn_blocking(move || state.note_request_end(ended_at)).await??;
        result
    }

    /// Holds the first request of this fetcher until `gap` after the last request any run
    /// spent (persisted with the budget: the end of its exchange, or its start when the run
    /// was killed during it), so a quick restart does not break the interval, and until the
    /// end of the last wait the forum asked for ([`CrawlState::held_until`]).
    async fn pace_after_previous_run(&mut self, gap: Duration) -> Result<(), FetchError> {
        let state = Arc::clone(&self.state);
        let (last, held) = tokio::task::spawn_blocking(move || {
            Ok::<_, StateError>((state.last_request_at()?, state.held_until()?))
        })
        .await??;
        let now = self.clock.now();
        if let Some(last) = last {
            let since = (now - last).to_std().unwrap_or(Duration::ZERO);
            let wait = gap.saturating_sub(since);
            self.pacer.hold(tokio::time::Instant::now() + wait);
        }
        if let Some(held) = held {
            let wait = (held - now).to_std().unwrap_or(Duration::ZERO);
            self.pacer.hold(tokio::time::Instant::now() + wait);
        }
        self.paced_after_previous_run = true;
        Ok(())
    }

    /// The interval, or robots.txt's `Crawl-delay` when larger.
    fn gap(&self) -> Duration {
        let delay = self.robots.as_ref().and_then(RobotsRules::crawl_delay);
        delay.map_or(self.policy.interval(), |delay| {
            delay.max(self.policy.interval())
        })
    }

    /// Counts a request against both budgets, or refuses it.
    async fn spend_request(&mut self) -> Result<(), FetchError> {
        if let Some(limit) = self
            .policy
            .max_requests()
            .filter(|&limit| self.sent >= limit)
        {
            return Err(FetchError::RunLimitReached { limit });
        }
        let budget = self.policy.daily_budget();
        let state = Arc::clone(&self.state);
        let now = self.clock.now();
        let spent =
            tokio::task::spawn_blocking(move || state.try_spend_request(now, budget)).await??;
        if spent.is_none() {
            return Err(FetchError::DailyBudgetSpent { budget });
        }
        self.sent += 1;
        Ok(())
    }

    async fn send(&self, url: Url) -> Result<Exchange, FetchError> {
        let mut response = self
            .client
            .get(url.clone())
            .send()
            .await
            .map_err(FetchError::Network)?;
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|value: &reqwest::header::HeaderValue| value.to_str().ok())
                .map(str::to_owned)
        };
        let (content_type, location, retry_after) =
            (header(CONTENT_TYPE), header(LOCATION), header(RETRY_AFTER));
        let too_large = || FetchError::TooLarge {
            url: url.to_string(),
            limit: MAX_BODY_BYTES,
        };
        let declared = header(CONTENT_LENGTH).and_then(|length| length.parse::<u64>().ok());
        if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
            return Err(too_large());
        }
        let status = response.status();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(FetchError::Network)? {
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Exchange {
            url,
            status,
            content_type,
            location,
            retry_after,
            body,
        })
    }
}
