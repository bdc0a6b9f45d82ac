#!/usr/bin/env python3
"""Run one of the paper's ablation experiments (docs/PAPER-RESULTS.md) and print its table.

Usage:
    python3 scripts/paper_ablation.py EXPERIMENT --gsi target/release/gsi \\
        --dataset enron=enron.gsidx:q-enron [--dataset ...] [--out DIR] [--engine gpu]

EXPERIMENT is one of:
    filter        the signature against label and degree (`--filter`), sets as the filter
                  leaves them (`--refine-rounds 0`, a short join)
    list-index    PCSR against CR and a plain CSR (`GSI_LIST_INDEX`), shipped and paper kernel
    output        Prealloc-Combine against the two-step scheme, and the write cache
    set-ops       the fused set operations against naive ones (matches listed)
    balance       no load balance, blocks (layers 1-2), the pool (layer 3), and duplicate removal

Each dataset is NAME=DATA:QUERIES (a graph or saved index, and a folder of query files). For
every dataset and configuration the script runs `gsi match --json --quiet --timeout 1` once,
keeps the JSON Lines in --out, and prints a Markdown table: per configuration the mean ms
per query with the join phase in brackets (for `filter`: the mean of each query's smallest
candidate set and the median filter time), and the ratio of each configuration's join phase
to the first's. Standard library only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

# The paper's warp-per-row kernel alone (gsi's faster paths for light queries bypass it).
PAPER_KERNEL = ["--small-steps-up-to", "never", "--narrow-rows-up-to", "never"]

# Per experiment: (column name, environment, flags) for each configuration, the first the
# baseline of the ratios.
EXPERIMENTS = {
    "filter": [
        ("signature", {}, ["--filter", "signature"]),
        ("label-degree", {}, ["--filter", "label-degree"]),
    ],
    "list-index": [
        ("PCSR", {"GSI_LIST_INDEX": "pcsr"}, []),
        ("CR", {"GSI_LIST_INDEX": "cr"}, []),
        ("CSR", {"GSI_LIST_INDEX": "csr"}, []),
        ("PCSR, paper kernel", {"GSI_LIST_INDEX": "pcsr"}, PAPER_KERNEL),
        ("CR, paper kernel", {"GSI_LIST_INDEX": "cr"}, PAPER_KERNEL),
    ],
    "output": [
        ("PC + cache", {}, PAPER_KERNEL),
        ("two-step", {}, PAPER_KERNEL + ["--two-step-output"]),
        ("no cache", {}, PAPER_KERNEL + ["--no-write-cache"]),
    ],
    "set-ops": [
        ("fused", {}, PAPER_KERNEL + ["--output", os.devnull]),
        ("naive", {}, PAPER_KERNEL + ["--output", os.devnull, "--naive-set-operations"]),
    ],
    "balance": [
        ("none", {}, PAPER_KERNEL + ["--balance-from", "never"]),
        ("blocks", {}, PAPER_KERNEL),
        ("pool", {}, PAPER_KERNEL + ["--block-pool-from", "128"]),
        ("pool + DR", {}, PAPER_KERNEL + ["--block-pool-from", "128", "--duplicate-removal"]),
    ],
}

# `filter` keeps the filter's own sets and a short join.
FILTER_ONLY = ["--refine-rounds", "0", "--join-order", "paper", "--limit", "1"]


def run(gsi, engine, data, queries, env, flags, out_path):
    """One `gsi match --json` run; its query records, or the error it printed."""
    command = [gsi, "match", "--engine", engine, "--json", "--quiet", "--timeout", "1"]
    command += flags + ["--data", data, "--query", queries]
    done = subprocess.run(
        command, env={**os.environ, **env}, capture_output=True, text=True, check=False
    )
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(done.stdout)
    records = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    queries_run = [r for r in records if r.get("type") == "query"]
    if not queries_run:
        return None, (done.stderr.strip().splitlines() or ["no output"])[-1]
    return queries_run, None


def cell(experiment, records):
    """The table's entry for one run, and the number the ratio compares (join ms)."""
    n = len(records)
    join = sum(r["phases_ms"]["join"] for r in records) / n
    if experiment == "filter":
        smallest = sum(min(r["candidates"] or [0]) for r in records) / n
        filter_ms = statistics.median(r["phases_ms"]["filter"] for r in records)
        return f"{smallest:,.1f} / {filter_ms:.3f} ms", filter_ms
    mean = sum(r["elapsed_ms"] for r in records) / n
    stopped = sum(r["status"] != "ok" for r in records)
    note = f", {stopped} stopped" if stopped else ""
    return f"{mean:.3f} ({join:.3f}){note}", join


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=sorted(EXPERIMENTS))
    parser.add_argument("--gsi", default="target/release/gsi")
    parser.add_argument("--dataset", action="append", required=True, metavar="NAME=DATA:QUERIES")
    parser.add_argument("--out", default="ablation-runs")
    parser.add_argument("--engine", default="gpu")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    configs = EXPERIMENTS[args.experiment]
    header = ["dataset"] + [name for name, _, _ in configs]
    header += [f"{name} / {configs[0][0]}" for name, _, _ in configs[1:]]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for spec in args.dataset:
        name, _, paths = spec.partition("=")
        data, _, queries = paths.partition(":")
        if not (name and data and queries):
            sys.exit(f"--dataset {spec!r}: expected NAME=DATA:QUERIES")
        cells, measures = [], []
        for label, env, flags in configs:
            if args.experiment == "filter":
                flags = flags + FILTER_ONLY
            slug = "".join(c if c.isalnum() else "-" for c in label)
            out_path = os.path.join(args.out, f"{args.experiment}-{name}-{slug}.jsonl")
            records, error = run(args.gsi, args.engine, data, queries, env, flags, out_path)
            if records is None:
                cells.append(f"failed: {error}")
                measures.append(None)
                continue
            text, measure = cell(args.experiment, records)
            cells.append(text)
            measures.append(measure)
        base = measures[0]
        ratios = [
            f"{m / base:.2f}×" if m is not None and base else "—" for m in measures[1:]
        ]
        print("| " + " | ".join([name] + cells + ratios) + " |")


if __name__ == "__main__":
    main()
