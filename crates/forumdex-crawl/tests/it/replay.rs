//! The crawler's replay of pages an interrupted crawl recorded and did not import.

use std::path::PathBuf;
use std::sync::Arc;

use chrono::{Duration, TimeZone, Utc};
use forumdex_clock::SystemClock;
use forumdex_crawl::crawl::{Crawler, Scope, Sink};
use forumdex_crawl::state::{CrawlState, FetchRecord};

const TOPIC_14: &str = "http://forum.test/index.php?topic=14.0";

/// Collects the lines it is given.
#[derive(Default)]
struct Lines(Vec<String>);

impl Sink for Lines {
    fn write(&mut self, lines: &[String]) -> anyhow::Result<u64> {
        self.0.extend_from_slice(lines);
        Ok(lines.len() as u64)
    }
}

#[test]
fn a_replayed_refetch_of_an_unchanged_page_imports_nothing() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/smf-pages/topic_14.html");
    let Ok(body) = std::fs::read(&path) else {
        eprintln!("skipping: {} not readable", path.display());
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let state = Arc::new(CrawlState::open_in(dir.path()).expect("state"));
    let t0 = Utc
        .with_ymd_and_hms(2026, 3, 1, 12, 0, 0)
        .single()
        .expect("a date");
    let record = |fetched_at| FetchRecord {
        url: TOPIC_14,
        kind: "topic",
        fetched_at,
        status: 200,
        content_type: Some("text/html; charset=ISO-8859-1"),
        body: &body,
    };
    let first = state.record_page(&record(t0), &[]).expect("record");
    state.mark_imported(first).expect("imported");
    // Fetched again an hour later, unchanged; the crawl was killed before importing it.
    state
        .record_page(&record(t0 + Duration::hours(1)), &[])
        .expect("record");

    let mut crawler = Crawler::new(
        Arc::clone(&state),
        "http://forum.test",
        Scope::default(),
        true,
        SystemClock::shared(),
    );
    let mut sink = Lines::default();
    crawler.replay(&mut sink).expect("replay");
    assert_eq!(sink.0, Vec::<String>::new());
    assert_eq!(crawler.summary().pages.get("topic"), Some(&1));
    assert_eq!(state.unimported_pages().count(), 0);
}
