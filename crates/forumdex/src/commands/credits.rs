//! `forumdex credits add`.

use chrono::Utc;
use clap::{Args, Subcommand};
use forumdex_accounts::wire::AccountCredits;
use forumdex_accounts::{AccountId, AccountStore};

use crate::cli::GlobalArgs;
use crate::commands::open_accounts;
use crate::output::print_json;

/// Arguments of `forumdex credits`.
#[derive(Debug, Args)]
pub struct CreditsArgs {
    /// What to do with credits.
    #[command(subcommand)]
    pub command: CreditsCommand,
}

/// The `credits` subcommands.
#[derive(Debug, Subcommand)]
pub enum CreditsCommand {
    /// Add credits to an account (a top-up); prints the new balance.
    Add(AddArgs),
}

/// Arguments of `forumdex credits add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The account to credit.
    #[arg(long = "account", value_name = "ACCOUNT_ID")]
    pub account_id: AccountId,
    /// Credits to add (at least 1).
    #[arg(long)]
    pub amount: u64,
}

/// Runs `forumdex credits ...`.
pub fn run(global: &GlobalArgs, args: CreditsArgs) -> anyhow::Result<()> {
    let store = open_accounts(global)?;
    match args.command {
        CreditsCommand::Add(args) => add(global, store.as_ref(), args),
    }
}

fn add(global: &GlobalArgs, store: &dyn AccountStore, args: AddArgs) -> anyhow::Result<()> {
    let credits = store.add_credits(args.account_id, args.amount, Utc::now())?;
    if global.json {
        return print_json(&AccountCredits {
            account_id: args.account_id,
            credits,
        });
    }
    println!(
        "added {} credits to account {}; balance {credits}",
        args.amount, args.account_id
    );
    Ok(())
}
