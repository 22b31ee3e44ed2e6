#!/usr/bin/env python3
"""Splits the "other words" queries into the tuning and held-out halves.

Usage: split_halves.py [FILE ...]
Reads queries (with their `#allow:` lines) from the given files (default: the two halves
next to this script, so running it again is a no-op) and rewrites
other-words.tuning.tsv and other-words.heldout.tsv.

Rule: per kind, the queries are ordered by the SHA-256 (hex) of their first expected post
ID written in decimal; the 1st, 3rd, 5th... go to the tuning half, the 2nd, 4th... to the
held-out half. So each kind is split evenly (the tuning half gets the odd one) and the
split depends only on the set of queries, not on file order.
"""
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HALVES = {
    "tuning": os.path.join(HERE, "other-words.tuning.tsv"),
    "heldout": os.path.join(HERE, "other-words.heldout.tsv"),
}
HEADER = """\
# Semantic retrieval, known item in other words, English: the {half} half.
# {rule}
# One query per post, written by hand without looking at search results: a question the
# post answers (kind question) or a short description of the post (kind description),
# sharing at most 2 content words with the post; names are exempt when listed on an
# "#allow:" line right above the query (check_overlap.py). See README.md in this folder.
# query	lang	expected post ids	kind
"""
RULES = {
    "tuning": "Ranking may be tuned on this half.",
    "heldout": "HELD OUT: nobody tunes ranking on this half; report it next to the tuning half.",
}


def read(paths):
    entries, allow = [], None
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("#allow:"):
                    allow = line
                    continue
                if not line.strip() or line.startswith("#"):
                    continue
                cols = line.split("\t")
                entries.append((cols[3], cols[2].split(",")[0].strip(), allow, line))
                allow = None
    return entries


def main():
    paths = sys.argv[1:] or [p for p in HALVES.values() if os.path.exists(p)]
    entries = read(paths)
    out = {"tuning": [], "heldout": []}
    for kind in sorted({e[0] for e in entries}):
        group = sorted((e for e in entries if e[0] == kind),
                       key=lambda e: hashlib.sha256(e[1].encode()).hexdigest())
        for i, e in enumerate(group):
            out["tuning" if i % 2 == 0 else "heldout"].append(e)
    for half, rows in out.items():
        with open(HALVES[half], "w", encoding="utf-8") as f:
            f.write(HEADER.format(half="tuning" if half == "tuning" else "held-out", rule=RULES[half]))
            for _kind, _pid, allow, line in rows:
                if allow:
                    f.write(allow + "\n")
                f.write(line + "\n")
        counts = {}
        for r in rows:
            counts[r[0]] = counts.get(r[0], 0) + 1
        print(half, len(rows), counts)


if __name__ == "__main__":
    main()
