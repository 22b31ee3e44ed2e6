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
