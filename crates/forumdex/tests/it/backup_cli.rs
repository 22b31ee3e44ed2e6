//! `forumdex backup`: a copy taken while the accounts are being written holds every credit
//! committed before it began, nothing half-written, the keys, the corpus and the cursor
//! secret, and opens as a data folder of its own.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::helpers::{fails, imported_folder, json_ok};

#[test]
fn a_backup_taken_under_writes_restores_every_committed_credit_and_key() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = imported_folder(dir.path(), 200, 3);
    json_ok(
        &data,
        &[
            "accounts",
            "create",
            "--email",
            "dev@example.com",
            "--credits",
            "100",
        ],
    );
    let kept = json_ok(&data, &["keys", "create", "--account", "1"]);
    let revoked = json_ok(&data, &["keys", "create", "--account", "1"]);
    let revoked_id = revoked["key_id"].as_str().expect("a key id");
    json_ok(&data, &["keys", "revoke", revoked_id]);

    // Credits are added one at a time, each command committed when it returns, while the
    // backup runs.
    let committed = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (data, committed, stop) = (data.clone(), Arc::clone(&committed), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                json_ok(
                    &data,
                    &["credits", "add", "--account", "1", "--amount", "1"],
                );
                committed.fetch_add(1, Ordering::SeqCst);
            }
        })
    };
    while committed.load(Ordering::SeqCst) < 3 {
        std::thread::yield_now();
    }
    let out = dir.path().join("backup");
    let out_arg = out.to_str().expect("utf-8 path");
    let before = committed.load(Ordering::SeqCst);
    let report = json_ok(&data, &["backup", "--out", out_arg]);
    let after = committed.load(Ordering::SeqCst);
    stop.store(true, Ordering::SeqCst);
    writer.join().expect("the writer ends");

    assert_eq!(
        report["databases"],
        serde_json::json!(["corpus.sqlite", "accounts.sqlite"]),
        "{report}"
    );
    assert_eq!(
        report["cursor_secret"], false,
        "no server made one yet: {report}"
    );
    assert!(report["bytes"].as_u64().expect("bytes") > 0, "{report}");

    // The backup is a data folder: every credit committed before it began is there, and
    // no more than were committed by its end; the keys keep their states.
    let shown = json_ok(&out, &["accounts", "show", "1"]);
    let credits = shown["credits"].as_u64().expect("credits");
    assert!(
        (100 + before..=100 + after + 1).contains(&credits),
        "{credits} credits, {before} added before the backup and {after} by its end"
    );
    let keys = json_ok(&out, &["keys", "list", "--account", "1"]);
    let states: Vec<(&str, &str)> = keys["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .map(|key| {
            (
                key["key_id"].as_str().expect("id"),
                key["status"].as_str().expect("status"),
            )
        })
        .collect();
    assert!(
        states.contains(&(kept["key_id"].as_str().expect("id"), "active")),
        "{keys}"
    );
    assert!(states.contains(&(revoked_id, "revoked")), "{keys}");
    // Its corpus is the original's: rebuilding both folders' indexes finds the same posts.
    let rebuilt = json_ok(&out, &["reindex"]);
    let original = json_ok(&data, &["reindex"]);
    assert_eq!(
        rebuilt["posts_indexed"], original["posts_indexed"],
        "{rebuilt}"
    );
    assert_eq!(rebuilt["indexes"], original["indexes"], "{rebuilt}");

    // Never into a folder that holds something.
    let message = fails(&data, &["backup", "--out", out_arg]);
    assert!(message.contains("not empty"), "{message}");
}

#[test]
fn a_postgres_deployment_is_not_backed_up_by_this_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_forumdex"))
        .arg("--data")
        .arg(dir.path().join("data"))
        .args(["backup", "--out"])
        .arg(dir.path().join("backup"))
        .env("FORUMDEX_STORAGE", "postgres")
        .env(
            "FORUMDEX_DATABASE_URL",
            "postgres://forumdex@127.0.0.1:1/none",
        )
        .env("FORUMDEX_RATE_LIMITER", "local")
        .output()
        .expect("run forumdex");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pg_dump"), "{stderr}");
    assert!(!dir.path().join("backup").exists(), "nothing written");
}
