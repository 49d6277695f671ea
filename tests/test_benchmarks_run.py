"""The benchmarks the docs quote still run: each on a small input, in a process of its own, to
its figures (their sizes are the docs'; only that they finish and print is checked here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("script", "args", "printed"),
    [
        ("long_input.py", ["--chars", "5000", "--runs", "1"], "run 1: loop stall max"),
        ("turn_overhead.py", ["--sessions", "2", "--turns", "3"], "turns/s"),
        ("session_search.py", ["--quick"], "index search"),
        ("sentences.py", [], "personad rules: tuning"),
        ("policy_accuracy.py", [], "secrets set:"),
        ("recall.py", ["--quick", "--no-embeddings"], "recall@5"),
        ("secret_shapes.py", ["--units", "50", "--shapes", "pw: ,seed phrase: "], "growth"),
        ("recall_quality.py", ["--set", "d", "--no-embeddings", "--only", "fts5 plain"], "set d"),
    ],
)
def test_a_benchmark_runs_to_its_figures(script: str, args: list[str], printed: str) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert printed in done.stdout, done.stdout[-2000:]
