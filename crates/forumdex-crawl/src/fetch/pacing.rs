//! The pacing of requests: the one place that decides when the next request may start.

use std::time::Duration;

use rand::Rng;
use tokio::time::Instant;

/// When the next request may start. The interval is measured from the END of the previous
/// exchange (its body read, or its failure) to the START of the next request, which also
/// keeps starts at least the interval apart; a start bound is also set when a request is
/// sent, so even an exchange abandoned half-way (its future dropped) delays the next one.
#[derive(Debug, Default)]
pub(crate) struct Pacer {
    not_before: Option<Instant>,
    /// When the last exchange ended.
    ended: Option<Instant>,
}

impl Pacer {
    /// Waits until the next request may start, then notes its start: no other may start
    /// before `gap` from now. Returns the wait it decided on.
    pub(crate) async fn start(&mut self, gap: Duration) -> Duration {
        let wait = self.not_before.map_or(Duration::ZERO, |at| {
            at.saturating_duration_since(Instant::now())
        });
        if let Some(at) = self.not_before {
            tokio::time::sleep_until(at).await;
        }
        self.hold(Instant::now() + gap);
        wait
    }

    /// The gap became `gap` (robots.txt's `Crawl-delay` just read): the next request
    /// starts at least `gap` after the end of the last exchange.
    pub(crate) fn widen(&mut self, gap: Duration) {
        if let Some(ended) = self.ended {
            self.hold(ended + gap);
        }
    }

    /// Notes the end of an exchange: the next may start after `gap` plus a random extra in
    /// `0..=jitter`.
    pub(crate) fn finished(&mut self, gap: Duration, jitter: Duration) {
        let now = Instant::now();
        self.ended = Some(now);
        self.hold(now + gap + random_up_to(jitter));
    }

    /// No request starts before `at` (a `Retry-After`); an earlier bound is kept if later.
    pub(crate) fn hold(&mut self, at: Instant) {
        self.not_before = Some(self.not_before.map_or(at, |bound| bound.max(at)));
    }
}

fn random_up_to(jitter: Duration) -> Duration {
    let ms = u64::try_from(jitter.as_millis()).unwrap_or(u64::MAX);
    if ms == 0 {
        return Duration::ZERO;
    }
    Duration::from_millis(rand::thread_rng().gen_range(0..=ms))
}
