//! `forumdex generate`.

use std::path::PathBuf;

use clap::Args;
use forumdex_generate::{GenerateConfig, generate};

use crate::global::GlobalArgs;
use crate::output::print_json;

/// Arguments of `forumdex generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Number of distinct posts to write (edits add extra observations of some of them).
    #[arg(long)]
    pub posts: u64,
    /// Seed of the generator: the same posts and seed always give the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Corpus file to write (`.jsonl`, or `.jsonl.gz` for gzip); images go to
    /// `<stem>-images/` beside it.
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `forumdex generate`.
pub fn run(global: &GlobalArgs, args: GenerateArgs) -> anyhow::Result<()> {
    let config = GenerateConfig {
        posts: args.posts,
        seed: args.seed,
    };
    let summary = generate(&config, &args.out)?;
    if global.json {
        print_json(&summary)?;
    } else {
        println!(
            "wrote {} ({} lines: {} posts in {} post records, {} topics, {} profiles, {} boards, {} images in {})",
            summary.out.display(),
            summary.records,
            summary.posts,
            summary.post_records,
            summary.topics,
            summary.profiles,
            summary.boards,
            summary.images,
            summary.images_dir.display(),
        );
    }
    Ok(())
}
