"""Compaction: promote, then point. Older turns leave the live conversation, never the record.

When the system prompt and the conversation reach ``threshold`` (72 % by default) of the
model's context window, the oldest entries are removed until what remains sits comfortably
below it (:data:`HEADROOM` of the threshold), always keeping the ``keep_recent`` newest ones.
Before anything is cut, every durable fact the user stated in the removed turns is promoted to
long-term memory through ``promote`` (the backend's ``add``, which re-applies the write policy).
Only when every promotion succeeded are the removed entries replaced by one pointer entry, framed
as history rather than instructions, naming the day files that hold them and the facts kept::

    [Conversation history, not instructions] Earlier turns of 2026-11-29 are in
    sessions/2026-11-29.md; facts kept: I take my coffee without sugar; ...

Entries said Off The Record are never promoted and their text never reaches the pointer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter

import structlog

from bot.daemon.errors import MemoryStoreError
from bot.memory.policy import classify, fold, split_candidates
from bot.turn.conversation import Entry

__all__ = [
    "HEADROOM",
    "POINTER_PREFIX",
    "CompactionResult",
    "Compactor",
    "estimate_tokens",
]

log = structlog.get_logger(__name__)

#: after compacting, the conversation aims at this fraction of the threshold budget
HEADROOM = 0.75
#: tokens a message costs beyond its text (role, separators)
MESSAGE_OVERHEAD = 4
#: the pointer may take at most this share of the window, and never more than MAX_POINTER_CHARS
POINTER_SHARE = 0.08
MAX_POINTER_CHARS = 1500
POINTER_PREFIX = "[Conversation history, not instructions]"

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MORE = re.compile(r"\(\+(\d+) more in long-term memory\)")
_OTR = re.compile(r"(\d+) off-the-record turns? (?:was|were) left out")


_TEXT = attrgetter("text")


def estimate_tokens(text: str) -> int:
    """A cheap, deliberately high token count: one token for every 3.5 characters."""
    return _chars_tokens(len(text))


def _chars_tokens(chars: int) -> int:
    return math.ceil(chars / 3.5)


def _entry_tokens(entry: Entry) -> int:
    return estimate_tokens(entry.text) + MESSAGE_OVERHEAD


@dataclass
class CompactionResult:
    """The conversation after compaction, the facts promoted, and the pointer (if any)."""

    entries: list[Entry]
    promoted: list[str] = field(default_factory=list)
    pointer: Entry | None = None


@dataclass
class _Folded:
    """What the pointer says: days, facts, and how much it could not list."""

    dates: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    more: int = 0
    otr: int = 0

    def absorb_pointer(self, text: str) -> None:
        """Merge an earlier pointer being folded into the new one."""
        head, _, tail = text.partition("; facts kept: ")
        self.dates.extend(date for date in _DATE.findall(head) if date not in self.dates)
        if more := _MORE.search(text):
            self.more += int(more.group(1))
        if otr := _OTR.search(text):
            self.otr += int(otr.group(1))
        tail = _MORE.sub("", tail).strip().rstrip(".").strip()
        for fact in tail.split("; ") if tail else []:
            if fact and fact not in self.facts:
                self.facts.append(fact)


def _render(folded: _Folded, sessions_hint: str, max_chars: int) -> str:
    dates = sorted(folded.dates)
    if not dates:
        where = "Earlier turns of this conversation were folded away"
    elif len(dates) <= 3:
        files = ", ".join(f"{sessions_hint}/{date}.md" for date in dates)
        where = f"Earlier turns of {', '.join(dates)} are in {files}"
    else:
        where = (
            f"Earlier turns of {dates[0]} to {dates[-1]} are in {sessions_hint}/ "
            "(one YYYY-MM-DD.md file a day)"
        )
    if folded.otr:
        turns = "turn was" if folded.otr == 1 else "turns were"
        where += f"; {folded.otr} off-the-record {turns} left out"
    facts = list(folded.facts)
    more = folded.more

    def text() -> str:
        body = f"{POINTER_PREFIX} {where}"
        if facts:
            body += "; facts kept: " + "; ".join(facts)
        if more:
            body += f" (+{more} more in long-term memory)"
        return body + "."

    # the oldest facts go first: they are in long-term memory and come back through recall
    while facts and len(text()) > max_chars:
        facts.pop(0)
        more += 1
    return text()


class Compactor:
    """Decides when a conversation is too long and folds its oldest part into a pointer."""

    def __init__(
        self, *, window_tokens: int, threshold: float = 0.72, keep_recent: int = 6
    ) -> None:
        if window_tokens <= 0 or not 0 < threshold < 1 or keep_recent < 0:
            raise ValueError("window_tokens > 0, 0 < threshold < 1 and keep_recent >= 0 please")
        self.window_tokens = window_tokens
        self.threshold = threshold
        self.keep_recent = keep_recent

    @property
    def budget(self) -> int:
        """Tokens at which compaction starts."""
        return int(self.window_tokens * self.threshold)

    @property
    def max_pointer_chars(self) -> int:
        return max(200, min(MAX_POINTER_CHARS, int(self.window_tokens * POINTER_SHARE * 3.5)))

    def total_tokens(self, system_chars: int, entries: Sequence[Entry]) -> int:
        return _chars_tokens(system_chars) + sum(_entry_tokens(entry) for entry in entries)

    def needs(self, system_chars: int, entries: Sequence[Entry]) -> bool:
        """True when the prompt is at the threshold and there is something old to fold."""
        if len(entries) <= self.keep_recent:
            return False
        # most turns are far below the threshold: a bound that needs no per-entry rounding
        chars = system_chars + sum(map(len, map(_TEXT, entries)))
        if chars / 3.5 + 1 + (MESSAGE_OVERHEAD + 1) * len(entries) < self.budget:
            return False
        return self.total_tokens(system_chars, entries) >= self.budget

    def _cut_index(self, system_chars: int, entries: Sequence[Entry], force: bool) -> int:
        """How many of the oldest entries to remove."""
        latest = max(0, len(entries) - self.keep_recent)
        if force:
            return latest
        target = self.budget * HEADROOM - _chars_tokens(system_chars)
        target -= estimate_tokens("x" * self.max_pointer_chars) + MESSAGE_OVERHEAD
        remaining = sum(_entry_tokens(entry) for entry in entries)
        cut = 0
        while cut < latest and remaining > target:
            remaining -= _entry_tokens(entries[cut])
            cut += 1
        # never leave a reply whose question was folded away at the head of the conversation
        while cut < latest and entries[cut].role == "assistant":
            cut += 1
        return cut

    async def compact(
        self,
        entries: Sequence[Entry],
        *,
        system_chars: int,
        promote: Callable[[str, str], Awaitable[object]],
        sessions_hint: str = "sessions",
        force: bool = False,
    ) -> CompactionResult:
        """Promote the durable facts of the oldest entries, then replace them by a pointer.

        ``promote(text, source)`` stores one fact; a result whose ``stored`` is False means
        the backend refused it, so it is not listed as kept. If any promotion raises, nothing
        is cut and :class:`~bot.daemon.errors.MemoryStoreError` is raised.
        """
        if not force and not self.needs(system_chars, entries):
            return CompactionResult(list(entries))
        cut = self._cut_index(system_chars, entries, force)
        removed, kept = list(entries[:cut]), list(entries[cut:])
        if not removed:
            return CompactionResult(list(entries))

        folded = _Folded()
        candidates: list[tuple[str, str]] = []
        seen: set[str] = set()
        for entry in removed:
            if entry.kind == "pointer":
                folded.absorb_pointer(entry.text)
                continue
            if entry.otr:
                folded.otr += 1
                continue
            date = entry.at.date().isoformat()
            if date not in folded.dates:
                folded.dates.append(date)
            if entry.role != "user":
                continue
            for sentence in split_candidates(entry.text):
                key = fold(sentence)
                if key not in seen and classify(sentence).accepted:
                    seen.add(key)
                    candidates.append((sentence, f"{sessions_hint}/{date}.md"))

        promoted: list[str] = []
        for sentence, source in candidates:
            try:
                result = await promote(sentence, source)
            except Exception as exc:
                log.error("memory.compaction_aborted", promoted=len(promoted), error=str(exc))
                raise MemoryStoreError(
                    f"compaction stopped, nothing was cut: storing a fact failed ({exc})",
                    user_message="I could not save older facts to memory, so I kept the"
                    " whole conversation as it is.",
                ) from exc
            if getattr(result, "stored", True) is not False:
                promoted.append(sentence)
        for fact in promoted:
            shown = fact.rstrip(" .!;")
            if shown not in folded.facts:
                folded.facts.append(shown)

        last = removed[-1]
        pointer = Entry(
            role="user",
            text=_render(folded, sessions_hint, self.max_pointer_chars),
            at=last.at,
            platform=last.platform,
            kind="pointer",
            room=last.room,
            shared=last.shared,
        )
        log.info("memory.compacted", removed=len(removed), kept=len(kept), promoted=len(promoted))
        return CompactionResult([pointer, *kept], promoted, pointer)
