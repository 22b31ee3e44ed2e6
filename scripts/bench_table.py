#!/usr/bin/env python3
"""Prints the table of a benchmark run (scripts/bench.sh) from its results.jsonl."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
# The share of the time since the line before that the hypervisor gave to other machines
# (steal), when the run recorded it: on a shared virtual machine it slows everything down.
for before, r in zip([None] + rows[:-1], rows):
    if before and "steal_ticks" in r and "steal_ticks" in before and r["at"] > before["at"]:
        ticks = r["steal_ticks"] - before["steal_ticks"]
        # /proc/stat counts in USER_HZ (100 per second on Linux) per core.
        share = 100 * ticks / (100 * r["cores"] * (r["at"] - before["at"]))
        r["load"] = f"{r['load']}; steal {share:.0f}%"
by = {(r["corpus"], r["label"]): r for r in rows}
corpora = list(dict.fromkeys(r["corpus"] for r in rows))
print("| corpus | figure | value | load avg (steal) |")
print("|---|---|---|---|")
for c in corpora:
    imp = by.get((c, "import"))
    if imp:
        cpu, rcpu, n = imp["cpu_s"], imp.get("reindex_cpu_s", 0), imp["post_records"]
        print(f"| {c} | import, indexing included ({n} post records) | "
              f"{imp['posts_per_s']} posts/s wall ({imp['wall_s']} s); {cpu:.0f} s CPU = "
              f"{n / (cpu / 2):.0f} posts/s on 2 idle cores; peak RSS {imp['peak_rss_mib']} MiB | "
              f"{imp['load_before']} |")
        print(f"| {c} | indexing alone (`forumdex reindex` afterwards) | {rcpu:.0f} s CPU "
              f"({imp['reindex_wall_s']} s wall), peak RSS {imp['reindex_peak_rss_mib']} MiB; "
              f"the import's other {cpu - rcpu:.0f} s of CPU are the corpus and what indexing "
              f"beside it costs more | |")
    for label in ["search", "lookups", "pages-start", "pages-end", "pages-start-c1", "pages-end-c1"]:
        r = by.get((c, label))
        if r:
            cpu = r.get("server_cpu_ms_per_request", 0) + r.get("client_cpu_ms_per_request", 0)
            print(f"| {c} | HTTP {label} (c={r['concurrency']}) | {r['rps']:.0f} req/s, "
                  f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, p99.9 {r['p999_ms']} ms, "
                  f"non-200 {r['non_200']}; CPU/request {r.get('server_cpu_ms_per_request')} ms "
                  f"server + {r.get('client_cpu_ms_per_request')} ms client = "
                  f"{2000 / cpu if cpu else 0:.0f} req/s on 2 idle cores; "
                  f"server RSS {r['server_rss_mib']} MiB | {r['load']} |")
    for label in ["bare-tantivy", "sqlite-fts5"]:
        r = by.get((c, label))
        if r:
            q = r.get("cpu_ms_per_query", 0)
            print(f"| {c} | {label} ({r['threads']} threads, in process) | {r['rps']:.0f} q/s, "
                  f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms; CPU/query {q} ms = "
                  f"{2000 / q if q else 0:.0f} q/s on 2 idle cores | {r['load']} |")
    s, b, f = by.get((c, "search")), by.get((c, "bare-tantivy")), by.get((c, "sqlite-fts5"))
    def per_cpu(r):
        """Requests per CPU second: what 2 idle cores would give, over 2,000."""
        if "cpu_ms_per_query" in r:
            return 1 / r["cpu_ms_per_query"] if r["cpu_ms_per_query"] else 0
        cpu = r.get("server_cpu_ms_per_request", 0) + r.get("client_cpu_ms_per_request", 0)
        return 1 / cpu if cpu else 0
    for other, name in [(b, "bare tantivy"), (f, "SQLite FTS5")]:
        if s and other:
            ratio = per_cpu(s) / per_cpu(other) if per_cpu(other) else 0
            print(f"| {c} | forumdex / {name} | {s['rps'] / other['rps']:.2f} by requests/s; "
                  f"{ratio:.2f} by CPU per request | |")
