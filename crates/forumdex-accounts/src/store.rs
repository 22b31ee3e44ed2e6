//! The storage seam: [`AccountStore`] and the domain types it speaks.
//!
//! Every implementation (SQLite now, PostgreSQL later) passes the conformance suite of
//! `forumdex-testkit` (`account_store_conformance!`). Methods are blocking; nothing is cached between calls, so a
//! change made by one process (the CLI) is seen by another (the server) at its next call.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::allowlist::Allowlist;
use crate::ids::{AccountId, KeyId};
use crate::key::{ApiKey, KeyLifetime, KeyParseError, KeyStatus};

/// The largest balance an account may hold (keeps every sum far from `i64` overflow).
pub const MAX_BALANCE: u64 = 1_000_000_000_000_000;

/// A validated email address: a plain `local@domain` as RFC 5322 allows it (checked by the
/// `email_address` crate), without a display name, a quoted local part or a domain literal,
/// at most 320 bytes. Stored as given (trimmed).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    /// Validates `s` (see the type docs).
    pub fn parse(s: &str) -> Result<Self, AccountError> {
        let text = s.trim();
        let options = email_address::Options::default()
            .without_display_text()
            .without_domain_literal();
        let valid = text.len() <= 320
            && !text.contains('"')
            && email_address::EmailAddress::parse_with_options(text, options).is_ok();
        if valid {
            Ok(Self(text.to_owned()))
        } else {
            Err(AccountError::InvalidEmail(s.to_owned()))
        }
    }

    /// An address as a store holds it, taken as it is: it passed [`Self::parse`] when it
    /// was stored, perhaps under the looser check of an earlier version, and must stay
    /// readable (an account is never lost to a stricter check).
    pub fn from_stored(text: String) -> Self {
        Self(text)
    }

    /// The address as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An account as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// Its id.
    pub id: AccountId,
    /// Contact address.
    pub email: Email,
    /// Current balance in credits.
    pub credits: u64,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// What a new key should look like.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewKey {
    /// Its lifetime from creation.
    pub lifetime: KeyLifetime,
    /// IP restrictions; empty allows every address.
    pub allow: Allowlist,
    /// A label for people (optional).
    pub name: Option<String>,
}

/// A key as stored (never its secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    /// Public identifier.
    pub key_id: KeyId,
    /// Owner.
    pub account_id: AccountId,
    /// Label, if any.
    pub name: Option<String>,
    /// The secret's first characters (`fdx_live_` + 4), to tell keys apart; `None` for keys
    /// created before it was kept.
    pub secret_prefix: Option<String>,
    /// Lifetime used by [`AccountStore::renew_key`] when none is given: the one chosen at
    /// creation, or at the last renewal that named one.
    pub lifetime: KeyLifetime,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it expires (`None`: never).
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<DateTime<Utc>>,
    /// IP restrictions.
    pub allow: Allowlist,
}

impl KeyInfo {
    /// Its state at `now`.
    pub fn status(&self, now: DateTime<Utc>) -> KeyStatus {
        KeyStatus::at(self.expires_at, self.revoked_at, now)
    }
}

/// A freshly created key, with its secret (to show once, never to store or log).
#[derive(Debug, Clone)]
pub struct CreatedKey {
    /// The stored key.
    pub info: KeyInfo,
    /// The secret.
    pub secret: ApiKey,
}

/// A key that passed [`AccountStore::authenticate`]: active at the instant asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthenticatedKey {
    /// Public identifier (for rate limiting, the ledger and logs).
    pub key_id: KeyId,
    /// The account to charge.
    pub account_id: AccountId,
    /// IP restrictions the caller must enforce (403 when refused).
    pub allow: Allowlist,
    /// When the key expires (`None`: never).
    pub expires_at: Option<DateTime<Utc>>,
}

/// One row of an account's ledger: a credit addition (`amount > 0`) or a charge (`-1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    /// Position in the ledger (increasing).
    pub id: i64,
    /// The account.
    pub account_id: AccountId,
    /// The key that was charged (charges only).
    pub key_id: Option<KeyId>,
    /// The request id of a charge (unique over the whole ledger).
    pub request_id: Option<String>,
    /// What happened: the API operation charged, or `account_create` / `credits_add`.
    pub operation: String,
    /// Credits added (positive) or charged (negative).
    pub amount: i64,
    /// The balance right after this row.
    pub balance_after: u64,
    /// When it happened.
    pub created_at: DateTime<Utc>,
}

/// Errors of [`AccountStore`] operations other than authentication.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// The email is empty, lacks an `@` or holds whitespace.
    #[error("invalid email {0:?}: expected something like name@example.com, without spaces")]
    InvalidEmail(String),
    /// A credit amount is out of range.
    #[error("invalid amount: {0}")]
    InvalidAmount(String),
    /// A key name is too long or holds control characters.
    #[error("invalid key name: {0}")]
    InvalidName(String),
    /// A request id or operation name passed to `charge` is empty or too long.
    #[error("invalid charge: {0}")]
    InvalidCharge(String),
    /// No account has this id.
    #[error("account {0} not found")]
    AccountNotFound(AccountId),
    /// No key has this id.
    #[error("key {0} not found")]
    KeyNotFound(KeyId),
    /// The key is revoked; there is no way back from revoked.
    #[error("key {0} is revoked; a revoked key cannot be renewed or have its expiry changed")]
    KeyRevoked(KeyId),
    /// The request id was already charged to a different account.
    #[error("request id {0:?} was already charged to another account")]
    RequestIdConflict(String),
    /// The backend failed (I/O, busy past the timeout, corrupt data...): retry later (503).
    #[error("account storage failed: {0}")]
    Storage(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl AccountError {
    /// Wraps a backend error.
    pub fn storage(err: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Storage(Box::new(err))
    }
}

/// Why [`AccountStore::authenticate`] refused a secret. All but `Storage` become 401.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Not shaped like a key (prefix, length, charset or checksum); nothing was looked up.
    #[error("malformed api key: {0}")]
    Malformed(#[from] KeyParseError),
    /// Well-formed but not issued by this store.
    #[error("unknown api key")]
    Unknown,
    /// Issued, but its expiry instant has passed.
    #[error("api key {0} has expired")]
    Expired(KeyId),
    /// Issued, but revoked.
    #[error("api key {0} has been revoked")]
    Revoked(KeyId),
    /// The backend failed (503, not 401).
    #[error(transparent)]
    Storage(AccountError),
}

/// Accounts, keys and credits, as every backend must provide them.
///
/// Instants are passed in (`now`) so tests control time. Writes are atomic.
pub trait AccountStore: Send + Sync {
    /// Creates an account holding `initial_credits` (0 allowed); the initial credits are a
    /// ledger row when non-zero.
    fn create_account(
        &self,
        email: &Email,
        initial_credits: u64,
        now: DateTime<Utc>,
    ) -> Result<AccountId, AccountError>;

    /// The account with this id.
    fn account(&self, id: AccountId) -> Result<Account, AccountError>;

    /// The current balance.
    fn balance(&self, id: AccountId) -> Result<u64, AccountError>;

    /// Adds `amount >= 1` credits, recording a ledger row; returns the new balance.
    fn add_credits(
        &self,
        id: AccountId,
        amount: u64,
        now: DateTime<Utc>,
    ) -> Result<u64, AccountError>;

    /// Charges one credit for `request_id` in one transaction: a conditional debit plus a
    /// ledger row keyed by the request id. `Ok(None)`: not enough credits, nothing charged
    /// (402). Charging a request id again charges nothing and returns the balance recorded
    /// by its first charge.
    fn charge(
        &self,
        account: AccountId,
        key_id: &KeyId,
        request_id: &str,
        operation: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>, AccountError>;

    /// The ledger of an account, oldest first.
    fn ledger(&self, id: AccountId) -> Result<Vec<LedgerEntry>, AccountError>;

    /// Issues a key for `account`; the secret appears only in the result.
    fn create_key(
        &self,
        account: AccountId,
        new: &NewKey,
        now: DateTime<Utc>,
    ) -> Result<CreatedKey, AccountError>;

    /// One key.
    fn key(&self, key_id: &KeyId) -> Result<KeyInfo, AccountError>;

    /// The keys of an account, oldest first.
    fn list_keys(&self, account: AccountId) -> Result<Vec<KeyInfo>, AccountError>;

    /// Revokes a key at once (idempotent: revoking again keeps the first instant).
    fn revoke_key(&self, key_id: &KeyId, now: DateTime<Utc>) -> Result<KeyInfo, AccountError>;

    /// Sets the expiry to `now + lifetime` (the key's own lifetime when `None`); the secret
    /// stays the same. A lifetime given here becomes the key's lifetime. Fails with
    /// [`AccountError::KeyRevoked`] on a revoked key.
    fn renew_key(
        &self,
        key_id: &KeyId,
        lifetime: Option<KeyLifetime>,
        now: DateTime<Utc>,
    ) -> Result<KeyInfo, AccountError>;

    /// Operator override of the expiry instant (`None`: never expires; a past instant
    /// expires the key). Fails with [`AccountError::KeyRevoked`] on a revoked key.
    fn set_key_expiry(
        &self,
        key_id: &KeyId,
        at: Option<DateTime<Utc>>,
    ) -> Result<KeyInfo, AccountError>;

    /// Adds then removes allowlist entries (both idempotent); returns the resulting list.
    fn update_allowlist(
        &self,
        key_id: &KeyId,
        add: &[crate::allowlist::AllowEntry],
        remove: &[crate::allowlist::AllowEntry],
    ) -> Result<Allowlist, AccountError>;

    /// Answers when the backend can serve reads (readiness probes).
    fn ping(&self) -> Result<(), AccountError>;

    /// Checks a secret as sent by a client: shape first (no lookup for garbage), then the
    /// stored hash (compared in constant time), then revocation and expiry at `now`.
    fn authenticate(&self, secret: &str, now: DateTime<Utc>)
    -> Result<AuthenticatedKey, AuthError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_mail_can_reach_are_taken_as_given_trimmed() {
        for (given, kept) in [
            ("dev@example.com", "dev@example.com"),
            (
                "  Dev.Name+tag@mail.example.co.uk ",
                "Dev.Name+tag@mail.example.co.uk",
            ),
            ("o'brien@example.ie", "o'brien@example.ie"),
        ] {
            assert_eq!(Email::parse(given).expect(given).as_str(), kept);
        }
    }

    #[test]
    fn anything_else_is_refused() {
        let long = format!("{}@example.com", "a".repeat(320));
        for bad in [
            "",
            "not an address",
            "<script>alert(1)</script>@example.test",
            "Dev <dev@example.com>",
            "dev@[127.0.0.1]",
            "\"quoted local\"@example.com",
            "dev@exa mple.com",
            "dev@@example.com",
            "@example.com",
            "dev@",
            "dev@exa\u{7}mple.com",
            "dev@-example.com",
            long.as_str(),
        ] {
            assert!(
                matches!(Email::parse(bad), Err(AccountError::InvalidEmail(_))),
                "{bad:?} was accepted"
            );
        }
    }
}
