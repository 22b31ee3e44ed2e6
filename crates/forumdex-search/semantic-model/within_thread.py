#!/usr/bin/env python3
"""How well each scoring picks a known post among the posts of its own thread. The thread is
given (as when the query names it), so only the choice within it is measured.

  within_thread.py --model M [--sets other-words.tuning,crosslang.tuning]

Needs target/distill/full_counts.npz (full_matrix.py). Notation: d is a post's unit vector of
title + text, as the service embeds it; q is the query's; t is the unit vector of the thread's
title alone; q' is the query's vector without its naming words (a query word in the thread's
title and in at most 3 topics' titles, as the service's rule, without its share test).
Scorings:
- plain: q . d (the service's order within a named thread until rrf60-3);
- residual: the cosine of q and d once t is taken out of both,
  (q.d - (q.t)(d.t)) / sqrt(1 - (d.t)^2) (the query's own factor is the same for every post
  of the thread, so it is left out);
- body: the cosine of q and the post's own text alone (no title);
- centroid: as residual, with the thread's mean post vector in place of t;
- centred<a>: q . unit(d - a * the thread's mean post vector);
- names-out: q' . d (the service's rule from rrf60-3);
- names-out-residual, names-out-body: residual and body with q'.
- bm25-names-out: BM25 (k1 1.2, b 0.75, idf and average length over the corpus) of the
  post's own text for the query's words without its naming words (the lexical leg as a
  ranking within the thread; the model's vocabulary, no stemming);
- rrf-w<w>: reciprocal rank fusion within the thread, k = 60, of names-out (weight 2) and
  bm25-names-out (weight w).
- passage<W> (with --passages W,...): the best cosine of q' and a window of W known words of
  the post's own text (windows every W/2 words; a shorter post is one window), the thread's
  title not in it; passage<W>-mix<a>: a x passage<W> + (1 - a) x names-out;
  passage<W>-mix<a>-top<N>: that order among names-out's first N only (a re-rank).
Metrics: MRR@10 and recall@10 of the expected post's rank among its thread's posts."""
import argparse, collections
import numpy as np
from common import tokenize, read_sets
import modelfile
from evaluate_full import load, unit

MAX_NAMED_TOPICS = 3


def embed(words, M, vi):
    """The unit vector of `words` (each occurrence counts), or None when none is known."""
    counts = np.zeros(len(vi), np.float32)
    for w in words:
        if w in vi:
            counts[vi[w]] += 1
    if not counts.any():
        return None
    return unit((counts @ M)[None, :].astype(np.float32))[0]


def off_axis(D, q, axis):
    """The cosine of each row of D and q once `axis` is taken out of both, up to q's factor."""
    along = D @ axis
    return (D @ q - (q @ axis) * along) / np.sqrt(np.maximum(1 - along * along, 1e-6))


def bm25(counts, lengths, avg_length, idf, terms):
    """BM25 of each row of `counts` (posts x vocabulary) for the vocabulary columns `terms`."""
    score = np.zeros(counts.shape[0], np.float64)
    norm = 1.2 * (0.25 + 0.75 * lengths / avg_length)
    for c in set(terms):
        tf = np.asarray(counts[:, c].todense()).ravel()
        score += idf[c] * tf * 2.2 / (tf + norm)
    return score


def passage_best(text, width, M, vi, q):
    """The best cosine of `q` and a window of `width` known words of `text` (0 for none)."""
    cols = [vi[w] for w in tokenize(text) if w in vi]
    if not cols:
        return 0.0
    rows = np.asarray(M[cols], dtype=np.float32)
    if len(cols) <= width:
        sums = rows.sum(axis=0, keepdims=True)
    else:
        total = np.vstack([np.zeros((1, rows.shape[1]), np.float32), np.cumsum(rows, axis=0)])
        starts = list(range(0, len(cols) - width + 1, max(1, width // 2)))
        if starts[-1] != len(cols) - width:
            starts.append(len(cols) - width)
        starts = np.array(starts)
        sums = total[starts + width] - total[starts]
    return float((unit(sums) @ q).max())


def ranks(sc):
    """1-based rank of each entry of `sc`, best (highest) first."""
    order = np.argsort(-sc, kind="stable")
    r = np.empty(len(sc), np.int64)
    r[order] = np.arange(1, len(sc) + 1)
    return r


def scorings(D, B, t, q, q_names_out):
    mean = D.mean(axis=0)
    out = {
        "plain": D @ q,
        "residual": off_axis(D, q, t),
        "body": B @ q,
        "centroid": off_axis(D, q, unit(mean[None, :])[0]),
    }
    for a in (0.5, 0.8):
        out[f"centred{a}"] = unit(D - a * mean) @ q
    q2 = q if q_names_out is None else q_names_out
    out["names-out"] = D @ q2
    out["names-out-residual"] = off_axis(D, q2, t)
    out["names-out-body"] = B @ q2
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--sets", default="other-words.tuning,crosslang.tuning")
    ap.add_argument("--passages", default="", help="window sizes, e.g. 16,32")
    a = ap.parse_args()
    words, M, _ = modelfile.read(a.model)
    vi = {w: k for k, w in enumerate(words)}
    ids, tids, _, body, title = load()
    df = np.bincount(body.indices, minlength=body.shape[1]).astype(np.float64)
    idf = np.log(1 + (body.shape[0] - df + 0.5) / (df + 0.5))
    lengths_all = np.asarray(body.sum(axis=1)).ravel()
    avg_length = lengths_all.mean()
    pos = {int(p): i for i, p in enumerate(ids)}
    by_topic = collections.defaultdict(list)
    for i, t in enumerate(tids):
        by_topic[int(t)].append(i)
    first_posts = np.array(sorted(rows[0] for rows in by_topic.values()))
    titles_holding = np.asarray((title[first_posts] > 0).sum(axis=0)).ravel()
    windows = [int(w) for w in a.passages.split(",") if w]
    texts = None
    if windows:
        import pickle
        from common import OUT
        texts = pickle.load(open(f"{OUT}/posts.pkl", "rb"))["text"]
    groups = collections.defaultdict(list)
    for s, query, expected, _ in read_sets(a.sets.split(",")):
        e = pos[expected[0]]
        rows = np.array(by_topic[int(tids[e])])
        title_words = {words[c] for c in title[rows[0]].indices}
        tokens = tokenize(query)
        names_out = [w for w in tokens if not (
            w in title_words and titles_holding[vi[w]] <= MAX_NAMED_TOPICS)]
        D = unit(np.asarray((body[rows] + title[rows]) @ M, dtype=np.float32))
        B = unit(np.asarray(body[rows] @ M, dtype=np.float32))
        t = unit(np.asarray(title[rows[:1]] @ M, dtype=np.float32))[0]
        at = int(np.flatnonzero(rows == e)[0])
        all_scores = scorings(D, B, t, embed(tokens, M, vi), embed(names_out, M, vi))
        lexical = bm25(body[rows], lengths_all[rows], avg_length, idf,
                       [vi[w] for w in names_out if w in vi])
        all_scores["bm25-names-out"] = lexical
        semantic_rank, lexical_rank = ranks(all_scores["names-out"]), ranks(lexical)
        for w in (0.5, 1.0, 2.0):
            all_scores[f"rrf-w{w}"] = 2 / (60 + semantic_rank) + w / (60 + lexical_rank)
        q2 = embed(names_out, M, vi)
        if q2 is None:
            q2 = embed(tokens, M, vi)
        for width in windows:
            best = np.array([passage_best(texts[r], width, M, vi, q2) for r in rows])
            all_scores[f"passage{width}"] = best
            plain_rank = ranks(all_scores["names-out"])
            for mix in (0.3, 0.5, 0.7):
                mixed = mix * best + (1 - mix) * all_scores["names-out"]
                all_scores[f"passage{width}-mix{mix}"] = mixed
                for top in (20, 40):
                    all_scores[f"passage{width}-mix{mix}-top{top}"] = np.where(
                        plain_rank <= top, 10 + mixed, all_scores["names-out"] - 10)
        for name, sc in all_scores.items():
            rank = int((sc > sc[at]).sum()) + 1
            groups[(s, name)].append((1.0 / rank if rank <= 10 else 0.0, rank <= 10))
    print("| set | scoring | n | MRR@10 within the thread | recall@10 |")
    print("|---|---|---|---|---|")
    for (s, name), g in sorted(groups.items()):
        print(f"| {s} | {name} | {len(g)} | {np.mean([x[0] for x in g]):.3f} "
              f"| {np.mean([x[1] for x in g]):.3f} |")


if __name__ == "__main__":
    main()
