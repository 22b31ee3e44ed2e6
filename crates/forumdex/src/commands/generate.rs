//! `forumdex generate`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `forumdex generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Corpus files; `-` reads stdin.
    #[arg(required = true)]
    pub files: Vec<std::path::PathBuf>,
}

/// Runs `forumdex generate`.
pub fn run(_global: &GlobalArgs, _args: GenerateArgs) -> anyhow::Result<()> {
    anyhow::bail!("generate is not wired yet")
}
