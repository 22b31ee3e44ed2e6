//! Deterministic synthetic corpus generator: writes a corpus file (corpus-format.md,
//! version 1) that looks like a Bitcointalk crawl, plus the small image files its posts
//! embed, for demos, tests and benchmarks.
//!
//! The corpus has the forum's board tree (with local-language boards under "Local"),
//! topics whose sizes follow a long Pareto tail plus one megathread holding 10% of the
//! posts, posts in seven languages (en, ru, de, es, id, zh, pl) built from phrase banks,
//! SMF quotes, links, images, guests, merit, edits (re-observations) and low-quality
//! replies. See [`generate`].

pub mod boards;
mod engine;
pub mod images;
pub mod records;
pub mod rng;
mod text;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::Serialize;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerateConfig {
    /// Number of distinct posts (distinct `post_id`s). Default 10,000.
    pub posts: u64,
    /// Seed of every random choice; the same `posts` and `seed` give the same bytes. Default 1.
    pub seed: u64,
}

impl Default for GenerateConfig {
    fn default() -> Self {
        Self {
            posts: 10_000,
            seed: 1,
        }
    }
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GenerateSummary {
    /// The corpus file.
    pub out: PathBuf,
    /// The folder holding the image files.
    pub images_dir: PathBuf,
    /// Distinct posts (distinct `post_id`s), as configured.
    pub posts: u64,
    /// `post` lines: `posts` plus the re-observations of edited posts.
    pub post_records: u64,
    /// All lines of the corpus file.
    pub records: u64,
    /// Distinct topics named by posts.
    pub topics: u64,
    /// `topic` lines (some topics have none).
    pub topic_records: u64,
    /// Posts in the largest topic (about 10% of `posts`).
    pub largest_topic_posts: u64,
    /// `profile` lines (a few authors have none).
    pub profiles: u64,
    /// `board` lines.
    pub boards: u64,
    /// `image` lines, one per image file.
    pub images: u64,
}

/// Folder for the image files of corpus file `out`: `<stem>-images` beside it, where the
/// stem drops `.gz`, `.zst`, `.jsonl` and `.json` endings (`demo.jsonl.gz` -> `demo-images`).
pub fn images_dir_for(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut stem = name.as_str();
    for ending in [".gz", ".zst", ".jsonl", ".json"] {
        stem = stem.strip_suffix(ending).unwrap_or(stem);
    }
    let stem = if stem.is_empty() { "corpus" } else { stem };
    out.with_file_name(format!("{stem}-images"))
}

/// Writes a synthetic corpus of `config.posts` distinct posts to `out` (gzip-compressed
/// when the name ends in `.gz`), and its image files to [`images_dir_for`]`(out)`.
///
/// `posts` counts distinct posts: about 3% of them are also observed a second time later
/// (an edit: changed `content_html` and/or merit, later `observed_at`), so the file holds
/// more `post` lines than `posts`. Besides posts the file holds every `board` record, one
/// `image` record per image file (`file` relative to `out`'s folder), `profile` records for
/// about 95% of the profiles and `topic` records for about 92% of the topics.
///
/// Output depends only on `config`: no clock, no hash-map order, a ChaCha8 stream (see
/// [`rng`]). Memory stays flat: lines stream through a buffer; only per-topic counters
/// are kept. Existing files are overwritten.
pub fn generate(config: &GenerateConfig, out: &Path) -> anyhow::Result<GenerateSummary> {
    anyhow::ensure!(config.posts >= 1, "posts must be at least 1");
    anyhow::ensure!(
        config.posts <= 1_000_000_000_000,
        "posts must be at most 10^12"
    );
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create folder {}", parent.display()))?;
    }
    let images_dir = images_dir_for(out);
    let pool = images::write_pool(config.seed, &images_dir)?;
    let folder = images_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();

    let file = File::create(out).with_context(|| format!("cannot create {}", out.display()))?;
    let buffered = BufWriter::with_capacity(1 << 20, file);
    let gzip = out.extension().is_some_and(|e| e == "gz");
    let counts = if gzip {
        let mut encoder = flate2::write::GzEncoder::new(buffered, flate2::Compression::fast());
        let counts = engine::run(config.posts, config.seed, &pool, &folder, &mut encoder)?;
        encoder
            .finish()
            .and_then(|mut inner| inner.flush())
            .with_context(|| format!("cannot write {}", out.display()))?;
        counts
    } else {
        let mut writer = buffered;
        let counts = engine::run(config.posts, config.seed, &pool, &folder, &mut writer)?;
        writer
            .flush()
            .with_context(|| format!("cannot write {}", out.display()))?;
        counts
    };
    Ok(GenerateSummary {
        out: out.to_path_buf(),
        images_dir,
        posts: config.posts,
        post_records: counts.post_records,
        records: counts.records,
        topics: counts.topics,
        topic_records: counts.topic_records,
        largest_topic_posts: counts.largest_topic_posts,
        profiles: counts.profiles,
        boards: counts.boards,
        images: counts.images,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_dir_drops_corpus_endings() {
        assert_eq!(
            images_dir_for(Path::new("/d/demo.jsonl.gz")),
            PathBuf::from("/d/demo-images")
        );
        assert_eq!(
            images_dir_for(Path::new("c.jsonl")),
            PathBuf::from("c-images")
        );
    }
}
