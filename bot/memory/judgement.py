"""How a backend without its own admission judges one candidate fact: the holographic and
Honcho stores say the same thing of the same sentence.

:func:`said_as_fact` reads the candidate (a secret refused even when forced, checked before
its lines are joined; empty text; an unknown category) and gives the sentence as said, for
the write policy, and the fact to keep, for the store (:func:`fact_to_keep`: a request to
remember keeps what it asked for). :func:`judged` then runs the write policy on what was
said: the category, the reason and the confidence a new item is stored with, or the
refusing result. Between the two the store looks for the fact said again.
"""

from __future__ import annotations

from bot.memory.base import CATEGORIES, AddResult, Category, clamp_confidence
from bot.memory.policy import classify, looks_secret
from bot.memory.remember_requests import fact_to_keep

__all__ = ["judged", "said_as_fact"]


def said_as_fact(text: str, category: Category | None) -> tuple[str, str] | AddResult:
    """``(said, fact)`` of a candidate, or the :class:`AddResult` that refuses it."""
    if looks_secret(text):  # even a forced write; checked before lines are joined
        return AddResult(False, None, "rejected: secret (never stored)")
    said = " ".join(text.split())
    if not said:
        return AddResult(False, None, "rejected: empty")
    if category is not None and category not in CATEGORIES:
        return AddResult(False, None, f"rejected: unknown category {category!r}")
    return said, fact_to_keep(said)  # judged as said, kept as the fact asked for


def judged(
    said: str, category: Category | None, *, force: bool, confidence: float | None
) -> tuple[Category, str, float] | AddResult:
    """The write policy on a new candidate: ``(category, reason, confidence)`` it is stored
    with (a forced one at full confidence unless the caller weighed it), or the refusal."""
    verdict = classify(said)
    if not verdict.accepted and not force:
        return AddResult(False, None, verdict.reason)
    chosen: Category = category or verdict.category or "fact"
    reason = verdict.reason if verdict.accepted else f"forced ({verdict.reason})"
    if confidence is None:
        return chosen, reason, 1.0 if force else verdict.confidence
    return chosen, reason, clamp_confidence(confidence)
