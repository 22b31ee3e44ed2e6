#!/usr/bin/env python3
"""Prints the table of a benchmark run (scripts/bench.sh) from its results.jsonl."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
by = {(r["corpus"], r["label"]): r for r in rows}
corpora = list(dict.fromkeys(r["corpus"] for r in rows))
print("| corpus | figure | value | load avg |")
print("|---|---|---|---|")
for c in corpora:
    imp = by.get((c, "import"))
    if imp:
        print(f"| {c} | import ({imp['post_records']} post records, indexing included) | "
              f"{imp['posts_per_s']} posts/s, {imp['wall_s']} s wall, {imp['cpu_s']:.0f} s CPU, "
              f"peak RSS {imp['peak_rss_mib']} MiB (reindex alone {imp['reindex_wall_s']} s wall, "
              f"{imp.get('reindex_cpu_s', 0):.0f} s CPU; "
              f"corpus alone {imp['corpus_only_posts_per_s']} posts/s) | {imp['load_before']} |")
    for label in ["search", "lookups", "pages-start", "pages-end", "pages-start-c1", "pages-end-c1"]:
        r = by.get((c, label))
        if r:
            print(f"| {c} | HTTP {label} (c={r['concurrency']}) | {r['rps']:.0f} req/s, "
                  f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, p99.9 {r['p999_ms']} ms, "
                  f"non-200 {r['non_200']}, server RSS {r['server_rss_mib']} MiB | {r['load']} |")
    for label in ["bare-tantivy", "sqlite-fts5"]:
        r = by.get((c, label))
        if r:
            print(f"| {c} | {label} ({r['threads']} threads, in process) | {r['rps']:.0f} q/s, "
                  f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms | {r['load']} |")
    s, b, f = by.get((c, "search")), by.get((c, "bare-tantivy")), by.get((c, "sqlite-fts5"))
    if s and b:
        print(f"| {c} | forumdex / bare tantivy | {s['rps'] / b['rps']:.2f} | |")
    if s and f:
        print(f"| {c} | forumdex / SQLite FTS5 | {s['rps'] / f['rps']:.2f} | |")
