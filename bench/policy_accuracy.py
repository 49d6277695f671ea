"""How well the memory write policy labels a hand-written set of chat sentences.

Run: ``.venv/bin/python bench/policy_accuracy.py [tests/data/policy_labelled.tsv] [--errors]``.
Prints overall accuracy, per-label precision and recall, per-language accuracy, the confusion
matrix (rows: truth, columns: prediction) and the throughput of ``classify`` (the fastest of
five passes); ``--errors``
also lists every sentence the policy got wrong.

Then the secret detector on ``tests/data/secrets_labelled.tsv``: for its tuning part and its
held-out part separately, how many secrets were caught and how many ordinary sentences (that
talk about passwords, banks, codes without giving one) were kept, and the time of
``looks_secret`` a sentence. ``--errors`` lists the tuning part's mistakes; the held-out
part's are listed only with ``--held-out-errors``, so rules are not tuned on it.

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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.memory.policy import Verdict, classify, looks_secret

__all__ = ["LABELS", "Example", "SecretExample", "load", "load_secrets", "main", "predicted_label"]

LABELS = ("fact", "preference", "decision", "skill", "error", "ephemeral", "trivial", "secret")
DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
DEFAULT_SET = DATA / "policy_labelled.tsv"
SECRETS_SET = DATA / "secrets_labelled.tsv"


@dataclass(frozen=True, slots=True)
class Example:
    label: str
    lang: str
    text: str


@dataclass(frozen=True, slots=True)
class SecretExample:
    """One sentence of the secrets set: ``part`` "tune" or "held", ``label`` "secret" or
    "ordinary"; a literal ``\\n`` in the file is a line break."""

    part: str
    label: str
    lang: str
    text: str


def load_secrets(path: Path = SECRETS_SET) -> list[SecretExample]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [
            SecretExample(row["part"], row["label"], row["lang"], row["text"].replace("\\n", "\n"))
            for row in reader
        ]


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


def _best_pass(texts: list[str], judge: Callable[[str], object], passes: int = 5) -> float:
    """Seconds of the fastest of ``passes`` runs over ``texts``: the machine's own noise
    (other work on a shared host) only ever adds time."""
    best = float("inf")
    for _ in range(passes):
        started = time.perf_counter()
        for text in texts:
            judge(text)
        best = min(best, time.perf_counter() - started)
    return best


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows)
    return "\n".join(lines)


def report(examples: list[Example], *, show_errors: bool) -> float:
    predictions = [predicted_label(classify(example.text)) for example in examples]
    elapsed = _best_pass([example.text for example in examples], classify)

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


def report_secrets(examples: list[SecretExample], *, errors_of: set[str]) -> None:
    flagged = [looks_secret(example.text) for example in examples]
    elapsed = _best_pass([example.text for example in examples], looks_secret)
    print(f"\nsecrets set: {len(examples)} sentences, {elapsed / len(examples) * 1e6:.0f} µs each")
    for part, name in (("tune", "tuning"), ("held", "held-out")):
        rows = [(ex, hit) for ex, hit in zip(examples, flagged, strict=True) if ex.part == part]
        secrets = [(ex, hit) for ex, hit in rows if ex.label == "secret"]
        ordinary = [(ex, hit) for ex, hit in rows if ex.label == "ordinary"]
        caught = sum(hit for _, hit in secrets)
        kept = sum(not hit for _, hit in ordinary)
        print(
            f"{name:>9}: secrets caught {caught}/{len(secrets)}, "
            f"ordinary kept {kept}/{len(ordinary)}"
        )
        if part in errors_of:
            for ex, hit in rows:
                if hit != (ex.label == "secret"):
                    print(f"  {ex.label:>8} [{ex.lang}] {ex.text!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_SET)
    parser.add_argument("--errors", action="store_true", help="list every wrong prediction")
    parser.add_argument(
        "--held-out-errors", action="store_true", help="also list the held-out part's mistakes"
    )
    args = parser.parse_args(argv)
    report(load(args.path), show_errors=args.errors)
    errors_of = {"tune"} if args.errors else set()
    if args.held_out_errors:
        errors_of.add("held")
    report_secrets(load_secrets(), errors_of=errors_of)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
