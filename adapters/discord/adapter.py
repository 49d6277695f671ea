"""Discord: a bot account on the gateway, through discord.py.

Messages arrive over the gateway (direct messages, and guild messages that mention the bot or
reply to it); slash commands built from the core's command table arrive as interactions and
are answered as the interaction's response. Answers are markdown, which Discord renders
itself, split at Discord's 2000-character limit with fenced code blocks kept whole.

Rooms are channel ids (``"123456789012345678"``); ``"user:<id>"`` opens (or reuses) the
direct-message channel with that user, for messages the bot starts itself.

Media (:mod:`adapters.discord.media`): ``download`` reads an attachment's CDN URL under the
cap on an HTTP session of the adapter's own; ``post_audio`` posts a voice message.

The pieces: :mod:`adapters.discord.settings` (the config section),
:mod:`adapters.discord.client` (the discord.py client: events in, health),
:mod:`adapters.discord.incoming` (events to :class:`Incoming`),
:mod:`adapters.discord.commands` (slash commands and the interactions awaiting answers),
:mod:`adapters.discord.send` (answers, edits, voice messages and typing out) and
:mod:`adapters.discord.media` (files in, voice messages out).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

import aiohttp
import discord
import structlog

from adapters.base import Adapter, AdapterContext, Attachment, Incoming, Speech
from adapters.discord import media
from adapters.discord.client import PersonadClient, login
from adapters.discord.commands import PendingInteractions, sync_commands
from adapters.discord.send import DISCORD_MAX_CHARS, Outgoing
from adapters.discord.settings import Settings, apply_endpoints
from bot.daemon.errors import AdapterError, CredentialsRejected, MediaError
from bot.daemon.logs import register_secret

__all__ = ["DiscordAdapter", "Settings", "create"]

log = structlog.get_logger(__name__)

_FATAL = (discord.LoginFailure, discord.PrivilegedIntentsRequired)
#: gateway close codes that refuse the bot itself: authentication failed, invalid or
#: disallowed intents
_REFUSED_CODES = (4004, 4013, 4014)
#: a connection that lasted this long was healthy: the next failure starts the pauses over
_HEALTHY_RUN = 60.0


class DiscordAdapter(Adapter):
    platform = "discord"
    max_message_chars = DISCORD_MAX_CHARS
    supports_edit = True
    # a repeated nonce (sent with enforce_nonce) is answered with the message it made
    idempotent = True
    supports_voice = True

    def __init__(self, settings: Settings, context: AdapterContext) -> None:
        super().__init__(context)
        self.settings = settings
        self._client: PersonadClient | None = None
        self._runner: asyncio.Task[None] | None = None
        self._fatal: BaseException | None = None
        self._pending = PendingInteractions()
        self.outgoing = Outgoing(lambda: self._client, self._pending)
        self._files: aiohttp.ClientSession | None = None

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        if self._client is not None and not self._client.is_closed():
            return
        token = self.settings.token_value()
        register_secret(token)  # masked in every log line, whatever its variable is called
        apply_endpoints(self.settings)
        self._fatal = None
        client = self._client = PersonadClient(
            deliver=self._deliver,
            health=self.health,
            menu=self.context.command_menu,
            pending=self._pending,
            application_id=self.settings.application_id,
        )
        self._files = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(sock_connect=10))
        try:
            await login(client, token)
            if self.settings.sync_commands:
                await sync_commands(client, self.context.state)
            self._runner = asyncio.create_task(self._run(client), name="discord.gateway")
            await self._wait_connected(client)
        except BaseException:
            await self.stop()
            raise
        self.health.running = True
        self.health.touch("connected")
        log.info("discord.started", user=str(client.user), commands=len(self.context.command_menu))

    async def _wait_connected(self, client: PersonadClient) -> None:
        assert self._runner is not None
        waiter = asyncio.create_task(client.connected.wait())
        try:
            await asyncio.wait(
                {waiter, self._runner},
                timeout=self.settings.connect_timeout,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            waiter.cancel()
        if not client.connected.is_set():
            cause = self._fatal
            reason = f": {cause}" if cause else f" within {self.settings.connect_timeout:g} s"
            # a rejected token or a privileged intent the portal does not grant: the same
            # connection would be refused again
            refused = isinstance(cause, _FATAL) or (
                isinstance(cause, discord.ConnectionClosed) and cause.code in _REFUSED_CODES
            )
            kind = CredentialsRejected if refused else AdapterError
            raise kind(f"Discord gateway did not connect{reason}") from cause

    async def _run(self, client: PersonadClient) -> None:
        """Keep the gateway connected until the client is closed.

        discord.py resumes or re-identifies by itself after network failures; what escapes
        its loop is either fatal (bad token, a privileged intent not enabled) or unexpected,
        in which case a fresh connection is tried after a pause.
        """
        pause = 1.0
        while not client.is_closed():
            began = time.monotonic()
            try:
                await client.connect(reconnect=True)
            except _FATAL as exc:
                self._fail(exc)
                return
            except discord.ConnectionClosed as exc:
                if client.is_closed():  # discord.py closed the client: the close code is final
                    self._fail(exc)
                    return
                log.warning("discord.gateway_closed", code=exc.code)
            except Exception as exc:
                log.warning("discord.gateway_failed", error=repr(exc))
            # discord.py leaves the failed socket (and its heartbeat thread) behind
            await _drop_socket(client)
            if client.is_closed():
                return
            if time.monotonic() - began > _HEALTHY_RUN:
                pause = 1.0
            await asyncio.sleep(pause)
            pause = min(pause * 2, _HEALTHY_RUN)

    def _fail(self, exc: BaseException) -> None:
        self._fatal = exc
        self.health.running = False
        self.health.detail = f"stopped: {exc}"
        log.error("discord.gateway_fatal", error=str(exc))

    async def stop(self) -> None:
        client, runner = self._client, self._runner
        self._client = self._runner = None
        self.health.running = False
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()
            await _drop_socket(client)
        if runner is not None:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await runner
        self._pending.clear()
        self.outgoing.forget_typing()
        if self._files is not None:
            await self._files.close()
            self._files = None

    async def _deliver(self, incoming: Incoming) -> None:
        try:
            await self.context.handler(incoming)
        except Exception:
            log.exception("discord.handler_failed", event_id=incoming.event_id)

    # ------------------------------------------------------------------ out
    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        return await self.outgoing.send(room, text, reply_to=reply_to, key=key)

    async def edit(self, room: str, message_id: str, text: str, *, key: str | None = None) -> None:
        await self.outgoing.edit(room, message_id, text, key=key)

    async def download(self, attachment: Attachment, *, limit: int) -> bytes:
        if self._files is None:
            raise MediaError(
                "the Discord adapter is not running",
                user_message="I am not connected to Discord just now; please send it again.",
            )
        return await media.download(self._files, attachment, limit)

    async def post_audio(self, room: str, speech: Speech, *, key: str | None = None) -> str:
        return await self.outgoing.post_audio(room, speech, key=key)

    async def typing(self, room: str, on: bool) -> None:
        await self.outgoing.typing(room, on)


async def _drop_socket(client: PersonadClient) -> None:
    """Close the client's gateway socket and wait for its heartbeat thread to end.

    discord.py heartbeats from a thread that posts to this event loop; it is stopped only
    when the socket is closed through discord.py, and must finish while the loop still runs.
    """
    ws = client.ws
    if ws is None:
        return
    keep_alive = getattr(ws, "_keep_alive", None)
    with contextlib.suppress(Exception):
        await ws.close(code=4000)
    if isinstance(keep_alive, threading.Thread):
        keep_alive.stop()  # type: ignore[attr-defined]
        await asyncio.to_thread(keep_alive.join, 5.0)


def create(settings: Settings, context: AdapterContext) -> DiscordAdapter:
    return DiscordAdapter(settings, context)
