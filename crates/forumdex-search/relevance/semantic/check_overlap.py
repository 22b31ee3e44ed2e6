#!/usr/bin/env python3
"""Checks the "other words" rule of the semantic query sets.

Usage:
  check_overlap.py [CORPUS] [--sets FILE ...] [--texts DUMP] [--quiet]

For every query of the sets (default: other-words.tuning.tsv and other-words.heldout.tsv
next to this script) it finds the canonical text of each expected post in the corpus
(corpus-format.md: latest observed_at, ties to the smallest SHA-256 of the line; the
subject counts too for opening posts, as the search indexes it only for them) and prints
the content words the query shares with the post. It exits with status 1 when a query
shares more than MAX_SHARED (2) content words with any of its expected posts, or when a
line is malformed (not 4 columns, lang not "-", kind not question/description, an
expected post missing or deleted, a post expected by two queries).

Content words: lowercase letters/digits runs, minus the stop words below; two words are
the same when any of their light-stemmed variants meet (s/es/ies/ed/ing/'s stripped, a
final e and a doubled final consonant dropped), which errs on the strict side.

Names are exempt: the project's or coin's name does not count. Generic names are in
ALWAYS_ALLOWED below; per-query names go on a comment line directly above the query,
`#allow: name1,name2` (the evaluator reads only 3 or 4 columns, so no fifth column).
Exempt names are still printed, in brackets.

--texts DUMP reads the posts from a dump written by `sample_posts.py --dump` instead of
the corpus (quicker while editing); the committed result must come from the corpus.
"""
import argparse
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sample_posts import DEFAULT_CORPUS, observed_ms, open_corpus, plain_text  # noqa: E402

MAX_SHARED = 2
KINDS = {"question", "description"}
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SETS = [os.path.join(HERE, f) for f in ("other-words.tuning.tsv", "other-words.heldout.tsv")]

STOP_WORDS = set("""
a about above after again against all am an and any are aren as at be because been before
being below between both but by can cannot could couldn did didn do does doesn doing don
down during each few for from further had hadn has hasn have haven having he her here hers
herself him himself his how i if in into is isn it its itself just let me more most my
myself no nor not now of off on once only or other our ours ourselves out over own same
she should so some such than that the their theirs them themselves then there these they
this those through to too under until up very was wasn we were weren what when where which
while who whom why will with won would wouldn you your yours yourself yourselves s t ll re
ve d m get got getting also still yet ever anyone someone something anything one any
thing things way really much many can't cant dont doesnt didnt isnt im ive gets
without within via per like onto upon whether every else may might must shall
""".split())

ALWAYS_ALLOWED = {"bitcoin", "btc", "ethereum", "eth", "bitcointalk"}

TOKEN = re.compile(r"[a-z0-9]+")


def variants(word):
    """Light stems of a word: any shared variant makes two words the same."""
    out = {word}
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            if suffix == "s" and word.endswith("ss"):
                continue
            out.add(word[: len(word) - len(suffix)] + repl)
    for w in list(out):
        if len(w) >= 3 and w.endswith("e"):
            out.add(w[:-1])
        if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
            out.add(w[:-1])
    return out


def content_words(text):
    words = TOKEN.findall(text.lower().replace("’", "'").replace("'s ", " "))
    return [w for w in words if w not in STOP_WORDS]


def shared_words(query, post_text, allowed):
    post_variants = set()
    for w in content_words(post_text):
        post_variants |= variants(w)
    shared, exempt = [], []
    for w in dict.fromkeys(content_words(query)):
        if variants(w) & post_variants:
            (exempt if w in allowed else shared).append(w)
    return shared, exempt


def read_sets(paths):
    """[(file, line number, query, lang, ids, kind, allowed names)] and format errors."""
    queries, errors = [], []
    for path in paths:
        allow = set()
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\n")
                at = f"{os.path.basename(path)}:{number}"
                if line.startswith("#allow:"):
                    allow = {w.strip().lower() for w in line[len("#allow:"):].split(",") if w.strip()}
                    continue
                if not line.strip() or line.startswith("#"):
                    continue
                cols = line.split("\t")
                if len(cols) != 4:
                    errors.append(f"{at}: {len(cols)} columns, expected 4")
                    allow = set()
                    continue
                query, lang, ids, kind = cols
                if lang != "-":
                    errors.append(f"{at}: lang {lang!r}, expected '-'")
                if kind not in KINDS:
                    errors.append(f"{at}: kind {kind!r}")
                try:
                    ids = [int(x) for x in ids.split(",")]
                except ValueError:
                    errors.append(f"{at}: bad post ids {ids!r}")
                    ids = []
                queries.append((at, query, lang, ids, kind, allow | ALWAYS_ALLOWED))
                allow = set()
    return queries, errors


def posts_from_corpus(path, wanted):
    """post_id -> (text, title counted or "") of the canonical observations of `wanted`."""
    best, first_of_topic = {}, {}
    with open_corpus(path) as f:
        for raw in f:
            line = raw.rstrip(b"\n").rstrip(b"\r")
            if b'"post"' not in line:
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("kind") != "post":
                continue
            pid, topic = r["post_id"], r["topic_id"]
            if pid < first_of_topic.get(topic, pid + 1):
                first_of_topic[topic] = pid
            if pid not in wanted:
                continue
            at = observed_ms(r["observed_at"])
            sha = hashlib.sha256(line).hexdigest()
            old = best.get(pid)
            if old is None or at > old[0] or (at == old[0] and sha < old[1]):
                best[pid] = (at, sha, r)
    out = {}
    for pid, (_, _, r) in best.items():
        if r.get("deleted"):
            continue
        is_op = r.get("is_op")
        if is_op is None:
            is_op = first_of_topic.get(r["topic_id"]) == pid
        out[pid] = (plain_text(r.get("content_html", "")), r.get("title", "") if is_op else "")
    return out


def posts_from_dump(path, wanted):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            pid, _topic, is_op, title, text = line.rstrip("\n").split("\t", 4)
            if int(pid) in wanted:
                out[int(pid)] = (text, title if is_op == "1" else "")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default=DEFAULT_CORPUS)
    ap.add_argument("--sets", nargs="+", default=DEFAULT_SETS)
    ap.add_argument("--texts")
    ap.add_argument("--quiet", action="store_true", help="print only failing queries")
    args = ap.parse_args()

    queries, errors = read_sets(args.sets)
    wanted = {pid for q in queries for pid in q[3]}
    posts = posts_from_dump(args.texts, wanted) if args.texts else posts_from_corpus(args.corpus, wanted)

    seen = {}
    failing = 0
    counts = {}
    for at, query, _lang, ids, kind, allowed in queries:
        counts[(os.path.basename(at.split(":")[0]), kind)] = counts.get((os.path.basename(at.split(":")[0]), kind), 0) + 1
        worst = []
        report = []
        for pid in ids:
            if pid in seen:
                errors.append(f"{at}: post {pid} already expected at {seen[pid]}")
            seen[pid] = at
            if pid not in posts:
                errors.append(f"{at}: post {pid} not found (or deleted) in the corpus")
                continue
            text, title = posts[pid]
            shared, exempt = shared_words(query, title + "\n" + text, allowed)
            report.append(f"{pid}: {', '.join(shared) or '-'}" + (f" [{', '.join(exempt)}]" if exempt else ""))
            if len(shared) > len(worst):
                worst = shared
        bad = len(worst) > MAX_SHARED
        failing += bad
        if bad or not args.quiet:
            print(f"{'FAIL' if bad else 'ok  '} {at} {kind}: {query!r} -> {'; '.join(report)}")

    for e in errors:
        print("ERROR", e)
    print("\ncounts:", ", ".join(f"{f} {k} {n}" for (f, k), n in sorted(counts.items())))
    print(f"{len(queries)} queries, {failing} share more than {MAX_SHARED} content words, {len(errors)} errors")
    sys.exit(1 if failing or errors else 0)


if __name__ == "__main__":
    main()
