//! The accounts stores' statements and steps, written once for both backends: each function
//! is one [`AccountStore`](forumdex_accounts::AccountStore) operation (or a part of one)
//! inside a transaction the backend opens, at the isolation it chooses. The rules the
//! operations apply are the domain crate's ([`forumdex_accounts::rules`]); what differs
//! between the databases is named in [`Dialect`].

pub mod developer;
pub mod schema;
mod stores;

use chrono::{DateTime, Utc};
use forumdex_accounts::allowlist::{AllowEntry, Allowlist};
use forumdex_accounts::rules::{
    ACCOUNT_CREATE_OPERATION, CREDITS_ADD_OPERATION, MintedKey, authenticated, balance_too_large,
    ensure_not_revoked, max_balance_before_adding, renewal, repeated_charge, validate_amount,
    validate_charge,
};
use forumdex_accounts::stored::{account_id, corrupt, key_id, millis, to_i64, to_u64};
use forumdex_accounts::time::from_unix_millis;
use forumdex_accounts::{
    Account, AccountError, AccountId, ApiKey, AuthError, AuthenticatedKey, DeveloperError, Email,
    KeyHash, KeyId, KeyInfo, KeyLifetime, LedgerEntry,
};

use crate::dialect::Dialect;
use crate::exec::{CellError, Failure, Row, Sql};
use crate::params;

/// A step's result inside a transaction of `S`, refused with `E`.
pub type Step<S, T, E = AccountError> = Result<T, Failure<E, <S as Sql>::Error>>;

impl<D> From<AccountError> for Failure<AccountError, D> {
    fn from(err: AccountError) -> Self {
        Self::Refused(err)
    }
}

impl<D> From<CellError> for Failure<AccountError, D> {
    fn from(err: CellError) -> Self {
        Self::Refused(corrupt(err.to_string()))
    }
}

impl<D> From<DeveloperError> for Failure<DeveloperError, D> {
    fn from(err: DeveloperError) -> Self {
        Self::Refused(err)
    }
}

impl<D> From<AccountError> for Failure<DeveloperError, D> {
    fn from(err: AccountError) -> Self {
        Self::Refused(err.into())
    }
}

impl<D> From<CellError> for Failure<DeveloperError, D> {
    fn from(err: CellError) -> Self {
        Self::Refused(corrupt(err.to_string()).into())
    }
}

impl<D> From<Failure<AccountError, D>> for Failure<DeveloperError, D> {
    fn from(err: Failure<AccountError, D>) -> Self {
        match err {
            Failure::Db(err) => Self::Db(err),
            Failure::Refused(err) => Self::Refused(err.into()),
        }
    }
}

/// The order keys were issued in, of table alias `k` (its creation instant first): SQLite's
/// row id, PostgreSQL's identity column.
fn issue_order(dialect: Dialect, k: &str) -> String {
    match dialect {
        Dialect::Sqlite => format!("{k}.created_at, {k}.rowid"),
        Dialect::Postgres => format!("{k}.created_at, {k}.issued"),
    }
}

/// A key's columns and its allowlist (entries joined by newlines, in order), as
/// [`decode_key`] reads them: one statement, so that the lookup of every request is one.
fn key_select(dialect: Dialect) -> String {
    let allow = match dialect {
        Dialect::Sqlite => {
            "(SELECT group_concat(a.entry, char(10) ORDER BY a.position) FROM key_allow a
              WHERE a.key_id = k.key_id)"
        }
        Dialect::Postgres => {
            "array_to_string(ARRAY(SELECT a.entry FROM key_allow a WHERE a.key_id = k.key_id
              ORDER BY a.position), E'\\n')"
        }
    };
    format!(
        "SELECT k.key_id, k.account_id, k.name, k.lifetime_days, k.created_at, k.expires_at,
           k.revoked_at, k.secret_prefix, {allow}, k.secret_sha256
         FROM api_keys k"
    )
}

fn decode_key(row: &Row) -> Result<KeyInfo, AccountError> {
    let cell = |err: CellError| corrupt(err.to_string());
    let key_id = key_id(&row.get::<String>(0).map_err(cell)?)?;
    let lifetime = match row.get::<Option<i64>>(3).map_err(cell)? {
        None => KeyLifetime::None,
        Some(days) => u32::try_from(days)
            .ok()
            .and_then(KeyLifetime::from_days)
            .ok_or_else(|| corrupt(format!("lifetime of {days} days")))?,
    };
    let mut entries = Vec::new();
    let allow = row
        .get::<Option<String>>(8)
        .map_err(cell)?
        .unwrap_or_default();
    for text in allow.split('\n').filter(|text| !text.is_empty()) {
        entries
            .push(AllowEntry::parse(text).map_err(|_| corrupt(format!("allow entry {text:?}")))?);
    }
    Ok(KeyInfo {
        key_id,
        account_id: account_id(row.get(1).map_err(cell)?)?,
        name: row.get(2).map_err(cell)?,
        secret_prefix: row.get(7).map_err(cell)?,
        lifetime,
        created_at: from_unix_millis(row.get(4).map_err(cell)?),
        expires_at: row
            .get::<Option<i64>>(5)
            .map_err(cell)?
            .map(from_unix_millis),
        revoked_at: row
            .get::<Option<i64>>(6)
            .map_err(cell)?
            .map(from_unix_millis),
        allow: Allowlist::from_entries(entries),
    })
}

/// Refuses an unknown account.
pub fn require_account<S: Sql>(db: &mut S, id: AccountId) -> Step<S, ()> {
    match db.query_opt("SELECT 1 FROM accounts WHERE id = $1", params![id.get()])? {
        Some(_) => Ok(()),
        None => Err(AccountError::AccountNotFound(id).into()),
    }
}

/// The key `key`, refused when unknown.
pub fn key<S: Sql>(db: &mut S, key: &KeyId) -> Step<S, KeyInfo> {
    let select = key_select(db.dialect());
    let row = db
        .query_opt(
            &format!("{select} WHERE k.key_id = $1"),
            params![key.as_str()],
        )?
        .ok_or_else(|| AccountError::KeyNotFound(key.clone()))?;
    Ok(decode_key(&row)?)
}

/// Loads a key for a change that a revoked key may not undergo.
fn unrevoked_key<S: Sql>(db: &mut S, key_id: &KeyId) -> Step<S, KeyInfo> {
    let info = key(db, key_id)?;
    ensure_not_revoked(&info)?;
    Ok(info)
}

/// A ledger row to append.
pub(crate) struct NewLedgerRow<'a> {
    pub(crate) account: AccountId,
    pub(crate) key: Option<&'a KeyId>,
    pub(crate) request_id: Option<&'a str>,
    pub(crate) operation: &'a str,
    pub(crate) amount: i64,
    pub(crate) balance_after: i64,
    pub(crate) now: DateTime<Utc>,
}

pub(crate) fn insert_ledger<S: Sql>(db: &mut S, row: NewLedgerRow<'_>) -> Step<S, ()> {
    db.execute(
        "INSERT INTO ledger (account_id, key_id, request_id, operation, amount, balance_after,
           created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        params![
            row.account.get(),
            row.key.map(KeyId::as_str),
            row.request_id,
            row.operation,
            row.amount,
            row.balance_after,
            millis(row.now)
        ],
    )?;
    Ok(())
}

/// The ledger of `account`: all of it oldest first, or the newest `newest` rows newest first.
pub fn ledger<S: Sql>(db: &mut S, account: AccountId) -> Step<S, Vec<LedgerEntry>> {
    require_account(db, account)?;
    let rows = db.query(
        &format!("{LEDGER_SELECT} WHERE account_id = $1 ORDER BY id"),
        params![account.get()],
    )?;
    rows.iter().map(|row| ledger_entry(row, account)).collect()
}

/// The columns [`ledger_entry`] reads.
pub(crate) const LEDGER_SELECT: &str =
    "SELECT id, key_id, request_id, operation, amount, balance_after, created_at FROM ledger";

/// A ledger row of `account` as [`LEDGER_SELECT`] reads it.
pub(crate) fn ledger_entry<D>(
    row: &Row,
    account: AccountId,
) -> Result<LedgerEntry, Failure<AccountError, D>> {
    Ok(LedgerEntry {
        id: row.get(0)?,
        account_id: account,
        key_id: row
            .get::<Option<String>>(1)?
            .as_deref()
            .map(key_id)
            .transpose()?,
        request_id: row.get(2)?,
        operation: row.get(3)?,
        amount: row.get(4)?,
        balance_after: to_u64(row.get(5)?)?,
        created_at: from_unix_millis(row.get(6)?),
    })
}

/// Inserts an account holding `credits` (no ledger row); returns its id.
pub(crate) fn insert_account<S: Sql>(
    db: &mut S,
    email: &Email,
    credits: i64,
    now: DateTime<Utc>,
) -> Step<S, AccountId> {
    let row = db
        .query_opt(
            "INSERT INTO accounts (email, credits, created_at) VALUES ($1, $2, $3) RETURNING id",
            params![email.as_str(), credits, millis(now)],
        )?
        .ok_or_else(|| corrupt("an insert returned no id"))?;
    Ok(account_id(row.get(0)?)?)
}

/// Opens an account holding `initial_credits`, with its ledger row when there are any.
pub fn create_account<S: Sql>(
    db: &mut S,
    email: &Email,
    initial_credits: u64,
    now: DateTime<Utc>,
) -> Step<S, AccountId> {
    validate_amount(initial_credits, true)?;
    let credits = to_i64(initial_credits)?;
    let id = insert_account(db, email, credits, now)?;
    if credits > 0 {
        insert_ledger(
            db,
            NewLedgerRow {
                account: id,
                key: None,
                request_id: None,
                operation: ACCOUNT_CREATE_OPERATION,
                amount: credits,
                balance_after: credits,
                now,
            },
        )?;
    }
    Ok(id)
}

/// The account `id`.
pub fn account<S: Sql>(db: &mut S, id: AccountId) -> Step<S, Account> {
    let row = db
        .query_opt(
            "SELECT email, credits, created_at FROM accounts WHERE id = $1",
            params![id.get()],
        )?
        .ok_or(AccountError::AccountNotFound(id))?;
    let email: String = row.get(0)?;
    Ok(Account {
        id,
        email: Email::from_stored(email),
        credits: to_u64(row.get(1)?)?,
        created_at: from_unix_millis(row.get(2)?),
    })
}

/// The balance of `id`; `None` when there is no such account.
pub(crate) fn balance_of<S: Sql>(db: &mut S, id: AccountId) -> Step<S, Option<u64>> {
    let row = db.query_opt(
        "SELECT credits FROM accounts WHERE id = $1",
        params![id.get()],
    )?;
    match row {
        Some(row) => Ok(Some(to_u64(row.get(0)?)?)),
        None => Ok(None),
    }
}

/// The balance of `id`, refused when there is no such account.
pub fn balance<S: Sql>(db: &mut S, id: AccountId) -> Step<S, u64> {
    balance_of(db, id)?.ok_or_else(|| AccountError::AccountNotFound(id).into())
}

/// Adds `amount` credits with a ledger row; the balance after.
pub fn add_credits<S: Sql>(
    db: &mut S,
    id: AccountId,
    amount: u64,
    now: DateTime<Utc>,
) -> Step<S, u64> {
    validate_amount(amount, false)?;
    let ceiling = to_i64(max_balance_before_adding(amount))?;
    let amount = to_i64(amount)?;
    let row = db.query_opt(
        "UPDATE accounts SET credits = credits + $1
         WHERE id = $2 AND credits <= $3 RETURNING credits",
        params![amount, id.get(), ceiling],
    )?;
    let Some(row) = row else {
        require_account(db, id)?;
        return Err(balance_too_large().into());
    };
    let balance: i64 = row.get(0)?;
    insert_ledger(
        db,
        NewLedgerRow {
            account: id,
            key: None,
            request_id: None,
            operation: CREDITS_ADD_OPERATION,
            amount,
            balance_after: balance,
            now,
        },
    )?;
    Ok(to_u64(balance)?)
}

/// Takes one credit for `request_id`, once: the balance after, or `None` when there was none
/// to take. A request charged before answers what its charge left.
pub fn charge<S: Sql>(
    db: &mut S,
    account: AccountId,
    key_id: &KeyId,
    request_id: &str,
    operation: &str,
    now: DateTime<Utc>,
) -> Step<S, Option<u64>> {
    validate_charge(request_id, operation)?;
    let earlier = db.query_opt(
        "SELECT account_id, balance_after FROM ledger WHERE request_id = $1",
        params![request_id],
    )?;
    if let Some(row) = earlier {
        let (charged, balance_after) = (account_id(row.get(0)?)?, to_u64(row.get(1)?)?);
        return Ok(Some(repeated_charge(
            request_id,
            account,
            charged,
            balance_after,
        )?));
    }
    let remaining = db.query_opt(
        "UPDATE accounts SET credits = credits - 1
         WHERE id = $1 AND credits >= 1 RETURNING credits",
        params![account.get()],
    )?;
    let Some(remaining) = remaining else {
        require_account(db, account)?;
        return Ok(None);
    };
    let remaining: i64 = remaining.get(0)?;
    insert_ledger(
        db,
        NewLedgerRow {
            account,
            key: Some(key_id),
            request_id: Some(request_id),
            operation,
            amount: -1,
            balance_after: remaining,
            now,
        },
    )?;
    Ok(Some(to_u64(remaining)?))
}

/// Stores a minted key with its allowlist; the key as stored.
pub fn insert_key<S: Sql>(
    db: &mut S,
    account: AccountId,
    minted: &MintedKey,
    allow: &Allowlist,
) -> Step<S, KeyInfo> {
    require_account(db, account)?;
    let key_id = &minted.key_id;
    db.execute(
        "INSERT INTO api_keys
           (key_id, account_id, name, secret_sha256, lifetime_days, created_at, expires_at,
            secret_prefix)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        params![
            key_id.as_str(),
            account.get(),
            minted.name.as_ref(),
            minted.hash.as_bytes().as_slice(),
            minted.lifetime.days().map(i64::from),
            millis(minted.created_at),
            minted.expires_at.map(millis),
            &minted.secret_prefix
        ],
    )?;
    for (position, entry) in allow.entries().iter().enumerate() {
        let position = i64::try_from(position).map_err(|_| corrupt("allowlist size"))?;
        db.execute(
            "INSERT INTO key_allow (key_id, entry, position) VALUES ($1, $2, $3)",
            params![key_id.as_str(), &entry.to_string(), position],
        )?;
    }
    key(db, key_id)
}

/// The keys of `account`, in the order they were issued.
pub fn list_keys<S: Sql>(db: &mut S, account: AccountId) -> Step<S, Vec<KeyInfo>> {
    require_account(db, account)?;
    let (select, order) = (key_select(db.dialect()), issue_order(db.dialect(), "k"));
    let rows = db.query(
        &format!("{select} WHERE k.account_id = $1 ORDER BY {order}"),
        params![account.get()],
    )?;
    Ok(rows.iter().map(decode_key).collect::<Result<_, _>>()?)
}

/// Revokes a key (a revoked key stays revoked, at its first instant).
pub fn revoke_key<S: Sql>(db: &mut S, key_id: &KeyId, now: DateTime<Utc>) -> Step<S, KeyInfo> {
    key(db, key_id)?;
    db.execute(
        "UPDATE api_keys SET revoked_at = $1 WHERE key_id = $2 AND revoked_at IS NULL",
        params![millis(now), key_id.as_str()],
    )?;
    key(db, key_id)
}

/// Renews an unrevoked key for `lifetime` (its own when `None`) from `now`.
pub fn renew_key<S: Sql>(
    db: &mut S,
    key_id: &KeyId,
    lifetime: Option<KeyLifetime>,
    now: DateTime<Utc>,
) -> Step<S, KeyInfo> {
    let info = unrevoked_key(db, key_id)?;
    let (lifetime, expires_at) = renewal(&info, lifetime, now);
    db.execute(
        "UPDATE api_keys SET lifetime_days = $1, expires_at = $2 WHERE key_id = $3",
        params![
            lifetime.days().map(i64::from),
            expires_at.map(millis),
            key_id.as_str()
        ],
    )?;
    key(db, key_id)
}

/// Sets when an unrevoked key expires (never when `None`).
pub fn set_key_expiry<S: Sql>(
    db: &mut S,
    key_id: &KeyId,
    at: Option<DateTime<Utc>>,
) -> Step<S, KeyInfo> {
    unrevoked_key(db, key_id)?;
    db.execute(
        "UPDATE api_keys SET expires_at = $1 WHERE key_id = $2",
        params![at.map(millis), key_id.as_str()],
    )?;
    key(db, key_id)
}

/// Adds entries at the end of a key's allowlist (those already on it stay where they are)
/// and removes others; the allowlist after.
pub fn update_allowlist<S: Sql>(
    db: &mut S,
    key_id: &KeyId,
    add: &[AllowEntry],
    remove: &[AllowEntry],
) -> Step<S, Allowlist> {
    key(db, key_id)?;
    for entry in add {
        db.execute(
            "INSERT INTO key_allow (key_id, entry, position)
             VALUES ($1, $2,
               (SELECT COALESCE(MAX(position), -1) + 1 FROM key_allow WHERE key_id = $1))
             ON CONFLICT (key_id, entry) DO NOTHING",
            params![key_id.as_str(), &entry.to_string()],
        )?;
    }
    for entry in remove {
        db.execute(
            "DELETE FROM key_allow WHERE key_id = $1 AND entry = $2",
            params![key_id.as_str(), &entry.to_string()],
        )?;
    }
    Ok(key(db, key_id)?.allow)
}

/// Whether the database answers a trivial read of the accounts table.
pub fn ping<S: Sql>(db: &mut S) -> Step<S, ()> {
    db.query("SELECT 1 FROM accounts WHERE id = 0", params![])?;
    Ok(())
}

/// The key whose secret is `secret`, if it may be used at `now`: the outer result is the
/// database's, the inner one the key's.
pub fn authenticate<S: Sql>(
    db: &mut S,
    secret: &ApiKey,
    now: DateTime<Utc>,
) -> Step<S, Result<AuthenticatedKey, AuthError>> {
    let hash = secret.hash();
    // One statement: the lookup goes through the unique index on the hash of a secret with
    // 190 random bits; the stored hash is compared again in constant time below.
    let select = key_select(db.dialect());
    let found = db.query_opt(
        &format!("{select} WHERE k.secret_sha256 = $1"),
        params![hash.as_bytes().as_slice()],
    )?;
    let Some(row) = found else {
        return Ok(Err(AuthError::Unknown));
    };
    let stored: Vec<u8> = row.get(9)?;
    if !KeyHash::from_slice(&stored).is_some_and(|stored| stored == hash) {
        return Ok(Err(AuthError::Unknown));
    }
    Ok(authenticated(decode_key(&row)?, now))
}
