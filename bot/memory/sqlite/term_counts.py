"""How many documents of an FTS5 index hold each word, as query planning wants it.

Planning (:func:`bot.memory.sqlite.query.plan_match`) asks the counts of every word of a
query; FTS5 answers by reading each word's posting list, one statement a search. Most words
of a conversation come back turn after turn, and most queries carry a word the index never
held (a number, a name said once), so both kinds are remembered here: a count read from the
index, and a word read as absent (0).

They stay true enough for planning: each document this store adds counts its words in at
once (a word absent until now is found by the very next search), and the whole memory is let
go after :data:`FORGET_AFTER_WRITES` writes or :data:`FORGET_AFTER_SECONDS` seconds, so
counts that fell (a memory forgotten) and words another process added (``personad memory
add`` beside the running daemon) are read again.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Sequence

__all__ = ["FORGET_AFTER_SECONDS", "FORGET_AFTER_WRITES", "TermCounts"]

FORGET_AFTER_WRITES = 500
FORGET_AFTER_SECONDS = 60.0
_MAX_WORDS = 50_000


class TermCounts:
    """Document counts by word for one FTS5 index of one open store."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._counts: dict[str, int] = {}
        self._since = clock()
        self._writes = 0

    async def of(
        self,
        words: Sequence[str],
        read: Callable[[list[str]], Awaitable[Iterable[tuple[str, int]]]],
    ) -> dict[str, int]:
        """The count of each of ``words`` that some document holds (the others left out);
        ``read`` asks the index for the words not held here, in one statement."""
        found, missing = self.known(words)
        if missing:
            found.update(self.learn(missing, await read(missing)))
        return {word: found[word] for word in words if found.get(word, 0) > 0}

    def known(self, words: Sequence[str]) -> tuple[dict[str, int], list[str]]:
        """The counts held for ``words`` (absent ones as 0), and the words to read."""
        if self._clock() - self._since > FORGET_AFTER_SECONDS:
            self.forget()
        counts = {word: self._counts[word] for word in words if word in self._counts}
        return counts, [word for word in words if word not in counts]

    def learn(self, asked: Sequence[str], rows: Iterable[tuple[str, int]]) -> dict[str, int]:
        """Keep what the index said of the ``asked`` words (those it does not hold: 0)."""
        if len(self._counts) > _MAX_WORDS:
            self.forget()
        found = dict.fromkeys(asked, 0)
        found.update(rows)
        self._counts.update(found)
        return found

    def added(self, words: Iterable[str]) -> None:
        """A document holding ``words`` went into the index."""
        for word in set(words):
            if word in self._counts:
                self._counts[word] += 1
        self.wrote()

    def wrote(self) -> None:
        """Any other change to the index: past :data:`FORGET_AFTER_WRITES`, start afresh."""
        self._writes += 1
        if self._writes >= FORGET_AFTER_WRITES:
            self.forget()

    def forget(self) -> None:
        self._counts.clear()
        self._writes = 0
        self._since = self._clock()
