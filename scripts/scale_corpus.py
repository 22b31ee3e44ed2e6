#!/usr/bin/env python3
"""One copy of a corpus file with shifted IDs and varied texts, for the scale benchmark.

    scripts/scale_corpus.py --input CORPUS.jsonl.gz --copy K [--max-posts N] > copy.jsonl

Copy 0 is the input as it is. Copy K >= 1 shifts every topic, post and profile ID by
K * 100,000,000 (board IDs stay: the forum has the same boards) and varies the texts so the
term statistics of the grown corpus stay like a real forum's, not like one corpus repeated:
in each copy, one word in ten of the vocabulary (chosen by a hash of the word and K, so the
same word changes the same way in every post and title of that copy) becomes a new word made
of its own letters (the same script, so language detection sees the same language). Common
words thus keep most of their weight as the corpus grows while the vocabulary grows too,
as it does on a larger forum. Markup, entities and URLs are left as they are.

--max-posts stops after N post records (the lines before and between them come along), so
a benchmark can reach a size between whole copies. Used by scripts/bench_scale.sh; nothing
here runs in CI.
"""
import argparse
import gzip
import json
import re
import sys
import zlib

ID_SHIFT = 100_000_000
MUTATED_PER_TEN = 1
TAG = re.compile(r"(<[^>]*>|&#?\w+;|https?://\S+)")
WORD = re.compile(r"(?<![\w&#])[^\W\d_]{4,}")


def varied_word(word, copy):
    """The copy's form of `word`: itself, or (one word in ten) a new word of its letters."""
    if zlib.crc32(f"{copy}:{word.lower()}".encode()) % 10 >= MUTATED_PER_TEN:
        return word
    base = len(word)
    digits = [copy // base % base, copy % base]
    return word + word[-1] + "".join(word[d] for d in digits)


def varied_text(text, copy):
    """`text` with its words varied for the copy, markup and URLs untouched."""
    parts = TAG.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = WORD.sub(lambda m: varied_word(m.group(0), copy), parts[i])
    return "".join(parts)


def shifted(record, copy):
    """The record as it is in copy `copy`."""
    shift = copy * ID_SHIFT
    for field in ("topic_id", "post_id"):
        if isinstance(record.get(field), int):
            record[field] += shift
    if record.get("kind") == "profile" and isinstance(record.get("profile_id"), int):
        record["profile_id"] += shift
    author = record.get("author")
    if isinstance(author, dict) and isinstance(author.get("profile_id"), int):
        author["profile_id"] += shift
    merit = record.get("merit")
    if isinstance(merit, dict):
        for sender in merit.get("senders") or []:
            if isinstance(sender.get("profile_id"), int):
                sender["profile_id"] += shift
    for field in ("title", "content_html"):
        if isinstance(record.get(field), str):
            record[field] = varied_text(record[field], copy)
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--copy", type=int, required=True)
    parser.add_argument("--max-posts", type=int)
    args = parser.parse_args()
    if args.copy < 0:
        parser.error("--copy must be 0 or more")
    posts = 0
    out = sys.stdout
    with gzip.open(args.input, "rt", encoding="utf-8") as lines:
        for line in lines:
            if args.max_posts is not None and '"kind":"post"' in line:
                if posts >= args.max_posts:
                    break
                posts += 1
            if args.copy == 0:
                out.write(line)
            else:
                record = shifted(json.loads(line), args.copy)
                out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
                out.write("\n")


if __name__ == "__main__":
    main()
