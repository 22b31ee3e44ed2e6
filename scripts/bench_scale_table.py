#!/usr/bin/env python3
"""The tables of BENCHMARKS.md "The whole forum" from scripts/bench_scale.sh's results.

    scripts/bench_scale_table.py [RESULTS.jsonl]   (default /tmp/forumdex-bench-scale/results.jsonl)

One column per size; the last column is the growth from the smallest size to the largest.
"""
import json
import sys


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/forumdex-bench-scale/results.jsonl"
    rows = [json.loads(line) for line in open(path) if line.strip()]
    sizes = sorted({r["size"] for r in rows if "size" in r})

    def of(label, size, **match):
        for r in rows:
            if r.get("label") == label and r.get("size") == size and all(
                r.get(k) == v for k, v in match.items()
            ):
                return r
        return None

    lines = [
        ("import CPU per post (user + sys)", "import", {}, "cpu_us_per_post", "{} µs"),
        ("import peak RSS", "import", {}, "peak_rss_mib", "{:,} MiB"),
        ("import wall", "import", {}, "wall_s", "{:.0f} s"),
        ("data folder", "import", {}, "folder_mib", "{:,} MiB"),
        ("engine in process, 1 thread, p50", "engine", {"threads": 1}, "p50_ms", "{:.1f} ms"),
        ("engine in process, 1 thread, p99", "engine", {"threads": 1}, "p99_ms", "{:.1f} ms"),
        ("engine in process, CPU per query", "engine", {"threads": 1}, "cpu_ms_per_query", "{:.1f} ms"),
        ("engine in process, 2 threads, p99", "engine", {"threads": 2}, "p99_ms", "{:.1f} ms"),
        ("search over HTTP c=1, p50", "search-c1", {}, "p50_ms", "{:.1f} ms"),
        ("search over HTTP c=1, p99", "search-c1", {}, "p99_ms", "{:.1f} ms"),
        ("search over HTTP c=2, p50", "search-c2", {}, "p50_ms", "{:.1f} ms"),
        ("search over HTTP c=2, p99", "search-c2", {}, "p99_ms", "{:.1f} ms"),
        ("search `lang=en` c=1, p99", "search-en-c1", {}, "p99_ms", "{:.1f} ms"),
        ("search server CPU per request, c=1", "search-c1", {}, "server_cpu_ms_per_request", "{:.1f} ms"),
        ("search server peak RSS", "search-c2", {}, "server_peak_rss_mib", "{:,} MiB"),
        ("lookups c=4, p50 / p99", "lookups-c4", {}, ("p50_ms", "p99_ms"), "{:.1f} / {:.1f} ms"),
        ("topics c=4, p50 / p99", "topics-c4", {}, ("p50_ms", "p99_ms"), "{:.1f} / {:.1f} ms"),
        ("last pages of the largest topic c=1, p50 / p99", "pages-end", {}, ("p50_ms", "p99_ms"), "{:.1f} / {:.1f} ms"),
        ("PostgreSQL import, importer CPU per post", "import-postgres", {}, "cpu_us_per_post", "{} µs"),
        ("PostgreSQL import, machine CPU per post", "import-postgres", {}, "machine_cpu_us_per_post", "{} µs"),
        ("PostgreSQL import wall", "import-postgres", {}, "wall_s", "{:.0f} s"),
        ("PostgreSQL lookups c=4, p50 / p99", "postgres-lookups-c4", {}, ("p50_ms", "p99_ms"), "{:.1f} / {:.1f} ms"),
    ]
    print("| | " + " | ".join(f"{s / 1e6:g}M posts" for s in sizes) + " | growth |")
    print("|---" * (len(sizes) + 2) + "|")
    for title, label, match, field, fmt in lines:
        cells, values = [], []
        for size in sizes:
            r = of(label, size, **match)
            if r is None:
                cells.append("")
                continue
            fields = field if isinstance(field, tuple) else (field,)
            cells.append(fmt.format(*(r[f] for f in fields)))
            values.append(r[fields[-1]])
        if not any(cells):
            continue
        growth = f"{values[-1] / values[0]:.2f}x" if len(values) > 1 and values[0] else ""
        print(f"| {title} | " + " | ".join(cells) + f" | {growth} |")


if __name__ == "__main__":
    main()
