"""How many messages of a long answer already went out, so that sending it again sends only the
rest.

The Bot API takes no idempotency key. A long answer goes out as several messages, and when one
in the middle fails (a 502, flood control past its limit) the whole send is tried again later
by the outbox: without this record the messages that did go out would show twice. Each
delivery step carries a key that is the same on every attempt and in every process
(:func:`bot.delivery.steps.answer_key`). While a send of several messages is under way, this keeps
how many of them went out under its key, with a fingerprint of the text (a key asked again
with other text starts over); the record lives in the adapter's state in ``personad.db``,
written after each message but the last, so it also holds across a restart, and is let go
when the send completes. A one-message answer writes nothing, and neither does a send to a
room where someone is Off The Record: its record stays in memory (its answer waits in
memory too, so no later process would send it again).

What it cannot know is a message Telegram took whose answer never came back (the connection
dropped after the request went out): that one may still show twice.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict

import structlog

from adapters.base import KeyValueStore

__all__ = ["KEEP", "SentParts"]

log = structlog.get_logger(__name__)

#: how many unfinished sends are remembered (one the platform refused for good never finishes)
KEEP = 64
_STATE_KEY = "sent_parts"


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class SentParts:
    """Messages sent so far by each unfinished send, by answer key, kept in the adapter state."""

    def __init__(self, state: KeyValueStore) -> None:
        self._state = state
        self._parts: OrderedDict[str, tuple[str, int]] = OrderedDict()
        #: the keys whose record is never written down (sends Off The Record) ...
        self._unwritten: set[str] = set()
        #: ... and those the state holds, as last written
        self._on_disk: set[str] = set()

    async def load(self) -> None:
        raw = await self._state.get(_STATE_KEY)
        if not raw:
            return
        try:
            self._parts = OrderedDict(
                (str(key), (str(print_), int(count))) for key, (print_, count) in json.loads(raw)
            )
            self._on_disk = set(self._parts)
        except (ValueError, TypeError) as exc:
            log.warning("telegram.sent_parts_unreadable", error=str(exc))
            self._parts = OrderedDict()

    def count(self, key: str, text: str) -> int:
        """How many messages of ``text`` an earlier attempt under ``key`` sent."""
        entry = self._parts.get(key)
        return entry[1] if entry is not None and entry[0] == _fingerprint(text) else 0

    async def add(self, key: str, text: str, *, write: bool = True) -> None:
        """One more message of ``text`` went out under ``key``; without ``write`` (Off The
        Record) the record stays in memory."""
        print_ = _fingerprint(text)
        self._parts[key] = (print_, self.count(key, text) + 1)
        self._parts.move_to_end(key)
        while len(self._parts) > KEEP:
            self._unwritten.discard(self._parts.popitem(last=False)[0])
        if not write:
            self._unwritten.add(key)
        if key not in self._unwritten or key in self._on_disk:
            await self._save()  # written down, or taken off now that it is not to be

    async def finished(self, key: str) -> None:
        """The send under ``key`` went out whole: nothing of it is left to remember."""
        self._parts.pop(key, None)
        self._unwritten.discard(key)
        if key in self._on_disk:
            await self._save()

    async def _save(self) -> None:
        saved = [
            [key, list(entry)] for key, entry in self._parts.items() if key not in self._unwritten
        ]
        try:
            await self._state.set(_STATE_KEY, json.dumps(saved))
            self._on_disk = {key for key in self._parts if key not in self._unwritten}
        except Exception as exc:
            # the message went out: a record that could not be saved must not fail the send
            # (its retry would show the message twice); this process still remembers it
            log.warning("telegram.sent_parts_unsaved", error=str(exc))
