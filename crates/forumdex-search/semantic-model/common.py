"""Shared pieces: paths, the tokenizer (the exact rule Rust must reproduce), I/O helpers."""
import os
import re
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
OUT = os.environ.get("DISTILL_OUT", os.path.join(ROOT, "target", "distill"))
CORPUS = os.environ.get("CORPUS", os.path.normpath(
    os.path.join(ROOT, "..", "shared", "data", "bitcointalk-1.4m.jsonl.gz")))
SETS = os.path.join(ROOT, "crates", "forumdex-search", "relevance", "semantic")
os.makedirs(OUT, exist_ok=True)

# ---------------------------------------------------------------------------------------
# Tokenizer (v1).  Rust must reproduce this exactly:
#  1. lowercase the whole text with Unicode full lowercase mapping
#     (Python str.lower() == Rust str::to_lowercase(), incl. final sigma);
#  2. a word is a maximal run of characters whose Unicode general category is a letter
#     (L*), a mark (M*) or a number (N*); everything else separates words (so "don't" ->
#     "don", "t"; "e-mail" -> "e", "mail"; "_" separates);
#  3. words longer than 40 characters are dropped;
#  4. Cyrillic look-alike folding: if a word contains at least one character in
#     U+0400..U+04FF and every Latin letter it contains is one of a c e o p x y k,
#     those Latin letters are replaced by а с е о р х у к (U+0430, U+0441, U+0435,
#     U+043E, U+0440, U+0445, U+0443, U+043A).  ("дoбpый" -> "добрый"; "iphoneа" is left.)
# Unicode tables are those of Python 3.11's unicodedata (Unicode 14.0).
# ---------------------------------------------------------------------------------------

def _word_class():
    ranges, start, prev = [], None, None
    for cp in range(0x110000):
        ok = unicodedata.category(chr(cp))[0] in "LMN"
        if ok and start is None:
            start = cp
        if not ok and start is not None:
            ranges.append((start, cp - 1)); start = None
    if start is not None:
        ranges.append((start, 0x10FFFF))
    parts = []
    for a, b in ranges:
        parts.append(re.escape(chr(a)) if a == b else re.escape(chr(a)) + "-" + re.escape(chr(b)))
    return re.compile("[" + "".join(parts) + "]+")

WORD_RE = _word_class()
CYR_RE = re.compile("[\u0400-\u04ff]")
LATIN_RE = re.compile("[a-z]")
FOLD = str.maketrans("aceopxyk", "асеорхук")
LOOKALIKE = set("aceopxyk")
MAX_WORD = 40


def tokenize(text):
    out = []
    for w in WORD_RE.findall(text.lower()):
        if len(w) > MAX_WORD:
            continue
        if CYR_RE.search(w):
            lat = LATIN_RE.findall(w)
            if lat and all(c in LOOKALIKE for c in lat):
                w = w.translate(FOLD)
        out.append(w)
    return out


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def read_sets(names=("other-words.tuning", "crosslang.tuning")):
    """[(set, query, expected ids, kind)] from the relevance TSVs (# lines are comments)."""
    out = []
    for name in names:
        for line in open(os.path.join(SETS, name + ".tsv"), encoding="utf-8"):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            q, lang, ids, kind = line.split("\t")
            out.append((name, q, [int(x) for x in ids.split(",")], kind))
    return out


ALL_SETS = ("other-words.tuning", "crosslang.tuning", "other-words.heldout", "crosslang.heldout")
TEACHER_CHARS = 800  # teacher input is capped (cost); the static model sees the whole text


def doc_text(text, op, title):
    """The document as indexed: opening posts get their topic title first."""
    return (title + "\n" + text) if op else text
