"""What the Discord adapter sends: answers, their edits, voice messages and typing notices.

An answer is cut at Discord's 2000-character limit (:func:`~bot.turn.formatting.split_markdown`
keeps fenced code blocks whole). The answer to a slash command becomes the interaction's
response and its follow-ups (:class:`~adapters.discord.commands.PendingInteractions`), and
goes on in the channel should the interaction refuse a part (its token may have run out); any
other answer goes to its channel, its first part as a reply to the message it answers. Each
part's nonce is its idempotency key, so a part sent again is answered with the message
already made.

A room is a channel id, or ``"user:<id>"`` for the direct-message channel with that user.
discord.py's and aiohttp's errors become :class:`~bot.daemon.errors.AdapterError` naming what
was being done: 403 and 404 are :class:`~bot.daemon.errors.PermanentSendError`, and an edit of
a message Discord no longer has is :class:`~adapters.base.MessageGone`.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable, Iterator

import aiohttp
import discord
import structlog

from adapters.base import MessageGone, Speech, part_key
from adapters.discord import media
from adapters.discord.client import PersonadClient
from adapters.discord.commands import PendingInteractions, Reply
from bot.daemon.errors import AdapterError, PermanentSendError
from bot.turn.formatting import split_markdown

__all__ = ["DISCORD_MAX_CHARS", "Channel", "Outgoing"]

log = structlog.get_logger(__name__)

DISCORD_MAX_CHARS = 2000
#: a typing indicator lasts about 10 seconds; refresh it no more often than this
_TYPING_EVERY = 8.0

Channel = discord.PartialMessageable | discord.DMChannel


class Outgoing:
    """Sends through whatever client the adapter has at the time of the call."""

    def __init__(
        self, client: Callable[[], PersonadClient | None], pending: PendingInteractions
    ) -> None:
        self._get_client = client
        self._pending = pending
        self._typed: dict[str, float] = {}

    def forget_typing(self) -> None:
        """Forget when each room was last shown typing."""
        self._typed.clear()

    def _live(self) -> PersonadClient:
        client = self._get_client()
        if client is None or client.is_closed():
            raise AdapterError("Discord is not connected", user_message="Discord is not connected.")
        return client

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
