//! Plain, gzip and zstd files of the same lines import the same observations.

use forumdex_corpus::{CorpusWrite, Millis, PostDoc};
use serde_json::json;

use crate::support::*;

/// A small corpus of every kind but images, with a re-observed post and a post in Russian
/// without a language.
fn lines() -> Vec<String> {
    let mut lines = vec![
        board(1, "Bitcoin Discussion"),
        topic(5, 1, "Welcome"),
        profile(7, "miner"),
    ];
    for post_id in 28..=40 {
        lines.push(post(post_id, 5, json!({})));
    }
    lines.push(post(
        28,
        5,
        json!({"content_html": "edited later", "observed_at": "2024-04-01T00:00:00Z"}),
    ));
    lines.push(post(
        41,
        5,
        json!({"language": null, "content_html": "Я думаю, что у этого проекта сильная команда и реалистичная дорожная карта."}),
    ));
    lines
}

/// What a store holds, with import times blanked (they differ from store to store).
fn documents(store: &dyn CorpusWrite) -> Vec<PostDoc> {
    (28..=41)
        .map(|id| PostDoc {
            indexed_at: Millis(0),
            ..post_doc(store, id)
        })
        .collect()
}

fn import_one(name: &str, bytes: &[u8]) -> (forumdex_ingest::ImportSummary, Vec<PostDoc>) {
    let (store, dir) = store();
    let path = write(dir.path(), name, bytes);
    let (summary, rejections) = import(&store, &[&path], 4);
    assert!(rejections.is_empty(), "{name}: {rejections:?}");
    let counts = counts(&store);
    assert_eq!(
        (counts.posts, counts.topics, counts.profiles, counts.boards),
        (14, 1, 1, 1),
        "{name}"
    );
    (summary, documents(&store))
}

#[test]
fn plain_gzip_and_zstd_import_the_same_observations() {
    let plain = jsonl(&lines());
    let (expected_summary, expected_docs) = import_one("corpus.jsonl", &plain);
    assert_eq!(expected_summary.accepted, 18);
    assert_eq!(expected_summary.new_observations, 18);
    assert_eq!(expected_summary.posts, 15);
    assert_eq!(expected_docs[0].content_html, "edited later");
    assert_eq!(expected_docs[13].language.as_deref(), Some("ru"));

    for (name, bytes) in [
        ("corpus.jsonl.gz", gzip(&plain)),
        ("corpus.jsonl.zst", zstd(&plain)),
    ] {
        let (summary, docs) = import_one(name, &bytes);
        assert_eq!(
            (summary.accepted, summary.rejected, summary.new_observations),
            (
                expected_summary.accepted,
                expected_summary.rejected,
                expected_summary.new_observations
            ),
            "{name}"
        );
        assert_eq!(summary.sequences.len(), expected_summary.sequences.len());
        assert_eq!(docs, expected_docs, "{name}");
    }
}

#[test]
fn multi_member_gzip_and_multi_frame_zstd_are_read_to_the_end() {
    let plain = jsonl(&lines());
    // Cut in the middle of a line: members and frames are byte streams, not line groups.
    let cut = plain.len() / 2 + 3;
    assert_ne!(plain[cut - 1], b'\n');
    let (_, expected_docs) = import_one("corpus.jsonl", &plain);

    let mut members = gzip(&plain[..cut]);
    members.extend(gzip(&plain[cut..]));
    let mut frames = zstd(&plain[..cut]);
    frames.extend(zstd(&plain[cut..]));
    for (name, bytes) in [("multi.jsonl.gz", members), ("multi.jsonl.zst", frames)] {
        let (summary, docs) = import_one(name, &bytes);
        assert_eq!((summary.accepted, summary.rejected), (18, 0), "{name}");
        assert_eq!(docs, expected_docs, "{name}");
    }
}

#[test]
fn a_compressed_file_without_a_final_newline_keeps_its_last_line() {
    let mut plain = jsonl(&lines());
    plain.pop();
    let (summary, _) = import_one("no-newline.jsonl.gz", &gzip(&plain));
    assert_eq!((summary.accepted, summary.rejected), (18, 0));
}

#[test]
fn a_corrupt_gzip_file_fails_the_import_naming_the_file() {
    let (store, dir) = store();
    let mut bytes = gzip(&jsonl(&lines()));
    let middle = bytes.len() / 2;
    bytes.truncate(middle);
    let path = write(dir.path(), "broken.jsonl.gz", &bytes);
    let source = forumdex_ingest::source::Source::from_arg(&path);
    let err = forumdex_ingest::import_files(&store, &[source], &options(1000), |_| {})
        .expect_err("a truncated gzip stream is an error, not a silent end");
    let message = format!("{err:#}");
    assert!(message.contains("broken.jsonl.gz"), "{message}");
}
