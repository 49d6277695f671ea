"""``/status``: this conversation's settings, and with ``all`` (admins) the daemon's: its
adapters, the model, the answers platforms refused for good and the live sessions. A shared
room hears only of its own refused answers (another room's name is not the group's to read).
"""

from __future__ import annotations

import time

from bot.commands.table import ADMIN_ONLY, Command, CommandContext
from bot.daemon.health import HealthCheck
from bot.delivery.refusals import Refusal

__all__ = ["REFUSALS_LISTED", "status_command"]

#: refused answers ``/status`` and ``/status all`` name one by one (the newest)
REFUSALS_LISTED = 5


async def _status(ctx: CommandContext) -> str:
    if ctx.args and ctx.args[0].lower() == "all":
        if not ctx.admin:
            return ADMIN_ONLY
        return _status_all(ctx)
    session = await ctx.router.sessions.get(ctx.user, ctx.persona)
    memory = session.memory.name if session.memory is not None else "off"
    llm = ctx.router.sessions.deps.chat_llm
    lines = [
        f"**{ctx.persona}** with **{ctx.user}** via {ctx.incoming.platform}",
        f"- Off The Record: {'on' if ctx.otr else 'off'}",
        f"- Context tier: {session.tier}",
        f"- Messages in this conversation: {len(session.entries(ctx.room))}",
        f"- Model: {llm.model or llm.name}",
        f"- Memory: {memory}",
        await _media_line(ctx),
    ]
    waiting, why = session.log.waiting
    if waiting:
        entries = "entry" if waiting == 1 else "entries"
        lines.append(f"- Session log: {waiting} {entries} waiting for the disk ({why})")
    outbox = ctx.router.outbox
    refused = _here(ctx, outbox.refusals(user=ctx.user) if outbox is not None else [])
    if refused:
        lines.append(f"- Answers the platform refused for good: {len(refused)}")
        lines.extend(f"  - {r.describe()}" for r in refused[:REFUSALS_LISTED])
    return "\n".join(lines)


async def _media_line(ctx: CommandContext) -> str:
    """What this room can do with media: pictures, voice notes, spoken answers."""
    reader = ctx.router.media
    if reader is None:
        return "- Media: text only"
    pictures = "seen" if reader.vision else "not seen (the model has no vision)"
    voice = "transcribed" if reader.transcriber is not None else "not set up"
    adapter = ctx.router.adapters.get(ctx.incoming.platform)
    if adapter is None or not adapter.can_speak:
        spoken = "not available here"
    else:
        spoken = "on" if await ctx.router.voice.wanted(ctx.room) else "off"
    return f"- Media: pictures {pictures}; voice notes {voice}; spoken answers {spoken}"


def _status_all(ctx: CommandContext) -> str:
    router = ctx.router
    uptime = int(time.monotonic() - router.started_at)
    lines = [f"**personad** up {uptime // 3600}h {uptime % 3600 // 60}m"]
    check = router.health or HealthCheck(router.adapters, {}, router.outbox)
    lines.extend(check.line(name) for name in sorted(router.adapters))
    if (model := check.model_line()) is not None:
        lines.append(model)
    refused = _here(ctx, router.outbox.refusals() if router.outbox is not None else [])
    if refused:
        lines.append(f"- answers refused for good: {len(refused)}")
        lines.extend(f"  - {_whose(r)} on {r.describe()}" for r in refused[:REFUSALS_LISTED])
    sessions = router.sessions.all()
    lines.append(f"- sessions: {len(sessions)} live; off the record in {router.otr.count()} rooms")
    return "\n".join(lines)


def _here(ctx: CommandContext, refused: list[Refusal]) -> list[Refusal]:
    """The refusals a room may hear of: all of them in a direct room, in a shared room only
    its own (another room's name is not the group's to read)."""
    if not ctx.room.shared:
        return refused
    return [
        r for r in refused if (r.platform, r.room) == (ctx.incoming.platform, ctx.incoming.room)
    ]


def _whose(refusal: Refusal) -> str:
    """Whose answer it was: ``user/persona``, or a command's reply (it has no owner)."""
    return f"{refusal.user}/{refusal.persona}" if refusal.persona else "a command reply"


def status_command() -> Command:
    """``/status [all]``."""
    return Command("status", "this conversation's settings", _status, usage="[all]")
