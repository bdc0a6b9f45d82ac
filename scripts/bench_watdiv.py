#!/usr/bin/env python3
"""gsi sparql against Oxigraph and Virtuoso on generated WatDiv-shaped RDF (docs/BENCHMARKS.md, "SPARQL").

For each size: `gsi generate rdf`, then the load of the N-Triples into a ready store, timed
for each — `gsi index` (parse, index, save), pyoxigraph's in-memory `Store.bulk_load` and,
with `--virtuoso`, Virtuoso 7's bulk loader (`ld_dir`, `rdf_loader_run`, a checkpoint) in a
server the script starts on free local ports and stops at the end — then each query of
benches/watdiv, `--repeat` times on each, the median kept:

- gsi: `gsi sparql --data FILE.gsidx --engine cpu|gpu --results tsv`, its lines read from a pipe
  and counted; each run is a process that opens the saved index (the time to do so alone, the
  `ready` figure, is that of a query without solutions);
- gsi served: the same query sent to a `gsi serve` of the saved index that the script starts
  (its store already loaded, as the others' are), over the SPARQL protocol (`GET /sparql`, TSV
  results, every solution counted), timed by the client;
- Oxigraph: `Store.query`, its store already loaded, every solution taken from the iterator
  and counted;
- Virtuoso: the SPARQL protocol over HTTP (its results as SPARQL JSON, every solution
  counted), its store already loaded, the graph the data was loaded into as default graph.

The numbers of solutions are checked to be the same, but where Oxigraph takes longer than
`--oxigraph-limit` to give them (its time is then a lower bound); a Virtuoso answer of
another number is reported (`virtuoso_solutions`), not taken as gsi's error. Prints one JSON object per
query and per load, then a table per template (L, S, F, C): the median over its queries of
the medians, and the ratio Oxigraph / gsi (gsi's whole run; "after ready" takes the `ready`
time off; "served" is the server's). Needs pyoxigraph and a release build of gsi; `--virtuoso` needs Debian's
virtuoso-opensource-7-bin (`virtuoso-t`, `isql-vt`).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pyoxigraph

from bench_serve import Virtuoso, started

REPO = Path(__file__).resolve().parents[1]
NOTHING = "SELECT * { ?x <http://example.org/no-such-predicate> ?y }"


def emit(record: dict) -> None:
    print(json.dumps(record), flush=True)


def timed(call, repeat: int) -> "tuple[float, object]":
    """The median of `repeat` timed calls in ms, and the last call's answer."""
    times, answer = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        answer = call()
        times.append((time.perf_counter() - started) * 1e3)
    return statistics.median(times), answer


def oxigraph(store, query: str, limit_s: float) -> "int | None":
    """The number of solutions of `query`; `None` where taking them lasted over `limit_s`."""
    deadline = time.perf_counter() + limit_s
    n = 0
    for _ in store.query(query):
        n += 1
        if n % 1024 == 0 and time.perf_counter() > deadline:
            return None
    return n


def served(connection: http.client.HTTPConnection, query: str) -> int:
    """The number of solutions a `gsi serve` gives `query` (TSV lines after the header)."""
    target = f"/sparql?{urllib.parse.urlencode({'query': query})}"
    connection.request("GET", target, headers={"Accept": "text/tab-separated-values"})
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        sys.exit(f"gsi serve: {response.status} {body[:200]!r} for {query}")
    return body.count(b"\n") - 1


def gsi(args: argparse.Namespace, *command: str) -> int:
    """Runs gsi; returns the lines it wrote on stdout."""
    with subprocess.Popen([args.gsi, *command], stdout=subprocess.PIPE) as child:
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: child.stdout.read(1 << 20), b""))
    if child.returncode != 0:
        sys.exit(f"gsi {' '.join(command)}: exit code {child.returncode}")
    return lines


def run_size(args: argparse.Namespace, triples: int, work: Path) -> list:
    data = work / f"watdiv-{triples}.nt"
    index = work / f"watdiv-{triples}.gsidx"
    ms, _ = timed(
        lambda: gsi(args, "generate", "rdf", "--triples", str(triples), "--seed", str(args.seed),
                    "-o", str(data), "--quiet"),
        1,
    )
    emit({"type": "generate", "triples": triples, "ms": ms, "bytes": data.stat().st_size})
    gsi_load, _ = timed(lambda: gsi(args, "index", str(data), "-o", str(index), "--quiet"), 1)
    store = pyoxigraph.Store()
    oxigraph_load, _ = timed(
        lambda: store.bulk_load(path=str(data), format=pyoxigraph.RdfFormat.N_TRIPLES), 1
    )
    virtuoso, virtuoso_load = None, None
    if args.virtuoso:
        virtuoso = Virtuoso(work / f"virtuoso-{triples}", work, args.virtuoso_memory)
        virtuoso_load, _ = timed(lambda: virtuoso.bulk_load(data), 1)
    sparql = ["sparql", "--data", str(index), "--engine", args.engine, "--quiet", "--results", "tsv"]
    ready, _ = timed(lambda: gsi(args, *sparql, "-e", NOTHING), args.repeat)
    serve = [args.gsi, "serve", "--data", str(index), "--engine", args.engine, "--quiet",
             "--bind", "127.0.0.1:0", "--timeout", "3600", "--max-response", "16GiB"]
    server = contextlib.ExitStack()
    at = server.enter_context(started(serve, re.compile(r"listening on http://(\S+)"), "stderr"))
    connection = http.client.HTTPConnection(*at.rsplit(":", 1), timeout=3600)
    emit({"type": "load", "triples": triples, "quads": len(store), "gsi_index_ms": gsi_load,
          "oxigraph_bulk_load_ms": oxigraph_load, "virtuoso_bulk_load_ms": virtuoso_load,
          "gsi_ready_ms": ready})
    data.unlink()
    rows = []
    for query in sorted(Path(args.queries).glob("*.rq")):
        text = query.read_text()
        gsi_ms, lines = timed(lambda: gsi(args, *sparql, "--query", str(query)), args.repeat)
        oxigraph_ms, expected = timed(
            lambda: oxigraph(store, text, args.oxigraph_limit), args.repeat
        )
        served_ms, served_found = timed(lambda: served(connection, text), args.repeat)
        found = lines - 1  # the header
        if expected is not None and found != expected:
            sys.exit(f"{query.name} at {triples} triples: gsi found {found}, Oxigraph {expected}")
        if served_found != found:
            sys.exit(f"{query.name} at {triples} triples: gsi serve gave {served_found}, "
                     f"gsi sparql {found}")
        row = {"type": "query", "triples": triples, "query": query.stem, "solutions": found,
               "oxigraph_finished": expected is not None, "gsi_ms": gsi_ms,
               "gsi_after_ready_ms": max(gsi_ms - ready, 0.0), "gsi_served_ms": served_ms,
               "oxigraph_ms": oxigraph_ms}
        if virtuoso:
            row["virtuoso_ms"], row["virtuoso_solutions"] = timed(
                lambda: virtuoso.count(text), args.repeat
            )
        emit(row)
        rows.append(row)
    connection.close()
    server.close()
    if virtuoso:
        virtuoso.stop()
    del store
    index.unlink()
    return rows


def table(rows: list) -> None:
    virtuoso = any("virtuoso_ms" in r for r in rows)
    extra = " Virtuoso ms | Virtuoso / gsi | Virtuoso's counts differ |" if virtuoso else ""
    print("| triples | template | queries | gsi ms | gsi after ready ms | gsi served ms "
          "| Oxigraph ms | Oxigraph / gsi | Oxigraph / gsi served |" + extra)
    print("|---|---|---|---|---|---|---|---|---|" + ("---|---|---|" if virtuoso else ""))
    for triples in sorted({r["triples"] for r in rows}):
        for template in "LSFC":
            picked = [r for r in rows if r["triples"] == triples and r["query"][0] == template]
            g = statistics.median(r["gsi_ms"] for r in picked)
            after = statistics.median(r["gsi_after_ready_ms"] for r in picked)
            s = statistics.median(r["gsi_served_ms"] for r in picked)
            o = statistics.median(r["oxigraph_ms"] for r in picked)
            bound = "" if all(r["oxigraph_finished"] for r in picked) else " (≥, unfinished)"
            line = (f"| {triples:,} | {template} | {len(picked)} | {g:.1f} | {after:.1f} "
                    f"| {s:.1f} | {o:.1f}{bound} | {o / g:.2f} | {o / s:.2f} |")
            if virtuoso:
                v = statistics.median(r["virtuoso_ms"] for r in picked)
                differ = [r["query"] for r in picked if r["virtuoso_solutions"] != r["solutions"]]
                line += f" {v:.1f} | {v / g:.2f} | {', '.join(differ) or 'none'} |"
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gsi", default=str(REPO / "target" / "release" / "gsi"))
    parser.add_argument("--queries", default=str(REPO / "benches" / "watdiv"))
    parser.add_argument("--triples", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", help="folder for the data (default: a temporary one)")
    parser.add_argument("--engine", choices=["cpu", "gpu"], default="cpu",
                        help="gsi's engine (each run opens the saved index, and on the GPU "
                             "uploads it, within its `ready` time)")
    parser.add_argument(
        "--oxigraph-limit", type=float, default=300.0,
        help="seconds after which Oxigraph's solutions stop being taken (checked every 1024)",
    )
    parser.add_argument("--virtuoso", action="store_true",
                        help="also Virtuoso 7 (virtuoso-t and isql-vt on the PATH)")
    parser.add_argument("--virtuoso-memory", type=float, default=4.0,
                        help="GB of buffers Virtuoso is given")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        rows = [r for n in args.triples for r in run_size(args, n, Path(work))]
    emit({"type": "machine", "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d")})
    table(rows)


if __name__ == "__main__":
    main()
