"""Regexes that skip text which cannot match: a cheap substring test before the regex runs.

The identity observer reads every message with some sixty patterns full of lookbehinds, and
the memory write policy scores every sentence with a few hundred weighted rules; most text
matches almost none of them. :func:`needles` works out, from the parsed pattern, a set of
strings of which every match must contain at least one ("call me" for ``\\bcall me (?P<name>...)``,
``{"answer", "reply"}`` for ``(?:answer|reply) in``). :class:`PatternSet` runs a regex only when one
of its needles is in the text, so the answer is always the regexes' own; only the cost changes.
A pattern whose needles cannot be told (case-insensitive, or nothing literal it must contain)
always runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from re import _parser  # type: ignore[attr-defined]
from typing import Any

__all__ = ["PatternSet", "needles"]

_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}


def _required(items: Any) -> frozenset[str] | None:
    """Strings one of which every match of the parsed sequence ``items`` contains."""
    candidates: list[frozenset[str]] = []
    run: list[str] = []

    def close_run() -> None:
        if run:
            candidates.append(frozenset({"".join(run)}))
            run.clear()

    for op, value in items:
        name = op.name
        if name == "LITERAL":
            run.append(chr(value))
            continue
        close_run()
        found: frozenset[str] | None = None
        if name == "SUBPATTERN":
            _group, add_flags, _del_flags, inner = value
            if not add_flags & re.IGNORECASE:
                found = _required(inner)
        elif name == "BRANCH":
            branches = [_required(branch) for branch in value[1]]
            if all(branch is not None for branch in branches):
                found = frozenset().union(*(b for b in branches if b is not None))
        elif name in _REPEATS and value[0] >= 1:
            found = _required(value[2])
        elif name == "ATOMIC_GROUP":
            found = _required(value)
        if found:
            candidates.append(found)
    close_run()
    if not candidates:
        return None
    # the most telling set: its shortest string longest, then the fewest strings
    return max(candidates, key=lambda s: (min(map(len, s)), -len(s)))


def needles(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Strings of which every match of ``pattern`` contains one; ``None`` when unknown."""
    if pattern.flags & re.IGNORECASE:
        return None
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    if parsed.state.flags & re.IGNORECASE:
        return None
    found = _required(parsed.data)
    return found if found and all(found) else None


class PatternSet:
    """Compiled regexes with one shared substring test in front.

    :meth:`candidates` tells which patterns can match a text at all: every needle of the set
    is looked for once (a plain substring test each), and a pattern is a candidate when one of
    its needles is present, or when it has none. Running only the candidates gives exactly
    what running them all would.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self.regexes = [re.compile(pattern) for pattern in patterns]
        self._always: list[int] = []
        self._by_needle: dict[str, list[int]] = {}
        for index, regex in enumerate(self.regexes):
            found = needles(regex)
            if found is None:
                self._always.append(index)
                continue
            for needle in found:
                self._by_needle.setdefault(needle, []).append(index)
        #: every string looked for in a text, once
        self.needles = tuple(self._by_needle)

    def candidates(self, text: str) -> list[int]:
        """Indices, in order, of the patterns that may match ``text``."""
        chosen = set(self._always)
        for needle in self.needles:
            if needle in text:
                chosen.update(self._by_needle[needle])
        return sorted(chosen)

    def matches(self, text: str) -> Iterator[tuple[int, re.Match[str]]]:
        """Every match of every pattern, pattern by pattern in order."""
        for index in self.candidates(text):
            for match in self.regexes[index].finditer(text):
                yield index, match

    def any_match(self, text: str) -> bool:
        """Whether any pattern matches ``text``."""
        return any(self.regexes[index].search(text) for index in self.candidates(text))
