"""Typed response bodies, one class per schema of the OpenAPI document (contract 1.2.0).

The classes follow ``components.schemas`` of ``openapi.json`` field by field: a field the
document requires has no default here, a field it allows to be ``null`` is ``Optional``,
and ``tests/test_models_drift.py`` fails when the two drift apart. Inline objects of the
document have their own classes: ``Topic.views`` is :class:`TopicViews`,
``Profile.corpus`` is :class:`ProfileCorpus`, ``PostList.scope`` and ``PostList.filters``
are :class:`PostListScope` and :class:`PostListFilters`.

Timestamps are parsed into timezone-aware :class:`datetime.datetime` values and written
back (``model_dump(mode="json")``) in the service's own form, RFC 3339 UTC with
milliseconds (``2024-01-02T03:04:05.000Z``). Fields a newer server adds are kept (pydantic
``extra="allow"``), so dumping a model with ``exclude_unset=True`` gives back what the
server sent.

Responses of an operation (:class:`SearchResponse`, :class:`ImageSearchResponse`,
:class:`Post`, :class:`Topic`, :class:`Profile`, :class:`PostList`) also carry the metering
headers of the response that brought them: :attr:`ApiResponse.meta` (see
:class:`ResponseMeta`), with the shortcuts ``credits_charged``, ``credits_remaining`` and
``rate_limit_remaining``.
"""

import datetime as _dt
from dataclasses import dataclass
from typing import Annotated, Dict, List, Literal, Optional, Type

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PrivateAttr

__all__ = [
    "ApiResponse",
    "Author",
    "Board",
    "ErrorBody",
    "Image",
    "ImageSearchResponse",
    "Merit",
    "Post",
    "PostList",
    "PostListFilters",
    "PostListScope",
    "PostSummary",
    "Profile",
    "ProfileCorpus",
    "ResponseMeta",
    "SCHEMAS",
    "SearchHit",
    "SearchResponse",
    "Timestamp",
    "Topic",
    "TopicViews",
    "format_timestamp",
]


def format_timestamp(value: _dt.datetime) -> str:
    """``value`` as the service writes timestamps: RFC 3339 in UTC with milliseconds."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    utc = value.astimezone(_dt.timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


#: A timestamp of the contract: parsed to an aware ``datetime``, dumped to JSON as the
#: service writes it.
Timestamp = Annotated[
    _dt.datetime, PlainSerializer(format_timestamp, return_type=str, when_used="json")
]


@dataclass(frozen=True)
class ResponseMeta:
    """The metering headers of one response (``None`` where the response had none)."""

    #: The HTTP status.
    status: Optional[int] = None
    #: ``X-Request-Id``: quote it to support.
    request_id: Optional[str] = None
    #: ``X-Credits-Charged``: 1 on a 200, 0 (or absent) otherwise.
    credits_charged: Optional[int] = None
    #: ``X-Credits-Remaining``: the prepaid balance after the call.
    credits_remaining: Optional[int] = None
    #: ``X-RateLimit-Limit``: requests allowed per minute for the key.
    rate_limit_limit: Optional[int] = None
    #: ``X-RateLimit-Remaining``: requests left in the rolling window.
    rate_limit_remaining: Optional[int] = None
    #: ``X-RateLimit-Reset``: Unix time (seconds) when the window frees a request.
    rate_limit_reset: Optional[int] = None

    @property
    def rate_limit_reset_at(self) -> Optional[_dt.datetime]:
        """``X-RateLimit-Reset`` as an aware UTC ``datetime``."""
        if self.rate_limit_reset is None:
            return None
        return _dt.datetime.fromtimestamp(self.rate_limit_reset, tz=_dt.timezone.utc)


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=False)


class ApiResponse(_Model):
    """Base of the bodies an operation returns: adds the response's metering headers."""

    _meta: ResponseMeta = PrivateAttr(default_factory=ResponseMeta)

    @property
    def meta(self) -> ResponseMeta:
        """The metering headers of the response this body came in (empty when nested)."""
        return self._meta

    @property
    def credits_charged(self) -> Optional[int]:
        """``X-Credits-Charged`` of the response."""
        return self._meta.credits_charged

    @property
    def credits_remaining(self) -> Optional[int]:
        """``X-Credits-Remaining`` of the response."""
        return self._meta.credits_remaining

    @property
    def rate_limit_remaining(self) -> Optional[int]:
        """``X-RateLimit-Remaining`` of the response."""
        return self._meta.rate_limit_remaining


class Author(_Model):
    """Author (nested object)."""

    profile_id: Optional[int]
    username: str
    url: Optional[str]


class Board(_Model):
    """Board (nested object)."""

    board_id: Optional[int]
    name: str


class Merit(_Model):
    """Merit (nested object)."""

    total: int = Field(ge=0)
    distinct_senders: int = Field(ge=0)
    transactions: int = Field(ge=0)
    observed_at: Optional[Timestamp]


class PostSummary(_Model):
    """PostSummary."""

    post_id: int
    topic_id: int
    post_number: Optional[int] = None
    is_op: bool
    title: str
    author: Author
    board: Board
    language: Optional[str] = None
    posted_at: Optional[Timestamp] = None
    #: Link to the post on the forum.
    url: str
    #: Link to the topic on the forum.
    topic_url: str


class Post(PostSummary, ApiResponse):
    """Post (full post): every PostSummary field plus object, content_html, indexed_at and
    merit."""

    object: Literal["post"]
    #: Rendered post HTML; cached images use CDN URLs.
    content_html: str
    indexed_at: Optional[Timestamp]
    merit: Merit


class TopicViews(_Model):
    """``Topic.views``."""

    observed: int = Field(ge=0)
    observed_at: Optional[Timestamp]


class Topic(ApiResponse):
    """Topic: metadata, complete first post, summary of the latest indexed post."""

    object: Literal["topic"]
    topic_id: int
    title: str
    board: Board
    language: Optional[str] = None
    created_at: Optional[Timestamp] = None
    last_post_at: Optional[Timestamp] = None
    post_count: int = Field(ge=0)
    page_count: int = Field(ge=0)
    views: TopicViews
    merit: Merit
    url: str
    first_post: Optional[Post]
    latest_post: Optional[PostSummary]


class ProfileCorpus(_Model):
    """``Profile.corpus``: activity derived from the distinct indexed posts."""

    post_count: int = Field(ge=0)
    topic_count: int = Field(ge=0)
    first_post_at: Optional[Timestamp]
    last_post_at: Optional[Timestamp]
    derived_from: Literal["distinct indexed posts"]


class Profile(ApiResponse):
    """Profile: corpus-derived activity and recent posts."""

    object: Literal["profile"]
    profile_id: int
    username: Optional[str]
    url: str
    corpus: ProfileCorpus
    recent_posts: List[PostSummary]


class SearchHit(_Model):
    """SearchHit: one element of ``hits`` in a post search response. Extra properties the
    server sends are kept (``model_extra``)."""

    post_id: int
    topic_id: int
    title: str
    topic_title: Optional[str] = None
    post_title: Optional[str] = None
    #: Rendered searchable post content; cached images use CDN URLs.
    content: str
    #: Username.
    author: str
    author_uid: Optional[int] = None
    date: Timestamp
    board_id: Optional[int] = None
    board_name: Optional[str] = None
    lang: str
    highlight: Optional[Dict[str, List[str]]] = None
    score: float
    spam_score: Optional[float] = None
    ai_score: Optional[float] = None
    health_score: Optional[float] = None
    rank_source: Optional[str] = None
    ranking_model_version: Optional[str] = None
    search_index: Optional[str] = None


class SearchResponse(ApiResponse):
    """SearchResponse (post search; no object field)."""

    query: str
    corrected_query: Optional[str] = None
    lang: str
    board_scope: Optional[str] = None
    index: Optional[str] = None
    did_you_mean: Optional[str] = None
    hybrid: Optional[bool] = None
    #: Whether the freshness preference was applied (requested or detected).
    freshness: Optional[bool] = None
    answer_seeking: Optional[bool] = None
    total: int = Field(ge=0)
    hits: List[SearchHit]


class Image(_Model):
    """Image: a cached image object and the post it was found in."""

    object: Literal["image"]
    sha256: str = Field(pattern=r"^[a-f0-9]{64}$")
    #: Stable CDN URL.
    url: str
    mime_type: Literal["image/avif"]
    bytes: int = Field(ge=0)
    nsfw_score: Optional[float] = Field(ge=0, le=1)
    post: PostSummary


class ImageSearchResponse(ApiResponse):
    """ImageSearchResponse. The contract does not say which fields are required."""

    object: Optional[Literal["image_search"]] = None
    query: Optional[str] = None
    corrected_query: Optional[str] = None
    lang: Optional[str] = None
    board_scope: Optional[str] = None
    #: Whether high-confidence NSFW images are hidden.
    hide_nsfw: Optional[bool] = None
    #: Number of post matches examined.
    post_matches_considered: Optional[int] = None
    total: Optional[int] = None
    images: List[Image] = Field(default_factory=list)


class PostListScope(_Model):
    """``PostList.scope``: whose posts."""

    type: Optional[Literal["topic", "profile"]] = None
    id: Optional[int] = None


class PostListFilters(_Model):
    """``PostList.filters``: the effective filters of the snapshot."""

    date_from: Optional[Timestamp] = None
    date_to: Optional[Timestamp] = None
    board_id: Optional[int] = None
    author_uid: Optional[int] = None
    topic_id: Optional[int] = None


class PostList(ApiResponse):
    """PostList: one collection page. No total count is returned. The contract does not
    say which fields are required: a missing ``next_cursor`` reads as ``None`` (the
    listing is complete) and missing ``data`` as an empty page."""

    object: Optional[Literal["post_list"]] = None
    scope: Optional[PostListScope] = None
    order: Optional[Literal["asc", "desc"]] = None
    #: Effective page size.
    limit: Optional[int] = Field(default=None, ge=1, le=100)
    filters: Optional[PostListFilters] = None
    #: When the snapshot was frozen.
    snapshot_at: Optional[Timestamp] = None
    cursor_expires_at: Optional[Timestamp] = None
    has_more: Optional[bool] = None
    #: The cursor of the next page of the same walk; ``None`` when the listing is complete.
    next_cursor: Optional[str] = None
    #: Full posts; may be empty while ``next_cursor`` is not ``None``.
    data: List[Post] = Field(default_factory=list)


class ErrorBody(_Model):
    """The body of every non-200 response (the schema ``Error``)."""

    error: str
    request_id: Optional[str] = Field(default=None, alias="requestId")
    credits_charged: Optional[int] = Field(default=None, alias="creditsCharged", ge=0, le=1)
    #: The client address seen when an IP-restricted key is denied.
    source_ip: Optional[str] = Field(default=None, alias="sourceIp")
    topup_url: Optional[str] = Field(default=None, alias="topupUrl")


#: The class that follows each schema of the document (``Topic.views``: the inline object of
#: the property ``views`` of ``Topic``). The drift test walks this table.
SCHEMAS: Dict[str, Type[BaseModel]] = {
    "Author": Author,
    "Board": Board,
    "Merit": Merit,
    "PostSummary": PostSummary,
    "Post": Post,
    "Topic": Topic,
    "Topic.views": TopicViews,
    "Profile": Profile,
    "Profile.corpus": ProfileCorpus,
    "SearchHit": SearchHit,
    "SearchResponse": SearchResponse,
    "Image": Image,
    "ImageSearchResponse": ImageSearchResponse,
    "PostList": PostList,
    "PostList.scope": PostListScope,
    "PostList.filters": PostListFilters,
    "Error": ErrorBody,
}
