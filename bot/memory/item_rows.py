"""An item's row in ``holographic.db`` and ``honcho.db`` (text ids, ISO times), and back; its
event history.

Both stores select :data:`ITEM_COLUMNS` first in their queries, so :func:`item_from_row`
reads the first nine values of any such row; their own columns follow. (``memory.db`` keeps
numeric ids and epoch times: :mod:`bot.memory.sqlite.inspection`.)
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import aiosqlite

from bot.memory.base import MemoryItem

__all__ = ["ITEM_COLUMNS", "item_from_row", "item_history"]

ITEM_COLUMNS = "id, text, category, source, confidence, status, reinforced, created_at, audience"


def item_from_row(row: Sequence[Any]) -> MemoryItem:
    """The item of a row selected with :data:`ITEM_COLUMNS` first."""
    return MemoryItem(
        id=str(row[0]),
        text=str(row[1]),
        category=row[2],
        source=str(row[3]),
        confidence=float(row[4]),
        status=row[5],
        reinforced=int(row[6]),
        created_at=datetime.fromisoformat(str(row[7])),
        audience=row[8],
    )


async def item_history(db: aiosqlite.Connection, item_id: str) -> list[dict[str, Any]]:
    """An item's events (its ``events`` rows), oldest first."""
    rows = await db.execute_fetchall(
        "SELECT at, event, detail FROM events WHERE item_id = ? ORDER BY id", (item_id,)
    )
    return [{"at": r[0], "event": r[1], "detail": r[2]} for r in rows]
