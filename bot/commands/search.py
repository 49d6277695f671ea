"""``/search WORDS``: the days of past conversations that mention them, as a chat answer.

The search itself is :func:`bot.persona.sessionlog.search.search_sessions`; from a shared
room only that room's turns are searched. A query is at most
:data:`~bot.persona.sessionlog.search.MAX_QUERY` characters, as the HTTP API's.
"""

from __future__ import annotations

from typing import Any

from bot.commands.table import Command, CommandContext
from bot.persona.sessionlog.search import MAX_QUERY, search_sessions

__all__ = ["search_command"]


def _render(results: list[dict[str, Any]], query: str) -> str:
    if not results:
        return f"Nothing in our past conversations matches “{query}”."
    lines = []
    for group in results[:7]:
        lines.append(f"**{group['date']}**")
        for hit in group["hits"]:
            who = "you" if hit["role"] == "user" else "me"
            lines.append(f"- {hit['time'][:5]} {who}: {hit['highlighted']}")
    if len(results) > 7:
        lines.append(f"(and {len(results) - 7} more days)")
    return "\n".join(lines)


def search_command() -> Command:
    """``/search WORDS``: the days of past conversations that mention them."""

    async def handler(ctx: CommandContext) -> str:
        query = " ".join(ctx.args).strip()
        if not query:
            return "Use `/search WORDS`: I look for them in our past conversations."
        if len(query) > MAX_QUERY:
            # as GET /sessions/search refuses it: a pasted paragraph is no search
            return (
                f"A search is at most {MAX_QUERY} characters; yours is {len(query)}."
                " Search again with fewer words."
            )
        directory = ctx.router.store.require(ctx.user, ctx.persona)
        room = ctx.room
        # from a shared room, only what was said there while it was one
        results = await search_sessions(
            directory,
            ctx.persona,
            query,
            room=room.key if room.shared else None,
            days=30,
            shared_only=room.shared,
        )
        return _render(results, query)

    return Command("search", "search past conversations", handler, usage="WORDS")
