//! `forumdex accounts create|show|two-factor-off`.

use anyhow::Context;
use clap::{Args, Subcommand};
use forumdex_accounts::wire::{AccountCredits, AccountView};
use forumdex_accounts::{AccountId, AccountStore, DeveloperStore, Email};
use forumdex_clock::{Clock, SystemClock};
use serde::Serialize;

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
    /// Turn off an account's two-factor sign-in (its owner lost the authenticator and the
    /// recovery codes): the secret and recovery codes are deleted, the password alone signs
    /// in again, and the account's activity says so.
    TwoFactorOff(TwoFactorOffArgs),
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

/// Arguments of `forumdex accounts two-factor-off`.
#[derive(Debug, Args)]
pub struct TwoFactorOffArgs {
    /// The account id.
    pub account_id: AccountId,
}

/// What `forumdex accounts two-factor-off --json` prints.
#[derive(Debug, Serialize)]
struct TwoFactorOff {
    account_id: AccountId,
    /// Always false after the command.
    two_factor: bool,
    /// Whether it was on (false: nothing changed).
    was_on: bool,
}

/// Runs `forumdex accounts ...`.
pub fn run(global: &GlobalArgs, args: AccountsArgs) -> anyhow::Result<()> {
    match args.command {
        AccountsCommand::Create(args) => create(global, open_accounts(global)?.as_ref(), args),
        AccountsCommand::Show(args) => show(global, open_accounts(global)?.as_ref(), args),
        AccountsCommand::TwoFactorOff(args) => {
            let store = crate::commands::storage(global)?.developer_accounts()?;
            two_factor_off(global, store.as_ref(), args.account_id)
        }
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

fn two_factor_off(
    global: &GlobalArgs,
    store: &dyn DeveloperStore,
    account_id: AccountId,
) -> anyhow::Result<()> {
    store.account(account_id)?;
    let was_on = store.two_factor(account_id)?.is_some();
    if was_on {
        store.disable_two_factor(account_id)?;
        store.record_activity(
            account_id,
            "two_factor_off",
            "two-factor sign-in turned off by the operator",
            SystemClock.now(),
        )?;
    }
    if global.json {
        return print_json(&TwoFactorOff {
            account_id,
            two_factor: false,
            was_on,
        });
    }
    if was_on {
        println!("two-factor sign-in turned off for account {account_id}");
    } else {
        println!("account {account_id} had no two-factor sign-in; nothing changed");
    }
    Ok(())
}
