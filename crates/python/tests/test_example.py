"""The notebook-style example runs as a script, so that it does not rot."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO


def test_the_networkx_example_runs_and_draws(tmp_path) -> None:
    script = REPO / "examples" / "networkx_matches.py"
    picture = tmp_path / "matches.png"
    run = subprocess.run(
        [sys.executable, str(script), "--output", str(picture)],
        capture_output=True,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "networkx agrees: 6" in run.stdout
    assert picture.stat().st_size > 10_000
