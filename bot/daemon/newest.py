"""A table that keeps only its newest entries: what a daemon up for months holds per room or
per event (a room's voice choice, a web conversation's persona, the Matrix events it has
seen) stays as large as the rooms in use, not as all there ever were."""

from __future__ import annotations

from typing import TypeVar

__all__ = ["keep_newest"]

K = TypeVar("K")
V = TypeVar("V")


def keep_newest(table: dict[K, V], key: K, value: V, most: int) -> None:
    """Put ``key`` in ``table`` as its newest entry, and let the oldest go beyond ``most``."""
    table.pop(key, None)
    table[key] = value
    while len(table) > most:
        del table[next(iter(table))]
