//! The command-line tree (operator-interface.md): the global options ([`GlobalArgs`]) and the
//! subcommands.

use clap::{Parser, Subcommand};

use crate::commands;
use crate::global::GlobalArgs;

/// forumdex: a paid JSON API over an indexed forum corpus.
#[derive(Debug, Parser)]
#[command(name = "forumdex", version, about)]
pub struct Cli {
    /// Options every subcommand takes.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Import corpus files (`.jsonl`, `.jsonl.gz`, `.jsonl.zst`, or `-` for stdin).
    Import(commands::import::ImportArgs),
    /// Crawl an SMF 1.x forum politely and import what it reads (or write it to a file).
    Crawl(commands::crawl::CrawlArgs),
    /// Write a deterministic synthetic corpus (with its image files beside it).
    Generate(commands::generate::GenerateArgs),
    /// Serve the API and the CDN origin.
    Serve(commands::serve::ServeArgs),
    /// First look: import a demo corpus when the data folder has none, then serve.
    Demo(commands::demo::DemoArgs),
    /// Create and show accounts.
    Accounts(commands::accounts::AccountsArgs),
    /// Add credits to accounts.
    Credits(commands::credits::CreditsArgs),
    /// Issue, list, revoke, renew and restrict API keys.
    Keys(commands::keys::KeysArgs),
    /// Rebuild every search index from the corpus.
    Reindex(commands::reindex::ReindexArgs),
    /// Give every search index segment its post vectors (the semantic leg), to the end.
    Embed(commands::embed::EmbedArgs),
    /// Copy the embedded data folder, online and consistent, into a new data folder.
    Backup(commands::backup::BackupArgs),
    /// Measure search relevance (MRR@10, recall@10) over a query set.
    Relevance(commands::relevance::RelevanceArgs),
    /// Take posts, topics or profiles out of the service, list and lift takedowns.
    Takedown(commands::takedown::TakedownArgs),
    /// Create or upgrade the PostgreSQL schema (`storage = "postgres"`).
    Db(commands::db::DbArgs),
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_tree_is_consistent() {
        Cli::command().debug_assert();
    }
}
