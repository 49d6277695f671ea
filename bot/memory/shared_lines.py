"""Whether a memory item is the store's copy of a line of a ``shared/`` file, which every
room reads from the file itself: relabelling such a copy makes nothing private, so ``/unshare
ID`` and ``personad memory unshare ID`` say how to take the line out instead."""

from __future__ import annotations

from bot.memory.base import MemoryBackend
from bot.turn.audience import SHARED_FOLDER

__all__ = ["shared_file_line"]


async def shared_file_line(memory: MemoryBackend, item_id: str) -> tuple[str, str] | None:
    """The file and the text of item ``item_id`` when it is the store's copy of a line of a
    ``shared/`` file (None otherwise): every room reads that file itself, so relabelling the
    copy makes nothing private; the line is taken out of the file by its text."""
    try:
        details = await memory.explain(item_id)
    except (KeyError, ValueError):
        return None
    source = str(details.get("source") or "")
    if not source.startswith(f"{SHARED_FOLDER}/"):
        return None
    return source, str(details.get("text") or "")
