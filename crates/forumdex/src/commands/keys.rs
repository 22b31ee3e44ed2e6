//! `forumdex keys create|list|revoke|renew|set-expiry|allow`.

use std::str::FromStr;

use chrono::{DateTime, Utc};
use clap::{Args, Subcommand};
use forumdex_accounts::wire::{
    KeyAllow, KeyCreated, KeyExpiry, KeyList, KeyRenewed, KeyStatusView, KeyView,
};
use forumdex_accounts::{
    AccountId, AccountStore, AllowEntry, Allowlist, KeyId, KeyLifetime, NewKey, Timestamp,
};
use forumdex_clock::{Clock, SystemClock};

use crate::commands::{describe_key, open_accounts};
use crate::global::GlobalArgs;
use crate::output::print_json;

/// Arguments of `forumdex keys`.
#[derive(Debug, Args)]
pub struct KeysArgs {
    /// What to do with API keys.
    #[command(subcommand)]
    pub command: KeysCommand,
}

/// The `keys` subcommands.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Issue a key; its secret is printed this once.
    Create(CreateArgs),
    /// List the keys of an account.
    List(ListArgs),
    /// Revoke a key at once (final).
    Revoke(RevokeArgs),
    /// Renew a key (not a revoked one): expiry = now + lifetime; the secret is unchanged.
    Renew(RenewArgs),
    /// Override the expiry instant of a key (not a revoked one).
    SetExpiry(SetExpiryArgs),
    /// Add or remove IP restrictions of a key; prints the resulting list.
    Allow(AllowArgs),
}

/// Arguments of `forumdex keys create`.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The account that owns the key.
    #[arg(long = "account", value_name = "ACCOUNT_ID")]
    pub account_id: AccountId,
    /// How long the key lives: none, 7d, 30d, 90d, 180d or 365d.
    #[arg(long, default_value_t = KeyLifetime::None)]
    pub lifetime: KeyLifetime,
    /// Restrict the key to an IP address or CIDR range (repeatable); none allows all.
    #[arg(long = "allow", value_name = "IP_OR_CIDR")]
    pub allow: Vec<AllowEntry>,
    /// A label for people.
    #[arg(long)]
    pub name: Option<String>,
}

/// Arguments of `forumdex keys list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The account whose keys to list.
    #[arg(long = "account", value_name = "ACCOUNT_ID")]
    pub account_id: AccountId,
}

/// Arguments of `forumdex keys revoke`.
#[derive(Debug, Args)]
pub struct RevokeArgs {
    /// The key to revoke.
    pub key_id: KeyId,
}

/// Arguments of `forumdex keys renew`.
#[derive(Debug, Args)]
pub struct RenewArgs {
    /// The key to renew.
    pub key_id: KeyId,
    /// New lifetime (none, 7d, 30d, 90d, 180d, 365d); default: the key's own.
    #[arg(long)]
    pub lifetime: Option<KeyLifetime>,
}

/// Arguments of `forumdex keys set-expiry`.
#[derive(Debug, Args)]
pub struct SetExpiryArgs {
    /// The key to change.
    pub key_id: KeyId,
    /// The new expiry instant (RFC 3339, e.g. 2026-01-02T03:04:05Z), or `none`.
    #[arg(long, value_name = "TIME")]
    pub at: ExpiryAt,
}

/// An expiry instant given on the command line: RFC 3339, or `none` for no expiry.
#[derive(Debug, Clone, Copy)]
pub struct ExpiryAt(pub Option<DateTime<Utc>>);

impl FromStr for ExpiryAt {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("none") {
            return Ok(Self(None));
        }
        Timestamp::parse(s).map(|t| Self(Some(t.0))).map_err(|err| {
            format!("expected an RFC 3339 time such as 2026-01-02T03:04:05Z, or none: {err}")
        })
    }
}

/// Arguments of `forumdex keys allow`.
#[derive(Debug, Args)]
pub struct AllowArgs {
    /// The key to change.
    pub key_id: KeyId,
    /// IP address or CIDR range to allow (repeatable; adding a present entry does nothing).
    #[arg(long = "add", value_name = "IP_OR_CIDR")]
    pub add: Vec<AllowEntry>,
    /// IP address or CIDR range to stop allowing (repeatable; removing an absent entry does
    /// nothing). When the list becomes empty every address is allowed.
    #[arg(long = "remove", value_name = "IP_OR_CIDR")]
    pub remove: Vec<AllowEntry>,
}

/// Runs `forumdex keys ...`.
pub fn run(global: &GlobalArgs, args: KeysArgs) -> anyhow::Result<()> {
    let store = open_accounts(global)?;
    let store: &dyn AccountStore = store.as_ref();
    let now = SystemClock.now();
    match args.command {
        KeysCommand::Create(args) => create(global, store, args, now),
        KeysCommand::List(args) => list(global, store, args, now),
        KeysCommand::Revoke(args) => revoke(global, store, args, now),
        KeysCommand::Renew(args) => renew(global, store, args, now),
        KeysCommand::SetExpiry(args) => set_expiry(global, store, args),
        KeysCommand::Allow(args) => allow(global, store, args),
    }
}

fn show_expiry(at: Option<Timestamp>) -> String {
    at.map_or_else(|| "never".to_owned(), |t| t.to_string())
}

fn show_allow(allow: &Allowlist) -> String {
    if allow.is_empty() {
        "any address".to_owned()
    } else {
        allow.to_strings().join(", ")
    }
}

fn create(
    global: &GlobalArgs,
    store: &dyn AccountStore,
    args: CreateArgs,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let new = NewKey {
        lifetime: args.lifetime,
        allow: Allowlist::from_entries(args.allow),
        name: args.name,
    };
    let created = store.create_key(args.account_id, &new, now)?;
    let view = KeyCreated::new(&created.info, &created.secret);
    if global.json {
        return print_json(&view);
    }
    println!(
        "created key {} for account {} (expires {}; allowed from {})",
        view.key_id,
        args.account_id,
        show_expiry(view.expires_at),
        show_allow(&created.info.allow)
    );
    println!("secret (shown this once, store it safely): {}", view.key);
    Ok(())
}

fn list(
    global: &GlobalArgs,
    store: &dyn AccountStore,
    args: ListArgs,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let keys = store.list_keys(args.account_id)?;
    let view = KeyList {
        keys: keys.iter().map(|k| KeyView::new(k, now)).collect(),
    };
    if global.json {
        return print_json(&view);
    }
    if view.keys.is_empty() {
        println!("account {} has no keys", args.account_id);
    }
    for key in &view.keys {
        println!("{}", describe_key(key));
    }
    Ok(())
}

fn revoke(
    global: &GlobalArgs,
    store: &dyn AccountStore,
    args: RevokeArgs,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let info = store.revoke_key(&args.key_id, now)?;
    let view = KeyStatusView {
        key_id: info.key_id.clone(),
        status: info.status(now),
    };
    if global.json {
        return print_json(&view);
    }
    println!("key {} is {}", view.key_id, view.status);
    Ok(())
}

fn renew(
    global: &GlobalArgs,
    store: &dyn AccountStore,
    args: RenewArgs,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let info = store.renew_key(&args.key_id, args.lifetime, now)?;
    let view = KeyRenewed {
        key_id: info.key_id.clone(),
        status: info.status(now),
        expires_at: info.expires_at.map(Timestamp),
    };
    if global.json {
        return print_json(&view);
    }
    println!(
        "key {} is {}; expires {}",
        view.key_id,
        view.status,
        show_expiry(view.expires_at)
    );
    Ok(())
}

fn set_expiry(
    global: &GlobalArgs,
    store: &dyn AccountStore,
    args: SetExpiryArgs,
) -> anyhow::Result<()> {
    let info = store.set_key_expiry(&args.key_id, args.at.0)?;
    let view = KeyExpiry {
        key_id: info.key_id.clone(),
        expires_at: info.expires_at.map(Timestamp),
    };
    if global.json {
        return print_json(&view);
    }
    println!(
        "key {} now expires {} (status: {})",
        view.key_id,
        show_expiry(view.expires_at),
        info.status(SystemClock.now())
    );
    Ok(())
}

fn allow(global: &GlobalArgs, store: &dyn AccountStore, args: AllowArgs) -> anyhow::Result<()> {
    let allow = store.update_allowlist(&args.key_id, &args.add, &args.remove)?;
    let view = KeyAllow {
        key_id: args.key_id,
        allow,
    };
    if global.json {
        return print_json(&view);
    }
    println!(
        "key {} is allowed from {}",
        view.key_id,
        show_allow(&view.allow)
    );
    Ok(())
}
