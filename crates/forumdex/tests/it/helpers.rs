//! Runs the built `forumdex` binary on a temporary data folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// Runs `forumdex --data DATA --json ARGS...`.
pub fn forumdex(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_forumdex"))
        .arg("--data")
        .arg(data)
        .arg("--json")
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("FORUMDEX_DATA")
        .output()
        .expect("run forumdex")
}

/// Runs a command that must succeed and print exactly one JSON object; returns it.
pub fn json_ok(data: &Path, args: &[&str]) -> Value {
    let out = forumdex(data, args);
    let stdout = String::from_utf8(out.stdout).expect("utf-8 stdout");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?} failed: {stderr}");
    assert_eq!(stdout.lines().count(), 1, "{args:?} printed {stdout:?}");
    let value: Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    assert!(value.is_object(), "{args:?} printed {value}");
    value
}

/// Runs a command that must fail: non-zero exit, nothing on stdout, a message on stderr.
/// Returns the message.
pub fn fails(data: &Path, args: &[&str]) -> String {
    let out = forumdex(data, args);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(out.stdout.is_empty(), "{args:?} printed on stdout");
    let stderr = String::from_utf8(out.stderr).expect("utf-8 stderr");
    assert!(!stderr.trim().is_empty(), "{args:?} failed silently");
    stderr
}

/// The keys of a JSON object, sorted.
pub fn fields(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

/// Whether `s` is RFC 3339 UTC with milliseconds: `2026-01-02T03:04:05.000Z`.
pub fn is_millis_utc(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 24
        && b[23] == b'Z'
        && b[19] == b'.'
        && b[10] == b'T'
        && chrono::DateTime::parse_from_rfc3339(s).is_ok()
}

/// A data folder `dir/data` holding a generated corpus of `posts` posts (seed `seed`),
/// imported as `forumdex import` does.
pub fn imported_folder(dir: &Path, posts: u32, seed: u32) -> PathBuf {
    let data = dir.join("data");
    let corpus = dir.join("corpus.jsonl");
    let corpus = corpus.to_str().expect("utf-8 path");
    let (posts, seed) = (posts.to_string(), seed.to_string());
    json_ok(
        &data,
        &[
            "generate", "--posts", &posts, "--seed", &seed, "--out", corpus,
        ],
    );
    json_ok(&data, &["import", corpus]);
    data
}
