//! The conformance suite of [`ImageObjects`]: content-addressed, immutable objects.
//! [`image_objects_conformance!`](crate::image_objects_conformance) runs every case.

use forumdex_images::{ImageObjects, sha256_hex};

use crate::Fresh;

/// Runs every case of [`images`](crate::images) as a `#[test]` in a module
/// `image_objects_conformance`, on object stores made by `$make` (`|dir: &Path| -> impl
/// ImageObjects`, an empty store; `dir` is a temporary folder it may use).
#[macro_export]
macro_rules! image_objects_conformance {
    ($make:expr) => {
        $crate::__conformance_tests!(image_objects_conformance, [$crate::images], $make;
            stores_by_content_and_reads_back,
            putting_the_same_bytes_again_changes_nothing,
            different_bytes_have_different_addresses,
            unknown_and_malformed_names_are_absent,
            concurrent_puts_of_the_same_bytes_agree,
        );
    };
}

/// `put` answers the SHA-256 of the bytes and their size; `get` of that address reads them.
pub fn stores_by_content_and_reads_back<O: ImageObjects>(fresh: &Fresh<'_, O>) {
    let objects = fresh.backend();
    let stored = objects.put(b"avif bytes").expect("put");
    assert_eq!(stored.sha256, sha256_hex(b"avif bytes"));
    assert_eq!(stored.bytes, 10);
    assert_eq!(
        objects.get(&stored.sha256).expect("get").as_deref(),
        Some(&b"avif bytes"[..])
    );
}

/// A second `put` of the same bytes answers the same object and leaves it readable.
pub fn putting_the_same_bytes_again_changes_nothing<O: ImageObjects>(fresh: &Fresh<'_, O>) {
    let objects = fresh.backend();
    let stored = objects.put(b"avif bytes").expect("put");
    assert_eq!(objects.put(b"avif bytes").expect("put again"), stored);
    assert_eq!(
        objects.get(&stored.sha256).expect("get").as_deref(),
        Some(&b"avif bytes"[..])
    );
}

/// Two contents are two objects, each read back as written.
pub fn different_bytes_have_different_addresses<O: ImageObjects>(fresh: &Fresh<'_, O>) {
    let objects = fresh.backend();
    let one = objects.put(b"first object").expect("put");
    let two = objects.put(b"second, longer object").expect("put");
    assert_ne!(one.sha256, two.sha256);
    assert_eq!(two.bytes, 21);
    assert_eq!(
        objects.get(&one.sha256).expect("get").as_deref(),
        Some(&b"first object"[..])
    );
    assert_eq!(
        objects.get(&two.sha256).expect("get").as_deref(),
        Some(&b"second, longer object"[..])
    );
}

/// An address never put, and anything that is not 64 lowercase hex digits (paths
/// included), is no object.
pub fn unknown_and_malformed_names_are_absent<O: ImageObjects>(fresh: &Fresh<'_, O>) {
    let objects = fresh.backend();
    objects.put(b"avif bytes").expect("put");
    assert!(objects.get(&"0".repeat(64)).expect("get").is_none());
    let upper = sha256_hex(b"avif bytes").to_uppercase();
    for name in [
        "",
        "../../etc/passwd",
        &"A".repeat(64),
        &"0".repeat(63),
        &upper,
    ] {
        assert!(objects.get(name).expect("get").is_none(), "{name}");
    }
}

/// Writers of the same bytes never conflict (the importer encodes on one thread per core).
pub fn concurrent_puts_of_the_same_bytes_agree<O: ImageObjects>(fresh: &Fresh<'_, O>) {
    let objects = fresh.backend();
    let bytes = vec![7_u8; 64 * 1024];
    let stored: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| objects.put(&bytes).expect("put")))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    });
    assert!(stored.iter().all(|object| *object == stored[0]));
    assert_eq!(stored[0].sha256, sha256_hex(&bytes));
    assert_eq!(
        objects.get(&stored[0].sha256).expect("get").as_deref(),
        Some(bytes.as_slice())
    );
}
