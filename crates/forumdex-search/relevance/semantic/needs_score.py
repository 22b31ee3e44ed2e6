#!/usr/bin/env python3
"""nDCG@10 and P@10 of run files (needs_pool.py) from needs.judgments.tsv, per half, as
needs.md defines them: every need, then the needs that name a project (N01-N44) and the
generic ones (N45-N56) apart (the ideal DCG sorts every judged post of the need, whatever
variant brought it). "P@10 reachable" is the P@10 of a perfect ranking of the posts judged
so far: what the judged pool allows, not a bound on what the corpus holds.

    needs_score.py target/needs/lexical.tsv target/needs/hybrid.tsv
"""
import json
import math
import os
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


def halves():
    out = {}
    for half in ("tuning", "heldout"):
        with open(os.path.join(HERE, f"needs.{half}.jsonl"), encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    out[json.loads(line)["id"]] = half
    return out


def generic_needs():
    """The IDs of the needs that name no project (N45-N56)."""
    out = set()
    for half in ("tuning", "heldout"):
        with open(os.path.join(HERE, f"needs.{half}.jsonl"), encoding="utf-8") as f:
            out.update(need["id"] for need in map(json.loads, filter(str.strip, f))
                       if need.get("generic"))
    return out


def judgments():
    grades = defaultdict(dict)
    with open(os.path.join(HERE, "needs.judgments.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or line.startswith("need_id") or not line.strip():
                continue
            need, post, grade, _variant = line.rstrip("\n").split("\t")
            grades[need][int(post)] = int(grade)
    return grades


def run_of(path):
    ranked = defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or line.startswith("need_id") or not line.strip():
                continue
            need, rank, post, _hybrid = line.rstrip("\n").split("\t")
            ranked[need].append((int(rank), int(post)))
    return {need: [p for _, p in sorted(posts)] for need, posts in ranked.items()}


def dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains[:10]))


def main():
    half_of, grades, generic = halves(), judgments(), generic_needs()
    groups = (("", lambda need: True),
              ("named", lambda need: need not in generic),
              ("generic", lambda need: need in generic))
    for path in sys.argv[1:]:
        run = run_of(path)
        for (group, belongs), half in ((g, h) for g in groups for h in ("tuning", "heldout")):
            ndcgs, precisions, answered, unjudged, no_ideal = [], [], 0, 0, 0
            reachable = []
            for need in (n for n, h in half_of.items() if h == half and belongs(n)):
                posts = run.get(need, [])[:10]
                judged = grades.get(need, {})
                unjudged += sum(1 for p in posts if p not in judged)
                gains = [judged.get(p, 0) for p in posts]
                precisions.append(sum(1 for g in gains if g >= 1) / 10)
                answered += any(g == 2 for g in gains)
                reachable.append(min(10, sum(1 for g in judged.values() if g >= 1)) / 10)
                ideal = dcg(sorted(judged.values(), reverse=True))
                if ideal == 0:
                    no_ideal += 1
                    continue
                ndcgs.append(dcg(gains) / ideal)
            count = len(precisions)
            print(f"{os.path.basename(path)}\t{group + ' ' if group else ''}{half}\tneeds {count}\t"
                  f"nDCG@10 {sum(ndcgs) / max(len(ndcgs), 1):.3f} (of {len(ndcgs)}; "
                  f"{no_ideal} with nothing relevant)\tP@10 {sum(precisions) / max(count, 1):.3f}\t"
                  f"answered@10 {answered / max(count, 1):.3f}\tunjudged {unjudged}\t"
                  f"P@10 reachable {sum(reachable) / max(count, 1):.3f}")


if __name__ == "__main__":
    main()
