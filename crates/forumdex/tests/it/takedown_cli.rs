//! `forumdex takedown add|list|remove`: the `--json` shapes of operator-interface.md, the
//! refusals, and the record of every change.

use std::io::Write as _;
use std::process::{Command, Stdio};

use crate::helpers::{fails, fields, is_millis_utc, json_ok};

/// Imports one topic with one post by profile 3.
fn seeded() -> tempfile::TempDir {
    let data = tempfile::tempdir().expect("temp dir");
    let line = r#"{"kind":"post","post_id":28,"topic_id":5,"title":"Welcome","author":{"profile_id":3,"username":"satoshi"},"content_html":"hello","observed_at":"2024-03-01T12:00:00Z"}"#;
    let mut child = Command::new(env!("CARGO_BIN_EXE_forumdex"))
        .arg("--data")
        .arg(data.path())
        .args(["--json", "import", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("run forumdex import");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(line.as_bytes())
        .expect("write stdin");
    assert!(child.wait().expect("import ends").success());
    data
}

#[test]
fn takedowns_are_added_listed_and_lifted_with_their_record() {
    let data = seeded();
    let data = data.path();
    let added = json_ok(
        data,
        &["takedown", "add", "--post", "28", "--reason", "court order"],
    );
    assert_eq!(added["kind"], "post");
    assert_eq!(added["id"], 28);
    assert!(is_millis_utc(added["at"].as_str().unwrap()), "{added}");
    for key in ["takedown_id", "kind", "id", "at"] {
        assert!(fields(&added).contains(&key), "{added}");
    }
    let id = added["takedown_id"].as_i64().unwrap().to_string();

    let again = fails(data, &["takedown", "add", "--post", "28", "--reason", "x"]);
    assert!(again.contains("already taken down"), "{again}");
    let profile = json_ok(
        data,
        &[
            "takedown",
            "add",
            "--profile",
            "3",
            "--reason",
            "user asked",
        ],
    );
    assert_eq!(profile["kind"], "profile");

    let lifted = json_ok(
        data,
        &["takedown", "remove", &id, "--reason", "order quashed"],
    );
    assert_eq!(lifted["in_force"], false);
    assert_eq!(lifted["lifted_reason"], "order quashed");
    let missing = fails(data, &["takedown", "remove", &id]);
    assert!(missing.contains("no takedown"), "{missing}");

    let list = json_ok(data, &["takedown", "list"]);
    let takedowns = list["takedowns"].as_array().unwrap();
    assert_eq!(takedowns.len(), 2);
    assert_eq!(takedowns[0]["reason"], "court order");
    assert!(is_millis_utc(takedowns[0]["lifted_at"].as_str().unwrap()));
    assert_eq!(takedowns[1]["in_force"], true);
}

#[test]
fn bad_takedowns_are_refused_and_change_nothing() {
    let data = seeded();
    let data = data.path();
    for args in [
        &["takedown", "add", "--reason", "no target"][..],
        &[
            "takedown", "add", "--post", "1", "--topic", "2", "--reason", "two",
        ][..],
        &["takedown", "add", "--post", "0", "--reason", "zero"][..],
        &["takedown", "add", "--post", "-5", "--reason", "negative"][..],
        &["takedown", "add", "--post", "12"][..],
        &["takedown", "add", "--post", "12", "--reason", "   "][..],
        &["takedown", "remove", "abc"][..],
    ] {
        fails(data, args);
    }
    let list = json_ok(data, &["takedown", "list"]);
    assert_eq!(list["takedowns"].as_array().unwrap().len(), 0);
}
