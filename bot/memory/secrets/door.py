"""Secrets withheld once, at the door: what a turn writes never holds a secret's value.

:func:`withhold` is what the session and the router call on a message as it arrives, before
anything about the turn is written (the inbox, the session log, the conversation, memory and
everything distilled from it): every value the detector finds (:mod:`bot.memory.secrets.detector`)
becomes a marker that names its kind (``[secret withheld: pin]``). It also sees the room's
previous message, either speaker's: when that one asked for a secret and left its value out
("what's the wifi password?", "my new pin:"), a message that is nothing but a value
("lemonade2019", "four four one two") is withheld too. The reply is withheld the same way
before it is logged, with the user's message as its previous one and the values the user's
message carried, so a reply that repeats one does not write it either.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from bot.memory.secrets.carry import asked_kind, bare_value
from bot.memory.secrets.detector import (
    MARKERS,
    Span,
    find_secrets,
    fold_in_place,
    marker,
)

__all__ = [
    "THREAD_CHARS",
    "Previous",
    "answerable",
    "answered",
    "secret_values",
    "turn_secrets",
    "turn_values",
    "withhold",
    "withhold_async",
]

#: the secret values of the message the current turn answers (see :func:`turn_secrets`)
_turn_values: ContextVar[tuple[tuple[str, str], ...]] = ContextVar(
    "personad_turn_secrets", default=()
)


@contextmanager
def turn_secrets(values: Sequence[tuple[str, str]]) -> Iterator[None]:
    """Inside the block (a turn's tool loop), :func:`turn_values` gives ``values``: what a
    persisting tool writes is withheld of them too, so a value the model copies out of the
    user's message ("note the wifi: lemonade2019") is not written in a shape the detector
    would not know alone."""
    token = _turn_values.set(tuple(values))
    try:
        yield
    finally:
        _turn_values.reset(token)


def turn_values() -> tuple[tuple[str, str], ...]:
    return _turn_values.get()


def answerable(entries: Sequence[Any], event_id: str = "") -> tuple[str, ...]:
    """Of a room's conversation entries (each with ``role``, ``text``, ``event_id``), the
    messages a new one of the user's may answer (:func:`answered`); a kept attempt at the
    same event ``event_id`` does not count. The one reading of it the router (the inbox's
    copy) and the session (the turn's) share."""
    recent = list(entries[-3:])
    if recent and event_id and recent[-1].role == "user" and recent[-1].event_id == event_id:
        recent = recent[:-1]
    return answered([(entry.role, entry.text) for entry in recent])


def answered(messages: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """Of a room's ``(role, text)`` messages, oldest first, the ones a new message of the
    user's may answer (:data:`Previous`): the last, and the user's before it when the last is
    the persona's."""
    if not messages:
        return ()
    (role, text), before = messages[-1], messages[:-1]
    if role == "user" or not before or before[-1][0] != "user":
        return (text,)
    return (text, before[-1][1])


#: where a sentence ends within a line: after its mark, before the next one's first word
_SENTENCE_END = re.compile(r"(?<=[?!.])\s+")
#: a repeated value shorter than this is too common to look for ("482" may be a price)
_MIN_REPEAT = 4


#: the message (or messages) a new one may answer: the room's last, and when that is the
#: persona's, the user's own before it ("what's the printer's password?" - "I don't know
#: it" - "tinteiro2033")
Previous = str | Sequence[str]


def _carried(text: str, previous: Previous) -> Span | None:
    """The whole of ``text`` as a value, when one of ``previous`` asked for one and gave
    none."""
    if not isinstance(previous, str):
        spans = (_carried(text, one) for one in previous)
        return next((span for span in spans if span is not None), None)
    if not previous.strip() or MARKERS.search(previous) or find_secrets(previous):
        return None
    last_line = fold_in_place(previous.strip().rsplit("\n", 1)[-1])
    # the question may be followed by more ("what's the printer's password? I'll note it")
    asked = (asked_kind(part) for part in reversed(_SENTENCE_END.split(last_line)) if part)
    kind = next((found for found in asked if found is not None), None)
    if kind is None:
        return None
    found = bare_value(fold_in_place(text), kind)
    return Span(found[0], found[1], kind) if found is not None else None


def _spans(text: str, previous: Previous, values: Sequence[tuple[str, str]]) -> list[Span]:
    spans = list(find_secrets(text))
    if not spans and (carried := _carried(text, previous)) is not None:
        spans.append(carried)
    for value, kind in values:
        if len(value) >= _MIN_REPEAT:
            pattern = re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")
            spans += [Span(*m.span(), kind) for m in pattern.finditer(text)]
    return spans


def _merged(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Span(last.start, max(last.end, span.end), last.kind)
        else:
            merged.append(span)
    return merged


def secret_values(text: str, *, previous: Previous = "") -> list[tuple[str, str]]:
    """Each secret value of ``text`` (the carried one included) with its kind: what a reply to
    ``text`` must not write either."""
    found = []
    for span in _spans(text, previous, ()):
        value = text[span.start : span.end].strip()
        # a value runs to its clause's end ("4471 ok"): its first word is said again alone
        first = value.split()[0].rstrip(",.;:!?)\"'”’") if value else ""
        found += [(value, span.kind), (first, span.kind)] if first else []
    return list(dict.fromkeys(found))


def withhold(text: str, *, previous: Previous = "", values: Sequence[tuple[str, str]] = ()) -> str:
    """``text`` with every secret value replaced by the marker of its kind: those the detector
    finds, a bare value that answers ``previous`` (the room's message before this one), and
    any of ``values`` (from :func:`secret_values`) said again. A text without any comes back
    as it is, and withholding twice changes nothing."""
    spans = _merged(_spans(text, previous, values))
    if not spans:
        return text
    parts: list[str] = []
    done = 0
    for span in spans:
        if MARKERS.fullmatch(text, span.start, span.end):
            continue
        parts += [text[done : span.start], marker(span.kind)]
        done = span.end
    parts.append(text[done:])
    return "".join(parts)


#: a text longer than this is read in a worker thread: the rules take about two seconds over
#: a message of a million characters, which the event loop (every other user's turn) must
#: not wait through
THREAD_CHARS = 4_000


async def withhold_async(
    text: str, *, previous: Previous = "", values: Sequence[tuple[str, str]] = ()
) -> str:
    """:func:`withhold` for a turn: a long text is read in a worker thread."""
    if len(text) <= THREAD_CHARS:
        return withhold(text, previous=previous, values=values)
    return await asyncio.to_thread(withhold, text, previous=previous, values=values)
