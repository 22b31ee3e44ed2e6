//! Incremental sync: later imports become searchable, superseded versions leave the index,
//! a rebuild gives the same documents.

use serde_json::json;

use crate::helpers::{World, ids, post};

#[test]
fn a_later_import_is_picked_up_by_the_next_sync() {
    let world = World::new();
    world.import_and_sync(&[post(1, 1, "the first post about hashrate", json!({}))]);
    assert_eq!(ids(&world.search("hashrate")), [1]);
    assert!(world.search("zeppelin").hits.is_empty());
    world.import(&[post(
        2,
        1,
        "a zeppelin full of hashrate and difficulty talk",
        json!({}),
    )]);
    assert!(world.search("zeppelin").hits.is_empty(), "not synced yet");
    world.sync();
    assert_eq!(ids(&world.search("zeppelin")), [2]);
    assert_eq!(world.indexes.synced_seq().unwrap(), 2);
    // Nothing new: a sync is a no-op.
    world.sync();
    assert_eq!(world.search("hashrate").total, 2);
}

#[test]
fn superseded_versions_leave_the_index() {
    let world = World::new();
    world.import_and_sync(&[post(
        5,
        1,
        "original words about gold and silver coins",
        json!({}),
    )]);
    assert_eq!(ids(&world.search("silver")), [5]);
    let newer = post(
        5,
        1,
        "edited words about platinum and palladium coins",
        json!({"observed_at": "2024-04-01T12:00:00Z"}),
    );
    world.import_and_sync(&[newer]);
    assert!(world.search("silver").hits.is_empty());
    assert_eq!(ids(&world.search("palladium")), [5]);
    assert_eq!(world.search("coins").total, 1);
}

#[test]
fn a_post_whose_language_changes_moves_between_indexes() {
    let world = World::new();
    world.import_and_sync(&[post(
        9,
        1,
        "kartoffel salat rezept und mehr worte",
        json!({"language": "en"}),
    )]);
    assert_eq!(ids(&world.search_lang("kartoffel", "en")), [9]);
    let moved = post(
        9,
        1,
        "kartoffel salat rezept und mehr worte",
        json!({"language": "de", "observed_at": "2024-04-01T12:00:00Z"}),
    );
    world.import_and_sync(&[moved]);
    assert!(world.search_lang("kartoffel", "en").hits.is_empty());
    assert_eq!(ids(&world.search_lang("kartoffel", "de")), [9]);
    assert_eq!(world.search("kartoffel").total, 1);
}

#[test]
fn rebuild_and_reopen_keep_the_same_documents() {
    let world = World::new();
    let lines: Vec<String> = (1..=30)
        .map(|i| {
            post(
                i,
                i / 5 + 1,
                &format!("post {i} about lightning channels and routing"),
                json!({"author": {"profile_id": i, "username": format!("u{i}")}}),
            )
        })
        .collect();
    world.import_and_sync(&lines);
    let before = world.search("lightning routing").total;
    assert_eq!(before, 30);
    let report = world.indexes.rebuild(&world.store).unwrap();
    assert_eq!(report.posts_indexed, 30);
    assert_eq!(world.search("lightning routing").total, before);
    let reopened = forumdex_search::SearchIndexes::open(world.dir.path()).unwrap();
    assert_eq!(reopened.synced_seq().unwrap(), 1);
    assert_eq!(reopened.doc_counts().get("en"), Some(&30));
}

#[test]
fn a_window_replayed_after_a_crash_keeps_one_document_per_post() {
    let world = World::new();
    world.import_and_sync(&[
        post(
            9,
            1,
            "kartoffel salat rezept und mehr worte",
            json!({"language": "en"}),
        ),
        post(10, 1, "zeppelin hangar notes", json!({})),
    ]);
    // A crash after the indexes committed the window but before `state.json` recorded it:
    // the next sync replays the window from sequence 0, now with post 9 in German.
    let state_file = world.dir.path().join("search/state.json");
    let mut state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state_file).unwrap()).unwrap();
    state["synced_seq"] = json!(0);
    std::fs::write(&state_file, state.to_string()).unwrap();
    world.import(&[post(
        9,
        1,
        "kartoffel salat rezept und mehr worte",
        json!({"language": "de", "observed_at": "2024-04-01T12:00:00Z"}),
    )]);
    world.sync();
    assert_eq!(world.indexes.synced_seq().unwrap(), 2);
    assert_eq!(world.search("kartoffel").total, 1);
    assert!(world.search_lang("kartoffel", "en").hits.is_empty());
    assert_eq!(ids(&world.search_lang("kartoffel", "de")), [9]);
    assert_eq!(world.search("zeppelin").total, 1);
}
