"""The form every memory store compares sentences by, to find a statement said again.

Folded words (lower case, no accents) joined by single spaces: punctuation, emoji and case
do not make two statements different. A sign that changes what a word says is part of it:
"+" or "-" right after a word ("A+" is not "A-", "C++" not "C") and a minus right before a
number ("-5", "−5", not "5"); a hyphen between words joins nothing ("well-known" is "well
known"). The sqlite, holographic and Honcho stores keep it in a ``norm`` column; the
migrations that computed it again when it began to keep signs call it as the SQL function
``normal_form`` (:data:`SQL_FUNCTIONS`, which each memory store's connection has).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType

from bot.memory.sqlite.query import fold

__all__ = ["SQL_FUNCTIONS", "normalise_text", "without_signs"]

_WORD = re.compile(r"[^\W_]+")
# a word with its sign ("a+", "c++", "b-", "-5"), or without one when a sign is not its own
# ("home--it", "c++b", "3-5")
_COMPARED_WORD = re.compile(r"(?:(?<![\w+-])-(?=\d))?[^\W_]+(?:\++|-)?(?![\w+-])|[^\W_]+")


def normalise_text(text: str) -> str:
    """The form duplicates are compared by: folded words joined by single spaces, a sign that
    changes what a word says kept on it ("A+" is not "A-", "C++" not "C", "-5" not "5")."""
    return " ".join(_COMPARED_WORD.findall(fold(text).replace("−", "-")))


def without_signs(norm: str) -> str:
    """A comparison form as it was before it kept signs: "my blood type is a+" is "my blood
    type is a"."""
    return " ".join(_WORD.findall(norm))


SQL_FUNCTIONS: Mapping[str, Callable[[str], str]] = MappingProxyType(
    {"normal_form": normalise_text}
)
"""The comparison form as a SQL function of every memory store's connection, for the
migrations that compute it again."""
