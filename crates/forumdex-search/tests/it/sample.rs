//! Known-item search on the real sample (`../shared/data/bitcointalk-sample.jsonl.gz` from the
//! workspace root); skipped when the file is absent. Only its first 20,000 lines are used,
//! to keep the test short.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;

use forumdex_ingest::source::Source;
use forumdex_ingest::{ImportOptions, import_files};
use forumdex_search::SearchRequest;

use crate::helpers::World;
use crate::known_items::{all_posts, known_item_rate};

const LINES: usize = 20_000;

fn sample() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/bitcointalk-sample.jsonl.gz");
    path.is_file().then_some(path)
}

#[test]
fn real_sample_known_items() {
    let Some(path) = sample() else {
        eprintln!("skipped: the real sample is absent");
        return;
    };
    let world = World::new();
    let reader = BufReader::new(flate2::read::GzDecoder::new(
        std::fs::File::open(&path).unwrap(),
    ));
    let subset = world.dir.path().join("sample.jsonl");
    let mut file = std::fs::File::create(&subset).unwrap();
    for line in reader.lines().take(LINES) {
        writeln!(file, "{}", line.unwrap()).unwrap();
    }
    drop(file);
    let options = ImportOptions {
        batch_size: 5_000,
        progress: false,
        ..ImportOptions::default()
    };
    import_files(&world.store, &[Source::from_arg(&subset)], &options, |_| {}).unwrap();
    world.sync();
    let posts = all_posts(&world.store);
    let rate = known_item_rate(&world, &posts, 60);
    assert!(rate >= 0.8, "known-item rate {rate}");
    // Opening posts are found by the words of their title.
    let (mut tried, mut found) = (0, 0);
    for op in posts.iter().filter(|p| p.is_op).take(30) {
        let words: Vec<&str> = op
            .title
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3 && !["ANN", "ICO", "PRE"].contains(w))
            .take(5)
            .collect();
        if words.len() < 2 {
            continue;
        }
        tried += 1;
        let results = world.run(SearchRequest::new(words.join(" ")));
        if results
            .hits
            .iter()
            .take(10)
            .any(|h| h.post_id == op.post_id)
        {
            found += 1;
        } else {
            eprintln!("missed opening post {}: {words:?}", op.post_id);
        }
    }
    assert!(tried >= 5, "too few opening posts: {tried}");
    assert!(
        found * 10 >= tried * 8,
        "{found} of {tried} opening posts found"
    );
}
