//! The crawl itself: [`Crawler`] drives the frontier through the [`Fetcher`], reads each
//! page ([`read`]), records it in the [`CrawlState`] and hands its observations to a
//! [`Sink`] (the corpus import, or a file).
//!
//! Order of one page (the resume guarantee of [`crate::state`]): fetch -> read in memory ->
//! [`CrawlState::record_page`] (with the links found) -> [`Sink::write`] ->
//! [`CrawlState::mark_imported`]. A run first replays the pages recorded and not imported
//! ([`Crawler::replay`]); the observations come from the stored page with `observed_at` =
//! its fetch time, so a replay imports nothing twice.
//!
//! Each frontier item carries the scope of the crawl that queued it ([`Scope::key`]): a
//! crawl fetches its own scope's items (and those queued before scopes were kept), so a
//! differently scoped crawl does what was asked, and another scope's leftovers wait until
//! that scope is crawled again (counted in the summary's `other_scopes`).
//!
//! A page fetched again imports only the records its previous fetch (the raw page kept)
//! did not make ([`unchanged`]): refreshing an unchanged page adds no observations.
//!
//! A page the parser does not recognise is set aside: counted in the summary's `errors`,
//! logged, and kept as a raw page marked imported ([`CrawlState::record_set_aside`]), so
//! it is never imported half-read and `--reparse` reads it again once the parser is fixed.
//!
//! Deleted posts are decided against the posts the crawl state has seen: a post seen before
//! in the ID range a topic page covers and missing from it now, or every post of a topic
//! answered 404 (or the forum's error box), becomes a deleted observation.

mod links;
mod read;
mod summary;
mod unchanged;

use std::collections::BTreeSet;
use std::sync::Arc;

use forumdex_clock::SharedClock;

use crate::blocking::off_runtime;
use crate::fetch::{FetchError, Fetcher};
use crate::parse::{BoardPage, Page, PageRef, ParseError, TopicStart};
use crate::state::{CrawlState, FetchFailure, FetchRecord, StateError, TopicChange};
pub use links::{Scope, kind};
use read::{Body, Reading, id};
pub use summary::Summary;

/// Fetches of one page that may fail on the network before it is given up.
const NETWORK_ATTEMPTS: u32 = 3;
/// How long after a network failure the page is tried again (by this run when it is still
/// going then, else by the next).
const NETWORK_RETRY: chrono::Duration = chrono::Duration::minutes(10);

/// Re-checks taken from the schedule in one `--refresh` run.
const RECHECKS_PER_RUN: u32 = 10_000;

/// Where a page's observation lines go.
pub trait Sink: Send {
    /// Takes one page's corpus-format lines (possibly none); returns how many observations
    /// were new to the corpus.
    fn write(&mut self, lines: &[String]) -> anyhow::Result<u64>;
}

/// Why a crawl stopped early.
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    /// The forum answered a challenge or a login wall: crawling on would be impolite.
    #[error("{url}: {reason}; the crawl stops (try again later, or check the forum in a browser)")]
    Blocked {
        /// The page asked for.
        url: String,
        /// What it was.
        reason: ParseError,
    },
    /// The fetcher gave up (still throttled, robots.txt unreadable, the client).
    #[error("{url}")]
    Fetch {
        /// The page asked for.
        url: String,
        /// Why.
        source: FetchError,
    },
    /// The crawl state failed.
    #[error(transparent)]
    State(#[from] StateError),
    /// The observations could not be imported (or written).
    #[error("{url}: cannot import its observations")]
    Sink {
        /// The page they came from.
        url: String,
        /// Why.
        source: anyhow::Error,
    },
}

/// One crawl of one forum.
#[derive(Debug)]
pub struct Crawler {
    state: Arc<CrawlState>,
    forum_url: String,
    scope: Scope,
    /// [`Scope::key`] of `scope`: the frontier items this crawl fetches.
    scope_key: String,
    refresh: bool,
    summary: Summary,
    /// The wall clock (what is due, when pages were read).
    clock: SharedClock,
}

impl Crawler {
    /// A crawl of `scope` on the forum at `forum_url`, keeping its state in `state`;
    /// `refresh` re-reads what may have changed (see [`Self::seed`]); on `clock`.
    pub fn new(
        state: Arc<CrawlState>,
        forum_url: &str,
        scope: Scope,
        refresh: bool,
        clock: SharedClock,
    ) -> Self {
        Self {
            state,
            forum_url: forum_url.trim_end_matches('/').to_owned(),
            scope_key: scope.key(),
            scope,
            refresh,
            summary: Summary::default(),
            clock,
        }
    }

    /// The crawl's clock (for a [`Fetcher`] of the same crawl).
    pub fn clock(&self) -> SharedClock {
        Arc::clone(&self.clock)
    }

    /// What the crawl did so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Imports the pages recorded but not imported (a previous run was stopped between the
    /// two), oldest first. Run before fetching anything.
    pub fn replay(&mut self, sink: &mut dyn Sink) -> Result<(), CrawlError> {
        let pages: Vec<_> = self.state.unimported_pages().collect::<Result<_, _>>()?;
        for raw in pages {
            tracing::info!(url = %raw.url, "importing a page recorded by an interrupted crawl");
            self.reread(&raw, sink, true)?;
        }
        Ok(())
    }

    /// `--reparse`: every stored raw page read again with the current parser and imported,
    /// without fetching.
    pub fn reparse(&mut self, sink: &mut dyn Sink) -> Result<(), CrawlError> {
        let state = Arc::clone(&self.state);
        for raw in state.raw_pages() {
            self.reread(&raw?, sink, false)?;
        }
        Ok(())
    }

    /// Reads a stored page again and imports it. `first` says it is the page's first reading
    /// (a replay of an interrupted crawl): then it also decides deletions and notes the
    /// refresh schedule, which an old page read again for `--reparse` must not.
    fn reread(
        &mut self,
        raw: &crate::state::RawPage,
        sink: &mut dyn Sink,
        first: bool,
    ) -> Result<(), CrawlError> {
        let Some(page) = PageRef::parse(&raw.url) else {
            self.summary.errors += 1;
            return Ok(self.state.mark_imported(raw.id)?);
        };
        let body = Body {
            page,
            status: raw.status,
            content_type: raw.content_type.as_deref(),
            bytes: &raw.body,
            fetched_at: raw.fetched_at,
            deletions: first,
        };
        // A replay imports what the interrupted run would have: what the page's previous
        // fetch did not say.
        let state = Arc::clone(&self.state);
        let fresh = |lines: Vec<String>| {
            if first {
                unchanged::new_lines(&state, &raw.url, page, raw.id, lines)
            } else {
                Ok(lines)
            }
        };
        match read::read(&self.state, &body)? {
            Reading::Page {
                page: parsed,
                lines,
            } => {
                self.import(&raw.url, &fresh(lines)?, sink)?;
                self.summary.count_page(&raw.kind);
                if first {
                    self.note(&parsed, &body)?;
                }
            }
            Reading::Gone { lines } => {
                self.import(&raw.url, &fresh(lines)?, sink)?;
                self.gone(&raw.url);
            }
            Reading::Blocked(reason) => self.set_aside(&raw.url, &reason.to_string()),
            Reading::SetAside(reason) => self.set_aside(&raw.url, &reason),
        }
        Ok(self.state.mark_imported(raw.id)?)
    }

    /// Queues the scope's first pages, after dropping the pending pages of another forum
    /// URL (a run with a mistaken `--forum-url` left them; counted in the summary's
    /// `dropped`): the frontier follows the forum URL of the latest run. With `refresh`,
    /// they are queued again even when fetched before, and so are the first listing page of
    /// every board read before and the topic pages holding the posts due on the re-check
    /// schedule (one page per topic).
    pub fn seed(&mut self) -> Result<(), CrawlError> {
        let now = self.clock.now();
        let root = PageRef::BoardIndex.to_url(&self.forum_url);
        for url in self.state.drop_pending_outside(&root, now)? {
            tracing::warn!(%url, "queued by a crawl of another forum URL; dropped");
            self.summary.dropped += 1;
        }
        let mut seeds = links::seeds(&self.scope);
        if self.refresh {
            let boards = self.state.done_urls(links::BOARD_KIND)?;
            seeds.extend(
                boards
                    .iter()
                    .filter_map(|url| PageRef::parse(url))
                    .filter(|page| matches!(page, PageRef::Board { start: 0, .. })),
            );
        }
        for page in seeds {
            let item = self.item(page, now);
            if self.refresh {
                self.state.requeue(&item, now)?;
            } else {
                self.state.push(&item, now)?;
            }
        }
        if self.refresh {
            let mut topics = BTreeSet::new();
            for due in self.state.due_rechecks(now, RECHECKS_PER_RUN)? {
                let (Some(topic_id), Some(msg)) = (
                    forumdex_corpus::ForumId::new(due.topic_id),
                    forumdex_corpus::ForumId::new(due.post_id),
                ) else {
                    continue;
                };
                if topics.insert(due.topic_id) {
                    let page = PageRef::Topic {
                        topic_id,
                        start: TopicStart::Msg(msg),
                    };
                    self.state.requeue(&self.item(page, now), now)?;
                }
            }
        }
        Ok(())
    }

    /// Fetches due frontier items one by one until none is due, or a request budget is
    /// spent (a normal end), or the forum blocks the crawl (an error).
    pub async fn run(
        &mut self,
        fetcher: &mut Fetcher,
        sink: &mut dyn Sink,
    ) -> Result<(), CrawlError> {
        let outcome = self.fetch_all(fetcher, sink).await;
        self.summary.other_scopes = self.state.pending_elsewhere(&self.scope_key)?;
        self.summary.requests = fetcher.requests_sent();
        self.summary.waited_ms = millis(fetcher.time_waited());
        self.summary.crawl_delay_ms = fetcher.crawl_delay().map(millis);
        outcome
    }

    async fn fetch_all(
        &mut self,
        fetcher: &mut Fetcher,
        sink: &mut dyn Sink,
    ) -> Result<(), CrawlError> {
        while let Some(item) = self.state.next_due(self.clock.now(), &self.scope_key)? {
            let Some(page) = PageRef::parse(&item.url) else {
                self.give_up(&item.url, "not a forum page this crawler reads")?;
                continue;
            };
            tracing::info!(url = %item.url, "fetching");
            let fetched = match fetcher.fetch(&item.url).await {
                Ok(fetched) => fetched,
                Err(FetchError::RunLimitReached { limit }) => {
                    tracing::info!(limit, "the run's request limit is reached; stopping");
                    return Ok(());
                }
                Err(err @ FetchError::DailyBudgetSpent { .. }) => {
                    tracing::warn!("{err}");
                    return Ok(());
                }
                Err(FetchError::Disallowed { url }) => {
                    tracing::warn!(%url, "robots.txt disallows it; skipped");
                    self.summary.disallowed += 1;
                    self.give_up(&item.url, "disallowed by robots.txt")?;
                    continue;
                }
                Err(err @ FetchError::Network(_)) => {
                    self.summary.errors += 1;
                    tracing::warn!(url = %item.url, "{err}");
                    let now = self.clock.now();
                    self.state.record_failure(&FetchFailure {
                        url: &item.url,
                        at: now,
                        status: None,
                        reason: &err.to_string(),
                        retry_at: (item.attempts + 1 < NETWORK_ATTEMPTS)
                            .then(|| now + NETWORK_RETRY),
                    })?;
                    continue;
                }
                Err(err @ FetchError::TooLarge { .. }) => {
                    self.summary.errors += 1;
                    tracing::warn!(url = %item.url, "{err}");
                    self.give_up(&item.url, &err.to_string())?;
                    continue;
                }
                Err(source) => {
                    return Err(CrawlError::Fetch {
                        url: item.url,
                        source,
                    });
                }
            };
            let body = Body {
                page,
                status: fetched.status,
                content_type: fetched.content_type.as_deref(),
                bytes: &fetched.body,
                fetched_at: fetched.fetched_at,
                deletions: true,
            };
            let record = FetchRecord {
                url: &item.url,
                kind: &item.kind,
                fetched_at: fetched.fetched_at,
                status: fetched.status,
                content_type: fetched.content_type.as_deref(),
                body: &fetched.body,
            };
            let (page_read, lines) = match read::read(&self.state, &body)? {
                Reading::Page { page, lines } => (Some(page), lines),
                Reading::Gone { lines } => (None, lines),
                Reading::Blocked(reason) => {
                    self.state.record_failure(&FetchFailure {
                        url: &item.url,
                        at: fetched.fetched_at,
                        status: Some(fetched.status),
                        reason: &reason.to_string(),
                        retry_at: Some(fetched.fetched_at),
                    })?;
                    return Err(CrawlError::Blocked {
                        url: item.url,
                        reason,
                    });
                }
                Reading::SetAside(reason) => {
                    self.set_aside(&item.url, &reason);
                    self.state.record_set_aside(&record, &reason)?;
                    continue;
                }
            };
            let lines = unchanged::new_lines(&self.state, &item.url, page, i64::MAX, lines)?;
            let found = match &page_read {
                Some(page) => self.follow(page)?,
                None => Vec::new(),
            };
            let raw_id = self.state.record_page(&record, &found)?;
            self.import(&item.url, &lines, sink)?;
            match &page_read {
                Some(page) => {
                    self.summary.count_page(&item.kind);
                    self.note(page, &body)?;
                }
                None => self.gone(&item.url),
            }
            self.state.mark_imported(raw_id)?;
        }
        Ok(())
    }

    /// The links to push for a page; with `refresh`, a topic's last page is queued again
    /// when its first is read.
    fn follow(&self, page: &Page) -> Result<Vec<crate::state::NewItem>, CrawlError> {
        let now = self.clock.now();
        let mut found = Vec::new();
        for link in links::discovered(page, &self.scope) {
            found.push(self.item(link, now));
        }
        if let Page::Topic(topic) = page
            && topic.current_page == 1
            && topic.page_count > 1
            && self.refresh
            && let Some(last) = PageRef::topic_page(topic.topic_id, topic.page_count)
        {
            self.state.requeue(&self.item(last, now), now)?;
        }
        Ok(found)
    }

    /// Hands a page's lines to the sink and counts them.
    fn import(
        &mut self,
        url: &str,
        lines: &[String],
        sink: &mut dyn Sink,
    ) -> Result<(), CrawlError> {
        let new = off_runtime(|| sink.write(lines)).map_err(|source| CrawlError::Sink {
            url: url.to_owned(),
            source,
        })?;
        self.summary.count_lines(lines);
        self.summary.new_observations += new;
        Ok(())
    }

    /// Notes what a read page says for the refresh schedule: a listing's topics
    /// ([`Self::note_listing`]); a topic page's posts (first sightings start their schedule,
    /// later ones count as a re-check) and, on its last page, the topic's last post.
    fn note(&self, page: &Page, body: &Body<'_>) -> Result<(), CrawlError> {
        let topic = match page {
            Page::Board(board) => return self.note_listing(board, body),
            Page::Topic(topic) => topic,
            _ => return Ok(()),
        };
        let topic_id = id(topic.topic_id);
        for post in &topic.posts {
            if !self.state.observe_post(
                id(post.post_id),
                topic_id,
                post.posted_at,
                body.fetched_at,
            )? {
                self.state
                    .mark_rechecked(id(post.post_id), body.fetched_at)?;
            }
        }
        if topic.current_page >= topic.page_count
            && let Some(last) = topic.posts.iter().max_by_key(|p| p.post_id.get())
        {
            self.state.observe_topic(
                topic_id,
                id(last.post_id),
                Some(last.posted_at),
                body.fetched_at,
            )?;
        }
        Ok(())
    }

    /// Notes a listing's topics with their last post ([`CrawlState::observe_topic`]); with
    /// `refresh`, the last page of each topic whose last post moved is queued again first
    /// (a crawl killed between the two sees the topic moved again when it replays the page).
    fn note_listing(&self, board: &BoardPage, body: &Body<'_>) -> Result<(), CrawlError> {
        let now = body.fetched_at;
        for row in &board.topics {
            let Some(last_post_id) = row.last_post_id else {
                continue;
            };
            let (topic_id, last_post_id) = (id(row.topic_id), id(last_post_id));
            if self.refresh
                && self.state.topic_change(topic_id, last_post_id)? == TopicChange::Moved
                && let Some(last) = PageRef::topic_page(
                    row.topic_id,
                    row.replies / crate::parse::TOPIC_PAGE_SIZE + 1,
                )
            {
                let queued_at = self.clock.now();
                self.state.requeue(&self.item(last, queued_at), queued_at)?;
            }
            self.state
                .observe_topic(topic_id, last_post_id, Some(row.last_post_at), now)?;
        }
        Ok(())
    }

    /// A frontier item of this crawl's scope for `page`, due at `now`.
    fn item(&self, page: PageRef, now: chrono::DateTime<chrono::Utc>) -> crate::state::NewItem {
        links::item(page, &self.forum_url, &self.scope_key, now)
    }

    /// Counts and reports a topic page gone from the forum.
    fn gone(&mut self, url: &str) {
        self.summary.gone += 1;
        tracing::warn!(%url, "the topic is gone from the forum; its posts seen before are deleted");
    }

    /// Counts and reports a page that brought nothing usable.
    fn set_aside(&mut self, url: &str, reason: &str) {
        self.summary.errors += 1;
        tracing::warn!(%url, %reason, "page set aside, not imported");
    }

    /// Records that an item is given up (logged in the fetch log, not fetched again).
    fn give_up(&self, url: &str, reason: &str) -> Result<(), CrawlError> {
        Ok(self.state.record_failure(&FetchFailure {
            url,
            at: self.clock.now(),
            status: None,
            reason,
            retry_at: None,
        })?)
    }
}

/// A duration in whole milliseconds (saturating).
fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
