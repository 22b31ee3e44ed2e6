#!/usr/bin/env python3
"""Candidate posts for the cross-language known-item set (crosslang.*.tsv), deterministic.

Streams a corpus file once (corpus format v1) and:

1. keeps the canonical observation of every post: the one with the latest observed_at,
   ties to the smallest SHA-256 (hex) of the line as read (without its newline);
   deleted canonical posts are skipped;
2. guesses each canonical post's language from its text with a crude rule of this script
   (script of the letters for Cyrillic, Greek, CJK, Hangul, Thai, Arabic; counts of common
   function words for Latin-script languages), since the corpus carries no `language`
   field. The guess only sorts candidates into strata; every pick is read by a person;
3. keeps substantive posts: at least 40 words of plain text (HTML tags and links dropped) whose
   normalised text occurs in no other canonical post (no copies, so the known item is
   one post);
4. orders each language stratum by SHA-256 of "<seed>:<post_id>" and writes the first
   --per-lang of each (at most one per topic) with their text to --out (a scratch file
   outside the repository: post texts are not copied into it).

A person then reads the candidates in that order and takes a post when it states
something specific (a fact, a number, a date, a concrete claim or question); see
crosslang.md for the rest of the procedure.

It also prints corpus statistics (posts per board and per guessed language) to stdout.

Usage: crosslang_sample.py CORPUS.jsonl.gz --seed 37 --per-lang 80 --out /tmp/crosslang_candidates.txt
"""
import argparse
import gzip
import hashlib
import html
import json
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime

MIN_WORDS = 40

FUNCTION_WORDS = {
    "en": "the and is are to of this that will with for you it not have be was they what".split(),
    "id": "yang dan ini itu tidak untuk dengan saya ada akan bisa sudah juga dari kita karena".split(),
    "pl": "nie jest się że jak ale czy tak już dla jestem może tylko bardzo który przez".split(),
    "de": "und der die das ist nicht ich ein eine mit auch sich wir zu auf noch".split(),
    "pt": "não que para uma os um é mais muito mas como isso está você também".split(),
    "es": "que el los las es para con una por pero muy está esto del".split(),
    "fr": "le les est et pas pour une des que dans sur nous vous avec".split(),
    "it": "il di che è per non una sono della questo anche".split(),
    "tl": "ang ng mga sa ko ako lang po yung naman kung hindi".split(),
    "tr": "ve bir bu için çok ile değil ama gibi daha".split(),
    "vi": "của và là các không được có này cho những".split(),
    "nl": "het een van en niet dat ook maar zijn voor".split(),
}
WORD_LANGS = defaultdict(list)
for _lang, _words in FUNCTION_WORDS.items():
    for _w in _words:
        WORD_LANGS[_w].append(_lang)

TAG = re.compile(r"<[^>]+>")
URL = re.compile(r"(?:https?://|www\.)\S+|\S+\.(?:com|io|org|net)\S*", re.IGNORECASE)
WORD = re.compile(r"[^\W_]+", re.UNICODE)
SCRIPTS = [
    ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
    ("ja", re.compile(r"[\u3040-\u30ff]")),
    ("ko", re.compile(r"[\uac00-\ud7af]")),
    ("zh", re.compile(r"[\u4e00-\u9fff]")),
    ("th", re.compile(r"[\u0e00-\u0e7f]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")),
]
UKRAINIAN = re.compile(r"[іїєґІЇЄҐ]")


def plain_text(content_html):
    text = TAG.sub(" ", content_html.replace("<br />", "\n").replace("<br>", "\n"))
    return html.unescape(text)


def guess_language(text):
    letters = sum(1 for c in text if c.isalpha())
    if letters == 0:
        return "und"
    for lang, pattern in SCRIPTS:
        n = len(pattern.findall(text))
        if n >= 0.3 * letters:
            if lang == "ru" and len(UKRAINIAN.findall(text)) >= 3:
                return "uk"
            if lang == "zh" and len(SCRIPTS[2][1].findall(text)) > 0:
                return "ja"
            return lang
    counts = Counter()
    for w in WORD.findall(text.lower()):
        for lang in WORD_LANGS.get(w, ()):
            counts[lang] += 1
    if not counts:
        return "und"
    (best, n1), *rest = counts.most_common(2) + [(None, 0)]
    n2 = rest[0][1]
    if n1 >= 3 and n1 >= 1.5 * n2:
        return best
    return "und"


def observed_key(value):
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--per-lang", type=int, default=80)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    boards = {}
    topics = {}
    best = {}  # post_id -> (-observed, sha, record summary)
    with gzip.open(args.corpus, "rb") as f:
        for raw in f:
            line = raw.rstrip(b"\n")
            if not line.strip():
                continue
            rec = json.loads(line)
            kind = rec.get("kind")
            if kind == "board":
                boards[rec["board_id"]] = rec["name"]
                continue
            if kind == "topic":
                topics[rec["topic_id"]] = (rec.get("board_id"), rec.get("title", ""))
                continue
            if kind != "post":
                continue
            sha = hashlib.sha256(line).hexdigest()
            key = (-observed_key(rec["observed_at"]), sha)
            pid = rec["post_id"]
            old = best.get(pid)
            if old is not None and old[0] <= key:
                continue
            if rec.get("deleted"):
                best[pid] = (key, None)
                continue
            text = plain_text(rec.get("content_html") or "")
            prose = URL.sub(" ", text)  # links are neither words nor language
            words = len(WORD.findall(prose))
            lang = rec.get("language") or guess_language(prose[:2000])
            summary = (
                rec["topic_id"],
                rec.get("board_id"),
                lang,
                words,
                text if words >= MIN_WORDS else None,
                rec.get("posted_at"),
                rec.get("title", ""),
            )
            best[pid] = (key, summary)

    # Statistics over canonical, non-deleted posts.
    by_board = Counter()
    by_lang = Counter()
    by_board_lang = Counter()
    deleted = 0
    norm_count = Counter()
    for pid, (_, s) in best.items():
        if s is None:
            deleted += 1
            continue
        board = s[1] if s[1] is not None else topics.get(s[0], (None, ""))[0]
        by_board[board] += 1
        by_lang[s[2]] += 1
        by_board_lang[(board, s[2])] += 1
        if s[4] is not None:
            norm_count[hashlib.sha1(" ".join(WORD.findall(s[4].lower())).encode()).digest()] += 1
    print(f"canonical posts: {len(best)}, deleted: {deleted}")
    print("posts per board:")
    for b, n in by_board.most_common():
        print(f"  {b}\t{boards.get(b, '')}\t{n}")
    print("posts per guessed language (this script's crude guess):")
    for l, n in by_lang.most_common():
        print(f"  {l}\t{n}")
    print("guessed language per board (top 40 pairs):")
    for (b, l), n in by_board_lang.most_common(40):
        print(f"  {b}\t{boards.get(b, '')}\t{l}\t{n}")

    strata = defaultdict(list)
    for pid, (_, s) in best.items():
        if s is None or s[4] is None:
            continue
        if norm_count[hashlib.sha1(" ".join(WORD.findall(s[4].lower())).encode()).digest()] > 1:
            continue
        order = hashlib.sha256(f"{args.seed}:{pid}".encode()).hexdigest()
        strata[s[2]].append((order, pid, s))
    print("substantive unique posts per guessed language:")
    for l in sorted(strata, key=lambda l: -len(strata[l])):
        print(f"  {l}\t{len(strata[l])}")

    with open(args.out, "w", encoding="utf-8") as out:
        for lang in sorted(strata):
            seen_topics = set()
            rank = 0
            for order, pid, s in sorted(strata[lang]):
                if rank >= args.per_lang:
                    break
                if s[0] in seen_topics:
                    continue
                seen_topics.add(s[0])
                rank += 1
                topic_title = topics.get(s[0], (None, s[6]))[1]
                text = re.sub(r"\s+", " ", s[4]).strip()
                out.write(
                    f"=== {lang} #{rank} post {pid} topic {s[0]} board {s[1]} "
                    f"posted {s[5]} words {s[3]}\n--- topic: {topic_title}\n{text[:1500]}\n\n"
                )


if __name__ == "__main__":
    sys.exit(main())
