//! How account values are stored, for every backend: instants as Unix milliseconds, credit
//! amounts as signed 64-bit integers, ids as their raw forms; what does not decode is a
//! corrupt database, named.

use chrono::{DateTime, Utc};

use crate::ids::{AccountId, KeyId};
use crate::store::AccountError;

/// Stored data that does not decode: a bug or a hand-edited database.
pub fn corrupt(what: impl Into<String>) -> AccountError {
    AccountError::Storage(format!("corrupt accounts database: {}", what.into()).into())
}

/// An instant as stored: Unix milliseconds.
pub fn millis(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

/// An amount as stored; amounts are at most [`MAX_BALANCE`](crate::MAX_BALANCE), so a
/// larger one is refused as invalid.
pub fn to_i64(n: u64) -> Result<i64, AccountError> {
    i64::try_from(n).map_err(|_| AccountError::InvalidAmount(format!("{n} is too large")))
}

/// A stored balance or amount, never negative.
pub fn to_u64(n: i64) -> Result<u64, AccountError> {
    u64::try_from(n).map_err(|_| corrupt(format!("negative balance {n}")))
}

/// A stored account id.
pub fn account_id(raw: i64) -> Result<AccountId, AccountError> {
    AccountId::new(raw).ok_or_else(|| corrupt(format!("account id {raw}")))
}

/// A stored key id.
pub fn key_id(raw: &str) -> Result<KeyId, AccountError> {
    KeyId::parse(raw).map_err(|_| corrupt(format!("key id {raw:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_that_do_not_decode_name_what_is_corrupt() {
        assert_eq!(to_i64(5).expect("fits"), 5);
        assert!(matches!(
            to_i64(u64::MAX),
            Err(AccountError::InvalidAmount(_))
        ));
        assert_eq!(to_u64(7).expect("not negative"), 7);
        let negative = to_u64(-1).expect_err("negative");
        assert!(
            negative
                .to_string()
                .contains("corrupt accounts database: negative balance -1")
        );
        assert!(account_id(0).is_err());
        assert!(key_id("not a key id").is_err());
        assert_eq!(millis(DateTime::UNIX_EPOCH), 0);
    }
}
