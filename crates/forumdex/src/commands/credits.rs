//! `forumdex credits add`.

use clap::{Args, Subcommand};
use forumdex_accounts::wire::AccountCredits;
use forumdex_accounts::{AccountId, DeveloperStore};
use forumdex_clock::{Clock, SystemClock};

use crate::global::GlobalArgs;
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
    /// Adds the credits once per key: running the same command again (a retried script)
    /// adds nothing and prints the current balance.
    #[arg(long, value_name = "KEY")]
    pub idempotency_key: Option<String>,
}

/// Runs `forumdex credits ...`.
pub fn run(global: &GlobalArgs, args: CreditsArgs) -> anyhow::Result<()> {
    let store = crate::commands::storage(global)?.developer_accounts()?;
    match args.command {
        CreditsCommand::Add(args) => add(global, store.as_ref(), args),
    }
}

fn add(global: &GlobalArgs, store: &dyn DeveloperStore, args: AddArgs) -> anyhow::Result<()> {
    let (credits, added) = match &args.idempotency_key {
        Some(key) => {
            store.add_credits_once(args.account_id, args.amount, key, SystemClock.now())?
        }
        None => (
            store.add_credits(args.account_id, args.amount, SystemClock.now())?,
            true,
        ),
    };
    if !added && !global.json {
        println!(
            "credits for key {:?} were added before; nothing added. account {} balance {credits}",
            args.idempotency_key.unwrap_or_default(),
            args.account_id
        );
        return Ok(());
    }
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
