"""Discord's files: a message's attachments, fetched from the CDN under a cap, and spoken
answers posted as voice messages.

* Every file of a message is one :class:`~adapters.base.Attachment`: ``ref`` is its CDN URL
  (signed by Discord, good for about a day), with its file name, ``content_type`` and size. A
  recorded voice message (``is_voice_message()``) is ``voice=True`` with its duration.
* Fetching is a GET of that URL on the adapter's own HTTP session (the CDN takes no token),
  read under the cap; a declared size over it is refused without asking.
* A voice message is a message with the ``IS_VOICE_MESSAGE`` flag (8192) and nothing but one
  Ogg Opus attachment that carries ``duration_secs`` and a ``waveform`` (one byte a point,
  at most 256, base64). discord.py 2.7 has no call for it, so the message is built with its
  own :func:`discord.http.handle_message_parameters` and sent through its HTTP client, with
  the rate limits and retries of any message. The waveform is a level line: the audio is not
  decoded to draw it. Without a duration, or where Discord refuses a voice message (a
  channel that does not allow them, no permission to send them), the audio goes as an
  ordinary file attachment. The message nonce is the idempotency key, as for text.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import aiohttp
import discord
import structlog
from discord.http import handle_message_parameters

from adapters.base import Attachment, Speech
from bot.media.fetch import fetch_url, too_large, unreachable

__all__ = ["VOICE_FLAG", "download", "message_attachments", "post_voice", "waveform"]

log = structlog.get_logger(__name__)

VOICE_FLAG = 8192
#: points a waveform has at most, and the seconds each one stands for
_WAVEFORM_POINTS = 256
_WAVEFORM_STEP = 0.1
_LEVEL = 96
_MISSING_PERMISSIONS = 50013

Channel = discord.PartialMessageable | discord.DMChannel


def message_attachments(message: discord.Message) -> tuple[Attachment, ...]:
    return tuple(
        Attachment(
            ref=file.url,
            name=file.filename,
            mime=file.content_type or "",
            size=file.size,
            voice=file.is_voice_message(),
            duration=file.duration,
        )
        for file in message.attachments
    )


async def download(session: aiohttp.ClientSession, attachment: Attachment, limit: int) -> bytes:
    if attachment.size is not None and attachment.size > limit:
        raise too_large(limit, attachment.name)
    if not attachment.ref.startswith(("https://", "http://")):
        raise unreachable("not a download URL")
    return await fetch_url(session, attachment.ref, limit=limit, name=attachment.name)


def waveform(duration: float) -> bytes:
    """A level line of one point per tenth of a second, at most 256 of them."""
    points = max(1, min(_WAVEFORM_POINTS, round(duration / _WAVEFORM_STEP)))
    return bytes([_LEVEL]) * points


class _VoiceFile(discord.File):
    """The audio of a voice message: its attachment entry says how long it is."""

    __slots__ = ("duration",)

    def __init__(self, speech: Speech, duration: float) -> None:
        super().__init__(io.BytesIO(speech.audio), filename=speech.name)
        self.duration = duration

    def to_dict(self, index: int) -> dict[str, Any]:
        entry = super().to_dict(index)
        entry["duration_secs"] = self.duration
        entry["waveform"] = base64.b64encode(waveform(self.duration)).decode()
        return entry


async def post_voice(
    client: discord.Client, channel: Channel, speech: Speech, nonce: str | int
) -> str:
    """Post ``speech`` in ``channel``; the new message's id. discord.py's HTTP errors pass
    through for the caller to translate."""
    if speech.duration:
        params = handle_message_parameters(
            file=_VoiceFile(speech, speech.duration),
            flags=discord.MessageFlags(voice=True),
            nonce=nonce,
        )
        for part in params.multipart or []:
            if part["name"].startswith("files["):
                part["content_type"] = speech.mime
        try:
            with params:
                data = await client.http.send_message(channel.id, params=params)
            return str(data["id"])
        except discord.HTTPException as exc:
            # 400: no voice messages in this channel; 50013: no permission to send them
            if exc.status != 400 and exc.code != _MISSING_PERMISSIONS:
                raise
            log.info("discord.voice_refused", status=exc.status, code=exc.code)
    audio = discord.File(io.BytesIO(speech.audio), filename=speech.name)
    message = await channel.send(file=audio, nonce=nonce)
    return str(message.id)
