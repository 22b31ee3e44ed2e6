//! Image records: `file` is resolved against the corpus file's folder, and the image stage
//! turns the files into AVIF objects.

use std::path::PathBuf;

use forumdex_corpus::{CorpusRead, CorpusWrite, Record};
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

/// A small PNG whose pixels depend on `seed`.
fn png(seed: u8) -> Vec<u8> {
    let pixels = image::RgbaImage::from_fn(12, 8, |x, y| {
        image::Rgba([seed.wrapping_mul(12), (x * 20) as u8, (y * 30) as u8, 255])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    pixels
        .write_to(&mut out, image::ImageFormat::Png)
        .expect("encode a PNG");
    out.into_inner()
}

fn import_with_objects(
    store: &dyn CorpusWrite,
    data: &std::path::Path,
    path: &std::path::Path,
    batch_size: usize,
) -> forumdex_ingest::ImportSummary {
    let options = forumdex_ingest::ImportOptions {
        images: Some(std::sync::Arc::new(
            forumdex_images::LocalImageObjects::open_in(data).expect("objects folder"),
        )),
        ..options(batch_size)
    };
    let sources = [forumdex_ingest::source::Source::from_arg(path)];
    forumdex_ingest::import_files(store, &sources, &options, |r| panic!("rejected {r:?}"))
        .expect("the import succeeds")
}

#[test]
fn the_image_stage_caches_every_file_and_retries_failures_next_time() {
    let (store, dir) = store();
    let corpus = dir.path().join("corpus");
    let mut lines = Vec::new();
    for i in 0..40u8 {
        write(&corpus.join("img"), &format!("{i}.png"), &png(i % 20));
        lines.push(image(
            &format!("https://example.org/{i}.png"),
            Some(&format!("img/{i}.png")),
        ));
    }
    lines.push(image("https://example.org/late.png", Some("img/late.png")));
    let path = write(&corpus, "corpus.jsonl", &jsonl(&lines));

    // Batches of 7 lines: the stage sweeps while later batches are still being written.
    let summary = import_with_objects(&store, dir.path(), &path, 7);
    assert_eq!(summary.images_cached, 40);
    assert_eq!(summary.images_failed, 1);
    assert_eq!(
        summary.image_failures[0].source_url,
        "https://example.org/late.png"
    );
    let urls: Vec<String> = (0..40)
        .map(|i| format!("https://example.org/{i}.png"))
        .collect();
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    let cached = store
        .cached_images(&refs, latest(&store))
        .expect("cached images");
    assert_eq!(cached.len(), 40);
    // Equal originals (i and i + 20) encode to one object.
    for i in 0..20 {
        assert_eq!(cached[&urls[i]].object, cached[&urls[i + 20]].object, "{i}");
    }
    let distinct: std::collections::BTreeSet<_> =
        cached.values().map(|c| c.object.sha256.clone()).collect();
    assert_eq!(distinct.len(), 20);

    // The missing file appears; a re-import of the same corpus picks it up and nothing else.
    write(&corpus.join("img"), "late.png", &png(99));
    let again = import_with_objects(&store, dir.path(), &path, 7);
    assert_eq!(again.new_observations, 0);
    assert_eq!((again.images_cached, again.images_failed), (1, 0));
    let late = store
        .cached_images(&["https://example.org/late.png"], latest(&store))
        .expect("cached images");
    assert_eq!(late.len(), 1);
    let third = import_with_objects(&store, dir.path(), &path, 7);
    assert_eq!((third.images_cached, third.images_failed), (0, 0));
}
