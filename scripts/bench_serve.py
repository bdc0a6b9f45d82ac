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

`--engines cpu,gpu` starts one `gsi serve` per engine, each measured beside Oxigraph;
`gpu@8` is the GPU engine answering up to 8 queries at once (`--max-concurrent 8`).
`--baseline OTHER_GSI` starts the same servers with another build too, measured in turn;
`--virtuoso` adds Virtuoso 7's server (Debian's virtuoso-opensource-7-bin), bulk-loaded.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import os
import http.client
import json
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Virtuoso:
    """A Virtuoso 7 server of the script's own: its database in `folder`, on free local
    ports, with room for every solution of a query and no time limit."""

    GRAPH = "http://example.org/watdiv"

    def __init__(self, folder: Path, data_folder: Path, memory_gb: float, clients: int = 2):
        folder.mkdir(parents=True, exist_ok=True)
        self.sql_port, self.http_port = free_port(), free_port()
        # Virtuoso's guide: 85,000 buffers of 8 kB per GB given to it, two thirds dirty.
        buffers = int(85_000 * memory_gb)
        ini = folder / "virtuoso.ini"
        ini.write_text(f"""[Database]
DatabaseFile = {folder}/virtuoso.db
ErrorLogFile = {folder}/virtuoso.log
TransactionFile = {folder}/virtuoso.trx
xa_persistent_file = {folder}/virtuoso.pxa
Striping = 0
[TempDatabase]
DatabaseFile = {folder}/virtuoso-temp.db
TransactionFile = {folder}/virtuoso-temp.trx
[Parameters]
ServerPort = 127.0.0.1:{self.sql_port}
DirsAllowed = ., {data_folder}
NumberOfBuffers = {buffers}
MaxDirtyBuffers = {buffers * 2 // 3}
CheckpointInterval = 0
[HTTPServer]
ServerPort = 127.0.0.1:{self.http_port}
ServerRoot = {folder}
ServerThreads = {clients}
MaxClientConnections = {clients}
[SPARQL]
ResultSetMaxRows = 2000000000
MaxQueryExecutionTime = 0
MaxQueryCostEstimationTime = 0
""")
        self.server = subprocess.Popen(
            ["virtuoso-t", "+foreground", "+configfile", str(ini)],
            cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                sys.exit(f"virtuoso-t stopped at start (see {folder}/virtuoso.log)")
            try:
                self.count("ASK {}")
                return
            except OSError:
                time.sleep(0.5)
        self.stop()
        sys.exit("virtuoso-t did not answer within 120 s")

    def sql(self, statements: str) -> None:
        done = subprocess.run(
            ["isql-vt", f"127.0.0.1:{self.sql_port}", "dba", "dba", f"exec={statements}"],
            capture_output=True, text=True,
        )
        if done.returncode != 0 or "*** Error" in done.stdout + done.stderr:
            sys.exit(f"isql-vt {statements!r}: {done.stdout}{done.stderr}")

    def bulk_load(self, data: Path) -> None:
        self.sql(f"ld_dir('{data.parent}', '{data.name}', '{self.GRAPH}'); "
                 "rdf_loader_run(); checkpoint;")

    def count(self, query: str) -> int:
        """The number of solutions of `query` (an ASK counts as one)."""
        body = urllib.parse.urlencode({"query": query, "default-graph-uri": self.GRAPH})
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.http_port}/sparql", data=body.encode(),
            headers={"Accept": "application/sparql-results+json",
                     "Content-Type": "application/x-www-form-urlencoded"},
        )
        with urllib.request.urlopen(request, timeout=600) as reply:
            answer = json.load(reply)
        return 1 if "boolean" in answer else len(answer["results"]["bindings"])

    def stop(self) -> None:
        self.server.terminate()
        try:
            self.server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.server.kill()


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


def clients_of_one_process(
    address: str, path: str, queries: list[str], first: int, count: int, start: float, stop: float
) -> list[float]:
    """Clients `first..first + count`, one thread each on a kept-alive connection, sending
    `queries` in turn from wall-clock time `start` to `stop`: the latencies of the queries
    they began before `stop`."""
    host, port = address.rsplit(":", 1)
    latencies: list[list[float]] = [[] for _ in range(count)]

    def client(k: int) -> None:
        connection = http.client.HTTPConnection(host, int(port), timeout=120)
        i = (first + k) * 7919
        time.sleep(max(start - time.time(), 0))
        while time.time() < stop:
            begun = time.perf_counter()
            ask(connection, path, queries[i % len(queries)])
            latencies[k].append(time.perf_counter() - begun)
            i += 1
        connection.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [t for per in latencies for t in per]


def measure(
    address: str, path: str, queries: list[str], clients: int, seconds: float, processes: int
) -> dict:
    """`clients` connections sending `queries` in turn for `seconds`, spread over up to
    `processes` client processes (one Python process's threads share one interpreter lock,
    which would cap the rate it can ask for): the rate and latency."""
    processes = max(1, min(processes, clients))
    start = time.time() + 1.0
    stop = start + seconds
    # Process p runs clients firsts[p] .. firsts[p + 1].
    firsts = [p * clients // processes for p in range(processes + 1)]
    with concurrent.futures.ProcessPoolExecutor(processes) as pool:
        parts = [
            pool.submit(
                clients_of_one_process,
                address,
                path,
                queries,
                first,
                after - first,
                start,
                stop,
            )
            for first, after in zip(firsts, firsts[1:])
        ]
        every = sorted(t for part in parts for t in part.result())
    quantile = statistics.quantiles(every, n=100, method="inclusive")
    return {
        "clients": clients,
        "client_processes": processes,
        "queries": len(every),
        "qps": len(every) / seconds,
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
        "--client-processes",
        type=int,
        default=max(1, (os.cpu_count() or 4) // 4),
        help="processes the clients are spread over (a quarter of the processors)",
    )
    parser.add_argument(
        "--engines",
        default="cpu",
        help="gsi serve's engines, each a server: cpu, gpu, cpu,gpu; ENGINE@N answers N at once",
    )
    parser.add_argument("--baseline", help="another gsi build, serving the same engines")
    parser.add_argument(
        "--virtuoso",
        action="store_true",
        help="also Virtuoso 7 (virtuoso-t and isql-vt on the PATH), bulk-loaded",
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
            builds = [(args.gsi, "")] + ([(args.baseline, ", baseline")] if args.baseline else [])
            for binary, build in builds:
                for spec in args.engines.split(","):
                    engine, _, at_once = spec.partition("@")
                    gsi = [binary, "serve", "--data", str(data), "--engine", engine, "--quiet"]
                    gsi += ["--bind", "127.0.0.1:0"]
                    gsi += ["--max-concurrent", at_once] if at_once else []
                    at = servers.enter_context(
                        started(gsi, re.compile(r"listening on http://(\S+)"), "stderr")
                    )
                    name = engine.upper() + (f", {at_once} at once" if at_once else "") + build
                    sides[f"gsi serve ({name})"] = (at, "/sparql")
            oxigraph_at = servers.enter_context(
                started(oxigraph, re.compile(r"(127\.0\.0\.1:\d+)"), "stderr")
            )
            sides["oxigraph"] = (oxigraph_at, "/query")
            if args.virtuoso:
                virtuoso = Virtuoso(Path(folder) / "virtuoso", Path(folder), 4.0, max(levels))
                servers.callback(virtuoso.stop)
                virtuoso.bulk_load(data)
                sides["virtuoso"] = (f"127.0.0.1:{virtuoso.http_port}", "/sparql")
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
                    ways = (at, path, queries, clients)
                    measure(*ways, min(args.seconds, 2), args.client_processes)  # warm-up
                    record = measure(*ways, args.seconds, args.client_processes)
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
