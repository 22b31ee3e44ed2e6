//! The fetcher against the fixture forum, over real sockets. Paced requests cost a second
//! each (the 1000 ms floor), so each test sends only a few.

use std::sync::Arc;
use std::time::Duration;

use forumdex_clock::{Clock as _, SystemClock};
use forumdex_crawl::fetch::{CrawlPolicy, FetchError, Fetcher};
use forumdex_crawl::state::CrawlState;

use crate::fixture::{Forum, Reply, USER_AGENT};

const FLOOR: Duration = Duration::from_millis(CrawlPolicy::MIN_INTERVAL_MS);

fn policy() -> CrawlPolicy {
    CrawlPolicy::new(USER_AGENT, CrawlPolicy::MIN_INTERVAL_MS)
        .expect("a valid policy")
        .with_jitter(Duration::ZERO)
}

fn state(dir: &tempfile::TempDir) -> Arc<CrawlState> {
    Arc::new(CrawlState::open_in(dir.path()).expect("state"))
}

#[tokio::test]
async fn requests_are_paced_after_robots_txt_which_is_obeyed() {
    let forum = Forum::start().await;
    forum.script(
        "/robots.txt",
        [Reply::new(
            200,
            "User-agent: *\nDisallow: /\n\nUser-agent: ForumdexTest\nDisallow: /private\n",
        )],
    );
    forum.script(
        "/old",
        [Reply::new(301, "").header("location", "/new?topic=5")],
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let mut fetcher = Fetcher::new(
        policy(),
        &forum.url("/"),
        state(&dir),
        SystemClock::shared(),
    )
    .expect("fetcher");

    let first = fetcher.fetch(&forum.url("/a")).await.expect("/a");
    assert_eq!(first.status, 200);
    assert_eq!(first.body, b"page /a");
    assert_eq!(
        first.content_type.as_deref(),
        Some("text/plain; charset=utf-8")
    );
    let err = fetcher.fetch(&forum.url("/private/x")).await;
    assert!(matches!(err, Err(FetchError::Disallowed { .. })), "{err:?}");
    let moved = fetcher.fetch(&forum.url("/old")).await.expect("/old");
    assert_eq!((moved.status, moved.url), (200, forum.url("/new?topic=5")));
    for path in ["/b", "/c?x=1"] {
        fetcher.fetch(&forum.url(path)).await.expect("a page");
    }

    assert_eq!(
        forum.paths(),
        ["/robots.txt", "/a", "/old", "/new?topic=5", "/b", "/c?x=1"]
    );
    assert_eq!(fetcher.requests_sent(), 6);
    for gap in forum.gaps() {
        assert!(gap >= FLOOR, "two requests {gap:?} apart");
    }
    for hit in forum.hits() {
        assert_eq!(hit.user_agent.as_deref(), Some(USER_AGENT));
    }
}

#[tokio::test]
async fn a_429_with_retry_after_is_waited_out_and_retried() {
    let forum = Forum::start().await;
    forum.script("/robots.txt", [Reply::new(404, "")]);
    forum.script(
        "/t",
        [Reply::new(429, "slow down").header("retry-after", "1")],
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let mut fetcher = Fetcher::new(
        policy(),
        &forum.url("/"),
        state(&dir),
        SystemClock::shared(),
    )
    .expect("fetcher");

    let page = fetcher.fetch(&forum.url("/t")).await.expect("retried");
    assert_eq!(
        (page.status, page.body.as_slice()),
        (200, b"page /t".as_slice())
    );
    assert_eq!(forum.paths(), ["/robots.txt", "/t", "/t"]);
    assert!(forum.gaps().iter().all(|gap| *gap >= FLOOR));
}

#[tokio::test]
async fn a_retry_after_longer_than_the_fetcher_waits_stops_instead_of_retrying_early() {
    let forum = Forum::start().await;
    forum.script("/robots.txt", [Reply::new(404, "")]);
    forum.script(
        "/t",
        [Reply::new(429, "come back tomorrow").header("retry-after", "86400")],
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let state = state(&dir);
    let mut fetcher = Fetcher::new(
        policy(),
        &forum.url("/"),
        Arc::clone(&state),
        SystemClock::shared(),
    )
    .expect("fetcher");

    let err = fetcher
        .fetch(&forum.url("/t"))
        .await
        .expect_err("throttled");
    assert!(
        matches!(
            err,
            FetchError::Throttled {
                status: 429,
                attempts: 1,
                wait_secs: 86400
            }
        ),
        "{err}"
    );
    assert_eq!(forum.paths(), ["/robots.txt", "/t"], "no early retry");
    // A crawl started again waits too: the hold is kept in the state.
    let held = state.held_until().expect("read").expect("a hold");
    assert!(
        held >= SystemClock.now() + chrono::Duration::hours(23),
        "{held}"
    );
}

#[tokio::test]
async fn a_503_is_retried_and_other_errors_are_returned_as_statuses() {
    let forum = Forum::start().await;
    forum.script("/robots.txt", [Reply::new(404, "")]);
    forum.script(
        "/busy",
        [
            Reply::new(503, "maintenance").header("retry-after", "1"),
            Reply::new(500, "broken"),
        ],
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let mut fetcher = Fetcher::new(
        policy(),
        &forum.url("/"),
        state(&dir),
        SystemClock::shared(),
    )
    .expect("fetcher");

    let page = fetcher
        .fetch(&forum.url("/busy"))
        .await
        .expect("a response");
    assert_eq!(
        (page.status, page.body.as_slice()),
        (500, b"broken".as_slice())
    );
    assert_eq!(forum.paths(), ["/robots.txt", "/busy", "/busy"]);
}

#[tokio::test]
async fn budgets_and_pacing_persist_across_runs_and_stop_before_sending() {
    let forum = Forum::start().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let two_a_day = policy().with_daily_budget(2).expect("budget");
    let mut fetcher = Fetcher::new(
        two_a_day.clone(),
        &forum.url("/"),
        state(&dir),
        SystemClock::shared(),
    )
    .expect("fetcher");
    fetcher.fetch(&forum.url("/a")).await.expect("/a");
    let err = fetcher.fetch(&forum.url("/b")).await;
    assert!(
        matches!(err, Err(FetchError::DailyBudgetSpent { budget: 2 })),
        "{err:?}"
    );
    drop(fetcher);

    // A new run on the same state: the day's count and robots.txt were kept.
    let mut again = Fetcher::new(
        two_a_day,
        &forum.url("/"),
        state(&dir),
        SystemClock::shared(),
    )
    .expect("fetcher");
    let err = again.fetch(&forum.url("/b")).await;
    assert!(
        matches!(err, Err(FetchError::DailyBudgetSpent { .. })),
        "{err:?}"
    );
    let one_per_run = policy().with_max_requests(Some(1));
    let mut limited = Fetcher::new(
        one_per_run,
        &forum.url("/"),
        state(&dir),
        SystemClock::shared(),
    )
    .expect("fetcher");
    limited
        .fetch(&forum.url("/b"))
        .await
        .expect("/b: robots.txt is cached");
    let err = limited.fetch(&forum.url("/c")).await;
    assert!(
        matches!(err, Err(FetchError::RunLimitReached { limit: 1 })),
        "{err:?}"
    );

    assert_eq!(forum.paths(), ["/robots.txt", "/a", "/b"]);
    for gap in forum.gaps() {
        assert!(gap >= FLOOR, "a new run waits the interval too: {gap:?}");
    }
    let state = state(&dir);
    assert_eq!(state.requests_on(SystemClock.now()).expect("count"), 3);
}

#[tokio::test]
async fn an_unreadable_robots_txt_disallows_everything_and_off_site_urls_are_refused() {
    let forum = Forum::start().await;
    forum.script("/robots.txt", [Reply::new(500, "oops")]);
    let dir = tempfile::tempdir().expect("temp dir");
    let state = state(&dir);
    let mut fetcher = Fetcher::new(
        policy(),
        &forum.url("/"),
        Arc::clone(&state),
        SystemClock::shared(),
    )
    .expect("fetcher");

    let err = fetcher.fetch("http://elsewhere.example/a").await;
    assert!(matches!(err, Err(FetchError::OffSite { .. })), "{err:?}");
    let err = fetcher.fetch(&forum.url("/a")).await;
    assert!(
        matches!(err, Err(FetchError::RobotsUnreachable { .. })),
        "{err:?}"
    );
    let err = fetcher.fetch(&forum.url("/b")).await;
    assert!(
        matches!(err, Err(FetchError::RobotsUnreachable { .. })),
        "{err:?}"
    );

    assert_eq!(forum.paths(), ["/robots.txt"], "robots.txt is not hammered");
    let origin = format!("http://{}", forum.addr);
    let cached = state.robots(&origin).expect("read").expect("cached");
    assert_eq!(cached.status, Some(500));
}

#[test]
fn a_user_agent_without_contact_is_refused_before_any_request() {
    let err = CrawlPolicy::new("ForumdexTest/1.0", 2000).expect_err("no contact");
    assert!(err.to_string().contains("contact"), "{err}");
}

#[tokio::test]
async fn the_first_request_after_robots_txt_keeps_its_crawl_delay() {
    let forum = Forum::start().await;
    forum.script(
        "/robots.txt",
        [Reply::new(
            200,
            "User-agent: ForumdexTest\nCrawl-delay: 3\n",
        )],
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let mut fetcher = Fetcher::new(
        policy(),
        &forum.url("/"),
        state(&dir),
        SystemClock::shared(),
    )
    .expect("fetcher");

    fetcher.fetch(&forum.url("/a")).await.expect("/a");
    assert_eq!(forum.paths(), ["/robots.txt", "/a"]);
    assert_eq!(fetcher.crawl_delay(), Some(Duration::from_secs(3)));
    // The pacer's decision for /a: the Crawl-delay after robots.txt, not the interval.
    let waited = fetcher.time_waited();
    assert!(
        waited > Duration::from_secs(2),
        "/a was scheduled {waited:?} after robots.txt"
    );
}
