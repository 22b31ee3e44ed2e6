"""The synchronous client, :class:`Client`, and its collection walk, :class:`PostWalk`."""

from __future__ import annotations

import time
from typing import Any, Dict, Iterator, Optional, Type, TypeVar

import httpx

from . import _ops
from ._core import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    Core,
    Retry,
    RetryCallback,
    Settings,
    parse_model,
)
from ._params import DateLike
from ._walk import RestartCallback, WalkState, WalkStats
from .errors import CursorExpired
from .models import (
    ApiResponse,
    ImageSearchResponse,
    Post,
    PostList,
    Profile,
    ResponseMeta,
    SearchResponse,
    Topic,
)

__all__ = ["Client", "PostWalk"]

T = TypeVar("T", bound=ApiResponse)


class Client:
    """A synchronous client of the forumdex API (contract 1.2.0), on ``httpx``.

    ``api_key`` defaults to ``FORUMDEX_API_KEY`` and ``base_url`` to ``FORUMDEX_BASE_URL``
    (then ``http://127.0.0.1:8080``); the ``/api/v1`` paths are appended to it.

    Every operation is one paid GET (a walk: one per page). Arguments are checked against
    the contract first: a bad one raises :class:`~forumdex.errors.InvalidParameter` before
    anything is sent. Then, per request:

    - when the last response said the rate-limit window is full, the client waits for its
      reset; on a 429 it waits until ``X-RateLimit-Reset`` and retries. Both are switched
      off by ``wait_on_rate_limit=False`` (a 429 then raises
      :class:`~forumdex.errors.RateLimited` at once);
    - 5xx answers and connection failures are retried with exponential backoff and jitter
      (GETs only; ``max_retries`` retries, 0 switches retries off); a read timeout is not
      retried, as the server may have done and charged the work;
    - ``max_credits`` caps what the client may spend in all: a request that would spend
      more raises :class:`~forumdex.errors.BudgetExceeded` unsent.

    Each response body carries its metering headers (``result.meta``,
    ``result.credits_remaining``...); :attr:`last_meta` holds the latest. Use the client
    as a context manager, or call :meth:`close`.

    ``transport`` replaces the ``httpx`` transport (tests, custom TLS or proxies); ``on_retry``
    is called with a :class:`~forumdex.RetryEvent` before each retry; ``backoff_base`` and
    ``backoff_max`` (seconds) shape the backoff between retries.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        wait_on_rate_limit: bool = True,
        max_credits: Optional[int] = None,
        on_retry: Optional[RetryCallback] = None,
        backoff_base: float = 0.5,
        backoff_max: float = 10.0,
        user_agent: Optional[str] = None,
        transport: Optional[httpx.BaseTransport] = None,
    ) -> None:
        self._core = Core(
            Settings.build(
                api_key=api_key,
                base_url=base_url,
                timeout=timeout,
                max_retries=max_retries,
                wait_on_rate_limit=wait_on_rate_limit,
                max_credits=max_credits,
                backoff_base=backoff_base,
                backoff_max=backoff_max,
                on_retry=on_retry,
                user_agent=user_agent,
            )
        )
        self._http = httpx.Client(
            headers=self._core.settings.headers(),
            timeout=self._core.settings.timeout,
            transport=transport,
            follow_redirects=False,
        )

    def __repr__(self) -> str:  # the key stays out of logs
        return f"Client(base_url={self._core.settings.base_url!r})"

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection pool."""
        self._http.close()

    @property
    def base_url(self) -> str:
        """The service's base address."""
        return self._core.settings.base_url

    @property
    def last_meta(self) -> ResponseMeta:
        """The metering headers of the last response (a header missing from it keeps its
        earlier value)."""
        return self._core.last_meta

    @property
    def credits_remaining(self) -> Optional[int]:
        """``X-Credits-Remaining`` of the last response that carried it."""
        return self._core.last_meta.credits_remaining

    @property
    def credits_spent(self) -> int:
        """Credits charged to this client's requests so far."""
        return self._core.credits_spent

    # -- operations ------------------------------------------------------------------

    def search(
        self,
        q: str,
        *,
        lang: Optional[str] = None,
        freshness: bool = False,
        include_low_quality: bool = False,
    ) -> SearchResponse:
        """Ranked post search (``GET /api/v1/search``, searchForumPosts).

        ``q``: 1 to 512 characters. ``lang``: a language code like ``en`` or ``pt-BR``
        (the language index; the server chooses when ``None``). ``freshness=True`` prefers
        newer posts (when ``False`` the server detects freshness intent).
        ``include_low_quality=True`` keeps replies normally removed by quality and spam
        filtering."""
        return self._call(_ops.search(q, lang, freshness, include_low_quality))

    def search_images(
        self,
        q: str,
        *,
        lang: Optional[str] = None,
        freshness: bool = False,
        include_low_quality: bool = False,
        size: Optional[int] = None,
        hide_nsfw: bool = True,
    ) -> ImageSearchResponse:
        """Image search (``GET /api/v1/images/search``, searchForumImages): the images of
        matching posts as CDN URLs. ``size``: 1 to 50 images (server default 24).
        ``hide_nsfw=False`` includes high-confidence NSFW images. Other parameters as in
        :meth:`search`."""
        return self._call(
            _ops.search_images(q, lang, freshness, include_low_quality, size, hide_nsfw)
        )

    def post(self, post_id: int) -> Post:
        """One post by forum ID (``GET /api/v1/posts/{id}``)."""
        return self._call(_ops.post(post_id))

    def topic(self, topic_id: int) -> Topic:
        """One topic by forum ID (``GET /api/v1/topics/{id}``): metadata, the complete
        first post and a summary of the latest indexed post."""
        return self._call(_ops.topic(topic_id))

    def profile(self, profile_id: int) -> Profile:
        """One profile by forum user ID (``GET /api/v1/profiles/{id}``)."""
        return self._call(_ops.profile(profile_id))

    def topic_posts(
        self,
        topic_id: int,
        *,
        limit: Optional[int] = None,
        order: Optional[str] = None,
        date_from: Optional[DateLike] = None,
        date_to: Optional[DateLike] = None,
        board_id: Optional[int] = None,
        author_uid: Optional[int] = None,
        max_credits: Optional[int] = None,
        on_restart: Optional[RestartCallback] = None,
    ) -> PostWalk:
        """The posts of a topic (``GET /api/v1/topics/{id}/posts``), as a :class:`PostWalk`
        that fetches pages as it is iterated: ``for post in client.topic_posts(5): ...``.
        Nothing is sent (or charged) until then; the options are checked now.

        ``limit``: posts per page, 1 to 100 (server default 50). ``order``: ``"asc"``
        (oldest first, the default) or ``"desc"``. ``date_from`` (inclusive) and
        ``date_to`` (exclusive): a ``datetime.date`` (UTC midnight), an aware ``datetime``
        or a string ``YYYY-MM-DD`` / RFC 3339 with a timezone. ``board_id``, ``author_uid``:
        only posts of that board or author. ``max_credits``: the most this walk may spend
        (one credit per page). ``on_restart``: called with a
        :class:`~forumdex.RestartEvent` when a 410 makes the walk start a new snapshot."""
        return PostWalk(
            self,
            _ops.walk(
                "topic",
                topic_id,
                limit=limit,
                order=order,
                date_from=date_from,
                date_to=date_to,
                board_id=board_id,
                extra={"author_uid": author_uid},
                max_credits=max_credits,
                on_restart=on_restart,
            ),
        )

    def profile_posts(
        self,
        profile_id: int,
        *,
        limit: Optional[int] = None,
        order: Optional[str] = None,
        date_from: Optional[DateLike] = None,
        date_to: Optional[DateLike] = None,
        board_id: Optional[int] = None,
        topic_id: Optional[int] = None,
        max_credits: Optional[int] = None,
        on_restart: Optional[RestartCallback] = None,
    ) -> PostWalk:
        """The posts of a profile (``GET /api/v1/profiles/{id}/posts``) as a
        :class:`PostWalk`; ``topic_id`` keeps the posts of one topic. The other options as
        in :meth:`topic_posts`."""
        return PostWalk(
            self,
            _ops.walk(
                "profile",
                profile_id,
                limit=limit,
                order=order,
                date_from=date_from,
                date_to=date_to,
                board_id=board_id,
                extra={"topic_id": topic_id},
                max_credits=max_credits,
                on_restart=on_restart,
            ),
        )

    # -- the request loop ------------------------------------------------------------

    def _call(self, call: _ops.Call[T]) -> T:
        return self._get(call.path, call.params, call.model)

    def _get(self, path: str, params: Dict[str, str], model: Type[T]) -> T:
        core = self._core
        retry = 0
        while True:
            core.check_budget()
            wait = core.wait_before_send()
            if wait > 0:
                time.sleep(wait)
            try:
                response = self._http.get(core.url(path), params=params)
                content = response.read()
            except Exception as exc:  # noqa: BLE001 - decided by on_exception
                decision: Any = core.on_exception("GET", path, exc, retry)
            else:
                decision = core.on_response(
                    "GET", path, response.status_code, response.headers, content, retry
                )
            if isinstance(decision, Retry):
                time.sleep(decision.wait)
                retry += 1
                continue
            result: T = parse_model(model, decision, path)
            return result


class PostWalk:
    """Every post of a topic or profile, page by page, as the contract asks (see
    :mod:`forumdex._walk` for the rules: cursors as received, 410 restarts without
    repeating or skipping a post, the ``max_credits`` stop).

    Iterate it (``for post in walk``, or ``walk.iter()``) for posts, :meth:`pages` for
    pages, or call :meth:`next_page`. A walk is used once: iterating again continues where
    it stopped. :attr:`stats` counts pages, credits, restarts and posts.
    """

    def __init__(self, client: Client, state: WalkState) -> None:
        self._client = client
        self._state = state

    def __repr__(self) -> str:
        return f"PostWalk({self._state.path!r}, {self._state.stats})"

    @property
    def stats(self) -> WalkStats:
        """Pages, credits, restarts and posts so far; ``complete`` once the listing ended."""
        return self._state.stats

    @property
    def complete(self) -> bool:
        """Whether the last page has been received."""
        return self._state.done

    def next_page(self) -> Optional[PostList]:
        """The next page, its ``data`` holding only posts not yielded before in this walk;
        ``None`` once the listing is complete. Pages may be empty before the end."""
        state = self._state
        while True:
            params = state.next_params()
            if params is None:
                return None
            try:
                page = self._client._get(state.path, params, PostList)
            except CursorExpired as gone:
                state.on_gone(gone)
                continue
            page.data = state.on_page(page)
            return page

    def pages(self) -> Iterator[PostList]:
        """The remaining pages."""
        while True:
            page = self.next_page()
            if page is None:
                return
            yield page

    def iter(self) -> Iterator[Post]:
        """The remaining posts."""
        for page in self.pages():
            yield from page.data

    def __iter__(self) -> Iterator[Post]:
        return self.iter()
