#!/usr/bin/env python3
"""Document frequencies of tokenizer words over all live posts (text; opening posts also
their topic title), and the vocabulary queue for the teacher: words with document frequency
>= MIN_DF, split into Cyrillic words (any char in U+0400..U+04FF) and the rest, each ranked
by DF and interleaved (1 Cyrillic per RATIO other words) so that a partial teacher pass
stays balanced between English and Russian.  Writes target/distill/df.pkl, vocab_queue.txt."""
import collections, pickle, re, sys, time
from common import OUT, tokenize, log, CYR_RE

MIN_DF = 3
RATIO = 3  # other words per Cyrillic word in the queue


def main():
    d = pickle.load(open(f"{OUT}/posts.pkl", "rb"))
    df = collections.Counter()
    t0 = time.time()
    tt = d["topic_title"]
    for i, (text, op, tid) in enumerate(zip(d["text"], d["is_op"], d["topic_id"])):
        s = text + ("\n" + tt.get(tid, "") if op else "")
        df.update(set(tokenize(s)))
        if i % 200000 == 0:
            log(i, round(time.time() - t0), "s", len(df))
    n = len(d["text"])
    pickle.dump({"df": dict(df), "n": n}, open(f"{OUT}/df.pkl", "wb"))
    cyr = [w for w, c in df.most_common() if c >= MIN_DF and CYR_RE.search(w)]
    oth = [w for w, c in df.most_common() if c >= MIN_DF and not CYR_RE.search(w)]
    log(f"{n} posts; words df>={MIN_DF}: {len(oth)} other, {len(cyr)} cyrillic")
    q, i, j = [], 0, 0
    while i < len(oth) or j < len(cyr):
        for _ in range(RATIO):
            if i < len(oth):
                q.append(oth[i]); i += 1
        if j < len(cyr):
            q.append(cyr[j]); j += 1
    with open(f"{OUT}/vocab_queue.txt", "w") as f:
        for w in q:
            f.write(w + "\n")


if __name__ == "__main__":
    main()
