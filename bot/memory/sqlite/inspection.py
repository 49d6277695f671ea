"""Reading ``memory.db`` for a person: the shape of an item row, and listing, explaining,
exporting and counting items (``personad memory list|explain|export|stats``).

:class:`FtsInspection` adds these reads to :class:`~bot.memory.sqlite.connection.FtsConnection`;
:class:`~bot.memory.sqlite.store.FtsStore` builds on it. :data:`ITEM_COLUMNS` and
:func:`item_from_row` are the one place that knows the column order of an item row;
:func:`fact_rowid` reads an item's id back as its row.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bot.memory.base import MemoryItem, format_citation
from bot.memory.sqlite.connection import FtsConnection

__all__ = ["ITEM_COLUMNS", "FtsInspection", "fact_rowid", "item_from_row"]

ITEM_COLUMNS = (
    "i.id, i.text, i.category, i.source, i.confidence, i.status, i.created_at, i.last_seen,"
    " i.reinforced, i.audience, i.episode"
)


def item_from_row(row: Sequence[Any]) -> MemoryItem:
    """A row selected with :data:`ITEM_COLUMNS` as a :class:`MemoryItem`."""
    return MemoryItem(
        id=str(row[0]),
        text=row[1],
        category=row[2],
        source=row[3],
        confidence=float(row[4]),
        created_at=datetime.fromtimestamp(row[6], UTC),
        status=row[5],
        reinforced=int(row[8]),
        audience=row[9],
        episode=f"e{row[10]}" if row[10] is not None else "",
    )


def fact_rowid(item_id: str) -> int | None:
    """The row of a fact's id (``42``, or ``#42`` as a person may type it), or None when
    ``item_id`` is not one (an episode's ``e42`` is not)."""
    text = str(item_id).strip().lstrip("#")
    return int(text) if text.isdigit() and len(text) < 19 else None


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


class FtsInspection(FtsConnection):
    """The reads that show a person what the store holds."""

    async def list_items(self, *, include_inactive: bool, limit: int) -> list[MemoryItem]:
        where = "" if include_inactive else "WHERE status = 'active'"
        rows = await self._all(
            f"SELECT {ITEM_COLUMNS} FROM items i {where} ORDER BY created_at DESC, id DESC LIMIT ?",
            (max(0, limit),),
        )
        return [item_from_row(row) for row in rows]

    async def _details(self, where: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        rows = await self._all(f"SELECT {ITEM_COLUMNS}, i.reason FROM items i {where}", params)
        return [
            {
                "id": str(r[0]),
                "text": r[1],
                "category": r[2],
                "source": r[3],
                "confidence": round(float(r[4]), 4),
                "status": r[5],
                "created": _iso(r[6]),
                "last_seen": _iso(r[7]),
                "reinforced": int(r[8]),
                "audience": r[9],
                "episode": f"e{r[10]}" if r[10] is not None else None,
                "reason": r[11],
            }
            for r in rows
        ]

    async def explain(self, rowid: int) -> dict[str, Any]:
        found = await self._details("WHERE i.id = ?", (rowid,))
        if not found:
            return {}
        details = found[0]
        item = MemoryItem(
            details["id"],
            details["text"],
            details["category"],
            details["source"],
            details["confidence"],
            datetime.fromisoformat(details["created"]),
        )
        details["citation"] = format_citation(item)
        events = await self._all(
            "SELECT at, kind, detail FROM item_events WHERE item_id = ? ORDER BY id", (rowid,)
        )
        details["history"] = [{"at": _iso(e[0]), "kind": e[1], "detail": e[2]} for e in events]
        vectors = await self._all("SELECT model FROM vectors WHERE item_id = ?", (rowid,))
        details["vector_model"] = vectors[0][0] if vectors else None
        return details

    async def export(self) -> list[dict[str, Any]]:
        return await self._details("ORDER BY i.id", ())

    async def stats(self) -> dict[str, Any]:
        by_status = await self._all("SELECT status, COUNT(*) FROM items GROUP BY status")
        by_category = await self._all(
            "SELECT category, COUNT(*) FROM items WHERE status = 'active' GROUP BY category"
        )
        vectors = await self._all("SELECT COUNT(*) FROM vectors")
        version = await self._all("SELECT MAX(version) FROM schema_version")
        return {
            "path": str(self.path),
            "schema_version": int(version[0][0] or 0),
            "items": sum(int(r[1]) for r in by_status),
            "by_status": {str(r[0]): int(r[1]) for r in by_status},
            "by_category": {str(r[0]): int(r[1]) for r in by_category},
            "vectors_stored": int(vectors[0][0]),
            "size_bytes": self.path.stat().st_size if self.path.exists() else 0,
        }
