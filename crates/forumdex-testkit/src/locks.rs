//! Another connection holding the accounts' write lock, as an operator's long transaction
//! would, on whichever backend the test app runs: reads go on, writes (a debit) wait until
//! it is released. For the tests of what a request does when its debit cannot commit.

use forumdex_settings::StorageSetting;

use crate::app::{TestApp, off_runtime};

/// The held lock; released by [`AccountsWriteLock::release`] or when dropped.
pub enum AccountsWriteLock {
    /// `BEGIN IMMEDIATE` on `accounts.sqlite` (WAL readers go on).
    Sqlite(rusqlite::Connection),
    /// `LOCK TABLE accounts IN EXCLUSIVE MODE` in an open transaction (plain reads go on).
    Postgres(Option<::postgres::Client>),
}

impl TestApp {
    /// Takes the accounts' write lock from another connection.
    pub fn lock_accounts_for_writing(&self) -> AccountsWriteLock {
        let storage = &self.app.settings.storage;
        match (storage.kind, &storage.database_url) {
            (StorageSetting::Postgres, Some(url)) => {
                let url = url.expose().to_owned();
                off_runtime(move || {
                    let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls)
                        .expect("connect to the test database");
                    client
                        .batch_execute("BEGIN; LOCK TABLE accounts IN EXCLUSIVE MODE")
                        .expect("take the accounts write lock");
                    AccountsWriteLock::Postgres(Some(client))
                })
            }
            _ => {
                let conn = rusqlite::Connection::open(self.dir.path().join("accounts.sqlite"))
                    .expect("open the accounts database");
                conn.execute_batch("BEGIN IMMEDIATE")
                    .expect("take the accounts write lock");
                AccountsWriteLock::Sqlite(conn)
            }
        }
    }
}

impl AccountsWriteLock {
    /// Ends the transaction that holds it (a second call does nothing).
    pub fn release(&mut self) {
        match self {
            Self::Sqlite(conn) => {
                if !conn.is_autocommit() {
                    conn.execute_batch("ROLLBACK").expect("release the lock");
                }
            }
            Self::Postgres(client) => {
                if let Some(client) = client.take() {
                    // The blocking client may neither run nor close inside a runtime.
                    off_runtime(move || {
                        let mut client = client;
                        client.batch_execute("ROLLBACK").expect("release the lock");
                    });
                }
            }
        }
    }
}

impl Drop for AccountsWriteLock {
    fn drop(&mut self) {
        self.release();
    }
}
