//! [`Clock`]: where the client reads the time and how it waits. The client waits on rate
//! limits (until `X-RateLimit-Reset`) and between retries; tests replace the clock so they
//! never sleep.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

/// A future the clock returns from [`Clock::sleep`].
pub type Sleep<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// The time source and timer of a [`crate::Client`]. [`SystemClock`] is the default; a test
/// can supply one that follows a simulated server's clock.
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current wall-clock time (compared with `X-RateLimit-Reset`).
    fn now(&self) -> SystemTime;

    /// Completes after `duration`.
    fn sleep(&self, duration: Duration) -> Sleep<'_>;
}

/// The system clock and tokio's timer.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::from(forumdex_clock::Clock::now(&forumdex_clock::SystemClock))
    }

    fn sleep(&self, duration: Duration) -> Sleep<'_> {
        Box::pin(tokio::time::sleep(duration))
    }
}
