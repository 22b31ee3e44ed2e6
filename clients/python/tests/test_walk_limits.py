"""Walks against a real server at their limits: a cursor that expires mid-walk (410: the
walk restarts after the last post seen, says so, and neither repeats nor skips a post),
and a credit budget that stops a walk before it spends more."""

from __future__ import annotations

import logging
import time

import pytest
from conftest import Deployment, Server, raw_listing

from forumdex import BudgetExceeded, Client, RestartEvent


@pytest.mark.parametrize("order", ["asc", "desc"])
def test_an_expired_cursor_restarts_after_the_last_post_seen(
    deployment: Deployment,
    short_idle_server: Server,
    big_topic: tuple[int, int],
    order: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = deployment.key(credits=1000)
    topic_id, _ = big_topic
    expected = raw_listing(
        short_idle_server.base_url, key, f"/api/v1/topics/{topic_id}/posts", order=order
    )
    restarts: list[RestartEvent] = []
    seen: list[int] = []
    with Client(api_key=key, base_url=short_idle_server.base_url) as client:
        walk = client.topic_posts(topic_id, limit=6, order=order, on_restart=restarts.append)
        with caplog.at_level(logging.WARNING, logger="forumdex"):
            for post in walk:
                seen.append(post.post_id)
                if len(seen) == 8:
                    # Past the first page, mid-second: let the cursor (2 s idle) expire.
                    time.sleep(3.5)
    assert seen == [p["post_id"] for p in expected]
    assert len(set(seen)) == len(expected)
    assert len(restarts) >= 1 and walk.stats.restarts == len(restarts)
    # The restart after the pause continues after the last post of the second page.
    (after_pause,) = [event for event in restarts if event.last_post_id == seen[11]]
    bound = "date_from" if order == "asc" else "date_to"
    assert bound in after_pause.params
    assert any("restarting on a new snapshot" in r.getMessage() for r in caplog.records)


def test_a_budget_stops_a_walk_before_it_spends_more(
    deployment: Deployment, server: Server, big_topic: tuple[int, int]
) -> None:
    key = deployment.key(credits=100)
    topic_id, _ = big_topic
    seen: list[int] = []
    with Client(api_key=key, base_url=server.base_url) as client:
        walk = client.topic_posts(topic_id, limit=5, max_credits=2)
        with pytest.raises(BudgetExceeded) as raised:
            for post in walk:
                seen.append(post.post_id)
        assert len(seen) == 10
        assert walk.stats.credits == 2 and not walk.complete
        assert raised.value.max_credits == 2 and raised.value.credits_spent == 2
        assert client.last_meta.credits_remaining == 98

    with Client(api_key=key, base_url=server.base_url, max_credits=3) as capped:
        with pytest.raises(BudgetExceeded):
            list(capped.topic_posts(topic_id, limit=5))
        assert capped.credits_spent == 3
        assert capped.last_meta.credits_remaining == 95
