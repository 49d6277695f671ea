"""The discord.py client: gateway events in, health and reconnects reported out.

One :class:`PersonadClient` lives for one ``start()``; a closed discord.py client cannot
connect again, so a restart builds a new one. The client touches the adapter's health on
every frame the gateway sends (heartbeat ACKs and dispatches alike, through discord.py's
``socket_raw_receive`` debug event), counts its own reconnects (each RESUMED, each READY
after the first), and hands messages and slash commands on as :class:`Incoming` events.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import discord
import structlog
from discord import app_commands

from adapters.base import AdapterHealth, Incoming
from adapters.discord.commands import PendingInteractions, build_commands
from adapters.discord.incoming import interaction_to_incoming, message_to_incoming
from bot.daemon.errors import AdapterError, CredentialsRejected

__all__ = ["INTENTS", "PersonadClient", "login"]

log = structlog.get_logger(__name__)

INTENTS = discord.Intents.none()
INTENTS.guilds = True  # discord.py needs guilds to know channels
INTENTS.guild_messages = True
INTENTS.dm_messages = True
INTENTS.message_content = True

Deliver = Callable[[Incoming], Awaitable[None]]


class PersonadClient(discord.Client):
    """A :class:`discord.Client` that delivers to personad's handler and reports health."""

    def __init__(
        self,
        *,
        deliver: Deliver,
        health: AdapterHealth,
        menu: list[tuple[str, str, bool]],
        pending: PendingInteractions,
        application_id: int | None = None,
    ) -> None:
        options: dict[str, Any] = {"application_id": application_id} if application_id else {}
        super().__init__(
            intents=INTENTS,
            enable_debug_events=True,
            chunk_guilds_at_startup=False,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=False),
            **options,
        )
        self.deliver = deliver
        self.health = health
        self.pending = pending
        self.connected = asyncio.Event()
        self._sessions = 0
        self.tree: app_commands.CommandTree[PersonadClient] = app_commands.CommandTree(self)
        self.tree.on_error = self._on_command_error  # type: ignore[method-assign]
        for command in build_commands(menu, self._invoke):
            self.tree.add_command(command)
        _guard_parsers(self)

    # ------------------------------------------------------------------ liveness
    async def on_socket_raw_receive(self, _frame: Any) -> None:
        self.health.touch("gateway")

    async def on_connect(self) -> None:
        self._sessions += 1
        if self._sessions > 1:
            self.health.reconnects += 1
        self.health.touch("connected")
        self.connected.set()
        log.info("discord.connected", session=self._sessions, user=str(self.user))

    async def on_resumed(self) -> None:
        self.health.reconnects += 1
        self.health.touch("resumed")
        log.info("discord.resumed", reconnects=self.health.reconnects)

    async def on_disconnect(self) -> None:
        log.info("discord.disconnected")

    # ------------------------------------------------------------------ events in
    async def on_message(self, message: discord.Message) -> None:
        if self.user is None:
            return
        incoming = message_to_incoming(message, self.user.id)
        if incoming is not None:
            await self.deliver(incoming)

    async def _invoke(self, interaction: discord.Interaction, command: str, args: str) -> None:
        try:
            await interaction.response.defer(thinking=True)
        except discord.HTTPException as exc:
            # the answer still reaches the channel as a plain message
            log.warning("discord.defer_failed", command=command, status=exc.status)
        else:
            self.pending.add(interaction)
        await self.deliver(interaction_to_incoming(interaction, command, args))
        reply = self.pending.for_reply(str(interaction.id))
        if reply is not None and reply.original_id is None:
            # nothing answered (an unknown sender, a redelivery): take "thinking…" away
            try:
                await interaction.delete_original_response()
            except discord.HTTPException as exc:
                log.info("discord.unanswered_cleanup_failed", status=exc.status)

    async def _on_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        log.warning(
            "discord.command_failed",
            command=interaction.command.name if interaction.command else None,
            error=repr(error),
        )

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        log.exception("discord.event_failed", event=event_method)


async def login(client: PersonadClient, token: str) -> None:
    """Log in over REST (the bot user and the application); errors as :class:`AdapterError`."""
    try:
        await client.login(token)
    except discord.LoginFailure as exc:
        raise CredentialsRejected(
            "Discord rejected the bot token (adapters.discord.token)"
        ) from exc
    except discord.HTTPException as exc:
        raise AdapterError(f"Discord login failed: HTTP {exc.status}") from exc
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        raise AdapterError(f"cannot reach Discord: {exc!r}") from exc


def _guard_parsers(client: discord.Client) -> None:
    """Make a malformed gateway dispatch cost one event, not the connection.

    discord.py parses each dispatch inside its receive loop; a payload missing a field it
    expects raises out of that loop and ends the connection. Wrapping each parser of this
    client's own state keeps the session alive and logs the bad event instead.
    """
    parsers: dict[str, Callable[[Any], None]] | None = getattr(
        getattr(client, "_connection", None), "parsers", None
    )
    if not isinstance(parsers, dict):
        return
    for event, parser in list(parsers.items()):
        parsers[event] = _guarded(event, parser)


def _guarded(event: str, parser: Callable[[Any], None]) -> Callable[[Any], None]:
    def parse(data: Any) -> None:
        try:
            parser(data)
        except Exception as exc:
            log.warning("discord.bad_dispatch", event_type=event, error=repr(exc))

    return parse
