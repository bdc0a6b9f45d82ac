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


def timed(call, repeat: int, warmup: int) -> "tuple[float, object]":
    """The median of `repeat` timed calls after `warmup` untimed ones, in ms, and the answer."""
    for _ in range(warmup):
        call()
    times, answer = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        answer = call()
        times.append((time.perf_counter() - started) * 1e3)
    return statistics.median(times), answer


def overhead(args: argparse.Namespace) -> None:
    files = query_files(args.query)
    command = [
        args.gsi,
        "bench",
        "--data",
        args.data,
        "--engine",
        "cpu",
        "--memory-limit",
        args.memory_limit,
        "--repeat",
        str(args.repeat),
        "--warmup",
        str(args.warmup),
        "--json",
        "--quiet",
        "--query",
    ]
    cli = {}
    for line in subprocess.run(
        command + list(map(str, files)), check=True, capture_output=True, text=True
    ).stdout.splitlines():
        record = json.loads(line)
        if record["type"] == "query":
            cli[Path(record["query"]).name] = record
    m = gsi.Matcher(gsi.Graph.read(args.data), engine="cpu", memory_limit=args.memory_limit)
    differences, ratios, reads, python_ms = [], [], [], []
    for path in files:
        started = time.perf_counter()
        query = gsi.Graph.read(path)
        read_ms = (time.perf_counter() - started) * 1e3
        median_ms, count = timed(lambda q=query: m.count(q), args.repeat, args.warmup)
        reference = cli[path.name]
        assert count == reference["matches"], (path, count, reference["matches"])
        differences.append(median_ms - reference["median_ms"])
        ratios.append(median_ms / reference["median_ms"])
        reads.append(read_ms)
        python_ms.append(median_ms)
        emit(
            {
                "query": path.name,
                "matches": count,
                "python_ms": median_ms,
                "cli_ms": reference["median_ms"],
                "read_ms": read_ms,
            }
        )
    emit(
        {
            "type": "summary",
            "queries": len(files),
            "median_overhead_ms": statistics.median(differences),
            "median_ratio": statistics.median(ratios),
            "median_read_ms": statistics.median(reads),
            "python_median_ms": statistics.median(python_ms),
            "cli_median_ms": statistics.median(cli[p.name]["median_ms"] for p in files),
            "python_sum_ms": sum(python_ms),
            "cli_sum_ms": sum(cli[p.name]["median_ms"] for p in files),
        }
    )


def throughput(args: argparse.Namespace) -> None:
    m = gsi.Matcher(gsi.Graph.read(args.data), engine="cpu", memory_limit=args.memory_limit)
    query = gsi.Graph.read(args.query[0])
    count_ms, count = timed(lambda: m.count(query), args.repeat, args.warmup)
    array_ms, array = timed(lambda: m.match_array(query), args.repeat, args.warmup)
    assert array.shape == (count, query.vertex_count)
    del array

    def stream() -> int:
        return sum(1 for _ in m.matches(query))

    dicts_ms, streamed = timed(stream, 1, 0)
    assert streamed == count

    def batches() -> int:
        return sum(len(b) for b in m._native.matches(query._native, None, False, None, 65536))

    batch_ms, batched = timed(batches, args.repeat, args.warmup)
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
                    timeout=args.timeout + 30,
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
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per query of a peer (peers)"
    )
    args = parser.parse_args()
    {"overhead": overhead, "throughput": throughput, "peers": peers}[args.what](args)


if __name__ == "__main__":
    main()
