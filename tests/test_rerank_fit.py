"""The fit of the recalled list's second ordering (``bench/rerank_fit.py``): it learns which
feature tells a hit with evidence from one without, and reports by leaving each person out."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from bench.rerank_fit import Question, cross_validated, fit, recall_at_5
from bot.memory.episodes.rerank import FEATURES

REPO = Path(__file__).resolve().parent.parent
TELLING = FEATURES.index("around_cosine")


def _questions(seed: int = 7) -> list[Question]:
    """Questions whose evidence is the hit whose conversation is close to the question (the
    telling feature), placed anywhere in the list; every other feature is noise."""
    rng = random.Random(seed)
    found: list[Question] = []
    for which in "ad":
        for person in ("p1", "p2", "p3"):
            for n in range(12):
                rows = [[rng.random() for _ in FEATURES] for _ in range(8)]
                answer = rng.randrange(8)
                for at, row in enumerate(rows):
                    row[TELLING] = 0.9 if at == answer else rng.random() * 0.5
                found.append(
                    {
                        "set": which,
                        "person": person,
                        "split": "held-out" if which == "d" and n % 2 else "tuning",
                        "kind": "single",
                        "evidence": [f"{person}-{n}"],
                        "rows": rows,
                        "sources": [[f"{person}-{n}"] if at == answer else [] for at in range(8)],
                        "relevant": [float(at == answer) for at in range(8)],
                    }
                )
    return found


def test_the_fit_learns_the_feature_that_tells_evidence_apart() -> None:
    questions = _questions()
    model = fit([q for q in questions if q["split"] == "tuning"], l2=0.01)
    weights = model.per_unit()
    assert max(weights, key=lambda name: abs(weights[name])) == "around_cosine"
    held = [q for q in questions if q["split"] == "held-out"]
    assert sum(recall_at_5(q, model.order(q)) for q in held) == len(held)
    assert sum(recall_at_5(q) for q in held) < len(held)  # the list as it came misses some
    checked = cross_validated(questions, 0.01)
    assert len(checked) == sum(q["split"] == "tuning" for q in questions)
    assert all(recall == 1.0 for recall in checked.values())


def test_the_script_fits_from_a_kept_dump(tmp_path: Path) -> None:
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(_questions()))
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "rerank_fit.py"),
            "--sets",
            "ad",
            "--dump",
            str(dump),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "leave one person out" in done.stdout and "set d" in done.stdout
    weights = json.loads(done.stdout[done.stdout.index("{") :])
    assert list(weights) == list(FEATURES) and weights["around_cosine"] > 0
