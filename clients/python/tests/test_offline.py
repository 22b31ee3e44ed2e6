"""What the client decides without a server: arguments refused before anything is sent,
retries and their limits, errors built from the contract's bodies, cursors never made up.
An ``httpx.MockTransport`` stands in for the network and records every request."""

from __future__ import annotations

import datetime as dt
import inspect
import json
import time
from typing import Any, Callable

import httpx
import pytest

import forumdex
from forumdex import (
    AsyncClient,
    BudgetExceeded,
    Client,
    CursorExpired,
    Forbidden,
    InvalidParameter,
    InvalidRequest,
    NotFound,
    PaymentRequired,
    ProtocolError,
    RateLimited,
    ServerError,
    ServiceUnavailable,
    TransportError,
    Unauthorized,
    UnexpectedStatus,
)

KEY = "fdx_live_offline"


class Recorder:
    """A mock transport answering from a list of (status, body, headers) in turn."""

    def __init__(self, *answers: tuple[int, Any, dict[str, str]]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError(f"unexpected request {request.url}")
        status, body, headers = self.answers.pop(0)
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        return httpx.Response(status, content=content, headers=headers)


def client_with(recorder: Recorder, **settings: Any) -> Client:
    settings.setdefault("backoff_base", 0.0)
    return Client(
        api_key=KEY,
        base_url="http://forumdex.invalid",
        transport=httpx.MockTransport(recorder),
        **settings,
    )


POST = {
    "object": "post",
    "post_id": 7,
    "topic_id": 3,
    "post_number": 0,
    "is_op": True,
    "title": "t",
    "author": {"profile_id": 1, "username": "u", "url": None},
    "board": {"board_id": 1, "name": "b"},
    "language": "en",
    "posted_at": "2024-01-01T00:00:00.000Z",
    "url": "https://forum.example/7",
    "topic_url": "https://forum.example/t3",
    "content_html": "<p>x</p>",
    "indexed_at": None,
    "merit": {"total": 0, "distinct_senders": 0, "transactions": 0, "observed_at": None},
}
METER = {
    "x-request-id": "r-1",
    "x-credits-charged": "1",
    "x-credits-remaining": "41",
    "x-ratelimit-limit": "120",
    "x-ratelimit-remaining": "119",
    "x-ratelimit-reset": "1700000000",
}


BAD_CALLS: list[tuple[str, Callable[[Client], object]]] = [
    ("q", lambda c: c.search("")),
    ("q", lambda c: c.search("x" * 513)),
    ("q", lambda c: c.search(5)),  # type: ignore[arg-type]
    ("lang", lambda c: c.search("x", lang="EN")),
    ("lang", lambda c: c.search("x", lang="eng")),
    ("lang", lambda c: c.search("x", lang="en-br")),
    ("lang", lambda c: c.search("x", lang="en\n")),
    ("freshness", lambda c: c.search("x", freshness=1)),  # type: ignore[arg-type]
    ("size", lambda c: c.search_images("x", size=0)),
    ("size", lambda c: c.search_images("x", size=51)),
    ("hide_nsfw", lambda c: c.search_images("x", hide_nsfw="0")),  # type: ignore[arg-type]
    ("post_id", lambda c: c.post(0)),
    ("post_id", lambda c: c.post(True)),
    ("topic_id", lambda c: c.topic(-3)),
    ("profile_id", lambda c: c.profile("12")),  # type: ignore[arg-type]
    ("topic_id", lambda c: c.topic_posts(forumdex.MAX_ID + 1)),
    ("limit", lambda c: c.topic_posts(5, limit=0)),
    ("limit", lambda c: c.topic_posts(5, limit=101)),
    ("limit", lambda c: c.profile_posts(5, limit=2.5)),  # type: ignore[arg-type]
    ("order", lambda c: c.topic_posts(5, order="newest")),
    ("date_from", lambda c: c.topic_posts(5, date_from="2024-13-01")),
    ("date_from", lambda c: c.topic_posts(5, date_from="2024-01-01T00:00:00")),
    ("date_from", lambda c: c.topic_posts(5, date_from="2024-01-01T00:00:00.1234Z")),
    ("date_to", lambda c: c.topic_posts(5, date_to=dt.datetime(2024, 1, 1))),
    ("date_to", lambda c: c.topic_posts(5, date_from="2024-02-01", date_to="2024-01-01")),
    ("board_id", lambda c: c.topic_posts(5, board_id=0)),
    ("author_uid", lambda c: c.topic_posts(5, author_uid=forumdex.MAX_ID + 1)),
    ("topic_id", lambda c: c.profile_posts(5, topic_id=-1)),
    ("max_credits", lambda c: c.profile_posts(5, max_credits=-1)),
]


@pytest.mark.parametrize(("parameter", "call"), BAD_CALLS)
def test_bad_arguments_raise_before_anything_is_sent(
    parameter: str, call: Callable[[Client], object]
) -> None:
    recorder = Recorder()
    with client_with(recorder) as client:
        with pytest.raises(InvalidParameter) as raised:
            walk = call(client)
            if isinstance(walk, forumdex.PostWalk):
                next(iter(walk))
        assert raised.value.parameter == parameter
        assert isinstance(raised.value, ValueError)
    assert recorder.requests == []


def test_unknown_options_are_a_type_error() -> None:
    with client_with(Recorder()) as client:
        with pytest.raises(TypeError):
            client.search("x", langue="en")  # type: ignore[call-arg]
        with pytest.raises(TypeError):
            client.topic_posts(5, topic_id=3)  # type: ignore[misc]


def test_the_key_and_address_come_from_the_arguments_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FORUMDEX_API_KEY", raising=False)
    monkeypatch.delenv("FORUMDEX_BASE_URL", raising=False)
    with pytest.raises(InvalidParameter, match="FORUMDEX_API_KEY"):
        Client()
    with pytest.raises(InvalidParameter):
        Client(api_key="has space")
    with pytest.raises(InvalidParameter):
        Client(api_key=KEY, base_url="ftp://example.com")
    monkeypatch.setenv("FORUMDEX_API_KEY", KEY)
    monkeypatch.setenv("FORUMDEX_BASE_URL", "https://api.example.com/")
    with Client() as client:
        assert client.base_url == "https://api.example.com"
        assert KEY not in repr(client)
    assert Client(base_url="http://h:1").base_url == "http://h:1"


def test_dates_are_sent_in_the_contract_syntax() -> None:
    recorder = Recorder((200, {"object": "post_list", "data": [], "next_cursor": None}, METER))
    with client_with(recorder) as client:
        walk = client.topic_posts(
            5,
            limit=7,
            order="desc",
            date_from=dt.date(2024, 1, 2),
            date_to=dt.datetime(
                2024, 3, 1, 12, 0, 0, 123456, tzinfo=dt.timezone(dt.timedelta(hours=2))
            ),
            board_id=3,
            author_uid=9,
        )
        assert list(walk) == []
    (request,) = recorder.requests
    assert request.url.path == "/api/v1/topics/5/posts"
    assert dict(request.url.params) == {
        "limit": "7",
        "order": "desc",
        "date_from": "2024-01-02",
        "date_to": "2024-03-01T10:00:00.124Z",
        "board_id": "3",
        "author_uid": "9",
    }
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_metering_headers_are_on_every_response() -> None:
    recorder = Recorder((200, POST, METER))
    with client_with(recorder) as client:
        post = client.post(7)
    assert post.credits_charged == 1
    assert post.credits_remaining == 41
    assert post.rate_limit_remaining == 119
    assert post.meta.request_id == "r-1"
    assert post.meta.rate_limit_reset_at == dt.datetime(
        2023, 11, 14, 22, 13, 20, tzinfo=dt.timezone.utc
    )
    assert client.last_meta.credits_remaining == 41
    assert client.credits_spent == 1


@pytest.mark.parametrize(
    ("status", "body", "error"),
    [
        (400, {"error": "invalid cursor", "requestId": "rq", "creditsCharged": 0}, InvalidRequest),
        (401, {"error": "invalid api key", "requestId": "rq", "creditsCharged": 0}, Unauthorized),
        (
            402,
            {
                "error": "no credits",
                "requestId": "rq",
                "creditsCharged": 0,
                "topupUrl": "https://x/top",
            },
            PaymentRequired,
        ),
        (
            403,
            {"error": "ip", "requestId": "rq", "creditsCharged": 0, "sourceIp": "10.1.2.3"},
            Forbidden,
        ),
        (404, {"error": "post 7 not found", "requestId": "rq", "creditsCharged": 0}, NotFound),
        (410, {"error": "cursor expired", "requestId": "rq", "creditsCharged": 0}, CursorExpired),
        (503, {"error": "busy", "requestId": "rq", "creditsCharged": 0}, ServiceUnavailable),
        (418, {"error": "teapot", "requestId": "rq"}, UnexpectedStatus),
    ],
)
def test_errors_carry_the_contract_body(
    status: int, body: dict[str, Any], error: type[Exception]
) -> None:
    recorder = Recorder((status, body, {"x-request-id": "header-id"}))
    with client_with(recorder, max_retries=0) as client:
        with pytest.raises(error) as raised:
            client.post(7)
    failure = raised.value
    assert isinstance(failure, forumdex.APIError)
    assert failure.status == status
    assert failure.request_id == "rq"
    assert failure.message == body["error"]
    assert failure.body == body
    if isinstance(failure, PaymentRequired):
        assert failure.topup_url == "https://x/top"
    if isinstance(failure, Forbidden):
        assert failure.source_ip == "10.1.2.3"
    assert len(recorder.requests) == 1


def test_a_body_that_is_not_json_still_gives_the_status_error() -> None:
    recorder = Recorder((502, b"Bad Gateway", {"x-request-id": "h-2"}))
    with client_with(recorder, max_retries=0) as client:
        with pytest.raises(ServerError) as raised:
            client.topic(1)
    assert raised.value.message == "Bad Gateway"
    assert raised.value.request_id == "h-2"


def test_5xx_is_retried_with_backoff_then_succeeds() -> None:
    events: list[forumdex.RetryEvent] = []
    recorder = Recorder(
        (503, {"error": "busy"}, {}),
        (502, b"", {}),
        (200, POST, METER),
    )
    with client_with(recorder, on_retry=events.append) as client:
        assert client.post(7).post_id == 7
    assert [e.reason for e in events] == ["server_error", "server_error"]
    assert [e.attempt for e in events] == [1, 2]
    assert len(recorder.requests) == 3


def test_retries_stop_at_max_retries() -> None:
    recorder = Recorder(*[(503, {"error": "busy"}, {})] * 3)
    with client_with(recorder, max_retries=2) as client:
        with pytest.raises(ServiceUnavailable):
            client.post(7)
    assert len(recorder.requests) == 3


@pytest.mark.parametrize("status", [400, 401, 402, 403, 404])
def test_client_errors_are_never_retried(status: int) -> None:
    recorder = Recorder((status, {"error": "no"}, {}))
    with client_with(recorder) as client:
        with pytest.raises(forumdex.APIError):
            client.post(7)
    assert len(recorder.requests) == 1


def test_429_without_waiting_raises_with_the_reset_time() -> None:
    reset = int(time.time()) + 30
    headers = {
        "x-ratelimit-limit": "2",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": str(reset),
    }
    recorder = Recorder((429, {"error": "rate limit", "requestId": "rq"}, headers))
    with client_with(recorder, wait_on_rate_limit=False) as client:
        with pytest.raises(RateLimited) as raised:
            client.search("x")
    assert raised.value.reset == reset
    assert raised.value.reset_at == dt.datetime.fromtimestamp(reset, dt.timezone.utc)
    assert len(recorder.requests) == 1


def test_429_waits_for_the_reset_and_retries() -> None:
    events: list[forumdex.RetryEvent] = []
    reset = int(time.time())  # already passed: the client still retries, after a backoff
    headers = {
        "x-ratelimit-limit": "2",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": str(reset),
    }
    recorder = Recorder((429, {"error": "rate limit"}, headers), (200, POST, METER))
    with client_with(recorder, on_retry=events.append) as client:
        assert client.post(7).post_id == 7
    assert [e.reason for e in events] == ["rate_limited"]
    assert events[0].status == 429


def test_connection_errors_are_retried_then_raised() -> None:
    events: list[forumdex.RetryEvent] = []
    attempts = 0

    def refuse(request: httpx.Request) -> httpx.Response:
        nonlocal attempts
        attempts += 1
        raise httpx.ConnectError("connection refused", request=request)

    client = Client(
        api_key=KEY,
        base_url="http://forumdex.invalid",
        transport=httpx.MockTransport(refuse),
        max_retries=2,
        backoff_base=0.0,
        on_retry=events.append,
    )
    with client, pytest.raises(TransportError) as raised:
        client.post(7)
    assert attempts == 3
    assert [e.reason for e in events] == ["connection_error"] * 2
    assert isinstance(raised.value.__cause__, httpx.ConnectError)


def test_a_read_timeout_is_not_retried() -> None:
    attempts = 0

    def slow(request: httpx.Request) -> httpx.Response:
        nonlocal attempts
        attempts += 1
        raise httpx.ReadTimeout("timed out", request=request)

    client = Client(api_key=KEY, base_url="http://x.invalid", transport=httpx.MockTransport(slow))
    with client, pytest.raises(TransportError):
        client.post(7)
    assert attempts == 1


def test_a_200_that_breaks_the_schema_is_a_protocol_error() -> None:
    recorder = Recorder((200, {"object": "post"}, METER), (200, b"<html>", METER))
    with client_with(recorder) as client:
        with pytest.raises(ProtocolError, match="r-1"):
            client.post(7)
        with pytest.raises(ProtocolError):
            client.post(7)


def page(posts: list[dict[str, Any]], cursor: str | None) -> dict[str, Any]:
    return {
        "object": "post_list",
        "order": "asc",
        "limit": 2,
        "data": posts,
        "next_cursor": cursor,
        "has_more": cursor is not None,
    }


def post_at(post_id: int, at: str | None) -> dict[str, Any]:
    return dict(POST, post_id=post_id, posted_at=at)


def test_a_walk_sends_only_the_cursors_it_received_and_continues_past_empty_pages() -> None:
    recorder = Recorder(
        (200, page([post_at(1, "2024-01-01T00:00:00.000Z")], "c1_-"), METER),
        (200, page([], "c2"), METER),
        (200, page([post_at(2, "2024-01-02T00:00:00.000Z")], None), METER),
    )
    with client_with(recorder) as client:
        walk = client.topic_posts(3, limit=2)
        assert [p.post_id for p in walk] == [1, 2]
    assert [dict(r.url.params) for r in recorder.requests] == [
        {"limit": "2"},
        {"cursor": "c1_-"},
        {"cursor": "c2"},
    ]
    assert walk.stats.pages == 3 and walk.stats.credits == 3 and walk.stats.complete


@pytest.mark.parametrize("bad", ["", "a b", "abc=", "a/b", "x" * 4097])
def test_a_malformed_cursor_from_the_server_is_never_sent(bad: str) -> None:
    recorder = Recorder((200, page([post_at(1, None)], bad), METER))
    with client_with(recorder) as client:
        walk = client.topic_posts(3)
        with pytest.raises(ProtocolError):
            list(walk)
    assert len(recorder.requests) == 1


def test_a_410_restarts_after_the_last_post_without_repeats_or_gaps() -> None:
    restarts: list[forumdex.RestartEvent] = []
    gone: tuple[int, Any, dict[str, str]] = (410, {"error": "cursor expired", "requestId": "g"}, {})
    day = "2024-01-0{}T00:00:00.000Z".format
    recorder = Recorder(
        (200, page([post_at(10, day(1)), post_at(20, day(2))], "c1"), METER),
        gone,
        # The new snapshot starts at the last post's time: post 20 again (skipped), post 15
        # new in this snapshot with the same time but a lower ID, so before the stopping
        # point (skipped), then the posts after it.
        (200, page([post_at(15, day(2)), post_at(20, day(2)), post_at(30, day(3))], "c2"), METER),
        (200, page([post_at(40, day(4))], None), METER),
    )
    with client_with(recorder) as client:
        walk = client.topic_posts(3, date_from="2023-06-01", on_restart=restarts.append)
        assert [p.post_id for p in walk] == [10, 20, 30, 40]
    assert [dict(r.url.params) for r in recorder.requests] == [
        {"date_from": "2023-06-01"},
        {"cursor": "c1"},
        {"date_from": day(2)},
        {"cursor": "c2"},
    ]
    (event,) = restarts
    assert event.last_post_id == 20 and event.request_id == "g"
    assert event.params == {"date_from": day(2)}
    assert walk.stats.restarts == 1 and walk.stats.posts == 4


def test_a_desc_walk_restarts_with_date_to_just_after_the_last_post() -> None:
    gone: tuple[int, Any, dict[str, str]] = (410, {"error": "snapshot expired"}, {})
    recorder = Recorder(
        (200, page([post_at(5, "2024-01-05T00:00:00.000Z")], "c1"), METER),
        gone,
        (
            200,
            page(
                [post_at(5, "2024-01-05T00:00:00.000Z"), post_at(4, "2024-01-04T00:00:00.000Z")],
                None,
            ),
            METER,
        ),
    )
    with client_with(recorder) as client:
        assert [p.post_id for p in client.topic_posts(3, order="desc")] == [5, 4]
    assert dict(recorder.requests[2].url.params) == {
        "order": "desc",
        "date_to": "2024-01-05T00:00:00.001Z",
    }


def test_too_many_410s_in_a_row_raise() -> None:
    gone: tuple[int, Any, dict[str, str]] = (410, {"error": "gone"}, {})
    recorder = Recorder(*[gone] * (forumdex.MAX_CONSECUTIVE_RESTARTS + 1))
    with client_with(recorder) as client:
        with pytest.raises(CursorExpired):
            list(client.topic_posts(3))


def test_a_walk_budget_stops_before_the_page_that_would_exceed_it() -> None:
    recorder = Recorder(
        (200, page([post_at(1, None)], "c1"), METER),
        (200, page([post_at(2, None)], "c2"), METER),
    )
    seen: list[int] = []
    with client_with(recorder) as client:
        walk = client.profile_posts(3, max_credits=2)
        with pytest.raises(BudgetExceeded) as raised:
            for post in walk:
                seen.append(post.post_id)
    assert seen == [1, 2]
    assert raised.value.max_credits == 2 and raised.value.credits_spent == 2
    assert len(recorder.requests) == 2
    assert not walk.complete


def test_a_client_budget_stops_every_call() -> None:
    recorder = Recorder((200, POST, METER))
    with client_with(recorder, max_credits=1) as client:
        client.post(7)
        with pytest.raises(BudgetExceeded):
            client.post(7)
    assert len(recorder.requests) == 1


def test_the_async_client_has_the_same_methods_and_parameters() -> None:
    def public(cls: type) -> dict[str, inspect.Signature]:
        return {
            name: inspect.signature(member)
            for name, member in inspect.getmembers(cls, callable)
            if not name.startswith("_") and name not in {"close", "aclose"}
        }

    sync, concurrent = public(Client), public(AsyncClient)
    assert sync.keys() == concurrent.keys()
    for name, signature in sync.items():
        other = concurrent[name]
        assert list(signature.parameters) == list(other.parameters), name
        for parameter, info in signature.parameters.items():
            if parameter != "transport":
                assert info.default == other.parameters[parameter].default, (name, parameter)


def test_a_full_window_is_waited_for_before_sending(caplog: pytest.LogCaptureFixture) -> None:
    reset = int(time.time()) + 1
    full = dict(METER, **{"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)})
    recorder = Recorder((200, POST, full), (200, POST, METER))
    with client_with(recorder) as client, caplog.at_level("INFO", logger="forumdex"):
        client.post(7)
        client.post(7)
    assert any("rate limit window full" in r.getMessage() for r in caplog.records)
    assert len(recorder.requests) == 2


@pytest.mark.anyio
async def test_the_async_walk_follows_the_same_rules() -> None:
    gone: tuple[int, Any, dict[str, str]] = (410, {"error": "gone"}, {})
    day = "2024-01-0{}T00:00:00.000Z".format
    recorder = Recorder(
        (200, page([post_at(1, day(1))], "c1"), METER),
        gone,
        (200, page([post_at(1, day(1)), post_at(2, day(2))], "c2"), METER),
        (200, page([], None), METER),
    )
    async with AsyncClient(
        api_key=KEY,
        base_url="http://forumdex.invalid",
        transport=httpx.MockTransport(recorder),
        max_credits=10,
    ) as client:
        walk = client.topic_posts(3, limit=1)
        assert [p.post_id async for p in walk] == [1, 2]
        assert walk.stats.restarts == 1 and walk.stats.credits == 3 and walk.complete
        with pytest.raises(InvalidParameter):
            await client.search("x", lang="english")
    assert len(recorder.requests) == 4
