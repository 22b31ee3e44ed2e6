//! The JSON objects the operator commands print with `--json` (operator-interface.md,
//! "Accounts, keys and credits"). Field names and shapes are a stable interface.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::allowlist::Allowlist;
use crate::ids::{AccountId, KeyId};
use crate::key::{ApiKey, KeyStatus};
use crate::store::{Account, KeyInfo};
use crate::time::Timestamp;

/// `accounts create` and `credits add`: `{"account_id": ID, "credits": N}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountCredits {
    /// The account.
    pub account_id: AccountId,
    /// Its balance.
    pub credits: u64,
}

/// One key in `keys list` and `accounts show`:
/// `{"key_id", "name", "status", "expires_at", "allow"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyView {
    /// Public identifier.
    pub key_id: KeyId,
    /// Label, or null.
    pub name: Option<String>,
    /// `active`, `expired` or `revoked` at the time of the command.
    pub status: KeyStatus,
    /// Expiry instant, or null for none.
    pub expires_at: Option<Timestamp>,
    /// Normalised allowlist entries; empty allows every address.
    pub allow: Allowlist,
}

impl KeyView {
    /// The view of `key` at `now`.
    pub fn new(key: &KeyInfo, now: DateTime<Utc>) -> Self {
        Self {
            key_id: key.key_id.clone(),
            name: key.name.clone(),
            status: key.status(now),
            expires_at: key.expires_at.map(Timestamp),
            allow: key.allow.clone(),
        }
    }
}

/// `accounts show`: `{"account_id", "email", "credits", "keys": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountView {
    /// The account.
    pub account_id: AccountId,
    /// Contact address.
    pub email: String,
    /// Balance.
    pub credits: u64,
    /// Its keys, oldest first.
    pub keys: Vec<KeyView>,
}

impl AccountView {
    /// The view of `account` and its `keys` at `now`.
    pub fn new(account: &Account, keys: &[KeyInfo], now: DateTime<Utc>) -> Self {
        Self {
            account_id: account.id,
            email: account.email.as_str().to_owned(),
            credits: account.credits,
            keys: keys.iter().map(|k| KeyView::new(k, now)).collect(),
        }
    }
}

/// `keys create`: `{"key_id", "key", "expires_at"}`; `key` is the secret, shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyCreated {
    /// Public identifier.
    pub key_id: KeyId,
    /// The secret.
    pub key: String,
    /// Expiry instant, or null for none.
    pub expires_at: Option<Timestamp>,
}

impl KeyCreated {
    /// The view of a created key and its secret.
    pub fn new(key: &KeyInfo, secret: &ApiKey) -> Self {
        Self {
            key_id: key.key_id.clone(),
            key: secret.expose_secret().to_owned(),
            expires_at: key.expires_at.map(Timestamp),
        }
    }
}

/// `keys list`: `{"keys": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyList {
    /// The keys, oldest first.
    pub keys: Vec<KeyView>,
}

/// `keys revoke`: `{"key_id", "status"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyStatusView {
    /// Public identifier.
    pub key_id: KeyId,
    /// Its status (`revoked` after a revoke).
    pub status: KeyStatus,
}

/// `keys renew`: `{"key_id", "status", "expires_at"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRenewed {
    /// Public identifier.
    pub key_id: KeyId,
    /// Its status (`active` after a renewal).
    pub status: KeyStatus,
    /// New expiry instant, or null for none.
    pub expires_at: Option<Timestamp>,
}

/// `keys set-expiry`: `{"key_id", "expires_at"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyExpiry {
    /// Public identifier.
    pub key_id: KeyId,
    /// The expiry instant now in force, or null for none.
    pub expires_at: Option<Timestamp>,
}

/// `keys allow`: `{"key_id", "allow"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyAllow {
    /// Public identifier.
    pub key_id: KeyId,
    /// The allowlist after the change.
    pub allow: Allowlist,
}
