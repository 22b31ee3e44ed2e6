//! `forumdex db migrate|copy` (operator-interface.md, "Storage and several nodes"):
//! `migrate` creates or upgrades the PostgreSQL schema of `storage = "postgres"`
//! (idempotent, safe from several nodes at once; every other command refuses a database
//! whose schema is not the binary's, naming it); `copy --from DIR` moves an embedded
//! deployment into PostgreSQL and the image store without losing or renumbering anything.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde::Serialize;

use crate::commands::storage;
use crate::global::GlobalArgs;
use crate::output::print_json;

/// Arguments of `forumdex db`.
#[derive(Debug, Args)]
pub struct DbArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: DbCommand,
}

/// The `db` subcommands.
#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Create or upgrade the PostgreSQL schema (idempotent).
    Migrate,
    /// Copy an embedded data folder (corpus with its sequences, accounts, keys, ledger,
    /// image objects) into PostgreSQL and the image store; safe to run again.
    Copy(CopyArgs),
}

/// Arguments of `forumdex db copy`.
#[derive(Debug, Args)]
pub struct CopyArgs {
    /// The embedded data folder to copy (its `corpus.sqlite`, `accounts.sqlite`, `images/`).
    #[arg(long)]
    pub from: PathBuf,
}

/// `{"schema_version": N}`.
#[derive(Debug, Serialize)]
struct Migrated {
    schema_version: i32,
}

/// Runs `forumdex db ...`.
pub fn run(global: &GlobalArgs, args: DbArgs) -> anyhow::Result<()> {
    match args.command {
        DbCommand::Migrate => {
            let schema_version = storage(global)?.migrate_database()?;
            if global.json {
                return print_json(&Migrated { schema_version });
            }
            println!("the PostgreSQL schema is at version {schema_version}");
            Ok(())
        }
        DbCommand::Copy(args) => {
            let counts = storage(global)?.copy_from_embedded(&args.from)?;
            if global.json {
                return print_json(&counts);
            }
            for (what, copied) in &counts {
                println!("{what}: {copied} copied");
            }
            Ok(())
        }
    }
}
