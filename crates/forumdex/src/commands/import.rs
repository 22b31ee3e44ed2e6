//! `forumdex import`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `forumdex import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Corpus files; `-` reads stdin.
    #[arg(required = true)]
    pub files: Vec<std::path::PathBuf>,
}

/// Runs `forumdex import`.
pub fn run(_global: &GlobalArgs, _args: ImportArgs) -> anyhow::Result<()> {
    anyhow::bail!("import is not wired yet")
}
