//! The dashboard's statements and steps ([`DeveloperStore`](forumdex_accounts::DeveloperStore)),
//! written once for both backends: logins, emailed tokens, sessions, activity, daily usage,
//! top-ups and payment events, beside the accounts. The payment flow's decisions are the
//! planner's ([`forumdex_accounts::payments`]); here are only the facts it reads and the
//! writes it asks for.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use forumdex_accounts::developer::{CLOSE_OPERATION, SIGNUP_OPERATION};
use forumdex_accounts::payments::{
    BalanceChange, KeyedCredit, PaymentFacts, Write, operator_credit_key, plan_event,
    plan_keyed_credit, signup_credit_key,
};
use forumdex_accounts::rules::{CREDITS_ADD_OPERATION, MintedKey, validate_amount, validate_name};
use forumdex_accounts::stored::{account_id, corrupt, key_id, millis, to_i64, to_u64};
use forumdex_accounts::time::from_unix_millis;
use forumdex_accounts::{
    AccountError, AccountId, Activity, Allowlist, DeveloperError, Email, EmailChange, HourCount,
    KeyId, KeyInfo, LedgerLine, ListedSession, LoggedRequest, Login, LowBalance, NewTopup,
    PaymentEvent, PaymentOutcome, RequestFilter, SecondFactor, Session, TokenHash, TokenPurpose,
    Topup, TopupStatus, TwoFactor, UsageCount,
};

use super::{
    LEDGER_SELECT, NewLedgerRow, balance_of, insert_account, insert_ledger, ledger_entry,
    require_account,
};
use crate::dialect::Dialect;
use crate::exec::{Failure, Param, Row, Sql};
use crate::params;

/// A step's result inside a transaction of `S`, for the dashboard's store.
pub type Step<S, T> = super::Step<S, T, DeveloperError>;

/// How addresses are compared: trimmed, lower case.
fn email_key(email: &Email) -> String {
    email.as_str().to_lowercase()
}

const LOGIN_SELECT: &str =
    "SELECT account_id, email, password_hash, verified_at, created_at FROM logins";

fn decode_login<S: Sql>(row: &Row) -> Step<S, Login> {
    let email: String = row.get(1)?;
    Ok(Login {
        account_id: account_id(row.get(0)?)?,
        email: Email::from_stored(email),
        password_hash: row.get(2)?,
        verified_at: row.get::<Option<i64>>(3)?.map(from_unix_millis),
        created_at: from_unix_millis(row.get(4)?),
    })
}

const TOPUP_COLUMNS: &str = "id, account_id, credits, amount_cents, currency, provider,
    reference, status, payment_intent, refunded_cents, refunded_credits, created_at, updated_at";

fn decode_topup<S: Sql>(row: &Row) -> Step<S, Topup> {
    let status: String = row.get(7)?;
    Ok(Topup {
        id: row.get(0)?,
        account_id: account_id(row.get(1)?)?,
        credits: to_u64(row.get(2)?)?,
        amount_cents: to_u64(row.get(3)?)?,
        currency: row.get(4)?,
        provider: row.get(5)?,
        reference: row.get(6)?,
        status: TopupStatus::parse(&status)
            .ok_or_else(|| corrupt(format!("top-up status {status:?}")))?,
        payment_intent: row.get(8)?,
        refunded_cents: to_u64(row.get(9)?)?,
        refunded_credits: to_u64(row.get(10)?)?,
        created_at: from_unix_millis(row.get(11)?),
        updated_at: from_unix_millis(row.get(12)?),
    })
}

/// The top-up `id`; `None` when there is none.
fn find_topup<S: Sql>(db: &mut S, id: i64) -> Step<S, Option<Topup>> {
    let row = db.query_opt(
        &format!("SELECT {TOPUP_COLUMNS} FROM topups WHERE id = $1"),
        params![id],
    )?;
    row.as_ref().map(decode_topup::<S>).transpose()
}

/// The first column of the first row, an integer, if there is a row.
fn first_int<S: Sql>(db: &mut S, sql: &str, key: &str) -> Step<S, Option<i64>> {
    let row = db.query_opt(sql, params![key])?;
    Ok(row.map(|row| row.get(0)).transpose()?)
}

/// The payment planner's questions, answered inside a write transaction.
struct Facts<'a, S>(&'a mut S);

impl<S: Sql> PaymentFacts for Facts<'_, S> {
    type Error = Failure<DeveloperError, S::Error>;

    fn event_seen(&mut self, event_id: &str) -> Step<S, bool> {
        let sql = "SELECT 1 FROM payment_events WHERE event_id = $1";
        Ok(first_int(self.0, sql, event_id)?.is_some())
    }

    fn topup_by_reference(&mut self, reference: &str) -> Step<S, Option<i64>> {
        first_int(
            self.0,
            "SELECT id FROM topups WHERE reference = $1",
            reference,
        )
    }

    fn topup(&mut self, id: i64) -> Step<S, Option<Topup>> {
        find_topup(self.0, id)
    }

    fn paid_topup_by_payment(&mut self, payment_intent: &str) -> Step<S, Option<i64>> {
        let sql = "SELECT id FROM topups WHERE payment_intent = $1 AND status = 'paid'";
        first_int(self.0, sql, payment_intent)
    }

    fn balance(&mut self, account: AccountId) -> Step<S, Option<u64>> {
        Ok(balance_of(self.0, account)?)
    }

    fn ledger_owner(&mut self, key: &str) -> Step<S, Option<AccountId>> {
        let sql = "SELECT account_id FROM ledger WHERE request_id = $1";
        Ok(first_int(self.0, sql, key)?.map(account_id).transpose()?)
    }
}

/// Carries out a payment plan's writes, in order, inside the transaction.
fn carry_out<S: Sql>(db: &mut S, writes: &[Write], now: DateTime<Utc>) -> Step<S, ()> {
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
                    params![
                        status.as_str(),
                        payment_intent.as_ref(),
                        reference.as_str(),
                        millis(now),
                        *topup_id
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
                    params![
                        to_i64(*refunded_cents)?,
                        to_i64(*credits_taken)?,
                        millis(now),
                        *topup_id
                    ],
                )?;
            }
            Write::Activity {
                account,
                kind,
                detail,
            } => insert_activity(db, *account, kind, detail, now)?,
            Write::RecordEvent {
                event_id,
                topup_id,
                outcome,
            } => {
                db.execute(
                    "INSERT INTO payment_events (event_id, topup_id, outcome, received_at)
                     VALUES ($1, $2, $3, $4)",
                    params![event_id, *topup_id, outcome, millis(now)],
                )?;
            }
        }
    }
    Ok(())
}

/// A planned balance change and its ledger row; the balance it leaves must be the planned one.
fn change_balance<S: Sql>(db: &mut S, change: &BalanceChange, now: DateTime<Utc>) -> Step<S, ()> {
    let after: i64 = db
        .query_opt(
            "UPDATE accounts SET credits = credits + $1 WHERE id = $2 RETURNING credits",
            params![change.amount, change.account.get()],
        )?
        .ok_or(AccountError::AccountNotFound(change.account))?
        .get(0)?;
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
fn credit_keyed<S: Sql>(
    db: &mut S,
    account: AccountId,
    amount: u64,
    operation: &'static str,
    key: &str,
    now: DateTime<Utc>,
) -> Step<S, (u64, bool)> {
    match plan_keyed_credit(&mut Facts(&mut *db), account, amount, operation, key)? {
        KeyedCredit::Apply(change) => {
            change_balance(db, &change, now)?;
            Ok((change.balance_after, true))
        }
        KeyedCredit::AlreadyApplied => {
            let balance = balance_of(db, account)?;
            Ok((
                balance.ok_or(AccountError::AccountNotFound(account))?,
                false,
            ))
        }
    }
}

/// Credits an operator's grant once per idempotency key; the balance after, and whether it
/// was credited now.
pub fn add_credits_once<S: Sql>(
    db: &mut S,
    account: AccountId,
    amount: u64,
    idempotency_key: &str,
    now: DateTime<Utc>,
) -> Step<S, (u64, bool)> {
    let key = operator_credit_key(idempotency_key)?;
    credit_keyed(db, account, amount, CREDITS_ADD_OPERATION, &key, now)
}

/// Opens an account (no credits) with a login; refused when the address is taken.
pub fn register<S: Sql>(
    db: &mut S,
    email: &Email,
    password_hash: &str,
    now: DateTime<Utc>,
) -> Step<S, AccountId> {
    let taken = db.query_opt(
        "SELECT account_id FROM logins WHERE email_key = $1",
        params![&email_key(email)],
    )?;
    if taken.is_some() {
        return Err(DeveloperError::EmailTaken.into());
    }
    let id = insert_account(db, email, 0, now)?;
    db.execute(
        "INSERT INTO logins (account_id, email, email_key, password_hash, created_at)
         VALUES ($1, $2, $3, $4, $5)",
        params![
            id.get(),
            email.as_str(),
            &email_key(email),
            password_hash,
            millis(now)
        ],
    )?;
    Ok(id)
}

/// The login of an address, compared as [`email_key`] does.
pub fn login_by_email<S: Sql>(db: &mut S, email: &Email) -> Step<S, Option<Login>> {
    let row = db.query_opt(
        &format!("{LOGIN_SELECT} WHERE email_key = $1"),
        params![&email_key(email)],
    )?;
    row.as_ref().map(decode_login::<S>).transpose()
}

/// The login of an account.
pub fn login<S: Sql>(db: &mut S, account: AccountId) -> Step<S, Option<Login>> {
    let row = db.query_opt(
        &format!("{LOGIN_SELECT} WHERE account_id = $1"),
        params![account.get()],
    )?;
    row.as_ref().map(decode_login::<S>).transpose()
}

/// Replaces a login's password hash.
pub fn set_password<S: Sql>(db: &mut S, account: AccountId, password_hash: &str) -> Step<S, ()> {
    let changed = db.execute(
        "UPDATE logins SET password_hash = $1 WHERE account_id = $2",
        params![password_hash, account.get()],
    )?;
    if changed == 0 {
        return Err(AccountError::AccountNotFound(account).into());
    }
    Ok(())
}

/// Marks a login verified, crediting the sign-up credits once; whether it was unverified.
pub fn mark_verified<S: Sql>(
    db: &mut S,
    account: AccountId,
    signup_credits: u64,
    now: DateTime<Utc>,
) -> Step<S, bool> {
    let changed = db.execute(
        "UPDATE logins SET verified_at = $1 WHERE account_id = $2 AND verified_at IS NULL",
        params![millis(now), account.get()],
    )?;
    if changed == 0 {
        require_account(db, account)?;
        return Ok(false);
    }
    if signup_credits > 0 {
        let key = signup_credit_key(account);
        credit_keyed(db, account, signup_credits, SIGNUP_OPERATION, &key, now)?;
    }
    Ok(true)
}

/// Stores an emailed token, replacing the account's earlier one of that purpose.
pub fn issue_token<S: Sql>(
    db: &mut S,
    purpose: TokenPurpose,
    token: &TokenHash,
    account: AccountId,
    now: DateTime<Utc>,
    expires_at: DateTime<Utc>,
) -> Step<S, ()> {
    require_account(db, account)?;
    db.execute(
        "DELETE FROM login_tokens WHERE account_id = $1 AND purpose = $2",
        params![account.get(), purpose.as_str()],
    )?;
    db.execute(
        "INSERT INTO login_tokens (token_sha256, purpose, account_id, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5)",
        params![
            token.0.as_slice(),
            purpose.as_str(),
            account.get(),
            millis(now),
            millis(expires_at)
        ],
    )?;
    Ok(())
}

/// Uses a token up: its account, when it existed for `purpose` and had not expired.
pub fn consume_token<S: Sql>(
    db: &mut S,
    purpose: TokenPurpose,
    token: &TokenHash,
    now: DateTime<Utc>,
) -> Step<S, Option<AccountId>> {
    let row = db.query_opt(
        "DELETE FROM login_tokens WHERE token_sha256 = $1 AND purpose = $2
         RETURNING account_id, expires_at",
        params![token.0.as_slice(), purpose.as_str()],
    )?;
    match row {
        Some(row) if millis(now) < row.get::<i64>(1)? => Ok(Some(account_id(row.get(0)?)?)),
        _ => Ok(None),
    }
}

/// Whether a token would be accepted now (exists for `purpose`, not expired), without using
/// it up.
pub fn token_holder<S: Sql>(
    db: &mut S,
    purpose: TokenPurpose,
    token: &TokenHash,
    now: DateTime<Utc>,
) -> Step<S, Option<AccountId>> {
    let row = db.query_opt(
        "SELECT account_id FROM login_tokens
         WHERE token_sha256 = $1 AND purpose = $2 AND expires_at > $3",
        params![token.0.as_slice(), purpose.as_str(), millis(now)],
    )?;
    match row {
        Some(row) => Ok(Some(account_id(row.get(0)?)?)),
        None => Ok(None),
    }
}

/// Creates the minted key from the create form whose token hashes to `form`, unless that
/// form created one already: `Ok(key)` for a new key, `Err(key)` for the one created before.
pub fn create_key_once<S: Sql>(
    db: &mut S,
    account: AccountId,
    form: &TokenHash,
    minted: &MintedKey,
    allow: &Allowlist,
    now: DateTime<Utc>,
) -> Step<S, Result<KeyInfo, KeyInfo>> {
    let sent = db.query_opt(
        "SELECT key_id FROM key_submissions WHERE form_sha256 = $1 AND account_id = $2",
        params![form.0.as_slice(), account.get()],
    )?;
    if let Some(row) = sent {
        let before = key_id(&row.get::<String>(0)?)?;
        return Ok(Err(super::key(db, &before)?));
    }
    let created = super::insert_key(db, account, minted, allow)?;
    db.execute(
        "INSERT INTO key_submissions (form_sha256, account_id, key_id, created_at)
         VALUES ($1, $2, $3, $4)",
        params![
            form.0.as_slice(),
            account.get(),
            created.key_id.as_str(),
            millis(now)
        ],
    )?;
    Ok(Ok(created))
}

/// Opens a session.
pub fn open_session<S: Sql>(
    db: &mut S,
    token: &TokenHash,
    account: AccountId,
    now: DateTime<Utc>,
    expires_at: DateTime<Utc>,
) -> Step<S, ()> {
    require_account(db, account)?;
    db.execute(
        "INSERT INTO sessions (token_sha256, account_id, created_at, last_seen_at, expires_at)
         VALUES ($1, $2, $3, $3, $4)",
        params![
            token.0.as_slice(),
            account.get(),
            millis(now),
            millis(expires_at)
        ],
    )?;
    Ok(())
}

/// The session of `token`, seen now; a session past its end or idle for `idle` is closed.
pub fn touch_session<S: Sql>(
    db: &mut S,
    token: &TokenHash,
    now: DateTime<Utc>,
    idle: Duration,
) -> Step<S, Option<Session>> {
    let row = db.query_opt(
        "SELECT account_id, created_at, last_seen_at, expires_at FROM sessions
         WHERE token_sha256 = $1",
        params![token.0.as_slice()],
    )?;
    let Some(row) = row else {
        return Ok(None);
    };
    let (created_at, last_seen_at, expires_at): (i64, i64, i64) =
        (row.get(1)?, row.get(2)?, row.get(3)?);
    let now_ms = millis(now);
    if now_ms >= expires_at || now_ms.saturating_sub(last_seen_at) >= idle.num_milliseconds() {
        close_session(db, token)?;
        return Ok(None);
    }
    db.execute(
        "UPDATE sessions SET last_seen_at = $1 WHERE token_sha256 = $2",
        params![now_ms, token.0.as_slice()],
    )?;
    Ok(Some(Session {
        account_id: account_id(row.get(0)?)?,
        created_at: from_unix_millis(created_at),
        last_seen_at: now,
        expires_at: from_unix_millis(expires_at),
    }))
}

/// Closes a session.
pub fn close_session<S: Sql>(db: &mut S, token: &TokenHash) -> Step<S, ()> {
    db.execute(
        "DELETE FROM sessions WHERE token_sha256 = $1",
        params![token.0.as_slice()],
    )?;
    Ok(())
}

/// Deletes sessions past their end or idle for `idle`, and expired tokens; how many.
pub fn purge_expired<S: Sql>(db: &mut S, now: DateTime<Utc>, idle: Duration) -> Step<S, u64> {
    let now_ms = millis(now);
    let sessions = db.execute(
        "DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2",
        params![now_ms, now_ms.saturating_sub(idle.num_milliseconds())],
    )?;
    let tokens = db.execute(
        "DELETE FROM login_tokens WHERE expires_at <= $1",
        params![now_ms],
    )?;
    Ok(sessions + tokens)
}

/// Closes every session of an account; how many.
pub fn close_sessions<S: Sql>(db: &mut S, account: AccountId) -> Step<S, u64> {
    Ok(db.execute(
        "DELETE FROM sessions WHERE account_id = $1",
        params![account.get()],
    )?)
}

/// Whether another account's login has `email`.
fn taken_by_another<S: Sql>(db: &mut S, email: &Email, account: AccountId) -> Step<S, bool> {
    let row = db.query_opt(
        "SELECT 1 FROM logins WHERE email_key = $1 AND account_id <> $2",
        params![&email_key(email), account.get()],
    )?;
    Ok(row.is_some())
}

/// Keeps `new` pending for the account with a change token (see
/// `DeveloperStore::request_email_change`).
pub fn request_email_change<S: Sql>(
    db: &mut S,
    account: AccountId,
    new: &Email,
    token: &TokenHash,
    now: DateTime<Utc>,
    expires_at: DateTime<Utc>,
) -> Step<S, ()> {
    require_account(db, account)?;
    if taken_by_another(db, new, account)? {
        return Err(DeveloperError::EmailTaken.into());
    }
    db.execute(
        "DELETE FROM email_changes WHERE account_id = $1",
        params![account.get()],
    )?;
    db.execute(
        "INSERT INTO email_changes (account_id, new_email, requested_at) VALUES ($1, $2, $3)",
        params![account.get(), new.as_str(), millis(now)],
    )?;
    issue_token(
        db,
        TokenPurpose::ChangeEmail,
        token,
        account,
        now,
        expires_at,
    )
}

/// Uses a change token up and applies its pending address (see
/// `DeveloperStore::confirm_email_change`).
pub fn confirm_email_change<S: Sql>(
    db: &mut S,
    token: &TokenHash,
    now: DateTime<Utc>,
) -> Step<S, Option<EmailChange>> {
    let Some(account) = consume_token(db, TokenPurpose::ChangeEmail, token, now)? else {
        return Ok(None);
    };
    let pending = db.query_opt(
        "DELETE FROM email_changes WHERE account_id = $1 RETURNING new_email",
        params![account.get()],
    )?;
    let Some(pending) = pending else {
        return Ok(None);
    };
    let new = Email::from_stored(pending.get(0)?);
    if taken_by_another(db, &new, account)? {
        return Err(DeveloperError::EmailTaken.into());
    }
    let Some(old) = db.query_opt(
        "SELECT email FROM logins WHERE account_id = $1",
        params![account.get()],
    )?
    else {
        return Ok(None);
    };
    let old = Email::from_stored(old.get(0)?);
    db.execute(
        "UPDATE logins SET email = $2, email_key = $3 WHERE account_id = $1",
        params![account.get(), new.as_str(), &email_key(&new)],
    )?;
    db.execute(
        "UPDATE accounts SET email = $2 WHERE id = $1",
        params![account.get(), new.as_str()],
    )?;
    Ok(Some(EmailChange { account, old, new }))
}

/// Sets or clears the account's low-balance threshold (unnotified).
pub fn set_low_balance_alert<S: Sql>(
    db: &mut S,
    account: AccountId,
    threshold: Option<u64>,
) -> Step<S, ()> {
    require_account(db, account)?;
    db.execute(
        "DELETE FROM low_balance_alerts WHERE account_id = $1",
        params![account.get()],
    )?;
    if let Some(threshold) = threshold.filter(|&threshold| threshold > 0) {
        db.execute(
            "INSERT INTO low_balance_alerts (account_id, threshold, notified) VALUES ($1, $2, 0)",
            params![account.get(), to_i64(threshold)?],
        )?;
    }
    Ok(())
}

/// The account's low-balance threshold.
pub fn low_balance_alert<S: Sql>(db: &mut S, account: AccountId) -> Step<S, Option<u64>> {
    require_account(db, account)?;
    let row = db.query_opt(
        "SELECT threshold FROM low_balance_alerts WHERE account_id = $1",
        params![account.get()],
    )?;
    match row {
        Some(row) => Ok(Some(to_u64(row.get(0)?)?)),
        None => Ok(None),
    }
}

/// Re-arms the thresholds whose balance is back, then lists those crossed and not told.
pub fn due_low_balance_alerts<S: Sql>(db: &mut S) -> Step<S, Vec<LowBalance>> {
    db.execute(
        "UPDATE low_balance_alerts SET notified = 0
         WHERE notified = 1 AND threshold <= (SELECT a.credits FROM accounts a
                                               WHERE a.id = low_balance_alerts.account_id)",
        params![],
    )?;
    let rows = db.query(
        "SELECT w.account_id, l.email, a.credits, w.threshold
         FROM low_balance_alerts w
         JOIN accounts a ON a.id = w.account_id
         JOIN logins l ON l.account_id = w.account_id
         WHERE w.notified = 0 AND a.credits < w.threshold
         ORDER BY w.account_id",
        params![],
    )?;
    rows.iter()
        .map(|row| {
            Ok(LowBalance {
                account: account_id(row.get(0)?)?,
                email: Email::from_stored(row.get(1)?),
                balance: to_u64(row.get(2)?)?,
                threshold: to_u64(row.get(3)?)?,
            })
        })
        .collect()
}

/// Marks the alert told, unless its threshold changed meanwhile.
pub fn mark_low_balance_told<S: Sql>(db: &mut S, alert: &LowBalance) -> Step<S, ()> {
    db.execute(
        "UPDATE low_balance_alerts SET notified = 1 WHERE account_id = $1 AND threshold = $2",
        params![alert.account.get(), to_i64(alert.threshold)?],
    )?;
    Ok(())
}

/// The account's two-factor sign-in, when it is on.
pub fn two_factor<S: Sql>(db: &mut S, account: AccountId) -> Step<S, Option<TwoFactor>> {
    let Some(row) = db.query_opt(
        "SELECT secret, enabled_at,
                (SELECT COUNT(*) FROM recovery_codes r
                 WHERE r.account_id = t.account_id AND r.used_at IS NULL)
         FROM two_factor t WHERE account_id = $1",
        params![account.get()],
    )?
    else {
        return Ok(None);
    };
    Ok(Some(TwoFactor {
        secret: row.get(0)?,
        enabled_at: from_unix_millis(row.get(1)?),
        recovery_codes_left: u32::try_from(row.get::<i64>(2)?)
            .map_err(|_| corrupt("recovery code count"))?,
    }))
}

/// Turns two-factor sign-in on unless it is on.
pub fn enable_two_factor<S: Sql>(
    db: &mut S,
    account: AccountId,
    secret: &[u8],
    step: u64,
    recovery: &[TokenHash],
    now: DateTime<Utc>,
) -> Step<S, bool> {
    require_account(db, account)?;
    let inserted = db.execute(
        "INSERT INTO two_factor (account_id, secret, enabled_at, last_step)
         VALUES ($1, $2, $3, $4) ON CONFLICT (account_id) DO NOTHING",
        params![account.get(), secret, millis(now), to_i64(step)?],
    )?;
    if inserted == 0 {
        return Ok(false);
    }
    replace_recovery_codes(db, account, recovery)?;
    Ok(true)
}

/// Turns two-factor sign-in off.
pub fn disable_two_factor<S: Sql>(db: &mut S, account: AccountId) -> Step<S, ()> {
    for table in ["recovery_codes", "two_factor"] {
        db.execute(
            &format!("DELETE FROM {table} WHERE account_id = $1"),
            params![account.get()],
        )?;
    }
    Ok(())
}

/// Every stored two-factor secret, by account.
pub fn two_factor_secrets<S: Sql>(db: &mut S) -> Step<S, Vec<(AccountId, Vec<u8>)>> {
    let rows = db.query(
        "SELECT account_id, secret FROM two_factor ORDER BY account_id",
        params![],
    )?;
    rows.iter()
        .map(|row| Ok((account_id(row.get(0)?)?, row.get(1)?)))
        .collect()
}

/// Replaces the account's two-factor secret when it is still `from`.
pub fn replace_two_factor_secret<S: Sql>(
    db: &mut S,
    account: AccountId,
    from: &[u8],
    to: &[u8],
) -> Step<S, bool> {
    let replaced = db.execute(
        "UPDATE two_factor SET secret = $3 WHERE account_id = $1 AND secret = $2",
        params![account.get(), from, to],
    )?;
    Ok(replaced == 1)
}

/// Replaces the account's recovery codes.
pub fn replace_recovery_codes<S: Sql>(
    db: &mut S,
    account: AccountId,
    recovery: &[TokenHash],
) -> Step<S, ()> {
    db.execute(
        "DELETE FROM recovery_codes WHERE account_id = $1",
        params![account.get()],
    )?;
    for code in recovery {
        db.execute(
            "INSERT INTO recovery_codes (account_id, code_sha256) VALUES ($1, $2)",
            params![account.get(), code.0.as_slice()],
        )?;
    }
    Ok(())
}

/// Uses a second-factor proof up when it is good and unused.
pub fn use_second_factor<S: Sql>(
    db: &mut S,
    account: AccountId,
    proof: &SecondFactor,
    now: DateTime<Utc>,
) -> Step<S, bool> {
    let used = match proof {
        SecondFactor::Step(step) => db.execute(
            "UPDATE two_factor SET last_step = $2 WHERE account_id = $1 AND last_step < $2",
            params![account.get(), to_i64(*step)?],
        )?,
        SecondFactor::RecoveryCode(code) => db.execute(
            "UPDATE recovery_codes SET used_at = $3
             WHERE account_id = $1 AND code_sha256 = $2 AND used_at IS NULL",
            params![account.get(), code.0.as_slice(), millis(now)],
        )?,
    };
    Ok(used == 1)
}

/// Closes the account for good; the credits forfeited.
pub fn close_account<S: Sql>(db: &mut S, account: AccountId, now: DateTime<Utc>) -> Step<S, u64> {
    let forfeited = super::balance(db, account)?;
    if forfeited > 0 {
        db.execute(
            "UPDATE accounts SET credits = 0 WHERE id = $1",
            params![account.get()],
        )?;
        insert_ledger(
            db,
            NewLedgerRow {
                account,
                key: None,
                request_id: None,
                operation: CLOSE_OPERATION,
                amount: -to_i64(forfeited)?,
                balance_after: 0,
                now,
            },
        )?;
    }
    db.execute(
        "UPDATE api_keys SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL",
        params![account.get(), millis(now)],
    )?;
    for table in [
        "sessions",
        "login_tokens",
        "logins",
        "request_log",
        "key_submissions",
        "recovery_codes",
        "two_factor",
    ] {
        db.execute(
            &format!("DELETE FROM {table} WHERE account_id = $1"),
            params![account.get()],
        )?;
    }
    db.execute(
        "UPDATE accounts SET email = $2 WHERE id = $1",
        params![account.get(), &format!("closed-{}@invalid", account.get())],
    )?;
    Ok(forfeited)
}

/// The account's sessions open at `now` given `idle`, the most recently used first.
pub fn sessions<S: Sql>(
    db: &mut S,
    account: AccountId,
    now: DateTime<Utc>,
    idle: Duration,
) -> Step<S, Vec<ListedSession>> {
    require_account(db, account)?;
    let now_ms = millis(now);
    let rows = db.query(
        "SELECT token_sha256, created_at, last_seen_at, expires_at FROM sessions
         WHERE account_id = $1 AND expires_at > $2 AND last_seen_at > $3
         ORDER BY last_seen_at DESC, created_at DESC",
        params![
            account.get(),
            now_ms,
            now_ms.saturating_sub(idle.num_milliseconds())
        ],
    )?;
    let mut listed = Vec::with_capacity(rows.len());
    for row in &rows {
        let token: [u8; 32] = row
            .get::<Vec<u8>>(0)?
            .try_into()
            .map_err(|_| corrupt("a session token hash"))?;
        listed.push(ListedSession {
            token: TokenHash(token),
            session: Session {
                account_id: account,
                created_at: from_unix_millis(row.get(1)?),
                last_seen_at: from_unix_millis(row.get(2)?),
                expires_at: from_unix_millis(row.get(3)?),
            },
        });
    }
    Ok(listed)
}

/// Closes the account's session of `token`; whether it was open.
pub fn close_account_session<S: Sql>(
    db: &mut S,
    account: AccountId,
    token: &TokenHash,
) -> Step<S, bool> {
    let closed = db.execute(
        "DELETE FROM sessions WHERE token_sha256 = $1 AND account_id = $2",
        params![token.0.as_slice(), account.get()],
    )?;
    Ok(closed > 0)
}

/// Closes every session of the account but `keep`; how many.
pub fn close_other_sessions<S: Sql>(
    db: &mut S,
    account: AccountId,
    keep: &TokenHash,
) -> Step<S, u64> {
    Ok(db.execute(
        "DELETE FROM sessions WHERE account_id = $1 AND token_sha256 <> $2",
        params![account.get(), keep.0.as_slice()],
    )?)
}

/// Appends a line to an account's activity.
pub fn insert_activity<S: Sql>(
    db: &mut S,
    account: AccountId,
    kind: &str,
    detail: &str,
    now: DateTime<Utc>,
) -> Step<S, ()> {
    db.execute(
        "INSERT INTO activity (account_id, kind, detail, created_at) VALUES ($1, $2, $3, $4)",
        params![account.get(), kind, detail, millis(now)],
    )?;
    Ok(())
}

/// An account's newest `limit` activity lines, newest first.
pub fn activity<S: Sql>(db: &mut S, account: AccountId, limit: u32) -> Step<S, Vec<Activity>> {
    let rows = db.query(
        "SELECT created_at, kind, detail FROM activity WHERE account_id = $1
         ORDER BY id DESC LIMIT $2",
        params![account.get(), i64::from(limit)],
    )?;
    let mut lines = Vec::with_capacity(rows.len());
    for row in rows {
        lines.push(Activity {
            at: from_unix_millis(row.get(0)?),
            kind: row.get(1)?,
            detail: row.get(2)?,
        });
    }
    Ok(lines)
}

/// Adds counts to the daily usage (counts of keys that do not exist are dropped).
pub fn record_usage<S: Sql>(db: &mut S, counts: &[UsageCount]) -> Step<S, ()> {
    let latest = match db.dialect() {
        Dialect::Sqlite => "MAX",
        Dialect::Postgres => "GREATEST",
    };
    let upsert = format!(
        "INSERT INTO usage_daily (key_id, day, endpoint, status, count, last_at)
         SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM api_keys WHERE key_id = $1)
         ON CONFLICT (key_id, day, endpoint, status) DO UPDATE SET
           count = usage_daily.count + EXCLUDED.count,
           last_at = {latest}(usage_daily.last_at, EXCLUDED.last_at)"
    );
    for count in counts {
        db.execute(
            &upsert,
            params![
                count.key_id.as_str(),
                &count.day.to_string(),
                count.endpoint.as_str(),
                i64::from(count.status),
                to_i64(count.count)?,
                millis(count.last_at)
            ],
        )?;
    }
    Ok(())
}

/// The daily usage of an account's keys since `since`.
pub fn usage<S: Sql>(db: &mut S, account: AccountId, since: NaiveDate) -> Step<S, Vec<UsageCount>> {
    let rows = db.query(
        "SELECT u.key_id, u.day, u.endpoint, u.status, u.count, u.last_at
         FROM usage_daily u JOIN api_keys k ON k.key_id = u.key_id
         WHERE k.account_id = $1 AND u.day >= $2
         ORDER BY u.day, u.key_id, u.endpoint, u.status",
        params![account.get(), &since.to_string()],
    )?;
    let mut counts = Vec::with_capacity(rows.len());
    for row in rows {
        let day: String = row.get(1)?;
        let status: i64 = row.get(3)?;
        counts.push(UsageCount {
            key_id: key_id(&row.get::<String>(0)?)?,
            day: day
                .parse()
                .map_err(|_| corrupt(format!("usage day {day:?}")))?,
            endpoint: row.get(2)?,
            status: u16::try_from(status).map_err(|_| corrupt(format!("usage status {status}")))?,
            count: to_u64(row.get(4)?)?,
            last_at: from_unix_millis(row.get(5)?),
        });
    }
    Ok(counts)
}

/// Renames a key (no name when `None`); the name it has now.
pub fn rename_key<S: Sql>(db: &mut S, key: &KeyId, name: Option<&str>) -> Step<S, Option<String>> {
    let name = validate_name(name)?;
    let changed = db.execute(
        "UPDATE api_keys SET name = $1 WHERE key_id = $2",
        params![name.as_ref(), key.as_str()],
    )?;
    if changed == 0 {
        return Err(AccountError::KeyNotFound(key.clone()).into());
    }
    Ok(name)
}

/// Opens a pending top-up.
pub fn create_topup<S: Sql>(
    db: &mut S,
    account: AccountId,
    order: &NewTopup,
    now: DateTime<Utc>,
) -> Step<S, Topup> {
    validate_amount(order.credits, false)?;
    let (credits, amount_cents) = (to_i64(order.credits)?, to_i64(order.amount_cents)?);
    require_account(db, account)?;
    let row = db
        .query_opt(
            &format!(
                "INSERT INTO topups (account_id, credits, amount_cents, currency, provider,
                   status, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6)
                 RETURNING {TOPUP_COLUMNS}"
            ),
            params![
                account.get(),
                credits,
                amount_cents,
                &order.currency.to_lowercase(),
                order.provider.as_str(),
                millis(now)
            ],
        )?
        .ok_or_else(|| corrupt("an insert returned no row"))?;
    decode_topup::<S>(&row)
}

/// Records a top-up's provider checkout id.
pub fn set_topup_reference<S: Sql>(db: &mut S, topup_id: i64, reference: &str) -> Step<S, ()> {
    let changed = db.execute(
        "UPDATE topups SET reference = $1 WHERE id = $2",
        params![reference, topup_id],
    )?;
    if changed == 0 {
        return Err(DeveloperError::TopupNotFound(topup_id).into());
    }
    Ok(())
}

/// The top-up `id`, refused when unknown.
pub fn topup<S: Sql>(db: &mut S, id: i64) -> Step<S, Topup> {
    find_topup(db, id)?.ok_or_else(|| DeveloperError::TopupNotFound(id).into())
}

/// An account's top-ups, newest first.
pub fn topups<S: Sql>(db: &mut S, account: AccountId) -> Step<S, Vec<Topup>> {
    let rows = db.query(
        &format!("SELECT {TOPUP_COLUMNS} FROM topups WHERE account_id = $1 ORDER BY id DESC"),
        params![account.get()],
    )?;
    rows.iter().map(decode_topup::<S>).collect()
}

/// Applies a payment provider's event as the planner decides.
pub fn apply_payment_event<S: Sql>(
    db: &mut S,
    event: &PaymentEvent,
    now: DateTime<Utc>,
) -> Step<S, PaymentOutcome> {
    let plan = plan_event(&mut Facts(&mut *db), event)?;
    carry_out(db, &plan.writes, now)?;
    Ok(plan.outcome)
}

/// The account's ledger lines from `from` to `to` (exclusive), newest first: charges (a
/// key's debits) summed per UTC day and key, every other row on its own.
pub fn ledger_lines<S: Sql>(
    db: &mut S,
    account: AccountId,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Step<S, Vec<LedgerLine>> {
    require_account(db, account)?;
    let window = params![account.get(), millis(from), millis(to)];
    let charges = db.query(
        "SELECT g.day, g.key_id, k.name, g.calls, g.credits, b.balance_after, g.last_id
         FROM (SELECT created_at / 86400000 AS day, key_id, COUNT(*) AS calls,
                      CAST(-SUM(amount) AS BIGINT) AS credits, MAX(id) AS last_id
               FROM ledger
               WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
                 AND amount < 0 AND key_id IS NOT NULL
               GROUP BY created_at / 86400000, key_id) g
         JOIN ledger b ON b.id = g.last_id
         LEFT JOIN api_keys k ON k.key_id = g.key_id",
        window,
    )?;
    let mut lines = Vec::with_capacity(charges.len());
    for row in &charges {
        let day = from_unix_millis(row.get::<i64>(0)? * 86_400_000).date_naive();
        lines.push(LedgerLine::Charges {
            day,
            key_id: key_id(&row.get::<String>(1)?)?,
            key_name: row.get(2)?,
            calls: to_u64(row.get(3)?)?,
            credits: to_u64(row.get(4)?)?,
            balance_after: to_u64(row.get(5)?)?,
            last_id: row.get(6)?,
        });
    }
    let others = db.query(
        &format!(
            "{LEDGER_SELECT} WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
                AND NOT (amount < 0 AND key_id IS NOT NULL)"
        ),
        window,
    )?;
    for row in &others {
        lines.push(LedgerLine::Entry(ledger_entry(row, account)?));
    }
    lines.sort_by_key(|line| std::cmp::Reverse(line.last_id()));
    Ok(lines)
}

/// Whether the account has ledger rows before `at`.
pub fn has_ledger_before<S: Sql>(
    db: &mut S,
    account: AccountId,
    at: DateTime<Utc>,
) -> Step<S, bool> {
    let row = db.query_opt(
        "SELECT 1 FROM ledger WHERE account_id = $1 AND created_at < $2 LIMIT 1",
        params![account.get(), millis(at)],
    )?;
    Ok(row.is_some())
}

/// Adds requests to the log, each under its key's account (a key that does not exist is
/// skipped).
pub fn record_requests<S: Sql>(db: &mut S, requests: &[LoggedRequest]) -> Step<S, ()> {
    // Many rows per statement: a busy node writes thousands a second, and each statement
    // is a round trip to PostgreSQL. The last value of a row is its position, so that the
    // log keeps the order the requests were answered in.
    for chunk in requests.chunks(REQUESTS_PER_INSERT) {
        let mut values = Vec::with_capacity(chunk.len());
        let mut params: Vec<Param<'_>> = Vec::with_capacity(chunk.len() * 9);
        for (position, request) in (0_i64..).zip(chunk) {
            let types = [
                "TEXT", "TEXT", "TEXT", "BIGINT", "BIGINT", "BIGINT", "TEXT", "BIGINT",
            ];
            let cells: Vec<String> = types
                .iter()
                .chain(["BIGINT"].iter())
                .enumerate()
                .map(|(i, ty)| format!("CAST(${} AS {ty})", params.len() + i + 1))
                .collect();
            values.push(format!("({})", cells.join(", ")));
            params.extend([
                Param::Text(request.key_id.as_str()),
                Param::Text(&request.request_id),
                Param::Text(&request.path),
                Param::Int(i64::from(request.status)),
                Param::Int(to_i64(request.credits)?),
                Param::Int(to_i64(request.latency_ms)?),
                Param::Text(&request.source),
                Param::Int(millis(request.at)),
                Param::Int(position),
            ]);
        }
        db.execute(
            &format!(
                "INSERT INTO request_log (account_id, key_id, request_id, path, status, credits,
                                          latency_ms, source, created_at)
                 SELECT k.account_id, k.key_id, v.column2, v.column3, v.column4, v.column5,
                        v.column6, v.column7, v.column8
                 FROM (VALUES {}) AS v JOIN api_keys k ON k.key_id = v.column1
                 ORDER BY v.column9",
                values.join(", ")
            ),
            &params,
        )?;
    }
    Ok(())
}

/// Logged requests written per statement (9 parameters each).
const REQUESTS_PER_INSERT: usize = 200;

/// The account's logged requests that `filter` selects, newest first, at most `limit`.
pub fn requests<S: Sql>(
    db: &mut S,
    account: AccountId,
    filter: &RequestFilter,
    limit: u32,
) -> Step<S, Vec<LoggedRequest>> {
    require_account(db, account)?;
    let rows = db.query(
        "SELECT id, key_id, request_id, path, status, credits, latency_ms, source, created_at
         FROM request_log
         WHERE account_id = $1 AND key_id = COALESCE($2, key_id)
           AND status = COALESCE($3, status) AND id < $4
         ORDER BY id DESC LIMIT $5",
        params![
            account.get(),
            filter.key.as_ref().map(KeyId::as_str),
            filter.status.map(i64::from),
            filter.before_id.unwrap_or(i64::MAX),
            i64::from(limit)
        ],
    )?;
    let mut logged = Vec::with_capacity(rows.len());
    for row in &rows {
        logged.push(LoggedRequest {
            id: row.get(0)?,
            key_id: key_id(&row.get::<String>(1)?)?,
            request_id: row.get(2)?,
            path: row.get(3)?,
            status: u16::try_from(row.get::<i64>(4)?).map_err(|_| corrupt("a logged status"))?,
            credits: to_u64(row.get(5)?)?,
            latency_ms: to_u64(row.get(6)?)?,
            source: row.get(7)?,
            at: from_unix_millis(row.get(8)?),
        });
    }
    Ok(logged)
}

/// The account's logged requests per UTC hour and status.
pub fn hourly_requests<S: Sql>(
    db: &mut S,
    account: AccountId,
    key: Option<&KeyId>,
    from: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Step<S, Vec<HourCount>> {
    const HOUR_MILLIS: i64 = 3_600_000;
    require_account(db, account)?;
    let rows = db.query(
        "SELECT created_at / 3600000, status, COUNT(*)
         FROM request_log
         WHERE account_id = $1 AND key_id = COALESCE($2, key_id)
           AND created_at >= $3 AND created_at < $4
         GROUP BY created_at / 3600000, status
         ORDER BY 1, 2",
        params![
            account.get(),
            key.map(KeyId::as_str),
            millis(from),
            millis(until)
        ],
    )?;
    rows.iter()
        .map(|row| {
            Ok(HourCount {
                hour: from_unix_millis(row.get::<i64>(0)? * HOUR_MILLIS),
                status: u16::try_from(row.get::<i64>(1)?)
                    .map_err(|_| corrupt("a logged status"))?,
                count: to_u64(row.get(2)?)?,
            })
        })
        .collect()
}

/// Deletes the logged requests made before `before`; how many.
pub fn prune_requests<S: Sql>(db: &mut S, before: DateTime<Utc>) -> Step<S, u64> {
    Ok(db.execute(
        "DELETE FROM request_log WHERE created_at < $1",
        params![millis(before)],
    )?)
}
