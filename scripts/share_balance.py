#!/usr/bin/env python3
"""How evenly `gsi match --partition I/K` cuts queries: the spread of the shares' sizes.

    scripts/share_balance.py --data graph.gsidx --query Q1 Q2 ... --shares 8 32 64 \
        [--engine cpu] [--timeout 120] [--workers 8] [--share-cut rows|grid|even-grid] \
        [--rows-per-share 256] [--gsi target/release/gsi]

runs the queries whole once, then for each K the K shares one after another (one `gsi match
--partition I/K --json` process per share, all the queries in it), checks that each query's
shares add up to its whole count, and prints per query and K the largest share's matches and
time over the mean share's (1.0: even; K: one share holds everything), the longest share
and the shares' sum. A query that programs count (its quotients, its core) is counted whole
by the first share and nothing by the others: its balance reads "first share". With --workers W it adds the time W workers take to answer the K
shares dealt in share order to whichever worker is free first (as a process pool, Dask or
Slurm deal tasks), beside the whole run's time: the effect of cutting into more shares
than workers.
"""

import argparse
import heapq
import json
import subprocess
import sys
from pathlib import Path


def run(args, extra):
    """Each query's record of one `gsi match --json` run, by query file name."""
    command = [args.gsi, "match", "--data", args.data, "--query", *args.query, "--json"]
    command += ["--quiet", "--engine", args.engine, "--timeout", str(args.timeout), *extra]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed: {done.stderr.strip()}")
    records = [json.loads(line) for line in done.stdout.splitlines()]
    return {Path(r["query"]).name: r for r in records if r["type"] == "query"}


def dealt(times, workers):
    """When the last of `workers` finishes `times`, dealt in order to the first one free."""
    free = [0.0] * workers
    for t in times:
        heapq.heappush(free, heapq.heappop(free) + t)
    return max(free)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--query", nargs="+", required=True)
    parser.add_argument("--shares", type=int, nargs="+", default=[8, 32, 64])
    parser.add_argument("--engine", default="cpu")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--share-cut", default="rows", choices=["rows", "grid", "even-grid"])
    parser.add_argument("--rows-per-share", type=float)
    parser.add_argument("--gsi", default="gsi")
    args = parser.parse_args()

    whole = run(args, [])
    rows = {name: [] for name in whole}
    ok = True
    for k in args.shares:
        print(f"K = {k} ...", file=sys.stderr, flush=True)
        cut = ["--share-cut", args.share_cut]
        if args.rows_per_share is not None:
            cut += ["--rows-per-share", str(args.rows_per_share)]
        runs = [run(args, ["--partition", f"{i}/{k}", *cut]) for i in range(k)]
        for name, w in whole.items():
            shares = [r[name] for r in runs]
            counts = [int(s["matches"]) for s in shares]  # strings above 2^53
            times = [s["elapsed_ms"] for s in shares]
            statuses = {w["status"]} | {s["status"] for s in shares}
            if sum(counts) != int(w["matches"]) or statuses != {"ok"}:
                ok = False
                print(f"{name} K={k}: shares {sum(counts)} ({statuses}), whole {w['matches']}",
                      file=sys.stderr)
            mean_count, mean_time = sum(counts) / k, sum(times) / k
            cells = [name.removesuffix(".graph"), f"{int(w['matches']):,}"]
            cells += [f"{w['elapsed_ms']:.1f}", str(k)]
            if k > 1 and counts[0] and not any(counts[1:]):
                cells.append("first share")
            else:
                cells.append(f"{max(counts) / mean_count:.1f}" if mean_count else "-")
            cells.append(f"{max(times) / mean_time:.1f}" if mean_time else "-")
            cells += [f"{max(times):.1f}", f"{sum(times):.1f}"]
            if args.workers:
                span = dealt(times, args.workers)
                cells.append(f"{span:.1f} ({w['elapsed_ms'] / span:.1f}×)")
            rows[name].append(cells)

    header = ["query", "matches", "whole ms", "K", "largest/mean matches", "largest/mean ms"]
    header += ["longest share ms", "sum of shares ms"]
    if args.workers:
        header.append(f"{args.workers} workers ms (×)")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for cells in (cells for name in rows for cells in rows[name]):
        print("| " + " | ".join(cells) + " |")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
