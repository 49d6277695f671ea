"""An adapter's state (offsets, sync tokens, sent-message records) kept in a dict."""

from __future__ import annotations

from adapters.base import KeyValueStore

__all__ = ["MemoryState"]


class MemoryState(KeyValueStore):
    """An in-memory adapter state store."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    async def get(self, key: str) -> str | None:
        return self.values.get(key)

    async def set(self, key: str, value: str) -> None:
        self.values[key] = value
