"""Outgoing Matrix message contents: markdown rendered to HTML, replies, edits, size limits.

Every message carries the markdown source as its plain ``body`` and the rendered HTML as
``formatted_body`` (``format: org.matrix.custom.html``), which is what Element shows. A reply
points at its parent through ``m.relates_to``/``m.in_reply_to`` (inside the parent's thread when
it has one); an edit is an ``m.replace`` whose ``m.new_content`` holds the new text and whose
own body is the ``* ``-prefixed fallback Element expects.

Synapse refuses events over 64 KiB, so :func:`chunks_that_fit` cuts long answers with
:func:`bot.turn.formatting.split_markdown` and cuts again any piece whose rendered event is still
too big (emoji and HTML both grow the byte count past the character count).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import markdown

from bot.daemon.errors import AdapterError
from bot.turn.formatting import split_markdown

__all__ = [
    "HTML_FORMAT",
    "MAX_CONTENT_BYTES",
    "ReplyTarget",
    "chunks_that_fit",
    "content_bytes",
    "edit_content",
    "message_content",
    "render_html",
]

HTML_FORMAT = "org.matrix.custom.html"
#: Synapse's limit is 65536 bytes for the whole event; leave room for its envelope.
MAX_CONTENT_BYTES = 60_000
_SMALLEST_CHUNK = 256
_EXTENSIONS = ["fenced_code", "tables", "sane_lists", "nl2br"]


@dataclass(frozen=True, slots=True)
class ReplyTarget:
    """The event an answer replies to, with its sender and thread when known.

    ``quote`` False makes a message that only continues the thread (the second piece of a
    long answer) without showing itself as a reply.
    """

    event_id: str
    sender: str | None = None
    thread_root: str | None = None
    quote: bool = True


def render_html(text: str) -> str:
    """Markdown (with fenced code and tables) to the HTML subset Matrix clients render."""
    html: str = markdown.markdown(text, extensions=_EXTENSIONS, output_format="html")
    return html.strip()


def content_bytes(content: dict[str, Any]) -> int:
    return len(json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _text_content(text: str) -> dict[str, Any]:
    return {
        "msgtype": "m.text",
        "body": text,
        "format": HTML_FORMAT,
        "formatted_body": render_html(text),
    }


def message_content(text: str, reply: ReplyTarget | None = None) -> dict[str, Any]:
    """The content of one ``m.room.message`` carrying ``text``, as a reply when asked."""
    content = _text_content(text)
    mentioned = [reply.sender] if reply and reply.sender and reply.quote else []
    content["m.mentions"] = {"user_ids": mentioned} if mentioned else {}
    if reply is None or not (reply.quote or reply.thread_root):
        return content
    relation: dict[str, Any] = {"m.in_reply_to": {"event_id": reply.event_id}}
    if reply.thread_root:
        relation.update(
            rel_type="m.thread", event_id=reply.thread_root, is_falling_back=not reply.quote
        )
    content["m.relates_to"] = relation
    return content


def edit_content(event_id: str, text: str) -> dict[str, Any]:
    """An ``m.replace`` of ``event_id`` with ``text``; the fallback shrinks if needed to fit."""
    new = _text_content(text)
    new["m.mentions"] = {}
    content: dict[str, Any] = {
        "msgtype": "m.text",
        "body": "* " + new["body"],
        "format": HTML_FORMAT,
        "formatted_body": "* " + new["formatted_body"],
        "m.new_content": new,
        "m.mentions": {},
        "m.relates_to": {"rel_type": "m.replace", "event_id": event_id},
    }
    if content_bytes(content) <= MAX_CONTENT_BYTES:
        return content
    # Clients that understand edits read m.new_content only; keep a short fallback.
    del content["format"], content["formatted_body"]
    content["body"] = "* " + text[:200] + "…"
    if content_bytes(content) > MAX_CONTENT_BYTES:
        del new["format"], new["formatted_body"]  # plain text beats no edit at all
    if content_bytes(content) > MAX_CONTENT_BYTES:
        raise AdapterError(
            f"edit of {event_id} is too large for one Matrix event",
            user_message="That answer is too long to show as one Matrix message.",
        )
    return content


def chunks_that_fit(text: str, limit: int) -> list[str]:
    """Cut markdown ``text`` into pieces of at most ``limit`` characters whose events fit."""
    pieces: list[str] = []
    for chunk in split_markdown(text, limit):
        if not chunk.strip():
            continue
        if content_bytes(message_content(chunk)) <= MAX_CONTENT_BYTES or limit <= _SMALLEST_CHUNK:
            pieces.append(chunk)
        else:
            pieces.extend(chunks_that_fit(chunk, max(_SMALLEST_CHUNK, limit // 2)))
    return pieces
