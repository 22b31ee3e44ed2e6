//! Rejected lines are reported with file, 1-based line and a reason naming the field, and
//! never stop the rest of the file.

use forumdex_ingest::import::MAX_LINE_BYTES;
use serde_json::json;

use crate::support::*;

#[test]
fn every_bad_line_is_reported_and_every_good_line_imports() {
    let (store, dir) = store();
    let long_text = "x".repeat(MAX_LINE_BYTES);
    // (line, Some(needle in the reason)) for rejected lines, None for accepted or blank ones.
    let cases: Vec<(String, Option<&str>)> = vec![
        (board(1, "Bitcoin Discussion"), None),
        (
            r#"{"kind":"board","board_id":2,"#.to_owned(),
            Some("not valid JSON"),
        ),
        (
            merged(
                serde_json::from_str(&post(10, 5, json!({}))).unwrap(),
                json!({"content_html": null}),
            ),
            Some("`content_html`"),
        ),
        (post(0, 5, json!({})), Some("`post_id`")),
        (
            post(11, 9_007_199_254_740_992_u64 as i64, json!({})),
            Some("`topic_id`"),
        ),
        (post(12, 5, json!({"post_id": -3})), Some("`post_id`")),
        (
            post(13, 5, json!({"observed_at": "2024-13-01T00:00:00Z"})),
            Some("`observed_at`"),
        ),
        (
            post(14, 5, json!({"posted_at": "2014-05-01 10:00:00"})),
            Some("`posted_at`"),
        ),
        (post(15, 5, json!({"language": "EN"})), Some("`language`")),
        (
            post(16, 5, json!({"author": {"profile_id": 7}})),
            Some("`author.username`"),
        ),
        ("[1, 2, 3]".to_owned(), Some("not a JSON object")),
        ("\"just a string\"".to_owned(), Some("not a JSON object")),
        (
            json!({"kind": "thread", "observed_at": OBSERVED_AT}).to_string(),
            Some("`kind`"),
        ),
        (String::new(), None),
        ("   \t ".to_owned(), None),
        (post(17, 5, json!({})), None),
        (
            post(18, 5, json!({"content_html": long_text})),
            Some("longer than"),
        ),
        (topic(5, 1, "Welcome"), None),
        (post(19, 5, json!({"unknown_future_field": [1, 2]})), None),
    ];
    let lines: Vec<String> = cases.iter().map(|(line, _)| line.clone()).collect();
    let path = write(dir.path(), "mixed.jsonl", &jsonl(&lines));

    let (summary, seen) = import(&store, &[&path], 3);

    let expected: Vec<(u64, &str)> = cases
        .iter()
        .enumerate()
        .filter_map(|(index, (_, needle))| needle.map(|n| (index as u64 + 1, n)))
        .collect();
    assert_eq!(seen.len(), expected.len(), "{seen:#?}");
    for (rejection, (line, needle)) in seen.iter().zip(&expected) {
        assert_eq!(rejection.file, path.display().to_string());
        assert_eq!(rejection.line, *line, "{rejection:?}");
        assert!(
            rejection.reason.contains(needle),
            "line {line}: {:?} does not name {needle}",
            rejection.reason
        );
    }
    assert_eq!(
        summary.rejections, seen,
        "the summary keeps the same rejections"
    );
    assert_eq!(summary.rejected, expected.len() as u64);
    // Accepted: the board, the topic and posts 17 and 19; blank lines are neither.
    assert_eq!(summary.accepted, 4);
    assert_eq!((summary.boards, summary.topics, summary.posts), (1, 1, 2));
    let counts = counts(&store);
    assert_eq!((counts.posts, counts.topics, counts.boards), (2, 1, 1));
    assert_eq!(post_doc(&store, 19).board.name, "Bitcoin Discussion");
}

#[test]
fn only_blank_lines_import_nothing_and_reject_nothing() {
    let (store, dir) = store();
    let path = write(dir.path(), "blank.jsonl", b"\n\n   \n\r\n\t\n");
    let (summary, seen) = import(&store, &[&path], 10);
    assert!(seen.is_empty(), "{seen:?}");
    assert_eq!((summary.accepted, summary.rejected), (0, 0));
    assert!(summary.sequences.is_empty());
    assert_eq!(latest(&store), 0);
}

#[test]
fn crlf_line_endings_import_like_lf() {
    let lines = vec![
        board(1, "Bitcoin Discussion"),
        topic(5, 1, "Welcome"),
        post(28, 5, json!({})),
        post(29, 5, json!({})),
    ];
    let (store, dir) = store();
    let crlf = lines.join("\r\n") + "\r\n\r\n";
    let crlf_path = write(dir.path(), "crlf.jsonl", crlf.as_bytes());
    let (summary, seen) = import(&store, &[&crlf_path], 10);
    assert!(seen.is_empty(), "{seen:?}");
    assert_eq!((summary.accepted, summary.rejected), (4, 0));
    assert_eq!(post_doc(&store, 29).title, "Re: topic 5");

    // The line terminator is not part of a line: the LF file holds the same observations.
    let lf_path = write(dir.path(), "lf.jsonl", &jsonl(&lines));
    let (again, _) = import(&store, &[&lf_path], 10);
    assert_eq!((again.accepted, again.new_observations), (4, 0));
    assert!(again.sequences.is_empty());
}

#[test]
fn line_numbers_restart_per_file() {
    let (store, dir) = store();
    let first = write(dir.path(), "a.jsonl", b"{}\n");
    let second = write(dir.path(), "b.jsonl.gz", &gzip(b"\n{\"kind\":1}\n"));
    let (_, seen) = import(&store, &[&first, &second], 10);
    let places: Vec<(String, u64)> = seen.iter().map(|r| (r.file.clone(), r.line)).collect();
    assert_eq!(
        places,
        [
            (first.display().to_string(), 1),
            (second.display().to_string(), 2)
        ]
    );
}
