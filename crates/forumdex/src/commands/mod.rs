//! One subcommand per module, each with its clap `Args` and a `run` function.

pub mod accounts;
pub mod credits;
pub mod demo;
pub mod generate;
pub mod import;
pub mod keys;
pub mod reindex;
pub mod relevance;
pub mod serve;

use anyhow::Context;
use forumdex_accounts::SqliteAccountStore;
use forumdex_accounts::wire::KeyView;

use crate::cli::{Cli, Command, GlobalArgs};

/// Runs the chosen subcommand.
pub fn dispatch(cli: Cli) -> anyhow::Result<()> {
    let global = cli.global;
    match cli.command {
        Command::Import(args) => import::run(&global, args),
        Command::Generate(args) => generate::run(&global, args),
        Command::Serve(args) => serve::run(&global, args),
        Command::Demo(args) => demo::run(&global, args),
        Command::Accounts(args) => accounts::run(&global, args),
        Command::Credits(args) => credits::run(&global, args),
        Command::Keys(args) => keys::run(&global, args),
        Command::Reindex(args) => reindex::run(&global, args),
        Command::Relevance(args) => relevance::run(&global, args),
    }
}

/// Opens `<data>/accounts.sqlite`, creating the data folder and the database when missing.
pub fn open_accounts(global: &GlobalArgs) -> anyhow::Result<SqliteAccountStore> {
    SqliteAccountStore::open_in(&global.data).with_context(|| {
        format!(
            "cannot open the accounts database in {}",
            global.data.display()
        )
    })
}

/// One line describing a key, for people.
pub(crate) fn describe_key(key: &KeyView) -> String {
    let expires = key
        .expires_at
        .map_or_else(|| "never".to_owned(), |t| t.to_string());
    let allow = if key.allow.is_empty() {
        "any address".to_owned()
    } else {
        key.allow.to_strings().join(", ")
    };
    let name = key.name.as_deref().unwrap_or("-");
    format!(
        "{}  {:<7}  name: {name}  expires: {expires}  allowed from: {allow}",
        key.key_id, key.status
    )
}
