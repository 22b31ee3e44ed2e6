//! The `forumdex` command line: one subcommand per file in [`commands`], the shared
//! options in [`cli`]. `main.rs` only calls [`run`].

pub mod allocator;
pub mod cli;
pub mod commands;
pub mod output;

use std::process::ExitCode;

use clap::Parser;

/// Parses the command line, runs the subcommand and turns its outcome into an exit code.
/// Errors go to stderr as `error: ...` lines, never to stdout, with a non-zero exit.
pub fn run() -> ExitCode {
    let cli = cli::Cli::parse();
    output::init_logging(cli.global.json);
    match commands::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            output::report_error(&err);
            ExitCode::FAILURE
        }
    }
}
