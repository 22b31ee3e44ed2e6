//! Image records: `file` is resolved against the corpus file's folder.

use std::path::PathBuf;

use forumdex_corpus::Record;
use serde_json::json;

use crate::support::*;

fn image(source_url: &str, file: Option<&str>) -> String {
    json!({
        "kind": "image", "source_url": source_url, "file": file, "observed_at": OBSERVED_AT,
    })
    .to_string()
}

/// The `file` of every image the importer handed to the store, by source URL.
fn image_files(store: &RecordingStore) -> Vec<(String, Option<PathBuf>)> {
    store
        .batches()
        .into_iter()
        .flatten()
        .filter_map(|observation| match observation.record {
            Record::Image(image) => Some((image.source_url, image.file.map(PathBuf::from))),
            _ => None,
        })
        .collect()
}

#[test]
fn image_files_resolve_against_the_corpus_files_folder() {
    let (sqlite, dir) = store();
    let store = RecordingStore::new(sqlite, None);
    let nested = dir.path().join("crawl").join("2024");
    let lines = [
        image("https://example.org/logo.png", Some("images/logo.png")),
        image("https://example.org/a.gif", Some("./a.gif")),
        image("https://example.org/gone.png", None),
    ];
    let plain = write(&nested, "corpus.jsonl", &jsonl(&lines));
    let other = write(
        dir.path(),
        "top.jsonl.gz",
        &gzip(&jsonl(&[image(
            "https://example.org/top.webp",
            Some("img/top.webp"),
        )])),
    );

    let (summary, seen) = import(&store, &[&plain, &other], 10);
    assert!(seen.is_empty(), "{seen:?}");
    assert_eq!(summary.images, 4);
    assert_eq!(counts(store.inner()).images, 4);

    let files = image_files(&store);
    let expect = |url: &str, path: Option<PathBuf>| (url.to_owned(), path);
    assert_eq!(
        files,
        [
            expect(
                "https://example.org/logo.png",
                Some(nested.join("images/logo.png"))
            ),
            expect("https://example.org/a.gif", Some(nested.join("a.gif"))),
            expect("https://example.org/gone.png", None),
            expect(
                "https://example.org/top.webp",
                Some(dir.path().join("img/top.webp"))
            ),
        ]
    );
    for path in files.into_iter().filter_map(|(_, path)| path) {
        assert!(path.is_absolute(), "{}", path.display());
    }
}

#[test]
fn image_files_outside_the_corpus_folder_are_rejected() {
    let (store, dir) = store();
    let lines = [
        image("https://example.org/a.png", Some("../secret.png")),
        image("https://example.org/b.png", Some("/etc/passwd")),
        image("https://example.org/c.png", Some("images/../../c.png")),
    ];
    let path = write(dir.path(), "corpus.jsonl", &jsonl(&lines));
    let (summary, seen) = import(&store, &[&path], 10);
    assert_eq!(summary.rejected, 3);
    assert!(seen.iter().all(|r| r.reason.contains("`file`")), "{seen:?}");
}
