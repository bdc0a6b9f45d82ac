#!/usr/bin/env python3
"""Measurements of the Python package (docs/BENCHMARKS.md, "Python package").

    overhead    Matcher.count per query against `gsi bench` on the same queries
    throughput  match_array and matches() on one heavy query: matches per second
    peers       gsi against networkx and rustworkx on the same queries, side by side

Needs the package installed (pip install ./crates/python), and networkx and rustworkx for
`peers`. Prints one JSON object per query, then a summary object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import gsi


def query_files(paths: list) -> list:
    files = []
    for path in map(Path, paths):
        if path.is_dir():
            files += sorted(
                path.iterdir(),
                key=lambda p: [int(t) if t.isdigit() else t for t in p.stem.split("_")],
            )
        else:
            files.append(path)
    return files


def emit(record: dict) -> None:
    print(json.dumps(record), flush=True)


def timed(call, repeat: int, warmup: int) -> "tuple[float, object, float]":
    """The median of `repeat` timed calls after `warmup` untimed ones, in ms, the answer, and
    the fastest call."""
    for _ in range(warmup):
        call()
    times, answer = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        answer = call()
        times.append((time.perf_counter() - started) * 1e3)
    return statistics.median(times), answer, min(times)


def overhead(args: argparse.Namespace) -> None:
    """`gsi bench` and `Matcher.count` on the same queries, in alternating rounds (so that
    both meet the machine's changing load): per query, the median over the rounds of each
    round's median, and the fastest run of all."""
    files = query_files(args.query)
    command = [args.gsi, "bench", "--data", args.data, "--engine", "cpu"]
    command += ["--memory-limit", args.memory_limit, "--repeat", str(args.repeat)]
    command += ["--warmup", str(args.warmup), "--json", "--quiet", "--query"]
    command += list(map(str, files))
    m = gsi.Matcher(gsi.Graph.read(args.data), engine="cpu", memory_limit=args.memory_limit)
    queries, reads = {}, []
    for path in files:
        started = time.perf_counter()
        queries[path.name] = gsi.Graph.read(path)
        reads.append((time.perf_counter() - started) * 1e3)
    runs = {name: {"cli": [], "python": [], "cli_min": [], "python_min": []} for name in queries}
    counts = {}
    for _ in range(args.rounds):
        bench = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        for line in bench.splitlines():
            record = json.loads(line)
            if record["type"] == "query":
                name = Path(record["query"]).name
                runs[name]["cli"].append(record["median_ms"])
                runs[name]["cli_min"].append(record["min_ms"])
                counts[name] = int(record["matches"])  # a string above 2^53
        for name, query in queries.items():
            median_ms, count, fastest = timed(lambda q=query: m.count(q), args.repeat, args.warmup)
            assert count == counts[name], (name, count, counts[name])
            runs[name]["python"].append(median_ms)
            runs[name]["python_min"].append(fastest)
    rows = []
    for name, r in runs.items():
        row = {key: statistics.median(r[key]) for key in ("cli", "python")}
        row.update({key: min(r[key]) for key in ("cli_min", "python_min")})
        rows.append(row)
        emit({"query": name, "matches": counts[name], **{f"{k}_ms": v for k, v in row.items()}})

    def middle(f) -> float:
        return statistics.median(f(row) for row in rows)

    emit(
        {
            "type": "summary",
            "queries": len(rows),
            "rounds": args.rounds,
            "cli_median_ms": middle(lambda r: r["cli"]),
            "python_median_ms": middle(lambda r: r["python"]),
            "median_overhead_ms": middle(lambda r: r["python"] - r["cli"]),
            "median_ratio": middle(lambda r: r["python"] / r["cli"]),
            "fastest_overhead_ms": middle(lambda r: r["python_min"] - r["cli_min"]),
            "fastest_ratio": middle(lambda r: r["python_min"] / r["cli_min"]),
            "cli_sum_ms": sum(r["cli"] for r in rows),
            "python_sum_ms": sum(r["python"] for r in rows),
            "median_read_ms": statistics.median(reads),
        }
    )


def throughput(args: argparse.Namespace) -> None:
    m = gsi.Matcher(gsi.Graph.read(args.data), engine="cpu", memory_limit=args.memory_limit)
    query = gsi.Graph.read(args.query[0])
    count_ms, count, _ = timed(lambda: m.count(query), args.repeat, args.warmup)
    array_ms, array, _ = timed(lambda: m.match_array(query), args.repeat, args.warmup)
    assert array.shape == (count, query.vertex_count)
    del array

    def stream() -> int:
        return sum(1 for _ in m.matches(query))

    dicts_ms, streamed, _ = timed(stream, 1, 0)
    assert streamed == count

    def batches() -> int:
        return sum(len(b) for b in m._native.matches(query._native, None, "isomorphism", None, 65536))

    batch_ms, batched, _ = timed(batches, args.repeat, args.warmup)
    assert batched == count
    emit(
        {
            "query": Path(args.query[0]).name,
            "matches": count,
            "count_ms": count_ms,
            "match_array_ms": array_ms,
            "match_array_per_s": count / array_ms * 1e3,
            "array_mib": count * query.vertex_count * 4 / 2**20,
            "batches_ms": batch_ms,
            "batches_per_s": count / batch_ms * 1e3,
            "dicts_ms": dicts_ms,
            "dicts_per_s": count / dicts_ms * 1e3,
        }
    )


# One query of one peer, in a process of its own (killed past the time limit): the data
# graph is read there, and only the matching is timed.
PEER = r"""
import json, sys, time
import networkx as nx

def read(path):
    G = nx.Graph()
    for line in open(path):
        f = line.split()
        if f and f[0] == "v":
            G.add_node(int(f[1]), label=int(f[2]))
        elif f and f[0] == "e":
            G.add_edge(int(f[1]), int(f[2]))
    return G

peer, data, query = sys.argv[1:]
G, Q = read(data), read(query)
if peer == "networkx":
    from networkx.algorithms import isomorphism
    match = isomorphism.categorical_node_match("label", None)
    started = time.perf_counter()
    matcher = isomorphism.GraphMatcher(G, Q, node_match=match)
    count = sum(1 for _ in matcher.subgraph_monomorphisms_iter())
else:
    import rustworkx as rx
    def convert(H):
        R = rx.PyGraph()
        index = {v: R.add_node(H.nodes[v]["label"]) for v in H.nodes}
        R.add_edges_from_no_data([(index[u], index[v]) for u, v in H.edges])
        return R
    RG, RQ = convert(G), convert(Q)
    same = lambda a, b: a == b
    started = time.perf_counter()
    mappings = rx.vf2_mapping(
        RG, RQ, node_matcher=same, subgraph=True, induced=False, id_order=False
    )
    count = sum(1 for _ in mappings)
print(json.dumps({"count": count, "ms": (time.perf_counter() - started) * 1e3}))
"""


def peers(args: argparse.Namespace) -> None:
    files = query_files(args.query)
    m = gsi.Matcher(gsi.Graph.read(args.data), engine="cpu", memory_limit=args.memory_limit)
    totals = {"gsi": 0.0, "networkx": 0.0, "rustworkx": 0.0}
    finished = {"networkx": 0, "rustworkx": 0}
    speedups = {"networkx": [], "rustworkx": []}
    for path in files:
        query = gsi.Graph.read(path)
        started = time.perf_counter()
        count = m.count(query)
        record = {
            "query": path.name,
            "matches": count,
            "gsi_ms": (time.perf_counter() - started) * 1e3,
        }
        totals["gsi"] += record["gsi_ms"]
        for peer in ("networkx", "rustworkx"):
            try:
                run = subprocess.run(
                    [sys.executable, "-c", PEER, peer, args.data, str(path)],
                    capture_output=True,
                    text=True,
                    # The graphs' loading, which the child does not time, takes under a second.
                    timeout=args.timeout + 3,
                )
                answer = json.loads(run.stdout) if run.returncode == 0 else None
            except subprocess.TimeoutExpired:
                answer = None
            # The limit applies to the matching, which the child times itself.
            if answer is None or answer["ms"] > args.timeout * 1e3:
                record[peer] = "timeout"
                totals[peer] += args.timeout * 1e3
                continue
            assert answer["count"] == count, (path, peer, answer, count)
            record[f"{peer}_ms"] = answer["ms"]
            totals[peer] += answer["ms"]
            finished[peer] += 1
            speedups[peer].append(answer["ms"] / record["gsi_ms"])
        emit(record)
    emit(
        {
            "type": "summary",
            "queries": len(files),
            "timeout_s": args.timeout,
            "finished": finished,
            "sum_ms": totals,
            "median_speedup": {p: statistics.median(s) if s else None for p, s in speedups.items()},
            "min_speedup": {p: min(s) if s else None for p, s in speedups.items()},
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", choices=["overhead", "throughput", "peers"])
    parser.add_argument("--data", required=True)
    parser.add_argument("--query", nargs="+", required=True, help="query files or folders")
    parser.add_argument("--gsi", default="target/release/gsi", help="the gsi command (overhead)")
    parser.add_argument("--memory-limit", default="8GiB")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (overhead)")
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per query of a peer (peers)"
    )
    args = parser.parse_args()
    {"overhead": overhead, "throughput": throughput, "peers": peers}[args.what](args)


if __name__ == "__main__":
    main()
