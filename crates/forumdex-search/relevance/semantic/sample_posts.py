#!/usr/bin/env python3
"""Deterministic candidate posts for the "known item in other words" query sets.

Usage:
  sample_posts.py [CORPUS] [--count N] [--chars C] [--dump FILE]

CORPUS defaults to ../shared/data/bitcointalk-1.4m.jsonl.gz relative to the project root
(the corpus-format v1 file, plain or gzip). Reads it once, keeps the canonical
observation of every post (corpus-format.md: latest observed_at, ties to the smallest
SHA-256 of the line as read, without its line terminator), drops deleted ones, and prints
candidates in a fixed order (seed 37) for a person to write queries for: rank, post id,
topic id, whether it is the opening post, board, topic title, word count and the first C
characters (default 400) of the plain text.

Eligible posts (all rules are mechanical; whether a post "states something specific" is
left to the person writing queries, who goes down the list and skips posts that do not):
- mostly English: at least 25% of the words are common English function words and at
  least 90% of the letters are ASCII (the corpus has no language field; the service
  detects it, so this is only a prefilter);
- at least 40 words (opening posts and replies alike), at most 1500;
- not a bounty/campaign report or a spreadsheet-like post (report wording such as "proof
  of authentication", "week 3 report", "Twitter username:", "ETH address:", or more than
  a third of the lines holding a URL), not a referral-link post;
- its normalised text (lowercase letters and digits only) occurs in no other canonical
  post (copy-pasted posts would have several right answers);
- one candidate per topic (the first in the order), so the set spreads over topics.

Order: eligible opening posts and eligible replies are each sorted by post id and
shuffled with their own random.Random(37); the list interleaves them one opening post
to two replies (then whatever remains).

--dump FILE also writes every canonical non-deleted post as TSV (post_id, topic_id,
is_op, title, text with tabs/newlines as spaces) for looking things up while writing
queries; it is scratch data and must not be committed.
"""
import argparse
import gzip
import hashlib
import html
import json
import os
import random
import re
import sys
from datetime import datetime

SEED = 37
# ../shared/data/... relative to the project root (four folders above this script).
DEFAULT_CORPUS = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "..",
    "shared", "data", "bitcointalk-1.4m.jsonl.gz"))

FUNCTION_WORDS = set("""
the a an and or but of to in on at for with from by is are was were be been being it its
this that these those i you he she we they my your our their me him her us them not no
do does did have has had will would can could should if then so as than there here what
when where which who why how all any some just also very about into out up more
""".split())

REPORT_PATTERNS = re.compile(
    r"bounty report|weekly report|\bweek\s*#?\d+\b.{0,40}\b(report|post|tweet|share)|proof of auth"
    r"|\b(twitter|facebook|telegram|bitcointalk|btt|reddit|medium)\s*(user\s*name|username|profile"
    r"|account|name|link|id)\s*[:=-]|\b(eth|ethereum|erc-?20|wallet|waves|btc)\s*address\s*[:=-]"
    r"|\bspreadsheet\b|\bref(erral)?\s*link\b",
    re.I,
)
URL = re.compile(r"https?://|www\.", re.I)
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def open_corpus(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def observed_ms(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def plain_text(content_html):
    text = re.sub(r"<br\s*/?>", "\n", content_html, flags=re.I)
    text = re.sub(r"<[^>]*>", " ", text)
    return html.unescape(text).strip()


def canonical_posts(path):
    """post_id -> (observed, sha, record) of the canonical observation; also boards, topics."""
    posts, boards, topics = {}, {}, {}
    with open_corpus(path) as f:
        for raw in f:
            line = raw.rstrip(b"\n").rstrip(b"\r")
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            kind = r.get("kind")
            if kind == "board":
                boards[r["board_id"]] = r.get("name", "")
            elif kind == "topic":
                at = observed_ms(r["observed_at"])
                old = topics.get(r["topic_id"])
                if old is None or at >= old[0]:
                    topics[r["topic_id"]] = (at, r)
            elif kind == "post":
                at = observed_ms(r["observed_at"])
                pid = r["post_id"]
                old = posts.get(pid)
                if old is not None and at < old[0]:
                    continue
                sha = hashlib.sha256(line).hexdigest()
                if old is not None and at == old[0] and sha >= old[1]:
                    continue
                posts[pid] = (at, sha, r)
    return posts, boards, {t: r for t, (_, r) in topics.items()}


def is_english(words, text):
    if not words:
        return False
    fw = sum(1 for w in words if w.lower() in FUNCTION_WORDS)
    letters = [c for c in text if c.isalpha()]
    ascii_share = sum(1 for c in letters if c.isascii()) / max(1, len(letters))
    return fw / len(words) >= 0.25 and ascii_share >= 0.9


def eligible(text, words):
    if not 40 <= len(words) <= 1500:
        return False
    if not is_english(words, text):
        return False
    if REPORT_PATTERNS.search(text):
        return False
    lines = [l for l in text.splitlines() if l.strip()]
    if lines and sum(1 for l in lines if URL.search(l)) * 3 > len(lines):
        return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default=DEFAULT_CORPUS)
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--chars", type=int, default=400)
    ap.add_argument("--dump")
    args = ap.parse_args()

    posts, boards, topics = canonical_posts(args.corpus)
    live = {pid: r for pid, (_, _, r) in posts.items() if not r.get("deleted")}
    first_of_topic = {}
    for pid, r in live.items():
        t = r["topic_id"]
        if t not in first_of_topic or pid < first_of_topic[t]:
            first_of_topic[t] = pid

    def is_op(pid, r):
        if r.get("is_op") is not None:
            return bool(r["is_op"])
        return first_of_topic[r["topic_id"]] == pid

    texts, norm_count = {}, {}
    for pid, r in live.items():
        text = plain_text(r.get("content_html", ""))
        texts[pid] = text
        norm = hashlib.sha1(re.sub(r"[^a-z0-9]", "", text.lower()).encode()).digest()
        norm_count[norm] = norm_count.get(norm, 0) + 1

    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            for pid in sorted(live):
                r = live[pid]
                clean = re.sub(r"\s+", " ", texts[pid])
                title = re.sub(r"\s+", " ", r.get("title", ""))
                out.write(f"{pid}\t{r['topic_id']}\t{int(is_op(pid, r))}\t{title}\t{clean}\n")

    ops, replies = [], []
    for pid in sorted(live):
        text = texts[pid]
        words = WORD.findall(text)
        if not eligible(text, words):
            continue
        norm = hashlib.sha1(re.sub(r"[^a-z0-9]", "", text.lower()).encode()).digest()
        if norm_count[norm] > 1:
            continue
        (ops if is_op(pid, live[pid]) else replies).append((pid, len(words)))
    random.Random(SEED).shuffle(ops)
    random.Random(SEED).shuffle(replies)
    print(f"# {len(posts)} canonical posts, {len(live)} not deleted; eligible: "
          f"{len(ops)} opening posts, {len(replies)} replies; seed {SEED}")

    order = []
    i = j = 0
    while i < len(ops) or j < len(replies):
        if i < len(ops):
            order.append(ops[i]); i += 1
        for _ in range(2):
            if j < len(replies):
                order.append(replies[j]); j += 1

    seen_topics, rank = set(), 0
    for pid, nwords in order:
        if rank >= args.count:
            break
        r = live[pid]
        t = r["topic_id"]
        if t in seen_topics:
            continue
        seen_topics.add(t)
        rank += 1
        topic = topics.get(t, {})
        title = topic.get("title") or r.get("title", "")
        board = boards.get(r.get("board_id") or topic.get("board_id"), "")
        snippet = re.sub(r"\s+", " ", texts[pid])[: args.chars]
        print(f"\n[{rank}] post {pid} topic {t} {'OP' if is_op(pid, r) else 'reply'} "
              f"words {nwords} board {board!r}\n  title: {title}\n  {snippet}")


if __name__ == "__main__":
    main()
