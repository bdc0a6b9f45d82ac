"""A Slurm cluster of one node, this machine, for the tests: munged, slurmctld and slurmd
started in the foreground with a minimal configuration and their state in a folder of their
own, and stopped at the end. Needs Debian's `slurm-wlm` and `munge` and root (the daemons run
as root, on ports picked free)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Dict, List

COMMANDS = ["munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo", "scancel"]


class SlurmUnavailable(Exception):
    """Why the cluster could not start."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LocalSlurm:
    """The cluster's daemons and the environment its commands need (``SLURM_CONF``)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.conf = folder / "slurm.conf"
        self.munge_socket = folder / "munge.socket"
        self.processes: Dict[str, subprocess.Popen] = {}

    @property
    def env(self) -> Dict[str, str]:
        """The environment of a Slurm command run against this cluster."""
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def start(self, ready_within: float = 60) -> None:
        """Starts the daemons and waits until the node is idle; raises `SlurmUnavailable`
        with the reason (and the daemons' last log lines) where they cannot start."""
        missing = [name for name in COMMANDS if shutil.which(name) is None]
        if missing:
            raise SlurmUnavailable(
                f"{', '.join(missing)} not found (Debian: apt-get install slurm-wlm munge)"
            )
        if os.geteuid() != 0:
            raise SlurmUnavailable("the Slurm daemons of the test run as root; this is not root")
        key = self.folder / "munge.key"
        self._run(["mungekey", "--create", f"--keyfile={key}"])
        self._spawn(
            "munged",
            [
                "munged",
                "--foreground",
                # The folder is private (a test's temporary folder): only root reaches the
                # socket, which is all the daemons and commands of the test need.
                "--force",
                f"--socket={self.munge_socket}",
                f"--key-file={key}",
                f"--pid-file={self.folder / 'munged.pid'}",
                f"--seed-file={self.folder / 'munged.seed'}",
                f"--log-file={self.folder / 'munged.log'}",
            ],
        )
        self._wait_for(self.munge_socket.exists, 10, "munged made no socket")
        self.conf.write_text(self._configuration())
        self._spawn("slurmctld", ["slurmctld", "-D", "-f", str(self.conf)])
        self._spawn("slurmd", ["slurmd", "-D", "-f", str(self.conf)])
        self._wait_for(self._node_idle, ready_within, "the node did not become idle")

    def stop(self) -> None:
        """Cancels the jobs left (a failed test's), then stops the daemons it started (slurmd
        first), each given 10 s before it is killed."""
        if "slurmctld" in self.processes:
            subprocess.run(["scancel", "--user=root"], env=self.env, timeout=30, check=False)
        for name in ["slurmd", "slurmctld", "munged"]:
            process = self.processes.pop(name, None)
            if process is None:
                continue
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def _configuration(self) -> str:
        """slurm.conf for this machine as its one node: ``slurmd -C`` gives the node's real
        CPUs and memory."""
        node = self._run(["slurmd", "-C"]).splitlines()[0]
        name = node.split()[0].removeprefix("NodeName=")
        state = self.folder / "state"
        spool = self.folder / "spool"
        state.mkdir()
        spool.mkdir()
        lines = [
            "ClusterName=gsitest",
            f"SlurmctldHost={name}(127.0.0.1)",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            f"AuthInfo=socket={self.munge_socket}",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"StateSaveLocation={state}",
            f"SlurmdSpoolDir={spool}",
            f"SlurmctldPidFile={self.folder / 'slurmctld.pid'}",
            f"SlurmdPidFile={self.folder / 'slurmd.pid'}",
            f"SlurmctldLogFile={self.folder / 'slurmctld.log'}",
            f"SlurmdLogFile={self.folder / 'slurmd.log'}",
            # No cgroups, as in a container; accounting, MPI and switch left at their
            # defaults (none), whose plugin names differ between Slurm versions.
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "ReturnToService=2",
            f"{node} NodeAddr=127.0.0.1 State=UNKNOWN",
            f"PartitionName=test Nodes={name} Default=YES MaxTime=INFINITE State=UP",
        ]
        return "\n".join(lines) + "\n"

    def _node_idle(self) -> bool:
        states = self._run(["sinfo", "--noheader", "--Node", "--format=%T"]).split()
        return states == ["idle"]

    def _spawn(self, name: str, command: List[str]) -> None:
        output = open(self.folder / f"{name}.out", "wb")
        with output:
            self.processes[name] = subprocess.Popen(
                command, stdout=output, stderr=subprocess.STDOUT, env=self.env
            )

    def _run(self, command: List[str]) -> str:
        done = subprocess.run(command, capture_output=True, text=True, env=self.env, timeout=30)
        if done.returncode != 0:
            raise SlurmUnavailable(f"{' '.join(command)} failed: {done.stderr.strip()}")
        return done.stdout

    def _wait_for(self, ready, within: float, problem: str) -> None:
        deadline = time.monotonic() + within
        while True:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise SlurmUnavailable(
                        f"{name} exited with code {process.returncode}: {self._logs()}"
                    )
            try:
                if ready():
                    return
            except SlurmUnavailable:
                pass
            if time.monotonic() > deadline:
                raise SlurmUnavailable(f"{problem} within {within:.0f} s: {self._logs()}")
            time.sleep(0.5)

    def _logs(self) -> str:
        """The last lines of each daemon's log."""
        tails = []
        for log in sorted(self.folder.glob("*.log")) + sorted(self.folder.glob("*.out")):
            lines = log.read_text(errors="replace").splitlines()[-5:]
            if lines:
                tails.append(f"{log.name}: " + " | ".join(lines))
        return "; ".join(tails) or "no log"
