#!/usr/bin/env python3
"""Token-count matrices of the whole corpus for full-scale measurement (evaluate_full.py).

Writes target/distill/full_counts.npz: two sparse posts x vocabulary count matrices, one
of each post's own text (body) and one of its topic title, over the model's vocabulary,
plus the post IDs, topic IDs and opening-post flags in the order of posts.pkl."""
import argparse, pickle, time
import numpy as np
import scipy.sparse as sp
from common import OUT, tokenize, log
import modelfile


def counts(texts, vi):
    indptr, cols = [0], []
    for t in texts:
        cols.extend(c for c in (vi.get(w) for w in tokenize(t)) if c is not None)
        indptr.append(len(cols))
    data = np.ones(len(cols), np.float32)
    m = sp.csr_matrix((data, np.array(cols, np.int32), np.array(indptr, np.int64)),
                      shape=(len(texts), len(vi)))
    m.sum_duplicates()
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    a = ap.parse_args()
    words, _, _ = modelfile.read(a.model)
    vi = {w: k for k, w in enumerate(words)}
    d = pickle.load(open(f"{OUT}/posts.pkl", "rb"))
    t0 = time.time()
    body = counts(d["text"], vi)
    log("body", body.shape, body.nnz, round(time.time() - t0), "s")
    tids = np.array(d["topic_id"], np.int64)
    topics = sorted(set(d["topic_id"]))
    tindex = {t: i for i, t in enumerate(topics)}
    ttitle = counts([d["topic_title"].get(t, "") for t in topics], vi)
    rows = np.array([tindex[t] for t in d["topic_id"]], np.int64)
    title = ttitle[rows]
    log("title", title.shape, title.nnz, round(time.time() - t0), "s")
    np.savez(f"{OUT}/full_counts.npz", post_id=np.array(d["post_id"], np.int64), topic_id=tids,
             is_op=np.array(d["is_op"], bool),
             body_data=body.data, body_indices=body.indices, body_indptr=body.indptr,
             title_data=title.data, title_indices=title.indices, title_indptr=title.indptr,
             shape=np.array(body.shape))


if __name__ == "__main__":
    main()
