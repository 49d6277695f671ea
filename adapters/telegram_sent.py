"""The messages already sent for each recent answer, so that sending it again sends only the rest.

The Bot API takes no idempotency key. A long answer goes out as several messages, and when one
in the middle fails (a 502, flood control past its limit) the whole send is tried again later
by the outbox: without this record the messages that did go out would show twice. Each
delivery step carries a key that is the same on every attempt and in every process
(:func:`bot.delivery.answer_key`); for the last :data:`KEEP` keys this keeps the ids of the
messages sent so far, with a fingerprint of the text they were cut from (a key asked again with
other text starts over). The record lives in the adapter's state in ``personad.db``, written
after every message, so it also holds across a restart.

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

#: how many recent answer keys are remembered
KEEP = 256
_STATE_KEY = "sent_parts"


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class SentParts:
    """Message ids sent so far per answer key, kept in the adapter state."""

    def __init__(self, state: KeyValueStore) -> None:
        self._state = state
        self._parts: OrderedDict[str, tuple[str, list[str]]] = OrderedDict()

    async def load(self) -> None:
        raw = await self._state.get(_STATE_KEY)
        if not raw:
            return
        try:
            saved = json.loads(raw)
            self._parts = OrderedDict(
                (str(key), (str(print_), [str(i) for i in ids])) for key, (print_, ids) in saved
            )
        except (ValueError, TypeError) as exc:
            log.warning("telegram.sent_parts_unreadable", error=str(exc))
            self._parts = OrderedDict()

    def sent(self, key: str, text: str) -> list[str]:
        """The ids of the messages of ``text`` already sent under ``key``, in order."""
        entry = self._parts.get(key)
        if entry is None or entry[0] != _fingerprint(text):
            return []
        return list(entry[1])

    async def add(self, key: str, text: str, message_id: str) -> None:
        """One more message of ``text`` went out under ``key``."""
        print_ = _fingerprint(text)
        entry = self._parts.pop(key, None)
        ids = entry[1] if entry is not None and entry[0] == print_ else []
        self._parts[key] = (print_, [*ids, message_id])
        while len(self._parts) > KEEP:
            self._parts.popitem(last=False)
        saved = [[key, [print_, ids]] for key, (print_, ids) in self._parts.items()]
        try:
            await self._state.set(_STATE_KEY, json.dumps(saved))
        except Exception as exc:
            # the message went out: a record that could not be saved must not fail the send
            # (its retry would show the message twice); this process still remembers it
            log.warning("telegram.sent_parts_unsaved", error=str(exc))
