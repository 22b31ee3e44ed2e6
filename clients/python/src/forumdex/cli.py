"""The command line: ``python -m forumdex COMMAND ...`` (see ``python -m forumdex --help``).

The key and the address come from ``--api-key`` and ``--base-url``, or from
``FORUMDEX_API_KEY`` and ``FORUMDEX_BASE_URL``. ``--json`` prints the response body as
JSON; ``walk`` prints one post a line (JSON Lines) on stdout, with a progress bar on stderr
when stderr is a terminal. Exit status: 0 done, 1 the service refused or could not be
reached, 2 bad arguments (nothing sent), 3 the ``--max-credits`` budget stopped a walk.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from typing import Any, Callable, Optional, Sequence, TextIO, TypeVar

from pydantic import BaseModel

from ._version import __version__
from .client import Client
from .errors import (
    APIError,
    BudgetExceeded,
    Forbidden,
    ForumdexError,
    InvalidParameter,
    PaymentRequired,
    RateLimited,
)
from .models import ApiResponse, ImageSearchResponse, Post, Profile, SearchResponse, Topic

__all__ = ["main", "dump"]

EXIT_OK, EXIT_API, EXIT_USAGE, EXIT_BUDGET = 0, 1, 2, 3


def dump(model: BaseModel) -> str:
    """``model`` as one line of JSON, with the fields the server sent (no added nulls)."""
    data = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _connection_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    default: Any = argparse.SUPPRESS if suppress else None
    group = parser.add_argument_group("connection")
    group.add_argument("--api-key", default=default, help="API key (default: $FORUMDEX_API_KEY)")
    group.add_argument(
        "--base-url",
        default=default,
        help="service address (default: $FORUMDEX_BASE_URL, else http://127.0.0.1:8080)",
    )
    group.add_argument(
        "--timeout",
        type=float,
        default=argparse.SUPPRESS if suppress else 30.0,
        help="seconds per request (default 30)",
    )
    group.add_argument(
        "--max-retries",
        type=int,
        default=argparse.SUPPRESS if suppress else 3,
        help="retries of 429, 5xx and connection failures (default 3; 0: none)",
    )
    group.add_argument(
        "--no-wait",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="fail on 429 instead of waiting for the rate-limit reset",
    )


def _search_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("q", help="the query, 1 to 512 characters")
    parser.add_argument("--lang", help="language index, like en or pt-BR")
    parser.add_argument("--freshness", action="store_true", help="prefer newer posts")
    parser.add_argument(
        "--include-low-quality",
        action="store_true",
        help="keep replies that quality and spam filters remove",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m forumdex",
        description="Query the forumdex API: search, lookups and walks over a topic's or "
        "a profile's posts. Each request that succeeds costs one credit.",
    )
    parser.add_argument("--version", action="version", version=f"forumdex {__version__}")
    _connection_options(parser, suppress=False)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        _connection_options(sub, suppress=True)
        return sub

    search = command("search", "ranked post search")
    _search_options(search)
    search.add_argument("--json", action="store_true", help="print the response as JSON")

    images = command("images", "image search: images of matching posts as CDN URLs")
    _search_options(images)
    images.add_argument("--size", type=int, help="most images returned, 1 to 50 (default 24)")
    images.add_argument(
        "--include-nsfw", action="store_true", help="include high-confidence NSFW images"
    )
    images.add_argument("--json", action="store_true", help="print the response as JSON")

    for name, what in (("post", "a post"), ("topic", "a topic"), ("profile", "a profile")):
        sub = command(name, f"look up {what} by forum ID")
        sub.add_argument("id", type=int, help="forum ID")
        sub.add_argument("--json", action="store_true", help="print the response as JSON")

    walk = command("walk", "every post of a topic or profile, one JSON object a line")
    walk.add_argument("scope", choices=["topic", "profile"])
    walk.add_argument("id", type=int, help="topic ID or profile (user) ID")
    walk.add_argument("--limit", type=int, help="posts per page, 1 to 100 (default 50)")
    walk.add_argument("--order", choices=["asc", "desc"], help="asc (default) or desc")
    walk.add_argument("--date-from", help="inclusive: YYYY-MM-DD or RFC 3339 with timezone")
    walk.add_argument("--date-to", help="exclusive: YYYY-MM-DD or RFC 3339 with timezone")
    walk.add_argument("--board-id", type=int, help="only posts of this board")
    walk.add_argument("--author-uid", type=int, help="topic walks: only posts of this author")
    walk.add_argument("--topic-id", type=int, help="profile walks: only posts in this topic")
    walk.add_argument(
        "--max-credits", type=int, help="stop before spending more (one credit per page)"
    )
    progress = walk.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show a progress bar on stderr (default: when stderr is a terminal)",
    )
    progress.add_argument("--no-progress", dest="progress", action="store_false")
    return parser


def _text(content: str, width: int = 160) -> str:
    plain = html.unescape(re.sub(r"<[^>]+>", " ", content))
    plain = " ".join(plain.split())
    return plain if len(plain) <= width else plain[: width - 1] + "…"


def _day(value: Any) -> str:
    return value.strftime("%Y-%m-%d") if value is not None else "----------"


def _print_search(result: SearchResponse, out: TextIO) -> None:
    lang = f", lang {result.lang}" if result.lang else ""
    out.write(f"{result.total} hits for {result.query!r}{lang}\n")
    if result.did_you_mean:
        out.write(f"did you mean: {result.did_you_mean}\n")
    for hit in result.hits:
        out.write(f"  #{hit.post_id} {_day(hit.date)} {hit.author}: {hit.title}\n")
        out.write(f"      {_text(hit.content)}\n")


def _print_images(result: ImageSearchResponse, out: TextIO) -> None:
    out.write(f"{len(result.images)} images for {result.query!r}\n")
    for image in result.images:
        out.write(f"  {image.url}  ({image.bytes} bytes, post #{image.post.post_id})\n")


def _print_post(post: Post, out: TextIO) -> None:
    out.write(
        f"#{post.post_id} in topic {post.topic_id} by {post.author.username}, "
        f"{_day(post.posted_at)}: {post.title}\n{post.url}\n{_text(post.content_html, 2000)}\n"
    )


def _print_topic(topic: Topic, out: TextIO) -> None:
    out.write(
        f"topic {topic.topic_id}: {topic.title}\n"
        f"board {topic.board.name}, {topic.post_count} posts, "
        f"{_day(topic.created_at)} to {_day(topic.last_post_at)}\n{topic.url}\n"
    )


def _print_profile(profile: Profile, out: TextIO) -> None:
    corpus = profile.corpus
    out.write(
        f"profile {profile.profile_id}: {profile.username}\n"
        f"{corpus.post_count} posts in {corpus.topic_count} topics, "
        f"{_day(corpus.first_post_at)} to {_day(corpus.last_post_at)}\n{profile.url}\n"
    )


def _meter(result: ApiResponse, err: TextIO) -> None:
    meta = result.meta
    err.write(
        f"credits charged {meta.credits_charged}, remaining {meta.credits_remaining}; "
        f"rate limit remaining {meta.rate_limit_remaining}\n"
    )


def _walk(client: Client, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    scoped = (
        {"author_uid": args.author_uid} if args.scope == "topic" else {"topic_id": args.topic_id}
    )
    if args.scope == "topic" and args.topic_id is not None:
        raise InvalidParameter("--topic-id", "only for profile walks")
    if args.scope == "profile" and args.author_uid is not None:
        raise InvalidParameter("--author-uid", "only for topic walks")

    def restarted(event: Any) -> None:
        err.write(
            f"forumdex: the cursor expired; restarted on a new snapshot after post "
            f"{event.last_post_id}\n"
        )

    common: dict[str, Any] = dict(
        limit=args.limit,
        order=args.order,
        date_from=args.date_from,
        date_to=args.date_to,
        board_id=args.board_id,
        max_credits=args.max_credits,
        on_restart=restarted,
    )
    walk = (
        client.topic_posts(args.id, **common, **scoped)
        if args.scope == "topic"
        else client.profile_posts(args.id, **common, **scoped)
    )
    show = args.progress if args.progress is not None else err.isatty()
    bar: Any = None
    if show:
        from tqdm import tqdm

        bar = tqdm(desc=f"{args.scope} {args.id}", unit=" posts", file=err)
    status = EXIT_OK
    try:
        for page in walk.pages():
            for post in page.data:
                out.write(dump(post) + "\n")
            out.flush()
            if bar is not None:
                bar.update(len(page.data))
                bar.set_postfix(pages=walk.stats.pages, credits=walk.stats.credits, refresh=False)
    except BudgetExceeded as stop:
        err.write(f"forumdex: {stop}; the listing is incomplete\n")
        status = EXIT_BUDGET
    finally:
        if bar is not None:
            bar.close()
    stats = walk.stats
    err.write(
        f"{stats.posts} posts, {stats.pages} pages, {stats.credits} credits"
        + (f", {stats.restarts} restarts" if stats.restarts else "")
        + ("" if stats.complete else " (incomplete)")
        + "\n"
    )
    return status


R = TypeVar("R", bound=ApiResponse)


def _emit(
    args: argparse.Namespace,
    result: R,
    printer: Callable[[R, TextIO], None],
    out: TextIO,
    err: TextIO,
) -> None:
    if args.json:
        out.write(dump(result) + "\n")
    else:
        printer(result, out)
        _meter(result, err)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with Client(
        api_key=args.api_key,
        base_url=args.base_url,
        timeout=args.timeout,
        max_retries=args.max_retries,
        wait_on_rate_limit=not args.no_wait,
    ) as client:
        if args.command == "walk":
            return _walk(client, args, out, err)
        if args.command == "search":
            _emit(
                args,
                client.search(
                    args.q,
                    lang=args.lang,
                    freshness=args.freshness,
                    include_low_quality=args.include_low_quality,
                ),
                _print_search,
                out,
                err,
            )
        elif args.command == "images":
            _emit(
                args,
                client.search_images(
                    args.q,
                    lang=args.lang,
                    freshness=args.freshness,
                    include_low_quality=args.include_low_quality,
                    size=args.size,
                    hide_nsfw=not args.include_nsfw,
                ),
                _print_images,
                out,
                err,
            )
        elif args.command == "post":
            _emit(args, client.post(args.id), _print_post, out, err)
        elif args.command == "topic":
            _emit(args, client.topic(args.id), _print_topic, out, err)
        else:
            _emit(args, client.profile(args.id), _print_profile, out, err)
        return EXIT_OK


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        return run(args, out, err)
    except InvalidParameter as bad:
        err.write(f"forumdex: {bad}\n")
        return EXIT_USAGE
    except APIError as refused:
        err.write(f"forumdex: {refused}\n")
        if isinstance(refused, PaymentRequired) and refused.topup_url:
            err.write(f"forumdex: top up at {refused.topup_url}\n")
        if isinstance(refused, Forbidden):
            err.write(f"forumdex: the key does not admit the address {refused.source_ip}\n")
        if isinstance(refused, RateLimited) and refused.reset_at:
            err.write(f"forumdex: the rate limit resets at {refused.reset_at.isoformat()}\n")
        return EXIT_API
    except BudgetExceeded as stop:
        err.write(f"forumdex: {stop}\n")
        return EXIT_BUDGET
    except ForumdexError as failed:
        err.write(f"forumdex: {failed}\n")
        return EXIT_API
    except BrokenPipeError:
        # The reader went away (| head): stop quietly, as Unix tools do.
        try:
            sys.stdout = open("/dev/null", "w")  # noqa: SIM115 - Python flushes it at exit
        except OSError:
            pass
        return EXIT_OK
    except KeyboardInterrupt:
        err.write("forumdex: interrupted\n")
        return 130
