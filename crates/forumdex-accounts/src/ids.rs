//! Identifiers of accounts and keys, as the CLI and the server pass them around.

use std::fmt;
use std::str::FromStr;

use rand::Rng;
use rand::distributions::Alphanumeric;
use serde::{Deserialize, Serialize};

/// Identifies an account: a positive integer assigned by the store (printed as a JSON number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AccountId(i64);

impl AccountId {
    /// Wraps a stored id; `None` unless `raw >= 1`.
    pub fn new(raw: i64) -> Option<Self> {
        (raw >= 1).then_some(Self(raw))
    }

    /// The integer behind the id.
    pub fn get(self) -> i64 {
        self.0
    }
}

impl fmt::Display for AccountId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for AccountId {
    type Err = IdParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.trim()
            .parse::<i64>()
            .ok()
            .and_then(Self::new)
            .ok_or_else(|| IdParseError::Account(s.to_owned()))
    }
}

/// The public identifier of an API key (`key_` + 20 base62 characters); safe to show and log.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct KeyId(String);

/// Prefix of every [`KeyId`].
const KEY_ID_PREFIX: &str = "key_";
/// Number of random base62 characters after [`KEY_ID_PREFIX`] (about 119 bits).
const KEY_ID_RANDOM_LEN: usize = 20;

impl KeyId {
    /// Draws a fresh random key id.
    pub fn generate() -> Self {
        let random: String = rand::rngs::OsRng
            .sample_iter(&Alphanumeric)
            .take(KEY_ID_RANDOM_LEN)
            .map(char::from)
            .collect();
        Self(format!("{KEY_ID_PREFIX}{random}"))
    }

    /// Checks the shape of a key id (prefix, length, charset); does not look it up.
    pub fn parse(s: &str) -> Result<Self, IdParseError> {
        let valid = s.strip_prefix(KEY_ID_PREFIX).is_some_and(|rest| {
            rest.len() == KEY_ID_RANDOM_LEN && rest.bytes().all(|b| b.is_ascii_alphanumeric())
        });
        if valid {
            Ok(Self(s.to_owned()))
        } else {
            Err(IdParseError::Key(s.to_owned()))
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for KeyId {
    type Err = IdParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl TryFrom<String> for KeyId {
    type Error = IdParseError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<KeyId> for String {
    fn from(id: KeyId) -> Self {
        id.0
    }
}

/// A malformed account or key id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdParseError {
    /// Account ids are positive integers.
    #[error("invalid account id {0:?}: expected a positive integer")]
    Account(String),
    /// Key ids look like `key_` followed by 20 letters and digits.
    #[error("invalid key id {0:?}: expected `key_` followed by 20 letters and digits")]
    Key(String),
}
