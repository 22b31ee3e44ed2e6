//! [`CrawlPolicy`]: the crawl settings that make the crawler polite, validated.

use std::time::Duration;

/// Why a crawl policy was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// No `crawl_user_agent` was set.
    #[error(
        "crawl_user_agent is required: it must name the operator and a contact, e.g. \"ExampleBot/1.0 (+https://example.org/bot; ops@example.org)\""
    )]
    MissingUserAgent,
    /// The user agent names no contact.
    #[error(
        "crawl_user_agent must contain a contact (an email address or an http(s) URL) so the forum's administrators can reach whoever runs the crawler"
    )]
    NoContact,
    /// The user agent does not start with a product token to name the crawler.
    #[error(
        "crawl_user_agent must start with a product token naming the crawler (letters, digits, '-', '_', '.'; e.g. \"ExampleBot/1.0\")"
    )]
    NoProductToken,
    /// The user agent cannot be sent as an HTTP header (control or non-ASCII characters).
    #[error("crawl_user_agent must be printable ASCII")]
    NotAscii,
    /// `crawl_interval_ms` is under the floor.
    #[error("crawl_interval_ms is {found}; it may not be below {floor}")]
    IntervalTooShort {
        /// The value given.
        found: u64,
        /// [`CrawlPolicy::MIN_INTERVAL_MS`].
        floor: u64,
    },
    /// `crawl_daily_budget` is zero.
    #[error("crawl_daily_budget must be at least 1")]
    ZeroDailyBudget,
}

/// How politely to crawl: who we are, how often we may ask, and how much.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlPolicy {
    user_agent: String,
    robots_token: String,
    interval: Duration,
    jitter: Duration,
    max_requests: Option<u64>,
    daily_budget: u64,
}

impl CrawlPolicy {
    /// `crawl_interval_ms`'s default.
    pub const DEFAULT_INTERVAL_MS: u64 = 2000;
    /// The floor of `crawl_interval_ms`.
    pub const MIN_INTERVAL_MS: u64 = 1000;
    /// `crawl_daily_budget`'s default: requests per UTC day.
    pub const DEFAULT_DAILY_BUDGET: u64 = 10_000;

    /// A policy with `crawl_user_agent` and `crawl_interval_ms`, a jitter of a quarter of
    /// the interval, no per-run limit and the default daily budget. Refuses a user agent
    /// that is empty, names no contact (an email address or an http(s) URL) or does not
    /// start with a product token, and an interval under [`Self::MIN_INTERVAL_MS`].
    pub fn new(user_agent: &str, interval_ms: u64) -> Result<Self, PolicyError> {
        let user_agent = user_agent.trim();
        if user_agent.is_empty() {
            return Err(PolicyError::MissingUserAgent);
        }
        if !user_agent.bytes().all(|b| (b' '..=b'~').contains(&b)) {
            return Err(PolicyError::NotAscii);
        }
        let robots_token = robots_token(user_agent).ok_or(PolicyError::NoProductToken)?;
        if !user_agent.split_whitespace().any(is_contact) {
            return Err(PolicyError::NoContact);
        }
        if interval_ms < Self::MIN_INTERVAL_MS {
            return Err(PolicyError::IntervalTooShort {
                found: interval_ms,
                floor: Self::MIN_INTERVAL_MS,
            });
        }
        Ok(Self {
            user_agent: user_agent.to_owned(),
            robots_token,
            interval: Duration::from_millis(interval_ms),
            jitter: Duration::from_millis(interval_ms / 4),
            max_requests: None,
            daily_budget: Self::DEFAULT_DAILY_BUDGET,
        })
    }

    /// Sets the jitter: each wait is the interval plus a random extra in `0..=jitter` (the
    /// jitter only ever lengthens a wait).
    pub fn with_jitter(mut self, jitter: Duration) -> Self {
        self.jitter = jitter;
        self
    }

    /// Sets the per-run request limit (`--max-requests N`); `None` for none.
    pub fn with_max_requests(mut self, max_requests: Option<u64>) -> Self {
        self.max_requests = max_requests;
        self
    }

    /// Sets `crawl_daily_budget` (requests per UTC day, at least 1).
    pub fn with_daily_budget(mut self, daily_budget: u64) -> Result<Self, PolicyError> {
        if daily_budget == 0 {
            return Err(PolicyError::ZeroDailyBudget);
        }
        self.daily_budget = daily_budget;
        Ok(self)
    }

    /// The `User-Agent` header sent.
    pub fn user_agent(&self) -> &str {
        &self.user_agent
    }

    /// The product token matched against robots.txt `User-agent` lines (the user agent's
    /// first word, before any `/version`).
    pub fn robots_token(&self) -> &str {
        &self.robots_token
    }

    /// The least time between the end of one response and the start of the next request.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// The most random time added to each wait.
    pub fn jitter(&self) -> Duration {
        self.jitter
    }

    /// The per-run request limit.
    pub fn max_requests(&self) -> Option<u64> {
        self.max_requests
    }

    /// The requests allowed per UTC day.
    pub fn daily_budget(&self) -> u64 {
        self.daily_budget
    }
}

/// The product token: the first word up to a `/`, made of token characters.
fn robots_token(user_agent: &str) -> Option<String> {
    let first = user_agent.split_whitespace().next()?;
    let token = first.split('/').next()?;
    let valid = !token.is_empty()
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    (valid && !is_contact(first)).then(|| token.to_owned())
}

/// Whether a word of the user agent is a contact: an http(s) URL with a host, or an email
/// address (`local@domain.tld`), ignoring surrounding punctuation such as `(+...;)`.
fn is_contact(word: &str) -> bool {
    let word = word.trim_matches(|c: char| matches!(c, '(' | ')' | '<' | '>' | ';' | ',' | '+'));
    for scheme in ["https://", "http://"] {
        let has_scheme = word
            .get(..scheme.len())
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case(scheme));
        if has_scheme {
            let host = word[scheme.len()..]
                .split(['/', '?', '#'])
                .next()
                .unwrap_or("");
            return host.contains('.') || host.starts_with("localhost");
        }
    }
    let Some((local, domain)) = word.split_once('@') else {
        return false;
    };
    let labels: Vec<&str> = domain.split('.').collect();
    !local.is_empty()
        && labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const UA: &str = "ExampleBot/1.0 (+https://example.org/bot; ops@example.org)";

    #[test]
    fn a_user_agent_with_a_contact_is_accepted() {
        let policy = CrawlPolicy::new(UA, 2000).expect("valid");
        assert_eq!(policy.robots_token(), "ExampleBot");
        assert_eq!(policy.interval(), Duration::from_millis(2000));
        assert!(CrawlPolicy::new("Bot (jane@example.org)", 1000).is_ok());
        assert!(CrawlPolicy::new("Bot/2 +http://example.org", 1000).is_ok());
    }

    #[test]
    fn a_user_agent_without_a_contact_is_refused() {
        assert_eq!(
            CrawlPolicy::new("  ", 2000),
            Err(PolicyError::MissingUserAgent)
        );
        assert_eq!(
            CrawlPolicy::new("ExampleBot/1.0 by Jane", 2000),
            Err(PolicyError::NoContact)
        );
        assert_eq!(
            CrawlPolicy::new("Bot jane@localhost", 2000),
            Err(PolicyError::NoContact)
        );
        assert_eq!(
            CrawlPolicy::new("Bot ftp://example.org", 2000),
            Err(PolicyError::NoContact)
        );
        assert_eq!(
            CrawlPolicy::new("ops@example.org", 2000),
            Err(PolicyError::NoProductToken)
        );
        assert_eq!(
            CrawlPolicy::new("Bot é ops@example.org", 2000),
            Err(PolicyError::NotAscii)
        );
    }

    #[test]
    fn the_interval_has_a_floor_and_the_budget_is_positive() {
        assert_eq!(
            CrawlPolicy::new(UA, 999),
            Err(PolicyError::IntervalTooShort {
                found: 999,
                floor: 1000
            })
        );
        let policy = CrawlPolicy::new(UA, 1000).expect("the floor itself is fine");
        assert_eq!(
            policy.clone().with_daily_budget(0),
            Err(PolicyError::ZeroDailyBudget)
        );
        assert_eq!(policy.with_daily_budget(5).map(|p| p.daily_budget()), Ok(5));
    }
}
