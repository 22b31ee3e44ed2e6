//! [`Summary`]: what a crawl did, in the shape of `forumdex crawl --json`
//! (operator-interface.md).

use std::collections::BTreeMap;

use serde::Serialize;

/// What a crawl did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Requests sent in this run (robots.txt, redirects and retries included).
    pub requests: u64,
    /// Pages read and imported (or written), by kind (`board_index`, `board`, `topic`,
    /// `profile`); replayed pages included.
    pub pages: BTreeMap<String, u64>,
    /// Post observations produced (deleted-post observations included).
    pub posts: u64,
    /// Topic observations produced.
    pub topics: u64,
    /// Profile observations produced.
    pub profiles: u64,
    /// Board observations produced.
    pub boards: u64,
    /// Observations the corpus did not have before (with `--out`: lines written).
    pub new_observations: u64,
    /// Pages that brought nothing: a layout the parser does not recognise (set aside), an
    /// unexpected HTTP status, a request that failed.
    pub errors: u64,
    /// Topic pages gone from the forum (HTTP 404 or 410, or the forum's error box): not
    /// counted in `pages`; the posts seen on them before became deleted observations.
    pub gone: u64,
    /// Pending pages queued by a crawl of another forum URL and dropped from the frontier
    /// (a run with a mistaken `--forum-url` left them).
    pub dropped: u64,
    /// Pages still queued by a crawl of another scope (other `--board`/`--topic`/
    /// `--profiles`/`--since`), left for when that scope is crawled again.
    pub other_scopes: u64,
    /// Pages skipped because the forum's robots.txt disallows them for our user agent.
    pub disallowed: u64,
    /// robots.txt's `Crawl-delay` in milliseconds when it is longer than
    /// `crawl_interval_ms` (it then paces the crawl); `None` otherwise.
    pub crawl_delay_ms: Option<u64>,
    /// Milliseconds spent waiting for requests' turns (the interval, `Crawl-delay`, waits
    /// the forum asked for).
    pub waited_ms: u64,
}

impl Summary {
    /// Counts a page read.
    pub(crate) fn count_page(&mut self, kind: &str) {
        *self.pages.entry(kind.to_owned()).or_default() += 1;
    }

    /// Counts observation lines by their `kind`.
    pub(crate) fn count_lines(&mut self, lines: &[String]) {
        for line in lines {
            let kind = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|value| {
                    value
                        .get("kind")
                        .and_then(|k| k.as_str())
                        .map(str::to_owned)
                });
            match kind.as_deref() {
                Some("post") => self.posts += 1,
                Some("topic") => self.topics += 1,
                Some("profile") => self.profiles += 1,
                Some("board") => self.boards += 1,
                _ => {}
            }
        }
    }
}
