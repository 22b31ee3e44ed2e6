//! `fdx-queries`: known-item queries generated from a corpus file, for
//! `forumdex relevance --queries` (how they are made: `forumdex_bench::known_items`).
//!
//! ```text
//! fdx-queries CORPUS.jsonl[.gz|.zst] --out queries.tsv [--per-kind 300] [--seed 7]
//! ```
//!
//! The corpus is streamed twice and never imported; the same file, `--per-kind` and `--seed`
//! give the same file. A summary goes to stderr.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use forumdex_bench::known_items::{Kind, Options, generate};
use forumdex_ingest::source::Source;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str =
    "usage: fdx-queries CORPUS.jsonl[.gz|.zst] --out FILE [--per-kind N] [--seed S]";

fn main() -> anyhow::Result<()> {
    let mut corpus: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let mut options = Options {
        per_kind: 300,
        seed: 7,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--per-kind" => {
                options.per_kind = value("--per-kind")?.parse().context("--per-kind")?
            }
            "--seed" => options.seed = value("--seed")?.parse().context("--seed")?,
            _ if arg.starts_with("--") || corpus.is_some() => anyhow::bail!("{USAGE}"),
            _ => corpus = Some(PathBuf::from(arg)),
        }
    }
    let (Some(corpus), Some(out)) = (corpus, out) else {
        anyhow::bail!("{USAGE}");
    };
    anyhow::ensure!(
        corpus.as_os_str() != "-",
        "the corpus is read twice: stdin will not do"
    );
    let started = Instant::now();
    let set = generate(&Source::File(corpus.clone()), options)?;
    let name = corpus.file_name().map_or_else(
        || corpus.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    std::fs::write(&out, set.to_tsv(&name))
        .with_context(|| format!("cannot write {}", out.display()))?;
    let counts: Vec<String> = Kind::ALL
        .iter()
        .map(|&kind| format!("{} {}", kind.as_str(), set.count(kind)))
        .collect();
    eprintln!(
        "{} posts ({} quoted by others), distinctive words in 2..={} posts; wrote {} queries to {} in {:.1} s: {}",
        set.posts,
        set.quoted_posts,
        set.max_df,
        set.items.len(),
        out.display(),
        started.elapsed().as_secs_f64(),
        counts.join(", ")
    );
    Ok(())
}
