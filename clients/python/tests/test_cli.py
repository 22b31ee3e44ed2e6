"""``python -m forumdex`` against a real server: the key and address from the environment
or the flags, ``--json``, ``walk`` writing one post a line, the exit statuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import Deployment, Server, raw_listing


def forumdex(
    *args: str, env: dict[str, str] | None = None, stdout: Any = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FORUMDEX_")}
    return subprocess.run(
        [sys.executable, "-m", "forumdex", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env={**clean, **(env or {})},
        timeout=120,
    )


def test_search_with_the_environment_and_json(server: Server, api_key: str) -> None:
    env = {"FORUMDEX_API_KEY": api_key, "FORUMDEX_BASE_URL": server.base_url}
    done = forumdex("search", "hardware wallet", "--lang", "en", "--json", env=env)
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["query"] == "hardware wallet" and body["lang"] == "en"
    assert isinstance(body["hits"], list)

    done = forumdex("search", "bitcoin", env=env)
    assert done.returncode == 0, done.stderr
    assert "hits for 'bitcoin'" in done.stdout
    assert "credits charged 1" in done.stderr


def test_lookups_with_flags(server: Server, api_key: str, big_topic: tuple[int, int]) -> None:
    flags = ["--api-key", api_key, "--base-url", server.base_url]
    topic_id, _ = big_topic
    done = forumdex(*flags, "topic", str(topic_id), "--json")
    assert done.returncode == 0, done.stderr
    topic = json.loads(done.stdout)
    assert topic["topic_id"] == topic_id
    # The connection flags may also follow the command.
    post_id = str(topic["first_post"]["post_id"])
    done = forumdex("post", post_id, *flags)
    assert done.returncode == 0, done.stderr
    assert f"#{post_id} in topic {topic_id}" in done.stdout
    done = forumdex("profile", str(topic["first_post"]["author"]["profile_id"]), *flags)
    assert done.returncode == 0, done.stderr


def test_walk_writes_every_post_as_a_json_line(
    tmp_path: Path, server: Server, api_key: str, big_topic: tuple[int, int]
) -> None:
    topic_id, _ = big_topic
    out = tmp_path / "posts.jsonl"
    env = {"FORUMDEX_API_KEY": api_key, "FORUMDEX_BASE_URL": server.base_url}
    with out.open("w") as file:
        done = forumdex("walk", "topic", str(topic_id), "--limit", "8", env=env, stdout=file)
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    expected = raw_listing(server.base_url, api_key, f"/api/v1/topics/{topic_id}/posts")
    assert [json.loads(line) for line in lines] == expected
    assert len(lines) == len(expected)
    assert f"{len(expected)} posts" in done.stderr


def test_walk_progress_bar_and_budget_stop(
    server: Server, deployment: Deployment, big_topic: tuple[int, int]
) -> None:
    key = deployment.key(credits=50)
    topic_id, _ = big_topic
    flags = ["--api-key", key, "--base-url", server.base_url]
    done = forumdex(
        *flags, "walk", "topic", str(topic_id), "--limit", "4", "--max-credits", "2", "--progress"
    )
    assert done.returncode == 3, done.stderr
    assert len(done.stdout.splitlines()) == 8
    assert "budget of 2 credit(s)" in done.stderr and "(incomplete)" in done.stderr
    assert f"topic {topic_id}: " in done.stderr and "posts/s" in done.stderr  # the bar


def test_errors_and_exit_statuses(server: Server, deployment: Deployment) -> None:
    flags = ["--api-key", deployment.key(credits=0), "--base-url", server.base_url]
    done = forumdex(*flags, "search", "bitcoin", "--lang", "EN")
    assert done.returncode == 2 and "invalid lang" in done.stderr
    done = forumdex(*flags, "walk", "topic", "0")
    assert done.returncode == 2 and "topic_id" in done.stderr
    done = forumdex(*flags, "search", "bitcoin")
    assert done.returncode == 1 and "402" in done.stderr and "top up at" in done.stderr
    done = forumdex("--base-url", server.base_url, "search", "bitcoin")
    assert done.returncode == 2 and "FORUMDEX_API_KEY" in done.stderr
    done = forumdex("--api-key", "fdx_live_nope", "--base-url", server.base_url, "topic", "1")
    assert done.returncode == 1 and "401" in done.stderr
