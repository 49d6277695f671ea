"""Reading a Nextcloud Talk webhook payload (Activity Streams 2.0) into an :class:`Incoming`.

Talk posts one JSON object per event. Only a chat message becomes an ``Incoming``::

    {"type": "Create",
     "actor": {"type": "Person", "id": "users/scott", "name": "Scott"},
     "object": {"type": "Note", "id": "1567", "name": "message",
                "content": "{\\"message\\":\\"hi {mention-user1}\\",\\"parameters\\":{...}}",
                "mediaType": "text/markdown"},
     "target": {"type": "Collection", "id": "n3xtc10ud", "name": "world"}}

``Join``/``Leave`` (the bot enabled in or removed from a conversation), ``Like``/``Undo``
(reactions) and ``Activity`` (system messages) are acknowledged and ignored.

What the payload does not say: whether the conversation is a one-to-one chat with the bot.
Talk has no such thing; a bot is *enabled in* a conversation that people share, and the
payload carries only the conversation's token and name. So a conversation counts as private
(``is_direct``) only when its token is listed in the ``direct_rooms`` setting; everywhere else
a message is ``addressed`` only when it mentions the bot (``@name``, ``name:`` or ``name,``
at the start, or a Talk mention chip whose id or name is ``mention_name``).

Files: a shared file is a rich-object parameter of type ``file`` (``{file}`` alone in the
message, or with the caption as the message). Each becomes an :class:`Attachment` (``ref``
its ``link``, with its name, ``mimetype`` and size) of a ``kind="attachment"`` event whose text
is the caption; the bot cannot fetch the file itself (:meth:`NCTalkAdapter.download`).

Senders: ``users/scott`` becomes ``scott``. Every other actor type (guests, e-mail guests,
federated users, phones) keeps its ``type/`` prefix, so it can never equal a Nextcloud user id
(those cannot contain ``/``) and never matches an ``nctalk:<user>`` identity by accident.
Bots are ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adapters.base import Attachment, EventKind, Incoming

__all__ = ["Ignored", "PayloadError", "mentions_bot", "parse_event", "render_message"]

PLATFORM = "nctalk"

_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
_MENTION_TYPES = frozenset({"user", "guest", "call", "user-group", "group", "circle", "team"})


class PayloadError(ValueError):
    """A signed payload that is not the shape Talk sends; the delivery is answered 400."""


@dataclass(frozen=True, slots=True)
class Ignored:
    """A well-formed event that is not a chat message for the bot, with the reason."""

    reason: str


@dataclass(frozen=True, slots=True)
class _Rendered:
    text: str
    mentioned_ids: frozenset[str]
    files: tuple[Attachment, ...]


def _str_field(node: Mapping[str, Any], key: str, where: str) -> str:
    value = node.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value:
        raise PayloadError(f"{where}.{key} is missing or not a string")
    return value


def _node(payload: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = payload.get(key)
    if not isinstance(value, dict):
        raise PayloadError(f"{key} is missing or not an object")
    return value


def _file(param: Mapping[str, Any]) -> Attachment:
    """A shared file's rich object (its values are strings, ``size`` included)."""
    size = str(param.get("size", ""))
    return Attachment(
        ref=str(param.get("link") or param.get("id") or ""),
        name=str(param.get("name") or ""),
        mime=str(param.get("mimetype") or ""),
        size=int(size) if size.isdigit() else None,
    )


def render_message(message: str, parameters: Mapping[str, Any]) -> _Rendered:
    """Substitute ``{placeholder}`` rich-object parameters with readable text.

    Mentions become ``@Display Name``; an unknown placeholder is left as written. Files are
    taken out of the text into ``files``, whether their placeholder is in it or the text is
    their caption.
    """
    mentioned: set[str] = set()
    files: list[Attachment] = []
    used: set[str] = set()

    def substitute(match: re.Match[str]) -> str:
        key = match.group(1)
        param = parameters.get(key)
        if not isinstance(param, dict):
            return match.group(0)
        used.add(key)
        kind = str(param.get("type", ""))
        name = str(param.get("name") or param.get("id") or "")
        if kind in _MENTION_TYPES:
            for field in ("id", "name", "mention-id"):
                if isinstance(param.get(field), str):
                    mentioned.add(param[field].casefold())
            return f"@{name}" if name else match.group(0)
        if kind == "file":
            files.append(_file(param))
            return ""
        return name or match.group(0)

    text = _PLACEHOLDER.sub(substitute, message)
    for key, param in parameters.items():
        if key not in used and isinstance(param, dict) and param.get("type") == "file":
            files.append(_file(param))
    if files:
        text = text.strip()
    return _Rendered(text=text, mentioned_ids=frozenset(mentioned), files=tuple(files))


def _address_pattern(mention_name: str) -> re.Pattern[str]:
    name = re.escape(mention_name)
    return re.compile(rf"^\s*(?:@{name}(?!\w)[\s:,]*|{name}\s*[:,]\s*)", re.IGNORECASE)


def mentions_bot(rendered: _Rendered, mention_name: str) -> tuple[bool, str]:
    """Whether ``rendered`` addresses the bot, and the text with a leading mention removed."""
    if not mention_name:
        return False, rendered.text
    leading = _address_pattern(mention_name)
    stripped, count = leading.subn("", rendered.text, count=1)
    if count:
        return True, stripped
    if mention_name.casefold() in rendered.mentioned_ids:
        return True, rendered.text
    anywhere = re.compile(rf"(?<![\w@])@{re.escape(mention_name)}(?!\w)", re.IGNORECASE)
    return bool(anywhere.search(rendered.text)), rendered.text


def _content(obj: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    raw = obj.get("content")
    if not isinstance(raw, str):
        raise PayloadError("object.content is missing or not a string")
    try:
        content = json.loads(raw)
    except ValueError as exc:
        raise PayloadError("object.content is not JSON") from exc
    if not isinstance(content, dict) or not isinstance(content.get("message"), str):
        raise PayloadError("object.content has no message")
    parameters = content.get("parameters") or {}
    if isinstance(parameters, list):  # PHP encodes an empty array as []
        parameters = {}
    if not isinstance(parameters, dict):
        raise PayloadError("object.content.parameters is not an object")
    return content["message"], parameters


def _reply_to(obj: Mapping[str, Any]) -> str | None:
    parent = obj.get("inReplyTo")
    if isinstance(parent, dict) and isinstance(parent.get("object"), dict):
        parent_id = parent["object"].get("id")
        if isinstance(parent_id, (str, int)) and not isinstance(parent_id, bool):
            return str(parent_id)
    return None


def parse_event(
    payload: Any, *, mention_name: str = "", direct_rooms: frozenset[str] = frozenset()
) -> Incoming | Ignored:
    """Turn one decoded webhook body into an ``Incoming``, or say why it is ignored.

    Raises :class:`PayloadError` when the body is not an object of the shape Talk sends.
    """
    if not isinstance(payload, dict):
        raise PayloadError("the payload is not a JSON object")
    kind = payload.get("type")
    if not isinstance(kind, str):
        raise PayloadError("type is missing")
    if kind != "Create":
        return Ignored(f"event type {kind}")
    actor = _node(payload, "actor")
    obj = _node(payload, "object")
    target = _node(payload, "target")
    actor_id = _str_field(actor, "id", "actor")
    actor_type, _, actor_key = actor_id.partition("/")
    if not actor_key:
        raise PayloadError("actor.id is not TYPE/ID")
    if actor_type == "bots":
        return Ignored("message from a bot")
    event_id = _str_field(obj, "id", "object")
    room = _str_field(target, "id", "target")
    message, parameters = _content(obj)
    rendered = render_message(message, parameters)
    name = obj.get("name")
    # Before Nextcloud 33 a message with an attachment arrived with an empty name.
    if name != "message" and not (name == "" and rendered.files):
        return Ignored(f"object name {name!r}")
    is_direct = room in direct_rooms
    addressed, text = mentions_bot(rendered, mention_name)
    event_kind: EventKind = "attachment" if rendered.files else "text"
    sender_name = actor.get("name")
    return Incoming(
        platform=PLATFORM,
        sender=actor_key if actor_type == "users" else actor_id,
        room=room,
        text=text,
        event_id=event_id,
        is_direct=is_direct,
        addressed=is_direct or addressed,
        kind=event_kind,
        reply_to=_reply_to(obj),
        sender_name=sender_name if isinstance(sender_name, str) and sender_name else None,
        attachments=rendered.files,
    )
