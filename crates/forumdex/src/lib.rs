//! The `forumdex` command line: one subcommand per file in [`commands`], the shared
//! options in [`global`], the command tree in [`cli`]. `main.rs` only calls [`run`].

pub mod allocator;
pub mod cli;
pub mod commands;
pub mod data_folder;
pub mod global;
pub mod output;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

/// Parses the command line, runs the subcommand and turns its outcome into an exit code.
/// Errors go to stderr as `error: ...` lines, never to stdout, with a non-zero exit.
pub fn run() -> ExitCode {
    let cli = cli::Cli::parse();
    output::init_logging(cli.global.json);
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            output::report_error(&err);
            ExitCode::FAILURE
        }
    }
}

/// Runs the chosen subcommand.
fn dispatch(cli: Cli) -> anyhow::Result<()> {
    let global = cli.global;
    // `generate` writes a corpus file wherever it is told, not into the data folder.
    if !matches!(cli.command, Command::Generate(_)) {
        data_folder::create_owner_only();
        data_folder::warn_if_open_to_others(&global.data);
    }
    match cli.command {
        Command::Import(args) => commands::import::run(&global, args),
        Command::Crawl(args) => commands::crawl::run(&global, args),
        Command::Generate(args) => commands::generate::run(&global, args),
        Command::Serve(args) => commands::serve::run(&global, args),
        Command::Demo(args) => commands::demo::run(&global, args),
        Command::Accounts(args) => commands::accounts::run(&global, args),
        Command::Credits(args) => commands::credits::run(&global, args),
        Command::Keys(args) => commands::keys::run(&global, args),
        Command::Reindex(args) => commands::reindex::run(&global, args),
        Command::Embed(args) => commands::embed::run(&global, args),
        Command::Backup(args) => commands::backup::run(&global, args),
        Command::Relevance(args) => commands::relevance::run(&global, args),
        Command::Takedown(args) => commands::takedown::run(&global, args),
        Command::Db(args) => commands::db::run(&global, args),
    }
}
