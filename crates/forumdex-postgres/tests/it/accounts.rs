//! The accounts on PostgreSQL: the conformance suites, then two stores on one database
//! standing for two nodes, and a server that goes away and comes back.

use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use forumdex_accounts::{AccountError, AccountStore, AuthError, Email, NewKey};
use forumdex_postgres::{PgAccountStore, PgPool, schema};
use forumdex_testkit::postgres::{PrivatePostgres, fresh_schema_url};

/// An empty, migrated store on a schema of its own.
fn fresh_store() -> PgAccountStore {
    store_at(&migrated(&fresh_schema_url()))
}

/// Migrates the database at `url`; returns the URL.
fn migrated(url: &str) -> String {
    let pool = PgPool::connect(url).expect("connect");
    schema::migrate(&pool).expect("migrate");
    url.to_owned()
}

fn store_at(url: &str) -> PgAccountStore {
    PgAccountStore::open(url).expect("open the accounts")
}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()
}

forumdex_testkit::account_store_conformance!(|_dir| fresh_store());

forumdex_testkit::developer_store_conformance!(|_dir| fresh_store());

/// Two nodes debit one account holding 15 credits with 40 requests at once: exactly 15
/// are charged, each once, and the ledger holds 15 debits.
#[test]
fn two_nodes_never_overdraw_one_account() {
    let url = migrated(&fresh_schema_url());
    let nodes = [Arc::new(store_at(&url)), Arc::new(store_at(&url))];
    let email = Email::parse("two@nodes.example").unwrap();
    let account = nodes[0].create_account(&email, 15, t0()).unwrap();
    let key = nodes[0]
        .create_key(account, &NewKey::default(), t0())
        .unwrap();
    let outcomes: Vec<Option<u64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..40)
            .map(|i| {
                let node = Arc::clone(&nodes[i % 2]);
                let key_id = key.info.key_id.clone();
                scope.spawn(move || {
                    node.charge(account, &key_id, &format!("req-{i}"), "post", t0())
                        .expect("charge completes")
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut remaining: Vec<u64> = outcomes.iter().flatten().copied().collect();
    remaining.sort_unstable();
    assert_eq!(remaining, (0..15).collect::<Vec<u64>>());
    assert_eq!(nodes[1].balance(account).unwrap(), 0);
    let debits = nodes[1].ledger(account).unwrap();
    assert_eq!(debits.iter().filter(|row| row.amount == -1).count(), 15);
}

/// One request id charged through both nodes at once (a retried request landing on the
/// other node) is charged once: both see the same balance after.
#[test]
fn one_request_charged_on_two_nodes_at_once_is_charged_once() {
    let url = migrated(&fresh_schema_url());
    let nodes = [Arc::new(store_at(&url)), Arc::new(store_at(&url))];
    let email = Email::parse("once@nodes.example").unwrap();
    let account = nodes[0].create_account(&email, 100, t0()).unwrap();
    let key = nodes[0]
        .create_key(account, &NewKey::default(), t0())
        .unwrap();
    for round in 0..20 {
        let request_id = format!("same-{round}");
        let balances: Vec<Option<u64>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..6)
                .map(|i| {
                    let node = Arc::clone(&nodes[i % 2]);
                    let (key_id, request_id) = (key.info.key_id.clone(), request_id.clone());
                    scope.spawn(move || {
                        node.charge(account, &key_id, &request_id, "post", t0())
                            .expect("charge completes")
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let expected = Some(99 - round);
        assert!(balances.iter().all(|b| *b == expected), "{balances:?}");
    }
    assert_eq!(nodes[0].balance(account).unwrap(), 80);
}

/// A key revoked through one node is refused by the other at its next request: nothing
/// is cached.
#[test]
fn a_key_revoked_on_one_node_is_refused_by_the_other() {
    let url = migrated(&fresh_schema_url());
    let (a, b) = (store_at(&url), store_at(&url));
    let email = Email::parse("revoke@nodes.example").unwrap();
    let account = a.create_account(&email, 5, t0()).unwrap();
    let key = a.create_key(account, &NewKey::default(), t0()).unwrap();
    assert!(b.authenticate(key.secret.expose_secret(), t0()).is_ok());
    a.revoke_key(&key.info.key_id, t0()).unwrap();
    assert!(matches!(
        b.authenticate(key.secret.expose_secret(), t0()),
        Err(AuthError::Revoked(_))
    ));
}

/// The server stops under a live store: every call fails with a storage error (the API's
/// 503) and charges nothing; once the server is back, the same store serves again without
/// being reopened.
#[test]
fn a_lost_server_is_a_storage_error_then_recovers_without_a_restart() {
    let server = PrivatePostgres::start().expect("private PostgreSQL server");
    let store = store_at(&migrated(&server.url()));
    let email = Email::parse("lost@nodes.example").unwrap();
    let account = store.create_account(&email, 3, t0()).unwrap();
    let key = store.create_key(account, &NewKey::default(), t0()).unwrap();
    let key_id = &key.info.key_id;
    assert_eq!(
        store
            .charge(account, key_id, "before", "post", t0())
            .unwrap(),
        Some(2)
    );

    server.stop().expect("stop the server");
    assert!(matches!(
        store.charge(account, key_id, "during", "post", t0()),
        Err(AccountError::Storage(_))
    ));
    assert!(matches!(
        store.authenticate(key.secret.expose_secret(), t0()),
        Err(AuthError::Storage(_))
    ));
    assert!(store.ping().is_err());

    server.start_again().expect("start the server again");
    assert!(store.ping().is_ok() || store.ping().is_ok(), "serves again");
    assert!(store.authenticate(key.secret.expose_secret(), t0()).is_ok());
    assert_eq!(
        store
            .charge(account, key_id, "after", "post", t0())
            .unwrap(),
        Some(1)
    );
    let debits: Vec<_> = store
        .ledger(account)
        .unwrap()
        .into_iter()
        .filter_map(|row| row.request_id)
        .collect();
    assert_eq!(debits, ["before", "after"]);
}
