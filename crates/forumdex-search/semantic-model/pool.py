#!/usr/bin/env python3
"""Fixed retrieval pool and distillation sample (seed 37), written to target/distill/pool.pkl:
- pool: every expected post of the four semantic query files (both halves) plus 50,000
  other live posts drawn with random.Random(37) from the sorted post ids;
- teacher_pool: the expected posts plus the first 2,000 of those random posts (the
  teacher costs ~5-13 posts per CPU-second, so it is measured on this smaller pool);
- train: 6,000 posts for distillation, drawn with random.Random(38) among live posts
  outside the pool with at least 8 tokenizer words (no expected post is ever trained on);
- train_ru: 600 more posts outside the pool and train, at least half of their letters
  Cyrillic, drawn with random.Random(39)."""
import pickle, random
from common import OUT, read_sets, ALL_SETS, tokenize, log

N_POOL, N_TEACHER, N_TRAIN, N_TRAIN_RU = 50000, 2000, 6000, 600


def main():
    d = pickle.load(open(f"{OUT}/posts.pkl", "rb"))
    ids = d["post_id"]
    expected = sorted({p for s in read_sets(ALL_SETS) for p in s[2]})
    idx = {p: i for i, p in enumerate(ids)}
    missing = [p for p in expected if p not in idx]
    assert not missing, missing
    exp = set(expected)
    others = [p for p in ids if p not in exp]
    rnd = random.Random(37).sample(others, N_POOL)
    pool = expected + rnd
    teacher_pool = expected + rnd[:N_TEACHER]
    inpool = set(pool)
    cand = [p for p in ids if p not in inpool]
    r = random.Random(38)
    r.shuffle(cand)
    train = []
    for p in cand:
        i = idx[p]
        if len(tokenize(d["text"][i])) >= 8:
            train.append(p)
            if len(train) == N_TRAIN:
                break
    # Russian oversample: the random sample has ~0.6% Russian posts, too few to align the
    # Cyrillic words; add N_TRAIN_RU posts whose letters are mostly Cyrillic (seed 39)
    tr = set(train)
    cand_ru = [p for p in cand if p not in tr]
    random.Random(39).shuffle(cand_ru)
    train_ru = []
    for p in cand_ru:
        t = d["text"][idx[p]]
        letters = [c for c in t if c.isalpha()]
        if len(letters) >= 40 and sum(1 for c in letters if "\u0400" <= c <= "\u04ff") >= 0.5 * len(letters) \
                and len(tokenize(t)) >= 8:
            train_ru.append(p)
            if len(train_ru) == N_TRAIN_RU:
                break
    pickle.dump({"expected": expected, "pool": pool, "teacher_pool": teacher_pool,
                 "train": train, "train_ru": train_ru}, open(f"{OUT}/pool.pkl", "wb"))
    log(f"expected {len(expected)}, pool {len(pool)}, teacher pool {len(teacher_pool)}, "
        f"train {len(train)}, train_ru {len(train_ru)}")


if __name__ == "__main__":
    main()
