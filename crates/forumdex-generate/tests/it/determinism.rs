//! The same posts and seed give the same bytes; another seed gives others.

use std::io::Read;

use forumdex_generate::{GenerateConfig, generate};

fn files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path
                    .strip_prefix(dir)
                    .expect("inside")
                    .display()
                    .to_string();
                out.push((name, std::fs::read(&path).expect("read")));
            }
        }
    }
    out.sort();
    out
}

fn run(posts: u64, seed: u64, name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    generate(&GenerateConfig { posts, seed }, &path).expect("generate");
    (dir, path)
}

#[test]
fn same_seed_gives_same_bytes() {
    let (a, _) = run(3_000, 7, "c.jsonl");
    let (b, _) = run(3_000, 7, "c.jsonl");
    let (files_a, files_b) = (files(a.path()), files(b.path()));
    assert_eq!(files_a.len(), 1 + 36);
    assert!(files_a == files_b, "two runs differ");
}

#[test]
fn another_seed_gives_other_bytes() {
    let (_a, path_a) = run(2_000, 1, "c.jsonl");
    let (_b, path_b) = run(2_000, 2, "c.jsonl");
    let text_a = std::fs::read(&path_a).expect("read");
    let text_b = std::fs::read(&path_b).expect("read");
    assert_ne!(text_a, text_b);
}

#[test]
fn gzip_output_holds_the_same_lines() {
    let (_a, plain) = run(1_500, 3, "c.jsonl");
    let (_b, gz) = run(1_500, 3, "c.jsonl.gz");
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&gz).expect("open"))
        .read_to_end(&mut unzipped)
        .expect("gunzip");
    assert_eq!(unzipped, std::fs::read(&plain).expect("read"));
}
