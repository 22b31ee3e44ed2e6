//! The SQLite store: the conformance suites of forumdex-testkit, plus what only a file-backed
//! store can show.

use forumdex_accounts::{AccountStore, AuthError, NewKey};
use forumdex_sqlite::SqliteAccountStore;

use crate::helpers::{account, key, sqlite_store, t0};

forumdex_testkit::account_store_conformance!(|dir| {
    SqliteAccountStore::open_in(dir).expect("open accounts db")
});

forumdex_testkit::developer_store_conformance!(|dir| {
    SqliteAccountStore::open_in(dir).expect("open accounts db")
});

/// Reads every file of the database (main file, WAL, shared memory).
fn database_bytes(dir: &std::path::Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("dir entry").path();
        if path.is_file() {
            bytes.extend(std::fs::read(&path).expect("read file"));
        }
    }
    bytes
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn only_the_hash_of_a_secret_is_stored() {
    let (store, dir) = sqlite_store();
    let id = account(&store, 1);
    let (info, secret) = key(&store, id, &NewKey::default());
    let random_part = &secret["fdx_live_".len()..];
    drop(store);

    let bytes = database_bytes(dir.path());
    assert!(
        contains(&bytes, info.key_id.as_str().as_bytes()),
        "sanity: the key id is stored"
    );
    assert!(!contains(&bytes, secret.as_bytes()));
    assert!(!contains(&bytes, random_part.as_bytes()));
    assert!(!contains(&bytes, &random_part.as_bytes()[..16]));
}

#[test]
fn changes_are_seen_by_another_store_on_the_same_file() {
    let (server, dir) = sqlite_store();
    let cli = SqliteAccountStore::open(dir.path().join("accounts.sqlite")).expect("second open");
    let id = account(&cli, 0);
    let (info, secret) = key(&cli, id, &NewKey::default());

    let k = server
        .authenticate(&secret, t0())
        .expect("seen by the server");
    assert_eq!(
        server
            .charge(id, &k.key_id, "r1", "search", t0())
            .expect("charge"),
        None
    );
    cli.add_credits(id, 3, t0()).expect("top up");
    assert_eq!(
        server
            .charge(id, &k.key_id, "r2", "search", t0())
            .expect("charge"),
        Some(2)
    );

    cli.revoke_key(&info.key_id, t0()).expect("revoke");
    assert!(matches!(
        server.authenticate(&secret, t0()),
        Err(AuthError::Revoked(_))
    ));
}

#[test]
fn reopening_keeps_data_and_schema() {
    let (store, dir) = sqlite_store();
    let id = account(&store, 4);
    drop(store);
    let reopened = SqliteAccountStore::open(dir.path().join("accounts.sqlite")).expect("reopen");
    assert_eq!(reopened.balance(id).expect("balance"), 4);
}

#[test]
fn many_openers_at_once_migrate_safely() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("accounts.sqlite");
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                let store = SqliteAccountStore::open(&path).expect("open");
                account(&store, 1);
            });
        }
    });
    let store = SqliteAccountStore::open(&path).expect("open");
    let last = forumdex_accounts::AccountId::new(8).expect("positive");
    assert_eq!(store.balance(last).expect("eighth account"), 1);
}

#[test]
fn the_store_copies_its_journal_into_the_database_by_itself() {
    use std::time::{Duration, Instant};
    let (store, dir) = sqlite_store();
    let main = dir.path().join("accounts.sqlite");
    let size = || std::fs::metadata(&main).expect("database file").len();
    let before = size();
    let id = account(&store, 0);
    // Each a commit into the write-ahead log, which commits never copy into the database.
    for _ in 0..300 {
        store.add_credits(id, 1, t0()).expect("add credits");
    }
    // The store's checkpoint thread does, within about a second.
    let deadline = Instant::now() + Duration::from_secs(60);
    while size() <= before {
        assert!(
            Instant::now() < deadline,
            "the journal was never copied into the database"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(store.balance(id).expect("balance"), 300);
}

#[test]
fn an_address_an_older_check_accepted_stays_readable() {
    let (store, dir) = sqlite_store();
    let id = account(&store, 3);
    drop(store);
    // What sign-up took before addresses were checked with `email_address`.
    let older = "<b>dev</b>@example.test";
    let conn = rusqlite::Connection::open(dir.path().join("accounts.sqlite")).expect("open");
    conn.execute(
        "UPDATE accounts SET email = ?1 WHERE id = ?2",
        rusqlite::params![older, id.get()],
    )
    .expect("store the older address");
    drop(conn);
    let reopened = SqliteAccountStore::open(dir.path().join("accounts.sqlite")).expect("reopen");
    let read = reopened.account(id).expect("still readable");
    assert_eq!(read.email.as_str(), older);
    assert_eq!(read.credits, 3);
}
