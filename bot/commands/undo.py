"""``/undo``: the newest change the persona made to itself, reverted
(:func:`bot.persona.identity.undo.undo_last`)."""

from __future__ import annotations

from bot.commands.table import Command, CommandContext
from bot.persona.identity.undo import undo_last

__all__ = ["undo_command"]


def undo_command() -> Command:
    """The ``/undo`` chat command, for :func:`bot.commands.table.register`."""

    async def handler(ctx: CommandContext) -> str:
        if ctx.args:
            return "Use `/undo` on its own: it reverts the newest change I made to myself."
        return await undo_last(ctx.router.store, ctx.user, ctx.persona)

    return Command("undo", "revert the last change the persona made to itself", handler)
