//! The account rules that are not any backend's: what is valid, what a new key looks like,
//! what a renewal writes, what a repeated charge answers, what authentication decides.
//! Every [`AccountStore`](crate::AccountStore) calls these and keeps only storage to itself,
//! so a second backend cannot drift from the first.

use chrono::{DateTime, Utc};

use crate::ids::{AccountId, KeyId};
use crate::key::{ApiKey, KeyHash, KeyLifetime, KeyStatus};
use crate::store::{AccountError, AuthError, AuthenticatedKey, KeyInfo, MAX_BALANCE, NewKey};
use crate::time::truncate_millis;

/// Longest key name accepted, in characters.
const MAX_NAME_CHARS: usize = 200;
/// Longest request id or operation name accepted by a charge, in bytes.
const MAX_TAG_BYTES: usize = 200;

/// The ledger operation of an account's initial credits.
pub const ACCOUNT_CREATE_OPERATION: &str = "account_create";
/// The ledger operation of credits added by the operator.
pub const CREDITS_ADD_OPERATION: &str = "credits_add";

/// Validates a key name: trimmed; empty means none.
pub fn validate_name(name: Option<&str>) -> Result<Option<String>, AccountError> {
    let Some(text) = name.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    if text.chars().count() > MAX_NAME_CHARS {
        return Err(AccountError::InvalidName(format!(
            "longer than {MAX_NAME_CHARS} characters"
        )));
    }
    if text.chars().any(char::is_control) {
        return Err(AccountError::InvalidName(
            "holds control characters".to_owned(),
        ));
    }
    Ok(Some(text.to_owned()))
}

/// Validates a credit amount to add: at least 1 (0 too when `allow_zero`, for an account's
/// initial credits), at most [`MAX_BALANCE`].
pub fn validate_amount(amount: u64, allow_zero: bool) -> Result<(), AccountError> {
    if amount == 0 && !allow_zero {
        return Err(AccountError::InvalidAmount("must be at least 1".to_owned()));
    }
    if amount > MAX_BALANCE {
        return Err(AccountError::InvalidAmount(format!(
            "must be at most {MAX_BALANCE}"
        )));
    }
    Ok(())
}

/// The largest balance that may receive `amount` (validated by [`validate_amount`]) without
/// exceeding [`MAX_BALANCE`]; a backend adds credits only to a balance at most this.
pub fn max_balance_before_adding(amount: u64) -> u64 {
    MAX_BALANCE.saturating_sub(amount)
}

/// The refusal of credits that would take a balance past [`MAX_BALANCE`].
pub fn balance_too_large() -> AccountError {
    AccountError::InvalidAmount(format!("the balance would exceed {MAX_BALANCE}"))
}

/// Validates the request id and operation name of a charge.
pub fn validate_charge(request_id: &str, operation: &str) -> Result<(), AccountError> {
    for (what, value) in [("request id", request_id), ("operation", operation)] {
        if value.is_empty() || value.len() > MAX_TAG_BYTES {
            return Err(AccountError::InvalidCharge(format!(
                "{what} must be 1 to {MAX_TAG_BYTES} bytes"
            )));
        }
    }
    Ok(())
}

/// The answer to a charge of `account` whose request id the ledger already holds, charged to
/// `charged` leaving `balance_after`: that balance again (nothing is charged twice), or a
/// conflict when the first charge was another account's.
pub fn repeated_charge(
    request_id: &str,
    account: AccountId,
    charged: AccountId,
    balance_after: u64,
) -> Result<u64, AccountError> {
    if charged != account {
        return Err(AccountError::RequestIdConflict(request_id.to_owned()));
    }
    Ok(balance_after)
}

/// A key about to be stored: everything a backend writes for it (the allowlist is the
/// [`NewKey`]'s), and the secret to hand back once.
#[derive(Debug)]
pub struct MintedKey {
    /// Public identifier.
    pub key_id: KeyId,
    /// Validated label, if any.
    pub name: Option<String>,
    /// The secret (never stored).
    pub secret: ApiKey,
    /// What is stored of the secret.
    pub hash: KeyHash,
    /// The secret's first characters, shown to tell keys apart.
    pub secret_prefix: String,
    /// Its lifetime.
    pub lifetime: KeyLifetime,
    /// Creation instant, in whole milliseconds (what every backend can store exactly).
    pub created_at: DateTime<Utc>,
    /// `created_at + lifetime` (`None`: never expires).
    pub expires_at: Option<DateTime<Utc>>,
}

/// Validates `new` and draws a fresh key id and secret for a key created at `now`.
pub fn mint_key(new: &NewKey, now: DateTime<Utc>) -> Result<MintedKey, AccountError> {
    let name = validate_name(new.name.as_deref())?;
    let created_at = truncate_millis(now);
    let secret = ApiKey::generate();
    Ok(MintedKey {
        key_id: KeyId::generate(),
        name,
        hash: secret.hash(),
        secret_prefix: secret.display_prefix(),
        secret,
        lifetime: new.lifetime,
        created_at,
        expires_at: new.lifetime.expires_at(created_at),
    })
}

/// Refuses a change that a revoked key may not undergo (renewal, a new expiry): there is
/// no way back from revoked.
pub fn ensure_not_revoked(key: &KeyInfo) -> Result<(), AccountError> {
    if key.revoked_at.is_some() {
        return Err(AccountError::KeyRevoked(key.key_id.clone()));
    }
    Ok(())
}

/// What renewing `key` at `now` writes: the lifetime (the one given, else the key's own)
/// and the new expiry `now + lifetime`.
pub fn renewal(
    key: &KeyInfo,
    lifetime: Option<KeyLifetime>,
    now: DateTime<Utc>,
) -> (KeyLifetime, Option<DateTime<Utc>>) {
    let lifetime = lifetime.unwrap_or(key.lifetime);
    (lifetime, lifetime.expires_at(now))
}

/// Authentication's verdict on the stored key a secret matched: refused when revoked or
/// expired at `now`, else what the caller needs.
pub fn authenticated(key: KeyInfo, now: DateTime<Utc>) -> Result<AuthenticatedKey, AuthError> {
    match key.status(now) {
        KeyStatus::Revoked => Err(AuthError::Revoked(key.key_id)),
        KeyStatus::Expired => Err(AuthError::Expired(key.key_id)),
        KeyStatus::Active => Ok(AuthenticatedKey {
            key_id: key.key_id,
            account_id: key.account_id,
            allow: key.allow,
            expires_at: key.expires_at,
        }),
    }
}
