"""Shares on a real Slurm cluster of one node (this machine): a job array of `gsi match
--partition`, added up by `gsi merge`, and `gsi.distributed.count` through submitit, each
against networkx's count and the single run. Skipped, with the reason, only where the
daemons cannot start (or fails there, where GSI_REQUIRE_SLURM=1)."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

import gsi
import gsi.distributed
from conftest import REPO, need
from slurm_cluster import LocalSlurm, SlurmUnavailable
from test_distributed import chorded_square, data_file, networkx_count, write_graph

SHARES = 8
SBATCH_SCRIPT = REPO / "examples" / "slurm-shares.sbatch"


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    cluster = LocalSlurm(tmp_path_factory.mktemp("slurm"))
    try:
        try:
            cluster.start()
        except SlurmUnavailable as reason:
            need(f"the Slurm daemons cannot start: {reason}", "GSI_REQUIRE_SLURM")
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def indexed(tmp_path, gsi_binary):
    """A saved index of a small random graph, a query file, and networkx's count."""
    path, G = data_file(tmp_path, seed=11, n=60, m=300)
    Q = chorded_square([0, 1, 0, 1])
    index = tmp_path / "data.gsidx"
    subprocess.run([gsi_binary, "index", str(path), "-o", str(index)], check=True)
    expected = networkx_count(G, Q)
    assert expected > 0
    return index, write_graph(Q, tmp_path / "q.graph"), expected


def test_the_documented_script_is_the_one_submitted():
    assert SBATCH_SCRIPT.read_text() in (REPO / "docs" / "DISTRIBUTED.md").read_text()


def _within(seconds: float, work, slurm):
    """`work()`'s value, or a failure naming the queue where it takes longer than `seconds`
    (submitit waits forever for a job that ends without its result)."""
    outcome = {}

    def run():
        try:
            outcome["value"] = work()
        except BaseException as err:  # handed to the test below
            outcome["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        queue = subprocess.run(["squeue"], capture_output=True, text=True, env=slurm.env)
        pytest.fail(f"not done within {seconds} s; squeue:\n{queue.stdout}{queue.stderr}")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _json_lines(text: str) -> list:
    return [json.loads(line) for line in text.splitlines()]


def test_a_job_array_merged_equals_networkx_and_the_single_run(
    slurm, indexed, gsi_binary, tmp_path
):
    index, query_file, expected = indexed
    single = subprocess.run(
        [gsi_binary, "match", "--data", str(index), "--query", str(query_file), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    [whole] = [line for line in _json_lines(single.stdout) if line["type"] == "query"]
    out = tmp_path / "shares"
    out.mkdir()
    env = {**slurm.env, "PATH": f"{Path(gsi_binary).parent}{os.pathsep}{os.environ['PATH']}"}
    array = subprocess.run(
        ["sbatch", "--wait", f"--array=0-{SHARES - 1}", f"--output={out}/%a.log"]
        + [str(SBATCH_SCRIPT), str(index), str(query_file), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    logs = {log.name: log.read_text() for log in out.glob("*.log")}
    assert array.returncode == 0, (array.stderr, logs)
    shares = sorted(out.glob("*.jsonl"))
    assert len(shares) == SHARES
    partitions = {
        line["partition"]
        for share in shares
        for line in _json_lines(share.read_text())
        if line["type"] == "summary"
    }
    assert partitions == {f"{i}/{SHARES}" for i in range(SHARES)}
    merged = subprocess.run(
        [gsi_binary, "merge", "--json"] + [str(share) for share in shares],
        capture_output=True,
        text=True,
        check=True,
    )
    [total] = [line for line in _json_lines(merged.stdout) if line["type"] == "query"]
    assert int(total["matches"]) == int(whole["matches"]) == expected
    assert total["complete"]


def test_submitit_on_slurm_equals_networkx(slurm, indexed, tmp_path, monkeypatch):
    submitit = pytest.importorskip("submitit", reason="submitit is not installed")
    index, query_file, expected = indexed
    monkeypatch.setenv("SLURM_CONF", str(slurm.conf))
    executor = submitit.AutoExecutor(folder=tmp_path / "submitit", cluster="slurm")
    executor.update_parameters(timeout_min=10, cpus_per_task=1)
    answer = _within(
        300,
        lambda: gsi.distributed.count(
            index, query_file, shares=SHARES, executor=executor, engine="cpu"
        ),
        slurm,
    )
    assert answer.total == expected
    assert answer.complete
    assert [s.attempts for s in answer.shares] == [1] * SHARES
    single = gsi.Matcher(gsi.Graph.read(index), engine="cpu").count(gsi.Graph.read(query_file))
    assert single == expected
