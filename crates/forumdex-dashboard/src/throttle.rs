//! Sign-in throttling: failed attempts counted per client address, and per account from
//! each client address, in a sliding window; past the limit, attempts are refused (429) until
//! the oldest failure leaves the window. An account's counts are kept per source so that a
//! stranger guessing its password locks out only themselves, never the owner; a completed
//! password reset clears them. Mail-sending forms (sign-up, password reset, resending verification) are
//! counted per address the same way.
//!
//! The counts live in the process (each node of a deployment counts its own); nothing is
//! written to disk and addresses are never logged.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};

/// Failed sign-ins allowed per address in [`window`].
pub const FAILURES_PER_ADDRESS: usize = 20;
/// Failed sign-ins allowed per account from one client address in [`window`].
pub const FAILURES_PER_ACCOUNT: usize = 5;
/// Mails one address may have sent in [`window`].
pub const MAILS_PER_ADDRESS: usize = 5;
/// Buckets kept before old ones are dropped.
const MAX_BUCKETS: usize = 100_000;

/// How far back attempts count.
pub fn window() -> Duration {
    Duration::minutes(15)
}

/// What is being counted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Bucket {
    /// Failed sign-ins from a client address.
    Address(String),
    /// Failed sign-ins to an account (by lower-case email) from a client address.
    Account {
        /// The account's lower-case email.
        email: String,
        /// The client address.
        source: String,
    },
    /// Mails requested from a client address.
    Mail(String),
}

impl Bucket {
    fn limit(&self) -> usize {
        match self {
            Self::Address(_) => FAILURES_PER_ADDRESS,
            Self::Account { .. } => FAILURES_PER_ACCOUNT,
            Self::Mail(_) => MAILS_PER_ADDRESS,
        }
    }
}

/// The attempts of every bucket.
#[derive(Debug, Default)]
pub struct Throttle {
    attempts: Mutex<HashMap<Bucket, VecDeque<DateTime<Utc>>>>,
}

impl Throttle {
    /// `Err(wait)` when `bucket` is at its limit at `now`: how long until an attempt is
    /// allowed again.
    pub fn check(&self, bucket: &Bucket, now: DateTime<Utc>) -> Result<(), Duration> {
        let mut attempts = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        let Some(times) = attempts.get_mut(bucket) else {
            return Ok(());
        };
        while times.front().is_some_and(|t| *t + window() <= now) {
            times.pop_front();
        }
        if times.len() < bucket.limit() {
            return Ok(());
        }
        let oldest = *times.front().expect("a full window holds attempts");
        Err(oldest + window() - now)
    }

    /// Counts an attempt of `bucket` at `now`.
    pub fn record(&self, bucket: Bucket, now: DateTime<Utc>) {
        let mut attempts = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        if attempts.len() >= MAX_BUCKETS {
            // Bounded memory under a flood: forget windows that have passed, and when the
            // flood is that wide, everything (the limits restart for everyone).
            attempts.retain(|_, times| times.back().is_some_and(|t| *t + window() > now));
            if attempts.len() >= MAX_BUCKETS {
                tracing::warn!("sign-in throttling forgot its counts under a flood");
                attempts.clear();
            }
        }
        let times = attempts.entry(bucket).or_default();
        times.push_back(now);
        while times.len() > FAILURES_PER_ADDRESS {
            times.pop_front();
        }
    }

    /// Takes back the attempt of `bucket` counted at `at` (a sign-in that succeeded).
    pub fn forget(&self, bucket: &Bucket, at: DateTime<Utc>) {
        let mut attempts = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(times) = attempts.get_mut(bucket)
            && let Some(position) = times.iter().rposition(|t| *t == at)
        {
            times.remove(position);
        }
    }

    /// Forgets the failures of `bucket` (after a successful sign-in to the account).
    pub fn clear(&self, bucket: &Bucket) {
        let mut attempts = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        attempts.remove(bucket);
    }

    /// Forgets the failed sign-ins to the account of `email` from every address (after its
    /// owner completed a password reset).
    pub fn clear_account(&self, email: &str) {
        let email = email.to_lowercase();
        let mut attempts = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        attempts
            .retain(|bucket, _| !matches!(bucket, Bucket::Account { email: e, .. } if *e == email));
    }
}

/// "3 minutes" for a wait, rounded up.
pub fn describe_wait(wait: Duration) -> String {
    let minutes = (wait.num_seconds() + 59) / 60;
    if minutes <= 1 {
        "a minute".to_owned()
    } else {
        format!("{minutes} minutes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_past_the_limit_until_the_window_moves() {
        let throttle = Throttle::default();
        let t0 = DateTime::<Utc>::from_timestamp(1_700_000_000, 0).unwrap();
        let account = Bucket::Account {
            email: "a@example.com".to_owned(),
            source: "192.0.2.1".to_owned(),
        };
        for i in 0..FAILURES_PER_ACCOUNT {
            assert!(throttle.check(&account, t0).is_ok(), "attempt {i}");
            throttle.record(account.clone(), t0 + Duration::seconds(i as i64));
        }
        let wait = throttle
            .check(&account, t0 + Duration::minutes(1))
            .unwrap_err();
        assert_eq!(wait, Duration::minutes(14));
        assert!(
            throttle
                .check(&account, t0 + window() + Duration::seconds(1))
                .is_ok()
        );
        let other = Bucket::Account {
            email: "b@example.com".to_owned(),
            source: "192.0.2.1".to_owned(),
        };
        assert!(throttle.check(&other, t0).is_ok());
        let elsewhere = Bucket::Account {
            email: "a@example.com".to_owned(),
            source: "198.51.100.7".to_owned(),
        };
        assert!(
            throttle.check(&elsewhere, t0).is_ok(),
            "the owner, elsewhere, is not locked out"
        );
        throttle.clear(&account);
        assert!(throttle.check(&account, t0 + Duration::minutes(1)).is_ok());
    }

    #[test]
    fn a_reset_clears_the_account_from_every_address() {
        let throttle = Throttle::default();
        let t0 = DateTime::<Utc>::from_timestamp(1_700_000_000, 0).unwrap();
        let from = |email: &str, source: &str| Bucket::Account {
            email: email.to_owned(),
            source: source.to_owned(),
        };
        for source in ["192.0.2.1", "192.0.2.2"] {
            for _ in 0..FAILURES_PER_ACCOUNT {
                throttle.record(from("a@example.com", source), t0);
            }
        }
        for _ in 0..FAILURES_PER_ACCOUNT {
            throttle.record(from("b@example.com", "192.0.2.1"), t0);
        }
        throttle.clear_account("A@Example.com");
        assert!(
            throttle
                .check(&from("a@example.com", "192.0.2.1"), t0)
                .is_ok()
        );
        assert!(
            throttle
                .check(&from("a@example.com", "192.0.2.2"), t0)
                .is_ok()
        );
        assert!(
            throttle
                .check(&from("b@example.com", "192.0.2.1"), t0)
                .is_err(),
            "another account's count stays"
        );
    }
}
