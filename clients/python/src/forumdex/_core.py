"""What the sync and async clients share: settings, the metering state, and the decisions
of the request loop (wait, send, retry, fail), with no I/O of their own."""

from __future__ import annotations

import json
import logging
import os
import random
import re
import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Literal, Mapping, Optional, Union
from urllib.parse import urlsplit

import httpx

from . import _params
from ._version import __version__
from .errors import (
    APIError,
    BudgetExceeded,
    InvalidParameter,
    ProtocolError,
    TransportError,
    error_for_response,
)
from .models import ResponseMeta

logger = logging.getLogger("forumdex")

#: Where the service runs when neither ``base_url`` nor ``FORUMDEX_BASE_URL`` says.
DEFAULT_BASE_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 3
#: The longest a rate-limit wait lasts: the service's window is 60 s, so a reset further
#: away means the clocks disagree.
MAX_RATE_LIMIT_WAIT = 61.0

#: Statuses retried (GET only): 5xx are not charged (503 restores the credit).
RETRY_STATUSES = frozenset({500, 502, 503, 504})
#: Failures with no response that are retried (GET only). A read timeout is not: the
#: server may have done, and charged, the work.
RETRY_EXCEPTIONS: tuple[type[Exception], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
    httpx.WriteError,
    httpx.WriteTimeout,
    httpx.PoolTimeout,
)
_IDEMPOTENT = frozenset({"GET", "HEAD"})
_KEY = re.compile(r"[\x21-\x7e]+")


@dataclass(frozen=True)
class RetryEvent:
    """Said to ``on_retry`` (and logged) before the client waits and sends again."""

    #: ``"rate_limited"`` (429), ``"server_error"`` (5xx) or ``"connection_error"``.
    reason: Literal["rate_limited", "server_error", "connection_error"]
    #: The retry about to happen: 1 for the first.
    attempt: int
    #: Seconds the client waits before it.
    wait: float
    #: The path requested.
    path: str
    #: The status that caused it (``None`` for a connection error).
    status: Optional[int] = None
    #: ``X-Request-Id`` of the refused response, if any.
    request_id: Optional[str] = None
    #: What went wrong, as text.
    detail: str = ""


RetryCallback = Callable[[RetryEvent], None]


@dataclass(frozen=True)
class Retry:
    wait: float
    event: RetryEvent


@dataclass(frozen=True)
class Success:
    body: Any
    meta: ResponseMeta


Outcome = Union[Retry, Success]


def _header_int(headers: Mapping[str, str], name: str) -> Optional[int]:
    value = headers.get(name)
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


def meta_from_headers(status: int, headers: Mapping[str, str]) -> ResponseMeta:
    return ResponseMeta(
        status=status,
        request_id=headers.get("x-request-id"),
        credits_charged=_header_int(headers, "x-credits-charged"),
        credits_remaining=_header_int(headers, "x-credits-remaining"),
        rate_limit_limit=_header_int(headers, "x-ratelimit-limit"),
        rate_limit_remaining=_header_int(headers, "x-ratelimit-remaining"),
        rate_limit_reset=_header_int(headers, "x-ratelimit-reset"),
    )


def resolve_base_url(base_url: Optional[str]) -> str:
    url = base_url or os.environ.get("FORUMDEX_BASE_URL") or DEFAULT_BASE_URL
    if not isinstance(url, str):
        raise InvalidParameter("base_url", "a string is required")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidParameter(
            "base_url", f"an http(s) address like https://api.example.com (got {url!r})"
        )
    if parts.query or parts.fragment:
        raise InvalidParameter("base_url", "no query or fragment allowed")
    return url.rstrip("/")


def resolve_api_key(api_key: Optional[str]) -> str:
    key = api_key if api_key is not None else os.environ.get("FORUMDEX_API_KEY")
    if key is None or key == "":
        raise InvalidParameter("api_key", "no API key: pass api_key=... or set FORUMDEX_API_KEY")
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise InvalidParameter(
            "api_key", "printable ASCII without spaces (as the dashboard shows it)"
        )
    return key


@dataclass(frozen=True)
class Settings:
    base_url: str
    api_key: str
    timeout: Optional[float]
    max_retries: int
    wait_on_rate_limit: bool
    max_credits: Optional[int]
    backoff_base: float
    backoff_max: float
    on_retry: Optional[RetryCallback]
    user_agent: str

    @classmethod
    def build(
        cls,
        *,
        api_key: Optional[str],
        base_url: Optional[str],
        timeout: Optional[float],
        max_retries: int,
        wait_on_rate_limit: bool,
        max_credits: Optional[int],
        backoff_base: float,
        backoff_max: float,
        on_retry: Optional[RetryCallback],
        user_agent: Optional[str],
    ) -> Settings:
        retries = _params.integer("max_retries", max_retries, 0, 100)
        budget = (
            None if max_credits is None else _params.integer("max_credits", max_credits, 0, None)
        )
        for name, value in (("backoff_base", backoff_base), ("backoff_max", backoff_max)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise InvalidParameter(name, f"a non-negative number of seconds (got {value!r})")
        if on_retry is not None and not callable(on_retry):
            raise InvalidParameter("on_retry", "a callable or None")
        return cls(
            base_url=resolve_base_url(base_url),
            api_key=resolve_api_key(api_key),
            timeout=_params.timeout(timeout),
            max_retries=retries,
            wait_on_rate_limit=_params.flag("wait_on_rate_limit", wait_on_rate_limit),
            max_credits=budget,
            backoff_base=float(backoff_base),
            backoff_max=float(backoff_max),
            on_retry=on_retry,
            user_agent=user_agent or f"forumdex-python/{__version__}",
        )

    def headers(self) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self.api_key}",
            "Accept": "application/json",
            "User-Agent": self.user_agent,
        }


class Core:
    """The request loop's state and decisions; one per client, safe across threads."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._last = ResponseMeta()
        self._credits_spent = 0

    # -- metering --------------------------------------------------------------------

    @property
    def last_meta(self) -> ResponseMeta:
        with self._lock:
            return self._last

    @property
    def credits_spent(self) -> int:
        with self._lock:
            return self._credits_spent

    def record(self, meta: ResponseMeta) -> None:
        with self._lock:
            last = self._last
            self._last = replace(
                meta,
                credits_remaining=(
                    meta.credits_remaining
                    if meta.credits_remaining is not None
                    else last.credits_remaining
                ),
                rate_limit_limit=(
                    meta.rate_limit_limit
                    if meta.rate_limit_limit is not None
                    else last.rate_limit_limit
                ),
                rate_limit_remaining=(
                    meta.rate_limit_remaining
                    if meta.rate_limit_remaining is not None
                    else last.rate_limit_remaining
                ),
                rate_limit_reset=(
                    meta.rate_limit_reset
                    if meta.rate_limit_reset is not None
                    else last.rate_limit_reset
                ),
            )
            if meta.status == 200:
                charged = meta.credits_charged if meta.credits_charged is not None else 1
                self._credits_spent += charged

    # -- before sending --------------------------------------------------------------

    def check_budget(self) -> None:
        budget = self.settings.max_credits
        if budget is not None:
            spent = self.credits_spent
            if spent + 1 > budget:
                raise BudgetExceeded(budget, spent, "client")

    def wait_before_send(self) -> float:
        """Seconds to wait before the next request: when waiting is allowed and the last
        response said the window is full, until its reset (instead of earning a 429)."""
        if not self.settings.wait_on_rate_limit:
            return 0.0
        with self._lock:
            last = self._last
            if last.rate_limit_remaining != 0 or last.rate_limit_reset is None:
                return 0.0
            # The window frees a request at the reset (by the response's word): forget the
            # zero so that the next caller does not wait again for the same reset.
            self._last = replace(last, rate_limit_remaining=None)
        wait = min(max(last.rate_limit_reset - time.time(), 0.0), MAX_RATE_LIMIT_WAIT)
        if wait > 0:
            logger.info("forumdex: rate limit window full; waiting %.1f s", wait)
        return wait

    def url(self, path: str) -> str:
        return f"{self.settings.base_url}/{path.lstrip('/')}"

    # -- after sending ---------------------------------------------------------------

    def backoff(self, retry: int) -> float:
        """Exponential backoff with jitter: a random wait in [d/2, d], d = base * 2**retry."""
        full = min(self.settings.backoff_base * (2**retry), self.settings.backoff_max)
        return random.uniform(full / 2, full)

    def _retry(self, event: RetryEvent, wait: float) -> Retry:
        event = replace(event, wait=wait)
        logger.warning(
            "forumdex: %s on %s (%s); retry %d in %.1f s",
            event.reason,
            event.path,
            event.detail or event.status,
            event.attempt,
            wait,
        )
        if self.settings.on_retry is not None:
            self.settings.on_retry(event)
        return Retry(wait, event)

    def on_exception(self, method: str, path: str, exc: Exception, retry: int) -> Retry:
        """A request raised before a response: a :class:`Retry`, or the error to raise."""
        if (
            isinstance(exc, RETRY_EXCEPTIONS)
            and method in _IDEMPOTENT
            and retry < self.settings.max_retries
        ):
            event = RetryEvent(
                "connection_error", retry + 1, 0.0, path, detail=f"{type(exc).__name__}: {exc}"
            )
            return self._retry(event, self.backoff(retry))
        if isinstance(exc, httpx.TimeoutException):
            raise TransportError(f"no response from {self.url(path)} in time: {exc}") from exc
        if isinstance(exc, httpx.HTTPError):
            raise TransportError(f"request to {self.url(path)} failed: {exc}") from exc
        raise exc

    def on_response(
        self,
        method: str,
        path: str,
        status: int,
        headers: Mapping[str, str],
        content: bytes,
        retry: int,
    ) -> Outcome:
        """A response: :class:`Success` (the parsed JSON), a :class:`Retry`, or the error
        to raise."""
        meta = meta_from_headers(status, headers)
        self.record(meta)
        if status == 200:
            try:
                body = json.loads(content)
            except ValueError:
                raise ProtocolError(
                    f"the 200 response of {path} is not JSON", meta.request_id
                ) from None
            return Success(body, meta)
        error = error_for_response(status, content, meta)
        can_retry = retry < self.settings.max_retries and method in _IDEMPOTENT
        if status == 429 and can_retry and self.settings.wait_on_rate_limit:
            reset = meta.rate_limit_reset
            wait = (
                min(max(reset - time.time(), 0.0), MAX_RATE_LIMIT_WAIT)
                if reset is not None
                else 0.0
            )
            if wait <= 0:
                wait = self.backoff(retry)
            with self._lock:  # the wait below covers this reset
                self._last = replace(self._last, rate_limit_remaining=None)
            return self._retry(self._event("rate_limited", retry, path, error), wait)
        if status in RETRY_STATUSES and can_retry:
            return self._retry(self._event("server_error", retry, path, error), self.backoff(retry))
        raise error

    @staticmethod
    def _event(
        reason: Literal["rate_limited", "server_error", "connection_error"],
        retry: int,
        path: str,
        error: APIError,
    ) -> RetryEvent:
        return RetryEvent(
            reason,
            retry + 1,
            0.0,
            path,
            status=error.status,
            request_id=error.request_id,
            detail=f"{error.status} {error.message}",
        )


def parse_model(cls: Any, success: Success, path: str) -> Any:
    """The 200 body as ``cls`` with its metering headers attached."""
    try:
        model = cls.model_validate(success.body)
    except ValueError as err:
        raise ProtocolError(
            f"the 200 response of {path} does not match the {cls.__name__} schema: {err}",
            success.meta.request_id,
        ) from None
    model._meta = success.meta
    return model


__all__ = [
    "Core",
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "RetryCallback",
    "RetryEvent",
    "Settings",
    "logger",
]
