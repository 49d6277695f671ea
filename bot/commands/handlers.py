"""What each chat command does. Importing this module fills :data:`bot.commands.table.COMMANDS`."""

from __future__ import annotations

import re

from bot.commands.search import search_command
from bot.commands.sharing import sharing_commands
from bot.commands.status import status_command
from bot.commands.table import (
    COMMANDS,
    RELOAD_REFUSED,
    Command,
    CommandContext,
    register,
)
from bot.commands.undo import undo_command
from bot.daemon.errors import PersonaError
from bot.persona.names import validate_name

__all__: list[str] = []


#: a line of a persona's HELP.md about a command (`/otr on`, `!help`, `!`): the list comes
#: from the command table, so an older HELP.md cannot show an admin command to everyone
_COMMAND_LINE = re.compile(r"`[/!](?:[a-z]|`)")
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
        # shown, never switched: someone who typed it to turn it on learns that it is not
        if ctx.otr:
            return f"{_mode_line(True)} `/otr off` ends it."
        return f"{_mode_line(False)} Say `/otr on` first for anything that should not be."
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
    asked = ctx.args[0]
    wanted = _one_of(asked, names)
    if wanted is None:
        listed = ", ".join(names) or "none yet"
        return f"You have no persona '{asked}'. Your personas: {listed}."
    try:
        validate_name(wanted, "persona")
        ctx.router.store.require(ctx.user, wanted)
    except PersonaError as exc:
        return exc.user_message
    if not await ctx.router.choose_persona(ctx.user, ctx.room, wanted):
        return (
            f"This conversation stays with **{ctx.persona}**; send `/persona {wanted}` on"
            f" its own to start one with {wanted}."
        )
    return f"You are now talking with **{wanted}**. {_mode_line(ctx.otr)}"


def _one_of(asked: str, names: list[str]) -> str | None:
    """The persona ``asked`` names: the one spelled so, else the only one spelled so in
    another case (``/persona Tina`` on a phone that capitalises); None when there is none."""
    if asked in names:
        return asked
    folded = [name for name in names if name.casefold() == asked.casefold()]
    return folded[0] if len(folded) == 1 else None


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
    status_command(),
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
