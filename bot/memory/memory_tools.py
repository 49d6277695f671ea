"""The model's three memory tools, shared by every backend: search, add, forget.

A backend supplies what differs (how a search is described and how its hits read); argument
checks, the policy's answer for ``memory_add`` and error reporting are the same everywhere.
Errors the model can act on come back as :class:`~bot.tools.registry.ToolFailed`. Each tool
declares ``memory`` (so the gate leaves all three out while Off The Record) and add and forget
``persist``.

The tools are built for one :class:`~bot.turn.audience.Audience`: ``memory_search`` finds only what
it sees (in a shared room: what was said there and what the user made shared), filtered inside
the search, ``memory_forget`` reaches only those, and ``memory_add`` records the audience's
label (a shared room's own). Scoped so, a shared room's search shows nothing private and is
offered there; one built for a direct room sees everything, so it is ``private`` and the gate
never offers it in a shared room (were a direct room's tools ever handed to a shared one).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot.daemon.errors import MemoryStoreError
from bot.memory.base import CATEGORIES, MemoryBackend
from bot.tools.registry import Tool, ToolFailed
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["SearchLines", "memory_tools"]

#: (query, limit, audience) -> one line of text per hit, best first
SearchLines = Callable[[str, int, Audience], Awaitable[list[str]]]

_MAX_LIMIT = 20


def memory_tools(
    backend: MemoryBackend,
    *,
    search_description: str,
    source: Callable[[], str],
    search_lines: SearchLines | None = None,
    audience: Audience = DIRECT_ROOM,
) -> list[Tool]:
    """``memory_search``, ``memory_add`` and ``memory_forget`` for ``backend``.

    ``source`` names where a fact the model stores came from (a citation's source);
    ``search_lines`` defaults to the backend's ``search`` with each hit's text, citation,
    id and what was said around it.
    """

    async def default_lines(query: str, limit: int, heard_by: Audience) -> list[str]:
        hits = await backend.search(query, limit=limit, audience=heard_by)
        return [
            f"- {hit.item.text} {hit.citation} (id {hit.item.id}){hit.around()}" for hit in hits
        ]

    lines_for = search_lines or default_lines

    async def search(args: dict[str, Any]) -> str:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolFailed("memory_search needs a non-empty 'query' string")
        limit = args.get("limit", 5)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= _MAX_LIMIT:
            raise ToolFailed(f"'limit' must be a whole number from 1 to {_MAX_LIMIT}")
        try:
            lines = await lines_for(query, limit, audience)
        except MemoryStoreError as exc:
            raise ToolFailed(str(exc)) from exc
        return "\n".join(lines) if lines else "No stored memory matches."

    async def add(args: dict[str, Any]) -> str:
        text = args.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ToolFailed("memory_add needs a non-empty 'text' string")
        category = args.get("category")
        if category is not None and category not in CATEGORIES:
            raise ToolFailed(f"'category' must be one of {', '.join(CATEGORIES)}")
        try:
            result = await backend.add(
                text, source=source(), category=category, audience=audience.label
            )
        except MemoryStoreError as exc:
            raise ToolFailed(str(exc)) from exc
        if result.stored:
            return f"Stored as {result.category} (id {result.item_id})."
        if result.duplicate_of:
            return f"Already known (id {result.duplicate_of}); it was reinforced."
        return f"Not stored: {result.reason}."

    async def forget(args: dict[str, Any]) -> str:
        item_id = args.get("id")
        if not isinstance(item_id, str) or not item_id.strip():
            raise ToolFailed("memory_forget needs the memory's 'id'")
        try:
            found = await backend.forget(item_id.strip(), audience=audience)
        except MemoryStoreError as exc:
            raise ToolFailed(str(exc)) from exc
        if not found:
            raise ToolFailed(f"no memory has the id {item_id!r}")
        return f"Forgotten: {item_id.strip()}."

    return [
        Tool(
            "memory_search",
            search_description,
            {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": _MAX_LIMIT},
                },
                "required": ["query"],
            },
            search,
            private=audience.private,
            memory=True,
        ),
        Tool(
            "memory_add",
            "Remember one durable fact, preference, decision, skill or error about the user."
            " Ephemeral or trivial text and secrets are refused.",
            {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "One self-contained fact."},
                    "category": {"type": "string", "enum": list(CATEGORIES)},
                },
                "required": ["text"],
            },
            add,
            persists=True,
            memory=True,
        ),
        Tool(
            "memory_forget",
            "Mark a memory as forgotten by its id (it stops being recalled; nothing is deleted).",
            {
                "type": "object",
                "properties": {"id": {"type": "string", "description": "The memory's id."}},
                "required": ["id"],
            },
            forget,
            persists=True,
            memory=True,
        ),
    ]
