//! One subcommand per module, each with its clap `Args` and a `run` function.

pub mod accounts;
pub mod backup;
pub mod crawl;
pub mod credits;
pub mod db;
pub mod demo;
pub mod embed;
pub mod generate;
pub mod import;
pub mod keys;
pub mod reindex;
pub mod relevance;
pub mod serve;
pub mod takedown;

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use forumdex_accounts::AccountStore;
use forumdex_accounts::wire::KeyView;
use forumdex_search::SearchIndexes;
use forumdex_settings::Settings;
use forumdex_storage::Storage;

use crate::global::GlobalArgs;

/// The settings: defaults, the `--config` file, `FORUMDEX_*` variables, then `flags`.
pub fn settings(global: &GlobalArgs, flags: &[(&str, String)]) -> anyhow::Result<Settings> {
    Settings::load(global.config.as_deref(), std::env::vars(), flags)
}

/// The storage factory the settings describe for the data folder: every command opens its
/// backends through it. The embedded corpus's writer is sized from `memory_limit`.
pub fn storage(global: &GlobalArgs) -> anyhow::Result<Storage> {
    let settings = settings(global, &[])?;
    Ok(settings
        .storage
        .factory(&global.data)
        .with_writer_cache(settings.server.writer_cache_kib()))
}

/// Opens the search indexes of `data_dir`, each writer's buffer sized from `memory_limit`.
pub fn search_indexes(global: &GlobalArgs, data_dir: &Path) -> anyhow::Result<SearchIndexes> {
    let bytes = settings(global, &[])?.server.index_writer_bytes();
    Ok(SearchIndexes::open(data_dir)
        .context("opening the search indexes")?
        .with_writer_bytes(bytes))
}

/// Opens the accounts, keys and ledger (creating the data folder and the database when
/// missing).
pub fn open_accounts(global: &GlobalArgs) -> anyhow::Result<Arc<dyn AccountStore>> {
    storage(global)?.accounts()
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
