#!/usr/bin/env python3
"""Runs every need's query against a serving forumdex (its top 10, lang as the need says, the
API's defaults otherwise) and writes one run file for a variant, plus the posts to judge.

    needs_pool.py --url http://127.0.0.1:8080 --key KEY --variant hybrid@abc1234 \
        --out target/needs/hybrid.tsv

The run file (TSV) has `need_id`, `rank` (1..10), `post_id`, `hybrid` per line. Beside it,
`<out>.posts.jsonl` holds each returned post (need, post ID, topic title, title, date,
language, content) for the judge. needs_score.py reads run files and needs.judgments.tsv.
"""
import argparse
import json
import os
import sys
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def needs():
    out = []
    for half in ("tuning", "heldout"):
        with open(os.path.join(HERE, f"needs.{half}.jsonl"), encoding="utf-8") as f:
            out.extend(json.loads(line) for line in f if line.strip())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as run, \
            open(a.out + ".posts.jsonl", "w", encoding="utf-8") as posts:
        run.write(f"# variant {a.variant}\nneed_id\trank\tpost_id\thybrid\n")
        for need in needs():
            params = {"q": need["query"]}
            if need["lang"] not in ("-", ""):
                params["lang"] = need["lang"]
            request = urllib.request.Request(
                f"{a.url}/api/v1/search?{urllib.parse.urlencode(params)}",
                headers={"Authorization": f"Bearer {a.key}"})
            with urllib.request.urlopen(request) as response:
                body = json.load(response)
            for rank, hit in enumerate(body["hits"][:10], 1):
                run.write(f"{need['id']}\t{rank}\t{hit['post_id']}\t{body.get('hybrid')}\n")
                posts.write(json.dumps({
                    "need_id": need["id"], "post_id": hit["post_id"],
                    "topic_title": hit.get("topic_title"), "title": hit["title"],
                    "date": hit["date"], "lang": hit["lang"], "content": hit["content"],
                }, ensure_ascii=False) + "\n")
            print(need["id"], len(body["hits"]), "hits", file=sys.stderr)


if __name__ == "__main__":
    main()
