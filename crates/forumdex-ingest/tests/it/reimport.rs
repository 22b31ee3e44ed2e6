//! Re-imports are no-ops, batches are atomic under one sequence each, and the canonical
//! document does not depend on import order.

use forumdex_corpus::CorpusRead;
use forumdex_ingest::import_files;
use forumdex_ingest::source::Source;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::support::*;

fn five_posts() -> Vec<String> {
    (1..=5).map(|id| post(id, 5, json!({}))).collect()
}

#[test]
fn re_importing_the_same_files_changes_nothing() {
    let (store, dir) = store();
    let mut lines = vec![board(1, "Bitcoin Discussion"), topic(5, 1, "Welcome")];
    lines.extend(five_posts());
    lines.push("not json".to_owned());
    let plain = write(dir.path(), "a.jsonl", &jsonl(&lines));
    let zst = write(
        dir.path(),
        "b.jsonl.zst",
        &zstd(&jsonl(&[post(6, 5, json!({})), profile(7, "miner")])),
    );

    let (first, _) = import(&store, &[&plain, &zst], 3);
    assert_eq!((first.accepted, first.rejected), (9, 1));
    assert_eq!(first.new_observations, 9);
    assert!(!first.sequences.is_empty());
    let counts_after_first = counts(&store);
    let seq_after_first = latest(&store);
    let doc_after_first = post_doc(&store, 3);

    let (second, _) = import(&store, &[&plain, &zst], 3);
    assert_eq!(second.accepted, first.accepted);
    assert_eq!(second.rejected, first.rejected);
    assert_eq!(second.new_observations, 0);
    assert_eq!(second.known_observations, first.accepted);
    assert!(second.sequences.is_empty(), "{:?}", second.sequences);
    assert_eq!(counts(&store), counts_after_first);
    assert_eq!(latest(&store), seq_after_first);
    assert_eq!(
        post_doc(&store, 3),
        doc_after_first,
        "indexed_at is kept too"
    );
}

#[test]
fn batches_of_two_over_five_new_lines_take_three_sequences() {
    let (store, dir) = store();
    let path = write(dir.path(), "five.jsonl", &jsonl(&five_posts()));
    let (summary, _) = import(&store, &[&path], 2);
    assert_eq!(summary.sequences.len(), 3, "{:?}", summary.sequences);
    assert!(summary.sequences.windows(2).all(|w| w[0] < w[1]));
    // Each sequence sees exactly the batches up to it.
    let posts_at: Vec<i64> = summary
        .sequences
        .iter()
        .map(|&seq| store.counts(seq).unwrap().posts)
        .collect();
    assert_eq!(posts_at, [2, 4, 5]);
    for &seq in &summary.sequences {
        assert!(store.sequence_created_at(seq).unwrap().is_some());
    }
}

#[test]
fn batches_holding_only_known_lines_take_no_sequence() {
    let (store, dir) = store();
    let lines = five_posts();
    let head = write(dir.path(), "head.jsonl", &jsonl(&lines[..2]));
    let all = write(dir.path(), "all.jsonl", &jsonl(&lines));
    import(&store, &[&head], 2);
    let (summary, _) = import(&store, &[&all], 2);
    // [1, 2] known: no sequence; [3, 4] and [5] new: one each.
    assert_eq!(summary.sequences.len(), 2);
    assert_eq!(
        (summary.new_observations, summary.known_observations),
        (3, 2)
    );
    assert_eq!(counts(&store).posts, 5);
}

#[test]
fn a_store_failure_keeps_the_committed_batches_and_a_rerun_completes() {
    let (sqlite, dir) = store();
    let path = write(dir.path(), "five.jsonl", &jsonl(&five_posts()));
    let failing = RecordingStore::new(sqlite, Some(1));
    let err = import_files(&failing, &[Source::from_arg(&path)], &options(2), |_| {})
        .expect_err("the second batch fails");
    assert!(format!("{err:#}").contains("disk full (test)"), "{err:#}");
    // The first batch is committed whole, nothing of the failed one.
    let after_failure = counts(failing.inner());
    assert_eq!(after_failure.posts, 2);

    let (summary, _) = import(failing.inner(), &[&path], 2);
    assert_eq!(
        (summary.new_observations, summary.known_observations),
        (3, 2)
    );
    assert_eq!(counts(failing.inner()).posts, 5);
}

fn canonical_content(lines: &[String]) -> String {
    let (store, dir) = store();
    let path = write(dir.path(), "order.jsonl", &jsonl(lines));
    import(&store, &[&path], 1);
    post_doc(&store, 1).content_html
}

fn sha_hex(line: &str) -> String {
    hex::encode(Sha256::digest(line.as_bytes()))
}

#[test]
fn the_latest_observation_wins_in_any_import_order_and_ties_go_to_the_smallest_sha() {
    // Instants, not strings, decide: 14:00+05:00 is 09:00Z, earlier than 12:00Z.
    let older = post(
        1,
        5,
        json!({"content_html": "older", "observed_at": "2024-03-01T14:00:00+05:00"}),
    );
    let newer = post(
        1,
        5,
        json!({"content_html": "newer", "observed_at": "2024-03-01T12:00:00Z"}),
    );
    let tie_a = post(
        1,
        5,
        json!({"content_html": "tie a", "observed_at": "2024-03-01T23:00:00Z"}),
    );
    let tie_b = post(
        1,
        5,
        json!({"content_html": "tie b", "observed_at": "2024-03-02T01:00:00+02:00"}),
    );
    let smallest_tie = if sha_hex(&tie_a) < sha_hex(&tie_b) {
        "tie a"
    } else {
        "tie b"
    };

    assert_eq!(canonical_content(&[older.clone(), newer.clone()]), "newer");
    assert_eq!(canonical_content(&[newer.clone(), older.clone()]), "newer");
    assert_eq!(
        canonical_content(&[tie_a.clone(), tie_b.clone()]),
        smallest_tie
    );
    assert_eq!(
        canonical_content(&[tie_b.clone(), tie_a.clone()]),
        smallest_tie
    );

    // Across files and batches too.
    let (store, dir) = store();
    let a = write(dir.path(), "a.jsonl", &jsonl(&[tie_b, older]));
    let b = write(dir.path(), "b.jsonl.gz", &gzip(&jsonl(&[tie_a, newer])));
    import(&store, &[&a, &b], 1);
    let doc = post_doc(&store, 1);
    assert_eq!(doc.content_html, smallest_tie);
    assert_eq!(doc.merit.observed_at, Some(at("2024-03-01T23:00:00Z")));
}
