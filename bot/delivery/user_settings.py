"""What users chose, in ``personad.db`` (a part of :class:`~bot.delivery.state.StateStore`):
Off The Record per (user, room) (table ``otr_room``), a session's tier (``session_state``)
and the persona each user talks to (``active_persona``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

__all__ = ["UserSettings"]


class UserSettings:
    """The users' settings (a part of :class:`~bot.delivery.state.StateStore`)."""

    # what it uses of the store
    _write: Callable[[str, tuple[object, ...]], Awaitable[int]]
    _all: Callable[[str, Sequence[object]], Awaitable[list[tuple[object, ...]]]]
    _one: Callable[[str, tuple[object, ...]], Awaitable[tuple[object, ...] | None]]

    async def session_tier(self, user: str, persona: str) -> int | None:
        """The session's tier (None: the default)."""
        row = await self._one(
            "SELECT tier FROM session_state WHERE user = ? AND persona = ?", (user, persona)
        )
        tier = row[0] if row else None
        return int(tier) if isinstance(tier, int) else None

    async def otr_rooms(self) -> list[tuple[str, str]]:
        """Every (user, room) that is Off The Record (room ``*``: every room)."""
        rows = await self._all("SELECT user, room FROM otr_room", ())
        return [(str(row[0]), str(row[1])) for row in rows]

    async def set_otr_room(self, user: str, room: str, on: bool) -> None:
        """Switch Off The Record for ``user`` in ``room``; off also ends an "every room"
        mode left from before modes belonged to rooms."""
        if on:
            await self._write(
                "INSERT OR IGNORE INTO otr_room (user, room) VALUES (?, ?)", (user, room)
            )
        else:
            await self._write(
                "DELETE FROM otr_room WHERE user = ? AND room IN (?, '*')", (user, room)
            )

    async def set_tier(self, user: str, persona: str, tier: int) -> None:
        await self._write(
            "INSERT INTO session_state (user, persona, tier) VALUES (?, ?, ?)"
            " ON CONFLICT (user, persona) DO UPDATE SET tier = excluded.tier",
            (user, persona, tier),
        )

    async def get_active_persona(self, user: str) -> str | None:
        row = await self._one("SELECT persona FROM active_persona WHERE user = ?", (user,))
        return str(row[0]) if row else None

    async def active_personas(self) -> dict[str, str]:
        """Every user's chosen persona (users who never chose are absent)."""
        rows = await self._all("SELECT user, persona FROM active_persona", ())
        return {str(row[0]): str(row[1]) for row in rows}

    async def set_active_persona(self, user: str, persona: str) -> None:
        await self._write(
            "INSERT INTO active_persona (user, persona) VALUES (?, ?)"
            " ON CONFLICT (user) DO UPDATE SET persona = excluded.persona",
            (user, persona),
        )
