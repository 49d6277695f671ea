"""Sending to Telegram: markdown rendered and cut to size, retried, never silently lost.

Wraps python-telegram-bot's :class:`telegram.Bot`. Every call goes through
:meth:`TelegramClient.call`, which waits out flood control (429 ``retry_after``), retries
network failures and 5xx answers with backoff, and turns the library's errors into
:class:`~bot.daemon.errors.AdapterError`. A chunk whose markup Telegram refuses ("can't parse
entities") is sent again as plain text, so an answer is never dropped for its formatting.

A refusal that holds for good is :class:`~bot.daemon.errors.PermanentSendError`: 403 (the user
blocked the bot, it was kicked from the group) and a 400 to a send or an edit that is not
about markup ("chat not found", "not enough rights to send text messages"): the same request
would be refused again. Flood control, 5xx and network failures stay plain ``AdapterError``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import warnings
from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

import structlog
from telegram import Bot, Message, ReplyParameters
from telegram.constants import ChatAction, ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.warnings import PTBDeprecationWarning

from adapters.base import MessageGone
from adapters.telegram.format import (
    MAX_MESSAGE_UTF16,
    fit_chunks,
    render_html,
    render_markdown_v2,
    utf16_len,
)
from bot.daemon.errors import AdapterError, CredentialsRejected, PermanentSendError
from bot.turn.formatting import strip_markdown

__all__ = ["TelegramClient", "chat_ref", "message_ref", "period_seconds", "retry_seconds"]

log = structlog.get_logger(__name__)

T = TypeVar("T")

#: the longest flood-control wait worth sitting through rather than failing the call
MAX_RETRY_AFTER = 60.0


def chat_ref(room: str) -> int | str:
    """A room as the Bot API wants it: the numeric chat id, or an ``@channelname``."""
    try:
        return int(room)
    except ValueError:
        return room


def message_ref(value: str) -> int:
    """A message id from ``"123"`` or from an event id ``"{chat_id}:123"``."""
    try:
        return int(value.rsplit(":", 1)[-1])
    except ValueError as exc:
        raise AdapterError(f"not a Telegram message id: {value!r}") from exc


def _is_gone(exc: BadRequest) -> bool:
    """The message is deleted, or too old (48 h) or otherwise closed to edits."""
    text = exc.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


def _is_parse_error(exc: BadRequest) -> bool:
    text = exc.message.lower()
    return "can't parse entities" in text or "can't find end of" in text


def _voice_forbidden(exc: BadRequest) -> bool:
    """The user's privacy settings refuse voice messages (``VOICE_MESSAGES_FORBIDDEN``)."""
    return "voice_messages_forbidden" in exc.message.lower()


def period_seconds(owner: object, attribute: str) -> float | None:
    """``owner.attribute`` (a retry wait, a duration) in seconds, whichever type this library
    version gives: int today, timedelta in the next major version."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = getattr(owner, attribute, None)
    if value is None:
        return None
    return value.total_seconds() if isinstance(value, dt.timedelta) else float(value)


def retry_seconds(exc: RetryAfter) -> float:
    """Seconds to wait after flood control."""
    return period_seconds(exc, "retry_after") or 0.0


class TelegramClient:
    """Markdown in, Telegram messages out; ``parse_mode`` is ``"html"`` or ``"markdownv2"``."""

    def __init__(
        self,
        bot: Bot,
        parse_mode: Literal["html", "markdownv2"] = "html",
        *,
        attempts: int = 4,
        backoff: float = 0.5,
    ) -> None:
        self.bot = bot
        self.parse_mode = ParseMode.HTML if parse_mode == "html" else ParseMode.MARKDOWN_V2
        self.render: Callable[[str], str] = (
            render_html if parse_mode == "html" else render_markdown_v2
        )
        self.attempts = attempts
        self.backoff = backoff
        #: chats that refused a voice message for their user's privacy settings: their
        #: spoken answers go straight out as audio files, uploaded once
        self.voice_forbidden: set[int | str] = set()

    async def call(self, method: str, request: Callable[[], Awaitable[T]]) -> T:
        """Run one Bot API request with retries. ``BadRequest`` and ``ChatMigrated`` pass
        through for the caller to handle; every other failure becomes ``AdapterError``."""
        delay = self.backoff
        for attempt in range(1, self.attempts + 1):
            try:
                return await request()
            except (BadRequest, ChatMigrated):
                raise
            except RetryAfter as exc:
                wait = retry_seconds(exc)
                if wait > MAX_RETRY_AFTER or attempt == self.attempts:
                    raise AdapterError(
                        f"Telegram {method}: flood control for {wait:.0f}s",
                        user_message="Telegram is rate-limiting me; please try again shortly.",
                    ) from exc
                log.warning("telegram.flood_wait", method=method, seconds=wait)
                await asyncio.sleep(wait)
            except NetworkError as exc:
                if attempt == self.attempts:
                    raise AdapterError(f"Telegram {method} failed: {exc.message}") from exc
                log.warning("telegram.retry", method=method, attempt=attempt, error=exc.message)
                await asyncio.sleep(delay * (0.5 + random.random()))
                delay *= 2
            except InvalidToken:
                # the library's message quotes the token itself: keep it out of logs
                raise CredentialsRejected(
                    "Telegram rejected the bot token (check token or token_env)"
                ) from None
            except Forbidden as exc:
                raise PermanentSendError(
                    f"Telegram {method} forbidden: {exc.message}",
                    user_message="The bot is blocked or no longer in this chat.",
                ) from exc
            except TelegramError as exc:
                raise AdapterError(f"Telegram {method} failed: {exc.message}") from exc
        raise AdapterError(f"Telegram {method} failed after {self.attempts} attempts")

    async def send_markdown(
        self,
        room: str,
        markdown: str,
        reply_to: str | None = None,
        *,
        skip: int = 0,
        on_sent: Callable[[], Awaitable[None]] | None = None,
    ) -> str:
        """Send ``markdown`` in as many messages as it needs; the id of the last one sent.

        Only the first message replies to ``reply_to``. The first ``skip`` messages are taken
        as sent already (an earlier attempt sent them), and ``on_sent`` hears of each one that
        went out while more are still to go. Returns ``""`` when the text has nothing visible
        to send.
        """
        chat: int | str = chat_ref(room)
        reply = message_ref(reply_to) if reply_to else None
        last = ""
        visible = [
            (chunk, rendered)
            for chunk, rendered in fit_chunks(markdown, self.render)
            if strip_markdown(chunk).strip()
        ]
        if skip:
            reply = None  # the first message, the reply, went out already
        for index, (chunk, rendered) in enumerate(visible[skip:], start=skip):
            try:
                last = await self._send_formatted(chat, chunk, rendered, reply)
            except ChatMigrated as exc:
                log.warning("telegram.chat_migrated", room=room, new_chat_id=exc.new_chat_id)
                chat = exc.new_chat_id
                last = await self._send_formatted(chat, chunk, rendered, reply)
            if on_sent is not None and index < len(visible) - 1:
                await on_sent()
            reply = None
        return last

    async def _send_formatted(
        self, chat: int | str, chunk: str, rendered: str, reply: int | None
    ) -> str:
        try:
            message = await self._send(chat, rendered, self.parse_mode, reply)
            return str(message.message_id)
        except BadRequest as exc:
            if not _is_parse_error(exc):
                raise PermanentSendError(f"Telegram refused a message: {exc.message}") from exc
            log.warning("telegram.markup_rejected", error=exc.message, chars=len(rendered))
        last = ""
        for _, plain in fit_chunks(strip_markdown(chunk), lambda text: text):
            try:
                message = await self._send(chat, plain, None, reply)
            except BadRequest as exc:
                raise PermanentSendError(f"Telegram refused a message: {exc.message}") from exc
            last, reply = str(message.message_id), None
        return last

    async def _send(
        self, chat: int | str, text: str, parse_mode: str | None, reply: int | None
    ) -> Message:
        parameters = (
            ReplyParameters(message_id=reply, allow_sending_without_reply=True)
            if reply is not None
            else None
        )
        return await self.call(
            "sendMessage",
            lambda: self.bot.send_message(
                chat_id=chat, text=text, parse_mode=parse_mode, reply_parameters=parameters
            ),
        )

    async def edit_markdown(self, room: str, message_id: str, markdown: str) -> None:
        """Replace a sent message's text; an unchanged text is not an error."""
        rendered: str = self.render(markdown)
        mode: str | None = self.parse_mode
        if utf16_len(rendered) > MAX_MESSAGE_UTF16:
            rendered, mode = strip_markdown(markdown), None
        if utf16_len(rendered) > MAX_MESSAGE_UTF16:
            raise AdapterError(f"{len(markdown)} characters are too long for one Telegram message")
        try:
            await self._edit(room, message_id, rendered, mode)
        except BadRequest as exc:
            if _is_gone(exc):
                raise MessageGone(
                    f"Telegram cannot edit message {message_id}: {exc.message}"
                ) from exc
            if mode is None or not _is_parse_error(exc):
                raise PermanentSendError(f"Telegram refused an edit: {exc.message}") from exc
            log.warning("telegram.markup_rejected", error=exc.message, chars=len(rendered))
            try:
                await self._edit(room, message_id, strip_markdown(markdown), None)
            except BadRequest as again:
                raise PermanentSendError(f"Telegram refused an edit: {again.message}") from again

    async def _edit(self, room: str, message_id: str, text: str, mode: str | None) -> None:
        try:
            await self.call(
                "editMessageText",
                lambda: self.bot.edit_message_text(
                    text=text,
                    chat_id=chat_ref(room),
                    message_id=message_ref(message_id),
                    parse_mode=mode,
                ),
            )
        except BadRequest as exc:
            if "message is not modified" in exc.message.lower():
                return
            raise

    async def typing(self, room: str) -> None:
        """Show "typing…" in ``room`` for about five seconds (Telegram's own duration)."""
        try:
            await self.call(
                "sendChatAction",
                lambda: self.bot.send_chat_action(chat_id=chat_ref(room), action=ChatAction.TYPING),
            )
        except (AdapterError, BadRequest, ChatMigrated) as exc:
            log.info("telegram.typing_failed", room=room, error=str(exc))
