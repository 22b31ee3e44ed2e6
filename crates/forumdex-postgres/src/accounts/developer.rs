//! [`DeveloperStore`] on PostgreSQL: the developer dashboard's logins, emailed tokens,
//! sessions, activity, daily usage, top-ups and payment events, beside the accounts.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use forumdex_accounts::developer::SIGNUP_OPERATION;
use forumdex_accounts::payments::{
    BalanceChange, KeyedCredit, PaymentFacts, Write, operator_credit_key, plan_event,
    plan_keyed_credit, signup_credit_key,
};
use forumdex_accounts::rules::{CREDITS_ADD_OPERATION, validate_amount, validate_name};
use forumdex_accounts::stored::{account_id, corrupt, key_id, millis, to_i64, to_u64};
use forumdex_accounts::time::from_unix_millis;
use forumdex_accounts::{
    AccountError, AccountId, Activity, DeveloperError, DeveloperStore, Email, KeyId, LedgerEntry,
    Login, NewTopup, PaymentEvent, PaymentOutcome, Session, TokenHash, TokenPurpose, Topup,
    TopupStatus, UsageCount,
};
use postgres::{GenericClient, Row};

use super::{
    NewLedgerRow, PgAccountStore, insert_account, insert_ledger, ledger_rows, require_account,
};
use crate::pool::Failure;

/// A step's result inside a transaction of the dashboard's store.
type Step<T> = Result<T, Failure<DeveloperError>>;

/// How addresses are compared: trimmed, lower case.
fn email_key(email: &Email) -> String {
    email.as_str().to_lowercase()
}

const LOGIN_SELECT: &str =
    "SELECT account_id, email, password_hash, verified_at, created_at FROM logins";

fn decode_login(row: &Row) -> Result<Login, DeveloperError> {
    let email: &str = row.get(1);
    Ok(Login {
        account_id: account_id(row.get(0))?,
        email: Email::parse(email).map_err(|_| corrupt(format!("login email {email:?}")))?,
        password_hash: row.get(2),
        verified_at: row.get::<_, Option<i64>>(3).map(from_unix_millis),
        created_at: from_unix_millis(row.get(4)),
    })
}

const TOPUP_SELECT: &str = "SELECT id, account_id, credits, amount_cents, currency, provider,
    reference, status, payment_intent, refunded_cents, refunded_credits, created_at, updated_at
    FROM topups";

fn decode_topup(row: &Row) -> Result<Topup, DeveloperError> {
    let status: &str = row.get(7);
    Ok(Topup {
        id: row.get(0),
        account_id: account_id(row.get(1))?,
        credits: to_u64(row.get(2))?,
        amount_cents: to_u64(row.get(3))?,
        currency: row.get(4),
        provider: row.get(5),
        reference: row.get(6),
        status: TopupStatus::parse(status)
            .ok_or_else(|| corrupt(format!("top-up status {status:?}")))?,
        payment_intent: row.get(8),
        refunded_cents: to_u64(row.get(9))?,
        refunded_credits: to_u64(row.get(10))?,
        created_at: from_unix_millis(row.get(11)),
        updated_at: from_unix_millis(row.get(12)),
    })
}

fn read_topup(db: &mut impl GenericClient, id: i64) -> Step<Topup> {
    let row = db
        .query_opt(&format!("{TOPUP_SELECT} WHERE id = $1"), &[&id])?
        .ok_or(DeveloperError::TopupNotFound(id))?;
    Ok(decode_topup(&row)?)
}

/// The payment planner's questions, answered inside a write transaction.
struct Facts<'a, C>(&'a mut C);

impl<C: GenericClient> PaymentFacts for Facts<'_, C> {
    type Error = Failure<DeveloperError>;

    fn event_seen(&mut self, event_id: &str) -> Step<bool> {
        let seen = self.0.query_opt(
            "SELECT 1 FROM payment_events WHERE event_id = $1",
            &[&event_id],
        )?;
        Ok(seen.is_some())
    }

    fn topup_by_reference(&mut self, reference: &str) -> Step<Option<i64>> {
        let row = self
            .0
            .query_opt("SELECT id FROM topups WHERE reference = $1", &[&reference])?;
        Ok(row.map(|row| row.get(0)))
    }

    fn topup(&mut self, id: i64) -> Step<Option<Topup>> {
        match read_topup(self.0, id) {
            Ok(topup) => Ok(Some(topup)),
            Err(Failure::Refused(DeveloperError::TopupNotFound(_))) => Ok(None),
            Err(err) => Err(err),
        }
    }

    fn paid_topup_by_payment(&mut self, payment_intent: &str) -> Step<Option<i64>> {
        let row = self.0.query_opt(
            "SELECT id FROM topups WHERE payment_intent = $1 AND status = 'paid'",
            &[&payment_intent],
        )?;
        Ok(row.map(|row| row.get(0)))
    }

    fn balance(&mut self, account: AccountId) -> Step<Option<u64>> {
        let row = self.0.query_opt(
            "SELECT credits FROM accounts WHERE id = $1",
            &[&account.get()],
        )?;
        Ok(row.map(|row| to_u64(row.get(0))).transpose()?)
    }

    fn ledger_owner(&mut self, key: &str) -> Step<Option<AccountId>> {
        let row = self.0.query_opt(
            "SELECT account_id FROM ledger WHERE request_id = $1",
            &[&key],
        )?;
        Ok(row.map(|row| account_id(row.get(0))).transpose()?)
    }
}

/// Carries out a payment plan's writes, in order, inside the transaction.
fn carry_out(db: &mut impl GenericClient, writes: &[Write], now: DateTime<Utc>) -> Step<()> {
    for write in writes {
        match write {
            Write::SetStatus {
                topup_id,
                status,
                payment_intent,
                reference,
            } => {
                db.execute(
                    "UPDATE topups SET status = $1, payment_intent = COALESCE($2, payment_intent),
                       reference = COALESCE(reference, $3), updated_at = $4 WHERE id = $5",
                    &[
                        &status.as_str(),
                        payment_intent,
                        reference,
                        &millis(now),
                        topup_id,
                    ],
                )?;
            }
            Write::Balance(change) => change_balance(db, change, now)?,
            Write::RecordRefund {
                topup_id,
                refunded_cents,
                credits_taken,
            } => {
                db.execute(
                    "UPDATE topups SET refunded_cents = $1, refunded_credits = refunded_credits + $2,
                       updated_at = $3 WHERE id = $4",
                    &[
                        &to_i64(*refunded_cents)?,
                        &to_i64(*credits_taken)?,
                        &millis(now),
                        topup_id,
                    ],
                )?;
            }
            Write::Activity {
                account,
                kind,
                detail,
            } => {
                db.execute(
                    "INSERT INTO activity (account_id, kind, detail, created_at)
                     VALUES ($1, $2, $3, $4)",
                    &[&account.get(), kind, detail, &millis(now)],
                )?;
            }
            Write::RecordEvent {
                event_id,
                topup_id,
                outcome,
            } => {
                db.execute(
                    "INSERT INTO payment_events (event_id, topup_id, outcome, received_at)
                     VALUES ($1, $2, $3, $4)",
                    &[event_id, topup_id, outcome, &millis(now)],
                )?;
            }
        }
    }
    Ok(())
}

/// A planned balance change and its ledger row; the balance it leaves must be the planned one.
fn change_balance(
    db: &mut impl GenericClient,
    change: &BalanceChange,
    now: DateTime<Utc>,
) -> Step<()> {
    let after: i64 = db
        .query_one(
            "UPDATE accounts SET credits = credits + $1 WHERE id = $2 RETURNING credits",
            &[&change.amount, &change.account.get()],
        )?
        .get(0);
    if to_u64(after)? != change.balance_after {
        return Err(corrupt(format!(
            "account {} holds {after} credits, {} were planned",
            change.account, change.balance_after
        ))
        .into());
    }
    insert_ledger(
        db,
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
    db: &mut impl GenericClient,
    account: AccountId,
    amount: u64,
    operation: &'static str,
    key: &str,
    now: DateTime<Utc>,
) -> Step<(u64, bool)> {
    match plan_keyed_credit(&mut Facts(&mut *db), account, amount, operation, key)? {
        KeyedCredit::Apply(change) => {
            change_balance(db, &change, now)?;
            Ok((change.balance_after, true))
        }
        KeyedCredit::AlreadyApplied => {
            let balance = Facts(db).balance(account)?;
            Ok((
                balance.ok_or(AccountError::AccountNotFound(account))?,
                false,
            ))
        }
    }
}

impl DeveloperStore for PgAccountStore {
    fn register(
        &self,
        email: &Email,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<AccountId, DeveloperError> {
        self.write(|tx| {
            let taken = tx.query_opt(
                "SELECT account_id FROM logins WHERE email_key = $1",
                &[&email_key(email)],
            )?;
            if taken.is_some() {
                return Err(DeveloperError::EmailTaken.into());
            }
            let id = insert_account(tx, email, 0, now)?;
            tx.execute(
                "INSERT INTO logins (account_id, email, email_key, password_hash, created_at)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    &id.get(),
                    &email.as_str(),
                    &email_key(email),
                    &password_hash,
                    &millis(now),
                ],
            )?;
            Ok(id)
        })
    }

    fn login_by_email(&self, email: &Email) -> Result<Option<Login>, DeveloperError> {
        self.read(|tx| {
            let row = tx.query_opt(
                &format!("{LOGIN_SELECT} WHERE email_key = $1"),
                &[&email_key(email)],
            )?;
            Ok(row.as_ref().map(decode_login).transpose()?)
        })
    }

    fn login(&self, account: AccountId) -> Result<Option<Login>, DeveloperError> {
        self.read(|tx| {
            let row = tx.query_opt(
                &format!("{LOGIN_SELECT} WHERE account_id = $1"),
                &[&account.get()],
            )?;
            Ok(row.as_ref().map(decode_login).transpose()?)
        })
    }

    fn set_password(&self, account: AccountId, password_hash: &str) -> Result<(), DeveloperError> {
        self.write(|tx| {
            let changed = tx.execute(
                "UPDATE logins SET password_hash = $1 WHERE account_id = $2",
                &[&password_hash, &account.get()],
            )?;
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
        self.write(|tx| {
            let changed = tx.execute(
                "UPDATE logins SET verified_at = $1 WHERE account_id = $2 AND verified_at IS NULL",
                &[&millis(now), &account.get()],
            )?;
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
        self.write(|tx| {
            require_account(tx, account)?;
            tx.execute(
                "DELETE FROM login_tokens WHERE account_id = $1 AND purpose = $2",
                &[&account.get(), &purpose.as_str()],
            )?;
            tx.execute(
                "INSERT INTO login_tokens (token_sha256, purpose, account_id, created_at,
                   expires_at)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    &token.0.as_slice(),
                    &purpose.as_str(),
                    &account.get(),
                    &millis(now),
                    &millis(expires_at),
                ],
            )?;
            Ok(())
        })
    }

    fn consume_token(
        &self,
        purpose: TokenPurpose,
        token: &TokenHash,
        now: DateTime<Utc>,
    ) -> Result<Option<AccountId>, DeveloperError> {
        self.write(|tx| {
            let row = tx.query_opt(
                "DELETE FROM login_tokens WHERE token_sha256 = $1 AND purpose = $2
                 RETURNING account_id, expires_at",
                &[&token.0.as_slice(), &purpose.as_str()],
            )?;
            match row {
                Some(row) if millis(now) < row.get::<_, i64>(1) => {
                    Ok(Some(account_id(row.get(0))?))
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
        self.write(|tx| {
            require_account(tx, account)?;
            tx.execute(
                "INSERT INTO sessions (token_sha256, account_id, created_at, last_seen_at,
                   expires_at)
                 VALUES ($1, $2, $3, $3, $4)",
                &[
                    &token.0.as_slice(),
                    &account.get(),
                    &millis(now),
                    &millis(expires_at),
                ],
            )?;
            Ok(())
        })
    }

    fn touch_session(
        &self,
        token: &TokenHash,
        now: DateTime<Utc>,
        idle: Duration,
    ) -> Result<Option<Session>, DeveloperError> {
        self.write(|tx| {
            let row = tx.query_opt(
                "SELECT account_id, created_at, last_seen_at, expires_at FROM sessions
                 WHERE token_sha256 = $1",
                &[&token.0.as_slice()],
            )?;
            let Some(row) = row else {
                return Ok(None);
            };
            let (created_at, last_seen_at, expires_at): (i64, i64, i64) =
                (row.get(1), row.get(2), row.get(3));
            let now_ms = millis(now);
            if now_ms >= expires_at
                || now_ms.saturating_sub(last_seen_at) >= idle.num_milliseconds()
            {
                tx.execute(
                    "DELETE FROM sessions WHERE token_sha256 = $1",
                    &[&token.0.as_slice()],
                )?;
                return Ok(None);
            }
            tx.execute(
                "UPDATE sessions SET last_seen_at = $1 WHERE token_sha256 = $2",
                &[&now_ms, &token.0.as_slice()],
            )?;
            Ok(Some(Session {
                account_id: account_id(row.get(0))?,
                created_at: from_unix_millis(created_at),
                last_seen_at: now,
                expires_at: from_unix_millis(expires_at),
            }))
        })
    }

    fn close_session(&self, token: &TokenHash) -> Result<(), DeveloperError> {
        self.write(|tx| {
            tx.execute(
                "DELETE FROM sessions WHERE token_sha256 = $1",
                &[&token.0.as_slice()],
            )?;
            Ok(())
        })
    }

    fn purge_expired(&self, now: DateTime<Utc>, idle: Duration) -> Result<u64, DeveloperError> {
        self.write(|tx| {
            let now_ms = millis(now);
            let sessions = tx.execute(
                "DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2",
                &[&now_ms, &now_ms.saturating_sub(idle.num_milliseconds())],
            )?;
            let tokens = tx.execute(
                "DELETE FROM login_tokens WHERE expires_at <= $1",
                &[&now_ms],
            )?;
            Ok(sessions + tokens)
        })
    }

    fn close_sessions(&self, account: AccountId) -> Result<u64, DeveloperError> {
        self.write(|tx| {
            let closed = tx.execute(
                "DELETE FROM sessions WHERE account_id = $1",
                &[&account.get()],
            )?;
            Ok(closed)
        })
    }

    fn record_activity(
        &self,
        account: AccountId,
        kind: &str,
        detail: &str,
        now: DateTime<Utc>,
    ) -> Result<(), DeveloperError> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO activity (account_id, kind, detail, created_at)
                 VALUES ($1, $2, $3, $4)",
                &[&account.get(), &kind, &detail, &millis(now)],
            )?;
            Ok(())
        })
    }

    fn activity(&self, account: AccountId, limit: u32) -> Result<Vec<Activity>, DeveloperError> {
        self.read(|tx| {
            let rows = tx.query(
                "SELECT created_at, kind, detail FROM activity WHERE account_id = $1
                 ORDER BY id DESC LIMIT $2",
                &[&account.get(), &i64::from(limit)],
            )?;
            Ok(rows
                .iter()
                .map(|row| Activity {
                    at: from_unix_millis(row.get(0)),
                    kind: row.get(1),
                    detail: row.get(2),
                })
                .collect())
        })
    }

    fn record_usage(&self, counts: &[UsageCount]) -> Result<(), DeveloperError> {
        if counts.is_empty() {
            return Ok(());
        }
        self.write(|tx| {
            let upsert = tx.prepare(
                "INSERT INTO usage_daily (key_id, day, endpoint, status, count, last_at)
                 SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS
                   (SELECT 1 FROM api_keys WHERE key_id = $1)
                 ON CONFLICT (key_id, day, endpoint, status) DO UPDATE SET
                   count = usage_daily.count + EXCLUDED.count,
                   last_at = GREATEST(usage_daily.last_at, EXCLUDED.last_at)",
            )?;
            for count in counts {
                tx.execute(
                    &upsert,
                    &[
                        &count.key_id.as_str(),
                        &count.day.to_string(),
                        &count.endpoint,
                        &i32::from(count.status),
                        &to_i64(count.count)?,
                        &millis(count.last_at),
                    ],
                )?;
            }
            Ok(())
        })
    }

    fn usage(
        &self,
        account: AccountId,
        since: NaiveDate,
    ) -> Result<Vec<UsageCount>, DeveloperError> {
        self.read(|tx| {
            let rows = tx.query(
                "SELECT u.key_id, u.day, u.endpoint, u.status, u.count, u.last_at
                 FROM usage_daily u JOIN api_keys k ON k.key_id = u.key_id
                 WHERE k.account_id = $1 AND u.day >= $2
                 ORDER BY u.day, u.key_id, u.endpoint, u.status",
                &[&account.get(), &since.to_string()],
            )?;
            let mut counts = Vec::with_capacity(rows.len());
            for row in rows {
                let day: &str = row.get(1);
                let status: i32 = row.get(3);
                counts.push(UsageCount {
                    key_id: key_id(row.get(0))?,
                    day: day
                        .parse()
                        .map_err(|_| corrupt(format!("usage day {day:?}")))?,
                    endpoint: row.get(2),
                    status: u16::try_from(status)
                        .map_err(|_| corrupt(format!("usage status {status}")))?,
                    count: to_u64(row.get(4))?,
                    last_at: from_unix_millis(row.get(5)),
                });
            }
            Ok(counts)
        })
    }

    fn rename_key(
        &self,
        key: &KeyId,
        name: Option<&str>,
    ) -> Result<Option<String>, DeveloperError> {
        let name = validate_name(name)?;
        self.write(|tx| {
            let changed = tx.execute(
                "UPDATE api_keys SET name = $1 WHERE key_id = $2",
                &[&name, &key.as_str()],
            )?;
            if changed == 0 {
                return Err(AccountError::KeyNotFound(key.clone()).into());
            }
            Ok(name.clone())
        })
    }

    fn create_topup(
        &self,
        account: AccountId,
        order: &NewTopup,
        now: DateTime<Utc>,
    ) -> Result<Topup, DeveloperError> {
        validate_amount(order.credits, false)?;
        let (credits, amount_cents) = (to_i64(order.credits)?, to_i64(order.amount_cents)?);
        self.write(|tx| {
            require_account(tx, account)?;
            let row = tx.query_one(
                &format!(
                    "INSERT INTO topups (account_id, credits, amount_cents, currency, provider,
                       status, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6)
                     RETURNING {}",
                    TOPUP_SELECT
                        .trim_start_matches("SELECT ")
                        .trim_end_matches("FROM topups")
                ),
                &[
                    &account.get(),
                    &credits,
                    &amount_cents,
                    &order.currency.to_lowercase(),
                    &order.provider,
                    &millis(now),
                ],
            )?;
            Ok(decode_topup(&row)?)
        })
    }

    fn set_topup_reference(&self, topup_id: i64, reference: &str) -> Result<(), DeveloperError> {
        self.write(|tx| {
            let changed = tx.execute(
                "UPDATE topups SET reference = $1 WHERE id = $2",
                &[&reference, &topup_id],
            )?;
            if changed == 0 {
                return Err(DeveloperError::TopupNotFound(topup_id).into());
            }
            Ok(())
        })
    }

    fn topup(&self, topup_id: i64) -> Result<Topup, DeveloperError> {
        self.read(|tx| read_topup(tx, topup_id))
    }

    fn topups(&self, account: AccountId) -> Result<Vec<Topup>, DeveloperError> {
        self.read(|tx| {
            let rows = tx.query(
                &format!("{TOPUP_SELECT} WHERE account_id = $1 ORDER BY id DESC"),
                &[&account.get()],
            )?;
            Ok(rows.iter().map(decode_topup).collect::<Result<_, _>>()?)
        })
    }

    fn apply_payment_event(
        &self,
        event: &PaymentEvent,
        now: DateTime<Utc>,
    ) -> Result<PaymentOutcome, DeveloperError> {
        self.write(|tx| {
            let plan = plan_event(&mut Facts(&mut *tx), event)?;
            carry_out(tx, &plan.writes, now)?;
            Ok(plan.outcome)
        })
    }

    fn recent_ledger(
        &self,
        account: AccountId,
        limit: u32,
    ) -> Result<Vec<LedgerEntry>, DeveloperError> {
        Ok(self.read(|tx| ledger_rows(tx, account, Some(limit)))?)
    }

    fn add_credits_once(
        &self,
        account: AccountId,
        amount: u64,
        idempotency_key: &str,
        now: DateTime<Utc>,
    ) -> Result<(u64, bool), DeveloperError> {
        let key = operator_credit_key(idempotency_key)?;
        self.write(|tx| credit_keyed(tx, account, amount, CREDITS_ADD_OPERATION, &key, now))
    }
}
