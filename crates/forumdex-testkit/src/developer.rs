//! The conformance suite of [`DeveloperStore`]: logins, emailed tokens, sessions, activity,
//! usage counts, top-ups and the payment events that settle them. Every backend passes these
//! cases, each on fresh, empty stores; time is passed in, nothing sleeps.
//! [`developer_store_conformance!`](crate::developer_store_conformance) runs them all.

use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use forumdex_accounts::developer::{
    CLOSE_OPERATION, REFUND_OPERATION, SIGNUP_OPERATION, TOPUP_OPERATION,
};
use forumdex_accounts::{
    AccountError, AccountId, CheckoutFacts, DeveloperError, DeveloperStore, Email, HourCount,
    KeyCreation, KeyId, KeyInfo, LedgerEntry, LedgerLine, LoggedRequest, LowBalance, NewKey,
    NewTopup, PaymentEvent, PaymentEventKind, PaymentOutcome, RequestFilter, SecondFactor,
    TokenHash, TokenPurpose, Topup, TopupStatus, UsageCount,
};

use crate::Fresh;

/// Runs every case of [`developer`](crate::developer) as a `#[test]` in a module
/// `developer_store_conformance`, on stores made by `$make` (`|dir: &Path| -> impl
/// DeveloperStore`, an empty store using the temporary folder `dir`).
#[macro_export]
macro_rules! developer_store_conformance {
    ($make:expr) => {
        $crate::__conformance_tests!(developer_store_conformance, [$crate::developer], $make;
            register_creates_an_unverified_login,
            mark_verified_adds_signup_credits_once,
            tokens_are_single_use,
            tokens_expire_and_keep_to_their_purpose,
            a_new_token_replaces_the_previous_one,
            sessions_slide_with_use,
            idle_sessions_are_closed,
            sessions_end_at_their_absolute_expiry,
            sessions_close_per_account,
            sessions_are_listed_and_ended_one_by_one,
            a_closed_account_keeps_its_ledger_and_nothing_else,
            an_address_change_takes_effect_once_confirmed,
            a_low_balance_is_told_once_per_crossing,
            two_factor_codes_count_once,
            two_factor_secrets_are_listed_and_replaced_only_from_the_stored_one,
            activity_is_newest_first_per_account,
            usage_sums_into_one_row,
            usage_of_unknown_keys_is_skipped,
            usage_is_per_account_from_a_day,
            rename_key_sets_and_clears,
            a_create_form_sent_twice_creates_one_key,
            topups_are_orders_newest_first,
            a_paid_checkout_credits_once,
            a_mismatched_payment_is_rejected,
            an_unknown_checkout_is_rejected,
            failures_and_expiries_never_undo_a_payment,
            a_pending_order_fails_or_expires,
            an_async_payment_credits_once,
            refunds_take_back_the_refunded_share,
            refunds_never_overdraw,
            a_refund_in_another_currency_is_rejected,
            concurrent_deliveries_credit_once,
            add_credits_once_is_idempotent,
            ledger_lines_sum_charges_per_day_and_key,
            the_request_log_is_per_account_filtered_paged_and_pruned,
            expired_sessions_and_tokens_are_purged,
        );
    };
}

/// The fixed "now" of the cases: 2026-01-01T00:00:00Z.
fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .expect("valid date")
}

/// `t0` plus `minutes` minutes.
fn mins(minutes: i64) -> DateTime<Utc> {
    t0() + Duration::minutes(minutes)
}

/// A day of January 2026.
fn jan(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 1, day).expect("valid day")
}

fn email(text: &str) -> Email {
    Email::parse(text).expect("valid email")
}

fn missing_account() -> AccountId {
    AccountId::new(999_999).expect("positive")
}

/// Signs up `address` with the hash `"hash"`.
fn developer(store: &dyn DeveloperStore, address: &str) -> AccountId {
    store
        .register(&email(address), "hash", t0())
        .expect("register")
}

fn new_key(store: &dyn DeveloperStore, account: AccountId) -> KeyInfo {
    store
        .create_key(account, &NewKey::default(), t0())
        .expect("create key")
        .info
}

fn balance(store: &dyn DeveloperStore, account: AccountId) -> u64 {
    store.balance(account).expect("balance")
}

fn ledger(store: &dyn DeveloperStore, account: AccountId) -> Vec<LedgerEntry> {
    store.ledger(account).expect("ledger")
}

/// The ledger rows of `account` with `operation`.
fn rows_of(store: &dyn DeveloperStore, account: AccountId, operation: &str) -> Vec<LedgerEntry> {
    ledger(store, account)
        .into_iter()
        .filter(|row| row.operation == operation)
        .collect()
}

/// Spends `count` credits of `account`, one charge each.
fn spend(store: &dyn DeveloperStore, account: AccountId, count: u32) {
    let key = new_key(store, account);
    for i in 0..count {
        let left = store
            .charge(account, &key.key_id, &format!("spend-{i}"), "search", t0())
            .expect("charge");
        assert!(left.is_some(), "credit {i} of {count} is there to spend");
    }
}

/// A pending order of `credits` for `amount_cents` EUR with the checkout id `reference`.
fn order(
    store: &dyn DeveloperStore,
    account: AccountId,
    credits: u64,
    amount_cents: u64,
    reference: &str,
) -> Topup {
    let new = NewTopup {
        credits,
        amount_cents,
        currency: "eur".to_owned(),
        provider: "test".to_owned(),
    };
    let topup = store
        .create_topup(account, &new, t0())
        .expect("create top-up");
    store
        .set_topup_reference(topup.id, reference)
        .expect("set reference");
    topup
}

/// What a provider tells about `topup` when everything matches: paid in full, in EUR.
fn paid(topup: &Topup, reference: &str, payment_intent: &str) -> CheckoutFacts {
    CheckoutFacts {
        reference: reference.to_owned(),
        topup_id: Some(topup.id),
        amount: topup.amount_cents,
        currency: "eur".to_owned(),
        paid: true,
        payment_intent: Some(payment_intent.to_owned()),
    }
}

fn apply(store: &dyn DeveloperStore, event_id: &str, kind: PaymentEventKind) -> PaymentOutcome {
    let event = PaymentEvent {
        event_id: event_id.to_owned(),
        kind,
    };
    store
        .apply_payment_event(&event, t0())
        .expect("apply event")
}

fn refund(payment_intent: &str, amount_refunded: u64) -> PaymentEventKind {
    PaymentEventKind::Refunded {
        payment_intent: payment_intent.to_owned(),
        amount_refunded,
        currency: "eur".to_owned(),
    }
}

fn status(store: &dyn DeveloperStore, topup: &Topup) -> TopupStatus {
    store.topup(topup.id).expect("top-up").status
}

/// Sign-up creates an account without credits and an unverified login, found by address in
/// any letter case and by account; an address signs up once, whatever its case.
pub fn register_creates_an_unverified_login<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = store
        .register(&email("Dev@Example.com"), "$argon2id$one", t0())
        .expect("register");
    assert_eq!(balance(store, id), 0);
    assert!(ledger(store, id).is_empty(), "no credits, no ledger row");

    let login = store
        .login_by_email(&email("dev@example.COM"))
        .expect("by email")
        .expect("found in another case");
    assert_eq!(login.account_id, id);
    assert_eq!(login.email.as_str(), "Dev@Example.com");
    assert_eq!(login.password_hash, "$argon2id$one");
    assert_eq!(login.verified_at, None);
    assert_eq!(login.created_at, t0());
    assert_eq!(store.login(id).expect("by account"), Some(login));

    assert!(matches!(
        store.register(&email("DEV@example.com"), "$argon2id$two", mins(1)),
        Err(DeveloperError::EmailTaken)
    ));
    assert_eq!(
        store
            .login(id)
            .expect("by account")
            .map(|l| l.password_hash),
        Some("$argon2id$one".to_owned()),
        "a refused sign-up changes nothing"
    );

    let other = developer(store, "other@example.com");
    assert_ne!(other, id);
    assert_eq!(
        store
            .login_by_email(&email("nobody@example.com"))
            .expect("by email"),
        None
    );
    let operator_made = store
        .create_account(&email("ops@example.com"), 5, t0())
        .expect("create account");
    assert_eq!(store.login(operator_made).expect("by account"), None);

    store
        .set_password(id, "$argon2id$new")
        .expect("set password");
    assert_eq!(
        store
            .login(id)
            .expect("by account")
            .map(|l| l.password_hash),
        Some("$argon2id$new".to_owned())
    );
    assert!(store.set_password(missing_account(), "x").is_err());
}

/// Verification happens once: the first call adds the sign-up credits with one ledger row;
/// later calls add nothing; no credits, no row.
pub fn mark_verified_adds_signup_credits_once<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    assert!(store.mark_verified(id, 100, mins(5)).expect("verify"));
    assert_eq!(balance(store, id), 100);
    let login = store.login(id).expect("login").expect("exists");
    assert_eq!(login.verified_at, Some(mins(5)));
    let rows = ledger(store, id);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].operation, SIGNUP_OPERATION);
    assert_eq!(rows[0].amount, 100);
    assert_eq!(rows[0].balance_after, 100);

    assert!(!store.mark_verified(id, 100, mins(6)).expect("again"));
    assert_eq!(balance(store, id), 100);
    assert_eq!(ledger(store, id).len(), 1);
    let login = store.login(id).expect("login").expect("exists");
    assert_eq!(login.verified_at, Some(mins(5)), "the first instant stays");

    let free = developer(store, "free@example.com");
    assert!(store.mark_verified(free, 0, mins(1)).expect("verify"));
    assert_eq!(balance(store, free), 0);
    assert!(ledger(store, free).is_empty(), "no credits, no ledger row");

    assert!(store.mark_verified(missing_account(), 100, t0()).is_err());
}

/// A token works once, for its account.
pub fn tokens_are_single_use<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let other = developer(store, "other@example.com");
    let token = TokenHash::of("verify-token");
    let theirs = TokenHash::of("their-token");
    let purpose = TokenPurpose::VerifyEmail;
    store
        .issue_token(purpose, &token, id, t0(), mins(60))
        .expect("issue");
    store
        .issue_token(purpose, &theirs, other, t0(), mins(60))
        .expect("issue");

    assert_eq!(
        store.token_holder(purpose, &token, mins(1)).expect("peek"),
        Some(id),
        "a fresh token is usable, and names its account"
    );
    assert_eq!(
        store
            .token_holder(purpose, &token, mins(1))
            .expect("peek again"),
        Some(id),
        "looking does not use it up"
    );
    assert_eq!(
        store
            .token_holder(TokenPurpose::ResetPassword, &token, mins(1))
            .expect("peek"),
        None,
        "only for its purpose"
    );
    assert_eq!(
        store.token_holder(purpose, &token, mins(60)).expect("peek"),
        None,
        "not once expired"
    );
    assert_eq!(
        store.consume_token(purpose, &token, mins(1)).expect("use"),
        Some(id)
    );
    assert_eq!(
        store.token_holder(purpose, &token, mins(1)).expect("peek"),
        None,
        "not once used"
    );
    assert_eq!(
        store
            .consume_token(purpose, &token, mins(2))
            .expect("again"),
        None
    );
    assert_eq!(
        store.consume_token(purpose, &theirs, mins(2)).expect("use"),
        Some(other),
        "another account's token is its own"
    );
    assert_eq!(
        store
            .consume_token(purpose, &TokenHash::of("never issued"), mins(2))
            .expect("unknown"),
        None
    );
    assert!(
        store
            .issue_token(
                purpose,
                &TokenHash::of("x"),
                missing_account(),
                t0(),
                mins(60)
            )
            .is_err()
    );
}

/// An expired token is refused; a token is refused for another purpose (and still works for
/// its own).
pub fn tokens_expire_and_keep_to_their_purpose<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let old = TokenHash::of("old");
    store
        .issue_token(TokenPurpose::ResetPassword, &old, id, t0(), mins(30))
        .expect("issue");
    assert_eq!(
        store
            .consume_token(TokenPurpose::ResetPassword, &old, mins(31))
            .expect("expired"),
        None
    );

    let reset = TokenHash::of("reset");
    store
        .issue_token(TokenPurpose::ResetPassword, &reset, id, t0(), mins(30))
        .expect("issue");
    assert_eq!(
        store
            .consume_token(TokenPurpose::VerifyEmail, &reset, mins(1))
            .expect("wrong purpose"),
        None
    );
    assert_eq!(
        store
            .consume_token(TokenPurpose::ResetPassword, &reset, mins(1))
            .expect("right purpose"),
        Some(id)
    );
}

/// Issuing a token invalidates the account's earlier token of that purpose, not the other
/// purpose's nor another account's.
pub fn a_new_token_replaces_the_previous_one<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let other = developer(store, "other@example.com");
    let (first, second) = (TokenHash::of("first"), TokenHash::of("second"));
    let reset = TokenHash::of("reset");
    let theirs = TokenHash::of("theirs");
    let verify = TokenPurpose::VerifyEmail;
    let end = mins(60);
    store.issue_token(verify, &first, id, t0(), end).expect("1");
    store
        .issue_token(TokenPurpose::ResetPassword, &reset, id, t0(), end)
        .expect("2");
    store
        .issue_token(verify, &theirs, other, t0(), end)
        .expect("3");
    store
        .issue_token(verify, &second, id, mins(1), end)
        .expect("4");

    assert_eq!(
        store.consume_token(verify, &first, mins(2)).expect("a"),
        None
    );
    assert_eq!(
        store.consume_token(verify, &second, mins(2)).expect("b"),
        Some(id)
    );
    assert_eq!(
        store
            .consume_token(TokenPurpose::ResetPassword, &reset, mins(2))
            .expect("c"),
        Some(id)
    );
    assert_eq!(
        store.consume_token(verify, &theirs, mins(2)).expect("d"),
        Some(other)
    );
}

/// A session used within the idle time stays open, and each use restarts the idle clock.
pub fn sessions_slide_with_use<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let token = TokenHash::of("session");
    let idle = Duration::minutes(30);
    store
        .open_session(&token, id, t0(), mins(24 * 60))
        .expect("open");

    let session = store
        .touch_session(&token, mins(20), idle)
        .expect("touch")
        .expect("live");
    assert_eq!(session.account_id, id);
    assert_eq!(session.created_at, t0());
    assert_eq!(session.last_seen_at, mins(20));
    assert_eq!(session.expires_at, mins(24 * 60));

    // 40 minutes after opening, 20 after the last use: live only if the use was stored.
    let later = store
        .touch_session(&token, mins(40), idle)
        .expect("touch")
        .expect("still live");
    assert_eq!(later.last_seen_at, mins(40));
    assert_eq!(later.created_at, t0());

    assert_eq!(
        store
            .touch_session(&TokenHash::of("unknown"), mins(40), idle)
            .expect("touch"),
        None
    );
    assert!(
        store
            .open_session(&TokenHash::of("x"), missing_account(), t0(), mins(60))
            .is_err()
    );
}

/// A session unused for longer than the idle time is gone, and stays gone even when asked
/// again with a longer idle time.
pub fn idle_sessions_are_closed<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let token = TokenHash::of("session");
    store
        .open_session(&token, id, t0(), mins(24 * 60))
        .expect("open");
    assert_eq!(
        store
            .touch_session(&token, mins(31), Duration::minutes(30))
            .expect("touch"),
        None
    );
    assert_eq!(
        store
            .touch_session(&token, mins(32), Duration::hours(2))
            .expect("touch"),
        None,
        "an expired session was closed"
    );
}

/// A session ends at its absolute expiry however recently it was used.
pub fn sessions_end_at_their_absolute_expiry<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let token = TokenHash::of("session");
    let idle = Duration::minutes(30);
    store
        .open_session(&token, id, t0(), mins(60))
        .expect("open");
    for minute in [20, 40, 59] {
        assert!(
            store
                .touch_session(&token, mins(minute), idle)
                .expect("touch")
                .is_some(),
            "live at minute {minute}"
        );
    }
    assert_eq!(
        store.touch_session(&token, mins(61), idle).expect("touch"),
        None
    );
    assert_eq!(
        store
            .touch_session(&token, mins(30), Duration::days(1))
            .expect("touch"),
        None,
        "an expired session was closed"
    );
}

/// One session closes alone (idempotently); an account's sessions close together, and only
/// that account's.
pub fn sessions_close_per_account<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let other = developer(store, "other@example.com");
    let idle = Duration::hours(1);
    let end = mins(24 * 60);
    let mine: Vec<TokenHash> = (0..3)
        .map(|i| TokenHash::of(&format!("mine-{i}")))
        .collect();
    for token in &mine {
        store.open_session(token, id, t0(), end).expect("open");
    }
    let theirs = TokenHash::of("theirs");
    store.open_session(&theirs, other, t0(), end).expect("open");

    store.close_session(&mine[0]).expect("close");
    store.close_session(&mine[0]).expect("close again");
    assert_eq!(
        store.touch_session(&mine[0], mins(1), idle).expect("t"),
        None
    );
    assert!(
        store
            .touch_session(&mine[1], mins(1), idle)
            .expect("t")
            .is_some()
    );

    assert_eq!(store.close_sessions(id).expect("close all"), 2);
    assert_eq!(store.close_sessions(id).expect("none left"), 0);
    for token in &mine {
        assert_eq!(store.touch_session(token, mins(2), idle).expect("t"), None);
    }
    let session = store
        .touch_session(&theirs, mins(2), idle)
        .expect("touch")
        .expect("another account's session stays open");
    assert_eq!(session.account_id, other);
}

/// An account's open sessions are listed, most recently used first, without the closed,
/// idle or expired ones and without other accounts'; one can be ended by its hash (only by
/// its own account), and all but one after a password change.
pub fn sessions_are_listed_and_ended_one_by_one<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let other = developer(store, "other@example.com");
    let idle = Duration::hours(1);
    let token = |name: &str| TokenHash::of(name);
    store
        .open_session(&token("laptop"), id, t0(), mins(600))
        .expect("open");
    store
        .open_session(&token("phone"), id, mins(1), mins(600))
        .expect("open");
    store
        .open_session(&token("old"), id, t0(), mins(30))
        .expect("open");
    store
        .open_session(&token("tablet"), id, mins(2), mins(600))
        .expect("open");
    store
        .open_session(&token("theirs"), other, t0(), mins(600))
        .expect("open");
    store
        .touch_session(&token("laptop"), mins(40), idle)
        .expect("touch");

    let listed = |at| -> Vec<TokenHash> {
        store
            .sessions(id, at, idle)
            .expect("sessions")
            .into_iter()
            .map(|listed| listed.token)
            .collect()
    };
    assert_eq!(
        listed(mins(45)),
        vec![token("laptop"), token("tablet"), token("phone")],
        "newest use first; the expired one is not listed"
    );
    assert_eq!(
        listed(mins(61) + Duration::seconds(30)),
        vec![token("laptop"), token("tablet")],
        "the phone went idle"
    );
    assert!(
        !store
            .close_account_session(other, &token("tablet"))
            .expect("close")
    );
    assert!(
        store
            .close_account_session(id, &token("tablet"))
            .expect("close")
    );
    assert!(
        !store
            .close_account_session(id, &token("tablet"))
            .expect("again")
    );
    assert_eq!(listed(mins(45)), vec![token("laptop"), token("phone")]);

    assert_eq!(
        store
            .close_other_sessions(id, &token("laptop"))
            .expect("others"),
        2
    );
    assert_eq!(listed(mins(45)), vec![token("laptop")]);
    assert_eq!(
        store.sessions(other, mins(45), idle).expect("theirs").len(),
        1
    );
    assert!(store.sessions(missing_account(), t0(), idle).is_err());
}

/// Closing an account revokes its keys, ends its sessions and tokens, removes its login (the
/// address may sign up again) and request log, and forfeits the balance with a ledger row;
/// the ledger stays.
pub fn a_closed_account_keeps_its_ledger_and_nothing_else<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    store.add_credits(id, 10, t0()).expect("add");
    let key = new_key(store, id).key_id;
    let session = TokenHash::of("session");
    store
        .open_session(&session, id, t0(), mins(600))
        .expect("open");
    store
        .issue_token(
            TokenPurpose::ResetPassword,
            &TokenHash::of("reset"),
            id,
            t0(),
            mins(60),
        )
        .expect("token");
    store
        .record_requests(&[logged(&key, 200, mins(1))])
        .expect("log");

    assert_eq!(store.close_account(id, mins(5)).expect("close"), 10);
    assert_eq!(balance(store, id), 0);
    let last = ledger(store, id).pop().expect("a ledger row");
    assert_eq!(
        (last.operation.as_str(), last.amount, last.balance_after),
        (CLOSE_OPERATION, -10, 0)
    );
    assert_eq!(ledger(store, id).len(), 2, "the earlier rows stay");
    assert!(store.key(&key).expect("key").revoked_at.is_some());
    assert_eq!(
        store
            .touch_session(&session, mins(6), Duration::hours(1))
            .expect("t"),
        None
    );
    assert_eq!(
        store
            .consume_token(
                TokenPurpose::ResetPassword,
                &TokenHash::of("reset"),
                mins(6)
            )
            .expect("token"),
        None
    );
    assert!(store.login(id).expect("login").is_none());
    assert!(
        store
            .login_by_email(&email("dev@example.com"))
            .expect("login")
            .is_none()
    );
    assert!(
        store
            .requests(id, &RequestFilter::default(), 10)
            .expect("log")
            .is_empty()
    );
    assert_ne!(
        store.account(id).expect("account").email.as_str(),
        "dev@example.com"
    );
    let again = developer(store, "dev@example.com");
    assert_ne!(again, id, "the address signs up anew");
    assert_eq!(store.close_account(id, mins(7)).expect("again"), 0);
}

/// A sign-in address change waits for its token: the old address signs in until then; a
/// used, expired or unknown token changes nothing; an address another login has (or takes
/// meanwhile) is refused.
pub fn an_address_change_takes_effect_once_confirmed<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    developer(store, "other@example.com");
    let token = TokenHash::of("change");
    assert!(matches!(
        store.request_email_change(id, &email("Other@example.com"), &token, t0(), mins(60)),
        Err(DeveloperError::EmailTaken)
    ));
    store
        .request_email_change(id, &email("new@example.com"), &token, t0(), mins(60))
        .expect("request");
    assert!(
        store
            .login_by_email(&email("new@example.com"))
            .expect("login")
            .is_none()
    );
    assert_eq!(
        store
            .confirm_email_change(&TokenHash::of("guess"), mins(1))
            .expect("confirm"),
        None
    );
    let change = store
        .confirm_email_change(&token, mins(5))
        .expect("confirm")
        .expect("the change");
    assert_eq!(
        (change.account, change.old.as_str(), change.new.as_str()),
        (id, "dev@example.com", "new@example.com")
    );
    assert_eq!(
        store.confirm_email_change(&token, mins(6)).expect("again"),
        None
    );
    let login = store
        .login_by_email(&email("NEW@example.com"))
        .expect("login")
        .expect("moved");
    assert_eq!(login.account_id, id);
    assert!(
        store
            .login_by_email(&email("dev@example.com"))
            .expect("login")
            .is_none()
    );
    assert_eq!(
        store.account(id).expect("account").email.as_str(),
        "new@example.com"
    );

    let late = TokenHash::of("late");
    store
        .request_email_change(id, &email("late@example.com"), &late, mins(10), mins(20))
        .expect("request");
    assert_eq!(
        store
            .confirm_email_change(&late, mins(21))
            .expect("expired"),
        None
    );

    let race = TokenHash::of("race");
    store
        .request_email_change(id, &email("race@example.com"), &race, mins(30), mins(90))
        .expect("request");
    developer(store, "race@example.com");
    assert!(matches!(
        store.confirm_email_change(&race, mins(31)),
        Err(DeveloperError::EmailTaken)
    ));
    assert_eq!(
        store
            .login(id)
            .expect("login")
            .expect("kept")
            .email
            .as_str(),
        "new@example.com"
    );
}

/// A balance falling below the owner's threshold is due until it is marked told (a mail
/// that failed is tried again); once told, it is due again only after the balance went back
/// up to the threshold and fell again; no threshold, no alert.
pub fn a_low_balance_is_told_once_per_crossing<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let quiet = developer(store, "quiet@example.com");
    store.add_credits(id, 10, t0()).expect("add");
    store.add_credits(quiet, 1, t0()).expect("add");
    store.set_low_balance_alert(id, Some(5)).expect("set");
    let key = new_key(store, id).key_id;
    let charged = std::cell::Cell::new(0);
    let spend = |count: u32| {
        for _ in 0..count {
            charged.set(charged.get() + 1);
            let request = format!("low-{}", charged.get());
            store
                .charge(id, &key, &request, "search", t0())
                .expect("charge");
        }
    };
    let tell = || {
        let due = store.due_low_balance_alerts().expect("due");
        for alert in &due {
            store.mark_low_balance_told(alert).expect("told");
        }
        due
    };
    assert_eq!(store.low_balance_alert(id).expect("read"), Some(5));
    assert_eq!(tell(), vec![]);

    spend(6);
    let crossed = LowBalance {
        account: id,
        email: email("dev@example.com"),
        balance: 4,
        threshold: 5,
    };
    assert_eq!(
        store.due_low_balance_alerts().expect("due"),
        vec![crossed.clone()]
    );
    assert_eq!(
        store.due_low_balance_alerts().expect("due"),
        vec![crossed.clone()],
        "due until told (its mail may have failed)"
    );
    assert_eq!(tell(), vec![crossed]);
    assert_eq!(tell(), vec![], "told once");
    spend(1);
    assert_eq!(tell(), vec![], "lower still: no second alert");

    store.add_credits(id, 10, t0()).expect("top up");
    assert_eq!(tell(), vec![], "back up");
    spend(9);
    let fell_again = store.due_low_balance_alerts().expect("fell again");
    assert_eq!(fell_again.len(), 1);
    store
        .set_low_balance_alert(id, Some(6))
        .expect("new threshold");
    store
        .mark_low_balance_told(&fell_again[0])
        .expect("told of the old threshold");
    let due = store.due_low_balance_alerts().expect("due");
    assert_eq!(
        (due.len(), due[0].threshold),
        (1, 6),
        "telling of the old threshold leaves the new one due"
    );

    store.set_low_balance_alert(id, None).expect("clear");
    assert_eq!(store.low_balance_alert(id).expect("read"), None);
    spend(1);
    assert_eq!(tell(), vec![]);
}

/// Two-factor sign-in: turned on once, with the step its setup code was for used; each app
/// code's step and each recovery code counts once, per account; new recovery codes replace
/// the old; turning it off (or closing the account) deletes the secret and codes.
pub fn two_factor_codes_count_once<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let other = developer(store, "other@example.com");
    let secret = b"twenty bytes secret!".to_vec();
    let codes = [TokenHash::of("aaaa-bbbb"), TokenHash::of("cccc-dddd")];
    assert_eq!(store.two_factor(id).expect("read"), None);
    assert!(
        !store
            .use_second_factor(id, &SecondFactor::Step(100), t0())
            .expect("use"),
        "off: no proof passes"
    );
    assert!(
        store
            .enable_two_factor(id, &secret, 100, &codes, t0())
            .expect("on")
    );
    assert!(
        !store
            .enable_two_factor(id, b"another secret, longer", 101, &codes, mins(1))
            .expect("again"),
        "on once"
    );
    let on = store.two_factor(id).expect("read").expect("on");
    assert_eq!(
        (on.secret, on.enabled_at, on.recovery_codes_left),
        (secret, t0(), 2)
    );

    let step = |n: u64| SecondFactor::Step(n);
    assert!(
        !store.use_second_factor(id, &step(100), t0()).expect("use"),
        "the setup code's step is used"
    );
    assert!(store.use_second_factor(id, &step(101), t0()).expect("use"));
    assert!(
        !store.use_second_factor(id, &step(101), t0()).expect("use"),
        "a code counts once"
    );
    assert!(
        !store.use_second_factor(id, &step(99), t0()).expect("use"),
        "an earlier step never passes again"
    );
    assert!(
        !store
            .use_second_factor(other, &step(102), t0())
            .expect("use"),
        "per account"
    );

    let code = SecondFactor::RecoveryCode(codes[0]);
    assert!(
        !store.use_second_factor(other, &code, t0()).expect("use"),
        "another account's code"
    );
    assert!(store.use_second_factor(id, &code, mins(1)).expect("use"));
    assert!(
        !store.use_second_factor(id, &code, mins(2)).expect("use"),
        "a recovery code counts once"
    );
    assert_eq!(
        store
            .two_factor(id)
            .expect("read")
            .expect("on")
            .recovery_codes_left,
        1
    );
    let fresh_codes = [TokenHash::of("eeee-ffff")];
    store
        .replace_recovery_codes(id, &fresh_codes)
        .expect("replace");
    assert!(
        !store
            .use_second_factor(id, &SecondFactor::RecoveryCode(codes[1]), mins(3))
            .expect("use"),
        "old codes stop working"
    );
    assert_eq!(
        store
            .two_factor(id)
            .expect("read")
            .expect("on")
            .recovery_codes_left,
        1
    );

    store.disable_two_factor(id).expect("off");
    assert_eq!(store.two_factor(id).expect("read"), None);
    assert!(
        !store
            .use_second_factor(id, &SecondFactor::RecoveryCode(fresh_codes[0]), mins(4))
            .expect("use"),
        "off: its codes are gone"
    );
    assert!(
        store
            .enable_two_factor(id, b"a new secret of twenty", 5, &fresh_codes, mins(5))
            .expect("on again")
    );
    store.close_account(id, mins(6)).expect("close");
    assert_eq!(store.two_factor(id).expect("read"), None, "closed: deleted");
}

/// Every stored two-factor secret is listed by account; one is replaced (stored in another
/// form) only while it is the one the caller read, per account, and only while two-factor
/// sign-in is on; what else the account's two-factor holds stays.
pub fn two_factor_secrets_are_listed_and_replaced_only_from_the_stored_one<S: DeveloperStore>(
    fresh: &Fresh<'_, S>,
) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let other = developer(store, "other@example.com");
    let plain = b"twenty bytes secret!".to_vec();
    let sealed = b"sealed form of the secret, longer".to_vec();
    assert!(store.two_factor_secrets().expect("list").is_empty());
    assert!(
        !store
            .replace_two_factor_secret(id, &plain, &sealed)
            .expect("replace"),
        "off: nothing to replace"
    );
    let codes = [TokenHash::of("aaaa-bbbb")];
    assert!(
        store
            .enable_two_factor(id, &plain, 7, &codes, t0())
            .expect("on")
    );
    assert!(
        store
            .enable_two_factor(other, &plain, 7, &codes, t0())
            .expect("on")
    );
    assert_eq!(
        store.two_factor_secrets().expect("list"),
        [(id, plain.clone()), (other, plain.clone())]
    );
    assert!(
        !store
            .replace_two_factor_secret(id, b"not the stored one", &sealed)
            .expect("replace"),
        "only from the stored secret"
    );
    assert!(
        store
            .replace_two_factor_secret(id, &plain, &sealed)
            .expect("replace")
    );
    assert!(
        !store
            .replace_two_factor_secret(id, &plain, b"a third form")
            .expect("replace"),
        "a second replacement from the old form finds it gone"
    );
    assert_eq!(
        store.two_factor_secrets().expect("list"),
        [(id, sealed.clone()), (other, plain.clone())]
    );
    let on = store.two_factor(id).expect("read").expect("on");
    assert_eq!(
        (on.secret, on.enabled_at, on.recovery_codes_left),
        (sealed, t0(), 1)
    );
    assert!(
        !store
            .use_second_factor(id, &SecondFactor::Step(7), t0())
            .expect("use"),
        "the setup step stays used"
    );
    assert_eq!(
        store.two_factor(other).expect("read").expect("on").secret,
        plain,
        "per account"
    );
}

/// The activity log lists an account's newest lines first, at most `limit` of them.
pub fn activity_is_newest_first_per_account<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let other = developer(store, "other@example.com");
    for i in 0..5 {
        store
            .record_activity(id, "sign_in", &format!("line {i}"), mins(i))
            .expect("record");
    }
    store
        .record_activity(other, "key_created", "theirs", mins(10))
        .expect("record");

    let lines = store.activity(id, 3).expect("activity");
    let details: Vec<&str> = lines.iter().map(|a| a.detail.as_str()).collect();
    assert_eq!(details, vec!["line 4", "line 3", "line 2"]);
    assert_eq!(lines[0].at, mins(4));
    assert_eq!(lines[0].kind, "sign_in");
    assert_eq!(store.activity(id, 100).expect("activity").len(), 5);

    let theirs = store.activity(other, 100).expect("activity");
    assert_eq!(theirs.len(), 1);
    assert_eq!(theirs[0].kind, "key_created");
    assert_eq!(theirs[0].detail, "theirs");
    let quiet = developer(store, "quiet@example.com");
    assert!(store.activity(quiet, 10).expect("activity").is_empty());
}

fn count(key: &KeyId, day: NaiveDate, endpoint: &str, status: u16, n: u64) -> UsageCount {
    UsageCount {
        key_id: key.clone(),
        day,
        endpoint: endpoint.to_owned(),
        status,
        count: n,
        last_at: day.and_hms_opt(12, 0, 0).expect("valid time").and_utc(),
    }
}

/// Counts of one (key, day, endpoint, status) add up into one row that keeps the latest
/// `last_at`, within a batch and across batches; other statuses and endpoints stay apart.
pub fn usage_sums_into_one_row<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let key = new_key(store, id).key_id;
    let posts = "/api/v1/posts/{id}";
    let late = UsageCount {
        last_at: jan(2).and_hms_opt(18, 0, 0).expect("valid").and_utc(),
        ..count(&key, jan(2), posts, 200, 2)
    };
    store
        .record_usage(&[count(&key, jan(2), posts, 200, 3), late.clone()])
        .expect("record");
    // An earlier `last_at` arriving later does not move it back.
    store
        .record_usage(&[
            count(&key, jan(2), posts, 200, 4),
            count(&key, jan(2), posts, 402, 1),
            count(&key, jan(2), "/api/v1/search", 200, 7),
        ])
        .expect("record");
    store.record_usage(&[]).expect("nothing to record");

    let rows = store.usage(id, jan(1)).expect("usage");
    assert_eq!(rows.len(), 3, "{rows:?}");
    let summed = rows
        .iter()
        .find(|r| r.endpoint == posts && r.status == 200)
        .expect("the summed row");
    assert_eq!(summed.count, 9);
    assert_eq!(summed.last_at, late.last_at);
    assert_eq!(summed.key_id, key);
    assert_eq!(summed.day, jan(2));
    let refused = rows
        .iter()
        .find(|r| r.endpoint == posts && r.status == 402)
        .expect("the 402 row");
    assert_eq!(refused.count, 1);
    let search = rows
        .iter()
        .find(|r| r.endpoint == "/api/v1/search")
        .expect("the search row");
    assert_eq!(search.count, 7);
}

/// Counts of keys the store does not hold are skipped without failing the batch.
pub fn usage_of_unknown_keys_is_skipped<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let key = new_key(store, id).key_id;
    let stranger = KeyId::generate();
    store
        .record_usage(&[
            count(&stranger, jan(2), "/api/v1/search", 200, 5),
            count(&key, jan(2), "/api/v1/search", 200, 1),
        ])
        .expect("unknown keys are skipped, not an error");
    let rows = store.usage(id, jan(1)).expect("usage");
    assert_eq!(rows, vec![count(&key, jan(2), "/api/v1/search", 200, 1)]);
}

/// `usage` returns the rows of the account's keys (revoked ones too) from `since`, by day.
pub fn usage_is_per_account_from_a_day<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let other = developer(store, "other@example.com");
    let a = new_key(store, id).key_id;
    let b = new_key(store, id).key_id;
    let theirs = new_key(store, other).key_id;
    store.revoke_key(&b, t0()).expect("revoke");
    let search = "/api/v1/search";
    store
        .record_usage(&[
            count(&a, jan(5), search, 200, 1),
            count(&b, jan(3), search, 200, 2),
            count(&a, jan(2), search, 200, 3),
            count(&theirs, jan(4), search, 200, 4),
            count(&b, jan(5), search, 200, 5),
        ])
        .expect("record");

    let rows = store.usage(id, jan(3)).expect("usage");
    let days: Vec<NaiveDate> = rows.iter().map(|r| r.day).collect();
    assert_eq!(days, vec![jan(3), jan(5), jan(5)], "from jan 3, by day");
    let mut found: Vec<(KeyId, NaiveDate, u64)> = rows
        .iter()
        .map(|r| (r.key_id.clone(), r.day, r.count))
        .collect();
    found.sort_by(|x, y| (x.1, x.0.as_str()).cmp(&(y.1, y.0.as_str())));
    let mut expected = vec![
        (b.clone(), jan(3), 2),
        (a.clone(), jan(5), 1),
        (b.clone(), jan(5), 5),
    ];
    expected.sort_by(|x, y| (x.1, x.0.as_str()).cmp(&(y.1, y.0.as_str())));
    assert_eq!(found, expected);

    assert_eq!(store.usage(id, jan(1)).expect("usage").len(), 4);
    assert!(store.usage(id, jan(6)).expect("usage").is_empty());
    let theirs_rows = store.usage(other, jan(1)).expect("usage");
    assert_eq!(theirs_rows, vec![count(&theirs, jan(4), search, 200, 4)]);
}

/// A key's name is set (trimmed) and cleared with `None` or blank; an unknown key is an error.
pub fn rename_key_sets_and_clears<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let key = new_key(store, id).key_id;
    let name = |k: &KeyId| store.key(k).expect("key").name;

    assert_eq!(
        store.rename_key(&key, Some("  ci  ")).expect("rename"),
        Some("ci".to_owned())
    );
    assert_eq!(name(&key), Some("ci".to_owned()));
    assert_eq!(store.rename_key(&key, Some("   ")).expect("blank"), None);
    assert_eq!(name(&key), None);
    store.rename_key(&key, Some("laptop")).expect("rename");
    assert_eq!(store.rename_key(&key, None).expect("clear"), None);
    assert_eq!(name(&key), None);

    assert!(matches!(
        store.rename_key(&KeyId::generate(), Some("x")),
        Err(DeveloperError::Account(AccountError::KeyNotFound(_)))
    ));
}

/// A create form sent twice (a reloaded answer page) creates one key: the second sending
/// answers the first one's key, without a secret. Another form creates another key, and
/// one account's form token means nothing for another account.
pub fn a_create_form_sent_twice_creates_one_key<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let form = TokenHash::of("form-1");
    let new = NewKey {
        name: Some("prod".to_owned()),
        ..NewKey::default()
    };
    let KeyCreation::Created(first) = store
        .create_key_once(id, &form, &new, t0())
        .expect("create")
    else {
        panic!("the first sending creates the key");
    };
    match store
        .create_key_once(id, &form, &new, mins(1))
        .expect("again")
    {
        KeyCreation::AlreadyCreated(before) => assert_eq!(before, first.info),
        KeyCreation::Created(_) => panic!("a second key from one form"),
    }
    assert_eq!(store.list_keys(id).expect("keys").len(), 1);

    let other_form = TokenHash::of("form-2");
    assert!(matches!(
        store.create_key_once(id, &other_form, &new, mins(2)),
        Ok(KeyCreation::Created(_))
    ));
    let stranger = developer(store, "other@example.com");
    assert!(matches!(
        store.create_key_once(stranger, &form, &new, mins(3)),
        Ok(KeyCreation::Created(_))
    ));
    assert_eq!(store.list_keys(id).expect("keys").len(), 2);
}

/// Orders start pending, take their checkout id, and are listed per account, newest first.
pub fn topups_are_orders_newest_first<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let other = developer(store, "other@example.com");
    let new = NewTopup {
        credits: 1000,
        amount_cents: 500,
        currency: "eur".to_owned(),
        provider: "stripe".to_owned(),
    };
    let first = store.create_topup(id, &new, t0()).expect("create");
    assert_eq!(first.account_id, id);
    assert_eq!(first.credits, 1000);
    assert_eq!(first.amount_cents, 500);
    assert_eq!(first.currency, "eur");
    assert_eq!(first.provider, "stripe");
    assert_eq!(first.status, TopupStatus::Pending);
    assert_eq!(first.reference, None);
    assert_eq!(first.payment_intent, None);
    assert_eq!((first.refunded_cents, first.refunded_credits), (0, 0));
    assert_eq!(first.created_at, t0());
    assert_eq!(balance(store, id), 0, "an order credits nothing");

    store
        .set_topup_reference(first.id, "cs_test_1")
        .expect("reference");
    let stored = store.topup(first.id).expect("read");
    assert_eq!(stored.reference.as_deref(), Some("cs_test_1"));
    assert_eq!(stored.status, TopupStatus::Pending);

    let second = store.create_topup(id, &new, mins(1)).expect("create");
    let theirs = store.create_topup(other, &new, mins(2)).expect("create");
    assert_ne!(first.id, second.id);
    let ids: Vec<i64> = store
        .topups(id)
        .expect("list")
        .iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, vec![second.id, first.id]);
    let their_ids: Vec<i64> = store
        .topups(other)
        .expect("list")
        .iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(their_ids, vec![theirs.id]);

    let unknown = theirs.id + 1000;
    assert!(matches!(
        store.topup(unknown),
        Err(DeveloperError::TopupNotFound(n)) if n == unknown
    ));
    assert!(matches!(
        store.set_topup_reference(unknown, "cs_x"),
        Err(DeveloperError::TopupNotFound(_))
    ));
    assert!(store.create_topup(missing_account(), &new, t0()).is_err());
}

/// A paid checkout credits its order once, with one ledger row keyed by the order; the same
/// event again is a duplicate, another event about the same payment is ignored.
pub fn a_paid_checkout_credits_once<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    store.add_credits(id, 7, t0()).expect("credits before");
    let topup = order(store, id, 1000, 500, "cs_1");
    let facts = paid(&topup, "cs_1", "pi_1");

    assert_eq!(
        apply(
            store,
            "evt_1",
            PaymentEventKind::CheckoutCompleted(facts.clone())
        ),
        PaymentOutcome::Credited {
            topup_id: topup.id,
            credits: 1000,
            balance: 1007,
        }
    );
    assert_eq!(balance(store, id), 1007);
    let stored = store.topup(topup.id).expect("read");
    assert_eq!(stored.status, TopupStatus::Paid);
    assert_eq!(stored.payment_intent.as_deref(), Some("pi_1"));
    let rows = rows_of(store, id, TOPUP_OPERATION);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].amount, 1000);
    assert_eq!(rows[0].balance_after, 1007);
    let key = format!("topup:{}", topup.id);
    assert_eq!(rows[0].request_id.as_deref(), Some(key.as_str()));

    assert_eq!(
        apply(
            store,
            "evt_1",
            PaymentEventKind::CheckoutCompleted(facts.clone())
        ),
        PaymentOutcome::Duplicate
    );
    assert!(matches!(
        apply(
            store,
            "evt_2",
            PaymentEventKind::CheckoutCompleted(facts.clone())
        ),
        PaymentOutcome::Ignored(_)
    ));
    assert!(matches!(
        apply(store, "evt_3", PaymentEventKind::PaymentSucceeded(facts)),
        PaymentOutcome::Ignored(_)
    ));
    assert_eq!(balance(store, id), 1007);
    assert_eq!(rows_of(store, id, TOPUP_OPERATION).len(), 1);
}

/// A payment of another amount or currency than the order's is rejected and credits nothing;
/// the order stays pending and the right payment still credits it.
pub fn a_mismatched_payment_is_rejected<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let topup = order(store, id, 1000, 500, "cs_1");
    let facts = paid(&topup, "cs_1", "pi_1");
    let cheaper = CheckoutFacts {
        amount: 499,
        ..facts.clone()
    };
    let dollars = CheckoutFacts {
        currency: "usd".to_owned(),
        ..facts.clone()
    };
    assert!(matches!(
        apply(store, "evt_1", PaymentEventKind::CheckoutCompleted(cheaper)),
        PaymentOutcome::Rejected(_)
    ));
    assert!(matches!(
        apply(store, "evt_2", PaymentEventKind::PaymentSucceeded(dollars)),
        PaymentOutcome::Rejected(_)
    ));
    assert_eq!(balance(store, id), 0);
    assert!(ledger(store, id).is_empty());
    assert_eq!(status(store, &topup), TopupStatus::Pending);

    assert!(matches!(
        apply(store, "evt_3", PaymentEventKind::CheckoutCompleted(facts)),
        PaymentOutcome::Credited { credits: 1000, .. }
    ));
    assert_eq!(balance(store, id), 1000);
}

/// A checkout naming no known order (or an order with another checkout) is rejected.
pub fn an_unknown_checkout_is_rejected<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let topup = order(store, id, 1000, 500, "cs_1");
    let stranger = CheckoutFacts {
        reference: "cs_unknown".to_owned(),
        topup_id: None,
        ..paid(&topup, "cs_1", "pi_1")
    };
    assert!(matches!(
        apply(
            store,
            "evt_1",
            PaymentEventKind::CheckoutCompleted(stranger)
        ),
        PaymentOutcome::Rejected(_)
    ));
    let wrong_checkout = paid(&topup, "cs_other", "pi_1");
    assert!(matches!(
        apply(
            store,
            "evt_2",
            PaymentEventKind::CheckoutCompleted(wrong_checkout)
        ),
        PaymentOutcome::Rejected(_)
    ));
    let no_such_order = CheckoutFacts {
        reference: "cs_nothing".to_owned(),
        topup_id: Some(topup.id + 1000),
        ..paid(&topup, "cs_1", "pi_1")
    };
    assert!(matches!(
        apply(
            store,
            "evt_3",
            PaymentEventKind::CheckoutCompleted(no_such_order)
        ),
        PaymentOutcome::Rejected(_)
    ));
    assert_eq!(balance(store, id), 0);
    assert_eq!(status(store, &topup), TopupStatus::Pending);

    // Found by its checkout id alone, without our order id.
    let by_reference = CheckoutFacts {
        topup_id: None,
        ..paid(&topup, "cs_1", "pi_1")
    };
    assert!(matches!(
        apply(
            store,
            "evt_4",
            PaymentEventKind::CheckoutCompleted(by_reference)
        ),
        PaymentOutcome::Credited { credits: 1000, .. }
    ));
}

/// After a payment, a failure or expiry of the same checkout changes nothing.
pub fn failures_and_expiries_never_undo_a_payment<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let topup = order(store, id, 1000, 500, "cs_1");
    let facts = paid(&topup, "cs_1", "pi_1");
    assert!(matches!(
        apply(
            store,
            "evt_1",
            PaymentEventKind::CheckoutCompleted(facts.clone())
        ),
        PaymentOutcome::Credited { .. }
    ));
    let unpaid = CheckoutFacts {
        paid: false,
        ..facts
    };
    assert!(matches!(
        apply(
            store,
            "evt_2",
            PaymentEventKind::CheckoutExpired(unpaid.clone())
        ),
        PaymentOutcome::Ignored(_)
    ));
    assert!(matches!(
        apply(
            store,
            "evt_3",
            PaymentEventKind::PaymentFailed(unpaid.clone())
        ),
        PaymentOutcome::Ignored(_)
    ));
    assert!(matches!(
        apply(store, "evt_4", PaymentEventKind::CheckoutCompleted(unpaid)),
        PaymentOutcome::Ignored(_)
    ));
    assert_eq!(status(store, &topup), TopupStatus::Paid);
    assert_eq!(balance(store, id), 1000);
}

/// A pending order's failure or expiry is recorded on it, without credits.
pub fn a_pending_order_fails_or_expires<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let expiring = order(store, id, 1000, 500, "cs_1");
    let failing = order(store, id, 1000, 500, "cs_2");
    let expired = CheckoutFacts {
        paid: false,
        payment_intent: None,
        ..paid(&expiring, "cs_1", "pi_1")
    };
    let failed = CheckoutFacts {
        paid: false,
        ..paid(&failing, "cs_2", "pi_2")
    };
    assert_eq!(
        apply(store, "evt_1", PaymentEventKind::CheckoutExpired(expired)),
        PaymentOutcome::Updated {
            topup_id: expiring.id,
            status: TopupStatus::Expired,
        }
    );
    assert_eq!(
        apply(store, "evt_2", PaymentEventKind::PaymentFailed(failed)),
        PaymentOutcome::Updated {
            topup_id: failing.id,
            status: TopupStatus::Failed,
        }
    );
    assert_eq!(status(store, &expiring), TopupStatus::Expired);
    assert_eq!(status(store, &failing), TopupStatus::Failed);
    assert_eq!(balance(store, id), 0);
    assert!(ledger(store, id).is_empty());
}

/// A checkout completed before the money arrived waits; the later payment credits once.
pub fn an_async_payment_credits_once<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let topup = order(store, id, 1000, 500, "cs_1");
    let facts = paid(&topup, "cs_1", "pi_1");
    let awaiting = CheckoutFacts {
        paid: false,
        ..facts.clone()
    };
    assert_eq!(
        apply(
            store,
            "evt_1",
            PaymentEventKind::CheckoutCompleted(awaiting)
        ),
        PaymentOutcome::Updated {
            topup_id: topup.id,
            status: TopupStatus::Pending,
        }
    );
    assert_eq!(balance(store, id), 0);
    assert_eq!(
        apply(
            store,
            "evt_2",
            PaymentEventKind::PaymentSucceeded(facts.clone())
        ),
        PaymentOutcome::Credited {
            topup_id: topup.id,
            credits: 1000,
            balance: 1000,
        }
    );
    assert!(matches!(
        apply(store, "evt_3", PaymentEventKind::PaymentSucceeded(facts)),
        PaymentOutcome::Ignored(_)
    ));
    assert_eq!(balance(store, id), 1000);
    assert_eq!(rows_of(store, id, TOPUP_OPERATION).len(), 1);
    assert_eq!(status(store, &topup), TopupStatus::Paid);
}

/// A refund takes back the refunded share of the credits, once per cumulative amount; a full
/// refund takes the rest. Refunds of unknown payments are rejected.
pub fn refunds_take_back_the_refunded_share<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let topup = order(store, id, 1000, 500, "cs_1");
    let facts = paid(&topup, "cs_1", "pi_1");
    apply(store, "evt_pay", PaymentEventKind::CheckoutCompleted(facts));
    assert_eq!(balance(store, id), 1000);

    assert_eq!(
        apply(store, "evt_r1", refund("pi_1", 250)),
        PaymentOutcome::Refunded {
            topup_id: topup.id,
            credits: 500,
        }
    );
    assert_eq!(balance(store, id), 500);
    let rows = rows_of(store, id, REFUND_OPERATION);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].amount, -500);
    assert_eq!(rows[0].balance_after, 500);
    assert_eq!(rows[0].request_id.as_deref(), Some("refund:evt_r1"));

    assert_eq!(
        apply(store, "evt_r1", refund("pi_1", 250)),
        PaymentOutcome::Duplicate
    );
    assert!(matches!(
        apply(store, "evt_r2", refund("pi_1", 250)),
        PaymentOutcome::Ignored(_)
    ));
    assert_eq!(balance(store, id), 500);

    assert_eq!(
        apply(store, "evt_r3", refund("pi_1", 500)),
        PaymentOutcome::Refunded {
            topup_id: topup.id,
            credits: 500,
        }
    );
    assert_eq!(balance(store, id), 0);
    assert_eq!(rows_of(store, id, REFUND_OPERATION).len(), 2);
    let stored = store.topup(topup.id).expect("read");
    assert_eq!(stored.refunded_cents, 500);
    assert_eq!(stored.refunded_credits, 1000);
    assert_eq!(
        stored.status,
        TopupStatus::Paid,
        "a refund is recorded beside it"
    );

    assert!(matches!(
        apply(store, "evt_r4", refund("pi_unknown", 100)),
        PaymentOutcome::NotYet(_)
    ));
    assert!(
        matches!(
            apply(store, "evt_r4", refund("pi_unknown", 100)),
            PaymentOutcome::NotYet(_)
        ),
        "a refund before its payment is not recorded: its next delivery is applied"
    );
    assert_eq!(balance(store, id), 0);
}

/// A refund takes back at most what the account still holds: the balance never goes below 0.
pub fn refunds_never_overdraw<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let topup = order(store, id, 10, 1000, "cs_1");
    apply(
        store,
        "evt_pay",
        PaymentEventKind::CheckoutCompleted(paid(&topup, "cs_1", "pi_1")),
    );
    spend(store, id, 7);
    assert_eq!(balance(store, id), 3);

    // Half of the price owes 5 credits back; 3 are left.
    assert_eq!(
        apply(store, "evt_r1", refund("pi_1", 500)),
        PaymentOutcome::Refunded {
            topup_id: topup.id,
            credits: 3,
        }
    );
    assert_eq!(balance(store, id), 0);
    let rows = rows_of(store, id, REFUND_OPERATION);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].amount, -3);
    assert_eq!(rows[0].balance_after, 0);

    let outcome = apply(store, "evt_r2", refund("pi_1", 1000));
    assert!(
        matches!(
            outcome,
            PaymentOutcome::Refunded { credits: 0, .. } | PaymentOutcome::Ignored(_)
        ),
        "nothing left to take: {outcome:?}"
    );
    assert_eq!(balance(store, id), 0);
    assert!(
        ledger(store, id).iter().all(|row| row.amount != 0),
        "no empty ledger rows"
    );
}

/// A refund in another currency than the order's contradicts it: rejected, nothing taken.
pub fn a_refund_in_another_currency_is_rejected<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let topup = order(store, id, 1000, 500, "cs_1");
    apply(
        store,
        "evt_pay",
        PaymentEventKind::CheckoutCompleted(paid(&topup, "cs_1", "pi_1")),
    );
    let dollars = PaymentEventKind::Refunded {
        payment_intent: "pi_1".to_owned(),
        amount_refunded: 500,
        currency: "usd".to_owned(),
    };
    let outcome = apply(store, "evt_r1", dollars);
    assert!(
        matches!(outcome, PaymentOutcome::Rejected(_)),
        "a USD refund of a EUR order: {outcome:?}"
    );
    assert_eq!(balance(store, id), 1000);
    assert!(rows_of(store, id, REFUND_OPERATION).is_empty());
}

/// 8 threads deliver the same event at once, then 8 threads deliver distinct events of the
/// same payment: the order is credited exactly once.
pub fn concurrent_deliveries_credit_once<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store = Arc::new(fresh.backend());
    let id = developer(&*store, "dev@example.com");
    let topup = order(&*store, id, 1000, 500, "cs_1");
    let facts = paid(&topup, "cs_1", "pi_1");
    let deliver = |event_id: &dyn Fn(usize) -> String| -> Vec<PaymentOutcome> {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let store = Arc::clone(&store);
                    let event = PaymentEvent {
                        event_id: event_id(i),
                        kind: PaymentEventKind::CheckoutCompleted(facts.clone()),
                    };
                    scope.spawn(move || {
                        store
                            .apply_payment_event(&event, t0())
                            .expect("apply completes")
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("thread"))
                .collect()
        })
    };

    let same = deliver(&|_| "evt_same".to_owned());
    let credited = same
        .iter()
        .filter(|o| matches!(o, PaymentOutcome::Credited { .. }))
        .count();
    let duplicates = same
        .iter()
        .filter(|o| **o == PaymentOutcome::Duplicate)
        .count();
    assert_eq!((credited, duplicates), (1, 7), "{same:?}");

    let distinct = deliver(&|i| format!("evt_{i}"));
    assert!(
        distinct
            .iter()
            .all(|o| matches!(o, PaymentOutcome::Ignored(_))),
        "already paid: {distinct:?}"
    );
    assert_eq!(balance(&*store, id), 1000);
    assert_eq!(rows_of(&*store, id, TOPUP_OPERATION).len(), 1);
}

/// Credits are added once per idempotency key; an empty key is refused.
pub fn add_credits_once_is_idempotent<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    assert_eq!(
        store
            .add_credits_once(id, 50, "grant-1", t0())
            .expect("add"),
        (50, true)
    );
    spend(store, id, 5);
    assert_eq!(
        store
            .add_credits_once(id, 50, "grant-1", mins(1))
            .expect("again"),
        (45, false),
        "nothing added, the current balance"
    );
    assert_eq!(
        store
            .add_credits_once(id, 70, "grant-1", mins(2))
            .expect("another amount"),
        (45, false)
    );
    assert_eq!(
        store
            .add_credits_once(id, 10, "grant-2", mins(3))
            .expect("another key"),
        (55, true)
    );
    let added: Vec<i64> = ledger(store, id)
        .iter()
        .filter(|row| row.amount > 0)
        .map(|row| row.amount)
        .collect();
    assert_eq!(added, vec![50, 10]);

    for blank in ["", "   "] {
        assert!(
            store.add_credits_once(id, 10, blank, t0()).is_err(),
            "key {blank:?}"
        );
    }
    assert!(store.add_credits_once(id, 0, "grant-3", t0()).is_err());
    assert_eq!(balance(store, id), 55);
}

/// `ledger_lines` sums a key's charges per UTC day, keeps every other row on its own, reads
/// only its window, newest first; `has_ledger_before` says whether older rows exist.
pub fn ledger_lines_sum_charges_per_day_and_key<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    store.add_credits(id, 20, t0()).expect("add");
    let a = new_key(store, id).key_id;
    store.rename_key(&a, Some("laptop")).expect("name");
    let b = new_key(store, id).key_id;
    let day = Duration::days(1);
    let charge = |key: &KeyId, request: &str, at: DateTime<Utc>| {
        store
            .charge(id, key, request, "search", at)
            .expect("charge")
            .expect("credits left");
    };
    for i in 0..3 {
        charge(&a, &format!("a{i}"), mins(i));
    }
    charge(&b, "b0", mins(5));
    charge(&b, "b1", mins(6));
    charge(&a, "a-next-day", t0() + day);
    store
        .add_credits(id, 5, t0() + day + Duration::minutes(1))
        .expect("add");

    let lines = store.ledger_lines(id, t0(), t0() + day * 2).expect("lines");
    let summary: Vec<(String, u64, u64)> = lines
        .iter()
        .map(|line| match line {
            LedgerLine::Charges {
                key_id,
                key_name,
                calls,
                credits,
                balance_after,
                ..
            } => (
                format!(
                    "{}:{}",
                    key_name.as_deref().unwrap_or(key_id.as_str()),
                    calls
                ),
                *credits,
                *balance_after,
            ),
            LedgerLine::Entry(entry) => (
                entry.operation.clone(),
                entry.amount.unsigned_abs(),
                entry.balance_after,
            ),
        })
        .collect();
    let (first_day, next_day) = (jan(1), jan(2));
    assert_eq!(
        summary,
        vec![
            ("credits_add".to_owned(), 5, 19),
            ("laptop:1".to_owned(), 1, 14),
            (format!("{}:2", b.as_str()), 2, 15),
            ("laptop:3".to_owned(), 3, 17),
            ("credits_add".to_owned(), 20, 20),
        ],
        "newest first, charges summed per day and key"
    );
    let days: Vec<NaiveDate> = lines
        .iter()
        .filter_map(|line| match line {
            LedgerLine::Charges { day, .. } => Some(*day),
            LedgerLine::Entry(_) => None,
        })
        .collect();
    assert_eq!(days, vec![next_day, first_day, first_day]);

    let later = store
        .ledger_lines(id, t0() + day, t0() + day * 2)
        .expect("lines");
    assert_eq!(later.len(), 2, "only the window's rows: {later:?}");
    assert!(!store.has_ledger_before(id, t0()).expect("before"));
    assert!(store.has_ledger_before(id, t0() + day).expect("before"));
    assert!(
        store
            .ledger_lines(missing_account(), t0(), t0() + day)
            .is_err()
    );
}

/// A logged request of `key` answered `status` at `at`.
fn logged(key: &KeyId, status: u16, at: DateTime<Utc>) -> LoggedRequest {
    LoggedRequest {
        id: 0,
        key_id: key.clone(),
        request_id: format!("req-{}-{status}", at.timestamp()),
        path: "/api/v1/search?q=bitcoin".to_owned(),
        status,
        credits: u64::from(status == 200),
        latency_ms: 12,
        source: "203.0.113.7".to_owned(),
        at,
    }
}

/// The request log keeps each request under its key's account, reads newest first with
/// filters by key and status and pages by position, skips unknown keys, and prunes by age.
pub fn the_request_log_is_per_account_filtered_paged_and_pruned<S: DeveloperStore>(
    fresh: &Fresh<'_, S>,
) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let (a, b) = (new_key(store, id).key_id, new_key(store, id).key_id);
    let stranger = developer(store, "other@example.com");
    let theirs = new_key(store, stranger).key_id;
    store
        .record_requests(&[
            logged(&a, 200, mins(1)),
            logged(&b, 402, mins(2)),
            logged(&a, 403, mins(3)),
            logged(&theirs, 200, mins(4)),
            logged(&KeyId::generate(), 200, mins(5)),
            logged(&a, 200, mins(60)),
        ])
        .expect("record");
    let all = store
        .requests(id, &RequestFilter::default(), 10)
        .expect("requests");
    let seen: Vec<(u16, DateTime<Utc>)> = all.iter().map(|r| (r.status, r.at)).collect();
    assert_eq!(
        seen,
        vec![
            (200, mins(60)),
            (403, mins(3)),
            (402, mins(2)),
            (200, mins(1))
        ],
        "the account's own, newest first"
    );
    assert_eq!(
        all[3],
        LoggedRequest {
            id: all[3].id,
            ..logged(&a, 200, mins(1))
        }
    );
    let by_key = RequestFilter {
        key: Some(b.clone()),
        ..RequestFilter::default()
    };
    assert_eq!(store.requests(id, &by_key, 10).expect("by key").len(), 1);
    let by_status = RequestFilter {
        status: Some(200),
        ..RequestFilter::default()
    };
    assert_eq!(
        store.requests(id, &by_status, 10).expect("by status").len(),
        2
    );
    let first_page = store
        .requests(id, &RequestFilter::default(), 2)
        .expect("page");
    let next = RequestFilter {
        before_id: Some(first_page[1].id),
        ..RequestFilter::default()
    };
    let second_page = store.requests(id, &next, 2).expect("page");
    assert_eq!(second_page, all[2..].to_vec());

    let hour = |n: i64, status: u16, count: u64| HourCount {
        hour: mins(60 * n),
        status,
        count,
    };
    assert_eq!(
        store
            .hourly_requests(id, None, t0(), mins(120))
            .expect("hourly"),
        vec![
            hour(0, 200, 1),
            hour(0, 402, 1),
            hour(0, 403, 1),
            hour(1, 200, 1)
        ],
        "per hour and status, the account's own"
    );
    assert_eq!(
        store
            .hourly_requests(id, Some(&a), t0(), mins(60))
            .expect("hourly"),
        vec![hour(0, 200, 1), hour(0, 403, 1)],
        "one key's, until the range's end"
    );

    assert_eq!(store.prune_requests(mins(5)).expect("prune"), 4);
    let left = store
        .requests(id, &RequestFilter::default(), 10)
        .expect("requests");
    assert_eq!(left.len(), 1, "only the newer one is kept: {left:?}");

    // A busy minute: many requests in one write, kept in the order they came.
    let many: Vec<LoggedRequest> = (0..450).map(|i| logged(&b, 200, mins(100 + i))).collect();
    store.record_requests(&many).expect("record many");
    let filter = RequestFilter {
        key: Some(b.clone()),
        ..RequestFilter::default()
    };
    let read = store.requests(id, &filter, 1000).expect("requests");
    let times: Vec<DateTime<Utc>> = read.iter().rev().map(|r| r.at).collect();
    let sent: Vec<DateTime<Utc>> = many.iter().map(|r| r.at).collect();
    assert_eq!(times, sent, "every one, newest first");
    assert!(
        store
            .requests(missing_account(), &RequestFilter::default(), 10)
            .is_err()
    );
}

/// `purge_expired` deletes sessions past either expiry and tokens past theirs, and nothing
/// still usable.
pub fn expired_sessions_and_tokens_are_purged<S: DeveloperStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn DeveloperStore = &fresh.backend();
    let id = developer(store, "dev@example.com");
    let idle = Duration::minutes(30);
    let (old, idle_one, live) = (
        TokenHash::of("old"),
        TokenHash::of("idle"),
        TokenHash::of("live"),
    );
    store.open_session(&old, id, t0(), mins(10)).expect("open");
    store
        .open_session(&idle_one, id, t0(), mins(600))
        .expect("open");
    store
        .open_session(&live, id, t0(), mins(600))
        .expect("open");
    store.touch_session(&live, mins(25), idle).expect("touch");
    let (spent, fresh_token) = (TokenHash::of("spent"), TokenHash::of("fresh"));
    store
        .issue_token(TokenPurpose::VerifyEmail, &spent, id, t0(), mins(20))
        .expect("issue");
    store
        .issue_token(
            TokenPurpose::ResetPassword,
            &fresh_token,
            id,
            t0(),
            mins(120),
        )
        .expect("issue");
    assert_eq!(store.purge_expired(mins(40), idle).expect("purge"), 3);
    assert!(
        store
            .touch_session(&live, mins(41), idle)
            .expect("touch")
            .is_some()
    );
    assert_eq!(
        store
            .consume_token(TokenPurpose::ResetPassword, &fresh_token, mins(41))
            .expect("consume"),
        Some(id)
    );
    assert_eq!(store.purge_expired(mins(41), idle).expect("again"), 0);
}
