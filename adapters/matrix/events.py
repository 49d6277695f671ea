"""Reading Matrix room events: what was said, whether the bot was meant, what it replies to.

:func:`parse_event` reduces one raw timeline event (its ``source`` dict) to a
:class:`ParsedMessage`, or ``None`` for events nobody answers: state changes, reactions,
redactions, edits of earlier messages and ``m.notice`` messages (the msgtype bots use, so two
bots never talk in a loop). Images, files, audio, video and stickers are ``attachment``
messages: an image, file or audio carries its file (:mod:`adapters.matrix.attachments`) and
its text is the caption, if any; an encrypted event the bot could not decrypt becomes
``other``.

:func:`find_mention` decides whether the bot was named (its user id, display name, ``@name``,
an ``m.mentions`` entry or a matrix.to pill) and returns the text with a leading mention cut,
so ``Inara: !otr on`` reaches the router as ``!otr on``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from adapters.base import Attachment, EventKind
from adapters.matrix.attachments import attachment_of, caption_of

__all__ = ["BotIdentity", "ParsedMessage", "find_mention", "parse_event", "strip_reply_fallback"]

_ATTACHMENTS = {"m.image", "m.file", "m.audio", "m.video"}
_TEXTS = {"m.text", "m.emote"}
_PILL = re.compile(
    r"<a\s[^>]*href=[\"']https://matrix\.to/#/(?P<target>[^\"'?]+)[^\"']*[\"'][^>]*>"
    r"(?P<label>.*?)</a>",
    re.IGNORECASE | re.DOTALL,
)
_TAG = re.compile(r"<[^>]+>")


@dataclass(slots=True)
class BotIdentity:
    """Who the bot is in Matrix: its user id and the display names people may call it by."""

    user_id: str
    display_names: set[str] = field(default_factory=set)

    @property
    def localpart(self) -> str:
        return self.user_id[1:].split(":", 1)[0]


@dataclass(frozen=True, slots=True)
class ParsedMessage:
    """One timeline event someone might expect an answer to."""

    event_id: str
    sender: str
    kind: EventKind
    text: str
    formatted_body: str | None = None
    reply_to: str | None = None
    thread_root: str | None = None
    mentioned_ids: tuple[str, ...] = ()
    #: when the sender's homeserver took it (``origin_server_ts``), in seconds
    sent_at: float | None = None
    attachments: tuple[Attachment, ...] = ()


def strip_reply_fallback(body: str) -> str:
    """Drop the ``> <@who> quoted text`` lines older clients put before a reply's own text."""
    lines = body.split("\n")
    if not lines or not lines[0].startswith(">"):
        return body
    index = 0
    while index < len(lines) and lines[index].startswith(">"):
        index += 1
    if index < len(lines) and not lines[index].strip():
        index += 1
    return "\n".join(lines[index:])


def _relation(content: dict[str, Any]) -> dict[str, Any]:
    relates = content.get("m.relates_to")
    return relates if isinstance(relates, dict) else {}


def parse_event(source: dict[str, Any]) -> ParsedMessage | None:
    """The message in a raw timeline event, or ``None`` if it is not one to answer."""
    event_type = source.get("type")
    event_id, sender = source.get("event_id"), source.get("sender")
    content = source.get("content")
    if not isinstance(event_id, str) or not isinstance(sender, str):
        return None
    if not isinstance(content, dict) or "state_key" in source:
        return None
    relation = _relation(content)
    if relation.get("rel_type") == "m.replace":
        return None
    stamp = source.get("origin_server_ts")
    sent_at = stamp / 1000 if isinstance(stamp, int | float) and stamp > 0 else None
    in_reply = relation.get("m.in_reply_to")
    reply_to = in_reply.get("event_id") if isinstance(in_reply, dict) else None
    if relation.get("is_falling_back") is True:
        reply_to = None  # a plain thread message; the reply field only points at the thread
    thread_root = relation.get("event_id") if relation.get("rel_type") == "m.thread" else None
    if event_type == "m.room.encrypted":
        return ParsedMessage(event_id, sender, "other", "", reply_to=reply_to, sent_at=sent_at)
    if event_type == "m.sticker":
        body = content.get("body")
        return ParsedMessage(
            event_id,
            sender,
            "attachment",
            body if isinstance(body, str) else "",
            reply_to=reply_to,
            thread_root=thread_root,
            sent_at=sent_at,
        )
    if event_type != "m.room.message":
        return None
    msgtype, body = content.get("msgtype"), content.get("body")
    body = body if isinstance(body, str) else ""
    kind: EventKind
    attachments: tuple[Attachment, ...] = ()
    if msgtype in _TEXTS:
        kind = "text"
    elif msgtype in _ATTACHMENTS:
        kind = "attachment"
        attachment = attachment_of(msgtype, content)
        attachments = (attachment,) if attachment is not None else ()
        body = caption_of(content)
    elif msgtype == "m.notice":
        return None
    else:
        kind = "other"
    if reply_to:
        body = strip_reply_fallback(body)
    formatted = content.get("formatted_body")
    if not isinstance(formatted, str) or content.get("format") != "org.matrix.custom.html":
        formatted = None
    elif not body:  # a file with no caption has no formatted body either
        formatted = None
    elif reply_to:
        formatted = re.sub(r"<mx-reply>.*?</mx-reply>", "", formatted, flags=re.DOTALL)
    mentions = content.get("m.mentions")
    user_ids = mentions.get("user_ids") if isinstance(mentions, dict) else None
    mentioned = tuple(uid for uid in user_ids or () if isinstance(uid, str))
    return ParsedMessage(
        event_id,
        sender,
        kind,
        body,
        formatted,
        reply_to,
        thread_root,
        mentioned,
        sent_at,
        attachments,
    )


def _pill_labels(formatted: str | None, user_id: str) -> list[str]:
    """The link texts of matrix.to pills pointing at ``user_id`` (empty strings kept)."""
    if not formatted:
        return []
    return [
        _TAG.sub("", match.group("label")).strip()
        for match in _PILL.finditer(formatted)
        if unquote(match.group("target")).lower() == user_id.lower()
    ]


def _word(name: str) -> str:
    return r"(?<![\w@])" + re.escape(name) + r"(?![\w@])"


def find_mention(message: ParsedMessage, bot: BotIdentity) -> tuple[bool, str]:
    """Whether ``message`` names the bot, and its text with a leading mention removed."""
    text = message.text
    pills = _pill_labels(message.formatted_body, bot.user_id)
    names = {bot.user_id, "@" + bot.localpart, *bot.display_names, *pills}
    names.discard("")
    by_length = sorted(names, key=len, reverse=True)
    mentioned = (
        bot.user_id in message.mentioned_ids
        or bool(pills)
        or any(re.search(_word(name), text, re.IGNORECASE) for name in by_length)
    )
    if not mentioned:
        return False, text
    alternatives = "|".join(_word(name) for name in by_length)
    leading = re.compile(rf"^\s*(?:{alternatives})\s*[:,]?\s*", re.IGNORECASE)
    stripped = leading.sub("", text, count=1)
    # a full user id left in the middle of a sentence reads better as the bot's name
    if bot.display_names:
        name = sorted(bot.display_names)[0]
        stripped = re.sub(re.escape(bot.user_id), name, stripped, flags=re.IGNORECASE)
    return True, stripped.strip() if stripped.strip() else text.strip()
