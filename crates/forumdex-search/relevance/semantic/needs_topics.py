#!/usr/bin/env python3
"""Lists the topics of a corpus file, to choose information needs from what it covers.

Streams the corpus once (corpus format v1), keeps the canonical observation of every post
(latest observed_at, ties to the smallest SHA-256 of the line; deleted posts left out) and
of every topic, and writes one TSV row per topic, most posts first:

    topic_id  board  posts  first_posted  last_posted  views  signals  title

`signals` counts the topic's posts that mention a few things needs are often about
(bounty payouts, exchange listings, token sale end, scam/dead project, wallet bugs,
Russian-language posts); it only helps decide which threads can answer which needs. Nothing
here comes from the search engine: needs are written before any search result is seen.

Usage: needs_topics.py CORPUS.jsonl.gz > /tmp/needs_topics.tsv
"""
import gzip
import hashlib
import json
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime

SIGNALS = {
    "paid": re.compile(r"\b(?:paid|payout|distribut\w*|received (?:my|the) (?:tokens|reward))", re.I),
    "listed": re.compile(r"\b(?:listed|listing|exchange)\b", re.I),
    "saleend": re.compile(r"\b(?:ico|sale|crowdsale)\b.{0,40}\b(?:end|ended|over|closed)\b", re.I),
    "scam": re.compile(r"\b(?:scam|dead|exit|abandon\w*|disappear\w*)\b", re.I),
    "bug": re.compile(r"\b(?:wallet)\b.{0,60}\b(?:bug|crash\w*|error|stuck|sync\w*)\b", re.I),
    "ru": re.compile(r"[а-яё]{4,}", re.I),
}


def when(value):
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def main():
    path = sys.argv[1]
    boards = {}
    topic_best = {}
    post_best = {}
    with gzip.open(path, "rb") as f:
        for raw in f:
            line = raw.rstrip(b"\n")
            if not line.strip():
                continue
            rec = json.loads(line)
            kind = rec.get("kind")
            if kind == "board":
                boards[rec["board_id"]] = rec["name"]
            elif kind == "topic":
                key = (-when(rec["observed_at"]), hashlib.sha256(line).hexdigest())
                old = topic_best.get(rec["topic_id"])
                if old is None or key < old[0]:
                    topic_best[rec["topic_id"]] = (key, rec.get("board_id"), rec.get("title", ""), rec.get("views"))
            elif kind == "post":
                key = (-when(rec["observed_at"]), hashlib.sha256(line).hexdigest())
                old = post_best.get(rec["post_id"])
                if old is not None and old[0] <= key:
                    continue
                if rec.get("deleted"):
                    post_best[rec["post_id"]] = (key, None)
                    continue
                text = rec.get("content_html") or ""
                sig = tuple(name for name, rx in SIGNALS.items() if rx.search(text))
                post_best[rec["post_id"]] = (
                    key,
                    (rec["topic_id"], rec.get("board_id"), rec.get("posted_at") or "", rec.get("title", ""), sig),
                )
    topics = defaultdict(lambda: {"posts": 0, "first": "9999", "last": "", "board": None, "title": None, "sig": Counter()})
    for pid, (_, s) in post_best.items():
        if s is None:
            continue
        t = topics[s[0]]
        t["posts"] += 1
        if s[2]:
            t["first"] = min(t["first"], s[2])
            t["last"] = max(t["last"], s[2])
        if t["board"] is None:
            t["board"] = s[1]
        if t["title"] is None or (s[2] and s[2] == t["first"]):
            t["title"] = s[3]
        t["sig"].update(s[4])
    out = sys.stdout
    out.write("topic_id\tboard\tposts\tfirst_posted\tlast_posted\tviews\tsignals\ttitle\n")
    for tid, t in sorted(topics.items(), key=lambda kv: (-kv[1]["posts"], kv[0])):
        rec = topic_best.get(tid)
        board = rec[1] if rec and rec[1] is not None else t["board"]
        title = rec[2] if rec else t["title"]
        views = rec[3] if rec else ""
        sig = ",".join(f"{k}={v}" for k, v in sorted(t["sig"].items()))
        title = re.sub(r"\s+", " ", title or "")
        out.write(
            f"{tid}\t{boards.get(board, board)}\t{t['posts']}\t{t['first'][:10]}\t{t['last'][:10]}\t"
            f"{views}\t{sig}\t{title}\n"
        )


if __name__ == "__main__":
    main()
