//! The one place forumdex reads the wall clock.
//!
//! Every part that needs the time (the stores' writes, the importer, the crawler, the
//! dashboard, the server, the CLI, the client SDK) is given a [`Clock`] and asks it, so a
//! test can freeze or move time everywhere at once with a [`ManualClock`] instead of
//! sleeping. Nothing else in the workspace calls `Utc::now` or `SystemTime::now`; measuring a
//! duration or a timeout with `std::time::Instant` is not reading the wall clock and stays
//! where it is.
#![forbid(unsafe_code)]

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Duration, Utc};

/// Tells the time.
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;
}

/// A clock shared by the parts of a process.
pub type SharedClock = Arc<dyn Clock>;

/// The system's wall clock (what the binary runs on).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl SystemClock {
    /// The system clock, shared.
    pub fn shared() -> SharedClock {
        Arc::new(Self)
    }
}

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
        Self::new(SystemClock.now())
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        *self.lock() += by;
    }

    /// Sets the clock to `at` (which may be in its past).
    pub fn set(&self, at: DateTime<Utc>) {
        *self.lock() = at;
    }

    fn lock(&self) -> MutexGuard<'_, DateTime<Utc>> {
        self.now.lock().unwrap_or_else(PoisonError::into_inner)
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
            .expect("a valid instant")
            .to_utc();
        let clock = ManualClock::new(start);
        assert_eq!(clock.now(), start);
        clock.advance(Duration::seconds(90));
        assert_eq!(clock.now(), start + Duration::seconds(90));
        clock.set(start);
        assert_eq!(clock.now(), start);
    }

    #[test]
    fn the_system_clock_reads_the_present() {
        assert!(SystemClock.now() > DateTime::UNIX_EPOCH);
    }
}
