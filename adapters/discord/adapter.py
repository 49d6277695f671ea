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
:mod:`adapters.discord.commands` (slash commands and the interactions awaiting answers) and
:mod:`adapters.discord.media` (files in, voice messages out).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
import time
from collections.abc import Iterator

import aiohttp
import discord
import structlog

from adapters.base import (
    Adapter,
    AdapterContext,
    Attachment,
    Incoming,
    MessageGone,
    Speech,
    part_key,
)
from adapters.discord import media
from adapters.discord.client import PersonadClient, login
from adapters.discord.commands import PendingInteractions, Reply, sync_commands
from adapters.discord.settings import Settings, apply_endpoints
from bot.daemon.errors import AdapterError, CredentialsRejected, MediaError, PermanentSendError
from bot.turn.formatting import split_markdown

__all__ = ["DISCORD_MAX_CHARS", "DiscordAdapter", "Settings", "create"]

log = structlog.get_logger(__name__)

DISCORD_MAX_CHARS = 2000
#: a typing indicator lasts about 10 seconds; refresh it no more often than this
_TYPING_EVERY = 8.0
_FATAL = (discord.LoginFailure, discord.PrivilegedIntentsRequired)
#: gateway close codes that refuse the bot itself: authentication failed, invalid or
#: disallowed intents
_REFUSED_CODES = (4004, 4013, 4014)
#: a connection that lasted this long was healthy: the next failure starts the pauses over
_HEALTHY_RUN = 60.0

Channel = discord.PartialMessageable | discord.DMChannel


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
        self._typed: dict[str, float] = {}
        self._files: aiohttp.ClientSession | None = None

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        if self._client is not None and not self._client.is_closed():
            return
        token = self.settings.token_value()
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
        self._typed.clear()
        if self._files is not None:
            await self._files.close()
            self._files = None

    async def _deliver(self, incoming: Incoming) -> None:
        try:
            await self.context.handler(incoming)
        except Exception:
            log.exception("discord.handler_failed", event_id=incoming.event_id)

    # ------------------------------------------------------------------ out
    def _live(self) -> PersonadClient:
        if self._client is None or self._client.is_closed():
            raise AdapterError("Discord is not connected", user_message="Discord is not connected.")
        return self._client

    async def _channel(self, room: str) -> Channel:
        client = self._live()
        if room.startswith("user:") and room[5:].isdigit():
            with _translated(f"open a direct message with {room}"):
                return await client.create_dm(discord.Object(id=int(room[5:])))
        if not room.isdigit():
            raise AdapterError(f"not a Discord channel id: {room!r}")
        return client.get_partial_messageable(int(room))

    async def send(
        self, room: str, text: str, *, reply_to: str | None = None, key: str | None = None
    ) -> str:
        chunks = split_markdown(text, DISCORD_MAX_CHARS)
        if not chunks:
            raise AdapterError("nothing to send: the message is empty")
        reply = self._pending.for_reply(reply_to)
        last = ""
        for index, chunk in enumerate(chunks):
            if reply is not None:
                try:
                    last = await self._answer(reply, chunk)
                    continue
                except discord.HTTPException as exc:
                    # the interaction token may have run out; the channel still works
                    log.warning("discord.followup_failed", status=exc.status)
                    reply = None
            channel = await self._channel(room)
            with _translated(f"send to channel {room}"):
                if index == 0 and reply_to and reply_to.isdigit():
                    reference = discord.MessageReference(
                        message_id=int(reply_to), channel_id=channel.id, fail_if_not_exists=False
                    )
                    message = await channel.send(
                        chunk, reference=reference, nonce=_nonce(key, index)
                    )
                else:
                    message = await channel.send(chunk, nonce=_nonce(key, index))
            last = str(message.id)
        self._typed.pop(room, None)
        return last

    async def _answer(self, reply: Reply, chunk: str) -> str:
        interaction = reply.interaction
        if reply.original_id is None:
            original = await interaction.edit_original_response(content=chunk)
            self._pending.sent(reply, str(original.id), original=True)
            return str(original.id)
        followup = await interaction.followup.send(chunk, wait=True)
        self._pending.sent(reply, str(followup.id), original=False)
        return str(followup.id)

    async def edit(self, room: str, message_id: str, text: str, *, key: str | None = None) -> None:
        if not text.strip() or len(text) > DISCORD_MAX_CHARS:
            raise AdapterError(
                f"an edit must be 1 to {DISCORD_MAX_CHARS} characters, not {len(text)}"
            )
        if not message_id.isdigit():
            raise AdapterError(f"not a Discord message id: {message_id!r}")
        reply = self._pending.for_message(message_id)
        with _gone_if_not_found(), _translated(f"edit message {message_id}"):
            if reply is not None and message_id == reply.original_id:
                await reply.interaction.edit_original_response(content=text)
            elif reply is not None:
                await reply.interaction.followup.edit_message(int(message_id), content=text)
            else:
                channel = await self._channel(room)
                await channel.get_partial_message(int(message_id)).edit(content=text)

    async def download(self, attachment: Attachment, *, limit: int) -> bytes:
        if self._files is None:
            raise MediaError(
                "the Discord adapter is not running",
                user_message="I am not connected to Discord just now; please send it again.",
            )
        return await media.download(self._files, attachment, limit)

    async def post_audio(self, room: str, speech: Speech, *, key: str | None = None) -> str:
        client = self._live()
        channel = await self._channel(room)
        with _translated(f"send a voice message to channel {room}"):
            return await media.post_voice(client, channel, speech, _nonce(key, 0))

    async def typing(self, room: str, on: bool) -> None:
        if not on:
            self._typed.pop(room, None)
            return
        now = time.monotonic()
        if now - self._typed.get(room, -_TYPING_EVERY) < _TYPING_EVERY:
            return
        self._typed[room] = now
        try:
            channel = await self._channel(room)
            await channel.typing()
        except (AdapterError, discord.HTTPException, aiohttp.ClientError, OSError) as exc:
            log.info("discord.typing_failed", room=room, error=str(exc))


def _nonce(key: str | None, index: int) -> str | int:
    """The message nonce: the part's idempotency key (Discord answers a repeated nonce with
    the message it already made), else a random one as discord.py would pick."""
    return part_key(key, index) or secrets.randbits(63)


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


@contextlib.contextmanager
def _gone_if_not_found() -> Iterator[None]:
    """An edit of a message Discord no longer has is :class:`MessageGone`."""
    try:
        yield
    except AdapterError as exc:
        if isinstance(exc.__cause__, discord.NotFound):
            raise MessageGone(str(exc)) from exc
        raise


@contextlib.contextmanager
def _translated(action: str) -> Iterator[None]:
    """Turn discord.py's and aiohttp's errors into :class:`AdapterError` naming ``action``:
    403 and 404 are refusals for good (:class:`PermanentSendError`), the rest may pass."""
    try:
        yield
    except discord.Forbidden as exc:  # Missing Access, Cannot send messages to this user
        raise PermanentSendError(f"Discord refused to {action}: {exc.text or exc.status}") from exc
    except discord.NotFound as exc:  # Unknown Channel (an unknown message: see above)
        detail = f" ({exc.text})" if exc.text else ""
        raise PermanentSendError(f"Discord could not {action}: not found{detail}") from exc
    except discord.HTTPException as exc:
        raise AdapterError(f"Discord failed to {action}: HTTP {exc.status}") from exc
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        raise AdapterError(f"cannot reach Discord to {action}: {exc!r}") from exc


def create(settings: Settings, context: AdapterContext) -> DiscordAdapter:
    return DiscordAdapter(settings, context)
