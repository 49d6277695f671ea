"""How well the memory write policy labels a hand-written set of chat sentences.

Run: ``.venv/bin/python bench/policy_accuracy.py [tests/data/policy_labelled.tsv] [--errors]``.
Prints overall accuracy, per-label precision and recall, per-language accuracy, the confusion
matrix (rows: truth, columns: prediction) and the throughput of ``classify`` (the fastest of
five passes); ``--errors``
also lists every sentence the policy got wrong.

Then the secret detector on ``tests/data/secrets_labelled.tsv``: for its tuning part and its
held-out part separately, how many secrets were caught and how many ordinary sentences (that
talk about passwords, banks, codes without giving one, and facts with numbers and quotes) were
kept, per kind and in all; for each part of the detector alone (detect-secrets' plugins, the
own rules) and for both, with the time each takes a sentence. Then the door on
``tests/data/secrets_carry.tsv``: a message after the one before it, whose value is caught
only from that one ("what's the wifi password?", then "lemonade2019"). ``--errors`` lists the
tuning part's mistakes; the held-out part's are listed only with ``--held-out-errors``, so
rules are not tuned on it.

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

from bot.memory.policy import Verdict, classify
from bot.memory.secrets.detector import find_secrets, library_secrets, own_secrets
from bot.memory.secrets.door import withhold

__all__ = [
    "LABELS",
    "CarryExample",
    "Example",
    "SecretExample",
    "load",
    "load_carry",
    "load_secrets",
    "main",
    "predicted_label",
]

LABELS = ("fact", "preference", "decision", "skill", "error", "ephemeral", "trivial", "secret")
DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
DEFAULT_SET = DATA / "policy_labelled.tsv"
SECRETS_SET = DATA / "secrets_labelled.tsv"
CARRY_SET = DATA / "secrets_carry.tsv"
PARTS = (("tune", "tuning"), ("held", "held-out"))


@dataclass(frozen=True, slots=True)
class Example:
    label: str
    lang: str
    text: str


@dataclass(frozen=True, slots=True)
class SecretExample:
    """One sentence of the secrets set: ``part`` "tune" or "held", ``label`` "secret" or
    "ordinary", ``kind`` the secret's kind (or what an ordinary sentence is about: "fact"
    when nothing); a literal ``\\n`` in the file is a line break."""

    part: str
    label: str
    lang: str
    text: str
    kind: str = "password"


@dataclass(frozen=True, slots=True)
class CarryExample:
    """A message ``text`` said after ``previous``, labelled as :class:`SecretExample`."""

    part: str
    label: str
    kind: str
    lang: str
    previous: str
    text: str


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [{key: value.replace("\\n", "\n") for key, value in row.items()} for row in reader]


def load_secrets(path: Path = SECRETS_SET) -> list[SecretExample]:
    return [
        SecretExample(row["part"], row["label"], row["lang"], row["text"], row["kind"])
        for row in _rows(path)
    ]


def load_carry(path: Path = CARRY_SET) -> list[CarryExample]:
    return [CarryExample(**row) for row in _rows(path)]


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


#: each part of the detector alone, and both: what finds the values of a text
DETECTORS: dict[str, Callable[[str], object]] = {
    "detect-secrets": library_secrets,
    "own rules": own_secrets,
    "both": find_secrets,
}


def _caught_kept(rows: list[tuple[SecretExample | CarryExample, bool]]) -> str:
    secrets = [hit for ex, hit in rows if ex.label == "secret"]
    ordinary = [hit for ex, hit in rows if ex.label == "ordinary"]
    return (
        f"caught {sum(secrets):>3}/{len(secrets):<3}  kept {len(ordinary) - sum(ordinary):>3}"
        f"/{len(ordinary):<3}"
    )


def report_secrets(examples: list[SecretExample], *, errors_of: set[str]) -> None:
    texts = [example.text for example in examples]
    print(f"\nsecrets set: {len(examples)} sentences")
    for name, detect in DETECTORS.items():
        find_secrets.cache_clear()
        flagged = [bool(detect(text)) for text in texts]
        elapsed = _best_pass(texts, detect)
        parts = "   ".join(
            f"{label}: "
            + _caught_kept(
                [(ex, hit) for ex, hit in zip(examples, flagged, strict=True) if ex.part == part]
            )
            for part, label in PARTS
        )
        print(f"{name:>15}: {parts}   {elapsed / len(texts) * 1e6:.0f} µs a sentence")

    flagged = [bool(find_secrets(text)) for text in texts]
    pairs = list(zip(examples, flagged, strict=True))
    print("\nper kind (both parts of the detector):")
    for kind in sorted({ex.kind for ex in examples}):
        cells = [
            f"{label}: "
            + _caught_kept([(ex, hit) for ex, hit in pairs if ex.kind == kind and ex.part == part])
            for part, label in PARTS
        ]
        print(f"{kind:>10}  " + "   ".join(cells))
    for part, name in PARTS:
        print(f"{name:>9}: " + _caught_kept([(ex, hit) for ex, hit in pairs if ex.part == part]))
        if part in errors_of:
            for ex, hit in pairs:
                if ex.part == part and hit != (ex.label == "secret"):
                    print(f"  {ex.label:>8} {ex.kind:>8} [{ex.lang}] {ex.text!r}")


def report_carry(examples: list[CarryExample], *, errors_of: set[str]) -> None:
    """The door on message pairs: a value caught from the message before it."""
    print(f"\nnext-message set: {len(examples)} pairs")
    hits = [withhold(ex.text, previous=ex.previous) != ex.text for ex in examples]
    pairs = list(zip(examples, hits, strict=True))
    for part, name in PARTS:
        print(f"{name:>9}: " + _caught_kept([(ex, hit) for ex, hit in pairs if ex.part == part]))
        if part in errors_of:
            for ex, hit in pairs:
                if ex.part == part and hit != (ex.label == "secret"):
                    print(f"  {ex.label:>8} [{ex.lang}] {ex.previous!r} -> {ex.text!r}")


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
    report_carry(load_carry(), errors_of=errors_of)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
