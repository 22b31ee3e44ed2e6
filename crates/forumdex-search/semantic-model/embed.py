#!/usr/bin/env python3
"""Reference embedder for the FDXSEM1 model file (what the Rust side must reproduce).

  embed.py MODEL "text" ...     prints tokens, known-token count and the first 8 dims
  embed.py MODEL --bench N      end-to-end posts/CPU-second (tokenize + embed) on N pool posts
"""
import pickle, sys, time
import numpy as np
from common import OUT, tokenize, doc_text
import modelfile


class Model:
    def __init__(self, path):
        self.words, self.M, self.center = modelfile.read(path)
        self.vi = {w: k for k, w in enumerate(self.words)}

    def embed(self, text):
        rows = [self.vi[w] for w in tokenize(text) if w in self.vi]
        s = self.M[rows].sum(0) if rows else np.zeros(self.M.shape[1], np.float32)
        n = np.linalg.norm(s)
        if n == 0:
            return s, 0
        e = s / n
        if self.center is not None:
            e = e - self.center; e /= np.linalg.norm(e)
        return e, len(rows)


def main():
    m = Model(sys.argv[1])
    if sys.argv[2] == "--bench":
        n = int(sys.argv[3])
        d = pickle.load(open(f"{OUT}/posts.pkl", "rb"))
        P = pickle.load(open(f"{OUT}/pool.pkl", "rb"))
        idx = {p: i for i, p in enumerate(d["post_id"])}
        texts = []
        for p in P["pool"][:n]:
            i = idx[p]
            texts.append(doc_text(d["text"][i], True, d["topic_title"].get(d["topic_id"][i], "")))
        del d
        t0 = time.process_time()
        for t in texts:
            m.embed(t)
        cpu = time.process_time() - t0
        print(f"{n} posts end to end (tokenize + embed, one by one) in {cpu:.1f} CPU s: {n / cpu:.0f} posts/CPU-s")
        return
    for t in sys.argv[2:]:
        e, k = m.embed(t)
        print(repr(t), tokenize(t), "known", k, "vec[:8]", np.round(e[:8], 4).tolist())


if __name__ == "__main__":
    main()
