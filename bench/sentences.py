"""How well sentences are split: personad's rules against pysbd and sentencex.

Run: ``.venv/bin/python bench/sentences.py [tests/data/sentences.tsv] [--errors]``.

Each case of the set is a message and the sentences the write policy should get from it
(:func:`bot.memory.policy.split_candidates`: bullets stripped, fragments without a letter or a
digit left out). A case counts when every sentence is right. The other segmenters are given
what the rules take as given (a new line and ``"; "`` end a sentence; the same bullets
stripped), so only how they read ``.``, ``!``, ``?`` is compared. pysbd has no Portuguese and
reads every case as English; sentencex is run with the case's own language and with the
language :func:`bot.memory.policy.guess_language` reads, as personad would have to. Neither
is a dependency: ``pip install pysbd sentencex`` to compare; one not installed is skipped.

Printed: accuracy on the tuning part and on the held-out part per language, the import time,
and the time a sentence (fastest of five passes) of the segmenter alone (for personad's,
:func:`bot.memory.sentences.split_sentences`, without the secret detector that
``split_candidates`` also runs). ``--errors`` lists the tuning part's mistakes of
``split_candidates``; the held-out part's are listed only with ``--held-out-errors``, so rules
are not tuned on it.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.memory.policy import fold, guess_language, split_candidates
from bot.memory.sentences import split_sentences

__all__ = ["Case", "load", "main"]

DEFAULT_SET = Path(__file__).resolve().parent.parent / "tests" / "data" / "sentences.tsv"
_HARD = re.compile(r"\s*\n\s*|;\s+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_WORD = re.compile(r"[a-z0-9']+")

Splitter = Callable[[str, str], list[str]]


@dataclass(frozen=True, slots=True)
class Case:
    """One message of the set: ``part`` "tune" or "held"; a literal ``\\n`` is a line break;
    the expected sentences are separated by ``" || "`` in the file."""

    part: str
    lang: str
    text: str
    sentences: tuple[str, ...]


def load(path: Path = DEFAULT_SET) -> list[Case]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [
            Case(
                row["part"],
                row["lang"],
                row["text"].replace("\\n", "\n"),
                tuple(row["sentences"].split(" || ")),
            )
            for row in reader
        ]


def _tidy(pieces: list[str]) -> list[str]:
    stripped = (_BULLET.sub("", piece).strip() for piece in pieces)
    return [piece for piece in stripped if any(ch.isalnum() for ch in piece)]


def _by_pieces(segment: Callable[[str, str], list[str]]) -> Splitter:
    """A library segmenter run on each piece between new lines and ``"; "``."""

    def split(text: str, lang: str) -> list[str]:
        out: list[str] = []
        for piece in _HARD.split(text):
            if piece.strip():
                out.extend(segment(piece, lang))
        return _tidy(out)

    return split


def _guessed(text: str) -> str:
    return guess_language(_WORD.findall(fold(text))) or "en"


def _library(name: str, module: Any) -> dict[str, Splitter]:
    """The ways ``module`` (pysbd or sentencex) is compared."""
    if name == "pysbd":
        english = module.Segmenter(language="en", clean=False)
        return {"pysbd (en)": _by_pieces(lambda text, _lang: english.segment(text))}
    segment = module.segment
    return {
        "sentencex (case's lang)": _by_pieces(lambda text, lang: list(segment(lang, text))),
        "sentencex (guessed lang)": _by_pieces(
            lambda text, _lang: list(segment(_guessed(text), text))
        ),
    }


def _splitters() -> dict[str, tuple[Splitter, float]]:
    """Each available segmenter, with its import time in ms (0 for personad's, imported
    already)."""
    found: dict[str, tuple[Splitter, float]] = {
        "personad rules": (lambda text, _lang: _tidy(split_sentences(text)), 0.0)
    }
    for name in ("pysbd", "sentencex"):
        started = time.perf_counter()
        try:
            module = importlib.import_module(name)
        except ImportError:
            print(f"{name}: not installed, skipped")
            continue
        ms = (time.perf_counter() - started) * 1000
        found.update({label: (split, ms) for label, split in _library(name, module).items()})
    return found


def _best_pass(cases: list[Case], split: Splitter, passes: int = 5) -> float:
    best = float("inf")
    for _ in range(passes):
        started = time.perf_counter()
        for case in cases:
            split(case.text, case.lang)
        best = min(best, time.perf_counter() - started)
    return best


def _score(cases: list[Case], split: Splitter) -> str:
    cells = []
    for lang in ("en", "pt"):
        subset = [case for case in cases if case.lang == lang]
        right = sum(split(case.text, case.lang) == list(case.sentences) for case in subset)
        cells.append(f"{lang} {right}/{len(subset)}")
    right = sum(split(case.text, case.lang) == list(case.sentences) for case in cases)
    return f"{right / len(cases):.3f} ({', '.join(cells)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_SET)
    parser.add_argument("--errors", action="store_true")
    parser.add_argument("--held-out-errors", action="store_true")
    args = parser.parse_args(argv)
    cases = load(args.path)
    tune = [case for case in cases if case.part == "tune"]
    held = [case for case in cases if case.part == "held"]
    sentences = sum(len(case.sentences) for case in cases)
    print(f"cases: {len(tune)} tuning, {len(held)} held out; {sentences} sentences\n")
    for name, (split, import_ms) in _splitters().items():
        per_sentence = _best_pass(cases, split) / sentences * 1e6
        print(
            f"{name}: tuning {_score(tune, split)}, held out {_score(held, split)};"
            f" import {import_ms:.0f} ms, {per_sentence:.0f} µs a sentence"
        )
    shown = (tune if args.errors else []) + (held if args.held_out_errors else [])
    for case in shown:
        got = split_candidates(case.text)
        if got != list(case.sentences):
            print(f"\n{case.part} {case.lang}: {case.text!r}")
            print(f"  want {list(case.sentences)}\n  got  {got}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
