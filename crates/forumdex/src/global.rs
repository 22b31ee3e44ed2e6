//! The options every subcommand takes (`--data`, `--json`, `--config`).

use std::path::PathBuf;

use clap::Args;

/// Options shared by every subcommand.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Folder of the embedded deployment (corpus, indexes, image objects, accounts).
    #[arg(
        long,
        global = true,
        env = "FORUMDEX_DATA",
        default_value = "./forumdex-data"
    )]
    pub data: PathBuf,
    /// Print exactly one JSON object on stdout (errors go to stderr).
    #[arg(long, global = true)]
    pub json: bool,
    /// TOML settings file (operator-interface.md lists the settings; every command honours
    /// the storage settings, `serve` and `demo` all of them).
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
}
