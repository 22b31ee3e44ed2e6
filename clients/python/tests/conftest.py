"""A real ``forumdex serve`` for the tests, as scripts/schemathesis.sh starts one: a
temporary data folder with a generated corpus, accounts and keys made with the CLI's
``--json`` output, servers on free loopback ports with ``FORUMDEX_*`` settings.

The binary is ``$FORUMDEX_BIN``, else ``target/debug/forumdex`` of the repository (under
``$CARGO_TARGET_DIR`` when set), as ``cargo test --workspace`` builds it. Without it the
tests that need a server fail and say so; they never skip.

Servers (all on the same data folder, started once per session):

- ``server``: the defaults, with a rate limit no test reaches;
- ``short_idle_server``: ``FORUMDEX_CURSOR_IDLE_SECONDS=2``, for the 410 restart;
- ``limited_server``: ``FORUMDEX_RATE_LIMIT_PER_MINUTE=2``, for the 429 wait.
"""

from __future__ import annotations

import collections
import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from forumdex import Client, RateLimited, RetryEvent

REPO = Path(__file__).resolve().parents[3]
POSTS = 400
SEED = 11


def forumdex_bin() -> Path:
    explicit = os.environ.get("FORUMDEX_BIN")
    if explicit:
        return Path(explicit)
    target = os.environ.get("CARGO_TARGET_DIR") or str(REPO / "target")
    return Path(target).resolve() / "debug" / "forumdex"


@dataclass
class Deployment:
    """A data folder with a corpus; makes accounts and keys with the CLI."""

    bin: Path
    data: Path
    corpus: Path
    emails: int = 0

    def cli(self, *args: str) -> dict[str, Any]:
        done = subprocess.run(
            [str(self.bin), "--data", str(self.data), "--json", *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise AssertionError(f"forumdex {' '.join(args)} failed: {done.stderr}")
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    def key(self, credits: int = 1_000_000, allow: list[str] | None = None) -> str:
        """A new account with ``credits`` and a key for it (optionally IP-restricted)."""
        self.emails += 1
        account = self.cli("accounts", "create", "--email", f"pytest{self.emails}@example.com")[
            "account_id"
        ]
        if credits:
            self.cli("credits", "add", "--account", str(account), "--amount", str(credits))
        args = ["keys", "create", "--account", str(account), "--name", f"pytest{self.emails}"]
        for entry in allow or []:
            args += ["--allow", entry]
        key: str = self.cli(*args)["key"]
        return key

    def records(self, kind: str) -> list[dict[str, Any]]:
        lines = self.corpus.read_text().splitlines()
        return [r for r in map(json.loads, lines) if r.get("kind") == kind]


@dataclass
class Server:
    base_url: str
    process: subprocess.Popen[bytes]
    log: Path
    started_at: float = field(default_factory=time.monotonic)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(deployment: Deployment, name: str, env: dict[str, str]) -> Server:
    port = free_port()
    log = deployment.data.parent / f"{name}.log"
    process = subprocess.Popen(
        [
            str(deployment.bin),
            "--data",
            str(deployment.data),
            "serve",
            "--listen",
            f"127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
        env={**os.environ, "RUST_LOG": "warn", **env},
    )
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base_url}/readyz", timeout=1).status_code == 200:
                return Server(base_url, process, log)
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"the {name} server did not start:\n{log.read_text()}")
        time.sleep(0.1)


def stop_server(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    errors = [
        line for line in server.log.read_text(errors="replace").splitlines() if "panicked" in line
    ]
    assert not errors, f"the server panicked: {errors[:5]}"


@pytest.fixture(scope="session")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Deployment:
    binary = forumdex_bin()
    assert binary.is_file(), (
        f"no forumdex binary at {binary}: build it (cargo test --workspace) or set FORUMDEX_BIN"
    )
    root = tmp_path_factory.mktemp("forumdex")
    corpus = root / "corpus" / "corpus.jsonl"
    corpus.parent.mkdir()
    found = Deployment(binary, root / "data", corpus)
    subprocess.run(
        [str(binary), "generate", "--posts", str(POSTS), "--seed", str(SEED), "--out", str(corpus)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    found.cli("import", str(corpus))
    return found


def _serve(deployment: Deployment, name: str, env: dict[str, str]) -> Iterator[Server]:
    server = start_server(deployment, name, env)
    try:
        yield server
    finally:
        stop_server(server)


@pytest.fixture(scope="session")
def server(deployment: Deployment) -> Iterator[Server]:
    yield from _serve(deployment, "main", {"FORUMDEX_RATE_LIMIT_PER_MINUTE": "100000"})


@pytest.fixture(scope="session")
def short_idle_server(deployment: Deployment) -> Iterator[Server]:
    yield from _serve(
        deployment,
        "short-idle",
        {"FORUMDEX_RATE_LIMIT_PER_MINUTE": "100000", "FORUMDEX_CURSOR_IDLE_SECONDS": "2"},
    )


@pytest.fixture(scope="session")
def limited_server(deployment: Deployment) -> Iterator[Server]:
    yield from _serve(deployment, "limited", {"FORUMDEX_RATE_LIMIT_PER_MINUTE": "2"})


@pytest.fixture(scope="session")
def api_key(deployment: Deployment) -> str:
    return deployment.key()


@pytest.fixture(scope="session")
def big_topic(deployment: Deployment) -> tuple[int, int]:
    """The topic with the most posts in the corpus file, and how many distinct post IDs
    the file gives it (the tests compare walks with the server's listing, not this)."""
    distinct = {(p["post_id"], p["topic_id"]) for p in deployment.records("post")}
    counts = collections.Counter(topic for _, topic in distinct)
    topic_id, count = counts.most_common(1)[0]
    assert count >= 20, f"the generated corpus has no large topic: {counts.most_common(3)}"
    return topic_id, count


@pytest.fixture(scope="session")
def busy_profile(deployment: Deployment) -> tuple[int, int]:
    """The profile with the most posts in the corpus file, and how many it has."""
    distinct = {
        (p["post_id"], p["author"]["profile_id"])
        for p in deployment.records("post")
        if (p.get("author") or {}).get("profile_id")
    }
    counts = collections.Counter(profile for _, profile in distinct)
    profile_id, count = counts.most_common(1)[0]
    return profile_id, count


def raw_listing(base_url: str, key: str, path: str, **params: str) -> list[dict[str, Any]]:
    """The server's own listing, page after page with limit=100, with plain httpx."""
    posts: list[dict[str, Any]] = []
    query: dict[str, str] = {"limit": "100", **params}
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}) as http:
        while True:
            response = http.get(path, params=query)
            assert response.status_code == 200, response.text
            page = response.json()
            posts.extend(page["data"])
            if page["next_cursor"] is None:
                return posts
            query = {"cursor": page["next_cursor"]}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class RateLimitOutcome:
    refused: list[RateLimited] = field(default_factory=list)
    admitted_before: int = 0
    events: list[RetryEvent] = field(default_factory=list)
    result: Any = None
    failure: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


def _rate_limit_probe(server: Server, key: str, topic_id: int, outcome: RateLimitOutcome) -> None:
    try:
        with Client(
            api_key=key, base_url=server.base_url, wait_on_rate_limit=False, max_retries=0
        ) as eager:
            for _ in range(4):
                try:
                    eager.topic(topic_id)
                    outcome.admitted_before += 1
                except RateLimited as refused:
                    outcome.refused.append(refused)
                    break
        with Client(
            api_key=key, base_url=server.base_url, on_retry=outcome.events.append
        ) as patient:
            outcome.result = patient.topic(topic_id)
    except BaseException as failed:  # reported by the test
        outcome.failure = failed
    finally:
        outcome.done.set()


@pytest.fixture(scope="session", autouse=True)
def rate_limit_probe(request: pytest.FixtureRequest) -> Iterator[RateLimitOutcome | None]:
    """Starts the probe at the beginning of the session when a test of this file runs."""
    if not any("test_rate_limit" in item.nodeid for item in request.session.items):
        yield None
        return
    deployment: Deployment = request.getfixturevalue("deployment")
    server: Server = request.getfixturevalue("limited_server")
    topic_id, _ = request.getfixturevalue("big_topic")
    outcome = RateLimitOutcome()
    thread = threading.Thread(
        target=_rate_limit_probe, args=(server, deployment.key(), topic_id, outcome), daemon=True
    )
    thread.start()
    yield outcome
    thread.join(timeout=120)
