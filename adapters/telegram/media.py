"""Telegram's files: a message's media as attachments, fetched through ``getFile``, and
spoken answers sent with ``sendVoice``.

* A photo comes in several sizes; the largest whose long side is at most 2560 px (the most
  Telegram keeps of an ordinary photo) is taken. A document, a voice note and an audio file
  are one attachment each. Videos, video notes, stickers and animations bring no
  attachment: the message is ``kind="attachment"`` with nothing to fetch, which the core
  answers as a kind it does not read.
* ``ref`` is the ``file_id``, which stays valid for this bot as long as Telegram keeps the
  file.
* Fetching: ``getFile`` names the file's path, read from the Bot API's file URL
  (``{base}/file/bot<token>/<path>``) under the cap. The Bot API gives bots files of up to
  20 MB only; a larger declared size is refused with a sentence saying so, without asking.
* ``sendVoice`` takes Ogg Opus and shows it as a voice message with its duration. A user
  whose privacy settings forbid voice messages (``VOICE_MESSAGES_FORBIDDEN``) gets the
  answer as an audio file (``sendDocument``) instead, and, once refused, every later answer
  straight away (the client remembers the chat). The Bot API has no idempotency key: the
  delivery ledger keeps a spoken answer from going out twice.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import aiohttp
import structlog
from telegram import Message, PhotoSize
from telegram.error import BadRequest, ChatMigrated

from adapters.base import Attachment, Speech
from adapters.telegram.client import TelegramClient, _voice_forbidden, chat_ref, period_seconds
from bot.daemon.errors import AdapterError, MediaError, PermanentSendError
from bot.media.fetch import fetch_url, too_large, unreachable

__all__ = ["MAX_BOT_DOWNLOAD", "download", "message_attachments", "send_voice"]

log = structlog.get_logger(__name__)

#: the largest file the Bot API lets a bot fetch
MAX_BOT_DOWNLOAD = 20 * 1024 * 1024
#: the long side of the largest photo size worth fetching
_PHOTO_EDGE = 2560


def message_attachments(message: Message) -> tuple[Attachment, ...]:
    """The files of ``message`` that personad can read (none for videos and stickers)."""
    if message.photo:
        return (_photo(message.photo),)
    if message.animation or message.sticker or message.video or message.video_note:
        return ()  # an animation carries a document too: it is still a GIF or a video
    media = message.voice or message.audio or message.document
    if media is None:
        return ()
    voice = media is message.voice
    return (
        Attachment(
            ref=media.file_id,
            name=getattr(media, "file_name", None) or "",
            mime=media.mime_type or ("audio/ogg" if voice else ""),
            size=media.file_size,
            voice=voice,
            duration=period_seconds(media, "duration"),
        ),
    )


def _photo(sizes: Sequence[PhotoSize]) -> Attachment:
    by_area = sorted(sizes, key=lambda size: size.width * size.height)
    fitting = [
        size
        for size in by_area
        if max(size.width, size.height) <= _PHOTO_EDGE
        and (size.file_size is None or size.file_size <= MAX_BOT_DOWNLOAD)
    ]
    chosen = fitting[-1] if fitting else by_area[0]
    return Attachment(ref=chosen.file_id, mime="image/jpeg", size=chosen.file_size)


def _over_bot_limit(name: str) -> MediaError:
    label = f"“{name}”" if name else "That file"
    return MediaError(
        "Telegram does not give bots files over 20 MB",
        user_message=f"{label} is over the 20 MB Telegram lets bots download, so I cannot"
        " open it; please send a smaller file or paste the text.",
    )


async def download(
    client: TelegramClient, session: aiohttp.ClientSession, attachment: Attachment, limit: int
) -> bytes:
    """The bytes of ``attachment``: ``getFile``, then its file URL read under ``limit``."""
    name = attachment.name
    if attachment.size is not None and attachment.size > limit:
        raise too_large(limit, name)
    if attachment.size is not None and attachment.size > MAX_BOT_DOWNLOAD:
        raise _over_bot_limit(name)
    try:
        file = await client.call("getFile", lambda: client.bot.get_file(attachment.ref))
    except BadRequest as exc:
        if "too big" in exc.message.lower():
            raise _over_bot_limit(name) from exc
        raise unreachable(f"getFile: {exc.message}") from exc
    except (AdapterError, ChatMigrated) as exc:
        raise unreachable(f"getFile: {exc}") from exc
    if file.file_size is not None and file.file_size > limit:
        raise too_large(limit, name)
    url = file.file_path or ""
    if not url.startswith(("http://", "https://")):
        # a Bot API server of one's own in --local mode answers with a path on its disk
        raise unreachable("getFile named no file URL")
    return await fetch_url(session, url, limit=limit, name=name)


async def send_voice(client: TelegramClient, room: str, speech: Speech) -> str:
    """Post ``speech`` to ``room`` as a voice message; the new message's id."""
    duration = dt.timedelta(seconds=round(speech.duration)) if speech.duration else None
    try:
        message = await _post_voice(client, chat_ref(room), speech, duration)
    except ChatMigrated as exc:
        log.warning("telegram.chat_migrated", room=room, new_chat_id=exc.new_chat_id)
        message = await _post_voice(client, exc.new_chat_id, speech, duration)
    return str(message.message_id)


async def _post_voice(
    client: TelegramClient, chat: int | str, speech: Speech, duration: dt.timedelta | None
) -> Message:
    try:
        if chat not in client.voice_forbidden:
            return await client.call(
                "sendVoice",
                lambda: client.bot.send_voice(
                    chat_id=chat, voice=speech.audio, duration=duration, filename=speech.name
                ),
            )
    except BadRequest as exc:  # chat not found, voice messages forbidden by the user
        if not _voice_forbidden(exc):
            raise _voice_refused(exc) from exc
        log.info("telegram.voice_forbidden", chat=chat)
        client.voice_forbidden.add(chat)
    # the user's privacy settings refuse voice messages: the answer goes as an audio file
    try:
        return await client.call(
            "sendDocument",
            lambda: client.bot.send_document(
                chat_id=chat, document=speech.audio, filename=speech.name
            ),
        )
    except BadRequest as exc:
        raise _voice_refused(exc) from exc


def _voice_refused(exc: BadRequest) -> PermanentSendError:
    return PermanentSendError(f"Telegram refused a voice message: {exc.message}")
