"""Every operation against a real ``forumdex serve`` (sync and async), walks compared with
the server's own listing, and what each call costs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conftest import Deployment, Server, raw_listing

from forumdex import AsyncClient, Client, NotFound, Post, PostWalk
from forumdex.cli import dump


@pytest.fixture(scope="module")
def client(server: Server, api_key: str) -> Iterator[Client]:
    with Client(api_key=api_key, base_url=server.base_url) as made:
        yield made


def raw(server: Server, key: str, path: str) -> dict[str, Any]:
    response = httpx.get(f"{server.base_url}{path}", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def as_json(model: Any) -> Any:
    import json

    return json.loads(dump(model))


def assert_metered(result: Any) -> None:
    assert result.credits_charged == 1
    assert isinstance(result.credits_remaining, int)
    assert isinstance(result.rate_limit_remaining, int)
    assert result.meta.request_id


def test_search(client: Client) -> None:
    result = client.search("bitcoin", lang="en")
    assert result.query == "bitcoin"
    assert result.total >= len(result.hits) > 0
    for hit in result.hits:
        assert hit.post_id > 0 and hit.lang
    assert_metered(result)
    fresher = client.search("bitcoin wallet", freshness=True, include_low_quality=True)
    assert fresher.freshness is True
    assert_metered(fresher)


def test_search_images(client: Client, server: Server, api_key: str) -> None:
    # "firmware" matches posts with images in the generated corpus (same size and seed:
    # same bytes).
    result = client.search_images("firmware", size=2, hide_nsfw=False)
    assert result.object == "image_search"
    assert result.hide_nsfw is False
    assert 0 < len(result.images) <= 2
    for image in result.images:
        assert image.mime_type == "image/avif" and image.url.startswith(server.base_url)
        assert len(image.sha256) == 64 and image.post.post_id > 0
    assert_metered(result)
    served = raw(server, api_key, "/api/v1/images/search?q=firmware&size=2&hide_nsfw=0")
    assert as_json(result) == served


def test_post_topic_profile_match_the_served_json(
    client: Client,
    server: Server,
    api_key: str,
    big_topic: tuple[int, int],
    busy_profile: tuple[int, int],
) -> None:
    topic_id, _ = big_topic
    topic = client.topic(topic_id)
    assert topic.topic_id == topic_id and topic.object == "topic"
    assert topic.first_post is not None
    assert as_json(topic) == raw(server, api_key, f"/api/v1/topics/{topic_id}")
    assert_metered(topic)

    post = client.post(topic.first_post.post_id)
    assert isinstance(post, Post) and post.topic_id == topic_id
    assert as_json(post) == raw(server, api_key, f"/api/v1/posts/{post.post_id}")
    assert_metered(post)

    profile_id, _ = busy_profile
    profile = client.profile(profile_id)
    assert profile.profile_id == profile_id and profile.corpus.post_count > 0
    assert as_json(profile) == raw(server, api_key, f"/api/v1/profiles/{profile_id}")
    assert_metered(profile)


def test_not_found(client: Client) -> None:
    with pytest.raises(NotFound) as raised:
        client.post(9_000_000_000_000)
    assert raised.value.status == 404
    assert raised.value.request_id
    assert raised.value.credits_charged == 0


@pytest.mark.parametrize("order", ["asc", "desc"])
def test_a_topic_walk_equals_the_servers_listing(
    deployment: Deployment, server: Server, big_topic: tuple[int, int], order: str
) -> None:
    key = deployment.key(credits=1000)
    topic_id, _ = big_topic
    expected = raw_listing(server.base_url, key, f"/api/v1/topics/{topic_id}/posts", order=order)
    count = len(expected)
    assert count >= 20
    with Client(api_key=key, base_url=server.base_url) as client:
        before = client.search("bitcoin").credits_remaining
        assert before is not None
        walk = client.topic_posts(topic_id, limit=7, order=order)
        assert isinstance(walk, PostWalk)
        posts = list(walk)
        assert [as_json(p) for p in posts] == expected
        stats = walk.stats
        assert stats.complete and stats.posts == count and stats.restarts == 0
        assert stats.pages >= -(-count // 7) > 1
        # One credit per page, the empty terminal page included, and nothing else.
        assert stats.credits == stats.pages
        assert client.last_meta.credits_remaining == before - stats.pages


def test_a_profile_walk_with_filters_equals_the_servers_listing(
    client: Client, server: Server, api_key: str, busy_profile: tuple[int, int]
) -> None:
    profile_id, _ = busy_profile
    expected = raw_listing(server.base_url, api_key, f"/api/v1/profiles/{profile_id}/posts")
    assert len(expected) >= 2
    pages = list(client.profile_posts(profile_id, limit=2).pages())
    assert [as_json(p) for page in pages for p in page.data] == expected
    assert pages[-1].next_cursor is None and pages[0].object == "post_list"

    middle = expected[len(expected) // 2]["posted_at"]
    later = raw_listing(
        server.base_url, api_key, f"/api/v1/profiles/{profile_id}/posts", date_from=middle
    )
    walk = client.profile_posts(profile_id, limit=3, date_from=middle)
    assert [as_json(p) for p in walk] == later
    topic_id = expected[0]["topic_id"]
    in_topic = client.profile_posts(profile_id, topic_id=topic_id, order="desc")
    assert [p.post_id for p in in_topic] == [
        p["post_id"] for p in reversed(expected) if p["topic_id"] == topic_id
    ]


def test_a_topic_walk_by_author(client: Client, big_topic: tuple[int, int]) -> None:
    topic_id, _ = big_topic
    everyone = list(client.topic_posts(topic_id, limit=100))
    author = everyone[0].author.profile_id
    assert author is not None
    mine = list(client.topic_posts(topic_id, author_uid=author))
    assert mine and [p.post_id for p in mine] == [
        p.post_id for p in everyone if p.author.profile_id == author
    ]


def test_an_empty_scope_is_an_empty_walk(client: Client, big_topic: tuple[int, int]) -> None:
    topic_id, _ = big_topic
    walk = client.topic_posts(topic_id, date_from="1990-01-01", date_to="1990-01-02")
    assert list(walk) == [] and walk.complete and walk.stats.credits >= 1


@pytest.mark.anyio
async def test_the_async_client(
    server: Server, api_key: str, big_topic: tuple[int, int], busy_profile: tuple[int, int]
) -> None:
    topic_id, _ = big_topic
    profile_id, _ = busy_profile
    expected = raw_listing(server.base_url, api_key, f"/api/v1/topics/{topic_id}/posts")
    async with AsyncClient(api_key=api_key, base_url=server.base_url) as client:
        result = await client.search("bitcoin", lang="en")
        assert result.hits and result.credits_charged == 1
        images = await client.search_images("bitcoin", size=3)
        assert len(images.images) <= 3
        topic = await client.topic(topic_id)
        assert topic.first_post is not None
        post = await client.post(topic.first_post.post_id)
        assert post.post_id == topic.first_post.post_id
        profile = await client.profile(profile_id)
        assert profile.profile_id == profile_id
        walk = client.topic_posts(topic_id, limit=9)
        posts = [as_json(p) async for p in walk]
        assert posts == expected and walk.stats.posts == len(expected)
        profile_posts = [p async for p in client.profile_posts(profile_id, limit=100).iter()]
        assert len(profile_posts) == profile.corpus.post_count
        with pytest.raises(NotFound):
            await client.topic(9_000_000_000_000)
