//! `forumdex import`: stdin input, the `--json` object on stdout, rejections and errors on
//! stderr.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// Runs `forumdex --data DATA --json import ARGS...` with `stdin` piped in.
fn forumdex_import(data: &std::path::Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_forumdex"))
        .arg("--data")
        .arg(data)
        .arg("--json")
        .arg("import")
        .args(args)
        .env_remove("FORUMDEX_DATA")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the forumdex binary starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("forumdex finishes")
}

fn lines() -> String {
    let records = [
        json!({"kind": "board", "board_id": 1, "name": "Bitcoin Discussion", "observed_at": "2024-03-01T12:00:00Z"}),
        json!({"kind": "topic", "topic_id": 5, "board_id": 1, "title": "Welcome", "views": 18235, "observed_at": "2024-03-01T12:00:00Z"}),
        json!({"kind": "profile", "profile_id": 3, "username": "satoshi", "observed_at": "2024-03-01T12:00:00Z"}),
        json!({"kind": "post", "post_id": 28, "topic_id": 5, "title": "Welcome", "author": {"profile_id": 3, "username": "satoshi"}, "posted_at": "2009-11-22T18:51:31Z", "content_html": "Welcome to the forum.", "observed_at": "2024-03-01T12:00:00Z"}),
    ];
    let mut text = String::new();
    for record in &records[..2] {
        text.push_str(&format!("{record}\n"));
    }
    text.push_str("this is not json\n");
    text.push('\n');
    for record in &records[2..] {
        text.push_str(&format!("{record}\n"));
    }
    text.push_str(
        "{\"kind\":\"image\",\"source_url\":\"https://example.org/a.png\",\"observed_at\":\"yesterday\"}\n",
    );
    text.push_str(
        "{\"kind\":\"image\",\"source_url\":\"https://example.org/b.png\",\"observed_at\":\"2024-03-01T12:00:00Z\"}",
    );
    text
}

#[test]
fn stdin_import_prints_one_json_object_and_rejections_on_stderr() {
    let data = tempfile::tempdir().unwrap();
    let output = forumdex_import(data.path(), &["-"], lines().as_bytes());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "stderr: {stderr}");

    let summary: Value = serde_json::from_str(stdout.trim_end())
        .unwrap_or_else(|err| panic!("stdout is one JSON object ({err}): {stdout:?}"));
    assert_eq!(stdout.trim_end().lines().count(), 1, "{stdout:?}");
    for (field, value) in [
        ("accepted", 5),
        ("rejected", 2),
        ("posts", 1),
        ("topics", 1),
        ("profiles", 1),
        ("boards", 1),
        ("images", 1),
    ] {
        assert_eq!(summary[field], value, "{field} in {summary}");
    }

    // Line 3 is not JSON, line 4 is blank (neither accepted nor rejected), line 7 has a
    // bad date.
    let rejections: Vec<&str> = stderr.lines().filter(|l| l.starts_with("-:")).collect();
    assert_eq!(rejections.len(), 2, "{stderr}");
    assert!(rejections[0].starts_with("-:3: not valid JSON"), "{stderr}");
    assert!(
        rejections[1].starts_with("-:7: field `observed_at`"),
        "{stderr}"
    );

    // The corpus is in the data folder: a second run of the same lines adds nothing.
    let again = forumdex_import(data.path(), &["-"], lines().as_bytes());
    assert!(again.status.success());
    let summary: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(summary["accepted"], 5);
    assert_eq!(summary["new_observations"], 0);
}

#[test]
fn a_missing_file_fails_with_an_error_on_stderr_only() {
    let data = tempfile::tempdir().unwrap();
    let missing = data.path().join("no-such-corpus.jsonl.gz");
    let output = forumdex_import(data.path(), &[missing.to_str().unwrap()], b"");
    assert!(!output.status.success());
    assert!(
        output.stdout.is_empty(),
        "stdout: {:?}",
        String::from_utf8_lossy(&output.stdout)
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("no-such-corpus.jsonl.gz"), "{stderr}");
    assert!(stderr.to_lowercase().contains("error"), "{stderr}");
}
