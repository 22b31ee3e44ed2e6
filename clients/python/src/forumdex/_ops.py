"""The operations of the contract as (path, query, response class), validated; shared by
:class:`~forumdex.Client` and :class:`~forumdex.AsyncClient`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Generic, Optional, Type, TypeVar

from . import _params
from ._walk import RestartCallback, WalkState
from .errors import InvalidParameter
from .models import ApiResponse, ImageSearchResponse, Post, Profile, SearchResponse, Topic

T = TypeVar("T", bound=ApiResponse)


@dataclass(frozen=True)
class Call(Generic[T]):
    path: str
    params: Dict[str, str]
    model: Type[T]


def search(
    q: object, lang: object, freshness: object, include_low_quality: object
) -> Call[SearchResponse]:
    params = _params.search_params(
        q, lang_code=lang, freshness=freshness, include_low_quality=include_low_quality
    )
    return Call("api/v1/search", params, SearchResponse)


def search_images(
    q: object,
    lang: object,
    freshness: object,
    include_low_quality: object,
    size: object,
    hide_nsfw: object,
) -> Call[ImageSearchResponse]:
    params = _params.image_search_params(
        q,
        lang_code=lang,
        freshness=freshness,
        include_low_quality=include_low_quality,
        size=size,
        hide_nsfw=hide_nsfw,
    )
    return Call("api/v1/images/search", params, ImageSearchResponse)


def post(post_id: object) -> Call[Post]:
    return Call(f"api/v1/posts/{_params.lookup_id('post_id', post_id)}", {}, Post)


def topic(topic_id: object) -> Call[Topic]:
    return Call(f"api/v1/topics/{_params.lookup_id('topic_id', topic_id)}", {}, Topic)


def profile(profile_id: object) -> Call[Profile]:
    return Call(f"api/v1/profiles/{_params.lookup_id('profile_id', profile_id)}", {}, Profile)


def walk(
    scope: str,
    scope_id: object,
    *,
    limit: object,
    order: object,
    date_from: object,
    date_to: object,
    board_id: object,
    extra: Dict[str, object],
    max_credits: object,
    on_restart: Optional[RestartCallback],
) -> WalkState:
    checked_id = _params.collection_id(f"{scope}_id", scope_id)
    options = _params.collection_options(
        limit=limit,
        order_value=order,
        date_from=date_from,
        date_to=date_to,
        board_id=board_id,
        extra=extra,
    )
    if (
        options.date_from
        and options.date_to
        and options.date_from.instant >= options.date_to.instant
    ):
        raise InvalidParameter("date_to", "must be later than date_from (the range is empty)")
    budget = None if max_credits is None else _params.integer("max_credits", max_credits, 0, None)
    if on_restart is not None and not callable(on_restart):
        raise InvalidParameter("on_restart", "a callable or None")
    return WalkState(scope, checked_id, options, max_credits=budget, on_restart=on_restart)
