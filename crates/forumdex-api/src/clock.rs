//! The server's clock, passed in rather than read ad hoc, so expiry (cursor idle lifetime,
//! snapshot age, key expiry, rate-limit windows) is testable without sleeping.

use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};
use forumdex_corpus::Millis;

/// Tells the time.
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;

    /// The current instant in corpus milliseconds.
    fn now_millis(&self) -> Millis {
        Millis::from_datetime(self.now())
    }
}

/// The system's wall clock (what `forumdex serve` uses).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that moves only when told to: for tests and simulations.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<DateTime<Utc>>,
}

impl ManualClock {
    /// A clock showing `start`.
    pub fn new(start: DateTime<Utc>) -> Self {
        Self {
            now: Mutex::new(start),
        }
    }

    /// A clock showing the system time at the moment of the call.
    pub fn starting_now() -> Self {
        Self::new(Utc::now())
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        *self.lock() += by;
    }

    /// Sets the clock to `at` (which may be in its past).
    pub fn set(&self, at: DateTime<Utc>) {
        *self.lock() = at;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, DateTime<Utc>> {
        self.now
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.lock()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let start = DateTime::parse_from_rfc3339("2024-03-01T12:00:00Z")
            .unwrap()
            .to_utc();
        let clock = ManualClock::new(start);
        assert_eq!(clock.now(), start);
        clock.advance(Duration::seconds(90));
        assert_eq!(clock.now(), start + Duration::seconds(90));
        assert_eq!(
            clock.now_millis(),
            Millis::from_datetime(start + Duration::seconds(90))
        );
        clock.set(start);
        assert_eq!(clock.now(), start);
    }
}
