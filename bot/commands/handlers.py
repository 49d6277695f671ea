"""What each chat command does. Importing this module fills :data:`bot.commands.table.COMMANDS`."""

from __future__ import annotations

import re
import time

from bot.commands.search import search_command
from bot.commands.sharing import sharing_commands
from bot.commands.table import (
    ADMIN_ONLY,
    COMMANDS,
    RELOAD_REFUSED,
    Command,
    CommandContext,
    register,
)
from bot.commands.undo import undo_command
from bot.daemon.errors import PersonaError
from bot.daemon.health import HealthCheck
from bot.delivery.refusals import Refusal
from bot.persona.names import validate_name

__all__: list[str] = []


#: a line of a persona's HELP.md about a command (`/otr on`, `!help`, `!`): the list comes
#: from the command table, so an older HELP.md cannot show an admin command to everyone
_COMMAND_LINE = re.compile(r"`[/!](?:[a-z]|`)")
#: refused answers ``/status`` and ``/status all`` name one by one (the newest)
REFUSALS_LISTED = 5
#: ``/distill`` in a shared room: its answer would name every room and the direct rooms' memory
DISTILL_ONLY_DIRECT = "/distill works in a direct conversation with me, not in a shared room."
#: ``/users`` in a shared room: its answer names every user's identities to whoever is there
USERS_ONLY_DIRECT = "/users works in a direct conversation with me, not in a shared room."
#: ``/reload`` of a config with problems, in a shared room: the problems name users and values
RELOAD_PROBLEMS_IN_DIRECT = (
    f"{RELOAD_REFUSED}. Ask me in a direct conversation, or run `personad check-config`,"
    " to see them."
)


async def _help(ctx: CommandContext) -> str:
    """The persona's HELP.md words, then the commands the asker may use, from the table."""
    text = ctx.router.store.read(ctx.user, ctx.persona, "HELP.md").text
    words = "\n".join(line for line in text.splitlines() if not _COMMAND_LINE.search(line))
    words = re.sub(r"\n{3,}", "\n\n", words).strip()
    visible = [c for c in COMMANDS.values() if ctx.admin or not c.admin]
    table = "\n".join(
        f"- `/{c.name}{(' ' + c.usage) if c.usage else ''}`: {c.summary}" for c in visible
    )
    table += "\n\n`!` works in place of `/` on every platform."
    heading = (
        "**Commands**"
        if ctx.admin or not any(c.admin for c in COMMANDS.values())
        else ("**Commands** (admins have a few more)")
    )
    # a blank line before the list: markdown renderers start a list only after one
    return f"{words}\n\n{heading}\n\n{table}" if words else f"{heading}\n\n{table}"


def _mode_line(otr: bool) -> str:
    """The mode as a reply that changes persona states it."""
    if otr:
        return "Off The Record is on in this room: nothing is logged or remembered."
    return "Off The Record is off: this conversation is logged and remembered."


async def _otr(ctx: CommandContext) -> str:
    arg = ctx.args[0].lower() if ctx.args else ""
    if arg not in ("", "on", "off"):
        return "Use `/otr on`, `/otr off`, or `/otr` to see whether Off The Record is on."
    if not arg:
        return _mode_line(ctx.otr)
    saved = await ctx.router.otr.switch(ctx.user, ctx.room, arg == "on")
    if arg == "on":
        answer = (
            "Off The Record is on in this room, whichever persona you talk to. Nothing from"
            " now on is logged or remembered, until you say `/otr off`."
        )
        if not saved:
            answer += (
                " I could not save this setting (a problem with my storage), so after a"
                " restart of mine you should check `/otr` before saying anything private."
            )
        return answer
    if not saved:
        return (
            "I could not save that (a problem with my storage), so Off The Record stays on:"
            " nothing is logged or remembered. Try `/otr off` again later."
        )
    let_go = await _let_go(ctx)
    answer = "Off The Record is off. The conversation is logged and remembered again."
    if let_go:
        answer += " I have let go of what we said off the record; it is not in what I remember."
    return answer


async def _let_go(ctx: CommandContext) -> int:
    """Drop the Off The Record turns of this room from every live conversation of the user."""
    dropped = 0
    for session in ctx.router.sessions.of_user(ctx.user):
        async with session.lock:
            dropped += session.forget_off_the_record(ctx.room)
    return dropped


async def _voice(ctx: CommandContext) -> str:
    arg = ctx.args[0].lower() if ctx.args else ""
    if arg not in ("", "on", "off"):
        return "Use `/voice on`, `/voice off`, or `/voice` to see whether answers are spoken."
    adapter = ctx.router.adapters.get(ctx.incoming.platform)
    if adapter is None or not adapter.supports_voice:
        return f"I can't send voice messages on {ctx.incoming.platform}, so answers stay written."
    if adapter.context.speak is None:
        return (
            "Spoken answers need a speech server: whoever runs me can point"
            " `llm.roles.speech` at one (see docs/MEDIA.md)."
        )
    if not arg:
        on = await ctx.router.voice.wanted(ctx.room)
        return (
            "Answers in this room are spoken as well as written (`/voice off` to stop)."
            if on
            else "Answers in this room are written only (`/voice on` to hear them too)."
        )
    await ctx.router.voice.switch(ctx.room, arg == "on")
    if arg == "on":
        return "From now on I answer in this room in writing and as a voice message."
    return "From now on my answers in this room are written only."


async def _tier(ctx: CommandContext) -> str:
    session = await ctx.router.sessions.get(ctx.user, ctx.persona)
    if not ctx.args:
        return (
            f"Context tier is {session.tier} (1 minimal … 4 everything). Change it with `/tier N`."
        )
    try:
        tier = int(ctx.args[0])
        async with session.lock:
            await session.set_tier(tier)
    except ValueError:
        return "The tier must be 1, 2, 3 or 4, e.g. `/tier 3`."
    return f"Context tier set to {tier}."


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


async def _new(ctx: CommandContext) -> str:
    session = await ctx.router.sessions.get(ctx.user, ctx.persona)
    async with session.lock:
        await session.new_conversation(ctx.room, otr=ctx.otr)
    return "Fresh start. (Earlier turns stay in the day's log.)"


async def _compact(ctx: CommandContext) -> str:
    session = await ctx.router.sessions.get(ctx.user, ctx.persona)
    async with session.lock:
        result = await session.compact(ctx.room, force=True)
    if result is None or result.pointer is None:
        return "Nothing to compact yet."
    return f"Compacted older turns; {len(result.promoted)} facts were kept in memory."


async def _persona(ctx: CommandContext) -> str:
    names = ctx.router.store.list_personas(ctx.user)
    if not ctx.args:
        listed = ", ".join(names) or "none"
        return (
            f"You are talking with **{ctx.persona}**. Your personas: {listed}."
            f" {_mode_line(ctx.otr)}"
        )
    wanted = ctx.args[0]
    try:
        validate_name(wanted, "persona")
        ctx.router.store.require(ctx.user, wanted)
    except PersonaError as exc:
        return exc.user_message
    await ctx.router.set_active_persona(ctx.user, wanted)
    return f"You are now talking with **{wanted}**. {_mode_line(ctx.otr)}"


async def _reload(ctx: CommandContext) -> str:
    """Reload; in a shared room a config's problems are not read out (they name users, their
    identities and the config's values), only that there are some."""
    answer = await ctx.router.reload()
    if ctx.room.shared and answer.startswith(RELOAD_REFUSED):
        return RELOAD_PROBLEMS_IN_DIRECT
    return answer


async def _distill(ctx: CommandContext) -> str:
    """Run a distillation; only in a direct room, as its answer speaks of every audience's
    memory (the direct rooms' digests, each shared room by name)."""
    if ctx.room.shared:
        return DISTILL_ONLY_DIRECT
    kind = ctx.args[0].lower() if ctx.args else "short"
    if kind not in ("short", "mid", "long"):
        return "Use `/distill short`, `/distill mid` or `/distill long`."
    return await ctx.router.distill(ctx.user, ctx.persona, kind)


async def _users(ctx: CommandContext) -> str:
    """Every user with their identities; only in a direct room, as strangers share groups."""
    if ctx.room.shared:
        return USERS_ONLY_DIRECT
    config = ctx.router.config
    if not config.users:
        return "No users are configured."
    lines = []
    for name, user in sorted(config.users.items()):
        role = "admin" if user.admin else "user"
        ids = ", ".join(user.identities) or "no identities"
        lines.append(f"- **{name}** ({role}, {user.timezone}, {user.default_persona}): {ids}")
    return "\n".join(lines)


for _command in (
    Command("help", "show help", _help),
    Command("otr", "Off The Record: on, off, or show", _otr, usage="[on|off]"),
    Command("tier", "how much context to load (1-4)", _tier, usage="[1-4]"),
    Command("voice", "speak answers too: on, off, or show", _voice, usage="[on|off]"),
    Command("status", "this conversation's settings", _status, usage="[all]"),
    Command("new", "start a fresh conversation", _new),
    Command("compact", "fold older turns into memory now", _compact),
    Command("persona", "show or switch persona", _persona, usage="[name]"),
    Command("reload", "re-read config and persona files", _reload, admin=True),
    Command("distill", "distill memory now", _distill, admin=True, usage="[short|mid|long]"),
    Command("users", "list configured users", _users, admin=True),
    undo_command(),
    search_command(),
    *sharing_commands(),
):
    register(_command)


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
