"""429 from a real server with FORUMDEX_RATE_LIMIT_PER_MINUTE=2: a client that must not
wait raises RateLimited with the reset time; a client that may wait sleeps until
X-RateLimit-Reset and then succeeds.

The server's window is a rolling minute, so the wait lasts up to 60 s. It runs in a
thread started when the session starts (``rate_limit_probe`` in conftest.py), in parallel with the
other tests; the test at the end of the file only reads its outcome. Nothing here
asserts how long anything took."""

from __future__ import annotations

from conftest import RateLimitOutcome


def test_429_raises_rate_limited_or_waits_for_the_reset_and_retries(
    rate_limit_probe: RateLimitOutcome | None,
) -> None:
    outcome = rate_limit_probe
    assert outcome is not None
    assert outcome.done.wait(timeout=120), "the rate-limit probe did not finish"
    if outcome.failure is not None:
        raise outcome.failure
    assert outcome.admitted_before == 2
    (refused,) = outcome.refused
    assert refused.status == 429 and refused.request_id and refused.credits_charged == 0
    assert refused.meta.rate_limit_limit == 2 and refused.meta.rate_limit_remaining == 0
    assert refused.reset is not None and refused.reset_at is not None
    assert outcome.result is not None and outcome.result.credits_charged == 1
    assert outcome.events and all(e.reason == "rate_limited" for e in outcome.events)
    assert outcome.events[0].status == 429 and outcome.events[0].wait > 0
