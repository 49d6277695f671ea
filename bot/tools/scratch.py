"""The scratchpad tools for the model: read and write the persona's SCRATCH.md (a shared
room's own: ``rooms/<room>/SCRATCH.md``)."""

from __future__ import annotations

from typing import Any

from bot.persona.store import PersonaStore
from bot.tools.registry import Tool, ToolFailed, saving
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["SCRATCH_LIMIT", "scratch_tools"]

SCRATCH_LIMIT = 20_000


def scratch_tools(
    store: PersonaStore, user: str, persona: str, audience: Audience = DIRECT_ROOM
) -> list[Tool]:
    """Read and write the scratchpad of ``audience``: in a shared room its own, which shows
    nothing private, so it is not withheld there."""
    path = audience.own("SCRATCH.md")

    async def read(_args: dict[str, Any]) -> str:
        file = store.read(user, persona, path)
        if file.problem:
            raise ToolFailed(file.problem)
        return file.text or "(the scratchpad is empty)"

    async def write(args: dict[str, Any]) -> str:
        text = args.get("text")
        mode = args.get("mode", "replace")
        if not isinstance(text, str):
            raise ToolFailed("'text' must be a string")
        if mode not in ("replace", "append"):
            raise ToolFailed("'mode' must be 'replace' or 'append'")
        if mode == "append":
            current = store.read(user, persona, path).text
            text = (current.rstrip("\n") + "\n" + text) if current.strip() else text
        if len(text) > SCRATCH_LIMIT:
            raise ToolFailed(
                f"the scratchpad holds at most {SCRATCH_LIMIT} characters; shorten it first"
            )
        with saving(path):
            await store.write(user, persona, path, text if text.endswith("\n") else text + "\n")
        return f"Scratchpad saved ({len(text)} characters)."

    return [
        Tool(
            name="scratch_read",
            description="Read your scratchpad (SCRATCH.md): notes you keep during longer tasks.",
            input_schema={"type": "object", "properties": {}},
            handler=read,
            private=audience.private,
        ),
        Tool(
            name="scratch_write",
            description=(
                "Write your scratchpad (SCRATCH.md). mode 'replace' (default) overwrites it, "
                "'append' adds a line at the end."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "the text to write"},
                    "mode": {"type": "string", "enum": ["replace", "append"]},
                },
                "required": ["text"],
            },
            handler=write,
            persists=True,
        ),
    ]
