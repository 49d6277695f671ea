"""Which rooms hear their answers spoken as well as written.

Spoken replies are off unless ``media.voice_replies`` says otherwise; ``/voice on|off``
sets a room's own choice, kept in ``personad.db`` (the ``kv`` table) so it outlives a restart.
The choice belongs to the room: everyone in a group hears the same answers.

What is spoken is the answer without its markdown, at most :data:`SPOKEN_CHARS` characters
(about four minutes of speech) cut where a long answer is cut into messages: a longer answer
is read up to there, and the rest stays in writing.
"""

from __future__ import annotations

from bot.daemon.newest import keep_newest
from bot.delivery.state import StateStore
from bot.turn.formatting import split_markdown, strip_markdown
from bot.turn.rooms import Room

__all__ = ["ROOMS_HELD", "SPOKEN_CHARS", "VoiceReplies", "spoken_text"]

_PREFIX = "voice:"
#: rooms whose choice is held in memory (the others are read again from ``personad.db``)
ROOMS_HELD = 1024
#: the most of an answer that is spoken
SPOKEN_CHARS = 4000


def spoken_text(reply: str) -> str:
    """What of ``reply`` is said aloud: its words without markdown, cut as a long answer is
    cut into messages (:func:`~bot.turn.formatting.split_markdown`: at a paragraph, line,
    sentence or word within :data:`SPOKEN_CHARS`), the first part."""
    text = strip_markdown(reply).strip()
    if len(text) <= SPOKEN_CHARS:
        return text
    return split_markdown(text, SPOKEN_CHARS)[0]


class VoiceReplies:
    def __init__(self, state: StateStore, default: bool) -> None:
        self._state = state
        self.default = default
        self._rooms: dict[str, bool] = {}

    async def wanted(self, room: Room) -> bool:
        held = self._rooms.get(room.key)
        if held is None:
            saved = await self._state.kv_get(_PREFIX + room.key)
            held = self.default if saved is None else saved == "on"
            self._hold(room.key, held)
        return held

    async def switch(self, room: Room, on: bool) -> None:
        await self._state.kv_set(_PREFIX + room.key, "on" if on else "off")
        self._hold(room.key, on)

    def _hold(self, key: str, on: bool) -> None:
        """Keep a room's choice in memory: of at most :data:`ROOMS_HELD` rooms, the newest
        (each web conversation is a room of its own)."""
        keep_newest(self._rooms, key, on, ROOMS_HELD)
