//! One subcommand per module, each with its clap `Args` and a `run` function.

pub mod demo;
pub mod generate;
pub mod import;
pub mod serve;

use crate::cli::{Cli, Command};

/// Runs the chosen subcommand.
pub fn dispatch(cli: Cli) -> anyhow::Result<()> {
    let global = cli.global;
    match cli.command {
        Command::Import(args) => import::run(&global, args),
        Command::Generate(args) => generate::run(&global, args),
        Command::Serve(args) => serve::run(&global, args),
        Command::Demo(args) => demo::run(&global, args),
    }
}
