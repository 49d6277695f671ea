"""Discord events reduced to :class:`~adapters.base.Incoming`: messages and slash commands.

A direct message is always addressed to the bot. In a guild channel a message is addressed
only when it mentions the bot or replies to one of the bot's messages; the mention itself is
cut from the text. The event id is Discord's own snowflake (message or interaction id), so a
redelivered event keeps its id.

A message with files or stickers is ``kind="attachment"``, its text (if any) the caption and
its files the ``attachments`` (:mod:`adapters.discord.media`); one message is one event however
many files it carries. Stickers are not fetched: a sticker alone is an attachment with no
files, which the core answers as a kind it does not read.
"""

from __future__ import annotations

import re
from typing import Literal

import discord

from adapters.base import Incoming
from adapters.discord.media import message_attachments

__all__ = ["PLATFORM", "interaction_to_incoming", "message_to_incoming", "strip_mention"]

PLATFORM = "discord"

#: message types a person writes; joins, pins, boosts and the like are not conversation
_CONVERSATION_TYPES = (discord.MessageType.default, discord.MessageType.reply)


def strip_mention(text: str, user_id: int) -> str:
    """``text`` without mentions of ``user_id`` (``<@id>`` and the older ``<@!id>``)."""
    return re.sub(rf"<@!?{user_id}>", " ", text).strip()


def _replies_to_me(message: discord.Message, me_id: int) -> bool:
    reference = message.reference
    if reference is None:
        return False
    replied = reference.resolved or reference.cached_message
    return isinstance(replied, discord.Message) and replied.author.id == me_id


def message_to_incoming(message: discord.Message, me_id: int) -> Incoming | None:
    """The event for ``message``, or None when the bot should not see it at all.

    Ignored: the bot's own messages, other bots, system messages, and messages that carry
    neither text nor a file (a bare mention, an embed from a link preview).
    """
    author = message.author
    if author.id == me_id or author.bot or message.type not in _CONVERSATION_TYPES:
        return None
    is_direct = message.guild is None
    mentioned = any(user.id == me_id for user in message.mentions)
    text = strip_mention(message.content, me_id) if mentioned else message.content.strip()
    has_files = bool(message.attachments or message.stickers)
    if not text and not has_files:
        return None
    kind: Literal["text", "attachment"] = "attachment" if has_files else "text"
    reference = message.reference
    return Incoming(
        platform=PLATFORM,
        sender=str(author.id),
        room=str(message.channel.id),
        text=text,
        event_id=str(message.id),
        is_direct=is_direct,
        addressed=is_direct or mentioned or _replies_to_me(message, me_id),
        kind=kind,
        reply_to=str(reference.message_id) if reference and reference.message_id else None,
        sender_name=author.display_name,
        attachments=message_attachments(message),
    )


def interaction_to_incoming(interaction: discord.Interaction, command: str, args: str) -> Incoming:
    """A slash command as the text command the router knows: ``/name args``."""
    text = f"/{command} {args}".strip()
    channel_id = interaction.channel_id
    return Incoming(
        platform=PLATFORM,
        sender=str(interaction.user.id),
        room=str(channel_id) if channel_id is not None else "",
        text=text,
        event_id=str(interaction.id),
        is_direct=interaction.guild_id is None,
        addressed=True,
        sender_name=interaction.user.display_name,
    )
