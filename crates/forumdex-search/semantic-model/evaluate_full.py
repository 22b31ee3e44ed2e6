#!/usr/bin/env python3
"""The semantic leg alone over the whole corpus (every live post of posts.pkl, the scale the
service searches), exact cosine, for document-side variants of the static model.

  evaluate_full.py --model M [--sets other-words.tuning,crosslang.tuning]
                   [--title-weight 1.0] [--center] [--diagnose]

--title-weight: weight of the topic title's words in a reply's vector (opening posts always
weigh 1, as the title is part of their text); 1 is the service's rule (title-all).
--center: subtract the mean post vector from post and query vectors, then renormalise.
--diagnose: per query, the expected post's rank and how many posts above it are of its topic.
Metrics: MRR@10 and recall@10 per set and kind."""
import argparse, collections
import numpy as np
import scipy.sparse as sp
from common import OUT, tokenize, read_sets, log
import modelfile


def load():
    z = np.load(f"{OUT}/full_counts.npz")
    shape = tuple(z["shape"])
    body = sp.csr_matrix((z["body_data"], z["body_indices"], z["body_indptr"]), shape=shape)
    title = sp.csr_matrix((z["title_data"], z["title_indices"], z["title_indptr"]), shape=shape)
    return z["post_id"], z["topic_id"], z["is_op"], body, title


def unit(S):
    S /= np.linalg.norm(S, axis=1, keepdims=True) + 1e-9
    return S


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--sets", default="other-words.tuning,crosslang.tuning")
    ap.add_argument("--title-weight", type=float, default=1.0)
    ap.add_argument("--center", action="store_true")
    ap.add_argument("--diagnose", action="store_true")
    ap.add_argument("--min-words", type=int, default=0,
                    help="posts with fewer known words of their own text are left out")
    a = ap.parse_args()
    words, M, _ = modelfile.read(a.model)
    vi = {w: k for k, w in enumerate(words)}
    ids, tids, ops, body, title = load()
    tw = np.where(ops, 1.0, a.title_weight).astype(np.float32)
    X = body + sp.diags(tw) @ title
    D = unit(np.asarray(X @ M, dtype=np.float32))
    log("embedded", D.shape)
    qs = read_sets(a.sets.split(","))
    rows, cols = [], []
    for r, (_, q, _, _) in enumerate(qs):
        for w in tokenize(q):
            c = vi.get(w)
            if c is not None:
                rows.append(r); cols.append(c)
    Q = unit(np.asarray(sp.csr_matrix((np.ones(len(rows), np.float32), (rows, cols)),
                                      shape=(len(qs), len(words))) @ M, dtype=np.float32))
    if a.center:
        c = D.mean(axis=0)
        D = unit(D - c); Q = unit(Q - c)
    if a.min_words:
        short = np.asarray(body.sum(axis=1)).ravel() < a.min_words
        D[short] = 0.0
        log("left out", int(short.sum()), "short posts")
    pos = {int(p): i for i, p in enumerate(ids)}
    groups = collections.defaultdict(list)
    for b in range(0, len(qs), 32):
        S = Q[b:b + 32] @ D.T
        for j in range(S.shape[0]):
            s, q, exp, kind = qs[b + j]
            e = pos[exp[0]]
            score = S[j, e]
            above = np.flatnonzero(S[j] > score)
            rank = len(above) + 1
            rr = 1.0 / rank if rank <= 10 else 0.0
            groups[(s, kind)].append((rr, rank <= 10)); groups[(s, "all")].append((rr, rank <= 10))
            if a.diagnose:
                same = int((tids[above] == tids[e]).sum())
                print(f"{s}\t{kind}\trank {rank}\tsame-topic above {same}\top {bool(ops[e])}\t{q}")
    print("| set | kind | n | MRR@10 | recall@10 |")
    print("|---|---|---|---|---|")
    for (s, k) in sorted(groups, key=lambda x: (x[0], x[1] == "all", x[1])):
        g = groups[(s, k)]
        print(f"| {s} | {k} | {len(g)} | {np.mean([x[0] for x in g]):.3f} | {np.mean([x[1] for x in g]):.3f} |")


if __name__ == "__main__":
    main()
