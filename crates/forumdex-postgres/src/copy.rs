//! `forumdex db copy --from DIR`: copies the databases of an embedded data folder (the
//! corpus with its sequences, the accounts, keys, allowlists, ledger and the dashboard's
//! tables, the post vectors) into the PostgreSQL database, row for row and with the same ids, so a deployment
//! moves without losing or renumbering anything.
//!
//! The tables have the same names and columns on both sides (instants as Unix
//! milliseconds), so each is copied generically: its rows in primary key order, in batches,
//! each value converted to the PostgreSQL column's type. Rows already there are kept (`ON
//! CONFLICT DO NOTHING` on the primary key), so a copy that was interrupted is finished by
//! running it again, and a second run copies nothing. Afterwards every identity column
//! continues after the largest copied id. Copy into a database no node writes yet: rows a
//! node wrote first under the same ids would be kept instead of the copied ones.

use std::collections::BTreeMap;
use std::path::Path;

use postgres::types::{ToSql, Type};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::pool::{PgError, PgPool};
use crate::schema;

/// Rows per `INSERT` statement.
const BATCH_ROWS: usize = 500;

/// The tables copied from each embedded database, parents before children (foreign keys).
const ACCOUNT_TABLES: &[&str] = &[
    "accounts",
    "api_keys",
    "key_allow",
    "ledger",
    "logins",
    "login_tokens",
    "sessions",
    "activity",
    "usage_daily",
    "topups",
    "payment_events",
    "key_submissions",
    "email_changes",
    "low_balance_alerts",
    "request_log",
    "two_factor",
    "recovery_codes",
];

/// The tables copied from the embedded corpus, parents before children. Its one-row table
/// `topic_stats_since` is copied apart ([`copy_stats_since`]): it has no key.
const CORPUS_TABLES: &[&str] = &[
    "sequences",
    "observations",
    "board_versions",
    "profile_versions",
    "topic_versions",
    "post_versions",
    "image_versions",
    "image_objects",
    "takedowns",
    "takedown_topics",
    "topic_stat_versions",
    "topic_merit_senders",
];

/// The tables copied from the embedded post vectors: the deployment's nodes read them
/// instead of embedding every post again.
const VECTOR_TABLES: &[&str] = &["post_vectors"];

/// Why a copy stopped.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The embedded database could not be read.
    #[error("reading {file}: {source}")]
    Source {
        /// The database file.
        file: String,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// A value does not fit the PostgreSQL column.
    #[error("{table}.{column}: {why}")]
    Value {
        /// The table.
        table: String,
        /// The column.
        column: String,
        /// What does not fit.
        why: String,
    },
    /// PostgreSQL refused or failed.
    #[error(transparent)]
    Db(#[from] PgError),
}

impl From<postgres::Error> for CopyError {
    fn from(err: postgres::Error) -> Self {
        Self::Db(err.into())
    }
}

/// Rows copied per table (rows already in PostgreSQL are not counted).
pub type CopyCounts = BTreeMap<String, u64>;

/// Copies the embedded databases of `data_dir` that exist (`accounts.sqlite`,
/// `corpus.sqlite`, `vectors.sqlite`) into the database of `pool`, whose schema must be this binary's.
pub fn copy_embedded(data_dir: &Path, pool: &PgPool) -> Result<CopyCounts, CopyError> {
    schema::check(pool)?;
    let mut counts = CopyCounts::new();
    for (file, tables) in [
        ("accounts.sqlite", ACCOUNT_TABLES),
        ("corpus.sqlite", CORPUS_TABLES),
        ("vectors.sqlite", VECTOR_TABLES),
    ] {
        let path = data_dir.join(file);
        if !path.is_file() {
            continue;
        }
        let source = open_source(&path)?;
        for table in tables {
            // A database written by an older binary lacks the newer tables: nothing to copy.
            let copied = if has_table(&source, table) {
                copy_table(&source, &path, table, pool)?
            } else {
                0
            };
            counts.insert((*table).to_owned(), copied);
        }
        if file == "corpus.sqlite" {
            copy_stats_since(&source, &path, pool)?;
        }
    }
    Ok(counts)
}

/// Whether the embedded database has `table`.
fn has_table(source: &Connection, table: &str) -> bool {
    source
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [table],
            |_| Ok(()),
        )
        .is_ok()
}

/// The AVIF objects the embedded corpus of `data_dir` records (their SHA-256 names), to
/// copy into the deployment's image store; none without a corpus.
pub fn image_object_names(data_dir: &Path) -> Result<Vec<String>, CopyError> {
    let path = data_dir.join("corpus.sqlite");
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let source = open_source(&path)?;
    source
        .prepare("SELECT DISTINCT avif_sha256 FROM image_objects ORDER BY avif_sha256")
        .and_then(|mut stmt| stmt.query_map([], |row| row.get(0))?.collect())
        .map_err(|source| CopyError::Source {
            file: path.display().to_string(),
            source,
        })
}

/// The sequence from which the embedded corpus has topic statistics: added unless already
/// there (readers take the largest).
fn copy_stats_since(source: &Connection, path: &Path, pool: &PgPool) -> Result<(), CopyError> {
    let since: Option<i64> = source
        .query_row("SELECT MAX(seq) FROM topic_stats_since", [], |row| {
            row.get(0)
        })
        .map_err(|source| CopyError::Source {
            file: path.display().to_string(),
            source,
        })?;
    if let Some(since) = since {
        pool.with(|client| {
            client.execute(
                "INSERT INTO topic_stats_since (seq) SELECT $1
                 WHERE NOT EXISTS (SELECT 1 FROM topic_stats_since WHERE seq = $1)",
                &[&since],
            )
        })?;
    }
    Ok(())
}

fn open_source(path: &Path) -> Result<Connection, CopyError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(path, flags).map_err(|source| CopyError::Source {
        file: path.display().to_string(),
        source,
    })
}

/// The copied columns of a table: those PostgreSQL lets us write that SQLite has too, with
/// the PostgreSQL types.
fn shared_columns(
    source: &Connection,
    table: &str,
    pool: &PgPool,
) -> Result<(Vec<String>, Vec<Type>), CopyError> {
    let in_source: Vec<String> = source
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .and_then(|mut stmt| {
            stmt.query_map([], |row| row.get(0))?
                .collect::<Result<_, _>>()
        })
        .map_err(|source| CopyError::Source {
            file: table.to_owned(),
            source,
        })?;
    let target = pool.with(|client| {
        client.query(
            "SELECT column_name::text, is_generated = 'ALWAYS'
                      OR (is_identity = 'YES' AND identity_generation = 'ALWAYS')
             FROM information_schema.columns
             WHERE table_name = $1 AND table_schema = current_schema()
             ORDER BY ordinal_position",
            &[&table],
        )
    })?;
    let columns: Vec<String> = target
        .iter()
        .filter(|row| !row.get::<_, bool>(1))
        .map(|row| row.get::<_, String>(0))
        .filter(|column| in_source.contains(column))
        .collect();
    let types = pool.with(|client| {
        let probe = client.prepare(&format!("SELECT {} FROM {table}", columns.join(", ")))?;
        Ok::<_, postgres::Error>(probe.columns().iter().map(|c| c.type_().clone()).collect())
    })?;
    Ok((columns, types))
}

/// Copies one table in batches; returns the rows inserted.
fn copy_table(
    source: &Connection,
    path: &Path,
    table: &str,
    pool: &PgPool,
) -> Result<u64, CopyError> {
    let read_error = |source| CopyError::Source {
        file: path.display().to_string(),
        source,
    };
    let (columns, types) = shared_columns(source, table, pool)?;
    let list = columns.join(", ");
    // Rowid order is insertion order, which keeps generated columns (a key's issue order)
    // in the order the source gave them.
    let mut stmt = source
        .prepare(&format!("SELECT {list} FROM {table} ORDER BY rowid"))
        .or_else(|_| source.prepare(&format!("SELECT {list} FROM {table}")))
        .map_err(read_error)?;
    let mut rows = stmt.query([]).map_err(read_error)?;
    let mut batch: Vec<Box<dyn ToSql + Sync>> = Vec::new();
    let mut copied = 0;
    while let Some(row) = rows.next().map_err(read_error)? {
        for (i, (column, ty)) in columns.iter().zip(&types).enumerate() {
            let value = row.get_ref(i).map_err(read_error)?;
            batch.push(convert(value, ty).map_err(|why| CopyError::Value {
                table: table.to_owned(),
                column: column.clone(),
                why,
            })?);
        }
        if batch.len() >= BATCH_ROWS * columns.len() {
            copied += insert(pool, table, &list, columns.len(), &batch)?;
            batch.clear();
        }
    }
    if !batch.is_empty() {
        copied += insert(pool, table, &list, columns.len(), &batch)?;
    }
    continue_identities(pool, table)?;
    Ok(copied)
}

fn insert(
    pool: &PgPool,
    table: &str,
    list: &str,
    width: usize,
    values: &[Box<dyn ToSql + Sync>],
) -> Result<u64, CopyError> {
    let rows: Vec<String> = values
        .chunks(width)
        .enumerate()
        .map(|(r, _)| {
            let params: Vec<String> = (1..=width).map(|c| format!("${}", r * width + c)).collect();
            format!("({})", params.join(", "))
        })
        .collect();
    let sql = format!(
        "INSERT INTO {table} ({list}) VALUES {} ON CONFLICT DO NOTHING",
        rows.join(", ")
    );
    let params: Vec<&(dyn ToSql + Sync)> = values.iter().map(AsRef::as_ref).collect();
    Ok(pool.with(|client| client.execute(&sql, &params))?)
}

/// Moves every identity column of `table` past its largest value.
fn continue_identities(pool: &PgPool, table: &str) -> Result<(), CopyError> {
    pool.with(|client| {
        let identities = client.query(
            "SELECT column_name::text FROM information_schema.columns
             WHERE table_name = $1 AND table_schema = current_schema() AND is_identity = 'YES'",
            &[&table],
        )?;
        for row in identities {
            let column: String = row.get(0);
            client.execute(
                &format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', '{column}'),
                       GREATEST((SELECT MAX({column}) FROM {table}), 1),
                       (SELECT MAX({column}) FROM {table}) IS NOT NULL)"
                ),
                &[],
            )?;
        }
        Ok::<_, postgres::Error>(())
    })?;
    Ok(())
}

/// A SQLite value as the Rust value of PostgreSQL type `ty`.
fn convert(value: ValueRef<'_>, ty: &Type) -> Result<Box<dyn ToSql + Sync>, String> {
    let out_of_range = |n: i64| format!("{n} does not fit {ty}");
    Ok(match (value, ty) {
        (ValueRef::Null, &Type::INT2) => Box::new(None::<i16>),
        (ValueRef::Null, &Type::INT4) => Box::new(None::<i32>),
        (ValueRef::Null, &Type::INT8) => Box::new(None::<i64>),
        (ValueRef::Null, &Type::BOOL) => Box::new(None::<bool>),
        (ValueRef::Null, &Type::FLOAT4) => Box::new(None::<f32>),
        (ValueRef::Null, &Type::FLOAT8) => Box::new(None::<f64>),
        (ValueRef::Null, &Type::BYTEA) => Box::new(None::<Vec<u8>>),
        (ValueRef::Null, &Type::TEXT | &Type::VARCHAR) => Box::new(None::<String>),
        (ValueRef::Integer(n), &Type::INT2) => {
            Box::new(i16::try_from(n).map_err(|_| out_of_range(n))?)
        }
        (ValueRef::Integer(n), &Type::INT4) => {
            Box::new(i32::try_from(n).map_err(|_| out_of_range(n))?)
        }
        (ValueRef::Integer(n), &Type::INT8) => Box::new(n),
        (ValueRef::Integer(n), &Type::BOOL) => Box::new(n != 0),
        (ValueRef::Integer(n), &Type::FLOAT8) => Box::new(n as f64),
        (ValueRef::Integer(n), &Type::FLOAT4) => Box::new(n as f32),
        (ValueRef::Real(x), &Type::FLOAT8) => Box::new(x),
        (ValueRef::Real(x), &Type::FLOAT4) => Box::new(x as f32),
        (ValueRef::Text(text), &Type::TEXT | &Type::VARCHAR) => Box::new(
            std::str::from_utf8(text)
                .map_err(|_| "text that is not UTF-8".to_owned())?
                .to_owned(),
        ),
        (ValueRef::Blob(bytes), &Type::BYTEA) => Box::new(bytes.to_vec()),
        (value, ty) => return Err(format!("a {:?} value for a {ty} column", value.data_type())),
    })
}
