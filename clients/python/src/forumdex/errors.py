"""Exceptions. Everything the package raises on purpose is a :class:`ForumdexError`.

- :class:`InvalidParameter` (also a ``ValueError``): an argument was refused before any
  request was sent, so nothing was charged.
- :class:`BudgetExceeded`: a ``max_credits`` budget stopped a call or a walk before it would
  spend more.
- :class:`APIError` and its subclasses, one per status of the contract: the server refused
  the request. Each carries the contract's error body (``message``, ``request_id``,
  ``credits_charged`` and, where the status has them, ``topup_url``, ``source_ip``,
  ``reset_at``) and the response's metering headers (``meta``). None of them is charged.
- :class:`TransportError`: no usable response (connection failed, timed out) once the
  retries were spent; the ``httpx`` exception is its ``__cause__``.
- :class:`ProtocolError`: the server answered something the contract does not allow (a 200
  whose body is not the documented JSON, a cursor that is not base64url).
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any, Mapping

from .models import ErrorBody, ResponseMeta

__all__ = [
    "APIError",
    "BudgetExceeded",
    "CursorExpired",
    "ForumdexError",
    "Forbidden",
    "InvalidParameter",
    "InvalidRequest",
    "NotFound",
    "PaymentRequired",
    "ProtocolError",
    "RateLimited",
    "ServerError",
    "ServiceUnavailable",
    "TransportError",
    "Unauthorized",
    "UnexpectedStatus",
    "error_for_response",
]


class ForumdexError(Exception):
    """Base of every error this package raises."""


class InvalidParameter(ForumdexError, ValueError):
    """An argument breaks the contract's rules; raised before anything is sent."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(f"invalid {parameter}: {message}")
        #: The parameter, as the contract (or the method) names it.
        self.parameter = parameter


class BudgetExceeded(ForumdexError):
    """A ``max_credits`` budget would be exceeded by the next request, which was not sent."""

    def __init__(self, max_credits: int, credits_spent: int, what: str = "client") -> None:
        super().__init__(
            f"the {what} budget of {max_credits} credit(s) is spent ({credits_spent} "
            "charged); the next request was not sent"
        )
        #: The budget.
        self.max_credits = max_credits
        #: Credits charged so far within it.
        self.credits_spent = credits_spent


class TransportError(ForumdexError):
    """No usable response: the connection failed or timed out (after the retries)."""


class ProtocolError(ForumdexError):
    """The server's answer breaks the contract (undocumented body, malformed cursor)."""

    def __init__(self, message: str, request_id: str | None = None) -> None:
        super().__init__(message if request_id is None else f"{message} (request {request_id})")
        #: ``X-Request-Id`` of the response, when there was one.
        self.request_id = request_id


class APIError(ForumdexError):
    """The server refused the request (a non-200 status). Never charged."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        body: Mapping[str, Any] | None = None,
        meta: ResponseMeta | None = None,
    ) -> None:
        self.status = status
        #: The contract's ``error`` text (or the raw body when it was not JSON).
        self.message = message
        #: The whole error body as sent (additional properties included).
        self.body: dict[str, Any] = dict(body or {})
        #: The metering headers of the response.
        self.meta = meta or ResponseMeta(status=status)
        parsed = _parse_body(self.body)
        #: ``requestId`` of the body, else ``X-Request-Id``: quote it to support.
        self.request_id: str | None = (
            parsed.request_id if parsed and parsed.request_id else self.meta.request_id
        )
        #: ``creditsCharged`` (0 for every error of the contract).
        self.credits_charged: int | None = parsed.credits_charged if parsed else None
        text = f"{status} {message}"
        if self.request_id:
            text += f" (request {self.request_id})"
        super().__init__(text)


def _parse_body(body: Mapping[str, Any]) -> ErrorBody | None:
    if "error" not in body:
        return None
    try:
        return ErrorBody.model_validate(body)
    except ValueError:
        return None


class InvalidRequest(APIError):
    """400: an invalid query, language code, size, ID, collection option or cursor."""


class Unauthorized(APIError):
    """401: the API key is missing, invalid, expired or revoked."""


class PaymentRequired(APIError):
    """402: not enough prepaid credits; top up at :attr:`topup_url`."""

    @property
    def topup_url(self) -> str | None:
        """``topupUrl`` of the body: where to buy credits."""
        value = self.body.get("topupUrl")
        return value if isinstance(value, str) else None


class Forbidden(APIError):
    """403: the key's IP allowlist does not admit this client's address."""

    @property
    def source_ip(self) -> str | None:
        """``sourceIp`` of the body: the address the service saw."""
        value = self.body.get("sourceIp")
        return value if isinstance(value, str) else None


class NotFound(APIError):
    """404: no such post, topic or profile in the indexed corpus."""


class CursorExpired(APIError):
    """410: the collection cursor idled too long or its snapshot is too old. Walks restart
    by themselves and raise this only after several expiries in a row."""


class RateLimited(APIError):
    """429: the key's rate limit is spent until :attr:`reset_at`. Raised when waiting is
    switched off (``wait_on_rate_limit=False``) or the retries are spent."""

    @property
    def reset(self) -> int | None:
        """``X-RateLimit-Reset``: Unix time (seconds) when the window frees a request."""
        return self.meta.rate_limit_reset

    @property
    def reset_at(self) -> _dt.datetime | None:
        """:attr:`reset` as an aware UTC ``datetime``."""
        return self.meta.rate_limit_reset_at


class ServerError(APIError):
    """A 5xx status. Retried with backoff before it is raised."""


class ServiceUnavailable(ServerError):
    """503: the operation could not complete (the credit is restored); retry later."""


class UnexpectedStatus(APIError):
    """A status the contract does not list."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: InvalidRequest,
    401: Unauthorized,
    402: PaymentRequired,
    403: Forbidden,
    404: NotFound,
    410: CursorExpired,
    429: RateLimited,
    503: ServiceUnavailable,
}


def error_for_response(status: int, content: bytes, meta: ResponseMeta) -> APIError:
    """The exception for a non-200 response."""
    body: dict[str, Any] = {}
    message = content.decode("utf-8", "replace").strip()
    try:
        parsed = json.loads(content) if content else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        body = parsed
        error = parsed.get("error")
        if isinstance(error, str):
            message = error
    if not message:
        message = f"HTTP {status}"
    cls = _BY_STATUS.get(status)
    if cls is None:
        cls = ServerError if 500 <= status <= 599 else UnexpectedStatus
    return cls(status, message, body=body, meta=meta)
