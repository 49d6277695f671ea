"""How well the memory write policy labels a hand-written set of chat sentences.

Run: ``.venv/bin/python bench/policy_accuracy.py [tests/data/policy_labelled.tsv] [--errors]``.
Prints overall accuracy, per-label precision and recall, per-language accuracy, the confusion
matrix (rows: truth, columns: prediction) and the throughput of ``classify``; ``--errors``
also lists every sentence the policy got wrong.

A rejected sentence is predicted as the kind of rejection its reason names (``secret``,
``trivial``, ``ephemeral``), so a secret rejected "as trivial" still counts as a miss here
even though nothing was stored.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.memory.policy import Verdict, classify

__all__ = ["LABELS", "Example", "load", "main", "predicted_label"]

LABELS = ("fact", "preference", "decision", "skill", "error", "ephemeral", "trivial", "secret")
DEFAULT_SET = Path(__file__).resolve().parent.parent / "tests" / "data" / "policy_labelled.tsv"


@dataclass(frozen=True, slots=True)
class Example:
    label: str
    lang: str
    text: str


def load(path: Path) -> list[Example]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [Example(row["label"], row["lang"], row["text"]) for row in reader]


def predicted_label(verdict: Verdict) -> str:
    """The label a verdict stands for: its category, or the kind of rejection."""
    if verdict.category is not None:
        return verdict.category
    for kind in ("secret", "ephemeral", "trivial"):
        if verdict.reason.startswith(f"rejected: {kind}"):
            return kind
    return "trivial"


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows)
    return "\n".join(lines)


def report(examples: list[Example], *, show_errors: bool) -> float:
    started = time.perf_counter()
    predictions = [predicted_label(classify(example.text)) for example in examples]
    elapsed = time.perf_counter() - started

    pairs = Counter((ex.label, pred) for ex, pred in zip(examples, predictions, strict=True))
    right = sum(ex.label == pred for ex, pred in zip(examples, predictions, strict=True))
    accuracy = right / len(examples)
    print(f"examples: {len(examples)}   accuracy: {accuracy:.3f} ({right}/{len(examples)})")
    print(f"classify: {elapsed / len(examples) * 1e6:.0f} µs a sentence\n")

    rows = [["label", "precision", "recall", "support"]]
    for label in LABELS:
        truth = sum(n for (t, _), n in pairs.items() if t == label)
        said = sum(n for (_, p), n in pairs.items() if p == label)
        hit = pairs[(label, label)]
        precision = f"{hit / said:.2f}" if said else "-"
        recall = f"{hit / truth:.2f}" if truth else "-"
        rows.append([label, precision, recall, str(truth)])
    print(_table(rows) + "\n")

    for lang in sorted({ex.lang for ex in examples}):
        subset = [
            (ex, pred) for ex, pred in zip(examples, predictions, strict=True) if ex.lang == lang
        ]
        lang_right = sum(ex.label == pred for ex, pred in subset)
        print(f"{lang}: {lang_right / len(subset):.3f} ({lang_right}/{len(subset)})")

    header = ["truth \\ predicted", *(label[:5] for label in LABELS)]
    matrix = [header] + [
        [label, *(str(pairs[(label, pred)]) for pred in LABELS)] for label in LABELS
    ]
    print("\n" + _table(matrix))

    if show_errors:
        print("\nerrors:")
        for ex, pred in zip(examples, predictions, strict=True):
            if ex.label != pred:
                print(f"  {ex.label:>10} -> {pred:<10} [{ex.lang}] {ex.text}")
    return accuracy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_SET)
    parser.add_argument("--errors", action="store_true", help="list every wrong prediction")
    args = parser.parse_args(argv)
    report(load(args.path), show_errors=args.errors)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
