"""Python client of the forumdex API (contract 1.2.0): ranked post and image search,
lookups of posts, topics and profiles, and cursor walks over a topic's or a profile's
posts, with the contract's rules built in (parameters checked before anything is spent,
rate-limit waits, safe retries, 410 restarts, credit budgets).

>>> from forumdex import Client
>>> with Client(api_key="fdx_live_...", base_url="https://api.example.com") as client:
...     for post in client.topic_posts(5, limit=100):
...         print(post.post_id, post.author.username)

:class:`AsyncClient` has the same methods as coroutines (walks: ``async for``).
"""

from ._core import DEFAULT_BASE_URL, RetryEvent
from ._params import MAX_ID
from ._version import __version__
from ._walk import MAX_CONSECUTIVE_RESTARTS, RestartEvent, WalkStats
from .async_client import AsyncClient, AsyncPostWalk
from .client import Client, PostWalk
from .errors import (
    APIError,
    BudgetExceeded,
    CursorExpired,
    Forbidden,
    ForumdexError,
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
from .models import (
    Author,
    Board,
    ErrorBody,
    Image,
    ImageSearchResponse,
    Merit,
    Post,
    PostList,
    PostListFilters,
    PostListScope,
    PostSummary,
    Profile,
    ProfileCorpus,
    ResponseMeta,
    SearchHit,
    SearchResponse,
    Topic,
    TopicViews,
)

__all__ = [
    "APIError",
    "AsyncClient",
    "AsyncPostWalk",
    "Author",
    "Board",
    "BudgetExceeded",
    "Client",
    "CursorExpired",
    "DEFAULT_BASE_URL",
    "ErrorBody",
    "Forbidden",
    "ForumdexError",
    "Image",
    "ImageSearchResponse",
    "InvalidParameter",
    "InvalidRequest",
    "MAX_CONSECUTIVE_RESTARTS",
    "MAX_ID",
    "Merit",
    "NotFound",
    "PaymentRequired",
    "Post",
    "PostList",
    "PostListFilters",
    "PostListScope",
    "PostSummary",
    "PostWalk",
    "Profile",
    "ProfileCorpus",
    "ProtocolError",
    "RateLimited",
    "ResponseMeta",
    "RestartEvent",
    "RetryEvent",
    "SearchHit",
    "SearchResponse",
    "ServerError",
    "ServiceUnavailable",
    "Topic",
    "TopicViews",
    "TransportError",
    "Unauthorized",
    "UnexpectedStatus",
    "WalkStats",
    "__version__",
]
