//! Shared fixtures: fixed instants and SQLite stores in temporary folders.

use chrono::{DateTime, TimeZone, Utc};
use forumdex_accounts::{AccountId, AccountStore, Email, KeyInfo, NewKey};
use forumdex_sqlite::SqliteAccountStore;

/// A fixed "now" for tests: 2026-01-01T00:00:00Z.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .expect("valid date")
}

/// A SQLite store in a fresh temporary folder (kept alive by the returned guard).
pub fn sqlite_store() -> (SqliteAccountStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store =
        SqliteAccountStore::open(dir.path().join("accounts.sqlite")).expect("open accounts db");
    (store, dir)
}

/// Creates an account with `credits`.
pub fn account(store: &dyn AccountStore, credits: u64) -> AccountId {
    let email = Email::parse("dev@example.com").expect("valid email");
    store
        .create_account(&email, credits, t0())
        .expect("create account")
}

/// Creates a key with the given settings at `t0`; returns it and its secret.
pub fn key(store: &dyn AccountStore, account: AccountId, new: &NewKey) -> (KeyInfo, String) {
    let created = store.create_key(account, new, t0()).expect("create key");
    let secret = created.secret.expose_secret().to_owned();
    (created.info, secret)
}
