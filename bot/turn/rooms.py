"""Rooms and their Off The Record mode.

A conversation belongs to one room: what is said in a direct conversation never enters the
context of a reply in a shared room. A :class:`Room` names one (platform and the platform's
room id) and says whether it is shared. Off The Record is a mode of a user in a room: it
follows the user across persona switches there, and :class:`OffTheRecord` keeps it.

The mode is read once at start and held in memory; switching it writes ``personad.db`` first.
Switching fails closed: when the write fails, the room is still treated as Off The Record
(turning it on takes effect at once; turning it off does not), and the caller says so.

:class:`GroupsHeard` keeps the rooms the daemon heard are groups, whoever spoke there and
whether or not the persona answered: where the user's private notices must not go.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import structlog

from bot.daemon.errors import StoreError
from bot.daemon.newest import keep_newest
from bot.delivery.state import StateStore
from bot.turn.audience import Audience

__all__ = ["ANY_ROOM", "GROUPS_KEPT", "GroupsHeard", "OffTheRecord", "Room"]

log = structlog.get_logger(__name__)

#: the room of a mode switched on before modes belonged to rooms: on in every room
ANY_ROOM = "*"
#: the groups :class:`GroupsHeard` keeps (the newest heard), far more than a daemon is in
GROUPS_KEPT = 4096


@dataclass(frozen=True, slots=True)
class Room:
    platform: str
    id: str
    shared: bool = False

    @property
    def key(self) -> str:
        """``platform:id``, as the session log and the state database name the room."""
        return f"{self.platform}:{self.id}"

    @property
    def audience(self) -> Audience:
        """Who hears what is said here (:mod:`bot.turn.audience`)."""
        return Audience.of(self.key, shared=self.shared)


class OffTheRecord:
    """Which (user, room) pairs are Off The Record."""

    def __init__(self, state: StateStore) -> None:
        self._state = state
        self._on: set[tuple[str, str]] = set()

    async def load(self) -> None:
        self._on = set(await self._state.otr_rooms())

    def is_on(self, user: str, room: Room) -> bool:
        return (user, room.key) in self._on or (user, ANY_ROOM) in self._on

    async def switch(self, user: str, room: Room, on: bool) -> bool:
        """Switch the mode; True when it was saved. On a failed save the room stays (or
        becomes) Off The Record in memory."""
        if on:
            self._on.add((user, room.key))
        try:
            await self._state.set_otr_room(user, room.key, on)
        except StoreError as exc:
            log.error("otr.save_failed", on=on, error=type(exc).__name__)
            self._on.add((user, room.key))
            return False
        if not on:
            self._on.discard((user, room.key))
            self._on.discard((user, ANY_ROOM))
        return True

    def in_room(self, platform: str, room_id: str) -> bool:
        """Whether anyone is Off The Record in ``room_id`` of ``platform``, there or
        everywhere (who is in a room is the platform's to know)."""
        key = Room(platform, room_id).key
        return any(room in (key, ANY_ROOM) for _, room in self._on)

    def count(self) -> int:
        return len(self._on)


class GroupsHeard:
    """The rooms (``platform:id``) whose last message showed them to be groups: any message
    there, from anyone, addressed to the persona or not, Off The Record or not. A room the
    persona never answered in on the record has no folder that says it is shared
    (:mod:`bot.turn.audience`), yet a private notice must not be said there
    (:mod:`bot.daemon.notify`). Kept in ``personad.db`` once :meth:`load` gave it the store
    (each change written in the background, the newest list each time), so a reminder due
    after a restart, before anyone speaks in the group again, still waits."""

    _KEY = "groups_heard"

    def __init__(self) -> None:
        self._rooms: dict[str, None] = {}
        self._state: StateStore | None = None
        #: the writes under way (kept so that none is collected before it ran)
        self._saving: set[asyncio.Task[None]] = set()

    async def load(self, state: StateStore) -> None:
        """Read the groups heard before the start; their changes are written from now on."""
        self._state = state
        try:
            stored = await state.kv_get(self._KEY)
            rooms = json.loads(stored) if stored else []
        except (StoreError, ValueError) as exc:
            log.error("groups_heard.unreadable", error=type(exc).__name__)
            return
        for room in rooms if isinstance(rooms, list) else []:
            if isinstance(room, str):
                keep_newest(self._rooms, room, None, GROUPS_KEPT)

    def heard(self, room_key: str, *, group: bool) -> None:
        """A message in ``room_key`` said whether it is a group (a direct conversation a
        third person joined is one; a group down to the user and the persona is not)."""
        if group == (room_key in self._rooms):
            return
        if group:
            keep_newest(self._rooms, room_key, None, GROUPS_KEPT)
        else:
            del self._rooms[room_key]
        if self._state is not None:
            task = asyncio.get_running_loop().create_task(self._save(self._state))
            self._saving.add(task)
            task.add_done_callback(self._saving.discard)

    async def _save(self, state: StateStore) -> None:
        try:
            await state.kv_set(self._KEY, json.dumps(list(self._rooms)))
        except StoreError as exc:  # kept in memory all the same; written with the next change
            log.error("groups_heard.save_failed", error=type(exc).__name__)

    async def saved(self) -> None:
        """Wait for the writes under way (before the store closes)."""
        if self._saving:
            await asyncio.wait(set(self._saving))

    def __contains__(self, room_key: object) -> bool:
        return room_key in self._rooms
