//! API key secrets, their stored hashes, lifetimes and states.
//!
//! A secret reads `fdx_live_` + 32 random base62 characters (about 190 bits) + 6 base62
//! characters of checksum (the first 32 bits of the SHA-256 of everything before it).
//! [`ApiKey::parse`] checks prefix, length, charset and checksum, so garbage is refused
//! before any lookup. Stores keep only [`KeyHash`], the SHA-256 of the whole secret.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Duration, Utc};
use rand::Rng;
use rand::distributions::Alphanumeric;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The fixed live-key prefix every secret starts with.
pub const KEY_PREFIX: &str = "fdx_live_";
/// Random base62 characters in a secret (32 * log2(62) ~ 190 bits).
const RANDOM_LEN: usize = 32;
/// Base62 characters of checksum at the end of a secret.
const CHECKSUM_LEN: usize = 6;
/// Total length of a secret.
pub const KEY_LEN: usize = KEY_PREFIX.len() + RANDOM_LEN + CHECKSUM_LEN;

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A well-formed API key secret. Its `Debug` output hides the secret; never log it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Draws a fresh secret from the operating system's random source.
    pub fn generate() -> Self {
        let random: String = rand::rngs::OsRng
            .sample_iter(&Alphanumeric)
            .take(RANDOM_LEN)
            .map(char::from)
            .collect();
        let body = format!("{KEY_PREFIX}{random}");
        let checksum = checksum(&body);
        Self(body + &checksum)
    }

    /// Checks that `s` is shaped like a secret: prefix, length, charset, checksum.
    pub fn parse(s: &str) -> Result<Self, KeyParseError> {
        let Some(rest) = s.strip_prefix(KEY_PREFIX) else {
            return Err(KeyParseError::Prefix);
        };
        if rest.len() != RANDOM_LEN + CHECKSUM_LEN {
            return Err(KeyParseError::Length);
        }
        if !rest.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(KeyParseError::Charset);
        }
        let (body, sum) = s.split_at(KEY_PREFIX.len() + RANDOM_LEN);
        if checksum(body).as_bytes().ct_eq(sum.as_bytes()).unwrap_u8() != 1 {
            return Err(KeyParseError::Checksum);
        }
        Ok(Self(s.to_owned()))
    }

    /// The secret itself, to show once at creation or to send in a request.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }

    /// The prefix and the first 4 random characters (about 24 of the 190 bits): enough to
    /// tell a developer's keys apart, too little to matter.
    pub fn display_prefix(&self) -> String {
        self.0[..KEY_PREFIX.len() + 4].to_owned()
    }

    /// The SHA-256 of the secret, the only form a store keeps.
    pub fn hash(&self) -> KeyHash {
        KeyHash(Sha256::digest(self.0.as_bytes()).into())
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl FromStr for ApiKey {
    type Err = KeyParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Fixed-width base62 rendering of the first 32 bits of SHA-256(`body`).
fn checksum(body: &str) -> String {
    let digest = Sha256::digest(body.as_bytes());
    let mut n = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    let mut out = [b'0'; CHECKSUM_LEN];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    out.iter().map(|&b| char::from(b)).collect()
}

/// Why a string is not an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyParseError {
    /// The string does not start with [`KEY_PREFIX`].
    #[error("api key does not start with the live prefix")]
    Prefix,
    /// The string has the wrong length.
    #[error("api key has the wrong length")]
    Length,
    /// The string holds characters other than ASCII letters and digits after the prefix.
    #[error("api key holds characters other than letters and digits")]
    Charset,
    /// The checksum does not match: a typo or a made-up key.
    #[error("api key checksum does not match")]
    Checksum,
}

/// SHA-256 of a secret; compared in constant time.
#[derive(Clone, Copy)]
pub struct KeyHash(pub [u8; 32]);

impl KeyHash {
    /// The hash bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Builds a hash from stored bytes; `None` unless there are exactly 32.
    pub fn from_slice(bytes: &[u8]) -> Option<Self> {
        <[u8; 32]>::try_from(bytes).ok().map(Self)
    }
}

impl PartialEq for KeyHash {
    /// Constant-time comparison.
    fn eq(&self, other: &Self) -> bool {
        self.0.ct_eq(&other.0).into()
    }
}

impl Eq for KeyHash {}

impl fmt::Debug for KeyHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyHash({})", hex::encode(self.0))
    }
}

/// How long a key lives from its creation or renewal: no expiry, or 7, 30, 90, 180 or 365
/// days (api-contract.md "Limits"). Written `none`, `7d`, `30d`, `90d`, `180d`, `365d`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum KeyLifetime {
    /// The key never expires.
    #[default]
    None,
    /// 7 days.
    Days7,
    /// 30 days.
    Days30,
    /// 90 days.
    Days90,
    /// 180 days.
    Days180,
    /// 365 days.
    Days365,
}

impl KeyLifetime {
    /// Every choice, in increasing order.
    pub const ALL: [KeyLifetime; 6] = [
        Self::None,
        Self::Days7,
        Self::Days30,
        Self::Days90,
        Self::Days180,
        Self::Days365,
    ];

    /// The number of days, or `None` for no expiry.
    pub fn days(self) -> Option<u32> {
        match self {
            Self::None => None,
            Self::Days7 => Some(7),
            Self::Days30 => Some(30),
            Self::Days90 => Some(90),
            Self::Days180 => Some(180),
            Self::Days365 => Some(365),
        }
    }

    /// The lifetime of `days` days; `None` unless it is one of the allowed choices.
    pub fn from_days(days: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.days() == Some(days))
    }

    /// The expiry instant of a key created or renewed at `now`, truncated to milliseconds.
    pub fn expires_at(self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.days()
            .map(|d| crate::time::truncate_millis(now + Duration::days(i64::from(d))))
    }
}

impl fmt::Display for KeyLifetime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.days() {
            None => f.write_str("none"),
            Some(d) => write!(f, "{d}d"),
        }
    }
}

impl FromStr for KeyLifetime {
    type Err = LifetimeParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|l| l.to_string() == s)
            .ok_or_else(|| LifetimeParseError(s.to_owned()))
    }
}

/// A lifetime other than `none`, `7d`, `30d`, `90d`, `180d`, `365d`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid key lifetime {0:?}: expected none, 7d, 30d, 90d, 180d or 365d")]
pub struct LifetimeParseError(pub String);

/// The state of a key at a given instant (api-contract.md "API key").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyStatus {
    /// Usable.
    Active,
    /// Its expiry instant has passed; renewing or changing the expiry makes it active again.
    Expired,
    /// Revoked from the dashboard; final.
    Revoked,
}

impl KeyStatus {
    /// The status of a key with these fields at `now`: revoked wins over expired; a key
    /// whose expiry instant is `<= now` is expired.
    pub fn at(
        expires_at: Option<DateTime<Utc>>,
        revoked_at: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Self {
        if revoked_at.is_some() {
            Self::Revoked
        } else if expires_at.is_some_and(|at| at <= now) {
            Self::Expired
        } else {
            Self::Active
        }
    }

    /// The lowercase name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Expired => "expired",
            Self::Revoked => "revoked",
        }
    }
}

impl fmt::Display for KeyStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
