//! The corpus on PostgreSQL: the conformance suite every corpus store passes, then what
//! only PostgreSQL shows (query plans) and what only a shared database shows (several
//! nodes importing and collecting at once), with the embedded store as the oracle of the
//! image stage, which the suite does not cover.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use forumdex_corpus::{
    CachedImage, CorpusCounts, CorpusMaintenance, CorpusRead, CorpusWrite, ImageObject,
    ListFilters, ListRequest, Millis, Order, Position, Scope,
};
use forumdex_postgres::{PgCorpusStore, PgPool, schema};
use forumdex_sqlite::SqliteCorpusStore;
use forumdex_testkit::corpus::fixtures::{
    import, latest, line, listing_corpus, ms, observations, post,
};
use forumdex_testkit::postgres::fresh_schema_url;
use serde_json::json;

/// An empty, migrated corpus on a schema of its own.
fn fresh_corpus() -> PgCorpusStore {
    corpus_at(&migrated(&fresh_schema_url()))
}

/// Migrates the database at `url`; returns the URL.
fn migrated(url: &str) -> String {
    let pool = PgPool::connect(url).expect("connect");
    schema::migrate(&pool).expect("migrate");
    url.to_owned()
}

fn corpus_at(url: &str) -> PgCorpusStore {
    PgCorpusStore::open(url).expect("open the corpus")
}

forumdex_testkit::corpus_store_conformance!(|_dir| fresh_corpus());

/// Imports `count` posts of their own (topics and authors no listing case uses), so that the
/// planner's statistics describe a table where one topic or author is a small part.
fn fill(store: &PgCorpusStore, count: i64) {
    let lines: Vec<String> = (0..count)
        .map(|n| {
            let posted = Millis(1_600_000_000_000 + n * 60_000).to_rfc3339();
            post(
                100_000 + n,
                1_000 + n % 200,
                Some(1_000 + n % 300),
                Some(&posted),
                json!({}),
            )
        })
        .collect();
    import(store, &lines, 3);
}

/// A listing page deep in a topic or an author's posts, either way, is one index range
/// scan from the position on the scope's index: no sort, no scan of the whole table, at
/// any depth. Honest conditions: the tables hold a few thousand posts besides the listed
/// ones and are analyzed, as a production corpus is, so the planner chooses on real
/// statistics (on a table of a few pages any plan is cheap, and a sequential scan may
/// rightly win; no planner setting is forced).
#[test]
fn a_page_is_an_index_range_scan_at_any_depth() {
    let url = migrated(&fresh_schema_url());
    let store = corpus_at(&url);
    listing_corpus(&store);
    fill(&store, 4_000);
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin.batch_execute("ANALYZE").unwrap();
    for (scope, index) in [
        (Scope::Topic(10), "post_by_topic"),
        (Scope::Profile(2), "post_by_author"),
    ] {
        for order in [Order::Asc, Order::Desc] {
            let request = ListRequest {
                scope,
                order,
                filters: ListFilters {
                    date_from: Some(Millis(0)),
                    board_id: Some(7),
                    ..Default::default()
                },
                limit: 100,
                after: Some(Position {
                    sort_at: ms("2021-01-20T00:00:00Z"),
                    post_id: 5_000,
                }),
                scan_budget: 1_000,
            };
            let plan = store.explain_list(&request).unwrap().join("\n");
            let main_step = plan.lines().next().unwrap();
            let scan = match order {
                Order::Asc => format!("Index Scan using {index} on post_versions p"),
                Order::Desc => format!("Index Scan Backward using {index} on post_versions p"),
            };
            assert!(main_step.contains(&scan), "{plan}");
            let position = plan
                .lines()
                .find(|line| line.contains("Index Cond"))
                .unwrap_or_default();
            assert!(position.contains("ROW(sort_at, post_id)"), "{plan}");
            assert!(!plan.contains("Sort"), "no sort step: {plan}");
            assert!(
                !plan.contains("Seq Scan on post_versions"),
                "no full scan: {plan}"
            );
        }
    }
}

/// The lines of batch `batch` of importer `importer`: posts of their own, 1 to 5 of them.
fn batch_lines(importer: i64, batch: i64) -> Vec<String> {
    let size = 1 + (importer + batch) % 5;
    (0..size)
        .map(|n| {
            let id = importer * 100_000 + batch * 10 + n + 1;
            post(
                id,
                1 + importer,
                Some(7),
                Some("2024-01-01T00:00:00Z"),
                json!({}),
            )
        })
        .collect()
}

/// Two nodes import different batches from several threads each while a reader takes
/// snapshots: every batch gets a sequence of its own, the sequences are dense, and every
/// snapshot sees exactly the batches up to its sequence (never a later one without an
/// earlier one).
#[test]
fn two_nodes_importing_at_once_commit_dense_sequences_in_order() {
    let url = migrated(&fresh_schema_url());
    let nodes = [Arc::new(corpus_at(&url)), Arc::new(corpus_at(&url))];
    let (importers, batches) = (6, 15);
    let done = AtomicBool::new(false);
    let (imported, seen) = std::thread::scope(|scope| {
        let reader = {
            let (node, done) = (Arc::clone(&nodes[1]), &done);
            scope.spawn(move || {
                let mut seen = Vec::new();
                while !done.load(Ordering::Relaxed) {
                    let seq = node.snapshot(Millis(0)).unwrap().seq;
                    seen.push((seq, node.counts(seq).unwrap().posts));
                }
                seen
            })
        };
        let handles: Vec<_> = (0..importers)
            .map(|importer| {
                let node = Arc::clone(&nodes[importer as usize % 2]);
                scope.spawn(move || {
                    (0..batches)
                        .map(|batch| {
                            let lines = batch_lines(importer, batch);
                            let outcome =
                                node.import_batch(&observations(&lines), Millis(1)).unwrap();
                            (outcome.seq.expect("a new batch"), lines.len() as i64)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let imported: Vec<(i64, i64)> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        done.store(true, Ordering::Relaxed);
        (imported, reader.join().unwrap())
    });
    let sizes: BTreeMap<i64, i64> = imported.iter().copied().collect();
    let total = (importers * batches) as usize;
    assert_eq!(sizes.len(), total, "each batch has its own sequence");
    assert_eq!(
        sizes.keys().copied().collect::<Vec<_>>(),
        (1..=total as i64).collect::<Vec<_>>(),
        "dense sequences"
    );
    for (seq, posts) in seen {
        let expected: i64 = sizes.range(..=seq).map(|(_, size)| size).sum();
        assert_eq!(
            posts, expected,
            "snapshot {seq} sees exactly the batches up to it"
        );
    }
    assert_eq!(latest(&*nodes[0]), total as i64);
}

/// Two nodes collect at once: one collects, the other finds it collecting and returns 0;
/// nothing is deleted twice and nothing current is deleted.
#[test]
fn two_nodes_collecting_at_once_collect_once() {
    let url = migrated(&fresh_schema_url());
    let nodes = [corpus_at(&url), corpus_at(&url)];
    let ids: Vec<i64> = (1..=40).collect();
    let first: Vec<String> = ids
        .iter()
        .map(|&id| post(id, 1, Some(2), None, json!({})))
        .collect();
    let old = import(&nodes[0], &first, 1).unwrap();
    let edits: Vec<String> = ids
        .iter()
        .map(|&id| {
            let edit = json!({"content_html": "edited", "observed_at": "2024-06-01T00:00:00Z"});
            post(id, 1, Some(2), None, edit)
        })
        .collect();
    let new = import(&nodes[1], &edits, 2).unwrap();
    let horizon = Millis(i64::MAX);

    // A third node holds the collector's lock: neither collects, nothing goes.
    let mut third = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    third
        .execute(
            "SELECT pg_advisory_lock($1)",
            &[&PgCorpusStore::COLLECTOR_LOCK],
        )
        .unwrap();
    assert_eq!(nodes[0].collect_garbage(horizon).unwrap(), 0);
    assert_eq!(nodes[1].collect_garbage(horizon).unwrap(), 0);
    assert_eq!(nodes[0].posts(&ids, old).unwrap().len(), ids.len());
    third
        .execute(
            "SELECT pg_advisory_unlock($1)",
            &[&PgCorpusStore::COLLECTOR_LOCK],
        )
        .unwrap();

    let collected: Vec<usize> = std::thread::scope(|scope| {
        let handles: Vec<_> = nodes
            .iter()
            .map(|node| scope.spawn(move || node.collect_garbage(horizon).unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(collected.iter().sum::<usize>(), ids.len(), "{collected:?}");
    assert!(
        collected.contains(&0),
        "one of them collected: {collected:?}"
    );
    assert!(nodes[0].posts(&ids, old).unwrap().is_empty());
    let current = nodes[1].posts(&ids, new).unwrap();
    assert_eq!(current.len(), ids.len());
    assert!(current.values().all(|post| post.content_html == "edited"));
    let rows: i64 = third
        .query_one("SELECT COUNT(*) FROM post_versions", &[])
        .unwrap()
        .get(0);
    assert_eq!(rows, ids.len() as i64);
}

/// What [`image_lifecycle`] saw of a store, to compare the two backends.
#[derive(Debug, PartialEq)]
struct ImageLifecycle {
    pending_first: Vec<(String, String)>,
    pending_after_recording: Vec<(String, String)>,
    cached_first: HashMap<String, CachedImage>,
    cached_after_edit: HashMap<String, CachedImage>,
    pending_after_edit: Vec<(String, String)>,
    collected: usize,
    cached_old_after_collect: HashMap<String, CachedImage>,
    counts: CorpusCounts,
}

fn pending(store: &dyn CorpusWrite) -> Vec<(String, String)> {
    let images = store.pending_images(0, 10).unwrap();
    let after: Vec<i64> = images.iter().map(|i| i.vid).collect();
    assert!(after.is_sorted(), "in vid order");
    images.into_iter().map(|i| (i.source_url, i.file)).collect()
}

/// Image records through the image stage: pending until an object is recorded (the first
/// object of a line is kept), cached at the snapshots whose canonical record has one, and
/// the object of a retired record collected with it.
fn image_lifecycle(store: &(impl CorpusWrite + CorpusMaintenance)) -> ImageLifecycle {
    let image = |url: &str, file: Option<&str>, observed_at: &str| {
        let record = json!({
            "kind": "image", "source_url": url, "file": file, "nsfw_score": 0.25,
            "observed_at": observed_at,
        });
        line(record)
    };
    let (a, b, c) = (
        "https://x.example/a.png",
        "https://x.example/b.png",
        "https://x.example/c.png",
    );
    let first = [
        image(a, Some("images/a.png"), "2024-03-01T12:00:00Z"),
        image(b, Some("images/b.png"), "2024-03-01T12:00:00Z"),
        image(c, None, "2024-03-01T12:00:00Z"),
    ];
    let old = import(store, &first, 1).unwrap();
    let pending_first = pending(store);
    let line_a = store.pending_images(0, 1).unwrap()[0].line_sha256.clone();
    let object = |n: u64| ImageObject {
        sha256: format!("{n:064x}"),
        bytes: n,
    };
    store
        .record_image_objects(&[(line_a.clone(), object(1)), (line_a, object(2))])
        .unwrap();
    let pending_after_recording = pending(store);
    let cached_first = store.cached_images(&[a, b, c, a], old).unwrap();
    let new = import(
        store,
        &[image(a, Some("images/a2.png"), "2024-04-01T12:00:00Z")],
        2,
    )
    .unwrap();
    let cached_after_edit = store.cached_images(&[a, b, c], new).unwrap();
    let pending_after_edit = pending(store);
    let collected = store.collect_garbage(Millis(i64::MAX)).unwrap();
    ImageLifecycle {
        pending_first,
        pending_after_recording,
        cached_first,
        cached_after_edit,
        pending_after_edit,
        collected,
        cached_old_after_collect: store.cached_images(&[a], old).unwrap(),
        counts: store.counts(new).unwrap(),
    }
}

/// The image stage's records and objects behave on PostgreSQL exactly as on the embedded
/// store (the oracle), and as described.
#[test]
fn image_records_and_objects_match_the_embedded_store() {
    let dir = tempfile::tempdir().unwrap();
    let embedded = image_lifecycle(&SqliteCorpusStore::open(dir.path()).unwrap());
    let postgres = image_lifecycle(&fresh_corpus());
    assert_eq!(postgres, embedded);
    assert_eq!(postgres.pending_first.len(), 2);
    assert_eq!(postgres.pending_after_recording.len(), 1);
    assert_eq!(postgres.cached_first.len(), 1);
    let cached = &postgres.cached_first["https://x.example/a.png"];
    assert_eq!(cached.object.bytes, 1, "the first object of a line is kept");
    assert_eq!(cached.nsfw_score, Some(0.25));
    assert!(postgres.cached_after_edit.is_empty());
    assert_eq!(postgres.pending_after_edit.len(), 2);
    assert_eq!(postgres.collected, 1);
    assert!(postgres.cached_old_after_collect.is_empty());
    assert_eq!(postgres.counts.images, 3);
}
