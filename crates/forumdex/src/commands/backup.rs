//! `forumdex backup --out DIR`: an online, consistent copy of the embedded data folder (its
//! databases, the cursor secret and the image objects) that `forumdex --data DIR` opens, taken
//! while `serve`, `import` and `crawl` run.

use std::path::PathBuf;

use clap::Args;
use forumdex_crawl::state::CrawlState;
use serde_json::json;

use crate::commands::storage;
use crate::global::GlobalArgs;
use crate::output::print_json;

/// Arguments of `forumdex backup`.
#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The backup's folder: new, or empty. It becomes a data folder of its own.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Leave the image objects out (they are content-addressed and never change, so an
    /// earlier copy of the `images` folder stays valid).
    #[arg(long)]
    pub no_images: bool,
}

/// Runs `forumdex backup`.
pub fn run(global: &GlobalArgs, args: BackupArgs) -> anyhow::Result<()> {
    let storage = storage(global)?;
    let report =
        storage.backup_embedded(&args.out, &[CrawlState::RELATIVE_PATH], !args.no_images)?;
    if global.json {
        print_json(&json!({
            "out": args.out,
            "databases": report.databases,
            "cursor_secret": report.cursor_secret,
            "image_objects": report.image_objects,
            "bytes": report.bytes,
        }))
    } else {
        println!(
            "backed up {} ({}{} image objects, {} bytes) into {}; the search indexes are rebuilt \
             from it when a node serves it (or copied with `reindex --from`)",
            report.databases.join(", "),
            if report.cursor_secret {
                "the cursor secret, "
            } else {
                ""
            },
            report.image_objects,
            report.bytes,
            args.out.display()
        );
        Ok(())
    }
}
