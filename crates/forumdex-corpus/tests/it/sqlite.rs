//! The SQLite store: the conformance suite of forumdex-testkit, plus its query plans.

use forumdex_corpus::*;
use forumdex_testkit::corpus::fixtures::listing_corpus;

forumdex_testkit::corpus_store_conformance!(|dir| {
    SqliteCorpusStore::open(dir).expect("open corpus store")
});

#[test]
fn a_page_is_an_index_range_scan_at_any_depth() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteCorpusStore::open(dir.path()).unwrap();
    listing_corpus(&store);
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
                    sort_at: 5,
                    post_id: 5,
                }),
                scan_budget: 1_000,
            };
            let plan = store.explain_list(&request).unwrap().join("\n");
            let main_step = plan.lines().next().unwrap();
            assert!(
                main_step.contains(&format!("USING INDEX {index}")),
                "{plan}"
            );
            assert!(
                main_step.contains("sort_at") && main_step.contains(">") || main_step.contains("<"),
                "{plan}"
            );
            assert!(!plan.contains("TEMP B-TREE"), "no sort step: {plan}");
            assert!(!plan.contains("SCAN p"), "no full scan: {plan}");
        }
    }
}

/// A corpus written before deletions existed (no `post_versions.deleted`) opens, keeps its
/// posts and takes deletions.
#[test]
fn a_database_from_before_deletions_is_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(SqliteCorpusStore::FILE_NAME);
    let victim = {
        let store = SqliteCorpusStore::open(dir.path()).unwrap();
        listing_corpus(&store)[0].clone()
    };
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("ALTER TABLE post_versions DROP COLUMN deleted")
        .unwrap();
    drop(conn);
    let store = SqliteCorpusStore::open(dir.path()).unwrap();
    let seq = store.snapshot(Millis(0)).unwrap().seq;
    let before = store.counts(seq).unwrap().posts;
    assert!(before > 0);
    let line = serde_json::json!({
        "kind": "post", "post_id": victim.post_id, "topic_id": victim.topic_id, "title": "",
        "content_html": "", "author": {"profile_id": null, "username": ""}, "deleted": true,
        "observed_at": "2030-01-01T00:00:00Z",
    });
    let observation = Observation::parse_line(line.to_string().as_bytes()).unwrap();
    let seq = store
        .import_batch(&[observation], Millis(1))
        .unwrap()
        .seq
        .unwrap();
    assert!(store.post(victim.post_id, seq).unwrap().is_none());
    assert_eq!(store.counts(seq).unwrap().posts, before - 1);
}
