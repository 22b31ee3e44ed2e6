//! Storage faults under a running server: SQLite locked by another process and a data
//! folder that became read-only. A request that cannot complete gets the contract's JSON
//! 503, never a 500 or a panic, and nothing is charged; once the fault is gone the server
//! answers 200 again.
//!
//! In WAL mode (both databases) every open connection keeps a shared lock on the database
//! file, so no other connection can lock readers out (`locking_mode = EXCLUSIVE` fails with
//! "database is locked" while the server has the file open): a lock held by another
//! process only ever blocks writers. The server's only write on a request is the debit.

use forumdex_testkit::faults::Immutable;

use forumdex_sqlite::SqliteCorpusStore;
use reqwest::StatusCode;
use rusqlite::Connection;

use crate::checks::{assert_not_charged, expect_error};
use crate::harness::{POST, PROFILE, TOPIC, TestApp};

/// The operations that read the corpus.
const CORPUS_READS: &[&str] = &[POST, TOPIC, PROFILE, "/api/v1/topics/5/posts"];

async fn all_503_and_free(server: &TestApp, secret: &str, paths: &[&str]) {
    let responses =
        futures_util::future::join_all(paths.iter().map(|path| server.get(path, Some(secret))))
            .await;
    for (path, response) in paths.iter().zip(responses) {
        let (headers, body) = expect_error(response, StatusCode::SERVICE_UNAVAILABLE).await;
        assert!(!headers.contains_key("x-credits-remaining"), "{path}");
        assert!(body.get("topupUrl").is_none(), "{path}: {body}");
    }
}

async fn all_200(server: &TestApp, secret: &str, paths: &[&str]) {
    for path in paths {
        let response = server.get(path, Some(secret)).await;
        assert_eq!(response.status(), StatusCode::OK, "{path} after the fault");
    }
}

/// Another process holds the corpus write lock (as an import does while it commits a
/// batch): in WAL mode readers go on, so the API answers and charges as usual.
#[tokio::test(flavor = "multi_thread")]
async fn a_corpus_locked_for_writing_by_another_process_still_serves() {
    if !crate::harness::embedded_only("a_corpus_locked_for_writing_by_another_process_still_serves")
    {
        return;
    }
    let server = TestApp::start().await;
    let (account, _, secret) = server.funded(20);
    let lock = Connection::open(server.dir.path().join(SqliteCorpusStore::FILE_NAME))
        .expect("open corpus");
    lock.execute_batch("BEGIN EXCLUSIVE").expect("write lock");
    all_200(&server, &secret, CORPUS_READS).await;
    let ready = server.get("/readyz", None).await;
    assert_eq!(ready.status(), StatusCode::OK);
    lock.execute_batch("ROLLBACK").expect("release");
    assert_eq!(server.money(account).0, 20 - CORPUS_READS.len() as u64);
}

/// The operator holds the accounts write lock past the busy timeout (ten seconds): the
/// key is authenticated and the operation done (WAL readers), but the debit cannot commit,
/// so the computed 200s are dropped and the clients get 503, uncharged. Then it recovers.
#[tokio::test(flavor = "multi_thread")]
async fn a_debit_blocked_by_a_locked_accounts_database_is_503_and_free() {
    let server = TestApp::start().await;
    let (account, _, secret) = server.funded(20);
    let before = server.money(account);
    let mut lock = server.lock_accounts_for_writing();
    all_503_and_free(&server, &secret, CORPUS_READS).await;
    lock.release();
    assert_not_charged(&server, account, &before);
    all_200(&server, &secret, &[POST]).await;
    assert_eq!(server.money(account).0, before.0 - 1);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs chattr +i (root with CAP_LINUX_IMMUTABLE, on a file system with the immutable attribute); scripts/test.sh runs it where that works"]
async fn a_read_only_data_folder_is_503_and_free_never_500() {
    if !crate::harness::embedded_only("a_read_only_data_folder_is_503_and_free_never_500") {
        return;
    }
    let server = TestApp::start().await;
    let (account, _, secret) = server.funded(20);
    // Warm up: the pooled connections exist and hold their files open.
    all_200(&server, &secret, &[POST]).await;
    let before = server.money(account);
    let read_only = Immutable::set(server.dir.path());
    // Reads may still work; the debit cannot be written.
    all_503_and_free(&server, &secret, CORPUS_READS).await;
    drop(read_only);
    assert_not_charged(&server, account, &before);
    all_200(&server, &secret, &[POST]).await;
}
