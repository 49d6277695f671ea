"""Telegram updates reduced to :class:`~adapters.base.Incoming` events, and the command menu.

Only new messages become events. Edited messages, channel posts, reactions and service
messages (members joining, pinned messages) are ignored: an edit of a message the persona
already answered would otherwise start a second turn.

* ``event_id`` is ``"{chat_id}:{message_id}"``: Telegram numbers messages per chat, and the
  pair is the same every time the update is delivered again.
* A private chat is direct. In a group the bot sees a message (with privacy mode on, only
  these anyway) and treats it as addressed when it @mentions the bot, replies to one of the
  bot's messages, or is a ``/command`` (``/cmd@this_bot`` is stripped to ``/cmd``;
  ``/cmd@other_bot`` is meant for another bot and is not addressed).
* Photos, documents, stickers, voice notes and other media are ``kind="attachment"`` with the
  caption (if any) as text and the files personad reads as ``attachments``
  (:mod:`adapters.telegram.media`); the photos of one album share its ``media_group_id``,
  which becomes ``album``.
"""

from __future__ import annotations

import re
from typing import Any

import structlog
from telegram import Bot, Message, MessageEntity, Update, User

from adapters.base import Attachment, Incoming
from adapters.telegram.media import message_attachments

__all__ = ["bot_commands", "to_incoming", "update_from_json"]

log = structlog.get_logger(__name__)

_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")


def update_from_json(data: Any, bot: Bot) -> Update | None:
    """Parse one raw update; a malformed one is logged and gives ``None``."""
    try:
        if not isinstance(data, dict):
            raise TypeError(f"an update must be an object, not {type(data).__name__}")
        return Update.de_json(data, bot)
    except Exception as exc:  # the library raises TypeError/KeyError/ValueError alike
        update_id = data.get("update_id") if isinstance(data, dict) else None
        log.warning("telegram.update_malformed", update_id=update_id, error=str(exc))
        return None


def to_incoming(update: Update, me: User) -> Incoming | None:
    """The event for ``update``, or ``None`` when the core has nothing to do with it."""
    message = update.message
    if message is None or message.from_user is None or message.from_user.id == me.id:
        return None
    attachments: tuple[Attachment, ...] = ()
    if message.text is not None:
        text, kind = message.text, "text"
    elif message.effective_attachment is not None:
        text, kind = message.caption or "", "attachment"
        attachments = message_attachments(message)
    else:
        return None  # a service message: someone joined, a pin, a new title
    is_direct = message.chat.type == "private"
    text, is_command, for_us = _strip_command(text, me.username)
    mentioned = _mentions(message, me)
    addressed = is_direct or mentioned or _replies_to(message, me) or (is_command and for_us)
    if not is_command and mentioned:
        text = _strip_leading_mention(text, me.username)
    reply = message.reply_to_message
    return Incoming(
        platform="telegram",
        sender=str(message.from_user.id),
        room=str(message.chat.id),
        text=text,
        event_id=f"{message.chat.id}:{message.message_id}",
        is_direct=is_direct,
        addressed=bool(addressed),
        kind=kind,  # type: ignore[arg-type]
        reply_to=f"{message.chat.id}:{reply.message_id}" if reply is not None else None,
        sender_name=message.from_user.full_name or message.from_user.username,
        received_at=message.date.timestamp(),
        attachments=attachments,
        album=message.media_group_id or "",
    )


def _strip_command(text: str, username: str | None) -> tuple[str, bool, bool]:
    """``(text, is_command, meant_for_us)``, with ``@this_bot`` cut from ``/cmd@this_bot``."""
    match = re.match(r"^/([A-Za-z0-9_]+)(?:@(\w+))?(?=\s|$)", text)
    if match is None:
        return text, False, False
    target = match.group(2)
    if target is None:
        return text, True, True
    if username is not None and target.lower() == username.lower():
        return f"/{match.group(1)}{text[match.end() :]}", True, True
    return text, True, False


def _mentions(message: Message, me: User) -> bool:
    kinds: list[str | None] = [MessageEntity.MENTION, MessageEntity.TEXT_MENTION]
    found = message.parse_entities(kinds) if message.text else message.parse_caption_entities(kinds)
    handle = f"@{me.username}".lower() if me.username else None
    for entity, text in found.items():
        if entity.type == MessageEntity.TEXT_MENTION and entity.user and entity.user.id == me.id:
            return True
        if entity.type == MessageEntity.MENTION and handle and text.lower() == handle:
            return True
    return False


def _replies_to(message: Message, me: User) -> bool:
    reply = message.reply_to_message
    return bool(reply and reply.from_user and reply.from_user.id == me.id)


def _strip_leading_mention(text: str, username: str | None) -> str:
    if not username:
        return text
    stripped = re.sub(rf"^\s*@{re.escape(username)}\b[\s,:;.!-]*", "", text, flags=re.IGNORECASE)
    return stripped or text


def bot_commands(menu: list[tuple[str, str, bool]]) -> list[tuple[str, str]]:
    """The ``(command, description)`` pairs Telegram accepts for the default command menu.

    Admin-only commands stay out of the menu every user sees; names are lowercased and a
    name Telegram would refuse is left out (and logged) rather than failing the whole list.
    """
    commands: list[tuple[str, str]] = []
    seen: set[str] = set()
    for name, description, admin_only in menu:
        if admin_only:
            continue
        command = name.lstrip("/!").lower()
        if not _COMMAND_NAME.match(command) or command in seen:
            log.warning("telegram.command_skipped", command=name)
            continue
        seen.add(command)
        commands.append((command, (description.strip() or command)[:256]))
    return commands
