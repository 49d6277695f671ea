"""Which rooms hear their answers spoken as well as written.

Spoken replies are off unless ``media.voice_replies`` says otherwise; ``/voice on|off``
sets a room's own choice, kept in ``personad.db`` (the ``kv`` table) so it outlives a restart.
The choice belongs to the room: everyone in a group hears the same answers.
"""

from __future__ import annotations

from bot.delivery.state import StateStore
from bot.turn.rooms import Room

__all__ = ["VoiceReplies"]

_PREFIX = "voice:"


class VoiceReplies:
    def __init__(self, state: StateStore, default: bool) -> None:
        self._state = state
        self.default = default
        self._rooms: dict[str, bool] = {}

    async def wanted(self, room: Room) -> bool:
        if room.key not in self._rooms:
            saved = await self._state.kv_get(_PREFIX + room.key)
            self._rooms[room.key] = self.default if saved is None else saved == "on"
        return self._rooms[room.key]

    async def switch(self, room: Room, on: bool) -> None:
        await self._state.kv_set(_PREFIX + room.key, "on" if on else "off")
        self._rooms[room.key] = on
