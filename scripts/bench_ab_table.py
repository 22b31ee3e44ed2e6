#!/usr/bin/env python3
"""Prints the medians of an interleaved A/B (scripts/bench_ab.sh) as a Markdown table.

    scripts/bench_ab_table.py AB.jsonl
"""
import json
import statistics
import sys
from collections import defaultdict


def main(path):
    runs = defaultdict(list)
    for line in open(path):
        line = line.strip()
        if line:
            row = json.loads(line)
            runs[(row["corpus"], row["label"], row["build"])].append(row)
    figures = sorted({(corpus, label) for corpus, label, _ in runs})
    print("| corpus | figure | base (median of runs) | new (median of runs) | new / base |")
    print("|---|---|---|---|---|")
    for corpus, label in figures:
        base = runs.get((corpus, label, "base"), [])
        new = runs.get((corpus, label, "new"), [])
        if not base or not new:
            continue
        if label == "import":
            key, unit, fmt = "posts_per_s", "posts/s", describe_import
        else:
            key, unit, fmt = "rps", "req/s", describe_http
        ratio = median(new, key) / median(base, key)
        print(f"| {corpus} | {label} | {fmt(base)} | {fmt(new)} | {ratio:.2f} ({unit}) |")


def median(rows, key):
    return statistics.median(row[key] for row in rows)


def describe_http(rows):
    return (
        f"{median(rows, 'rps'):.0f} req/s, p99 {median(rows, 'p99_ms'):.1f} ms, "
        f"CPU {median(rows, 'server_cpu_ms_per_request'):.3f} ms/req ({len(rows)} runs)"
    )


def describe_import(rows):
    return (
        f"{median(rows, 'posts_per_s'):.0f} posts/s ({median(rows, 'wall_s'):.1f} s), "
        f"CPU {median(rows, 'cpu_s'):.0f} s, RSS {median(rows, 'peak_rss_mib'):.0f} MiB "
        f"({len(rows)} runs)"
    )


if __name__ == "__main__":
    main(sys.argv[1])
