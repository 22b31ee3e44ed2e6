//! Accounts, API keys, prepaid credits and per-key rate limits for forumdex.
//!
//! - [`AccountStore`] is the storage seam (DESIGN.md "Shape"); its backends live beside each
//!   other in their own crates (`forumdex-sqlite`, the embedded default, and
//!   `forumdex-postgres`); this crate holds no SQL. The API is blocking: the HTTP server
//!   calls it through `spawn_blocking`.
//! - [`ApiKey`] is a parsed secret (`fdx_live_` + 190 random bits + checksum); only its
//!   SHA-256 ([`KeyHash`]) is ever stored.
//! - [`rules`] holds what every backend applies alike (validation, new keys, renewals,
//!   repeated charges, authentication's verdict), and [`payments`] the payment flow as a
//!   planner over facts, so a backend keeps only storage.
//! - [`Allowlist`] holds a key's IP restrictions.
//! - [`RateLimiter`] is the rate-limit seam; [`InMemoryRateLimiter`] is an exact sliding log.
//! - [`DeveloperStore`] extends it with what the developer dashboard keeps: logins,
//!   sessions, emailed tokens, activity, usage counts, top-ups and payment events.
//! - [`wire`] holds the JSON shapes printed by the operator CLI (operator-interface.md).

pub mod allowlist;
pub mod developer;
pub mod ids;
pub mod key;
pub mod payments;
pub mod rate;
pub mod rules;
pub mod store;
pub mod stored;
pub mod time;
pub mod wire;

pub use allowlist::{AllowEntry, AllowEntryError, Allowlist};
pub use developer::{
    Activity, CheckoutFacts, DeveloperError, DeveloperStore, EmailChange, HourCount, KeyCreation,
    LedgerLine, ListedSession, LoggedRequest, Login, LowBalance, NewTopup, PaymentEvent,
    PaymentEventKind, PaymentOutcome, RequestFilter, SecondFactor, Session, TokenHash,
    TokenPurpose, Topup, TopupStatus, TwoFactor, UsageCount,
};
pub use ids::{AccountId, IdParseError, KeyId};
pub use key::{ApiKey, KeyHash, KeyLifetime, KeyParseError, KeyStatus, LifetimeParseError};
pub use rate::{InMemoryRateLimiter, RateDecision, RateLimitError, RateLimiter};
pub use store::{
    Account, AccountError, AccountStore, AuthError, AuthenticatedKey, CreatedKey, Email, KeyInfo,
    LedgerEntry, MAX_BALANCE, NewKey,
};
pub use time::Timestamp;
