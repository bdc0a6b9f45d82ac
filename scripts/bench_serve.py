#!/usr/bin/env python3
"""Throughput and latency of `gsi serve` beside Oxigraph's server on the same data
(docs/BENCHMARKS.md, "gsi serve").

Makes WatDiv-shaped RDF data (users, products, retailers, cities; seeded), and light queries
of WatDiv's linear and star templates, each with a constant drawn from the data. Starts
`gsi serve` and Oxigraph's `oxigraph serve-read-only` (pip install oxigraph) on it, checks
that both give the same number of solutions for every query, then for 1, 8 and 64 clients
at once (each on a kept-alive connection, each sending the queries in turn) measures each
server alone for --seconds: queries per second, p50 and p99 latency. Prints one JSON object
per server and level, then a Markdown table.

    scripts/bench_serve.py --gsi target/release/gsi --users 20000 --seconds 10

`--engines cpu,gpu` starts one `gsi serve` per engine, each measured beside Oxigraph.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import random
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Iterator

RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
W = "http://db.uwaterloo.ca/~galuc/wsdbm/"


def iri(name: str) -> str:
    return f"<{W}{name}>"


def watdiv_like(users: int, seed: int) -> str:
    """Users who follow users, like products and live in cities; products of 10 categories
    with a genre, a tag and a caption; retailers offering products; cities in countries."""
    rng = random.Random(seed)
    products, retailers, cities = users // 4, max(users // 200, 1), max(users // 100, 1)
    lines = []
    for u in range(users):
        user = iri(f"User{u}")
        lines.append(f"{user} {RDF_TYPE} {iri('Role')} .")
        lines.append(f"{user} {iri('location')} {iri(f'City{rng.randrange(cities)}')} .")
        for f in {rng.randrange(users) for _ in range(3)} - {u}:
            lines.append(f"{user} {iri('follows')} {iri(f'User{f}')} .")
        for p in {rng.randrange(products) for _ in range(2)}:
            lines.append(f"{user} {iri('likes')} {iri(f'Product{p}')} .")
    for p in range(products):
        product = iri(f"Product{p}")
        lines.append(f"{product} {RDF_TYPE} {iri(f'ProductCategory{rng.randrange(10)}')} .")
        lines.append(f"{product} {iri('hasGenre')} {iri(f'Genre{rng.randrange(20)}')} .")
        lines.append(f"{product} {iri('tag')} {iri(f'Topic{rng.randrange(100)}')} .")
        lines.append(f'{product} {iri("caption")} "caption {p}" .')
    for r in range(retailers):
        for p in {rng.randrange(products) for _ in range(50)}:
            lines.append(f"{iri(f'Retailer{r}')} {iri('offers')} {iri(f'Product{p}')} .")
    for c in range(cities):
        lines.append(f"{iri(f'City{c}')} {iri('parentCountry')} {iri(f'Country{c % 25}')} .")
    return "\n".join(lines) + "\n"


def light_queries(users: int, count: int, seed: int) -> list[str]:
    """WatDiv's linear (L) and star (S) shapes, each with a constant of the data."""
    rng = random.Random(seed)
    retailers, cities = max(users // 200, 1), max(users // 100, 1)
    templates = [
        lambda: f"SELECT ?v0 ?v2 ?v3 WHERE {{ ?v0 {iri('likes')} ?v2 . ?v2 {iri('caption')} ?v3 . "
        f"?v0 {iri('location')} {iri(f'City{rng.randrange(cities)}')} }}",
        lambda: f"SELECT ?v1 ?v2 WHERE {{ {iri(f'City{rng.randrange(cities)}')} "
        f"{iri('parentCountry')} ?v1 . ?v2 {iri('location')} "
        f"{iri(f'City{rng.randrange(cities)}')} }}",
        lambda: f"SELECT ?v0 ?v1 WHERE {{ ?v0 {iri('likes')} ?v1 . "
        f"?v0 {iri('follows')} {iri(f'User{rng.randrange(users)}')} }}",
        lambda: f"SELECT ?v0 ?v2 WHERE {{ ?v0 {iri('tag')} {iri(f'Topic{rng.randrange(100)}')} . "
        f"?v0 {iri('caption')} ?v2 }}",
        lambda: f"SELECT ?v0 ?v2 WHERE {{ ?v0 a {iri(f'ProductCategory{rng.randrange(10)}')} . "
        f"?v0 {iri('hasGenre')} {iri(f'Genre{rng.randrange(20)}')} . ?v0 {iri('caption')} ?v2 }}",
        lambda: f"SELECT ?v0 ?v1 ?v2 WHERE {{ {iri(f'Retailer{rng.randrange(retailers)}')} "
        f"{iri('offers')} ?v0 . ?v0 {iri('tag')} ?v1 . ?v0 {iri('hasGenre')} ?v2 }}",
        lambda: f"SELECT ?v1 ?v2 WHERE {{ {iri(f'User{rng.randrange(users)}')} "
        f"{iri('follows')} ?v1 . ?v1 {iri('likes')} ?v2 }}",
    ]
    return [templates[i % len(templates)]() for i in range(count)]


@contextlib.contextmanager
def started(command: list[str], address: re.Pattern, stream: str) -> Iterator[str]:
    """Runs `command` until the context ends; yields the host:port it says it listens on."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pipe = process.stderr if stream == "stderr" else process.stdout
        for line in pipe:
            found = address.search(line)
            if found:
                break
        else:
            raise RuntimeError(f"{command[0]} did not start: {process.stderr.read()}")
        threading.Thread(target=pipe.read, daemon=True).start()
        yield found.group(1)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def ask(connection: http.client.HTTPConnection, path: str, query: str) -> bytes:
    target = f"{path}?{urllib.parse.urlencode({'query': query})}"
    connection.request("GET", target, headers={"Accept": "application/sparql-results+json"})
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise RuntimeError(f"{response.status} {body[:200]!r} for {query}")
    return body


def solutions(body: bytes) -> int:
    return len(json.loads(body)["results"]["bindings"])


def measure(address: str, path: str, queries: list[str], clients: int, seconds: float) -> dict:
    """`clients` connections sending `queries` in turn for `seconds`: the rate and latency."""
    host, port = address.rsplit(":", 1)
    latencies: list[list[float]] = [[] for _ in range(clients)]
    go, stop = threading.Barrier(clients + 1), threading.Event()

    def client(k: int) -> None:
        connection = http.client.HTTPConnection(host, int(port), timeout=120)
        i = k * 7919
        go.wait()
        while not stop.is_set():
            begun = time.perf_counter()
            ask(connection, path, queries[i % len(queries)])
            latencies[k].append(time.perf_counter() - begun)
            i += 1
        connection.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for thread in threads:
        thread.start()
    go.wait()
    begun = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - begun
    every = sorted(t for per in latencies for t in per)
    quantile = statistics.quantiles(every, n=100, method="inclusive")
    return {
        "clients": clients,
        "queries": len(every),
        "qps": len(every) / elapsed,
        "p50_ms": quantile[49] * 1e3,
        "p99_ms": quantile[98] * 1e3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gsi", default="target/release/gsi")
    parser.add_argument("--oxigraph", default=shutil.which("oxigraph") or "oxigraph")
    parser.add_argument("--users", type=int, default=20000)
    parser.add_argument("--queries", type=int, default=700)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--levels", default="1,8,64")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--engines", default="cpu", help="gsi serve's engines, each a server: cpu, gpu or cpu,gpu"
    )
    args = parser.parse_args()
    levels = [int(n) for n in args.levels.split(",")]
    with tempfile.TemporaryDirectory(prefix="gsi-bench-serve-") as folder:
        data = Path(folder) / "watdiv-like.nt"
        data.write_text(watdiv_like(args.users, args.seed))
        triples = sum(1 for _ in data.open())
        queries = light_queries(args.users, args.queries, args.seed + 1)
        store = Path(folder) / "oxigraph"
        subprocess.run(
            [args.oxigraph, "load", "--location", str(store), "--file", str(data)],
            check=True,
            capture_output=True,
        )
        oxigraph = [args.oxigraph, "serve-read-only", "--location", str(store)]
        oxigraph += ["--bind", "127.0.0.1:7979"]
        results = []
        with contextlib.ExitStack() as servers:
            sides = {}
            for engine in args.engines.split(","):
                gsi = [args.gsi, "serve", "--data", str(data), "--engine", engine, "--quiet"]
                gsi += ["--bind", "127.0.0.1:0"]
                at = servers.enter_context(
                    started(gsi, re.compile(r"listening on http://(\S+)"), "stderr")
                )
                sides[f"gsi serve ({engine.upper()})"] = (at, "/sparql")
            oxigraph_at = servers.enter_context(
                started(oxigraph, re.compile(r"(127\.0\.0\.1:\d+)"), "stderr")
            )
            sides["oxigraph"] = (oxigraph_at, "/query")
            # Every server gives every query the same number of solutions.
            connections = {
                name: http.client.HTTPConnection(*at.rsplit(":", 1))
                for name, (at, _) in sides.items()
            }
            for query in queries:
                counts = {
                    name: solutions(ask(connections[name], path, query))
                    for name, (_, path) in sides.items()
                }
                assert len(set(counts.values())) == 1, (query, counts)
            for clients in levels:
                for name, (at, path) in sides.items():
                    measure(at, path, queries, clients, min(args.seconds, 2))  # warm-up
                    record = measure(at, path, queries, clients, args.seconds)
                    record = {"server": name, "triples": triples, **record}
                    print(json.dumps(record), flush=True)
                    results.append(record)
    print("\n| clients | server | queries/s | p50 ms | p99 ms |\n|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['clients']} | {r['server']} | {r['qps']:.0f} | {r['p50_ms']:.2f} "
            f"| {r['p99_ms']:.2f} |"
        )


if __name__ == "__main__":
    main()
