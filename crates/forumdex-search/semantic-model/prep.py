#!/usr/bin/env python3
"""Read the corpus once; keep the canonical observation of each post (latest observed_at,
ties to the smallest SHA-256 of the line), drop deleted ones; write
target/distill/posts.pkl: dict with parallel lists post_id, topic_id, is_op, text (plain,
HTML stripped as in relevance/semantic/sample_posts.py) and topic_title per topic."""
import gzip, hashlib, html, json, pickle, re, sys, time
from datetime import datetime
from common import CORPUS, OUT, log


def observed(t):
    return datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()


def plain_text(h):
    t = re.sub(r"<br\s*/?>", "\n", h, flags=re.I)
    t = re.sub(r"<[^>]*>", " ", t)
    return html.unescape(t).strip()


def main():
    t0 = time.time()
    posts, topics = {}, {}
    with gzip.open(CORPUS, "rb") as f:
        for n, raw in enumerate(f):
            line = raw.rstrip(b"\n").rstrip(b"\r")
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            k = r.get("kind")
            if k == "post":
                at = observed(r["observed_at"]); pid = r["post_id"]
                old = posts.get(pid)
                if old is not None and at < old[0]:
                    continue
                sha = hashlib.sha256(line).hexdigest()
                if old is not None and at == old[0] and sha >= old[1]:
                    continue
                posts[pid] = (at, sha, r.get("deleted") or False, r["topic_id"], r.get("is_op"),
                              r.get("title", ""), r.get("content_html", ""))
            elif k == "topic":
                at = observed(r["observed_at"])
                old = topics.get(r["topic_id"])
                if old is None or at >= old[0]:
                    topics[r["topic_id"]] = (at, r.get("title", ""))
            if n % 200000 == 0:
                log(n, "lines", round(time.time() - t0), "s")
    first = {}
    for pid, p in posts.items():
        if p[2]:
            continue
        if p[3] not in first or pid < first[p[3]]:
            first[p[3]] = pid
    ids, tids, ops, texts, ptitles = [], [], [], [], []
    for pid in sorted(posts):
        at, sha, deleted, tid, is_op, title, ch = posts[pid]
        if deleted:
            continue
        ids.append(pid); tids.append(tid)
        ops.append(bool(is_op) if is_op is not None else first[tid] == pid)
        texts.append(plain_text(ch)); ptitles.append(title)
    ttitle = {t: v[1] for t, v in topics.items()}
    for pid, tid, op, pt in zip(ids, tids, ops, ptitles):
        if op and not ttitle.get(tid):
            ttitle[tid] = pt
    with open(f"{OUT}/posts.pkl", "wb") as f:
        pickle.dump({"post_id": ids, "topic_id": tids, "is_op": ops, "text": texts,
                     "post_title": ptitles, "topic_title": ttitle}, f, protocol=5)
    log(f"{len(posts)} canonical posts, {len(ids)} live, {len(ttitle)} topics, {time.time()-t0:.0f}s")


if __name__ == "__main__":
    main()
