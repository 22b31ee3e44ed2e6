#!/usr/bin/env python3
"""Build the static model from the teacher's word vectors (and optionally refine it on
teacher passage vectors of the training sample).  See README.md for the recipe.

  distill.py --out target/distill/model.bin [--n-vocab 60000] [--dim 256]
             [--weight sif|idf|none] [--sif-a 1e-4] [--refine none|vectors] [--lam 1.0]
             [--center]
"""
import argparse, glob, os, pickle, time
import numpy as np
import scipy.sparse as sp
from common import OUT, tokenize, doc_text, log, CYR_RE
import modelfile


def load_words(n):
    words = open(f"{OUT}/vocab_queue.txt").read().split("\n")
    chunks = sorted(glob.glob(f"{OUT}/words/*.npy"))
    chunks = [c for c in chunks if not c.endswith(".tmp.npy")]
    vecs = np.concatenate([np.load(c).astype(np.float32) for c in chunks])
    n = min(n, len(vecs))
    return words[:n], vecs[:n]


def load_passages(which):
    ids, vecs = [], []
    for c in sorted(glob.glob(f"{OUT}/passages/{which}-*.npz")):
        if ".tmp." in c:
            continue
        z = np.load(c)
        ids.extend(z["ids"].tolist()); vecs.append(z["vecs"].astype(np.float32))
    return ids, (np.concatenate(vecs) if vecs else np.zeros((0, 384), np.float32))


def weights(words, kind, a):
    dfz = pickle.load(open(f"{OUT}/df.pkl", "rb"))
    df, n = dfz["df"], dfz["n"]
    d = np.array([df.get(w, 1) for w in words], dtype=np.float64)
    if kind == "sif":
        p = d / d.sum()
        return (a / (a + p)).astype(np.float32)
    if kind == "idf":
        return np.log(n / d).astype(np.float32)
    return np.ones(len(words), np.float32)


def bow(texts, vocab_index):
    """Sparse count matrix (texts x vocab) of in-vocabulary tokens."""
    rows, cols = [], []
    for r, t in enumerate(texts):
        for w in tokenize(t):
            c = vocab_index.get(w)
            if c is not None:
                rows.append(r); cols.append(c)
    data = np.ones(len(rows), np.float32)
    return sp.csr_matrix((data, (rows, cols)), shape=(len(texts), len(vocab_index)))


def refine_vectors(E0, X, T, lam, iters=60, lr=None):
    """Fit E (V x D) so that row-normalised (X @ E) approximates T (rows unit), with an L2
    pull toward E0: minimise sum_i |X_i E/|X_i E| - T_i|^2 + lam |E - E0|^2 by gradient
    descent (Adam).  Words absent from the sample keep E0."""
    E = E0.copy()
    m = np.zeros_like(E); v = np.zeros_like(E)
    lr = lr or 0.01 * float(np.abs(E0).mean())
    Xt = X.T.tocsr()
    for it in range(1, iters + 1):
        S = X @ E
        nrm = np.linalg.norm(S, axis=1, keepdims=True) + 1e-9
        U = S / nrm
        R = U - T
        loss = float((R * R).sum(1).mean())
        # d|U-T|^2/dS = 2 (R - U (U.R)) / |S|
        G = 2 * (R - U * (U * R).sum(1, keepdims=True)) / nrm
        g = (Xt @ G) / X.shape[0] + 2 * lam * (E - E0) / X.shape[0]
        m = 0.9 * m + 0.1 * g; v = 0.999 * v + 0.001 * g * g
        E -= lr * (m / (1 - 0.9 ** it)) / (np.sqrt(v / (1 - 0.999 ** it)) + 1e-12)
        if it % 10 == 0 or it == 1:
            log(f"  refine it {it} loss {loss:.4f}")
    return E


def build(args):
    words, V = load_words(args.n_vocab)
    w = weights(words, args.weight, args.sif_a) ** args.weight_power
    log(f"vocab {len(words)} words, teacher dim {V.shape[1]}")
    E = V
    if args.lang_shift:
        # move the Cyrillic words' centroid onto the other words' centroid (language
        # identity is the strongest direction in the word vectors; cross-language needs it gone)
        cyr = np.array([bool(CYR_RE.search(x)) for x in words])
        if cyr.any():
            E = E.copy()
            E[cyr] += args.lang_shift * (E[~cyr].mean(0) - E[cyr].mean(0))
            # optionally project out the k directions that best separate the two scripts
            # (leading singular vectors of the class-mean-removed cross-covariance)
            for _ in range(args.lang_dirs):
                a, b = E[cyr], E[~cyr]
                # direction of largest variance difference between the scripts' spreads
                Ca = np.cov(a[:5000].T); Cb = np.cov(b[:20000].T)
                ev, evec = np.linalg.eigh(Ca - Cb)
                dvec = evec[:, np.argmax(np.abs(ev))]
                E -= np.outer(E @ dvec, dvec)
            V = E
    if args.abtt:
        # "all-but-the-top": remove the k dominant directions of the (centred) word vectors
        C = E[:30000] - E[:30000].mean(0)
        _, _, Vt = np.linalg.svd(C, full_matrices=False)
        Uk = Vt[: args.abtt].T
        E = E - (E @ Uk) @ Uk.T
        V = E
    if args.refine == "vectors":
        d = pickle.load(open(f"{OUT}/posts.pkl", "rb"))
        idx = {p: i for i, p in enumerate(d["post_id"])}
        ids, T = load_passages("train")
        ids, T = ids[:args.n_train], T[:args.n_train]
        ids_ru, T_ru = load_passages("train_ru")
        ids, T = ids + ids_ru, np.concatenate([T, T_ru])
        texts = []
        for p in ids:
            i = idx[p]
            texts.append(doc_text(d["text"][i], d["is_op"][i],
                                  d["topic_title"].get(d["topic_id"][i], ""))[:args.train_chars])
        del d
        vi = {x: k for k, x in enumerate(words)}
        X = bow(texts, vi)
        X = X @ sp.diags(w)
        keep = np.asarray(X.sum(1)).ravel() > 0
        X, T = X[keep], T[keep]
        T = T / np.linalg.norm(T, axis=1, keepdims=True)
        log(f"refining on {X.shape[0]} posts")
        E = refine_vectors(V, X.tocsr(), T, args.lam, iters=args.iters, lr=args.lr or None)
    # PCA (on the words' vectors, unweighted), then fold the weights in
    mu = E.mean(0)
    C = E - mu
    U, S, Vt = np.linalg.svd(C[: min(len(C), 30000)], full_matrices=False)
    P = Vt[: args.dim].T
    Z = (E - mu) @ P if args.pca_center else E @ P
    M = Z * w[:, None]
    center = None
    if args.center:
        # the mean direction of normalised word vectors, weighted by document frequency
        dfz = pickle.load(open(f"{OUT}/df.pkl", "rb"))["df"]
        f = np.array([dfz.get(x, 1) for x in words], np.float64)
        Zn = Z / (np.linalg.norm(Z, axis=1, keepdims=True) + 1e-9)
        center = (Zn * f[:, None]).sum(0) / f.sum()
        center = center.astype(np.float32)
    modelfile.write(args.out, words, M, center)
    log(f"wrote {args.out}: {os.path.getsize(args.out) / 1e6:.1f} MB, dim {args.dim}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=f"{OUT}/model.bin")
    ap.add_argument("--n-vocab", type=int, default=60000)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--weight", default="sif")
    ap.add_argument("--sif-a", type=float, default=1e-4)
    ap.add_argument("--refine", default="none")
    ap.add_argument("--lam", type=float, default=1.0)
    ap.add_argument("--iters", type=int, default=60)
    ap.add_argument("--lr", type=float, default=0.0)
    ap.add_argument("--n-train", type=int, default=100000)
    ap.add_argument("--train-chars", type=int, default=800)
    ap.add_argument("--pca-center", action="store_true", default=True)
    ap.add_argument("--no-pca-center", dest="pca_center", action="store_false")
    ap.add_argument("--center", action="store_true")
    ap.add_argument("--lang-shift", type=float, default=0.0)
    ap.add_argument("--weight-power", type=float, default=1.0)
    ap.add_argument("--lang-dirs", type=int, default=0)
    ap.add_argument("--abtt", type=int, default=0)
    build(ap.parse_args())


if __name__ == "__main__":
    main()
