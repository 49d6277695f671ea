"""``/undo``: the newest change the persona made to itself, reverted
(:func:`bot.persona.identity.undo.undo_last`). Only in a direct room: the change may be a fact
promoted into the private USER.md or MEMORY.md, which its reply quotes."""

from __future__ import annotations

from bot.commands.table import Command, CommandContext
from bot.persona.identity.undo import undo_last

__all__ = ["ONLY_DIRECT", "undo_command"]

ONLY_DIRECT = "/undo works in a direct conversation with me, not in a shared room."


def undo_command() -> Command:
    """The ``/undo`` chat command, for :func:`bot.commands.table.register`."""

    async def handler(ctx: CommandContext) -> str:
        if ctx.args:
            return "Use `/undo` on its own: it reverts the newest change I made to myself."
        if ctx.room.shared:
            return ONLY_DIRECT
        return await undo_last(ctx.router.store, ctx.user, ctx.persona)

    return Command("undo", "revert the last change the persona made to itself", handler)
