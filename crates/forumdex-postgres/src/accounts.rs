//! [`PgAccountStore`]: accounts, keys, allowlists and the ledger on PostgreSQL, shared by
//! every node of a deployment (schema in [`crate::schema`]).
//!
//! Every write is one transaction. The debit ([`AccountStore::charge`]) runs at read
//! committed: a conditional `UPDATE ... WHERE credits >= 1` that waits for the row's lock and
//! checks its condition again on the committed balance, plus a ledger row whose unique
//! request id makes a second charge of one request impossible, whichever node tries it
//! (the loser of such a race runs again and finds the first charge). Every other write
//! runs serializable, as the embedded store's one writer at a time does. Nothing is cached:
//! a key revoked through one node is refused by every node at its next request.

mod developer;

use chrono::{DateTime, Utc};
use forumdex_accounts::allowlist::{AllowEntry, Allowlist};
use forumdex_accounts::rules::{
    ACCOUNT_CREATE_OPERATION, CREDITS_ADD_OPERATION, authenticated, balance_too_large,
    ensure_not_revoked, max_balance_before_adding, mint_key, renewal, repeated_charge,
    validate_amount, validate_charge,
};
use forumdex_accounts::stored::{account_id, corrupt, key_id, millis, to_i64, to_u64};
use forumdex_accounts::time::from_unix_millis;
use forumdex_accounts::{
    Account, AccountError, AccountId, AccountStore, ApiKey, AuthError, AuthenticatedKey,
    CreatedKey, Email, KeyHash, KeyId, KeyInfo, KeyLifetime, LedgerEntry, NewKey,
};
use postgres::GenericClient;
use postgres::Row;

use crate::pool::{Failure, FromDb, Isolation, PgError, PgPool};
use crate::schema;

/// A step's result inside a transaction of this store.
type Step<T> = Result<T, Failure<AccountError>>;

/// The PostgreSQL [`AccountStore`] (and [`forumdex_accounts::DeveloperStore`]). Cheap to
/// share behind an `Arc`; safe from many threads.
#[derive(Debug)]
pub struct PgAccountStore {
    pool: PgPool,
}

impl PgAccountStore {
    /// Connects to the database at `url`, whose schema must be this binary's (see
    /// [`schema::migrate`]).
    pub fn open(url: &str) -> Result<Self, PgError> {
        let pool = PgPool::connect(url)?;
        schema::check(&pool)?;
        Ok(Self { pool })
    }

    /// The store over `pool`, whose schema must be this binary's.
    pub fn with_pool(pool: PgPool) -> Result<Self, PgError> {
        schema::check(&pool)?;
        Ok(Self { pool })
    }

    /// Runs `work` in a serializable transaction (run again when it lost a race).
    fn write<T, E: FromDb>(
        &self,
        work: impl FnMut(&mut postgres::Transaction<'_>) -> Result<T, Failure<E>>,
    ) -> Result<T, E> {
        self.pool.transaction(Isolation::Serializable, work)
    }

    /// Runs `work` on one consistent snapshot, read only.
    fn read<T, E: FromDb>(
        &self,
        work: impl FnMut(&mut postgres::Transaction<'_>) -> Result<T, Failure<E>>,
    ) -> Result<T, E> {
        self.pool.transaction(Isolation::Snapshot, work)
    }
}

fn require_account(db: &mut impl GenericClient, id: AccountId) -> Step<()> {
    match db.query_opt("SELECT 1 FROM accounts WHERE id = $1", &[&id.get()])? {
        Some(_) => Ok(()),
        None => Err(AccountError::AccountNotFound(id).into()),
    }
}

/// A key's columns, then its allowlist in order, as [`decode_key`] reads them.
const KEY_SELECT: &str = "SELECT k.key_id, k.account_id, k.name, k.lifetime_days, k.created_at,
    k.expires_at, k.revoked_at, k.secret_prefix,
    ARRAY(SELECT a.entry FROM key_allow a WHERE a.key_id = k.key_id ORDER BY a.position),
    k.secret_sha256
    FROM api_keys k";

fn decode_key(row: &Row) -> Result<KeyInfo, AccountError> {
    let key_id = key_id(row.get(0))?;
    let lifetime = match row.get::<_, Option<i32>>(3) {
        None => KeyLifetime::None,
        Some(days) => u32::try_from(days)
            .ok()
            .and_then(KeyLifetime::from_days)
            .ok_or_else(|| corrupt(format!("lifetime of {days} days")))?,
    };
    let mut entries = Vec::new();
    for text in row.get::<_, Vec<String>>(8) {
        entries
            .push(AllowEntry::parse(&text).map_err(|_| corrupt(format!("allow entry {text:?}")))?);
    }
    Ok(KeyInfo {
        key_id,
        account_id: account_id(row.get(1))?,
        name: row.get(2),
        secret_prefix: row.get(7),
        lifetime,
        created_at: from_unix_millis(row.get(4)),
        expires_at: row.get::<_, Option<i64>>(5).map(from_unix_millis),
        revoked_at: row.get::<_, Option<i64>>(6).map(from_unix_millis),
        allow: Allowlist::from_entries(entries),
    })
}

fn load_key(db: &mut impl GenericClient, key: &KeyId) -> Step<KeyInfo> {
    let row = db
        .query_opt(
            &format!("{KEY_SELECT} WHERE k.key_id = $1"),
            &[&key.as_str()],
        )?
        .ok_or_else(|| AccountError::KeyNotFound(key.clone()))?;
    Ok(decode_key(&row)?)
}

/// Loads a key for a change that a revoked key may not undergo.
fn load_unrevoked_key(db: &mut impl GenericClient, key: &KeyId) -> Step<KeyInfo> {
    let info = load_key(db, key)?;
    ensure_not_revoked(&info)?;
    Ok(info)
}

fn load_allowlist(db: &mut impl GenericClient, key: &KeyId) -> Step<Allowlist> {
    Ok(load_key(db, key)?.allow)
}

/// A ledger row to append.
struct NewLedgerRow<'a> {
    account: AccountId,
    key: Option<&'a KeyId>,
    request_id: Option<&'a str>,
    operation: &'a str,
    amount: i64,
    balance_after: i64,
    now: DateTime<Utc>,
}

fn insert_ledger(db: &mut impl GenericClient, row: NewLedgerRow<'_>) -> Step<()> {
    db.execute(
        "INSERT INTO ledger (account_id, key_id, request_id, operation, amount, balance_after,
           created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            &row.account.get(),
            &row.key.map(KeyId::as_str),
            &row.request_id,
            &row.operation,
            &row.amount,
            &row.balance_after,
            &millis(row.now),
        ],
    )?;
    Ok(())
}

/// The ledger of `account`: all of it oldest first, or the newest `newest` rows newest first.
fn ledger_rows(
    db: &mut impl GenericClient,
    account: AccountId,
    newest: Option<u32>,
) -> Step<Vec<LedgerEntry>> {
    require_account(db, account)?;
    let select = "SELECT id, key_id, request_id, operation, amount, balance_after, created_at
                  FROM ledger WHERE account_id = $1";
    let rows = match newest {
        None => db.query(&format!("{select} ORDER BY id"), &[&account.get()])?,
        Some(limit) => db.query(
            &format!("{select} ORDER BY id DESC LIMIT $2"),
            &[&account.get(), &i64::from(limit)],
        )?,
    };
    let mut entries = Vec::with_capacity(rows.len());
    for row in rows {
        entries.push(LedgerEntry {
            id: row.get(0),
            account_id: account,
            key_id: row.get::<_, Option<&str>>(1).map(key_id).transpose()?,
            request_id: row.get(2),
            operation: row.get(3),
            amount: row.get(4),
            balance_after: to_u64(row.get(5))?,
            created_at: from_unix_millis(row.get(6)),
        });
    }
    Ok(entries)
}

/// Inserts an account holding `credits` (no ledger row); returns its id.
fn insert_account(
    db: &mut impl GenericClient,
    email: &Email,
    credits: i64,
    now: DateTime<Utc>,
) -> Step<AccountId> {
    let row = db.query_one(
        "INSERT INTO accounts (email, credits, created_at) VALUES ($1, $2, $3) RETURNING id",
        &[&email.as_str(), &credits, &millis(now)],
    )?;
    Ok(account_id(row.get(0))?)
}

impl AccountStore for PgAccountStore {
    fn create_account(
        &self,
        email: &Email,
        initial_credits: u64,
        now: DateTime<Utc>,
    ) -> Result<AccountId, AccountError> {
        validate_amount(initial_credits, true)?;
        let credits = to_i64(initial_credits)?;
        self.write(|tx| {
            let id = insert_account(tx, email, credits, now)?;
            if credits > 0 {
                insert_ledger(
                    tx,
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
        })
    }

    fn account(&self, id: AccountId) -> Result<Account, AccountError> {
        self.read(|tx| {
            let row = tx
                .query_opt(
                    "SELECT email, credits, created_at FROM accounts WHERE id = $1",
                    &[&id.get()],
                )?
                .ok_or(AccountError::AccountNotFound(id))?;
            let email: &str = row.get(0);
            Ok(Account {
                id,
                email: Email::parse(email).map_err(|_| corrupt(format!("email {email:?}")))?,
                credits: to_u64(row.get(1))?,
                created_at: from_unix_millis(row.get(2)),
            })
        })
    }

    fn balance(&self, id: AccountId) -> Result<u64, AccountError> {
        self.read(|tx| {
            let row = tx
                .query_opt("SELECT credits FROM accounts WHERE id = $1", &[&id.get()])?
                .ok_or(AccountError::AccountNotFound(id))?;
            Ok(to_u64(row.get(0))?)
        })
    }

    fn add_credits(
        &self,
        id: AccountId,
        amount: u64,
        now: DateTime<Utc>,
    ) -> Result<u64, AccountError> {
        validate_amount(amount, false)?;
        let ceiling = to_i64(max_balance_before_adding(amount))?;
        let amount = to_i64(amount)?;
        self.write(|tx| {
            let balance: Option<i64> = tx
                .query_opt(
                    "UPDATE accounts SET credits = credits + $1
                     WHERE id = $2 AND credits <= $3 RETURNING credits",
                    &[&amount, &id.get(), &ceiling],
                )?
                .map(|row| row.get(0));
            let Some(balance) = balance else {
                require_account(tx, id)?;
                return Err(balance_too_large().into());
            };
            insert_ledger(
                tx,
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
        })
    }

    fn charge(
        &self,
        account: AccountId,
        key_id: &KeyId,
        request_id: &str,
        operation: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>, AccountError> {
        validate_charge(request_id, operation)?;
        self.pool.transaction(Isolation::ReadCommitted, |tx| {
            let earlier = tx.query_opt(
                "SELECT account_id, balance_after FROM ledger WHERE request_id = $1",
                &[&request_id],
            )?;
            if let Some(row) = earlier {
                let (charged, balance_after) = (account_id(row.get(0))?, to_u64(row.get(1))?);
                return Ok(Some(repeated_charge(
                    request_id,
                    account,
                    charged,
                    balance_after,
                )?));
            }
            let remaining: Option<i64> = tx
                .query_opt(
                    "UPDATE accounts SET credits = credits - 1
                     WHERE id = $1 AND credits >= 1 RETURNING credits",
                    &[&account.get()],
                )?
                .map(|row| row.get(0));
            let Some(remaining) = remaining else {
                require_account(tx, account)?;
                return Ok(None);
            };
            insert_ledger(
                tx,
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
        })
    }

    fn ledger(&self, id: AccountId) -> Result<Vec<LedgerEntry>, AccountError> {
        self.read(|tx| ledger_rows(tx, id, None))
    }

    fn create_key(
        &self,
        account: AccountId,
        new: &NewKey,
        now: DateTime<Utc>,
    ) -> Result<CreatedKey, AccountError> {
        let minted = mint_key(new, now)?;
        let key_id = &minted.key_id;
        let lifetime_days = minted.lifetime.days().map(i32::try_from).transpose();
        let lifetime_days = lifetime_days.map_err(|_| corrupt("key lifetime out of range"))?;
        let info = self.write(|tx| {
            require_account(tx, account)?;
            tx.execute(
                "INSERT INTO api_keys
                   (key_id, account_id, name, secret_sha256, lifetime_days, created_at, expires_at,
                    secret_prefix)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                &[
                    &key_id.as_str(),
                    &account.get(),
                    &minted.name,
                    &minted.hash.as_bytes().as_slice(),
                    &lifetime_days,
                    &millis(minted.created_at),
                    &minted.expires_at.map(millis),
                    &minted.secret_prefix,
                ],
            )?;
            for (position, entry) in new.allow.entries().iter().enumerate() {
                let position = i32::try_from(position).map_err(|_| corrupt("allowlist size"))?;
                tx.execute(
                    "INSERT INTO key_allow (key_id, entry, position) VALUES ($1, $2, $3)",
                    &[&key_id.as_str(), &entry.to_string(), &position],
                )?;
            }
            load_key(tx, key_id)
        })?;
        Ok(CreatedKey {
            info,
            secret: minted.secret,
        })
    }

    fn key(&self, key_id: &KeyId) -> Result<KeyInfo, AccountError> {
        self.read(|tx| load_key(tx, key_id))
    }

    fn list_keys(&self, account: AccountId) -> Result<Vec<KeyInfo>, AccountError> {
        self.read(|tx| {
            require_account(tx, account)?;
            let rows = tx.query(
                &format!("{KEY_SELECT} WHERE k.account_id = $1 ORDER BY k.created_at, k.issued"),
                &[&account.get()],
            )?;
            let keys = rows.iter().map(decode_key).collect::<Result<_, _>>()?;
            Ok(keys)
        })
    }

    fn revoke_key(&self, key_id: &KeyId, now: DateTime<Utc>) -> Result<KeyInfo, AccountError> {
        self.write(|tx| {
            load_key(tx, key_id)?;
            tx.execute(
                "UPDATE api_keys SET revoked_at = $1 WHERE key_id = $2 AND revoked_at IS NULL",
                &[&millis(now), &key_id.as_str()],
            )?;
            load_key(tx, key_id)
        })
    }

    fn renew_key(
        &self,
        key_id: &KeyId,
        lifetime: Option<KeyLifetime>,
        now: DateTime<Utc>,
    ) -> Result<KeyInfo, AccountError> {
        self.write(|tx| {
            let info = load_unrevoked_key(tx, key_id)?;
            let (lifetime, expires_at) = renewal(&info, lifetime, now);
            let days = lifetime.days().map(i32::try_from).transpose();
            let days = days.map_err(|_| corrupt("key lifetime out of range"))?;
            tx.execute(
                "UPDATE api_keys SET lifetime_days = $1, expires_at = $2 WHERE key_id = $3",
                &[&days, &expires_at.map(millis), &key_id.as_str()],
            )?;
            load_key(tx, key_id)
        })
    }

    fn set_key_expiry(
        &self,
        key_id: &KeyId,
        at: Option<DateTime<Utc>>,
    ) -> Result<KeyInfo, AccountError> {
        self.write(|tx| {
            load_unrevoked_key(tx, key_id)?;
            tx.execute(
                "UPDATE api_keys SET expires_at = $1 WHERE key_id = $2",
                &[&at.map(millis), &key_id.as_str()],
            )?;
            load_key(tx, key_id)
        })
    }

    fn update_allowlist(
        &self,
        key_id: &KeyId,
        add: &[AllowEntry],
        remove: &[AllowEntry],
    ) -> Result<Allowlist, AccountError> {
        self.write(|tx| {
            load_key(tx, key_id)?;
            for entry in add {
                tx.execute(
                    "INSERT INTO key_allow (key_id, entry, position)
                     VALUES ($1, $2,
                       (SELECT COALESCE(MAX(position), -1) + 1 FROM key_allow WHERE key_id = $1))
                     ON CONFLICT (key_id, entry) DO NOTHING",
                    &[&key_id.as_str(), &entry.to_string()],
                )?;
            }
            for entry in remove {
                tx.execute(
                    "DELETE FROM key_allow WHERE key_id = $1 AND entry = $2",
                    &[&key_id.as_str(), &entry.to_string()],
                )?;
            }
            load_allowlist(tx, key_id)
        })
    }

    fn ping(&self) -> Result<(), AccountError> {
        self.pool
            .with(|client| client.query_opt("SELECT 1 FROM accounts WHERE id = 0", &[]))
            .map(drop)
            .map_err(AccountError::storage)
    }

    fn authenticate(
        &self,
        secret: &str,
        now: DateTime<Utc>,
    ) -> Result<AuthenticatedKey, AuthError> {
        let key = ApiKey::parse(secret)?;
        let hash = key.hash();
        // One statement: the lookup goes through the unique index on the hash of a secret
        // with 190 random bits; the stored hash is compared again in constant time below.
        let found = self
            .pool
            .with(|client| {
                client.query_opt(
                    &format!("{KEY_SELECT} WHERE k.secret_sha256 = $1"),
                    &[&hash.as_bytes().as_slice()],
                )
            })
            .map_err(|err| AuthError::Storage(AccountError::storage(err)))?;
        let Some(row) = found else {
            return Err(AuthError::Unknown);
        };
        let stored: &[u8] = row.get(9);
        if !KeyHash::from_slice(stored).is_some_and(|stored| stored == hash) {
            return Err(AuthError::Unknown);
        }
        let info = decode_key(&row).map_err(AuthError::Storage)?;
        authenticated(info, now)
    }
}
