//! The post vectors (`VectorStore`): the same rules on both backends, the statements being
//! written once (`forumdex_sql::post_vectors`).

use forumdex_corpus::{VectorKey, VectorStore};
use forumdex_postgres::{PgPool, PgVectorStore, schema};
use forumdex_sqlite::SqliteVectorStore;
use forumdex_testkit::postgres::fresh_schema_url;

fn key(post_id: i64, version: u8) -> VectorKey {
    VectorKey {
        post_id,
        text_digest: [version; 16],
    }
}

/// A vector whose bytes say which post and version it was made for.
fn vector(post_id: i64, version: u8) -> Vec<u8> {
    let mut bytes = post_id.to_le_bytes().to_vec();
    bytes.push(version);
    bytes
}

/// What every vector store does: a vector is found by its model, post and text digest
/// only; a second write of a key keeps the first vector; batches larger than one statement
/// are written and read whole.
fn follows_the_rules(store: &dyn VectorStore) {
    assert!(store.vectors("m1", &[key(1, 1)]).unwrap().is_empty());
    let first: Vec<_> = (1..=1_200).map(|id| (key(id, 1), vector(id, 1))).collect();
    assert_eq!(store.put_vectors("m1", &first).unwrap(), 1_200);

    let wanted: Vec<VectorKey> = (1..=1_300).map(|id| key(id, 1)).collect();
    let found = store.vectors("m1", &wanted).unwrap();
    assert_eq!(found.len(), 1_200, "the unknown posts are left out");
    assert_eq!(found[&key(777, 1)], vector(777, 1));

    // Another version of a post, or another model, is another vector.
    assert!(store.vectors("m1", &[key(5, 2)]).unwrap().is_empty());
    assert!(store.vectors("m2", &[key(5, 1)]).unwrap().is_empty());
    assert_eq!(
        store
            .put_vectors("m1", &[(key(5, 2), vector(5, 2))])
            .unwrap(),
        1
    );
    let both = store.vectors("m1", &[key(5, 1), key(5, 2)]).unwrap();
    assert_eq!(both.len(), 2);
    assert_eq!(both[&key(5, 2)], vector(5, 2));

    // Written again (another node made the same), a key keeps what it has.
    let again = vec![
        (key(9, 1), b"another".to_vec()),
        (key(1_201, 1), vector(1_201, 1)),
    ];
    assert_eq!(
        store.put_vectors("m1", &again).unwrap(),
        1,
        "only one is new"
    );
    let kept = store.vectors("m1", &[key(9, 1), key(1_201, 1)]).unwrap();
    assert_eq!(kept[&key(9, 1)], vector(9, 1));
    assert_eq!(kept[&key(1_201, 1)], vector(1_201, 1));
    assert_eq!(store.put_vectors("m1", &[]).unwrap(), 0);

    // A retired model's vectors go; those of the models kept stay.
    let other: Vec<_> = (1..=3).map(|id| (key(id, 1), vector(id, 9))).collect();
    assert_eq!(store.put_vectors("m2", &other).unwrap(), 3);
    assert_eq!(store.put_vectors("m3", &other[..1]).unwrap(), 1);
    assert_eq!(store.prune_vectors(&["m1", "m3"]).unwrap(), 3);
    assert!(store.vectors("m2", &[key(1, 1)]).unwrap().is_empty());
    assert_eq!(store.vectors("m3", &[key(1, 1)]).unwrap().len(), 1);
    assert_eq!(store.vectors("m1", &wanted).unwrap().len(), 1_201);
    assert_eq!(store.prune_vectors(&["m1"]).unwrap(), 1);
    assert_eq!(store.prune_vectors(&["m1"]).unwrap(), 0);
}

#[test]
fn the_embedded_vector_store_follows_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteVectorStore::open_in(dir.path()).unwrap();
    follows_the_rules(&store);
    // Opened again, it holds what it held.
    let reopened = SqliteVectorStore::open_in(dir.path()).unwrap();
    assert_eq!(reopened.vectors("m1", &[key(3, 1)]).unwrap().len(), 1);
}

#[test]
fn the_postgres_vector_store_follows_the_rules() {
    let url = fresh_schema_url();
    schema::migrate(&PgPool::connect(&url).unwrap()).unwrap();
    let store = PgVectorStore::open(&url).unwrap();
    follows_the_rules(&store);
    // Another node's store over the same database reads what this one wrote.
    let other = PgVectorStore::open(&url).unwrap();
    assert_eq!(other.vectors("m1", &[key(3, 1)]).unwrap().len(), 1);
}

#[test]
fn the_postgres_vector_store_refuses_an_unmigrated_database() {
    let err = PgVectorStore::open(&fresh_schema_url()).expect_err("no schema yet");
    assert!(err.to_string().contains("forumdex db migrate"), "{err}");
}
