//! The schema's version: migrating creates it once, stores refuse any other version.

use forumdex_accounts::{AccountStore, Email};
use forumdex_clock::{Clock as _, SystemClock};
use forumdex_postgres::{PgAccountStore, PgError, PgPool, schema};
use forumdex_testkit::postgres::fresh_schema_url;

#[test]
fn a_store_refuses_an_unmigrated_database_naming_the_command() {
    let url = fresh_schema_url();
    let err = PgAccountStore::open(&url).expect_err("no schema yet");
    assert!(
        matches!(err, PgError::OutdatedSchema { found: 0, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("forumdex db migrate"), "{err}");
}

#[test]
fn migrating_is_idempotent_and_safe_from_several_nodes_at_once() {
    let url = fresh_schema_url();
    let versions: Vec<i32> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let url = &url;
                scope.spawn(move || schema::migrate(&PgPool::connect(url).unwrap()).unwrap())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(versions, [schema::SCHEMA_VERSION; 4]);
    let pool = PgPool::connect(&url).unwrap();
    assert_eq!(schema::migrate(&pool).unwrap(), schema::SCHEMA_VERSION);
    assert_eq!(schema::version(&pool).unwrap(), schema::SCHEMA_VERSION);
    let store = PgAccountStore::with_pool(pool).expect("migrated");
    let email = Email::parse("schema@example.com").unwrap();
    store.create_account(&email, 0, SystemClock.now()).unwrap();
}

#[test]
fn a_store_refuses_a_newer_schema() {
    let url = fresh_schema_url();
    let pool = PgPool::connect(&url).unwrap();
    schema::migrate(&pool).unwrap();
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .execute("UPDATE forumdex_schema SET version = version + 1", &[])
        .unwrap();
    let err = PgAccountStore::open(&url).expect_err("newer schema");
    assert!(matches!(err, PgError::NewerSchema { .. }), "{err:?}");
    assert!(matches!(
        schema::migrate(&pool),
        Err(PgError::NewerSchema { .. })
    ));
}

#[test]
fn a_bad_url_is_refused_without_repeating_it() {
    let err = PgPool::connect("postgres://user:s3cret@host:notaport/db").expect_err("bad url");
    assert!(matches!(err, PgError::InvalidUrl(_)), "{err:?}");
    assert!(!err.to_string().contains("s3cret"), "{err}");
}
