"""Small values the daemon keeps between runs, in ``personad.db``'s ``kv`` table (a part of
:class:`~bot.delivery.state.StateStore`): each adapter's bookkeeping (sync tokens, update
offsets), read and written through its own :class:`AdapterState`, and the daemon's own
(a room's voice setting, when a distillation last ran).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from adapters.base import KeyValueStore

__all__ = ["AdapterState", "KeyValues"]


class KeyValues:
    """The key/value table (a part of :class:`~bot.delivery.state.StateStore`)."""

    # what it uses of the store
    _write: Callable[[str, tuple[object, ...]], Awaitable[int]]
    _one: Callable[[str, tuple[object, ...]], Awaitable[tuple[object, ...] | None]]

    async def kv_get(self, key: str) -> str | None:
        row = await self._one("SELECT value FROM kv WHERE key = ?", (key,))
        return str(row[0]) if row else None

    async def kv_set(self, key: str, value: str) -> None:
        await self._write(
            "INSERT INTO kv (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def for_adapter(self, platform: str) -> AdapterState:
        return AdapterState(self, platform)


class AdapterState(KeyValueStore):
    """The key/value view one adapter gets, its keys prefixed by its platform name."""

    def __init__(self, store: KeyValues, platform: str) -> None:
        self._store = store
        self._prefix = f"{platform}:"

    async def get(self, key: str) -> str | None:
        return await self._store.kv_get(self._prefix + key)

    async def set(self, key: str, value: str) -> None:
        await self._store.kv_set(self._prefix + key, value)
