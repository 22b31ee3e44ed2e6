"""The state of a collection walk, shared by the sync and async walks (no I/O here).

The contract's rules, and what the walk adds:

- The options go with the first request only; after it, only the ``next_cursor`` of the
  previous page of the same walk is sent, exactly as received, until it is ``None``. Empty
  or short pages do not end a walk. A cursor that is not a non-empty base64url string of
  at most 4096 characters is never sent (:class:`~forumdex.errors.ProtocolError`), and no
  cursor is ever made, edited or taken from outside the walk.
- On 410 (the cursor idled too long or its snapshot is too old) the walk asks for a new
  snapshot that starts where it stopped: ascending, ``date_from`` becomes the posting time
  of the last post yielded; descending, ``date_to`` becomes that time plus one
  millisecond (both narrowed only: a bound of the caller's that is tighter stays). Posts of
  the new snapshot at or before the last post yielded (by posting time, then post ID, the
  service's order) are skipped, and so is any post ID already yielded, so a post is never
  yielded twice and none after the stopping point is skipped. (When the last post yielded
  has no posting time the new snapshot starts from the beginning, and the same skipping
  applies.) Each restart is logged on the ``forumdex`` logger and passed to ``on_restart``.
  After three 410s without a page between them the error is raised.
- ``max_credits`` stops the walk before a request that would spend more:
  :class:`~forumdex.errors.BudgetExceeded` is raised after the posts of the pages paid for.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from . import _params
from ._core import logger
from .errors import BudgetExceeded, CursorExpired, ProtocolError
from .models import Post, PostList, format_timestamp

#: 410s in a row (no page between them) after which a walk gives up.
MAX_CONSECUTIVE_RESTARTS = 3
_UNDATED = -(2**63)


@dataclass
class WalkStats:
    """What a walk has done so far."""

    #: Pages received (200s), pages fetched again after a restart included.
    pages: int = 0
    #: Credits charged for them (``X-Credits-Charged``, one per page).
    credits: int = 0
    #: Times the walk started a new snapshot after a 410.
    restarts: int = 0
    #: Posts yielded.
    posts: int = 0
    #: Whether the listing is complete (the last page had no ``next_cursor``).
    complete: bool = False


@dataclass(frozen=True)
class RestartEvent:
    """Said to ``on_restart`` (and logged) when a walk starts a new snapshot after a 410."""

    #: Restarts of this walk so far, this one included.
    restarts: int
    #: The post the new snapshot continues after (``None``: nothing was yielded yet).
    last_post_id: Optional[int]
    #: Its posting time.
    last_posted_at: Optional[_dt.datetime]
    #: The parameters of the new first request.
    params: Dict[str, str]
    #: The 410's error text and request id.
    reason: str
    request_id: Optional[str]


RestartCallback = Callable[[RestartEvent], None]


def _key(post: Post) -> Tuple[int, int]:
    at = post.posted_at
    millis = _UNDATED if at is None else _ms(at)
    return (millis, post.post_id)


def _ms(at: _dt.datetime) -> int:
    delta = at - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


@dataclass
class WalkState:
    scope: str  # "topic" or "profile"
    scope_id: int
    options: _params.CollectionOptions
    max_credits: Optional[int] = None
    on_restart: Optional[RestartCallback] = None
    stats: WalkStats = field(default_factory=WalkStats)
    _cursor: Optional[str] = None
    _first: Optional[Dict[str, str]] = None
    _last: Optional[Post] = None
    _seen: set[int] = field(default_factory=set)
    _restarted: bool = False
    _consecutive_restarts: int = 0

    @property
    def path(self) -> str:
        return f"api/v1/{self.scope}s/{self.scope_id}/posts"

    @property
    def done(self) -> bool:
        return self.stats.complete

    def next_params(self) -> Optional[Dict[str, str]]:
        """The query of the next page, or ``None`` when the walk is complete. Raises
        :class:`BudgetExceeded` when the page would break ``max_credits``."""
        if self.stats.complete:
            return None
        if self.max_credits is not None and self.stats.credits + 1 > self.max_credits:
            raise BudgetExceeded(self.max_credits, self.stats.credits, "walk")
        if self._cursor is not None:
            return {"cursor": self._cursor}
        if self._first is None:
            self._first = dict(self.options.params)
        return dict(self._first)

    def on_page(self, page: PostList) -> List[Post]:
        """Takes a page in; returns its posts not yielded before, in order."""
        self.stats.pages += 1
        charged = page.meta.credits_charged
        self.stats.credits += 1 if charged is None else charged
        self._consecutive_restarts = 0
        fresh: List[Post] = []
        descending = self.options.order == "desc"
        for post in page.data:
            if post.post_id in self._seen:
                continue
            if self._restarted and self._last is not None:
                key, last = _key(post), _key(self._last)
                if (key >= last) if descending else (key <= last):
                    continue
            self._seen.add(post.post_id)
            self._last = post
            fresh.append(post)
        if page.next_cursor is None:
            self.stats.complete = True
            self._cursor = None
        else:
            try:
                self._cursor = _params.cursor(page.next_cursor)
            except ValueError:
                raise ProtocolError(
                    "the service sent a next_cursor that is not base64url: "
                    f"{page.next_cursor[:40]!r}",
                    page.meta.request_id,
                ) from None
        self.stats.posts += len(fresh)
        return fresh

    def on_gone(self, error: CursorExpired) -> None:
        """Takes a 410 in: the next request starts a new snapshot after the last post
        yielded. Raises ``error`` after too many in a row."""
        if self._consecutive_restarts >= MAX_CONSECUTIVE_RESTARTS:
            raise error
        self._consecutive_restarts += 1
        self.stats.restarts += 1
        self._restarted = True
        self._cursor = None
        params = dict(self.options.params)
        last = self._last
        if last is not None and last.posted_at is not None:
            at = last.posted_at.astimezone(_dt.timezone.utc)
            if self.options.order == "desc":
                bound = at + _dt.timedelta(milliseconds=1)
                mine = self.options.date_to
                if mine is None or bound < mine.instant:
                    params["date_to"] = format_timestamp(bound)
            else:
                mine = self.options.date_from
                if mine is None or at > mine.instant:
                    params["date_from"] = format_timestamp(at)
        self._first = params
        event = RestartEvent(
            restarts=self.stats.restarts,
            last_post_id=None if last is None else last.post_id,
            last_posted_at=None if last is None else last.posted_at,
            params=dict(params),
            reason=error.message,
            request_id=error.request_id,
        )
        logger.warning(
            "forumdex: the %s %d walk's cursor expired (%s); restarting on a new snapshot "
            "after post %s (restart %d)",
            self.scope,
            self.scope_id,
            error.message,
            event.last_post_id,
            event.restarts,
        )
        if self.on_restart is not None:
            self.on_restart(event)
