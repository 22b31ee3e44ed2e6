"""The contract's parameter rules, checked before anything is sent.

Every function takes what a caller passed and returns the query-string value the contract
expects, or raises :class:`~forumdex.errors.InvalidParameter` (a ``ValueError``).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass
from typing import Dict, Optional, Union

from .errors import InvalidParameter
from .models import format_timestamp

#: The largest ID of collection paths and filters (2**53 - 1).
MAX_ID = 9_007_199_254_740_991
#: Longest search query, in characters.
MAX_QUERY_CHARS = 512
#: Longest cursor the service accepts.
MAX_CURSOR_CHARS = 4096

_LANG = re.compile(r"[a-z]{2}(?:-[A-Z]{2})?")
_DATE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"(?:[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,3})?(?:[Zz]|[+-][0-9]{2}:[0-9]{2}))?"
)
_CURSOR = re.compile(r"[A-Za-z0-9_-]+")

#: What a date bound may be given as.
DateLike = Union[str, _dt.date, _dt.datetime]


def query(q: object) -> str:
    if not isinstance(q, str):
        raise InvalidParameter("q", f"a string is required, not {type(q).__name__}")
    if not 1 <= len(q) <= MAX_QUERY_CHARS:
        raise InvalidParameter("q", f"1 to {MAX_QUERY_CHARS} characters (got {len(q)})")
    return q


def lang(value: object) -> str:
    if not isinstance(value, str) or not _LANG.fullmatch(value):
        raise InvalidParameter(
            "lang", f"two lowercase letters, optionally -XX, like en or pt-BR (got {value!r})"
        )
    return value


def flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidParameter(name, f"True or False (got {value!r})")
    return value


def integer(name: str, value: object, low: int, high: Optional[int]) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameter(name, f"an integer is required (got {value!r})")
    if value < low or (high is not None and value > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        raise InvalidParameter(name, f"{bound} (got {value})")
    return value


def lookup_id(name: str, value: object) -> int:
    return integer(name, value, 1, None)


def collection_id(name: str, value: object) -> int:
    return integer(name, value, 1, MAX_ID)


def order(value: object) -> str:
    if value not in ("asc", "desc"):
        raise InvalidParameter("order", f"'asc' or 'desc' (got {value!r})")
    assert isinstance(value, str)
    return value


@dataclass(frozen=True)
class DateBound:
    """A posting-time bound: what is sent, and the instant it means."""

    text: str
    instant: _dt.datetime


def _ceil_millis(value: _dt.datetime) -> _dt.datetime:
    """``value`` rounded up to a whole millisecond (the contract allows three digits;
    posts are dated to the millisecond, so rounding up keeps both bounds' meaning)."""
    extra = value.microsecond % 1000
    if extra == 0:
        return value
    return value + _dt.timedelta(microseconds=1000 - extra)


def date_bound(name: str, value: object) -> DateBound:
    """``date_from``/``date_to``: a ``date`` (UTC midnight), an aware ``datetime``, or a
    string in the contract's syntax (``YYYY-MM-DD`` or RFC 3339 with an explicit timezone
    and at most three fractional digits)."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise InvalidParameter(
                name, "a datetime needs a timezone (for UTC: tzinfo=datetime.timezone.utc)"
            )
        instant = _ceil_millis(value.astimezone(_dt.timezone.utc))
        return DateBound(format_timestamp(instant), instant)
    if isinstance(value, _dt.date):
        instant = _dt.datetime(value.year, value.month, value.day, tzinfo=_dt.timezone.utc)
        return DateBound(value.isoformat(), instant)
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        raise InvalidParameter(
            name,
            "YYYY-MM-DD, or RFC 3339 with a timezone and at most three fractional digits, "
            f"like 2024-01-31T12:00:00.000Z (got {value!r})",
        )
    try:
        if len(value) == 10:
            day = _dt.date.fromisoformat(value)
            instant = _dt.datetime(day.year, day.month, day.day, tzinfo=_dt.timezone.utc)
        else:
            normal = value[:-1] + "+00:00" if value[-1] in "Zz" else value
            normal = normal[:10] + "T" + normal[11:]
            fraction = re.search(r"\.([0-9]+)", normal)
            if fraction:  # Python 3.9's fromisoformat wants 3 or 6 digits
                digits = fraction.group(1)
                normal = normal.replace("." + digits, "." + digits.ljust(3, "0"), 1)
            instant = _dt.datetime.fromisoformat(normal).astimezone(_dt.timezone.utc)
    except ValueError as err:
        raise InvalidParameter(name, f"not a real date or time: {value!r} ({err})") from None
    return DateBound(value, instant)


def cursor(value: object) -> str:
    """A cursor as the service issues them: a non-empty base64url string of at most 4096
    characters. Anything else is refused (it would be a 400, or not the server's)."""
    if not isinstance(value, str) or not _CURSOR.fullmatch(value) or len(value) > MAX_CURSOR_CHARS:
        raise InvalidParameter("cursor", "not a cursor the service issued")
    return value


def search_params(
    q: object,
    *,
    lang_code: object,
    freshness: object,
    include_low_quality: object,
) -> Dict[str, str]:
    params = {"q": query(q)}
    if lang_code is not None:
        params["lang"] = lang(lang_code)
    if flag("freshness", freshness):
        params["freshness"] = "1"
    if flag("include_low_quality", include_low_quality):
        params["include_low_quality"] = "1"
    return params


def image_search_params(
    q: object,
    *,
    lang_code: object,
    freshness: object,
    include_low_quality: object,
    size: object,
    hide_nsfw: object,
) -> Dict[str, str]:
    params = search_params(
        q, lang_code=lang_code, freshness=freshness, include_low_quality=include_low_quality
    )
    if size is not None:
        params["size"] = str(integer("size", size, 1, 50))
    if not flag("hide_nsfw", hide_nsfw):
        params["hide_nsfw"] = "0"
    return params


@dataclass(frozen=True)
class CollectionOptions:
    """The validated options of a walk: what its first request sends."""

    order: str
    params: Dict[str, str]
    date_from: Optional[DateBound]
    date_to: Optional[DateBound]


def collection_options(
    *,
    limit: object,
    order_value: object,
    date_from: object,
    date_to: object,
    board_id: object,
    extra: Dict[str, object],
) -> CollectionOptions:
    params: Dict[str, str] = {}
    if limit is not None:
        params["limit"] = str(integer("limit", limit, 1, 100))
    effective_order = "asc"
    if order_value is not None:
        effective_order = order(order_value)
        params["order"] = effective_order
    start = end = None
    if date_from is not None:
        start = date_bound("date_from", date_from)
        params["date_from"] = start.text
    if date_to is not None:
        end = date_bound("date_to", date_to)
        params["date_to"] = end.text
    if board_id is not None:
        params["board_id"] = str(collection_id("board_id", board_id))
    for name, value in extra.items():
        if value is not None:
            params[name] = str(collection_id(name, value))
    return CollectionOptions(effective_order, params, start, end)


def timeout(value: object) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameter("timeout", f"seconds as a number, or None (got {value!r})")
    if not math.isfinite(value) or value <= 0:
        raise InvalidParameter("timeout", f"a positive number of seconds (got {value!r})")
    return float(value)
