"""What the sqlite-fts5 memory store lets in, before anything is written.

:func:`admit` applies the checks every write passes, in order: empty text, text longer than
:data:`MAX_ITEM_CHARS`, an unknown category, then the write policy
(:func:`bot.memory.policy.classify`). A write the policy rejects still goes in when forced
(a person's ``memory add --force``, a line of MEMORY.md/USER.md) at
:data:`FORCED_CONFIDENCE`, except a secret: secrets are refused even when forced.
:func:`mirrorable_lines` picks the lines of a mirrored file that may become memories: never a
template's placeholder text (:mod:`bot.memory.placeholders`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.memory.base import CATEGORIES, AddResult, Category
from bot.memory.normal_form import normalise_text
from bot.memory.placeholders import is_placeholder, strip_comments
from bot.memory.policy import announces_value, classify, lines_with_secrets, secret_kind
from bot.memory.sqlite.query import mirror_lines

__all__ = [
    "FORCED_CONFIDENCE",
    "MAX_ITEM_CHARS",
    "Admission",
    "admit",
    "mirrorable_lines",
]

MAX_ITEM_CHARS = 2000
FORCED_CONFIDENCE = 0.3
"""Confidence of a fact the policy rejected as trivial or ephemeral but a person forced in."""


@dataclass(frozen=True, slots=True)
class Admission:
    """A write the store accepts: the category, confidence and reason it is stored with."""

    category: Category
    confidence: float
    reason: str


def admit(text: str, *, category: Category | None, force: bool) -> Admission | AddResult:
    """An :class:`Admission` for ``text`` (already stripped), or the refusing
    :class:`AddResult` that says why it is not stored."""
    if not text:
        return AddResult(False, None, "rejected: empty text")
    if len(text) > MAX_ITEM_CHARS:
        return AddResult(
            False,
            None,
            f"rejected: too long ({len(text)} characters; a memory holds at most "
            f"{MAX_ITEM_CHARS}): store its facts one by one",
        )
    if category is not None and category not in CATEGORIES:
        return AddResult(False, None, f"rejected: unknown category {category!r}")
    verdict = classify(text)
    if verdict.accepted:
        chosen: Category = category or verdict.category or "fact"
        return Admission(chosen, verdict.confidence, verdict.reason)
    if not force:
        return AddResult(False, None, verdict.reason)
    if kind := secret_kind(text):
        return AddResult(
            False,
            None,
            f"refused even though forced: secret ({kind}); secrets are never stored",
        )
    return Admission(
        category or "fact", FORCED_CONFIDENCE, f"forced; the policy said {verdict.reason}"
    )


def mirrorable_lines(text: str) -> dict[str, str]:
    """The lines of a mirrored file that may be memories, by normal form (first one wins):
    lines too long to store and lines holding a secret never enter."""
    wanted: dict[str, str] = {}
    text = strip_comments(text)  # a promoted line's slot marker is no part of its fact
    flagged = lines_with_secrets(text)  # whole file: a value may sit under its keyword
    for line in mirror_lines(text):
        if len(line) > MAX_ITEM_CHARS or any(bad.endswith(line) for bad in flagged):
            continue
        if announces_value(line):  # "wifi password:" over its value says nothing itself
            continue
        if is_placeholder(line):  # a template's invitation to fill the file in
            continue
        wanted.setdefault(normalise_text(line), line)
    return wanted
