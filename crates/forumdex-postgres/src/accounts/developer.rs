//! [`DeveloperStore`] on PostgreSQL: the developer dashboard's logins, emailed tokens,
//! sessions, activity, daily usage, top-ups and payment events, beside the accounts.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use forumdex_accounts::developer::{REFUND_OPERATION, SIGNUP_OPERATION, TOPUP_OPERATION};
use forumdex_accounts::rules::{
    CREDITS_ADD_OPERATION, balance_too_large, max_balance_before_adding, validate_amount,
    validate_name,
};
use forumdex_accounts::time::from_unix_millis;
use forumdex_accounts::{
    AccountError, AccountId, Activity, CheckoutFacts, DeveloperError, DeveloperStore, Email, KeyId,
    LedgerEntry, Login, NewTopup, PaymentEvent, PaymentEventKind, PaymentOutcome, Session,
    TokenHash, TokenPurpose, Topup, TopupStatus, UsageCount,
};
use postgres::{GenericClient, Row};

use super::{
    NewLedgerRow, PgAccountStore, account_id, corrupt, insert_account, insert_ledger, key_id,
    ledger_rows, millis, require_account, to_i64, to_u64,
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

fn balance_of(db: &mut impl GenericClient, account: AccountId) -> Step<u64> {
    let row = db.query_one(
        "SELECT credits FROM accounts WHERE id = $1",
        &[&account.get()],
    )?;
    Ok(to_u64(row.get(0))?)
}

/// Adds `amount` credits to `account` with a ledger row keyed `key`; `None` when the key
/// was used before (nothing added).
fn credit_keyed(
    db: &mut impl GenericClient,
    account: AccountId,
    amount: u64,
    operation: &str,
    key: &str,
    now: DateTime<Utc>,
) -> Step<Option<u64>> {
    validate_amount(amount, false)?;
    let seen = db.query_opt(
        "SELECT account_id FROM ledger WHERE request_id = $1",
        &[&key],
    )?;
    if let Some(row) = seen {
        if row.get::<_, i64>(0) != account.get() {
            return Err(AccountError::RequestIdConflict(key.to_owned()).into());
        }
        return Ok(None);
    }
    let ceiling = to_i64(max_balance_before_adding(amount))?;
    let added = to_i64(amount)?;
    let balance: Option<i64> = db
        .query_opt(
            "UPDATE accounts SET credits = credits + $1 WHERE id = $2 AND credits <= $3
             RETURNING credits",
            &[&added, &account.get(), &ceiling],
        )?
        .map(|row| row.get(0));
    let Some(balance) = balance else {
        require_account(db, account)?;
        return Err(balance_too_large().into());
    };
    insert_ledger(
        db,
        NewLedgerRow {
            account,
            key: None,
            request_id: Some(key),
            operation,
            amount: added,
            balance_after: balance,
            now,
        },
    )?;
    Ok(Some(to_u64(balance)?))
}

fn set_status(
    db: &mut impl GenericClient,
    topup: &Topup,
    status: TopupStatus,
    facts: &CheckoutFacts,
    now: DateTime<Utc>,
) -> Step<()> {
    db.execute(
        "UPDATE topups SET status = $1, payment_intent = COALESCE($2, payment_intent),
           reference = COALESCE(reference, $3), updated_at = $4 WHERE id = $5",
        &[
            &status.as_str(),
            &facts.payment_intent,
            &facts.reference,
            &millis(now),
            &topup.id,
        ],
    )?;
    Ok(())
}

/// The order a checkout event is about, or why it matches none.
fn order_of(db: &mut impl GenericClient, facts: &CheckoutFacts) -> Step<Result<Topup, String>> {
    let by_reference: Option<i64> = db
        .query_opt(
            "SELECT id FROM topups WHERE reference = $1",
            &[&facts.reference],
        )?
        .map(|row| row.get(0));
    let id = match (by_reference, facts.topup_id) {
        (Some(found), Some(named)) if found != named => {
            return Ok(Err(format!(
                "checkout {} belongs to top-up {found}, the event names {named}",
                facts.reference
            )));
        }
        (Some(id), _) | (None, Some(id)) => id,
        (None, None) => return Ok(Err(format!("no top-up for checkout {}", facts.reference))),
    };
    match read_topup(db, id) {
        Ok(topup) => {
            if let Some(reference) = &topup.reference
                && reference != &facts.reference
            {
                return Ok(Err(format!(
                    "top-up {id} has checkout {reference}, the event names {}",
                    facts.reference
                )));
            }
            Ok(Ok(topup))
        }
        Err(Failure::Refused(DeveloperError::TopupNotFound(id))) => {
            Ok(Err(format!("no top-up {id}")))
        }
        Err(err) => Err(err),
    }
}

fn apply_checkout(
    db: &mut impl GenericClient,
    facts: &CheckoutFacts,
    target: TopupStatus,
    now: DateTime<Utc>,
) -> Step<PaymentOutcome> {
    let topup = match order_of(db, facts)? {
        Ok(topup) => topup,
        Err(why) => return Ok(PaymentOutcome::Rejected(why)),
    };
    if topup.status == TopupStatus::Paid {
        // Paid is final: a late failure or expiry, or the same payment told twice, changes nothing.
        return Ok(PaymentOutcome::Ignored(format!(
            "top-up {} is already paid",
            topup.id
        )));
    }
    if target == TopupStatus::Pending && topup.status != TopupStatus::Pending {
        // A completed-but-unpaid checkout told after its failure or expiry.
        return Ok(PaymentOutcome::Ignored(format!(
            "top-up {} is already {}",
            topup.id,
            topup.status.as_str()
        )));
    }
    if target != TopupStatus::Paid {
        set_status(db, &topup, target, facts, now)?;
        return Ok(PaymentOutcome::Updated {
            topup_id: topup.id,
            status: target,
        });
    }
    if facts.amount != topup.amount_cents || !facts.currency.eq_ignore_ascii_case(&topup.currency) {
        return Ok(PaymentOutcome::Rejected(format!(
            "top-up {} costs {} {}, the payment is {} {}",
            topup.id, topup.amount_cents, topup.currency, facts.amount, facts.currency
        )));
    }
    set_status(db, &topup, TopupStatus::Paid, facts, now)?;
    let key = format!("topup:{}", topup.id);
    let balance = credit_keyed(
        db,
        topup.account_id,
        topup.credits,
        TOPUP_OPERATION,
        &key,
        now,
    )?
    .ok_or_else(|| corrupt(format!("top-up {} was credited but not paid", topup.id)))?;
    Ok(PaymentOutcome::Credited {
        topup_id: topup.id,
        credits: topup.credits,
        balance,
    })
}

fn apply_refund(
    db: &mut impl GenericClient,
    event_id: &str,
    payment_intent: &str,
    amount_refunded: u64,
    currency: &str,
    now: DateTime<Utc>,
) -> Step<PaymentOutcome> {
    let id: Option<i64> = db
        .query_opt(
            "SELECT id FROM topups WHERE payment_intent = $1 AND status = 'paid'",
            &[&payment_intent],
        )?
        .map(|row| row.get(0));
    let Some(id) = id else {
        return Ok(PaymentOutcome::NotYet(format!(
            "no paid top-up for payment {payment_intent} yet"
        )));
    };
    let topup = read_topup(db, id)?;
    if !currency.eq_ignore_ascii_case(&topup.currency) {
        return Ok(PaymentOutcome::Rejected(format!(
            "top-up {id} was paid in {}, the refund is in {currency}",
            topup.currency
        )));
    }
    let refunded = amount_refunded.min(topup.amount_cents);
    if refunded <= topup.refunded_cents {
        return Ok(PaymentOutcome::Ignored(format!(
            "top-up {id}: refund already applied"
        )));
    }
    // The credits owed back: the refunded share of the credits bought, less what earlier
    // refunds took; at most what the account still holds.
    let share = if topup.amount_cents == 0 {
        topup.credits
    } else {
        u64::try_from(
            u128::from(topup.credits) * u128::from(refunded) / u128::from(topup.amount_cents),
        )
        .unwrap_or(topup.credits)
    };
    let owed = share.saturating_sub(topup.refunded_credits);
    let taken = owed.min(balance_of(db, topup.account_id)?);
    if taken > 0 {
        let taken_i64 = to_i64(taken)?;
        let after: i64 = db
            .query_one(
                "UPDATE accounts SET credits = credits - $1 WHERE id = $2 RETURNING credits",
                &[&taken_i64, &topup.account_id.get()],
            )?
            .get(0);
        let key = format!("refund:{event_id}");
        insert_ledger(
            db,
            NewLedgerRow {
                account: topup.account_id,
                key: None,
                request_id: Some(&key),
                operation: REFUND_OPERATION,
                amount: -taken_i64,
                balance_after: after,
                now,
            },
        )?;
    }
    db.execute(
        "UPDATE topups SET refunded_cents = $1, refunded_credits = refunded_credits + $2,
           updated_at = $3 WHERE id = $4",
        &[&to_i64(refunded)?, &to_i64(taken)?, &millis(now), &id],
    )?;
    Ok(PaymentOutcome::Refunded {
        topup_id: id,
        credits: taken,
    })
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
                let key = format!("signup:{account}");
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
            let seen = tx.query_opt(
                "SELECT 1 FROM payment_events WHERE event_id = $1",
                &[&event.event_id],
            )?;
            if seen.is_some() {
                return Ok(PaymentOutcome::Duplicate);
            }
            let outcome = match &event.kind {
                PaymentEventKind::CheckoutCompleted(facts)
                | PaymentEventKind::PaymentSucceeded(facts) => {
                    let target = if facts.paid {
                        TopupStatus::Paid
                    } else {
                        TopupStatus::Pending
                    };
                    apply_checkout(tx, facts, target, now)?
                }
                PaymentEventKind::PaymentFailed(facts) => {
                    apply_checkout(tx, facts, TopupStatus::Failed, now)?
                }
                PaymentEventKind::CheckoutExpired(facts) => {
                    apply_checkout(tx, facts, TopupStatus::Expired, now)?
                }
                PaymentEventKind::Refunded {
                    payment_intent,
                    amount_refunded,
                    currency,
                } => apply_refund(
                    tx,
                    &event.event_id,
                    payment_intent,
                    *amount_refunded,
                    currency,
                    now,
                )?,
            };
            if let PaymentOutcome::NotYet(_) = outcome {
                return Ok(outcome);
            }
            if let Some((topup_id, kind, detail)) = outcome.activity(event) {
                tx.execute(
                    "INSERT INTO activity (account_id, kind, detail, created_at)
                     SELECT account_id, $2, $3, $4 FROM topups WHERE id = $1",
                    &[&topup_id, &kind, &detail, &millis(now)],
                )?;
            }
            tx.execute(
                "INSERT INTO payment_events (event_id, topup_id, outcome, received_at)
                 VALUES ($1, $2, $3, $4)",
                &[
                    &event.event_id,
                    &outcome.topup_id(),
                    &outcome.to_string(),
                    &millis(now),
                ],
            )?;
            Ok(outcome)
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
        let key = idempotency_key.trim();
        if key.is_empty() || key.len() > 200 {
            return Err(AccountError::InvalidCharge(
                "the idempotency key must be 1 to 200 bytes".to_owned(),
            )
            .into());
        }
        let key = format!("credits:{key}");
        self.write(|tx| {
            match credit_keyed(tx, account, amount, CREDITS_ADD_OPERATION, &key, now)? {
                Some(balance) => Ok((balance, true)),
                None => Ok((balance_of(tx, account)?, false)),
            }
        })
    }
}
