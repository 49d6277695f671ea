"""Slash commands built from the core's command table, and the interactions awaiting a reply.

Each ``(name, description, admin_only)`` row of ``context.command_menu`` becomes one global
slash command. The few commands that take an argument get a typed option (``/otr`` a choice
of on/off, ``/tier`` an integer 1-4, ``/status`` an optional ``all``); an unknown command gets
one optional free-text option so nothing the router understands is cut off. Admin commands
carry ``default_member_permissions`` = administrator, which only hides them in guilds from
members without that permission: the router's own admin check is the real guard.

An invoked command is acknowledged at once (a deferred "thinking" response; Discord allows
3 seconds) and handed on as the text ``/name args``. Its answer arrives later through
``send(reply_to=<interaction id>)``: :class:`PendingInteractions` keeps the interaction so
that answer becomes the interaction's response and follow-ups, for the 15 minutes
Discord keeps an interaction token valid.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import discord
import structlog
from discord import app_commands

from adapters.base import KeyValueStore

__all__ = [
    "ARGUMENT_SHAPES",
    "INTERACTION_TTL",
    "PendingInteractions",
    "Reply",
    "build_commands",
    "sync_commands",
]

log = structlog.get_logger(__name__)

#: Discord keeps an interaction's token valid for 15 minutes; leave a margin
INTERACTION_TTL = 14 * 60.0

Invoke = Callable[[discord.Interaction, str, str], Awaitable[None]]

#: how each known command takes its argument; any other command takes optional free text
ARGUMENT_SHAPES: dict[str, str] = {
    "help": "none",
    "new": "none",
    "compact": "none",
    "reload": "none",
    "users": "none",
    "otr": "switch",
    "tier": "level",
    "status": "scope",
    "distill": "period",
}


class _Slash:
    """The callbacks of one command; discord.py reads the options from their signatures.

    Every option is optional because every command also works bare (``/otr`` shows the
    current state, ``/tier`` the current tier).
    """

    def __init__(self, name: str, invoke: Invoke) -> None:
        self.name = name
        self.invoke = invoke

    async def none(self, interaction: discord.Interaction) -> None:
        await self.invoke(interaction, self.name, "")

    @app_commands.describe(state="on or off; leave empty to see the current state")
    async def switch(
        self, interaction: discord.Interaction, state: Literal["on", "off"] | None = None
    ) -> None:
        await self.invoke(interaction, self.name, state or "")

    @app_commands.describe(tier="1 (lightest) to 4 (everything); leave empty to see it")
    async def level(
        self, interaction: discord.Interaction, tier: app_commands.Range[int, 1, 4] | None = None
    ) -> None:
        await self.invoke(interaction, self.name, "" if tier is None else str(tier))

    @app_commands.describe(scope="all: every platform and persona")
    async def scope(
        self, interaction: discord.Interaction, scope: Literal["all"] | None = None
    ) -> None:
        await self.invoke(interaction, self.name, scope or "")

    @app_commands.describe(layer="which memory layer; short when left empty")
    async def period(
        self, interaction: discord.Interaction, layer: Literal["short", "mid", "long"] | None = None
    ) -> None:
        await self.invoke(interaction, self.name, layer or "")

    @app_commands.describe(args="arguments, as you would type them after the command")
    async def free(self, interaction: discord.Interaction, args: str | None = None) -> None:
        await self.invoke(interaction, self.name, (args or "").strip())


def build_commands(
    menu: list[tuple[str, str, bool]], invoke: Invoke
) -> list[app_commands.Command[Any, ..., None]]:
    """One slash command per menu row; rows whose name Discord would refuse are skipped."""
    commands: list[app_commands.Command[Any, ..., None]] = []
    for name, description, admin_only in menu:
        slash = _Slash(name, invoke)
        callback = getattr(slash, ARGUMENT_SHAPES.get(name, "free"))
        try:
            command: app_commands.Command[Any, ..., None] = app_commands.Command(
                name=name, description=(description or name)[:100], callback=callback
            )
        except ValueError:  # a name with capitals, spaces or over 32 characters
            continue
        if admin_only:
            command.default_permissions = discord.Permissions(administrator=True)
        commands.append(command)
    return commands


async def sync_commands(client: discord.Client, state: KeyValueStore) -> None:
    """Register the client's commands with Discord (a bulk overwrite), when they changed.

    The digest of the last registered set is kept in the adapter's state, so a restart with
    the same commands costs no request. A failure is logged, not raised: messages still work
    without slash commands.
    """
    tree: app_commands.CommandTree[discord.Client] = client.tree  # type: ignore[attr-defined]
    payload = [command.to_dict(tree) for command in tree.get_commands()]
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
    key = f"commands:{client.application_id}"
    if await state.get(key) == digest:
        log.info("discord.commands_unchanged", count=len(payload))
        return
    try:
        registered = await tree.sync()
    except (discord.HTTPException, app_commands.CommandSyncFailure) as exc:
        log.warning("discord.commands_sync_failed", error=str(exc))
        return
    await state.set(key, digest)
    log.info("discord.commands_registered", count=len(registered))


@dataclass(slots=True)
class Reply:
    """An interaction awaiting its answer, and the ids of the messages sent for it."""

    interaction: discord.Interaction
    created: float = field(default_factory=time.monotonic)
    original_id: str | None = None
    followup_ids: list[str] = field(default_factory=list)

    def expired(self) -> bool:
        return time.monotonic() - self.created > INTERACTION_TTL


class PendingInteractions:
    """Interactions by id, and by the id of each message sent in answer to them."""

    def __init__(self) -> None:
        self._by_interaction: dict[str, Reply] = {}
        self._by_message: dict[str, Reply] = {}

    def add(self, interaction: discord.Interaction) -> None:
        self._prune()
        self._by_interaction[str(interaction.id)] = Reply(interaction)

    def for_reply(self, reply_to: str | None) -> Reply | None:
        reply = self._by_interaction.get(reply_to) if reply_to else None
        return reply if reply is not None and not reply.expired() else None

    def for_message(self, message_id: str) -> Reply | None:
        reply = self._by_message.get(message_id)
        return reply if reply is not None and not reply.expired() else None

    def sent(self, reply: Reply, message_id: str, *, original: bool) -> None:
        if original:
            reply.original_id = message_id
        else:
            reply.followup_ids.append(message_id)
        self._by_message[message_id] = reply

    def clear(self) -> None:
        self._by_interaction.clear()
        self._by_message.clear()

    def _prune(self) -> None:
        for key, reply in list(self._by_interaction.items()):
            if reply.expired():
                del self._by_interaction[key]
        for key, reply in list(self._by_message.items()):
            if reply.expired():
                del self._by_message[key]

    def __len__(self) -> int:
        return len(self._by_interaction)
