"""Fit the weights of the recalled list's second ordering (``bot/memory/episodes/rerank.py``).

    python bench/rerank_fit.py [--sets abde] [--dump FILE] [--l2 0.01] [--held-out-e]

Feeds the people of sets A, B, D and E through the daemon's write path with the embedding
model (as ``bench/recall_quality.py`` does), asks each question as a session does, and keeps,
for each of the hits the search gives to be put in order (``candidates``), the features the
daemon reads of it (``rerank_features``) and whether it holds an evidence turn; ``--dump``
keeps them in a file, so a second run only fits. The fit: a linear model over the features,
standardised, trained on pairs of a hit with evidence and one without of the same question
(logistic loss, each question weighing one, L2 ``--l2``), on the tuning parts only (set A is
all tuning). It prints recall@5 of the list as the search orders it and as the model does:
by leave-one-person-out over the tuning parts, then with the model fitted on all of them,
on the held-out parts of sets B and D (and of set E with ``--held-out-e``: read it only for
a model about to be kept), and the weights per unit, as ``WEIGHTS`` takes them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.recall_quality import PERSONA, Turns, _clocked, _feed, load, records
from bot.memory.embedding.models import Embedder, load_embedder
from bot.memory.episodes.rerank import FEATURES
from bot.memory.party_names import without_parties
from bot.memory.sqlite.backend import SqliteFtsMemory

Question = dict[str, Any]
"""One question's candidates: ``rows`` (features), ``relevant`` (0/1 each), ``sources`` (the
turns each came from), its ``evidence``, ``set``, ``person``, ``split`` and ``kind``."""


async def _questions(which: str, embedder: Embedder, workdir: Path) -> list[Question]:
    data = load(which)
    found: list[Question] = []
    for user in data["users"]:
        turns = Turns(user["sessions"])
        clock, now = _clocked(user)
        memory = SqliteFtsMemory(workdir / which / user["user"], embedder=embedder, now=now)
        await memory.open()
        try:
            await _feed(memory, records(user), clock, "write")
            parties = user.get("parties", [user["user"], user.get("friend", PERSONA)])
            clock[0] = datetime.fromisoformat(user["asked_at"])
            for question in user["questions"]:
                searched = without_parties(question["question"], parties)
                hits = await memory.candidates(searched, limit=10)
                rows = await memory.rerank_features(searched, hits) or []
                evidence = set(question["evidence"])
                sources = [sorted(turns.source(hit.item)) for hit in hits]
                found.append(
                    {
                        "set": which,
                        "person": user["user"],
                        "split": question.get("split", "tuning"),
                        "kind": question["kind"],
                        "evidence": sorted(evidence),
                        "rows": rows,
                        "sources": sources,
                        "relevant": [float(bool(evidence & set(s))) for s in sources],
                    }
                )
        finally:
            await memory.close()
        print(f"  set {which}, {user['user']}: {len(user['questions'])} questions", flush=True)
    return found


@dataclass(frozen=True, slots=True)
class Model:
    weights: np.ndarray  # per standardised feature
    mean: np.ndarray
    scale: np.ndarray

    def per_unit(self) -> dict[str, float]:
        return {
            name: round(float(w / s), 4)
            for name, w, s in zip(FEATURES, self.weights, self.scale, strict=True)
        }

    def order(self, question: Question) -> list[int]:
        if not question["rows"]:  # nothing read (no model's cosine): the search's order
            return list(range(len(question["sources"])))
        z = (np.asarray(question["rows"]) - self.mean) / self.scale
        scores = z @ self.weights
        return sorted(range(len(scores)), key=lambda n: -scores[n])


def fit(questions: list[Question], l2: float, steps: int = 400, rate: float = 0.5) -> Model:
    """Pairwise logistic regression by full-batch gradient descent."""
    every = np.vstack([np.asarray(q["rows"]) for q in questions if q["rows"]])
    mean, scale = every.mean(0), every.std(0) + 1e-9
    differences, weights = [], []
    for q in questions:
        relevant = np.asarray(q["relevant"])
        good, bad = np.where(relevant > 0)[0], np.where(relevant == 0)[0]
        if not len(good) or not len(bad):
            continue
        z = (np.asarray(q["rows"]) - mean) / scale
        pairs = (z[good][:, None, :] - z[bad][None, :, :]).reshape(-1, z.shape[1])
        differences.append(pairs)
        weights.append(np.full(len(pairs), 1.0 / len(pairs)))
    d = np.vstack(differences)
    w_pairs = np.concatenate(weights)
    w_pairs /= w_pairs.sum()
    w = np.zeros(d.shape[1])
    for _ in range(steps):
        margin = d @ w
        gradient = -(w_pairs / (1 + np.exp(margin))) @ d + l2 * w
        w -= rate * gradient
    return Model(w, mean, scale)


def recall_at_5(question: Question, order: list[int] | None = None) -> float:
    sources = question["sources"]
    ranked = [sources[n] for n in order] if order is not None else sources
    covered = {turn for source in ranked[:5] for turn in source}
    return len(set(question["evidence"]) & covered) / len(question["evidence"])


def _report(label: str, questions: list[Question], new: list[float]) -> str:
    old = [recall_at_5(q) for q in questions]
    up = sum(n > o for n, o in zip(new, old, strict=True))
    down = sum(n < o for n, o in zip(new, old, strict=True))
    return f"{label} {np.mean(old):.3f} -> {np.mean(new):.3f} (+{up}/-{down} of {len(old)})"


def cross_validated(questions: list[Question], l2: float) -> dict[int, float]:
    """Each tuning question's recall@5 by a model fitted without its person."""
    tuning = [n for n, q in enumerate(questions) if q["split"] == "tuning"]
    whose = {n: (questions[n]["set"], questions[n]["person"]) for n in tuning}
    found: dict[int, float] = {}
    for person in sorted(set(whose.values())):
        model = fit([questions[n] for n in tuning if whose[n] != person], l2)
        for n in tuning:
            if whose[n] == person:
                found[n] = recall_at_5(questions[n], model.order(questions[n]))
    return found


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="abde")
    parser.add_argument("--dump", type=Path, help="keep (or read) the questions' features here")
    parser.add_argument("--l2", type=float, default=0.01)
    parser.add_argument("--held-out-e", action="store_true")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    if args.dump is not None and args.dump.exists():
        questions: list[Question] = json.loads(args.dump.read_text())
    else:
        embedder = load_embedder("auto")
        if embedder is None:
            raise SystemExit("no embedding model is installed: the model reads its cosines")
        print(f"embedding model: {getattr(embedder, 'name', '?')}", flush=True)
        questions = []
        with tempfile.TemporaryDirectory(prefix="personad-rerank-") as tmp:
            for which in args.sets:
                questions += await _questions(which, embedder, Path(tmp))
        if args.dump is not None:
            args.dump.write_text(json.dumps(questions))
    questions = [q for q in questions if q["set"] in args.sets]
    checked = cross_validated(questions, args.l2)
    print(f"leave one person out, tuning parts, recall@5 (l2 {args.l2}):")
    for which in args.sets:
        chosen = [n for n in checked if questions[n]["set"] == which]
        if chosen:
            asked = [questions[n] for n in chosen]
            print("  " + _report(f"set {which}", asked, [checked[n] for n in chosen]))
    model = fit([q for q in questions if q["split"] == "tuning"], args.l2)
    print("fitted on every tuning part; held-out parts, recall@5:")
    for which in args.sets:
        if which == "e" and not args.held_out_e:
            continue
        held = [q for q in questions if q["set"] == which and q["split"] == "held-out"]
        if held:
            new = [recall_at_5(q, model.order(q)) for q in held]
            print("  " + _report(f"set {which}", held, new))
            for kind in sorted({q["kind"] for q in held}):
                of_kind = [(q, r) for q, r in zip(held, new, strict=True) if q["kind"] == kind]
                print("    " + _report(kind, [q for q, _ in of_kind], [r for _, r in of_kind]))
    print("WEIGHTS (per unit):")
    print(json.dumps(model.per_unit(), indent=4))


if __name__ == "__main__":
    asyncio.run(main())
