"""The notebook-style example runs as a script, and the README's Python example as written,
so that they do not rot."""

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


def test_the_readme_python_example_runs_verbatim() -> None:
    readme = (REPO / "README.md").read_text()
    section = readme.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = [part.split("```", 1)[0] for part in section.split("```python\n")[1:]]
    assert blocks, "the README's Python section has no example"
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        for code in blocks
    ]
    assert all(run.returncode == 0 and not run.stderr for run in runs), [r.stderr for r in runs]
    # The first prints the count its comment gives.
    assert runs[0].stdout.startswith("270\n"), runs[0].stdout
