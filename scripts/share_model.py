#!/usr/bin/env python3
"""Speed-up of `gsi match --partition I/K` over G GPUs, modelled from measured share times.

Reads the JSON Lines of one whole run and of the K share runs of the same queries:

    scripts/share_model.py whole.jsonl share-0-of-64.jsonl ... share-63-of-64.jsonl \
        --gpus 8 16 32 64 [--overhead-ms 0]

and prints, per query and for the whole set, the whole run's time and for each G the time of
the busiest GPU when the K shares are dealt out longest-first to the least-loaded GPU (LPT),
plus a fixed per-GPU overhead (starting gsi, mapping the saved index, uploading it), and the
speed-up. It also checks that the shares' counts add up to the whole's.
"""

import argparse
import heapq
import json
import re
import sys
from collections import defaultdict


def records(path):
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                yield json.loads(line)


def lpt(times, gpus):
    """Time of the busiest of `gpus` machines when `times` are dealt longest-first."""
    loads = [0.0] * gpus
    heapq.heapify(loads)
    for t in sorted(times, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + t)
    return max(loads)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("whole")
    parser.add_argument("shares", nargs="+")
    parser.add_argument("--gpus", type=int, nargs="+", default=[8, 16, 32, 64])
    parser.add_argument("--overhead-ms", type=float, default=0.0)
    args = parser.parse_args()

    whole = {r["query"]: r for r in records(args.whole) if r["type"] == "query"}
    shares = defaultdict(list)
    for path in args.shares:
        for r in records(path):
            if r["type"] == "query":
                shares[r["query"]].append(r)
    k = max(len(v) for v in shares.values())
    header = ["query", "matches", "whole ms"] + [f"G={g} ms (×)" for g in args.gpus]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    total_whole = 0.0
    total_shares = [[] for _ in args.gpus]
    ok = True
    for query in sorted(whole, key=lambda q: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", q)]):
        w = whole[query]
        parts = shares[query]
        summed = sum(int(p["matches"]) for p in parts)  # strings above 2^53
        if len(parts) != k or summed != int(w["matches"]):
            ok = False
            print(f"{query}: {len(parts)} shares summing to {summed}, whole {w['matches']}", file=sys.stderr)
        times = [p["elapsed_ms"] for p in parts]
        total_whole += w["elapsed_ms"]
        cells = [query.rsplit("/", 1)[-1], str(w["matches"]), f"{w['elapsed_ms']:.1f}"]
        for i, g in enumerate(args.gpus):
            span = lpt(times, g) + args.overhead_ms
            total_shares[i].extend(times)
            cells.append(f"{span:.1f} ({w['elapsed_ms'] / span:.1f}×)")
        print("| " + " | ".join(cells) + " |")
    # The set: all queries' shares dealt out together.
    cells = ["all", "", f"{total_whole:.1f}"]
    for i, g in enumerate(args.gpus):
        span = lpt(total_shares[i], g) + args.overhead_ms
        cells.append(f"{span:.1f} ({total_whole / span:.1f}×)")
    print("| " + " | ".join(cells) + " |")
    print(f"\n{k} shares per query; counts {'add up to the whole' if ok else 'DO NOT add up'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
