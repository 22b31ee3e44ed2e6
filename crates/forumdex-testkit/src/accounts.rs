//! The conformance suite of [`AccountStore`]: every backend passes these cases, each on
//! fresh, empty stores. [`account_store_conformance!`](crate::account_store_conformance)
//! runs them all.

use chrono::{DateTime, Duration, TimeZone, Utc};
use forumdex_accounts::{
    AccountError, AccountId, AccountStore, AllowEntry, ApiKey, AuthError, Email, KeyId, KeyInfo,
    KeyLifetime, KeyStatus, NewKey,
};

use crate::Fresh;

/// Runs every case of [`accounts`](crate::accounts) as a `#[test]` in a module
/// `account_store_conformance`, on stores made by `$make` (`|dir: &Path| -> impl
/// AccountStore`, an empty store using the temporary folder `dir`).
#[macro_export]
macro_rules! account_store_conformance {
    ($make:expr) => {
        $crate::__conformance_tests!(account_store_conformance, [$crate::accounts], $make;
            create_and_read_account,
            add_credits_and_ledger,
            charge_until_empty,
            duplicate_request_id_is_not_charged_twice,
            concurrent_charges_never_overdraw,
            key_expires_by_now,
            renew_keeps_the_secret,
            set_expiry_overrides,
            revoke_is_final,
            authenticate_refuses_garbage_and_strangers,
            list_keys_per_account,
            allowlist_updates,
        );
    };
}

/// The fixed "now" of the cases: 2026-01-01T00:00:00Z.
fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .expect("valid date")
}

/// `t0` plus `days` days.
fn days(days: i64) -> DateTime<Utc> {
    t0() + Duration::days(days)
}

/// Creates an account with `credits`.
fn account(store: &dyn AccountStore, credits: u64) -> AccountId {
    let email = Email::parse("dev@example.com").expect("valid email");
    store
        .create_account(&email, credits, t0())
        .expect("create account")
}

/// Creates a key with the given settings at `t0`; returns it and its secret.
fn key(store: &dyn AccountStore, account: AccountId, new: &NewKey) -> (KeyInfo, String) {
    let created = store.create_key(account, new, t0()).expect("create key");
    let secret = created.secret.expose_secret().to_owned();
    (created.info, secret)
}

fn entry(s: &str) -> AllowEntry {
    AllowEntry::parse(s).expect("valid entry")
}

fn missing_account() -> AccountId {
    AccountId::new(999_999).expect("positive")
}

/// Accounts are created with their email and initial credits, and found again.
pub fn create_and_read_account<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let email = Email::parse("someone@example.org").expect("valid");
    let id = store.create_account(&email, 25, t0()).expect("create");
    let acc = store.account(id).expect("read");
    assert_eq!(acc.id, id);
    assert_eq!(acc.email.as_str(), "someone@example.org");
    assert_eq!(acc.credits, 25);
    assert_eq!(store.balance(id).expect("balance"), 25);

    let empty = store.create_account(&email, 0, t0()).expect("zero credits");
    assert_ne!(empty, id);
    assert_eq!(store.balance(empty).expect("balance"), 0);

    assert!(matches!(
        store.account(missing_account()),
        Err(AccountError::AccountNotFound(_))
    ));
    assert!(matches!(
        store.balance(missing_account()),
        Err(AccountError::AccountNotFound(_))
    ));
}

/// Credits are added (amount >= 1), and every change is in the ledger.
pub fn add_credits_and_ledger<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 5);
    assert!(matches!(
        store.add_credits(id, 0, t0()),
        Err(AccountError::InvalidAmount(_))
    ));
    assert_eq!(store.add_credits(id, 10, t0()).expect("add"), 15);
    assert!(matches!(
        store.add_credits(missing_account(), 1, t0()),
        Err(AccountError::AccountNotFound(_))
    ));
    assert!(matches!(
        store.add_credits(id, u64::MAX, t0()),
        Err(AccountError::InvalidAmount(_))
    ));

    let (k, _) = key(store, id, &NewKey::default());
    assert_eq!(
        store
            .charge(id, &k.key_id, "req-1", "getForumPost", t0())
            .expect("charge"),
        Some(14)
    );

    let ledger = store.ledger(id).expect("ledger");
    let amounts: Vec<i64> = ledger.iter().map(|row| row.amount).collect();
    assert_eq!(amounts, vec![5, 10, -1]);
    assert_eq!(ledger.iter().map(|row| row.amount).sum::<i64>(), 14);
    assert_eq!(ledger.last().map(|row| row.balance_after), Some(14));
    let charge = ledger.last().expect("charge row");
    assert_eq!(charge.request_id.as_deref(), Some("req-1"));
    assert_eq!(charge.key_id.as_ref(), Some(&k.key_id));
    assert_eq!(charge.operation, "getForumPost");
}

/// Charging stops at zero: the charge that finds no credit is refused and records nothing.
pub fn charge_until_empty<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 2);
    let (k, _) = key(store, id, &NewKey::default());
    let charge = |req: &str| store.charge(id, &k.key_id, req, "search", t0());
    assert_eq!(charge("a").expect("charge"), Some(1));
    assert_eq!(charge("b").expect("charge"), Some(0));
    assert_eq!(charge("c").expect("charge"), None);
    assert_eq!(store.balance(id).expect("balance"), 0);
    let charges = store
        .ledger(id)
        .expect("ledger")
        .iter()
        .filter(|row| row.amount < 0)
        .count();
    assert_eq!(charges, 2);

    assert!(matches!(
        store.charge(missing_account(), &k.key_id, "d", "search", t0()),
        Err(AccountError::AccountNotFound(_))
    ));
    assert!(matches!(
        store.charge(id, &k.key_id, "", "search", t0()),
        Err(AccountError::InvalidCharge(_))
    ));
}

/// A request id is charged at most once.
pub fn duplicate_request_id_is_not_charged_twice<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 10);
    let (k, _) = key(store, id, &NewKey::default());
    assert_eq!(
        store
            .charge(id, &k.key_id, "req-x", "search", t0())
            .expect("first"),
        Some(9)
    );
    assert_eq!(
        store
            .charge(id, &k.key_id, "req-x", "search", t0())
            .expect("again"),
        Some(9)
    );
    assert_eq!(store.balance(id).expect("balance"), 9);
    let charges = store
        .ledger(id)
        .expect("ledger")
        .iter()
        .filter(|row| row.amount < 0)
        .count();
    assert_eq!(charges, 1);

    let other = account(store, 10);
    assert!(matches!(
        store.charge(other, &k.key_id, "req-x", "search", t0()),
        Err(AccountError::RequestIdConflict(_))
    ));
    assert_eq!(store.balance(other).expect("balance"), 10);
}

/// 100 threads race to charge an account holding 7 credits: exactly 7 win.
pub fn concurrent_charges_never_overdraw<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 7);
    let (k, _) = key(store, id, &NewKey::default());
    let outcomes: Vec<Option<u64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..100)
            .map(|i| {
                let key_id = &k.key_id;
                scope.spawn(move || {
                    store
                        .charge(id, key_id, &format!("race-{i}"), "search", t0())
                        .expect("charge completes")
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    });
    let mut remaining: Vec<u64> = outcomes.iter().flatten().copied().collect();
    remaining.sort_unstable();
    assert_eq!(remaining, vec![0, 1, 2, 3, 4, 5, 6]);
    assert_eq!(store.balance(id).expect("balance"), 0);
    let charges = store
        .ledger(id)
        .expect("ledger")
        .iter()
        .filter(|row| row.amount < 0)
        .count();
    assert_eq!(charges, 7);
}

/// A key is active until its lifetime elapses, then expired; authentication says why.
pub fn key_expires_by_now<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 1);
    let new = NewKey {
        lifetime: KeyLifetime::Days7,
        name: Some("ci".to_owned()),
        ..NewKey::default()
    };
    let (info, secret) = key(store, id, &new);
    assert!(secret.starts_with("fdx_live_"));
    assert_eq!(info.expires_at, Some(days(7)));
    assert_eq!(info.name.as_deref(), Some("ci"));
    assert_eq!(info.status(t0()), KeyStatus::Active);

    let auth = store.authenticate(&secret, t0()).expect("active key");
    assert_eq!(auth.key_id, info.key_id);
    assert_eq!(auth.account_id, id);
    assert!(auth.allow.is_empty());

    let just_before = days(7) - Duration::milliseconds(1);
    assert!(store.authenticate(&secret, just_before).is_ok());
    assert!(matches!(
        store.authenticate(&secret, days(7)),
        Err(AuthError::Expired(k)) if k == info.key_id
    ));
    let stored = store.key(&info.key_id).expect("key");
    assert_eq!(stored.status(days(7)), KeyStatus::Expired);

    let forever = key(store, id, &NewKey::default());
    assert_eq!(forever.0.expires_at, None);
    assert!(store.authenticate(&forever.1, days(10_000)).is_ok());
}

/// Renewing sets `now + lifetime` and keeps the secret; the key's lifetime is the default.
pub fn renew_keeps_the_secret<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 1);
    let new = NewKey {
        lifetime: KeyLifetime::Days30,
        ..NewKey::default()
    };
    let (info, secret) = key(store, id, &new);
    assert!(matches!(
        store.authenticate(&secret, days(40)),
        Err(AuthError::Expired(_))
    ));

    let renewed = store
        .renew_key(&info.key_id, None, days(40))
        .expect("renew");
    assert_eq!(renewed.expires_at, Some(days(70)));
    assert_eq!(renewed.status(days(40)), KeyStatus::Active);
    assert!(store.authenticate(&secret, days(40)).is_ok());

    let longer = store
        .renew_key(&info.key_id, Some(KeyLifetime::Days365), days(41))
        .expect("renew with lifetime");
    assert_eq!(longer.expires_at, Some(days(41 + 365)));
    assert_eq!(longer.lifetime, KeyLifetime::Days365);

    let never = store
        .renew_key(&info.key_id, Some(KeyLifetime::None), days(42))
        .expect("renew without expiry");
    assert_eq!(never.expires_at, None);
    assert!(store.authenticate(&secret, days(5000)).is_ok());

    let unknown = KeyId::generate();
    assert!(matches!(
        store.renew_key(&unknown, None, t0()),
        Err(AccountError::KeyNotFound(_))
    ));
}

/// The operator can move the expiry instant either way, or remove it.
pub fn set_expiry_overrides<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 1);
    let (info, secret) = key(store, id, &NewKey::default());
    let past = store
        .set_key_expiry(&info.key_id, Some(days(1)))
        .expect("set expiry");
    assert_eq!(past.expires_at, Some(days(1)));
    assert!(matches!(
        store.authenticate(&secret, days(2)),
        Err(AuthError::Expired(_))
    ));
    store
        .set_key_expiry(&info.key_id, Some(days(3)))
        .expect("set expiry");
    assert!(store.authenticate(&secret, days(2)).is_ok());
    let cleared = store.set_key_expiry(&info.key_id, None).expect("clear");
    assert_eq!(cleared.expires_at, None);
    assert!(store.authenticate(&secret, days(400)).is_ok());
}

/// Revocation is immediate and final.
pub fn revoke_is_final<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 1);
    let (info, secret) = key(store, id, &NewKey::default());
    let revoked = store.revoke_key(&info.key_id, days(1)).expect("revoke");
    assert_eq!(revoked.status(days(1)), KeyStatus::Revoked);
    assert_eq!(revoked.revoked_at, Some(days(1)));
    assert!(matches!(
        store.authenticate(&secret, days(1)),
        Err(AuthError::Revoked(k)) if k == info.key_id
    ));
    let again = store.revoke_key(&info.key_id, days(2)).expect("idempotent");
    assert_eq!(again.revoked_at, Some(days(1)));
    assert!(matches!(
        store.renew_key(&info.key_id, None, days(2)),
        Err(AccountError::KeyRevoked(_))
    ));
    assert!(matches!(
        store.set_key_expiry(&info.key_id, None),
        Err(AccountError::KeyRevoked(_))
    ));
    assert!(matches!(
        store.authenticate(&secret, days(3)),
        Err(AuthError::Revoked(_))
    ));
    assert!(matches!(
        store.revoke_key(&KeyId::generate(), t0()),
        Err(AccountError::KeyNotFound(_))
    ));
}

/// Garbage is malformed; a well-formed secret never issued is unknown.
pub fn authenticate_refuses_garbage_and_strangers<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 1);
    let (_, secret) = key(store, id, &NewKey::default());
    assert!(matches!(
        store.authenticate("garbage", t0()),
        Err(AuthError::Malformed(_))
    ));
    let mut tampered = secret.clone();
    tampered.pop();
    tampered.push(if secret.ends_with('A') { 'B' } else { 'A' });
    assert!(matches!(
        store.authenticate(&tampered, t0()),
        Err(AuthError::Malformed(_))
    ));
    let stranger = ApiKey::generate();
    assert!(matches!(
        store.authenticate(stranger.expose_secret(), t0()),
        Err(AuthError::Unknown)
    ));
}

/// Keys are listed per account, oldest first, with their states.
pub fn list_keys_per_account<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 1);
    let other = account(store, 1);
    let first = NewKey {
        name: Some("first".to_owned()),
        lifetime: KeyLifetime::Days7,
        ..NewKey::default()
    };
    let (a, _) = key(store, id, &first);
    let (b, _) = key(store, id, &NewKey::default());
    let (c, _) = key(store, other, &NewKey::default());
    store.revoke_key(&b.key_id, t0()).expect("revoke");

    let keys = store.list_keys(id).expect("list");
    let ids: Vec<&KeyId> = keys.iter().map(|k| &k.key_id).collect();
    assert_eq!(ids, vec![&a.key_id, &b.key_id]);
    let statuses: Vec<KeyStatus> = keys.iter().map(|k| k.status(days(8))).collect();
    assert_eq!(statuses, vec![KeyStatus::Expired, KeyStatus::Revoked]);
    assert_eq!(keys[0].name.as_deref(), Some("first"));
    assert_eq!(keys[1].name, None);
    assert_eq!(store.list_keys(other).expect("list")[0].key_id, c.key_id);
    assert!(matches!(
        store.list_keys(missing_account()),
        Err(AccountError::AccountNotFound(_))
    ));
    assert!(matches!(
        store.create_key(missing_account(), &NewKey::default(), t0()),
        Err(AccountError::AccountNotFound(_))
    ));
    assert!(matches!(
        store.key(&KeyId::generate()),
        Err(AccountError::KeyNotFound(_))
    ));
}

/// Allowlists are stored normalised, changed idempotently and returned by authentication.
pub fn allowlist_updates<S: AccountStore>(fresh: &Fresh<'_, S>) {
    let store: &dyn AccountStore = &fresh.backend();
    let id = account(store, 1);
    let new = NewKey {
        allow: forumdex_accounts::Allowlist::parse_all(&["10.0.0.0/8", "::ffff:192.0.2.7"])
            .expect("valid"),
        ..NewKey::default()
    };
    let (info, secret) = key(store, id, &new);
    assert_eq!(info.allow.to_strings(), vec!["10.0.0.0/8", "192.0.2.7/32"]);

    let list = store
        .update_allowlist(
            &info.key_id,
            &[entry("2001:db8::/32"), entry("10.0.0.0/8")],
            &[entry("192.0.2.7")],
        )
        .expect("update");
    assert_eq!(list.to_strings(), vec!["10.0.0.0/8", "2001:db8::/32"]);
    let again = store
        .update_allowlist(
            &info.key_id,
            &[entry("2001:db8::/32")],
            &[entry("192.0.2.7")],
        )
        .expect("idempotent");
    assert_eq!(again, list);

    let auth = store.authenticate(&secret, t0()).expect("auth");
    assert_eq!(auth.allow, list);
    assert!(auth.allow.allows("10.1.2.3".parse().expect("ip")));
    assert!(!auth.allow.allows("192.0.2.7".parse().expect("ip")));

    let cleared = store
        .update_allowlist(&info.key_id, &[], list.entries())
        .expect("clear");
    assert!(cleared.is_empty());
    assert!(matches!(
        store.update_allowlist(&KeyId::generate(), &[], &[]),
        Err(AccountError::KeyNotFound(_))
    ));
}
