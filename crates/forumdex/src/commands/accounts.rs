//! `forumdex accounts create|show`.

use anyhow::Context;
use clap::{Args, Subcommand};
use forumdex_accounts::wire::{AccountCredits, AccountView};
use forumdex_accounts::{AccountId, AccountStore, Email};
use forumdex_clock::{Clock, SystemClock};

use crate::commands::{describe_key, open_accounts};
use crate::global::GlobalArgs;
use crate::output::print_json;

/// Arguments of `forumdex accounts`.
#[derive(Debug, Args)]
pub struct AccountsArgs {
    /// What to do with accounts.
    #[command(subcommand)]
    pub command: AccountsCommand,
}

/// The `accounts` subcommands.
#[derive(Debug, Subcommand)]
pub enum AccountsCommand {
    /// Create an account, optionally with initial credits.
    Create(CreateArgs),
    /// Show an account: email, balance and keys.
    Show(ShowArgs),
}

/// Arguments of `forumdex accounts create`.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// Contact address of the account owner.
    #[arg(long)]
    pub email: String,
    /// Initial credits.
    #[arg(long, default_value_t = 0)]
    pub credits: u64,
}

/// Arguments of `forumdex accounts show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The account id.
    pub account_id: AccountId,
}

/// Runs `forumdex accounts ...`.
pub fn run(global: &GlobalArgs, args: AccountsArgs) -> anyhow::Result<()> {
    let store = open_accounts(global)?;
    match args.command {
        AccountsCommand::Create(args) => create(global, store.as_ref(), args),
        AccountsCommand::Show(args) => show(global, store.as_ref(), args),
    }
}

fn create(global: &GlobalArgs, store: &dyn AccountStore, args: CreateArgs) -> anyhow::Result<()> {
    let email = Email::parse(&args.email)?;
    let account_id = store
        .create_account(&email, args.credits, SystemClock.now())
        .context("cannot create the account")?;
    let credits = store.balance(account_id)?;
    if global.json {
        return print_json(&AccountCredits {
            account_id,
            credits,
        });
    }
    println!("created account {account_id} ({email}) with {credits} credits");
    Ok(())
}

fn show(global: &GlobalArgs, store: &dyn AccountStore, args: ShowArgs) -> anyhow::Result<()> {
    let now = SystemClock.now();
    let account = store.account(args.account_id)?;
    let keys = store.list_keys(args.account_id)?;
    let view = AccountView::new(&account, &keys, now);
    if global.json {
        return print_json(&view);
    }
    println!("account {}", view.account_id);
    println!("email:   {}", view.email);
    println!("credits: {}", view.credits);
    if view.keys.is_empty() {
        println!("keys:    none");
    } else {
        println!("keys:");
        for key in &view.keys {
            println!("  {}", describe_key(key));
        }
    }
    Ok(())
}
