//! [`DeveloperStore`] on the accounts database (schema version 2).

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use forumdex_accounts::developer::{
    Activity, DeveloperError, DeveloperStore, Login, NewTopup, PaymentEvent, PaymentOutcome,
    SIGNUP_OPERATION, Session, TokenHash, TokenPurpose, Topup, TopupStatus, UsageCount,
};
use forumdex_accounts::ids::{AccountId, KeyId};
use forumdex_accounts::payments::{
    BalanceChange, KeyedCredit, PaymentFacts, Write, operator_credit_key, plan_event,
    plan_keyed_credit, signup_credit_key,
};
use forumdex_accounts::rules::{CREDITS_ADD_OPERATION, validate_amount, validate_name};
use forumdex_accounts::store::{AccountError, Email, LedgerEntry};
use forumdex_accounts::stored::{account_id, corrupt, key_id, millis, to_i64, to_u64};
use forumdex_accounts::time::from_unix_millis;

use super::{NewLedgerRow, SqliteAccountStore, insert_ledger, ledger_rows, require_account};

/// The tables version 2 adds (instants in Unix milliseconds, days as `YYYY-MM-DD`).
pub(super) const SCHEMA_V2: &str = "
ALTER TABLE api_keys ADD COLUMN secret_prefix TEXT;
CREATE TABLE logins (
    account_id    INTEGER PRIMARY KEY REFERENCES accounts (id),
    email         TEXT    NOT NULL,
    email_key     TEXT    NOT NULL UNIQUE,
    password_hash TEXT    NOT NULL,
    verified_at   INTEGER,
    created_at    INTEGER NOT NULL
);
CREATE TABLE login_tokens (
    token_sha256 BLOB    PRIMARY KEY,
    purpose      TEXT    NOT NULL,
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX login_tokens_by_account ON login_tokens (account_id, purpose);
CREATE TABLE sessions (
    token_sha256 BLOB    PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX sessions_by_account ON sessions (account_id);
CREATE TABLE activity (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    kind       TEXT    NOT NULL,
    detail     TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX activity_by_account ON activity (account_id, id);
CREATE TABLE usage_daily (
    key_id   TEXT    NOT NULL REFERENCES api_keys (key_id),
    day      TEXT    NOT NULL,
    endpoint TEXT    NOT NULL,
    status   INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    last_at  INTEGER NOT NULL,
    PRIMARY KEY (key_id, day, endpoint, status)
);
CREATE TABLE topups (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id       INTEGER NOT NULL REFERENCES accounts (id),
    credits          INTEGER NOT NULL CHECK (credits >= 1),
    amount_cents     INTEGER NOT NULL CHECK (amount_cents >= 0),
    currency         TEXT    NOT NULL,
    provider         TEXT    NOT NULL,
    reference        TEXT    UNIQUE,
    status           TEXT    NOT NULL,
    payment_intent   TEXT,
    refunded_cents   INTEGER NOT NULL DEFAULT 0,
    refunded_credits INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX topups_by_account ON topups (account_id, id);
CREATE INDEX topups_by_payment ON topups (payment_intent);
CREATE TABLE payment_events (
    event_id    TEXT    PRIMARY KEY,
    topup_id    INTEGER,
    outcome     TEXT    NOT NULL,
    received_at INTEGER NOT NULL
);
";

/// How addresses are compared: trimmed, lower case.
fn email_key(email: &Email) -> String {
    email.as_str().to_lowercase()
}

fn storage(err: rusqlite::Error) -> DeveloperError {
    DeveloperError::Account(AccountError::storage(err))
}

const LOGIN_COLUMNS: &str = "account_id, email, password_hash, verified_at, created_at";

fn read_login(
    row: &rusqlite::Row<'_>,
) -> rusqlite::Result<(i64, String, String, Option<i64>, i64)> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
    ))
}

fn decode_login(
    (account, email, password_hash, verified_at, created_at): (
        i64,
        String,
        String,
        Option<i64>,
        i64,
    ),
) -> Result<Login, DeveloperError> {
    Ok(Login {
        account_id: account_id(account)?,
        email: Email::parse(&email).map_err(|_| corrupt(format!("login email {email:?}")))?,
        password_hash,
        verified_at: verified_at.map(from_unix_millis),
        created_at: from_unix_millis(created_at),
    })
}

const TOPUP_COLUMNS: &str = "id, account_id, credits, amount_cents, currency, provider, reference,
    status, payment_intent, refunded_cents, refunded_credits, created_at, updated_at";

fn read_topup(conn: &Connection, id: i64) -> Result<Topup, DeveloperError> {
    conn.query_row(
        &format!("SELECT {TOPUP_COLUMNS} FROM topups WHERE id = ?1"),
        params![id],
        topup_row,
    )
    .optional()
    .map_err(storage)?
    .ok_or(DeveloperError::TopupNotFound(id))?
}

fn topup_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<Topup, DeveloperError>> {
    let status: String = row.get(7)?;
    let values = (
        row.get::<_, i64>(1)?,
        row.get::<_, i64>(2)?,
        row.get::<_, i64>(3)?,
        row.get::<_, i64>(9)?,
        row.get::<_, i64>(10)?,
    );
    let id: i64 = row.get(0)?;
    let (currency, provider, reference, payment_intent) =
        (row.get(4)?, row.get(5)?, row.get(6)?, row.get(8)?);
    let (created_at, updated_at): (i64, i64) = (row.get(11)?, row.get(12)?);
    Ok((|| {
        let (account, credits, amount_cents, refunded_cents, refunded_credits) = values;
        Ok(Topup {
            id,
            account_id: account_id(account)?,
            credits: to_u64(credits)?,
            amount_cents: to_u64(amount_cents)?,
            currency,
            provider,
            reference,
            status: TopupStatus::parse(&status)
                .ok_or_else(|| corrupt(format!("top-up status {status:?}")))?,
            payment_intent,
            refunded_cents: to_u64(refunded_cents)?,
            refunded_credits: to_u64(refunded_credits)?,
            created_at: from_unix_millis(created_at),
            updated_at: from_unix_millis(updated_at),
        })
    })())
}

/// The payment planner's questions, answered inside a write transaction.
struct Facts<'a>(&'a Connection);

impl PaymentFacts for Facts<'_> {
    type Error = DeveloperError;

    fn event_seen(&mut self, event_id: &str) -> Result<bool, DeveloperError> {
        self.0
            .query_row(
                "SELECT 1 FROM payment_events WHERE event_id = ?1",
                params![event_id],
                |_| Ok(()),
            )
            .optional()
            .map(|seen| seen.is_some())
            .map_err(storage)
    }

    fn topup_by_reference(&mut self, reference: &str) -> Result<Option<i64>, DeveloperError> {
        self.0
            .query_row(
                "SELECT id FROM topups WHERE reference = ?1",
                params![reference],
                |row| row.get(0),
            )
            .optional()
            .map_err(storage)
    }

    fn topup(&mut self, id: i64) -> Result<Option<Topup>, DeveloperError> {
        match read_topup(self.0, id) {
            Ok(topup) => Ok(Some(topup)),
            Err(DeveloperError::TopupNotFound(_)) => Ok(None),
            Err(err) => Err(err),
        }
    }

    fn paid_topup_by_payment(
        &mut self,
        payment_intent: &str,
    ) -> Result<Option<i64>, DeveloperError> {
        self.0
            .query_row(
                "SELECT id FROM topups WHERE payment_intent = ?1 AND status = 'paid'",
                params![payment_intent],
                |row| row.get(0),
            )
            .optional()
            .map_err(storage)
    }

    fn balance(&mut self, account: AccountId) -> Result<Option<u64>, DeveloperError> {
        let credits: Option<i64> = self
            .0
            .query_row(
                "SELECT credits FROM accounts WHERE id = ?1",
                params![account.get()],
                |row| row.get(0),
            )
            .optional()
            .map_err(storage)?;
        Ok(credits.map(to_u64).transpose()?)
    }

    fn ledger_owner(&mut self, key: &str) -> Result<Option<AccountId>, DeveloperError> {
        let owner: Option<i64> = self
            .0
            .query_row(
                "SELECT account_id FROM ledger WHERE request_id = ?1",
                params![key],
                |row| row.get(0),
            )
            .optional()
            .map_err(storage)?;
        Ok(owner.map(account_id).transpose()?)
    }
}

/// Carries out a payment plan's writes, in order, inside `tx`.
fn carry_out(tx: &Connection, writes: &[Write], now: DateTime<Utc>) -> Result<(), DeveloperError> {
    for write in writes {
        match write {
            Write::SetStatus {
                topup_id,
                status,
                payment_intent,
                reference,
            } => {
                tx.execute(
                    "UPDATE topups SET status = ?1, payment_intent = COALESCE(?2, payment_intent),
                       reference = COALESCE(reference, ?3), updated_at = ?4 WHERE id = ?5",
                    params![
                        status.as_str(),
                        payment_intent,
                        reference,
                        millis(now),
                        topup_id
                    ],
                )
                .map_err(storage)?;
            }
            Write::Balance(change) => change_balance(tx, change, now)?,
            Write::RecordRefund {
                topup_id,
                refunded_cents,
                credits_taken,
            } => {
                tx.execute(
                    "UPDATE topups SET refunded_cents = ?1, refunded_credits = refunded_credits + ?2,
                       updated_at = ?3 WHERE id = ?4",
                    params![
                        to_i64(*refunded_cents)?,
                        to_i64(*credits_taken)?,
                        millis(now),
                        topup_id
                    ],
                )
                .map_err(storage)?;
            }
            Write::Activity {
                account,
                kind,
                detail,
            } => {
                tx.execute(
                    "INSERT INTO activity (account_id, kind, detail, created_at)
                     VALUES (?1, ?2, ?3, ?4)",
                    params![account.get(), kind, detail, millis(now)],
                )
                .map_err(storage)?;
            }
            Write::RecordEvent {
                event_id,
                topup_id,
                outcome,
            } => {
                tx.execute(
                    "INSERT INTO payment_events (event_id, topup_id, outcome, received_at)
                     VALUES (?1, ?2, ?3, ?4)",
                    params![event_id, topup_id, outcome, millis(now)],
                )
                .map_err(storage)?;
            }
        }
    }
    Ok(())
}

/// A planned balance change and its ledger row; the balance it leaves must be the planned one.
fn change_balance(
    tx: &Connection,
    change: &BalanceChange,
    now: DateTime<Utc>,
) -> Result<(), DeveloperError> {
    let after: i64 = tx
        .query_row(
            "UPDATE accounts SET credits = credits + ?1 WHERE id = ?2 RETURNING credits",
            params![change.amount, change.account.get()],
            |row| row.get(0),
        )
        .map_err(storage)?;
    if to_u64(after)? != change.balance_after {
        return Err(corrupt(format!(
            "account {} holds {after} credits, {} were planned",
            change.account, change.balance_after
        ))
        .into());
    }
    insert_ledger(
        tx,
        NewLedgerRow {
            account: change.account,
            key: None,
            request_id: Some(&change.key),
            operation: change.operation,
            amount: change.amount,
            balance_after: after,
            now,
        },
    )?;
    Ok(())
}

/// Credits `amount` under the ledger `key` unless it was used before; the balance after, and
/// whether it was credited now.
fn credit_keyed(
    tx: &Connection,
    account: AccountId,
    amount: u64,
    operation: &'static str,
    key: &str,
    now: DateTime<Utc>,
) -> Result<(u64, bool), DeveloperError> {
    match plan_keyed_credit(&mut Facts(tx), account, amount, operation, key)? {
        KeyedCredit::Apply(change) => {
            change_balance(tx, &change, now)?;
            Ok((change.balance_after, true))
        }
        KeyedCredit::AlreadyApplied => {
            let balance = Facts(tx).balance(account)?;
            Ok((
                balance.ok_or(AccountError::AccountNotFound(account))?,
                false,
            ))
        }
    }
}

impl DeveloperStore for SqliteAccountStore {
    fn register(
        &self,
        email: &Email,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<AccountId, DeveloperError> {
        self.write_with(|tx| {
            let taken: Option<i64> = tx
                .query_row(
                    "SELECT account_id FROM logins WHERE email_key = ?1",
                    params![email_key(email)],
                    |row| row.get(0),
                )
                .optional()
                .map_err(storage)?;
            if taken.is_some() {
                return Err(DeveloperError::EmailTaken);
            }
            tx.execute(
                "INSERT INTO accounts (email, credits, created_at) VALUES (?1, 0, ?2)",
                params![email.as_str(), millis(now)],
            )
            .map_err(storage)?;
            let id = account_id(tx.last_insert_rowid())?;
            tx.execute(
                "INSERT INTO logins (account_id, email, email_key, password_hash, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    id.get(),
                    email.as_str(),
                    email_key(email),
                    password_hash,
                    millis(now)
                ],
            )
            .map_err(storage)?;
            Ok(id)
        })
    }

    fn login_by_email(&self, email: &Email) -> Result<Option<Login>, DeveloperError> {
        self.read_with(|conn| {
            conn.query_row(
                &format!("SELECT {LOGIN_COLUMNS} FROM logins WHERE email_key = ?1"),
                params![email_key(email)],
                read_login,
            )
            .optional()
            .map_err(storage)?
            .map(decode_login)
            .transpose()
        })
    }

    fn login(&self, account: AccountId) -> Result<Option<Login>, DeveloperError> {
        self.read_with(|conn| {
            conn.query_row(
                &format!("SELECT {LOGIN_COLUMNS} FROM logins WHERE account_id = ?1"),
                params![account.get()],
                read_login,
            )
            .optional()
            .map_err(storage)?
            .map(decode_login)
            .transpose()
        })
    }

    fn set_password(&self, account: AccountId, password_hash: &str) -> Result<(), DeveloperError> {
        self.write_with(|tx| {
            let changed = tx
                .execute(
                    "UPDATE logins SET password_hash = ?1 WHERE account_id = ?2",
                    params![password_hash, account.get()],
                )
                .map_err(storage)?;
            if changed == 0 {
                return Err(AccountError::AccountNotFound(account).into());
            }
            Ok(())
        })
    }

    fn mark_verified(
        &self,
        account: AccountId,
        signup_credits: u64,
        now: DateTime<Utc>,
    ) -> Result<bool, DeveloperError> {
        self.write_with(|tx| {
            let changed = tx
                .execute(
                    "UPDATE logins SET verified_at = ?1 WHERE account_id = ?2 AND verified_at IS NULL",
                    params![millis(now), account.get()],
                )
                .map_err(storage)?;
            if changed == 0 {
                require_account(tx, account)?;
                return Ok(false);
            }
            if signup_credits > 0 {
                let key = signup_credit_key(account);
                credit_keyed(tx, account, signup_credits, SIGNUP_OPERATION, &key, now)?;
            }
            Ok(true)
        })
    }

    fn issue_token(
        &self,
        purpose: TokenPurpose,
        token: &TokenHash,
        account: AccountId,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<(), DeveloperError> {
        self.write_with(|tx| {
            require_account(tx, account)?;
            tx.execute(
                "DELETE FROM login_tokens WHERE account_id = ?1 AND purpose = ?2",
                params![account.get(), purpose.as_str()],
            )
            .map_err(storage)?;
            tx.execute(
                "INSERT INTO login_tokens (token_sha256, purpose, account_id, created_at, expires_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    token.0.as_slice(),
                    purpose.as_str(),
                    account.get(),
                    millis(now),
                    millis(expires_at)
                ],
            )
            .map_err(storage)?;
            Ok(())
        })
    }

    fn consume_token(
        &self,
        purpose: TokenPurpose,
        token: &TokenHash,
        now: DateTime<Utc>,
    ) -> Result<Option<AccountId>, DeveloperError> {
        self.write_with(|tx| {
            let row: Option<(i64, i64)> = tx
                .query_row(
                    "DELETE FROM login_tokens WHERE token_sha256 = ?1 AND purpose = ?2
                     RETURNING account_id, expires_at",
                    params![token.0.as_slice(), purpose.as_str()],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()
                .map_err(storage)?;
            match row {
                Some((account, expires_at)) if millis(now) < expires_at => {
                    Ok(Some(account_id(account)?))
                }
                _ => Ok(None),
            }
        })
    }

    fn open_session(
        &self,
        token: &TokenHash,
        account: AccountId,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<(), DeveloperError> {
        self.write_with(|tx| {
            require_account(tx, account)?;
            tx.execute(
                "INSERT INTO sessions (token_sha256, account_id, created_at, last_seen_at, expires_at)
                 VALUES (?1, ?2, ?3, ?3, ?4)",
                params![token.0.as_slice(), account.get(), millis(now), millis(expires_at)],
            )
            .map_err(storage)?;
            Ok(())
        })
    }

    fn touch_session(
        &self,
        token: &TokenHash,
        now: DateTime<Utc>,
        idle: Duration,
    ) -> Result<Option<Session>, DeveloperError> {
        self.write_with(|tx| {
            let row: Option<(i64, i64, i64, i64)> = tx
                .query_row(
                    "SELECT account_id, created_at, last_seen_at, expires_at FROM sessions
                     WHERE token_sha256 = ?1",
                    params![token.0.as_slice()],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
                )
                .optional()
                .map_err(storage)?;
            let Some((account, created_at, last_seen_at, expires_at)) = row else {
                return Ok(None);
            };
            let now_ms = millis(now);
            let idle_ms = idle.num_milliseconds();
            if now_ms >= expires_at || now_ms.saturating_sub(last_seen_at) >= idle_ms {
                tx.execute(
                    "DELETE FROM sessions WHERE token_sha256 = ?1",
                    params![token.0.as_slice()],
                )
                .map_err(storage)?;
                return Ok(None);
            }
            tx.execute(
                "UPDATE sessions SET last_seen_at = ?1 WHERE token_sha256 = ?2",
                params![now_ms, token.0.as_slice()],
            )
            .map_err(storage)?;
            Ok(Some(Session {
                account_id: account_id(account)?,
                created_at: from_unix_millis(created_at),
                last_seen_at: now,
                expires_at: from_unix_millis(expires_at),
            }))
        })
    }

    fn close_session(&self, token: &TokenHash) -> Result<(), DeveloperError> {
        self.write_with(|tx| {
            tx.execute(
                "DELETE FROM sessions WHERE token_sha256 = ?1",
                params![token.0.as_slice()],
            )
            .map_err(storage)?;
            Ok(())
        })
    }

    fn purge_expired(&self, now: DateTime<Utc>, idle: Duration) -> Result<u64, DeveloperError> {
        self.write_with(|tx| {
            let now_ms = millis(now);
            let sessions = tx
                .execute(
                    "DELETE FROM sessions WHERE expires_at <= ?1 OR last_seen_at <= ?2",
                    params![now_ms, now_ms.saturating_sub(idle.num_milliseconds())],
                )
                .map_err(storage)?;
            let tokens = tx
                .execute(
                    "DELETE FROM login_tokens WHERE expires_at <= ?1",
                    params![now_ms],
                )
                .map_err(storage)?;
            Ok((sessions + tokens) as u64)
        })
    }

    fn close_sessions(&self, account: AccountId) -> Result<u64, DeveloperError> {
        self.write_with(|tx| {
            let closed = tx
                .execute(
                    "DELETE FROM sessions WHERE account_id = ?1",
                    params![account.get()],
                )
                .map_err(storage)?;
            Ok(closed as u64)
        })
    }

    fn record_activity(
        &self,
        account: AccountId,
        kind: &str,
        detail: &str,
        now: DateTime<Utc>,
    ) -> Result<(), DeveloperError> {
        self.write_with(|tx| {
            tx.execute(
                "INSERT INTO activity (account_id, kind, detail, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![account.get(), kind, detail, millis(now)],
            )
            .map_err(storage)?;
            Ok(())
        })
    }

    fn activity(&self, account: AccountId, limit: u32) -> Result<Vec<Activity>, DeveloperError> {
        self.read_with(|conn| {
            let mut stmt = conn
                .prepare(
                    "SELECT created_at, kind, detail FROM activity WHERE account_id = ?1
                     ORDER BY id DESC LIMIT ?2",
                )
                .map_err(storage)?;
            let rows = stmt
                .query_map(params![account.get(), limit], |row| {
                    Ok(Activity {
                        at: from_unix_millis(row.get(0)?),
                        kind: row.get(1)?,
                        detail: row.get(2)?,
                    })
                })
                .map_err(storage)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(storage)
        })
    }

    fn record_usage(&self, counts: &[UsageCount]) -> Result<(), DeveloperError> {
        if counts.is_empty() {
            return Ok(());
        }
        self.write_with(|tx| {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT INTO usage_daily (key_id, day, endpoint, status, count, last_at)
                     SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS
                       (SELECT 1 FROM api_keys WHERE key_id = ?1)
                     ON CONFLICT (key_id, day, endpoint, status) DO UPDATE SET
                       count = count + excluded.count,
                       last_at = MAX(last_at, excluded.last_at)",
                )
                .map_err(storage)?;
            for count in counts {
                stmt.execute(params![
                    count.key_id.as_str(),
                    count.day.to_string(),
                    count.endpoint,
                    count.status,
                    to_i64(count.count)?,
                    millis(count.last_at)
                ])
                .map_err(storage)?;
            }
            Ok(())
        })
    }

    fn usage(
        &self,
        account: AccountId,
        since: NaiveDate,
    ) -> Result<Vec<UsageCount>, DeveloperError> {
        self.read_with(|conn| {
            let mut stmt = conn
                .prepare(
                    "SELECT u.key_id, u.day, u.endpoint, u.status, u.count, u.last_at
                     FROM usage_daily u JOIN api_keys k ON k.key_id = u.key_id
                     WHERE k.account_id = ?1 AND u.day >= ?2
                     ORDER BY u.day, u.key_id, u.endpoint, u.status",
                )
                .map_err(storage)?;
            type Row = (String, String, String, u16, i64, i64);
            let rows = stmt
                .query_map(params![account.get(), since.to_string()], |row| {
                    Ok((
                        row.get(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        row.get(4)?,
                        row.get(5)?,
                    ))
                })
                .map_err(storage)?
                .collect::<Result<Vec<Row>, _>>()
                .map_err(storage)?;
            rows.into_iter()
                .map(|(key, day, endpoint, status, count, last_at)| {
                    Ok(UsageCount {
                        key_id: key_id(&key)?,
                        day: day
                            .parse()
                            .map_err(|_| corrupt(format!("usage day {day:?}")))?,
                        endpoint,
                        status,
                        count: to_u64(count)?,
                        last_at: from_unix_millis(last_at),
                    })
                })
                .collect()
        })
    }

    fn rename_key(
        &self,
        key: &KeyId,
        name: Option<&str>,
    ) -> Result<Option<String>, DeveloperError> {
        let name = validate_name(name)?;
        self.write_with(|tx| {
            let changed = tx
                .execute(
                    "UPDATE api_keys SET name = ?1 WHERE key_id = ?2",
                    params![name, key.as_str()],
                )
                .map_err(storage)?;
            if changed == 0 {
                return Err(AccountError::KeyNotFound(key.clone()).into());
            }
            Ok(name)
        })
    }

    fn create_topup(
        &self,
        account: AccountId,
        order: &NewTopup,
        now: DateTime<Utc>,
    ) -> Result<Topup, DeveloperError> {
        validate_amount(order.credits, false)?;
        self.write_with(|tx| {
            require_account(tx, account)?;
            tx.execute(
                "INSERT INTO topups (account_id, credits, amount_cents, currency, provider, status,
                   created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?6)",
                params![
                    account.get(),
                    to_i64(order.credits)?,
                    to_i64(order.amount_cents)?,
                    order.currency.to_lowercase(),
                    order.provider,
                    millis(now)
                ],
            )
            .map_err(storage)?;
            read_topup(tx, tx.last_insert_rowid())
        })
    }

    fn set_topup_reference(&self, topup_id: i64, reference: &str) -> Result<(), DeveloperError> {
        self.write_with(|tx| {
            let changed = tx
                .execute(
                    "UPDATE topups SET reference = ?1 WHERE id = ?2",
                    params![reference, topup_id],
                )
                .map_err(storage)?;
            if changed == 0 {
                return Err(DeveloperError::TopupNotFound(topup_id));
            }
            Ok(())
        })
    }

    fn topup(&self, topup_id: i64) -> Result<Topup, DeveloperError> {
        self.read_with(|conn| read_topup(conn, topup_id))
    }

    fn topups(&self, account: AccountId) -> Result<Vec<Topup>, DeveloperError> {
        self.read_with(|conn| {
            let mut stmt = conn
                .prepare(&format!(
                    "SELECT {TOPUP_COLUMNS} FROM topups WHERE account_id = ?1 ORDER BY id DESC"
                ))
                .map_err(storage)?;
            let rows = stmt
                .query_map(params![account.get()], topup_row)
                .map_err(storage)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(storage)?;
            rows.into_iter().collect()
        })
    }

    fn apply_payment_event(
        &self,
        event: &PaymentEvent,
        now: DateTime<Utc>,
    ) -> Result<PaymentOutcome, DeveloperError> {
        self.write_with(|tx| {
            let plan = plan_event(&mut Facts(tx), event)?;
            carry_out(tx, &plan.writes, now)?;
            Ok(plan.outcome)
        })
    }

    fn recent_ledger(
        &self,
        account: AccountId,
        limit: u32,
    ) -> Result<Vec<LedgerEntry>, DeveloperError> {
        Ok(self.with_conn(|conn| ledger_rows(conn, account, Some(limit)))?)
    }

    fn add_credits_once(
        &self,
        account: AccountId,
        amount: u64,
        idempotency_key: &str,
        now: DateTime<Utc>,
    ) -> Result<(u64, bool), DeveloperError> {
        let key = operator_credit_key(idempotency_key)?;
        self.write_with(|tx| credit_keyed(tx, account, amount, CREDITS_ADD_OPERATION, &key, now))
    }
}
