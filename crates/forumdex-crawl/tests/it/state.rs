//! The crawl state: persistence, the one-transaction fetch record, raw pages, the schedule;
//! every case on both backends (the embedded database, the shared PostgreSQL one).

use chrono::{DateTime, Duration, TimeZone, Utc};
use forumdex_crawl::state::{
    CrawlState, FetchFailure, FetchRecord, NewItem, PushResult, TopicChange,
};
use forumdex_postgres::PgPool;

/// Where a case's crawl state is kept.
enum Backend {
    /// `{data}/crawl/state.sqlite` in a temporary data folder.
    Embedded(tempfile::TempDir),
    /// A fresh, migrated PostgreSQL schema (its URL).
    Shared(String),
}

impl Backend {
    fn embedded() -> Self {
        Self::Embedded(tempfile::tempdir().expect("temp dir"))
    }

    fn shared() -> Self {
        let url = forumdex_testkit::postgres::fresh_schema_url();
        let pool = PgPool::connect(&url).expect("connect");
        forumdex_postgres::schema::migrate(&pool).expect("migrate");
        Self::Shared(url)
    }

    /// The state, opened afresh (a reopen sees what earlier ones committed).
    fn open(&self) -> CrawlState {
        match self {
            Self::Embedded(dir) => CrawlState::open_in(dir.path()).expect("state"),
            Self::Shared(url) => {
                CrawlState::open_shared(PgPool::connect(url).expect("connect")).expect("state")
            }
        }
    }

    /// The stored (compressed) length of the one raw page's body.
    fn stored_body_length(&self) -> i64 {
        let statement = "SELECT length(body_zstd) FROM crawl_raw_pages";
        match self {
            Self::Embedded(dir) => {
                rusqlite::Connection::open(dir.path().join(CrawlState::RELATIVE_PATH))
                    .expect("open")
                    .query_row(statement, [], |row| row.get(0))
                    .expect("length")
            }
            Self::Shared(url) => {
                let mut client = postgres::Client::connect(url, postgres::NoTls).expect("connect");
                let length: i32 = client.query_one(statement, &[]).expect("length").get(0);
                i64::from(length)
            }
        }
    }
}

/// Runs each case once per backend: `embedded::CASE` and `shared::CASE`.
macro_rules! on_both_backends {
    ($($case:ident),* $(,)?) => {
        mod embedded {
            $(#[test]
            fn $case() {
                super::$case(&super::Backend::embedded());
            })*
        }
        mod shared {
            $(#[test]
            fn $case() {
                super::$case(&super::Backend::shared());
            })*
        }
    };
}

on_both_backends!(
    pushing_a_url_twice_queues_it_once,
    a_recorded_page_is_logged_stored_done_and_its_links_queued_and_survives_reopen,
    unimported_pages_are_listed_until_marked_and_purge_keeps_them,
    many_raw_pages_are_walked_across_batches,
    posts_are_rechecked_on_a_decaying_schedule_then_done,
    topics_whose_last_post_moved_are_reported,
    a_set_aside_page_is_done_kept_for_reparse_and_not_replayed,
    known_posts_are_those_seen_in_the_range,
    a_crawl_takes_only_its_own_scopes_items,
);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0)
        .single()
        .expect("a date")
}

fn item(url: &str, due_at: DateTime<Utc>) -> NewItem {
    NewItem {
        url: url.to_owned(),
        kind: "topic".to_owned(),
        priority: 0,
        due_at,
        scope: String::new(),
    }
}

fn page<'a>(url: &'a str, body: &'a [u8], at: DateTime<Utc>) -> FetchRecord<'a> {
    FetchRecord {
        url,
        kind: "topic",
        fetched_at: at,
        status: 200,
        content_type: Some("text/html"),
        body,
    }
}

fn pushing_a_url_twice_queues_it_once(backend: &Backend) {
    let state = backend.open();
    let later = item("http://f/t1", t0() + Duration::hours(1));
    assert_eq!(state.push(&later, t0()).expect("push"), PushResult::Queued);
    let sooner = NewItem {
        priority: 5,
        ..item("http://f/t1", t0())
    };
    assert_eq!(
        state.push(&sooner, t0()).expect("push"),
        PushResult::AlreadyPending
    );
    assert_eq!(state.pending_count().expect("count"), 1);
    let next = state.next_due(t0(), "").expect("read").expect("due now");
    assert_eq!(
        (next.priority, next.due_at),
        (5, t0()),
        "the earlier due, the higher priority"
    );

    state
        .record_page(&page("http://f/t1", b"x", t0()), &[])
        .expect("record");
    assert_eq!(
        state.push(&later, t0()).expect("push"),
        PushResult::AlreadyDone
    );
    assert_eq!(
        state.next_due(t0() + Duration::days(1), "").expect("read"),
        None
    );
    assert_eq!(
        state.requeue(&later, t0()).expect("requeue"),
        PushResult::Queued
    );
    assert_eq!(
        state.next_due_at().expect("read"),
        Some(t0() + Duration::hours(1))
    );
}

fn a_recorded_page_is_logged_stored_done_and_its_links_queued_and_survives_reopen(
    backend: &Backend,
) {
    let body = "<html>".repeat(10_000);
    {
        let state = backend.open();
        state
            .push(&item("http://f/board", t0()), t0())
            .expect("push");
        state
            .push(&item("http://f/gone", t0()), t0())
            .expect("push");
        let links = [item("http://f/t1", t0()), item("http://f/t2", t0())];
        state
            .record_page(&page("http://f/board", body.as_bytes(), t0()), &links)
            .expect("record");
        state
            .record_failure(&FetchFailure {
                url: "http://f/gone",
                at: t0(),
                status: None,
                reason: "connection refused",
                retry_at: Some(t0() + Duration::minutes(5)),
            })
            .expect("failure");
        assert_eq!(state.try_spend_request(t0(), 10).expect("spend"), Some(1));
    }
    let state = backend.open();
    assert_eq!(
        state.pending_count().expect("count"),
        3,
        "t1, t2, and gone to retry"
    );
    let next = state.next_due(t0(), "").expect("read").expect("due");
    assert_eq!(next.url, "http://f/t1");
    let gone = state
        .next_due(t0() + Duration::minutes(5), "")
        .expect("read");
    assert!(gone.is_some());
    let log = state.fetch_log("http://f/board").expect("log");
    assert_eq!(log.len(), 1);
    assert_eq!(
        (log[0].status, log[0].bytes, log[0].outcome.as_str()),
        (Some(200), body.len() as u64, "page")
    );
    let failed = state.fetch_log("http://f/gone").expect("log");
    assert_eq!(failed[0].outcome, "connection refused");
    assert_eq!(state.requests_on(t0()).expect("count"), 1);

    let pages: Vec<_> = state.raw_pages().collect::<Result<_, _>>().expect("pages");
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].body, body.as_bytes(), "the body round-trips");
    assert_eq!(pages[0].fetched_at, t0());
    assert_eq!(pages[0].content_type.as_deref(), Some("text/html"));
    let stored = backend.stored_body_length();
    assert!(
        stored < 1_000,
        "kept compressed: {stored} bytes for {}",
        body.len()
    );
}

fn unimported_pages_are_listed_until_marked_and_purge_keeps_them(backend: &Backend) {
    let state = backend.open();
    let old = state
        .record_page(&page("http://f/1", b"one", t0()), &[])
        .expect("record");
    let new = state
        .record_page(&page("http://f/2", b"two", t0() + Duration::days(10)), &[])
        .expect("record");
    let unimported = |state: &CrawlState| -> Vec<i64> {
        state
            .unimported_pages()
            .map(|page| page.expect("page").id)
            .collect()
    };
    assert_eq!(unimported(&state), [old, new]);

    let now = t0() + Duration::days(11);
    assert_eq!(
        state.purge_raw_older_than(7, now).expect("purge"),
        0,
        "not imported yet"
    );
    state.mark_imported(old).expect("mark");
    state.mark_imported(new).expect("mark");
    assert!(unimported(&state).is_empty());
    assert_eq!(state.purge_raw_older_than(7, now).expect("purge"), 1);
    let left: Vec<_> = state
        .raw_pages()
        .map(|page| page.expect("page").url)
        .collect();
    assert_eq!(left, ["http://f/2"]);
}

fn many_raw_pages_are_walked_across_batches(backend: &Backend) {
    let state = backend.open();
    for n in 0..150 {
        let url = format!("http://f/{n}");
        state
            .record_page(&page(&url, url.as_bytes(), t0()), &[])
            .expect("record");
    }
    let bodies: Vec<Vec<u8>> = state
        .raw_pages()
        .map(|page| page.expect("page").body)
        .collect();
    assert_eq!(bodies.len(), 150);
    assert_eq!(bodies[149], b"http://f/149");
}

fn posts_are_rechecked_on_a_decaying_schedule_then_done(backend: &Backend) {
    let state = backend.open();
    assert!(state.observe_post(7, 3, t0(), t0()).expect("observe"));
    assert!(
        !state
            .observe_post(7, 3, t0(), t0() + Duration::minutes(1))
            .expect("again")
    );
    let due = |at: DateTime<Utc>| -> Vec<u64> {
        state
            .due_rechecks(at, 10)
            .expect("due")
            .iter()
            .map(|r| r.post_id)
            .collect()
    };
    assert!(due(t0() + Duration::minutes(9)).is_empty());
    let first = state
        .due_rechecks(t0() + Duration::minutes(10), 10)
        .expect("due");
    assert_eq!((first[0].post_id, first[0].topic_id), (7, 3));
    assert_eq!(first[0].due_at, t0() + Duration::minutes(10));

    state
        .mark_rechecked(7, t0() + Duration::minutes(11))
        .expect("checked");
    assert!(due(t0() + Duration::minutes(59)).is_empty());
    assert_eq!(due(t0() + Duration::hours(1)), [7]);
    // Stopped for three days: the 6 h and 1 day steps are skipped, the 7 day one is next.
    state
        .mark_rechecked(7, t0() + Duration::days(3))
        .expect("checked");
    assert!(due(t0() + Duration::days(6)).is_empty());
    assert_eq!(due(t0() + Duration::days(7)), [7]);
    state
        .mark_rechecked(7, t0() + Duration::days(7))
        .expect("checked");
    assert!(
        due(t0() + Duration::days(365)).is_empty(),
        "done after the last step"
    );

    // The schedule counts from the post's own time: a post first seen two hours after it
    // was written is next checked at 6 h; one a month old is never re-checked.
    state
        .observe_post(8, 3, t0(), t0() + Duration::hours(2))
        .expect("observe");
    state
        .observe_post(9, 3, t0() - Duration::days(30), t0())
        .expect("observe");
    assert!(due(t0() + Duration::hours(5)).is_empty());
    assert_eq!(due(t0() + Duration::hours(6)), [8]);
    assert!(!due(t0() + Duration::days(365)).contains(&9));
}

fn topics_whose_last_post_moved_are_reported(backend: &Backend) {
    let state = backend.open();
    assert_eq!(
        state.observe_topic(3, 100, None, t0()).expect("observe"),
        TopicChange::New
    );
    assert_eq!(
        state
            .due_topics(t0() + Duration::minutes(10), 10)
            .expect("due"),
        [3]
    );
    let later = t0() + Duration::minutes(10);
    assert_eq!(
        state.observe_topic(3, 100, None, later).expect("observe"),
        TopicChange::Unchanged
    );
    assert!(
        state
            .due_topics(later + Duration::minutes(59), 10)
            .expect("due")
            .is_empty()
    );
    assert_eq!(
        state
            .observe_topic(3, 105, Some(later), later)
            .expect("observe"),
        TopicChange::Moved
    );
    assert_eq!(
        state
            .due_topics(later + Duration::minutes(10), 10)
            .expect("due"),
        [3]
    );
}

fn a_set_aside_page_is_done_kept_for_reparse_and_not_replayed(backend: &Backend) {
    let state = backend.open();
    state.push(&item("http://f/t1", t0()), t0()).expect("push");
    state
        .record_set_aside(&page("http://f/t1", b"<html>half", t0()), "truncated")
        .expect("record");
    assert_eq!(state.next_due(t0(), "").expect("next"), None, "done");
    assert_eq!(state.done_urls("topic").expect("done"), vec!["http://f/t1"]);
    assert_eq!(state.unimported_pages().count(), 0, "not replayed");
    let kept: Vec<_> = state.raw_pages().map(|p| p.expect("page").body).collect();
    assert_eq!(kept, vec![b"<html>half".to_vec()]);
}

fn known_posts_are_those_seen_in_the_range(backend: &Backend) {
    let state = backend.open();
    for post in [53, 56, 70] {
        state.observe_post(post, 14, t0(), t0()).expect("observe");
    }
    state
        .observe_post(60, 15, t0(), t0())
        .expect("another topic");
    assert_eq!(state.known_posts(14, 54, None).expect("read"), vec![56, 70]);
    assert_eq!(
        state.known_posts(14, 0, Some(56)).expect("read"),
        vec![53, 56]
    );
}

fn a_crawl_takes_only_its_own_scopes_items(backend: &Backend) {
    let state = backend.open();
    let scoped = |url: &str, scope: &str| NewItem {
        scope: scope.to_owned(),
        ..item(url, t0())
    };
    state
        .push(&scoped("http://f/board", "b"), t0())
        .expect("push");
    state
        .push(&scoped("http://f/topic", "t"), t0())
        .expect("push");
    let next = state.next_due(t0(), "t").expect("read").expect("due");
    assert_eq!(next.url, "http://f/topic");
    assert_eq!(state.pending_elsewhere("t").expect("count"), 1);
    // Asked for by this crawl too: it is this crawl's now.
    state
        .push(&scoped("http://f/board", "t"), t0())
        .expect("push");
    assert_eq!(state.pending_elsewhere("t").expect("count"), 0);
}
