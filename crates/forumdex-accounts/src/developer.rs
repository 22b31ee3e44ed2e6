//! What the developer dashboard stores beside accounts and keys: sign-in identities
//! ([`Login`]), single-use emailed tokens, browser sessions, the activity log, per-key usage
//! counts and credit top-ups with the payment events that settle them.
//!
//! [`DeveloperStore`] extends [`AccountStore`]: one backend holds both, so a top-up credits
//! the same balance a request is charged from, in one transaction with its ledger row. Secrets
//! (session and email tokens) arrive here only as [`TokenHash`]es; passwords only as
//! Argon2id PHC strings hashed by the caller.

use std::fmt;

use chrono::{DateTime, NaiveDate, Utc};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::ids::{AccountId, KeyId};
use crate::store::{AccountError, AccountStore, CreatedKey, Email, KeyInfo, NewKey};

/// The ledger operation of a paid top-up (keyed `topup:<id>`).
pub const TOPUP_OPERATION: &str = "topup";
/// The ledger operation of a refund (keyed `refund:<event id>`).
pub const REFUND_OPERATION: &str = "refund";
/// The ledger operation of the credits a new developer receives when their email is verified.
pub const SIGNUP_OPERATION: &str = "signup_credits";
/// The ledger operation of the balance forfeited when an account is closed.
pub const CLOSE_OPERATION: &str = "account_closed";

/// The SHA-256 of a random token (session cookie, email link); the only form stored.
#[derive(Clone, Copy)]
pub struct TokenHash(pub [u8; 32]);

impl TokenHash {
    /// Hashes a token as the browser or the email link carries it.
    pub fn of(token: &str) -> Self {
        Self(Sha256::digest(token.as_bytes()).into())
    }
}

/// A request made with a key, as the request log keeps it for the key's owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    /// Its position in the log (0 before it is stored).
    pub id: i64,
    /// The key it was made with.
    pub key_id: KeyId,
    /// The `X-Request-Id` it was answered with.
    pub request_id: String,
    /// Its path and query, with cursors left out.
    pub path: String,
    /// The status it was answered with.
    pub status: u16,
    /// Credits charged for it (0 or 1).
    pub credits: u64,
    /// How long it took to answer, in milliseconds.
    pub latency_ms: u64,
    /// The client address it came from.
    pub source: String,
    /// When it was answered.
    pub at: DateTime<Utc>,
}

/// Logged requests of one UTC hour that were answered with one status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HourCount {
    /// The hour's first instant.
    pub hour: DateTime<Utc>,
    /// The status answered.
    pub status: u16,
    /// How many.
    pub count: u64,
}

/// Which logged requests [`DeveloperStore::requests`] reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestFilter {
    /// Only this key's.
    pub key: Option<KeyId>,
    /// Only those answered with this status.
    pub status: Option<u16>,
    /// Only those logged before this position (the next page).
    pub before_id: Option<i64>,
}

/// A line of the ledger as [`DeveloperStore::ledger_lines`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerLine {
    /// A key's charges of one UTC day, summed.
    Charges {
        /// The day.
        day: NaiveDate,
        /// The key charged.
        key_id: KeyId,
        /// Its name, when it has one.
        key_name: Option<String>,
        /// Requests charged.
        calls: u64,
        /// Credits they cost.
        credits: u64,
        /// The balance right after the last of them.
        balance_after: u64,
        /// The ledger position of the last of them (lines are ordered by it).
        last_id: i64,
    },
    /// Any other row (a credit, a refund's debit): as it is.
    Entry(crate::store::LedgerEntry),
}

impl LedgerLine {
    /// The ledger position of the line's last row.
    pub fn last_id(&self) -> i64 {
        match self {
            Self::Charges { last_id, .. } => *last_id,
            Self::Entry(entry) => entry.id,
        }
    }
}

/// What [`DeveloperStore::create_key_once`] did.
#[derive(Debug, Clone)]
pub enum KeyCreation {
    /// The key was created from this form now; its secret is shown once.
    Created(CreatedKey),
    /// This form created a key before: that key, without its secret.
    AlreadyCreated(KeyInfo),
}

impl PartialEq for TokenHash {
    /// Constant-time comparison.
    fn eq(&self, other: &Self) -> bool {
        self.0.ct_eq(&other.0).into()
    }
}

impl Eq for TokenHash {}

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TokenHash(<redacted>)")
    }
}

/// A developer's sign-in identity, one per account created by sign-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    /// The account it signs in to.
    pub account_id: AccountId,
    /// The address signed up with (unique, compared case-insensitively).
    pub email: Email,
    /// Argon2id PHC string.
    pub password_hash: String,
    /// When the address was confirmed (`None`: not yet; sign-in is refused until then).
    pub verified_at: Option<DateTime<Utc>>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// What an emailed single-use token is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenPurpose {
    /// Confirms the address of a new sign-up.
    VerifyEmail,
    /// Lets the owner of the address choose a new password.
    ResetPassword,
    /// Confirms the new address of a sign-in address change.
    ChangeEmail,
    /// A sign-in whose password was right, waiting for its second factor (never mailed).
    SecondFactor,
}

impl TokenPurpose {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::VerifyEmail => "verify_email",
            Self::ResetPassword => "reset_password",
            Self::ChangeEmail => "change_email",
            Self::SecondFactor => "second_factor",
        }
    }
}

/// A live browser session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Whose it is.
    pub account_id: AccountId,
    /// When it was opened.
    pub created_at: DateTime<Utc>,
    /// The last request that used it.
    pub last_seen_at: DateTime<Utc>,
    /// The absolute expiry (the idle expiry is `last_seen_at + idle`).
    pub expires_at: DateTime<Utc>,
}

/// An account whose balance fell below the threshold its owner set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowBalance {
    /// The account.
    pub account: AccountId,
    /// Its sign-in address.
    pub email: Email,
    /// Its balance now.
    pub balance: u64,
    /// The threshold it fell below.
    pub threshold: u64,
}

/// An account's two-factor sign-in (RFC 6238 app codes, and single-use recovery codes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwoFactor {
    /// The secret the authenticator app shares.
    pub secret: Vec<u8>,
    /// When it was turned on.
    pub enabled_at: DateTime<Utc>,
    /// The recovery codes not used yet.
    pub recovery_codes_left: u32,
}

/// What proves the second factor, at sign-in or before a guarded change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecondFactor {
    /// An app code, by the 30-second step it is right for (each step counts once).
    Step(u64),
    /// A recovery code, by its hash (each counts once).
    RecoveryCode(TokenHash),
}

/// A sign-in address change, once confirmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailChange {
    /// Whose address changed.
    pub account: AccountId,
    /// The address before.
    pub old: Email,
    /// The address now.
    pub new: Email,
}

/// An open session as the account page lists it: the hash of its token (which names it in
/// the form that ends it; the token itself is only in its browser's cookie) and its times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSession {
    /// The hash of its token.
    pub token: TokenHash,
    /// Its times.
    pub session: Session,
}

/// One line of an account's activity log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activity {
    /// When it happened.
    pub at: DateTime<Utc>,
    /// What happened (`sign_in`, `key_created`, `topup_paid`, ...).
    pub kind: String,
    /// Details for people (a key id, an amount); never a secret or an address.
    pub detail: String,
}

/// Requests of one key on one UTC day to one endpoint that ended with one status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageCount {
    /// The key used.
    pub key_id: KeyId,
    /// The UTC day.
    pub day: NaiveDate,
    /// The route (`/api/v1/posts/{id}`).
    pub endpoint: String,
    /// The HTTP status answered.
    pub status: u16,
    /// How many.
    pub count: u64,
    /// The last of them.
    pub last_at: DateTime<Utc>,
}

/// Where a top-up stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopupStatus {
    /// Checkout started, no payment confirmed yet.
    Pending,
    /// Paid and credited (final; a refund is recorded beside it).
    Paid,
    /// The payment failed.
    Failed,
    /// The checkout expired unpaid.
    Expired,
}

impl TopupStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Paid => "paid",
            Self::Failed => "failed",
            Self::Expired => "expired",
        }
    }

    /// Reads a stored name.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "pending" => Self::Pending,
            "paid" => Self::Paid,
            "failed" => Self::Failed,
            "expired" => Self::Expired,
            _ => return None,
        })
    }
}

/// What a top-up order is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTopup {
    /// Credits to add once paid.
    pub credits: u64,
    /// Price in the currency's minor unit.
    pub amount_cents: u64,
    /// ISO 4217, lower case.
    pub currency: String,
    /// The payment provider (`stripe`, `test`).
    pub provider: String,
}

/// A top-up order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topup {
    /// Its id (the provider's `client_reference_id`).
    pub id: i64,
    /// Whose.
    pub account_id: AccountId,
    /// Credits added when paid.
    pub credits: u64,
    /// Price in the currency's minor unit.
    pub amount_cents: u64,
    /// ISO 4217, lower case.
    pub currency: String,
    /// The payment provider.
    pub provider: String,
    /// The provider's checkout id, once the checkout was created.
    pub reference: Option<String>,
    /// Where it stands.
    pub status: TopupStatus,
    /// The provider's payment id (refunds name it).
    pub payment_intent: Option<String>,
    /// How much of the price was refunded so far.
    pub refunded_cents: u64,
    /// Credits taken back by refunds so far.
    pub refunded_credits: u64,
    /// When it was ordered.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// A verified payment-provider event, in the store's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentEvent {
    /// The provider's event id (an event is applied at most once).
    pub event_id: String,
    /// What it says.
    pub kind: PaymentEventKind,
}

/// What a payment event says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentEventKind {
    /// A checkout finished; `paid` when the money is there (else an async payment follows).
    CheckoutCompleted(CheckoutFacts),
    /// An async payment of a completed checkout succeeded.
    PaymentSucceeded(CheckoutFacts),
    /// An async payment failed.
    PaymentFailed(CheckoutFacts),
    /// The checkout expired unpaid.
    CheckoutExpired(CheckoutFacts),
    /// Money was refunded: the cumulative refunded amount of a payment.
    Refunded {
        /// The payment refunded.
        payment_intent: String,
        /// Cumulative refunded amount, minor unit.
        amount_refunded: u64,
        /// Currency of the amount.
        currency: String,
    },
}

/// What a checkout event tells about an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutFacts {
    /// The provider's checkout id.
    pub reference: String,
    /// Our order id, as sent to the provider.
    pub topup_id: Option<i64>,
    /// Amount paid or due, minor unit.
    pub amount: u64,
    /// Its currency.
    pub currency: String,
    /// Whether the money is there.
    pub paid: bool,
    /// The provider's payment id.
    pub payment_intent: Option<String>,
}

/// What applying a [`PaymentEvent`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentOutcome {
    /// The event id was applied before: nothing happened.
    Duplicate,
    /// The top-up was paid: credits added, the new balance.
    Credited {
        /// The order.
        topup_id: i64,
        /// Credits added.
        credits: u64,
        /// The balance after.
        balance: u64,
    },
    /// The top-up changed state without credits (failed, expired, awaiting payment).
    Updated {
        /// The order.
        topup_id: i64,
        /// Its state now.
        status: TopupStatus,
    },
    /// A refund took credits back.
    Refunded {
        /// The order.
        topup_id: i64,
        /// Credits taken back (at most the balance).
        credits: u64,
    },
    /// Recorded, nothing to do (already paid, unknown type...): why.
    Ignored(String),
    /// The event contradicts the order (amount, currency, reference): why. Nothing credited;
    /// the event is recorded and the order's owner sees it in their activity.
    Rejected(String),
    /// The event is about a payment not recorded yet (a refund delivered before its
    /// payment): nothing recorded, so the provider's next delivery is applied.
    NotYet(String),
}

impl PaymentOutcome {
    /// The top-up it is about (none for duplicates, ignored, rejected and early events).
    pub fn topup_id(&self) -> Option<i64> {
        match self {
            Self::Credited { topup_id, .. }
            | Self::Updated { topup_id, .. }
            | Self::Refunded { topup_id, .. } => Some(*topup_id),
            _ => None,
        }
    }

    /// The top-up this outcome of `event` is about and the activity line (kind, detail) its
    /// owner sees; none for duplicates and ignored events.
    pub fn activity(&self, event: &PaymentEvent) -> Option<(i64, &'static str, String)> {
        match self {
            Self::Credited {
                topup_id, credits, ..
            } => Some((
                *topup_id,
                "topup_paid",
                format!("top-up {topup_id}: {credits} credits added"),
            )),
            Self::Updated { topup_id, status } => Some((
                *topup_id,
                "topup_updated",
                format!("top-up {topup_id}: {}", status.as_str()),
            )),
            Self::Refunded { topup_id, credits } => Some((
                *topup_id,
                "topup_refunded",
                format!("top-up {topup_id}: {credits} credits taken back"),
            )),
            Self::Rejected(why) => {
                let topup_id = match &event.kind {
                    PaymentEventKind::CheckoutCompleted(facts)
                    | PaymentEventKind::PaymentSucceeded(facts)
                    | PaymentEventKind::PaymentFailed(facts)
                    | PaymentEventKind::CheckoutExpired(facts) => facts.topup_id?,
                    PaymentEventKind::Refunded { .. } => return None,
                };
                Some((
                    topup_id,
                    "topup_rejected",
                    format!(
                        "a payment event was refused, nothing credited ({why}); contact support"
                    ),
                ))
            }
            _ => None,
        }
    }
}

/// The outcome as recorded beside its event (`credited 500`, `ignored: ...`).
impl fmt::Display for PaymentOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Duplicate => f.write_str("duplicate"),
            Self::Credited { credits, .. } => write!(f, "credited {credits}"),
            Self::Updated { status, .. } => f.write_str(status.as_str()),
            Self::Refunded { credits, .. } => write!(f, "refunded {credits}"),
            Self::Ignored(why) => write!(f, "ignored: {why}"),
            Self::Rejected(why) => write!(f, "rejected: {why}"),
            Self::NotYet(why) => write!(f, "not yet: {why}"),
        }
    }
}

/// Errors of the dashboard's storage beyond [`AccountError`].
#[derive(Debug, thiserror::Error)]
pub enum DeveloperError {
    /// Sign-up with an address that already has a login.
    #[error("an account with this email already exists")]
    EmailTaken,
    /// No top-up has this id.
    #[error("top-up {0} not found")]
    TopupNotFound(i64),
    /// An account, key or storage error.
    #[error(transparent)]
    Account(#[from] AccountError),
}

/// The dashboard's storage, on the same backend as [`AccountStore`]. Blocking, like it.
pub trait DeveloperStore: AccountStore {
    /// Creates an account (0 credits) with an unverified login; [`DeveloperError::EmailTaken`]
    /// when the address (case-insensitively) already has one.
    fn register(
        &self,
        email: &Email,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<AccountId, DeveloperError>;

    /// The login of this address, if any (case-insensitive).
    fn login_by_email(&self, email: &Email) -> Result<Option<Login>, DeveloperError>;

    /// The login of this account, if it has one.
    fn login(&self, account: AccountId) -> Result<Option<Login>, DeveloperError>;

    /// Replaces the password hash.
    fn set_password(&self, account: AccountId, password_hash: &str) -> Result<(), DeveloperError>;

    /// Marks the address verified; the first time, adds `signup_credits` (when non-zero) with a
    /// ledger row. Returns whether this call verified it.
    fn mark_verified(
        &self,
        account: AccountId,
        signup_credits: u64,
        now: DateTime<Utc>,
    ) -> Result<bool, DeveloperError>;

    /// Stores a single-use token for `purpose`, valid until `expires_at`; earlier unused
    /// tokens of the same purpose for the account stop working.
    fn issue_token(
        &self,
        purpose: TokenPurpose,
        token: &TokenHash,
        account: AccountId,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<(), DeveloperError>;

    /// Uses a token up: its account when it exists for `purpose` and has not expired.
    fn consume_token(
        &self,
        purpose: TokenPurpose,
        token: &TokenHash,
        now: DateTime<Utc>,
    ) -> Result<Option<AccountId>, DeveloperError>;

    /// Creates a key as [`AccountStore::create_key`] does, once per form: `form` is the
    /// hash of the one-time token the create form carried. A second call with the same form
    /// (a reloaded answer page sending it again) creates nothing and answers the key the
    /// first call created, whose secret is never shown again.
    fn create_key_once(
        &self,
        account: AccountId,
        form: &TokenHash,
        new: &NewKey,
        now: DateTime<Utc>,
    ) -> Result<KeyCreation, DeveloperError>;

    /// The account `consume_token` would answer now, without using the token up (a link
    /// checked when it is opened, used when its form is sent; a sign-in waiting for its
    /// second factor).
    fn token_holder(
        &self,
        purpose: TokenPurpose,
        token: &TokenHash,
        now: DateTime<Utc>,
    ) -> Result<Option<AccountId>, DeveloperError>;

    /// Opens a session expiring at `expires_at` at the latest.
    fn open_session(
        &self,
        token: &TokenHash,
        account: AccountId,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<(), DeveloperError>;

    /// The session when it is live at `now` (before its absolute expiry, and used within
    /// `idle` of its last use), marked used at `now`; an expired session is closed.
    fn touch_session(
        &self,
        token: &TokenHash,
        now: DateTime<Utc>,
        idle: chrono::Duration,
    ) -> Result<Option<Session>, DeveloperError>;

    /// Closes one session (idempotent).
    fn close_session(&self, token: &TokenHash) -> Result<(), DeveloperError>;

    /// Deletes what can no longer be used at `now`: sessions past their absolute expiry or
    /// unused for `idle`, and emailed tokens past theirs. Returns how many rows went.
    fn purge_expired(
        &self,
        now: DateTime<Utc>,
        idle: chrono::Duration,
    ) -> Result<u64, DeveloperError>;

    /// Closes every session of the account; returns how many were open.
    fn close_sessions(&self, account: AccountId) -> Result<u64, DeveloperError>;

    /// Closes the account for good (its owner deleted it): every key revoked, every session
    /// and emailed token ended, the login removed (the address may sign up again), the
    /// address forgotten, the request log and two-factor secret deleted, and the balance forfeited with a ledger
    /// row (the ledger and top-ups stay, as the account of money). Returns the credits
    /// forfeited.
    fn close_account(&self, account: AccountId, now: DateTime<Utc>) -> Result<u64, DeveloperError>;

    /// Asks to change the account's sign-in address to `new`: kept pending (replacing an
    /// earlier request) with a single-use [`TokenPurpose::ChangeEmail`] token valid until
    /// `expires_at`, mailed to the new address. Refused with
    /// [`DeveloperError::EmailTaken`] when another login has that address.
    fn request_email_change(
        &self,
        account: AccountId,
        new: &Email,
        token: &TokenHash,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Result<(), DeveloperError>;

    /// Uses a change's token up and makes the pending address the account's: what changed,
    /// or `None` for an unknown, used or expired token. Refused with
    /// [`DeveloperError::EmailTaken`] when another login took the address meanwhile.
    fn confirm_email_change(
        &self,
        token: &TokenHash,
        now: DateTime<Utc>,
    ) -> Result<Option<EmailChange>, DeveloperError>;

    /// Sets the balance under which the account's owner is mailed (`None`: never). A new
    /// threshold starts unnotified.
    fn set_low_balance_alert(
        &self,
        account: AccountId,
        threshold: Option<u64>,
    ) -> Result<(), DeveloperError>;

    /// The account's low-balance threshold, if it set one.
    fn low_balance_alert(&self, account: AccountId) -> Result<Option<u64>, DeveloperError>;

    /// In one transaction: the accounts whose balance fell below their threshold and that
    /// were not told yet, after re-arming those whose balance is back at or above it.
    fn due_low_balance_alerts(&self) -> Result<Vec<LowBalance>, DeveloperError>;

    /// Marks `alert` told (once its mail went), so that each crossing is told once; nothing
    /// when its owner changed the threshold meanwhile.
    fn mark_low_balance_told(&self, alert: &LowBalance) -> Result<(), DeveloperError>;

    /// The account's two-factor sign-in, when it is on.
    fn two_factor(&self, account: AccountId) -> Result<Option<TwoFactor>, DeveloperError>;

    /// Turns two-factor sign-in on with `secret`, whose code for `step` the owner just typed
    /// (that step counts as used), and the hashes of its recovery codes. False, and nothing
    /// changed, when it is on already.
    fn enable_two_factor(
        &self,
        account: AccountId,
        secret: &[u8],
        step: u64,
        recovery: &[TokenHash],
        now: DateTime<Utc>,
    ) -> Result<bool, DeveloperError>;

    /// Turns two-factor sign-in off: its secret and recovery codes are deleted.
    fn disable_two_factor(&self, account: AccountId) -> Result<(), DeveloperError>;

    /// Every stored two-factor secret, by account (what re-sealing them all reads).
    fn two_factor_secrets(&self) -> Result<Vec<(AccountId, Vec<u8>)>, DeveloperError>;

    /// Stores `to` in place of the account's two-factor secret when that is still `from`
    /// (the same secret in another form: sealed where it was stored plain). False, and
    /// nothing changed, when two-factor sign-in is off or its secret is not `from`.
    fn replace_two_factor_secret(
        &self,
        account: AccountId,
        from: &[u8],
        to: &[u8],
    ) -> Result<bool, DeveloperError>;

    /// Replaces the account's recovery codes (the old ones stop working).
    fn replace_recovery_codes(
        &self,
        account: AccountId,
        recovery: &[TokenHash],
    ) -> Result<(), DeveloperError>;

    /// Uses `proof` up: true when two-factor sign-in is on and the proof is unused (an app
    /// code's step later than every step used before; a recovery code not used yet), which
    /// it is from now on.
    fn use_second_factor(
        &self,
        account: AccountId,
        proof: &SecondFactor,
        now: DateTime<Utc>,
    ) -> Result<bool, DeveloperError>;

    /// The account's sessions still open at `now` (not past their absolute expiry, nor idle
    /// for `idle`), the most recently used first.
    fn sessions(
        &self,
        account: AccountId,
        now: DateTime<Utc>,
        idle: chrono::Duration,
    ) -> Result<Vec<ListedSession>, DeveloperError>;

    /// Closes one session of the account (its token's hash); whether it was open. Another
    /// account's session is left alone.
    fn close_account_session(
        &self,
        account: AccountId,
        token: &TokenHash,
    ) -> Result<bool, DeveloperError>;

    /// Closes every session of the account but `keep` (after a password change); how many.
    fn close_other_sessions(
        &self,
        account: AccountId,
        keep: &TokenHash,
    ) -> Result<u64, DeveloperError>;

    /// Appends to the account's activity log.
    fn record_activity(
        &self,
        account: AccountId,
        kind: &str,
        detail: &str,
        now: DateTime<Utc>,
    ) -> Result<(), DeveloperError>;

    /// The newest `limit` activity lines, newest first.
    fn activity(&self, account: AccountId, limit: u32) -> Result<Vec<Activity>, DeveloperError>;

    /// Adds request counts (summing into existing rows; keys no longer stored are skipped).
    fn record_usage(&self, counts: &[UsageCount]) -> Result<(), DeveloperError>;

    /// The usage rows of the account's keys from `since` (inclusive), by day then key.
    fn usage(
        &self,
        account: AccountId,
        since: NaiveDate,
    ) -> Result<Vec<UsageCount>, DeveloperError>;

    /// Renames a key (`None` or blank: no name); returns the stored name.
    fn rename_key(
        &self,
        key_id: &KeyId,
        name: Option<&str>,
    ) -> Result<Option<String>, DeveloperError>;

    /// Records a pending top-up order.
    fn create_topup(
        &self,
        account: AccountId,
        order: &NewTopup,
        now: DateTime<Utc>,
    ) -> Result<Topup, DeveloperError>;

    /// Notes the provider's checkout id of an order.
    fn set_topup_reference(&self, topup_id: i64, reference: &str) -> Result<(), DeveloperError>;

    /// One order.
    fn topup(&self, topup_id: i64) -> Result<Topup, DeveloperError>;

    /// The account's orders, newest first.
    fn topups(&self, account: AccountId) -> Result<Vec<Topup>, DeveloperError>;

    /// Applies a verified payment event in one transaction: the event id is recorded (seen
    /// before: [`PaymentOutcome::Duplicate`]); a paid checkout matching its order's amount and
    /// currency moves the order to paid once and adds its credits with one ledger row keyed
    /// by the order; failures and expiries never undo a payment, and a finished order never
    /// goes back to pending; a refund takes back the refunded share of the credits (at most
    /// the balance). What changed an order is added to its owner's activity in the same
    /// transaction.
    fn apply_payment_event(
        &self,
        event: &PaymentEvent,
        now: DateTime<Utc>,
    ) -> Result<PaymentOutcome, DeveloperError>;

    /// The account's ledger from `from` (inclusive) to `to` (exclusive) as a statement
    /// reads it, newest first: charges summed per UTC day and key, every other row (the
    /// sign-up credit, top-ups, grants, refunds) on its own.
    fn ledger_lines(
        &self,
        account: AccountId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Vec<LedgerLine>, DeveloperError>;

    /// Adds requests to the request log (each under its key's account; a request of a key
    /// that does not exist is skipped).
    fn record_requests(&self, requests: &[LoggedRequest]) -> Result<(), DeveloperError>;

    /// The account's logged requests that `filter` selects, newest first, at most `limit`.
    fn requests(
        &self,
        account: AccountId,
        filter: &RequestFilter,
        limit: u32,
    ) -> Result<Vec<LoggedRequest>, DeveloperError>;

    /// The account's logged requests answered from `from` until `until` (not included),
    /// counted per UTC hour and status, oldest first; only `key`'s when it is given.
    fn hourly_requests(
        &self,
        account: AccountId,
        key: Option<&KeyId>,
        from: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<HourCount>, DeveloperError>;

    /// Deletes the logged requests made before `before`; returns how many.
    fn prune_requests(&self, before: DateTime<Utc>) -> Result<u64, DeveloperError>;

    /// Whether the account has ledger rows before `at` (a statement has an older page).
    fn has_ledger_before(
        &self,
        account: AccountId,
        at: DateTime<Utc>,
    ) -> Result<bool, DeveloperError>;

    /// Adds credits once per `idempotency_key` (an operator's `credits add --idempotency-key`):
    /// `(balance, added)`; a key seen before adds nothing and returns the current balance.
    fn add_credits_once(
        &self,
        account: AccountId,
        amount: u64,
        idempotency_key: &str,
        now: DateTime<Utc>,
    ) -> Result<(u64, bool), DeveloperError>;
}
