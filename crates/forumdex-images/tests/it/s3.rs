//! `S3ImageObjects` on a real S3-compatible server (forumdex-testkit's `s3`): the conformance
//! suite, and what only a shared, remote store shows.

use forumdex_images::{ImageObjects, S3ImageObjects, sha256_hex};
use forumdex_testkit::s3::{PrivateS3, shared_store};

forumdex_testkit::image_objects_conformance!(|_dir| {
    let store = shared_store();
    S3ImageObjects::open_with(&store.fresh_location(), &store.access).expect("S3 objects")
});

#[test]
fn two_nodes_on_one_location_see_each_others_objects() {
    let store = shared_store();
    let location = store.fresh_location();
    let a = S3ImageObjects::open_with(&location, &store.access).expect("node a");
    let b = S3ImageObjects::open_with(&location, &store.access).expect("node b");
    let stored = a.put(b"written by a").expect("put on a");
    assert_eq!(
        b.get(&stored.sha256).expect("get on b").as_deref(),
        Some(&b"written by a"[..])
    );
    assert_eq!(b.put(b"written by a").expect("put again on b"), stored);
}

#[test]
fn prefixes_keep_deployments_apart() {
    let store = shared_store();
    let one = S3ImageObjects::open_with(&store.fresh_location(), &store.access).expect("one");
    let other = S3ImageObjects::open_with(&store.fresh_location(), &store.access).expect("other");
    let stored = one.put(b"only in one").expect("put");
    assert_eq!(other.get(&stored.sha256).expect("get"), None);
}

#[test]
fn a_store_that_went_away_is_an_error_and_comes_back_without_reopening() {
    let server = PrivateS3::start().expect("a private S3 server");
    let store = server.store();
    let objects = S3ImageObjects::open_with(&store.fresh_location(), &store.access).expect("open");
    let stored = objects.put(b"before the outage").expect("put");

    server.stop();
    let err = objects.get(&stored.sha256).expect_err("the store is down");
    assert!(
        err.to_string().contains(&stored.sha256),
        "names the object: {err}"
    );
    assert!(
        objects.put(b"during the outage").is_err(),
        "a put fails too"
    );

    server.start_again().expect("start again");
    assert_eq!(
        objects.get(&stored.sha256).expect("get after").as_deref(),
        Some(&b"before the outage"[..])
    );
    let after = objects.put(b"after the outage").expect("put after");
    assert_eq!(after.sha256, sha256_hex(b"after the outage"));
}
