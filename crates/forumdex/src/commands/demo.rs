//! `forumdex demo`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `forumdex demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Corpus files; `-` reads stdin.
    #[arg(required = true)]
    pub files: Vec<std::path::PathBuf>,
}

/// Runs `forumdex demo`.
pub fn run(_global: &GlobalArgs, _args: DemoArgs) -> anyhow::Result<()> {
    anyhow::bail!("demo is not wired yet")
}
